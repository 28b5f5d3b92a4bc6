//! The certified interval [RLBD, PUBD] contains the global optimum found by exhaustive
//! search; the bounds never cross; bad input is rejected.

use bl_core::random::{seeded_rng, standard_normal};
use faer::Mat;
use gop_mmf::primal::solve_primal;
use gop_mmf::{Fit, Fitted, GopError, GopParams};
use proptest::prelude::*;

fn random_y(seed: u64, m: usize, n: usize) -> Mat<f64> {
    let mut rng = seeded_rng(seed);
    Mat::from_fn(m, n, |_, _| standard_normal(&mut rng))
}

fn colmajor(y: &Mat<f64>) -> Vec<f64> {
    (0..y.ncols())
        .flat_map(|s| (0..y.nrows()).map(move |j| (j, s)))
        .map(|(j, s)| y[(j, s)])
        .collect()
}

/// Exact primal value at x (M x K column-major).
fn value(x: &[f64], y: &[f64], m: usize, k: usize, n: usize) -> f64 {
    solve_primal(x, y, m, k, n).unwrap().objective
}

/// Minimum of the primal value over a grid of the l1 ball (`steps` per axis on
/// [-P, P]^{MK}), refined by coordinate search around the best grid points. Every point
/// visited is feasible, so the result is an upper estimate of the global optimum.
fn exhaustive_min(y: &[f64], m: usize, k: usize, n: usize, budget: f64, steps: usize) -> f64 {
    let d = m * k;
    let h = 2.0 * budget / steps as f64;
    let mut idx = vec![0usize; d];
    let mut scored: Vec<(f64, Vec<f64>)> = Vec::new();
    loop {
        let x: Vec<f64> = idx.iter().map(|&i| -budget + h * i as f64).collect();
        if x.iter().map(|v| v.abs()).sum::<f64>() <= budget + 1e-12 {
            scored.push((value(&x, y, m, k, n), x));
        }
        let mut t = 0;
        loop {
            if t == d {
                scored.sort_by(|a, b| a.0.total_cmp(&b.0));
                let mut best = scored[0].0;
                for (_, start) in scored.iter().take(5) {
                    best = best.min(polish(start.clone(), y, m, k, n, budget, h));
                }
                return best;
            }
            idx[t] += 1;
            if idx[t] <= steps {
                break;
            }
            idx[t] = 0;
            t += 1;
        }
    }
}

/// Pattern search inside the ball, halving the step down to 1e-7.
fn polish(
    mut x: Vec<f64>,
    y: &[f64],
    m: usize,
    k: usize,
    n: usize,
    budget: f64,
    mut h: f64,
) -> f64 {
    let mut fx = value(&x, y, m, k, n);
    while h > 1e-7 {
        let mut improved = false;
        for i in 0..x.len() {
            for dir in [-1.0, 1.0] {
                let mut z = x.clone();
                z[i] += dir * h;
                if z.iter().map(|v| v.abs()).sum::<f64>() <= budget {
                    let fz = value(&z, y, m, k, n);
                    if fz < fx {
                        x = z;
                        fx = fz;
                        improved = true;
                    }
                }
            }
        }
        if !improved {
            h *= 0.5;
        }
    }
    fx
}

/// Runs GOP and checks `RLBD <= optimum <= PUBD` against the exhaustive search; with
/// `require_convergence`, also that the gap closed to `eps` within `max_iter`.
fn check_instance(
    seed: u64,
    (m, k, n): (usize, usize, usize),
    budget: f64,
    steps: usize,
    (eps, max_iter, require_convergence): (f64, usize, bool),
) {
    let y = random_y(seed, m, n);
    let opt = exhaustive_min(&colmajor(&y), m, k, n, budget, steps);
    let tol = 1e-9 * (1.0 + opt);
    // Both relaxed duals: with `Q` free (the paper's, the default) and with `Q >= 0`.
    for floor in [false, true] {
        let fit = GopParams::default()
            .k(k)
            .budget(budget)
            .tol(eps)
            .seed(seed)
            .threads(Some(1))
            .max_iter(max_iter)
            .nonnegative_bound(floor)
            .fit(&y.as_ref())
            .unwrap();
        let c = fit.certificate();
        eprintln!(
            "seed {seed} (M={m}, K={k}, N={n}, Q >= 0: {floor}): [{:.6}, {:.6}] optimum {opt:.6}, {} iterations",
            c.lower_bound,
            c.upper_bound,
            fit.report().iterations
        );
        if !require_convergence && !c.certified {
            assert!(
                c.lower_bound <= opt + tol,
                "seed {seed}: lower bound {} above the optimum {opt}",
                c.lower_bound
            );
            continue;
        }
        assert!(
            c.certified,
            "seed {seed}: not certified, {c:?} after {} iterations",
            fit.report().iterations
        );
        assert!(
            c.lower_bound <= opt + tol,
            "seed {seed} (M={m}, K={k}, N={n}, P={budget}): lower bound {} above the optimum {opt}",
            c.lower_bound
        );
        assert!(
            c.upper_bound <= opt + eps + tol,
            "seed {seed}: upper bound {} not within eps of the optimum {opt}",
            c.upper_bound
        );
        // The returned point attains the upper bound.
        let x: Vec<f64> = (0..k)
            .flat_map(|a| (0..m).map(move |j| (j, a)))
            .map(|(j, a)| fit.x()[(j, a)])
            .collect();
        assert!((value(&x, &colmajor(&y), m, k, n) - c.upper_bound).abs() < 1e-9 * (1.0 + opt));
        assert!(x.iter().map(|v| v.abs()).sum::<f64>() <= budget * (1.0 + 1e-9));
    }
}

#[test]
fn certified_interval_contains_the_exhaustive_optimum_m1() {
    // 16 instances with M = 1, K = 2: a 2-D grid of 161^2 points.
    for seed in 0..16u64 {
        let n = 2 + (seed as usize) % 4;
        let budget = [0.5, 1.0, 2.0, 3.0][(seed as usize) % 4];
        check_instance(seed, (1, 2, n), budget, 160, (1e-3, 20_000, true));
    }
}

#[test]
fn certified_interval_contains_the_exhaustive_optimum_m2_and_k3() {
    // 4 instances with M = 2, K = 2 and 2 with M = 1, K = 3 (grids of 17^4 and 41^3),
    // refined by pattern search.
    // GOP's tree grows quickly with M K: these runs have an iteration budget, and the
    // interval they prove must contain the optimum whether or not the gap closed.
    for seed in 0..4u64 {
        let n = 2 + (seed as usize) % 2;
        let budget = 1.0 + seed as f64 * 0.5;
        check_instance(100 + seed, (2, 2, n), budget, 16, (0.05, 400, false));
    }
    for seed in 0..2u64 {
        check_instance(200 + seed, (1, 3, 3), 1.5, 40, (1e-2, 2000, true));
    }
}

#[test]
fn illustrative_example_reaches_the_global_optimum_from_twenty_starts() {
    // Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1, eps = 0.01; the optimum is 0.
    let (y, params) = gop_mmf::synthetic::illustrative();
    for seed in 0..20 {
        let fit = params.clone().seed(seed).fit(&y.as_ref()).unwrap();
        assert!(fit.certificate().certified, "seed {seed}");
        assert!(
            fit.upper_bound() <= 0.01,
            "seed {seed}: {}",
            fit.upper_bound()
        );
        assert!(fit.lower_bound() <= 1e-12);
        // The Table 1 summary is the mean of the per-iteration records.
        let h = fit.history();
        let mean = fit.mean_timing();
        let total: f64 = h.iter().map(|r| r.timing.total).sum::<f64>() / h.len() as f64;
        assert!((mean.total - total).abs() <= 1e-12 * (1.0 + total));
        let num: usize = h.iter().map(|r| r.timing.num_duals).sum();
        assert_eq!(
            mean.num_duals,
            (num as f64 / h.len() as f64).round() as usize
        );
    }
}

#[test]
fn threads_do_not_change_the_result() {
    let y = random_y(42, 3, 3);
    let [one, two] = [1, 2].map(|threads| {
        GopParams::default()
            .k(2)
            .budget(1.5)
            .tol(1e-2)
            .seed(1)
            .threads(Some(threads))
            .max_iter(60)
            .fit(&y.as_ref())
            .unwrap()
    });
    assert_eq!(one.report().iterations, two.report().iterations);
    assert_eq!(one.lower_bound(), two.lower_bound());
    assert_eq!(one.upper_bound(), two.upper_bound());
    assert_eq!(one.tree().len(), two.tree().len());
}

#[test]
fn bad_input_gives_typed_errors() {
    let y = random_y(1, 2, 3);
    let mut nan = y.clone();
    nan[(1, 2)] = f64::NAN;
    assert!(matches!(
        GopParams::default().k(2).budget(1.0).fit(&nan.as_ref()),
        Err(GopError::Core(_))
    ));
    let base = GopParams::default().k(2).budget(1.0);
    let mut invalid: Vec<(GopParams, &str)> = vec![
        (base.clone().k(1), "k"),
        (base.clone().tol(0.0), "tol"),
        (base.clone().tol(f64::NAN), "tol"),
        (base.clone().max_iter(0), "max_iter"),
        (base.clone().initial_x(Some(vec![1.0; 4])), "initial_x"),
    ];
    for p in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        invalid.push((base.clone().budget(p), "budget"));
    }
    for (params, name) in invalid {
        let err = params.fit(&y.as_ref()).unwrap_err();
        assert_eq!(err.invalid_parameter(), Some(name), "{err}");
    }
    assert!(matches!(
        base.clone().initial_x(Some(vec![0.0; 3])).fit(&y.as_ref()),
        Err(GopError::Core(bl_core::BlError::ShapeMismatch {
            context: "initial_x",
            ..
        }))
    ));
    let empty = Mat::<f64>::zeros(0, 3);
    assert!(matches!(
        GopParams::default().k(2).budget(1.0).fit(&empty.as_ref()),
        Err(GopError::Core(_))
    ));
    // Messages say what to fix.
    let msg = GopParams::default()
        .k(2)
        .budget(-1.0)
        .fit(&y.as_ref())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("budget") && msg.contains("> 0"), "{msg}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// LB <= UB at every iteration; RLBD never decreases and PUBD never increases.
    #[test]
    fn bounds_never_cross(seed in 0u64..10_000, m in 1usize..3, n in 2usize..4, budget in 0.3f64..3.0) {
        let y = random_y(seed, m, n);
        let fit = GopParams::default().k(2).budget(budget).tol(1e-3).seed(seed).threads(Some(1)).max_iter(40).fit(&y.as_ref()).unwrap();
        let mut prev: Option<(f64, f64)> = None;
        for r in fit.history() {
            prop_assert!(r.lower_bound <= r.upper_bound + 1e-12, "iteration {}: {} > {}", r.iteration, r.lower_bound, r.upper_bound);
            if let Some((lb, ub)) = prev {
                prop_assert!(r.lower_bound >= lb - 1e-12);
                prop_assert!(r.upper_bound <= ub);
            }
            prev = Some((r.lower_bound, r.upper_bound));
        }
        prop_assert!(fit.lower_bound() <= fit.upper_bound());
    }
}

#[test]
fn tangent_cone_cells_do_not_change_the_certificate() {
    // The same fits with the cells of every node found on its whole region (the reference
    // walk) and in the tangent cone at its point: same cells at the root, and certified
    // intervals that agree (the trees may differ in the order of equal-bound nodes).
    for seed in 0..6u64 {
        let (m, n) = (1 + (seed as usize) % 2, 3);
        let y = random_y(300 + seed, m, n);
        let params = GopParams::default()
            .k(2)
            .budget(1.5)
            .tol(1e-2)
            .seed(seed)
            .threads(Some(1));
        let (fast, reference) = if m == 1 {
            (params.clone(), params.clone().tangent_cone_cells(false))
        } else {
            let p = params.max_iter(60);
            (p.clone(), p.tangent_cone_cells(false))
        };
        let a = fast.fit(&y.as_ref()).unwrap();
        let b = reference.fit(&y.as_ref()).unwrap();
        assert_eq!(a.history()[0].cells, b.history()[0].cells, "seed {seed}");
        let (ca, cb) = (a.certificate(), b.certificate());
        let tol = 1e-9 * (1.0 + cb.upper_bound.abs());
        assert!(
            ca.lower_bound <= cb.upper_bound + tol,
            "seed {seed}: {ca:?} vs {cb:?}"
        );
        assert!(
            cb.lower_bound <= ca.upper_bound + tol,
            "seed {seed}: {ca:?} vs {cb:?}"
        );
        if m == 1 {
            assert!(
                ca.certified && cb.certified,
                "seed {seed}: {ca:?} vs {cb:?}"
            );
        }
    }
}
