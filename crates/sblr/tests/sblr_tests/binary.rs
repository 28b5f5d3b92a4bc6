//! The binary model: gradients, Alg. 2's step rule and monotonicity, convergence,
//! planted data, serde.

use crate::common;
use sblr::Predict as _;
use sblr::{BlockUpdate, ExactBlockSolve};
use std::sync::Arc;

use bl_core::engine::TerminationReason;
use bl_core::random::{seeded_rng, standard_normal_mat};
use faer::{Mat, MatRef};
use proptest::prelude::*;
use sblr::bilinear::{self, Penalties, Point, Problem};
use sblr::block::DECREASE_SLACK;
use sblr::synthetic::two_class;
use sblr::{BinarySolver, FittedSblr, Init, Sblr, StopCriterion};
use sblr::{Fit as _, Fitted as _, ParamGuard as _};

fn frob_inner(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
    bl_core::linalg::frobenius_inner(a, b).unwrap()
}

fn sq_dist(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
    let d = a - b;
    let n = d.norm_l2();
    n * n
}

/// The right side of (14) and (16): the loss `l0` at `(x0, b0)`, plus the linearization
/// with gradients `(gx, gb)`, plus `L/2 (||x1 - x0||^2 + (b1 - b0)^2)`.
fn decrease_bound(
    l0: f64,
    (gx, gb): (MatRef<'_, f64>, f64),
    (x0, b0): (MatRef<'_, f64>, f64),
    (x1, b1): (MatRef<'_, f64>, f64),
    l: f64,
) -> f64 {
    l0 + frob_inner(gx, (x1 - x0).as_ref())
        + gb * (b1 - b0)
        + 0.5 * l * (sq_dist(x1, x0) + (b1 - b0).powi(2))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// (12a)-(12c) against central finite differences of the loss (3).
    #[test]
    fn gradients_match_central_differences(seed in 0u64..1000, r in 1usize..=2, b in -1.0f64..1.0) {
        let (s, t, n) = (4, 3, 7);
        let data = sblr::synthetic::random_dataset(n, s, t, seed).unwrap();
        let y = data.signs().unwrap();
        let mut rng = seeded_rng(seed + 1);
        let u = standard_normal_mat(&mut rng, s, r).unwrap();
        let v = standard_normal_mat(&mut rng, t, r).unwrap();
        let problem = Problem::new(&data, &y, Penalties::default()).unwrap();
        let g = problem.gradients(Point::new(u.as_ref(), v.as_ref(), b)).unwrap();
        let h = 1e-5;
        let f = |u: &Mat<f64>, v: &Mat<f64>, b: f64| problem.loss(Point::new(u.as_ref(), v.as_ref(), b)).unwrap();
        // Each entry of U, then of V, moved by +-h with the other factor fixed.
        for (name, x, gx) in [("U", &u, &g.u), ("V", &v, &g.v)] {
            let f_at = |moved: &Mat<f64>| if name == "U" { f(moved, &v, b) } else { f(&u, moved, b) };
            for k in 0..r {
                for a in 0..x.nrows() {
                    let (mut xp, mut xm) = (x.clone(), x.clone());
                    xp[(a, k)] += h;
                    xm[(a, k)] -= h;
                    let fd = (f_at(&xp) - f_at(&xm)) / (2.0 * h);
                    prop_assert!((fd - gx[(a, k)]).abs() <= 1e-7 * (1.0 + fd.abs()), "{name}[{a},{k}]: fd {fd} vs {}", gx[(a, k)]);
                }
            }
        }
        let fd = (f(&u, &v, b + h) - f(&u, &v, b - h)) / (2.0 * h);
        prop_assert!((fd - g.intercept).abs() <= 1e-7 * (1.0 + fd.abs()));
    }

    /// Alg. 2's objective sequence never increases, whatever the penalties and start.
    #[test]
    fn alg2_objective_never_increases(
        seed in 0u64..1000,
        mu1 in 0.0f64..0.2, mu2 in 0.0f64..1.0, nu1 in 0.0f64..0.2, nu2 in 0.0f64..1.0,
        r in 1usize..=3,
        random_init in proptest::bool::ANY,
    ) {
        let data = sblr::synthetic::random_dataset(12, 5, 4, seed).unwrap();
        let init = if random_init { Init::Random } else { Init::MeanSvd };
        let params = Sblr::params().rank(r).penalties(mu1, mu2, nu1, nu2).init(init).seed(seed).check().unwrap();
        let mut solver = BinarySolver::new(&data, &params).unwrap();
        let mut last = solver.objective();
        for _ in 0..40 {
            let report = solver.step().unwrap();
            let tol = 1e-12 * last.abs().max(1.0);
            prop_assert!(report.objective <= last + tol, "objective rose from {last} to {}", report.objective);
            last = report.objective;
        }
    }
}

/// Every accepted step satisfies (14) (the `(U, b)` step) and (16) (the `(V, b)` step),
/// checked with the reference loss and gradients, not the solver's internals.
#[test]
fn accepted_steps_satisfy_sufficient_decrease() {
    let data = sblr::synthetic::random_dataset(20, 6, 5, 3).unwrap();
    let y = data.signs().unwrap();
    for (r, pens) in [(1, (0.05, 0.1, 0.02, 0.3)), (2, (0.0, 0.0, 0.0, 0.0))] {
        let params = Sblr::params()
            .rank(r)
            .penalties(pens.0, pens.1, pens.2, pens.3)
            .check()
            .unwrap();
        let mut solver = BinarySolver::new(&data, &params).unwrap();
        let mut saw_shrink = false;
        let mut last_lu = f64::NAN;
        for k in 0..60 {
            let (u0, v0, b0) = (
                solver.u().to_owned(),
                solver.v().to_owned(),
                solver.intercept(),
            );
            let report = solver.step().unwrap();
            let (u1, v1, b1) = (
                solver.u().to_owned(),
                solver.v().to_owned(),
                solver.intercept(),
            );
            let bh = report.intercept_half;
            let points = [
                (u0.as_ref(), v0.as_ref(), b0),
                (u1.as_ref(), v0.as_ref(), bh),
                (u1.as_ref(), v1.as_ref(), b1),
            ];
            let problem = Problem::new(&data, &y, Penalties::default()).unwrap();
            let loss = |(u, v, b)| problem.loss(Point::new(u, v, b)).unwrap();
            let slack = 4.0 * DECREASE_SLACK * loss(points[0]).max(1.0) + 1e-13;
            let (lu, lv) = (report.u_step.lipschitz, report.v_step.lipschitz);
            // (14): the (U, b) step (U^{k-1}, V^{k-1}, b^{k-1}) -> (U^k, V^{k-1}, b^{k-1/2});
            // (16): the (V, b) step (U^k, V^{k-1}, b^{k-1/2}) -> (U^k, V^k, b^k).
            for (eq, step, l) in [("(14)", 0, lu), ("(16)", 1, lv)] {
                let (from, to) = (points[step], points[step + 1]);
                let g = problem
                    .gradients(Point::new(from.0, from.1, from.2))
                    .unwrap();
                let (gx, x0, x1) = if step == 0 {
                    (g.u.as_ref(), from.0, to.0)
                } else {
                    (g.v.as_ref(), from.1, to.1)
                };
                let rhs =
                    decrease_bound(loss(from), (gx, g.intercept), (x0, from.2), (x1, to.2), l);
                let after = loss(to);
                assert!(
                    after <= rhs + slack,
                    "iteration {k}: {eq} fails: {after} > {rhs}"
                );
            }
            // L_min <= L and L^k >= L^{k-1} / eta (at most one shrink per iteration).
            assert!(lu >= 1e-3 && lv >= 1e-3);
            if last_lu.is_finite() {
                assert!(lu >= last_lu / 2.0 * (1.0 - 1e-12));
                saw_shrink |= lu < last_lu;
            }
            last_lu = lu;
        }
        assert!(
            saw_shrink,
            "L never shrank: the n = -1 trial of (13) is not used"
        );
    }
}

/// At convergence (tight tolerance) the stationarity residual dist(0, grad + subdiff) is
/// small, for both algorithms.
#[test]
fn stationarity_residual_small_at_convergence() {
    let data = sblr::synthetic::planted(60, 5, 4, &[0, 2], &[1, 3], 11).unwrap();
    let y = data.signs().unwrap();
    let exact: Arc<dyn BlockUpdate> = Arc::new(ExactBlockSolve {
        tol: 1e-10,
        max_iter: 20_000,
        ..ExactBlockSolve::default()
    });
    for solver in [common::alg2(), exact] {
        let model = Sblr::params()
            .rank(1)
            .penalties(0.01, 0.05, 0.01, 0.05)
            .block_update(solver.clone())
            .stop(StopCriterion::IterateChange)
            .tol(1e-10)
            .max_iter(20_000)
            .fit(&data)
            .unwrap();
        assert_eq!(
            model.report().termination,
            TerminationReason::Converged,
            "{solver:?}"
        );
        let problem = Problem::new(&data, &y, model.penalties()).unwrap();
        let start = problem
            .stationarity_residual(Point::new(
                MatRef::from_column_major_slice(&[1.0; 5], 5, 1),
                MatRef::from_column_major_slice(&[1.0; 4], 4, 1),
                0.0,
            ))
            .unwrap();
        let res = problem
            .stationarity_residual(Point::new(model.u(), model.v(), model.intercept()))
            .unwrap();
        assert!(
            res < 1e-6,
            "{solver:?}: residual {res} (at a generic point: {start})"
        );
        // A nontrivial solution (not the all-zero stationary point).
        assert!(model.u().norm_l2() > 0.1 && model.v().norm_l2() > 0.1);
        assert!(start > 1e-2);
    }
}

/// Planted sparse rank-1 data: held-out accuracy is high and the supports of `U`, `V`
/// are recovered (the largest entries sit on the true support, the rest are ~0).
#[test]
fn planted_sparse_low_rank_is_recovered() {
    let (s, t) = (12, 10);
    let (su, sv) = ([1, 4, 7], [0, 5, 8]);
    let train = sblr::synthetic::planted(300, s, t, &su, &sv, 5).unwrap();
    let test = sblr::synthetic::planted(300, s, t, &su, &sv, 6).unwrap();
    let model = Sblr::params()
        .rank(1)
        .penalties(0.02, 0.05, 0.02, 0.05)
        .init(Init::LabelWeightedSvd)
        .tol(1e-6)
        .max_iter(3000)
        .fit(&train)
        .unwrap();
    let acc = bl_core::metrics::accuracy(test.labels(), &model.predict(&test).unwrap()).unwrap();
    assert!(acc > 0.85, "held-out accuracy {acc}");
    for (m, support) in [(model.u(), &su[..]), (model.v(), &sv[..])] {
        let col: Vec<f64> = (0..m.nrows()).map(|i| m[(i, 0)].abs()).collect();
        let max = col.iter().copied().fold(0.0, f64::max);
        for (i, &x) in col.iter().enumerate() {
            if support.contains(&i) {
                assert!(x > 0.3 * max, "support entry {i} too small: {col:?}");
            } else {
                assert!(x < 0.1 * max, "off-support entry {i} too large: {col:?}");
            }
        }
    }
}

/// Table 1's data is separable by the mean shift: both algorithms classify it and reach
/// nearly the same objective from the same start.
#[test]
fn alg1_and_alg2_agree_on_table1_data() {
    let data = two_class(40, 10, 10, 1.0, 1).unwrap();
    let fit = |solver: Arc<dyn BlockUpdate>| {
        Sblr::params()
            .penalties(0.05, 0.5, 0.05, 0.5)
            .block_update(solver.clone())
            .tol(1e-9)
            .max_iter(5000)
            .fit(&data)
            .unwrap()
    };
    let (a1, a2) = (fit(common::alg1()), fit(common::alg2()));
    common::assert_same_objective(("Alg. 1", a1.objective()), ("Alg. 2", a2.objective()), 1e-5);
    assert!(a1.report().iterations <= a2.report().iterations);
    for m in [&a1, &a2] {
        let acc = bl_core::metrics::accuracy(data.labels(), &m.predict(&data).unwrap()).unwrap();
        assert_eq!(acc, 1.0);
    }
}

/// Mean-sample init after centring is noise; the label-weighted one is not.
#[test]
fn label_weighted_init_survives_centring() {
    let data = two_class(40, 6, 6, 1.0, 2).unwrap();
    let (s, t) = data.shape();
    let n = data.n_samples();
    let (_, _, mut raw, labels, names) = data.clone().into_parts();
    let mut mean = vec![0.0; s * t];
    for sample in raw.chunks(s * t) {
        mean.iter_mut()
            .zip(sample)
            .for_each(|(m, x)| *m += x / n as f64);
    }
    for sample in raw.chunks_mut(s * t) {
        sample.iter_mut().zip(&mean).for_each(|(x, m)| *x -= m);
    }
    let centred = bl_core::data::MatrixDataset::new(s, t, raw, labels, names).unwrap();
    let params = Sblr::params()
        .rank(1)
        .init(Init::LabelWeightedSvd)
        .check()
        .unwrap();
    let solver = BinarySolver::new(&centred, &params).unwrap();
    // The start already separates the classes.
    let f = bilinear::decision_values(&centred, Point::new(solver.u(), solver.v(), 0.0)).unwrap();
    let y = centred.signs().unwrap();
    assert!(f.iter().zip(&y).all(|(f, y)| f * y > 0.0));
    // The mean-sample start is the SVD of a mean that centring made zero up to rounding:
    // its direction is noise, and it leaves the classes mixed under either sign (18 of 40
    // right when written).
    let mean_svd = Sblr::params().rank(1).init(Init::MeanSvd).check().unwrap();
    let solver = BinarySolver::new(&centred, &mean_svd).unwrap();
    let f = bilinear::decision_values(&centred, Point::new(solver.u(), solver.v(), 0.0)).unwrap();
    let right = f.iter().zip(&y).filter(|(f, y)| *f * *y > 0.0).count();
    assert!(
        right.min(y.len() - right) >= y.len() / 4,
        "the mean-sample start separates {right} of {}",
        y.len()
    );
}

#[test]
fn fitted_model_roundtrips_through_json_and_warm_starts() {
    let data = two_class(20, 5, 4, 1.0, 9).unwrap();
    let model = Sblr::params().max_iter(30).fit(&data).unwrap();
    let json = serde_json::to_string(&model).unwrap();
    let back: FittedSblr = serde_json::from_str(&json).unwrap();
    assert_eq!(back, model);
    assert_eq!(
        back.decision_function(&data).unwrap(),
        model.decision_function(&data).unwrap()
    );
    assert_eq!(
        model.report().trace.records().len(),
        model.report().iterations
    );
    // A warm start from the fitted model starts at its objective.
    let params = Sblr::params().init(model.warm_start()).check().unwrap();
    let solver = BinarySolver::new(&data, &params).unwrap();
    assert!((solver.objective() - model.objective()).abs() <= 1e-12 * model.objective());
    // W = U V^T reproduces the decision values.
    let w = model.weight_matrix().unwrap();
    let f0 =
        bl_core::linalg::frobenius_inner(w.as_ref(), data.sample(0)).unwrap() + model.intercept();
    assert!((f0 - model.decision_function(&data).unwrap()[0]).abs() < 1e-10);
    assert!((model.decision_function_sample(data.sample(0)).unwrap() - f0).abs() < 1e-10);
    let p = model.predict_proba(&data).unwrap();
    assert!(p.iter().all(|&p| (0.0..=1.0).contains(&p)));
    let _ = Penalties::default();
}

#[test]
fn synthetic_two_class_has_shifted_class_means() {
    let n = 400;
    let data = two_class(n, 5, 6, 1.0, 3).unwrap();
    assert_eq!(data.shape(), (5, 6));
    assert_eq!(data.class_counts(), vec![n / 2, n / 2]);
    let y = data.signs().unwrap();
    for (i, &yi) in y.iter().enumerate() {
        assert_eq!(yi, if i < n / 2 { -1.0 } else { 1.0 });
    }
    // Mean of each class is +-1 up to sampling error: sd = 1 / sqrt(200 * 30).
    let per = 30;
    for (class, expected) in [(0usize, -1.0), (1, 1.0)] {
        let values: Vec<f64> = data
            .as_slice()
            .chunks(per)
            .zip(data.labels())
            .filter(|(_, l)| **l == class)
            .flat_map(|(c, _)| c.iter().copied())
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((mean - expected).abs() < 5.0 / (values.len() as f64).sqrt());
    }
    assert_eq!(
        two_class(n, 5, 6, 1.0, 3).unwrap().as_slice(),
        data.as_slice()
    );
    assert!(matches!(
        two_class(1, 5, 6, 1.0, 3),
        Err(sblr::SblrError::Core(bl_core::BlError::InvalidParameter {
            name: "n",
            ..
        }))
    ));
    assert!(two_class(4, 0, 6, 1.0, 3).is_err());
    assert!(two_class(4, 2, 6, f64::NAN, 3).is_err());
}
