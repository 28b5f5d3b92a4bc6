//! The exact primal: KKT multipliers, optimality against a dense simplex grid, and the
//! qualifying constraints and Lagrangian lower bound built from them.

use bl_core::random::{seeded_rng, standard_normal};
use gop_mmf::GopError;
use gop_mmf::lagrangian::Lagrangian;
use gop_mmf::primal::{PrimalSolution, objective, solve_primal, solve_sample};
use proptest::prelude::*;

fn random_instance(seed: u64, m: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = seeded_rng(seed);
    let x: Vec<f64> = (0..m * k).map(|_| standard_normal(&mut rng)).collect();
    let y: Vec<f64> = (0..m * n).map(|_| standard_normal(&mut rng)).collect();
    (x, y)
}

/// Largest violation of the KKT conditions of (3), relative to the data scale.
fn kkt_violation(x: &[f64], y: &[f64], p: &PrimalSolution) -> (f64, f64, f64) {
    let (m, k, n) = (p.m, p.k, p.n);
    let scale = 1.0 + x.iter().map(|v| v * v).sum::<f64>() + y.iter().map(|v| v.abs()).sum::<f64>();
    let (mut stat, mut feas, mut comp) = (0.0_f64, 0.0_f64, 0.0_f64);
    for s in 0..n {
        let th = &p.theta[s * k..(s + 1) * k];
        feas = feas.max((th.iter().sum::<f64>() - 1.0).abs());
        for a in 0..k {
            feas = feas.max(-th[a]).max(-p.mu[s * k + a]);
            // 2 x_a^T (x theta - y) + lambda - mu
            let g: f64 = (0..m)
                .map(|j| {
                    let fit: f64 = (0..k).map(|b| x[b * m + j] * th[b]).sum();
                    x[a * m + j] * (fit - y[s * m + j])
                })
                .sum();
            stat = stat.max((2.0 * g + p.lambda[s] - p.mu[s * k + a]).abs() / scale);
            comp = comp.max((p.mu[s * k + a] * th[a]).abs() / scale);
        }
    }
    (stat, feas, comp)
}

#[test]
fn kkt_stationarity_and_complementary_slackness_hold() {
    for seed in 0..40 {
        let m = 1 + (seed as usize) % 4;
        let k = 2 + (seed as usize) % 3;
        let n = 3;
        let (x, y) = random_instance(seed, m, k, n);
        let p = solve_primal(&x, &y, m, k, n).unwrap();
        let (stat, feas, comp) = kkt_violation(&x, &y, &p);
        assert!(stat < 1e-10, "seed {seed}: stationarity {stat:e}");
        assert!(feas < 1e-12, "seed {seed}: feasibility {feas:e}");
        assert!(
            comp < 1e-10,
            "seed {seed}: complementary slackness {comp:e}"
        );
        let direct = objective(&x, &p.theta, &y, m, k, n);
        assert!((direct - p.objective).abs() < 1e-10 * (1.0 + direct));
    }
}

#[test]
fn primal_matches_a_dense_simplex_grid() {
    // K = 3: grid of step 1/200 over the simplex; the exact optimum is at most the grid min.
    for seed in 0..10 {
        let (x, y) = random_instance(100 + seed, 3, 3, 1);
        let s = solve_sample(&x, 3, 3, &y).unwrap();
        let steps = 200;
        let mut grid_min = f64::INFINITY;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let th = [
                    i as f64 / steps as f64,
                    j as f64 / steps as f64,
                    (steps - i - j) as f64 / steps as f64,
                ];
                grid_min = grid_min.min(objective(&x, &th, &y, 3, 3, 1));
            }
        }
        assert!(s.objective <= grid_min + 1e-12, "seed {seed}");
        // ... and the grid gets close to it (a Lipschitz bound on a step of 1/200).
        assert!(
            grid_min - s.objective < 0.05,
            "seed {seed}: {grid_min} vs {}",
            s.objective
        );
    }
}

#[test]
fn degenerate_columns_are_handled() {
    // Identical columns (affinely dependent), a zero x, and M = 1 with K = 3.
    let x = [1.0, 2.0, 1.0, 2.0];
    let s = solve_sample(&x, 2, 2, &[0.5, 0.5]).unwrap();
    assert!((s.theta.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!((s.objective - (0.25 + 2.25)).abs() < 1e-12);
    let s = solve_sample(&[0.0; 4], 2, 2, &[1.0, -1.0]).unwrap();
    assert!((s.objective - 2.0).abs() < 1e-12);
    let s = solve_sample(&[0.3, -0.2, 0.9], 1, 3, &[0.1]).unwrap();
    assert!(s.objective < 1e-24);
}

#[test]
fn every_qualifying_hyperplane_contains_the_current_x() {
    for seed in 0..30 {
        let m = 1 + (seed as usize) % 5;
        let (k, n) = (2 + (seed as usize) % 2, 4);
        let (x, y) = random_instance(200 + seed, m, k, n);
        let p = solve_primal(&x, &y, m, k, n).unwrap();
        let lag = Lagrangian::at(&x, &p);
        assert_eq!(lag.qualifying.len(), k * n);
        let scale =
            1.0 + x.iter().map(|v| v * v).sum::<f64>() + y.iter().map(|v| v.abs()).sum::<f64>();
        for q in &lag.qualifying {
            let v = q.g.eval(&x);
            assert!(
                v.abs() < 1e-10 * scale,
                "seed {seed}: g_({},{})(x^t) = {v:e}",
                q.component,
                q.sample
            );
        }
        // The Lagrangian is tight at (x^t, theta^t) and its lower bound at x^t.
        assert!((lag.eval(&x, &p.theta, k) - p.objective).abs() < 1e-9 * scale);
        assert!((lag.lower_bound(&x) - p.objective).abs() < 1e-9 * scale);
    }
}

#[test]
fn bad_input_is_rejected() {
    assert!(matches!(
        solve_sample(&[1.0, f64::NAN], 1, 2, &[0.0]),
        Err(GopError::Input(_))
    ));
    assert!(matches!(
        solve_sample(&[1.0, 2.0, 3.0], 1, 2, &[0.0]),
        Err(GopError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        solve_primal(&[1.0, 2.0], &[0.0, 1.0, 2.0], 1, 2, 2),
        Err(GopError::Input(_))
    ));
    assert!(matches!(
        solve_sample(&[], 0, 0, &[]),
        Err(GopError::InvalidParameter { name: "k", .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// phi_t(x) <= v(x) for every x: the Lagrangian bound built at x^t never exceeds the
    /// primal value at any other point (the heart of the lower bound's validity).
    #[test]
    fn lagrangian_bound_is_below_the_primal_everywhere(
        seed in 0u64..1000, m in 1usize..4, k in 2usize..4, n in 1usize..4,
    ) {
        let (xt, y) = random_instance(seed, m, k, n);
        let pt = solve_primal(&xt, &y, m, k, n).unwrap();
        let lag = Lagrangian::at(&xt, &pt);
        let mut rng = seeded_rng(seed ^ 0xabc);
        for _ in 0..20 {
            let x: Vec<f64> = (0..m * k).map(|_| 2.0 * standard_normal(&mut rng)).collect();
            let v = solve_primal(&x, &y, m, k, n).unwrap().objective;
            let phi = lag.lower_bound(&x);
            prop_assert!(phi <= v + 1e-9 * (1.0 + v.abs()), "phi {} > v {}", phi, v);
        }
    }
}
