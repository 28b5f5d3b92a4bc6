//! The worked example of the LP plug-in point: a user's LP backend, written outside the
//! crates, implements `Extension` and `LpSolver`, passes the public conformance suite of
//! `lp-backend`, and runs through the normal `fit` (set with `GopParams::lp_solver`), giving
//! the same certificate as the built-in backend on the same data.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use faer::Mat;
use gop_mmf::{Fit, Fitted, GopError, GopParams, ParamGuard};
use lp_backend::conformance::conformance;
use lp_backend::{Extension, LinearProgram, LpError, LpOutcome, LpSolver, Microlp};

/// A backend that counts its solves and has no warm starts of its own: every extension of
/// a base program is solved from scratch through the trait's default `prepare`. The simplex
/// arithmetic is delegated to the `microlp` solver.
#[derive(Debug, Default)]
struct CountingColdBackend {
    solves: Arc<AtomicUsize>,
}

impl Extension for CountingColdBackend {
    fn name(&self) -> &str {
        "counting-cold"
    }
}

impl LpSolver for CountingColdBackend {
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError> {
        self.solves.fetch_add(1, Ordering::Relaxed);
        Microlp.solve(lp)
    }
}

/// A backend that calls every program infeasible: the suite must reject it.
#[derive(Debug)]
struct AlwaysInfeasible;

impl Extension for AlwaysInfeasible {
    fn name(&self) -> &str {
        "always-infeasible"
    }
}

impl LpSolver for AlwaysInfeasible {
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError> {
        lp.validate()?;
        Ok(LpOutcome::Infeasible)
    }
}

/// A backend whose own settings are invalid: the params' `check()` calls its `check()`
/// and refuses it before any work.
#[derive(Debug)]
struct Misconfigured;

impl Extension for Misconfigured {
    fn name(&self) -> &str {
        "misconfigured"
    }
    fn check(&self) -> Result<(), bl_core::BlError> {
        Err(bl_core::params::invalid(
            "pivot_tol",
            -1.0,
            "finite and > 0",
        ))
    }
}

impl LpSolver for Misconfigured {
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError> {
        Microlp.solve(lp)
    }
}

#[test]
fn the_outside_backend_passes_the_conformance_suite() {
    let report = conformance(&CountingColdBackend::default());
    assert!(report.passed(), "{report}");
    let report = conformance(&AlwaysInfeasible);
    assert!(!report.passed(), "a wrong verdict is caught");
    assert!(
        report.failures().any(|c| c.name == "textbook_maximum"),
        "{report}"
    );
}

#[test]
fn the_params_check_calls_the_backends_own_check() {
    let params = GopParams::default().lp_solver(Arc::new(Misconfigured));
    let err = params.check().unwrap_err();
    assert_eq!(err.invalid_parameter(), Some("pivot_tol"), "{err}");
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let err = params.fit(&y.as_ref()).unwrap_err();
    assert_eq!(err.invalid_parameter(), Some("pivot_tol"), "{err}");
    // The checked params hand the backend back.
    let checked = GopParams::default()
        .lp_solver(Arc::new(CountingColdBackend::default()))
        .check()
        .unwrap();
    assert_eq!(checked.lp_solver().name(), "counting-cold");
}

#[test]
fn the_outside_backend_runs_through_fit_and_matches_the_built_in() {
    // The illustrative instance of Sec. 5.1 (y = [0, -1, -0.5], K = 2, P = 1, eps = 0.01)
    // and a random 2 x 3 instance with an iteration budget.
    let mut rng = bl_core::random::seeded_rng(11);
    let random = Mat::from_fn(2, 3, |_, _| bl_core::random::standard_normal(&mut rng));
    let cases = [
        (
            Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]),
            GopParams::default().k(2).budget(1.0).tol(0.01).seed(4),
        ),
        (
            random,
            GopParams::default()
                .k(2)
                .budget(1.5)
                .tol(0.01)
                .seed(2)
                .max_iter(12),
        ),
    ];
    for (y, params) in cases {
        let params = params.threads(Some(1));
        let solves = Arc::new(AtomicUsize::new(0));
        let custom = params
            .clone()
            .lp_solver(Arc::new(CountingColdBackend {
                solves: Arc::clone(&solves),
            }))
            .fit(&y.as_ref())
            .expect("fit with the outside backend");
        let built_in = params
            .fit(&y.as_ref())
            .expect("fit with the built-in backend");
        assert!(
            solves.load(Ordering::Relaxed) > 0,
            "the fit did not use the outside backend"
        );
        // Same LPs, solved cold instead of warm: same tree, same bounds (up to LP round-off).
        let (a, b) = (custom.certificate(), built_in.certificate());
        let tol = 1e-7 * (1.0 + b.upper_bound.abs());
        assert_eq!(custom.report().iterations, built_in.report().iterations);
        assert_eq!(custom.report().termination, built_in.report().termination);
        assert!(
            (a.upper_bound - b.upper_bound).abs() <= tol,
            "{a:?} vs {b:?}"
        );
        assert!(
            (a.lower_bound - b.lower_bound).abs() <= tol,
            "{a:?} vs {b:?}"
        );
        assert_eq!(a.certified, b.certified);
    }
}

#[test]
fn an_inconsistent_backend_is_an_error_never_a_converged_fit() {
    // Every relaxed dual "infeasible": the root gets no children although its cells cover
    // the l1 ball, so the tree empties with the gap open. That is a numerical failure of
    // the LPs, not a solved problem: the fit is an error that says so.
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let err = GopParams::default()
        .threads(Some(1))
        .lp_solver(Arc::new(AlwaysInfeasible))
        .fit(&y.as_ref())
        .expect_err("inconsistent LP verdicts are an error");
    match &err {
        GopError::EmptyTree {
            iteration,
            upper_bound,
            lower_bound,
            tol,
            backend,
        } => {
            assert_eq!(*iteration, 2, "the root was expanded at iteration 1");
            assert!(upper_bound.is_finite(), "the root's primal gave PUBD");
            assert!(upper_bound - lower_bound > *tol, "the gap is open");
            assert_eq!(backend, "always-infeasible");
        }
        other => panic!("expected GopError::EmptyTree, got {other:?}"),
    }
    let message = err.to_string();
    for said in [
        "tree emptied",
        "gap open",
        "always-infeasible",
        "inconsistent",
    ] {
        assert!(message.contains(said), "{said:?} missing from: {message}");
    }
}
