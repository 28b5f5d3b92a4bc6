//! The exact primal: KKT multipliers, optimality against a dense simplex grid, and the
//! qualifying constraints and Lagrangian lower bound built from them.

use bl_core::random::{seeded_rng, standard_normal};
use gop_mmf::lagrangian::Lagrangian;
use gop_mmf::primal::{PrimalSolution, objective, solve_primal, solve_sample};
use gop_mmf::{GopError, Linearization};
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
        let direct = objective(&x, &p.theta, &y, m, k, n).unwrap();
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
                grid_min = grid_min.min(objective(&x, &th, &y, 3, 3, 1).unwrap());
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
        let lag = Lagrangian::at(&x, &p).unwrap();
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

/// Eq. (6) of the paper, per sample summed (this crate's sign of `lambda`): the Lagrangian
/// (3) with `theta^T x^T x theta` linearized in `x` about `x0`.
fn eq6(x: &[f64], theta: &[f64], x0: &[f64], y: &[f64], p: &PrimalSolution) -> f64 {
    let (m, k, n) = (p.m, p.k, p.n);
    let mut total = 0.0;
    for s in 0..n {
        let th = &theta[s * k..(s + 1) * k];
        let yn = &y[s * m..(s + 1) * m];
        let x0t: Vec<f64> = (0..m)
            .map(|j| (0..k).map(|a| x0[a * m + j] * th[a]).sum())
            .collect();
        let xt: Vec<f64> = (0..m)
            .map(|j| (0..k).map(|a| x[a * m + j] * th[a]).sum())
            .collect();
        let yy: f64 = yn.iter().map(|v| v * v).sum();
        let q0: f64 = x0t.iter().map(|v| v * v).sum();
        let yx: f64 = yn.iter().zip(&xt).map(|(a, b)| a * b).sum();
        let cross: f64 = x0t.iter().zip(&xt).map(|(a, b)| a * b).sum();
        let ones: f64 = th.iter().sum::<f64>() - 1.0;
        let mu: f64 = (0..k).map(|a| p.mu[s * k + a] * th[a]).sum();
        total += yy - q0 - 2.0 * yx + 2.0 * cross + p.lambda[s] * ones - mu;
    }
    total
}

#[test]
fn paper_linearization_is_eq7_built_from_eq6_by_finite_differences() {
    // Independent construction of the paper's eq. (7): eq. (6) at theta^t plus its
    // gradient in theta (central differences, exact for a quadratic up to rounding) times
    // (theta - theta^t), evaluated at random (x, theta); and the properties the fit needs:
    // every g_kn vanishes at x^t and the bound is tight at (x^t, theta^t).
    for seed in 0..20u64 {
        let m = 1 + (seed as usize) % 4;
        let (k, n) = (2 + (seed as usize) % 2, 3);
        let (x0, y) = random_instance(700 + seed, m, k, n);
        let p = solve_primal(&x0, &y, m, k, n).unwrap();
        let lag = Lagrangian::paper_at(&x0, &p).unwrap();
        let scale =
            1.0 + x0.iter().map(|v| v * v).sum::<f64>() + y.iter().map(|v| v * v).sum::<f64>();
        for q in &lag.qualifying {
            assert!(q.g.eval(&x0).abs() < 1e-10 * scale, "seed {seed}");
        }
        assert!((lag.eval(&x0, &p.theta, k) - p.objective).abs() < 1e-9 * scale);
        assert!((lag.lower_bound(&x0) - p.objective).abs() < 1e-9 * scale);
        let mut rng = seeded_rng(seed ^ 0x5eed);
        for _ in 0..10 {
            let x: Vec<f64> = (0..m * k).map(|_| standard_normal(&mut rng)).collect();
            let theta: Vec<f64> = (0..k * n).map(|_| rng_unit(&mut rng)).collect();
            let h = 1e-4;
            let mut direct = eq6(&x, &p.theta, &x0, &y, &p);
            for i in 0..k * n {
                let (mut up, mut down) = (p.theta.clone(), p.theta.clone());
                up[i] += h;
                down[i] -= h;
                let d = (eq6(&x, &up, &x0, &y, &p) - eq6(&x, &down, &x0, &y, &p)) / (2.0 * h);
                direct += d * (theta[i] - p.theta[i]);
            }
            let ours = lag.eval(&x, &theta, k);
            assert!(
                (ours - direct).abs() < 1e-6 * scale,
                "seed {seed}: {ours} vs {direct}"
            );
        }
    }
}

fn rng_unit(rng: &mut bl_core::random::Rng) -> f64 {
    use rand::RngExt;
    rng.random_range(0.0..1.0)
}

#[test]
fn paper_linearization_can_exceed_the_primal_value() {
    // The trap of eqs. (6)-(8): the linearization in theta is taken of (6), which is not
    // convex in theta away from x^t, so phi_t(x) = min over the theta box of (7) can lie
    // above v(x) = min over the simplex of ||y - x theta||^2. On the Sec. 5.1 instance a
    // few random pairs (x^t, x) of the l1 ball show it; the product linearization never
    // does on the same pairs.
    let y = [0.0, -1.0, -0.5];
    let (m, k, n, budget) = (1, 2, 3, 1.0);
    let mut rng = seeded_rng(11);
    let ball = |rng: &mut bl_core::random::Rng| {
        let x: Vec<f64> = (0..m * k).map(|_| standard_normal(rng)).collect();
        let l1: f64 = x.iter().map(|v| v.abs()).sum();
        let r = budget * (0.05 + 0.9 * rng_unit(rng)) / l1;
        x.iter().map(|v| v * r).collect::<Vec<f64>>()
    };
    let (mut paper_bad, mut product_bad, mut worst) = (0, 0, 0.0_f64);
    for _ in 0..100 {
        let xt = ball(&mut rng);
        let pt = solve_primal(&xt, &y, m, k, n).unwrap();
        let paper = Lagrangian::build(Linearization::Paper, &xt, &pt).unwrap();
        let product = Lagrangian::build(Linearization::Product, &xt, &pt).unwrap();
        for _ in 0..20 {
            let x = ball(&mut rng);
            let v = solve_primal(&x, &y, m, k, n).unwrap().objective;
            let tol = 1e-9 * (1.0 + v);
            if paper.lower_bound(&x) > v + tol {
                paper_bad += 1;
                worst = worst.max(paper.lower_bound(&x) - v);
            }
            if product.lower_bound(&x) > v + tol {
                product_bad += 1;
            }
        }
    }
    assert_eq!(product_bad, 0);
    assert!(
        paper_bad > 0 && worst > 1e-3,
        "{paper_bad} violations, worst {worst}"
    );
}

#[test]
fn bad_input_is_rejected() {
    assert!(matches!(
        solve_sample(&[1.0, f64::NAN], 1, 2, &[0.0]),
        Err(GopError::Core(_))
    ));
    assert!(matches!(
        solve_sample(&[1.0, 2.0, 3.0], 1, 2, &[0.0]),
        Err(GopError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(matches!(
        solve_primal(&[1.0, 2.0], &[0.0, 1.0, 2.0], 1, 2, 2),
        Err(GopError::Core(_))
    ));
    assert!(matches!(
        solve_sample(&[], 0, 0, &[]),
        Err(GopError::Core(bl_core::BlError::InvalidParameter {
            name: "k",
            ..
        }))
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
        let lag = Lagrangian::at(&xt, &pt).unwrap();
        let mut rng = seeded_rng(seed ^ 0xabc);
        for _ in 0..20 {
            let x: Vec<f64> = (0..m * k).map(|_| 2.0 * standard_normal(&mut rng)).collect();
            let v = solve_primal(&x, &y, m, k, n).unwrap().objective;
            let phi = lag.lower_bound(&x);
            prop_assert!(phi <= v + 1e-9 * (1.0 + v.abs()), "phi {} > v {}", phi, v);
        }
    }
}
