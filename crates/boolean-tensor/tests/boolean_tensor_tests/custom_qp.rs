//! The worked example of the QP plug-in point ([`QpSolver`], a `bl_core::Extension`): a
//! Boolean QP solver written outside the crate passes the conformance suite
//! (`boolean_tensor::conformance::conformance`), runs through the normal BMP and LFM
//! fits (set as an `Arc<dyn QpSolver>`), and matches a built-in solver on the same data.
//! The suite is also applied to every built-in solver and shown to reject broken ones.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bl_core::{BlError, Extension};
use boolean_tensor::conformance::conformance;
use boolean_tensor::qp::{self, QpSolver};
use boolean_tensor::{Bmp, Decomposition, ExactQp, Fit, Lfm, MixingQp, TensorError, metrics};
use faer::MatRef;
use rand::RngExt;

use crate::common;

/// Randomized 1-flip local search: `starts` seeded random Boolean starts plus every
/// single row, each improved by single flips until none raises `||G^T z||^2`; the best
/// local optimum wins. Counts its calls.
#[derive(Debug, Default)]
struct FlipSearch {
    starts: usize,
    calls: Arc<AtomicUsize>,
}

impl FlipSearch {
    /// A search of `starts` random starts, with the handle on its call count.
    fn counted(starts: usize) -> (Self, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let search = FlipSearch {
            starts,
            calls: Arc::clone(&calls),
        };
        (search, calls)
    }

    fn climb(g: MatRef<'_, f64>, mut z: Vec<f64>) -> Result<(f64, Vec<f64>), TensorError> {
        let mut value = qp::objective(g, &z)?;
        let mut improved = true;
        while improved {
            improved = false;
            for i in 0..z.len() {
                z[i] = 1.0 - z[i];
                let flipped = qp::objective(g, &z)?;
                if flipped > value * (1.0 + 1e-12) {
                    value = flipped;
                    improved = true;
                } else {
                    z[i] = 1.0 - z[i];
                }
            }
        }
        Ok((value, z))
    }
}

impl Extension for FlipSearch {
    fn name(&self) -> &str {
        "flip search"
    }

    fn check(&self) -> Result<(), BlError> {
        bl_core::params::at_least("starts", self.starts, 1)
    }
}

impl QpSolver for FlipSearch {
    fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>, TensorError> {
        qp::validate_input(g)?;
        self.calls.fetch_add(1, Ordering::Relaxed);
        let n = g.nrows();
        let mut rng = bl_core::random::seeded_rng(seed);
        let mut best = (f64::NEG_INFINITY, vec![0.0; n]);
        let singles = (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect());
        let randoms: Vec<Vec<f64>> = (0..self.starts)
            .map(|_| {
                (0..n)
                    .map(|_| f64::from(u8::from(rng.random_bool(0.5))))
                    .collect()
            })
            .collect();
        for start in singles.chain(randoms) {
            let (value, z) = Self::climb(g, start)?;
            if value > best.0 {
                best = (value, z);
            }
        }
        Ok(best.1)
    }
}

#[test]
fn the_built_in_solvers_pass_the_conformance_suite() {
    for solver in [&MixingQp::default() as &dyn QpSolver, &ExactQp] {
        let report = conformance(solver);
        assert!(report.passed(), "{report}");
    }
}

#[test]
fn the_outside_solver_passes_the_conformance_suite() {
    let report = conformance(&FlipSearch {
        starts: 4,
        ..FlipSearch::default()
    });
    assert!(report.passed(), "{report}");
    assert_eq!(report.extension(), "flip search");
}

#[test]
fn the_suite_rejects_broken_solvers() {
    /// The same value in every row: all rows (1.0) is not a maximizer, 0.5 not Boolean.
    #[derive(Debug)]
    struct Constant(f64);
    impl Extension for Constant {
        fn name(&self) -> &str {
            "Constant"
        }
    }
    impl QpSolver for Constant {
        fn maximize(&self, g: MatRef<'_, f64>, _: u64) -> Result<Vec<f64>, TensorError> {
            qp::validate_input(g)?;
            Ok(vec![self.0; g.nrows()])
        }
    }
    #[derive(Debug)]
    struct NoValidation;
    impl Extension for NoValidation {
        fn name(&self) -> &str {
            "NoValidation"
        }
    }
    impl QpSolver for NoValidation {
        fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>, TensorError> {
            if g.nrows() == 0 {
                return Ok(Vec::new());
            }
            // Exact on valid input, but answers for a NaN matrix as well.
            let clean = faer::Mat::from_fn(g.nrows(), g.ncols(), |i, j| {
                if g[(i, j)].is_finite() {
                    g[(i, j)]
                } else {
                    0.0
                }
            });
            ExactQp.maximize(clean.as_ref(), seed)
        }
    }
    #[derive(Debug)]
    struct Unseeded(AtomicUsize);
    impl Extension for Unseeded {
        fn name(&self) -> &str {
            "Unseeded"
        }
    }
    impl QpSolver for Unseeded {
        fn maximize(&self, g: MatRef<'_, f64>, _: u64) -> Result<Vec<f64>, TensorError> {
            // A different answer on every call when G = 0 is not allowed either: here it
            // differs on every call for the first instance, which has one row.
            let z = ExactQp.maximize(g, 0)?;
            let calls = self.0.fetch_add(1, Ordering::Relaxed);
            Ok(if g.nrows() == 1 && calls % 2 == 1 {
                vec![0.0]
            } else {
                z
            })
        }
    }
    let failed = |solver: &dyn QpSolver| -> Vec<&'static str> {
        let report = conformance(solver);
        assert!(!report.passed(), "{report}");
        report.failures().map(|c| c.name).collect()
    };
    assert!(failed(&Constant(1.0)).contains(&"2. at least 90% of the maximum"));
    assert!(failed(&Constant(0.5)).contains(&"1. a Boolean answer of length n"));
    assert_eq!(
        failed(&NoValidation),
        [
            "5. an error for a non-finite G",
            "5. an error for an empty G"
        ]
    );
    assert_eq!(
        failed(&Unseeded(AtomicUsize::new(0))),
        ["1. the same seed gives the same answer"]
    );
    // Its own parameter check is part of the suite.
    assert!(failed(&FlipSearch::default()).contains(&"0. its own check accepts it"));
}

#[test]
fn an_outside_solver_runs_through_the_normal_bmp_fit_and_matches_a_built_in_one() {
    let data = common::data([12, 11, 10], 3, 0.0, 0.0, 5);
    let (custom, calls) = FlipSearch::counted(4);
    let outside = Bmp::params()
        .max_iter(3)
        .solver(Arc::new(custom))
        .fit(data.observed())
        .unwrap();
    assert!(
        calls.load(Ordering::Relaxed) > 0,
        "the solver was not called"
    );
    let built_in = Bmp::params().max_iter(3).fit(data.observed()).unwrap();
    for fitted in [&outside, &built_in] {
        let rmse = metrics::rmse(&fitted.reconstruct().unwrap(), data.clean()).unwrap();
        assert!(rmse < 1e-4, "rmse {rmse}");
        let h = metrics::hamming_error(&data.boolean_factors(), &fitted.boolean_factors()).unwrap();
        assert_eq!(h.errors, 0);
    }
    // Same model along the path (the atoms are recovered exactly by both).
    assert_eq!(outside.rmse_path().len(), built_in.rmse_path().len());
    for (a, b) in outside.rmse_path().iter().zip(built_in.rmse_path()) {
        assert!((a - b).abs() <= 1e-4 * (1.0 + b), "{a} vs {b}");
    }
}

#[test]
fn an_outside_solver_runs_through_the_normal_lfm_fits() {
    let data = common::data([9, 8, 7], 2, 0.1, 0.0, 8);
    let (custom, calls) = FlipSearch::counted(2);
    let lfm = Lfm::params().max_iter(3).solver(Arc::new(custom));
    let outside = lfm.clone().fit(data.observed()).unwrap();
    let mix = lfm.mix().fit(data.observed()).unwrap();
    assert!(calls.load(Ordering::Relaxed) > 0);
    let built_in = Lfm::params().max_iter(3).fit(data.observed()).unwrap();
    // Both find Boolean columns that explain most of the data.
    let f0 = 0.5 * data.observed().frobenius_norm().powi(2);
    for loss in [outside.loss(), mix.loss(), built_in.loss()] {
        assert!(loss < 0.2 * f0, "loss {loss} of F(0) = {f0}");
    }
}

#[test]
fn an_invalid_outside_solver_is_rejected_by_the_fit() {
    let data = common::data([5, 5, 5], 3, 0.0, 0.0, 0);
    let err = Bmp::params()
        .solver(Arc::new(FlipSearch::default()))
        .fit(data.observed())
        .unwrap_err();
    common::assert_invalid_parameter(&err, "starts");
}
