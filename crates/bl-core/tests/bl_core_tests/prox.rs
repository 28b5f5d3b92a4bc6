//! Proximal operators and projections against their defining optimality conditions.

use bl_core::BlError;
use bl_core::prox::{
    elastic_net_penalty, elastic_net_prox_step, project_l1_ball, project_simplex, soft_threshold,
    soft_threshold_in_place, soft_threshold_slice,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

fn vec_strategy(max_len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-10.0..10.0f64, 1..max_len)
}

proptest! {
    /// `p = S_tau(x)` iff `x - p` is in `tau * subdifferential |.|(p)`.
    #[test]
    fn soft_threshold_satisfies_prox_optimality(x in -100.0..100.0f64, tau in 0.0..50.0f64) {
        let p = soft_threshold(x, tau);
        let tol = 1e-12 * (1.0 + x.abs());
        if p == 0.0 {
            prop_assert!(x.abs() <= tau + tol);
        } else {
            prop_assert!((x - p - tau * p.signum()).abs() <= tol);
        }
    }

    /// Elastic-net step of SBLR eq. (10): each coordinate satisfies
    /// `0 in g + L (u - z) + l1 d|u| + l2 u`.
    #[test]
    fn elastic_net_step_satisfies_optimality(
        z in vec_strategy(20),
        seed_g in -5.0..5.0f64,
        lip in 0.01..100.0f64,
        l1 in 0.0..3.0f64,
        l2 in 0.0..3.0f64,
    ) {
        let g: Vec<f64> = z.iter().enumerate().map(|(i, zi)| seed_g * (i as f64 + 1.0).sin() + 0.3 * zi).collect();
        let mut u = vec![0.0; z.len()];
        elastic_net_prox_step(&z, &g, lip, l1, l2, &mut u).unwrap();
        for i in 0..z.len() {
            let smooth = g[i] + lip * (u[i] - z[i]) + l2 * u[i];
            let tol = 1e-9 * (1.0 + lip * z[i].abs() + g[i].abs());
            if u[i] == 0.0 {
                prop_assert!(smooth.abs() <= l1 + tol, "zero coordinate: |{}| > {}", smooth, l1);
            } else {
                prop_assert!((smooth + l1 * u[i].signum()).abs() <= tol);
            }
        }
    }

    /// The step's objective is no larger than at nearby perturbed points.
    #[test]
    fn elastic_net_step_is_a_minimizer(
        z in vec_strategy(8),
        lip in 0.1..10.0f64,
        l1 in 0.0..2.0f64,
        l2 in 0.0..2.0f64,
        delta in -0.5..0.5f64,
    ) {
        let g: Vec<f64> = z.iter().map(|v| 0.7 * v - 0.2).collect();
        let obj = |u: &[f64]| -> f64 {
            u.iter().zip(&z).zip(&g).map(|((ui, zi), gi)| gi * (ui - zi) + 0.5 * lip * (ui - zi).powi(2)).sum::<f64>()
                + elastic_net_penalty(u, l1, l2)
        };
        let mut u = vec![0.0; z.len()];
        elastic_net_prox_step(&z, &g, lip, l1, l2, &mut u).unwrap();
        let best = obj(&u);
        for i in 0..u.len() {
            let mut w = u.clone();
            w[i] += delta;
            prop_assert!(best <= obj(&w) + 1e-10 * (1.0 + best.abs()));
        }
    }

    /// Simplex projection: feasible, idempotent, and optimal
    /// (`<v - x, y - x> <= 0` at every vertex `y`, hence on the whole simplex).
    #[test]
    fn simplex_projection_is_feasible_idempotent_optimal(v in vec_strategy(30), radius in 0.1..5.0f64) {
        check_projection(&v, radius, project_simplex, &[1.0], |x, tol| {
            x.iter().all(|&xi| xi >= 0.0) && (x.iter().sum::<f64>() - radius).abs() <= tol
        })?;
    }

    /// l1-ball projection: feasible, idempotent, optimal at the vertices `±r e_j`.
    #[test]
    fn l1_ball_projection_is_feasible_idempotent_optimal(v in vec_strategy(30), radius in 0.1..5.0f64) {
        check_projection(&v, radius, project_l1_ball, &[-1.0, 1.0], |x, tol| {
            x.iter().map(|a| a.abs()).sum::<f64>() <= radius + tol
        })?;
    }
}

/// Checks a Euclidean projection `x` of `v` onto a convex set whose vertices are
/// `sign * radius * e_j`: `x` is feasible, projecting it again changes nothing, and
/// `<v - x, y - x> <= 0` at every vertex `y` (hence on the whole set).
fn check_projection(
    v: &[f64],
    radius: f64,
    project: fn(&[f64], f64, &mut [f64]) -> bl_core::Result<()>,
    vertex_signs: &[f64],
    feasible: impl Fn(&[f64], f64) -> bool,
) -> Result<(), TestCaseError> {
    let n = v.len();
    let mut x = vec![0.0; n];
    project(v, radius, &mut x).unwrap();
    let tol = 1e-10 * (n as f64) * (1.0 + radius);
    prop_assert!(feasible(&x, tol), "infeasible projection {:?}", x);
    let mut again = vec![0.0; n];
    project(&x, radius, &mut again).unwrap();
    for (a, b) in x.iter().zip(&again) {
        prop_assert!((a - b).abs() <= tol);
    }
    for j in 0..n {
        for &sign in vertex_signs {
            let inner: f64 = (0..n)
                .map(|i| (v[i] - x[i]) * (if i == j { sign * radius } else { 0.0 } - x[i]))
                .sum();
            prop_assert!(
                inner <= tol * 10.0,
                "vertex {} violates optimality: {}",
                j,
                inner
            );
        }
    }
    Ok(())
}

#[test]
fn slice_and_in_place_soft_threshold_agree() {
    let x = [-3.0, -0.5, 0.0, 0.2, 4.0];
    let mut out = [0.0; 5];
    soft_threshold_slice(&x, 1.0, &mut out).unwrap();
    assert_eq!(out, [-2.0, 0.0, 0.0, 0.0, 3.0]);
    let mut y = x;
    soft_threshold_in_place(&mut y, 1.0).unwrap();
    assert_eq!(y, out);
}

#[test]
fn simplex_projection_closed_form_cases() {
    // Already on the simplex: unchanged.
    let mut x = [0.0; 3];
    project_simplex(&[0.2, 0.3, 0.5], 1.0, &mut x).unwrap();
    assert!((x[0] - 0.2).abs() < 1e-15 && (x[2] - 0.5).abs() < 1e-15);
    // Equal entries: uniform.
    project_simplex(&[7.0, 7.0, 7.0], 1.0, &mut x).unwrap();
    assert!(x.iter().all(|&v| (v - 1.0 / 3.0).abs() < 1e-15));
    // One dominant entry: a vertex.
    project_simplex(&[10.0, 0.0, -1.0], 1.0, &mut x).unwrap();
    assert_eq!(x, [1.0, 0.0, 0.0]);
}

#[test]
fn l1_ball_keeps_interior_points() {
    let v = [0.1, -0.2, 0.3];
    let mut x = [0.0; 3];
    project_l1_ball(&v, 1.0, &mut x).unwrap();
    assert_eq!(x, v);
}

#[test]
fn bad_input_gives_typed_errors() {
    let mut out = [0.0; 2];
    assert!(matches!(
        soft_threshold_slice(&[1.0, 2.0, 3.0], 1.0, &mut out),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        soft_threshold_in_place(&mut [1.0], -1.0),
        Err(BlError::InvalidParameter { name: "tau", .. })
    ));
    assert!(matches!(
        elastic_net_prox_step(&[1.0, 2.0], &[1.0, 2.0], 0.0, 0.1, 0.1, &mut out),
        Err(BlError::InvalidParameter {
            name: "lipschitz",
            ..
        })
    ));
    assert!(matches!(
        elastic_net_prox_step(&[1.0, 2.0], &[1.0, 2.0], 1.0, -0.1, 0.1, &mut out),
        Err(BlError::InvalidParameter { name: "l1", .. })
    ));
    assert!(matches!(
        elastic_net_prox_step(&[1.0, 2.0], &[1.0], 1.0, 0.1, 0.1, &mut out),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        project_simplex(&[], 1.0, &mut []),
        Err(BlError::Empty { .. })
    ));
    assert!(matches!(
        project_simplex(&[1.0, f64::NAN], 1.0, &mut out),
        Err(BlError::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        project_simplex(&[1.0, 2.0], 0.0, &mut out),
        Err(BlError::InvalidParameter { name: "radius", .. })
    ));
    assert!(matches!(
        project_l1_ball(&[1.0, f64::INFINITY], 1.0, &mut out),
        Err(BlError::NonFinite { .. })
    ));
}
