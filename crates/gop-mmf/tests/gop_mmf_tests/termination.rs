//! How a GOP fit ends: a run out of its node budget is `BudgetExhausted` (not converged,
//! not certified); a run that closes the gap is converged and certified; the shared
//! iteration knobs (`max_iter`, `time_limit`, `trace`) end or record the run as reported.

use bl_core::engine::TerminationReason;
use faer::Mat;
use gop_mmf::{Fit, Fitted, FittedGop, GopParams};

/// The Sec. 5.1 instance (y = [0, -1, -0.5], K = 2, P = 1, eps = 0.01) from start `seed`.
fn fit_example(seed: u64, max_nodes: Option<usize>) -> FittedGop {
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let params = GopParams::default().tol(0.01).seed(seed).threads(Some(1));
    let params = match max_nodes {
        Some(limit) => params.max_nodes(limit),
        None => params,
    };
    params.fit(&y.as_ref()).unwrap()
}

#[test]
fn a_run_out_of_nodes_is_budget_exhausted_and_not_converged() {
    for seed in 0..4 {
        let fitted = fit_example(seed, Some(2));
        let report = fitted.report();
        let c = fitted.certificate();
        assert!(!c.certified, "seed {seed}: {c:?}");
        assert_eq!(
            report.termination,
            TerminationReason::BudgetExhausted,
            "seed {seed}"
        );
        assert!(!report.converged());
        assert!(fitted.tree().len() >= 2);
    }
}

#[test]
fn a_run_that_closes_the_gap_is_converged() {
    for seed in 0..4 {
        let fitted = fit_example(seed, None);
        let report = fitted.report();
        assert!(fitted.certificate().certified, "seed {seed}");
        // The iteration that closes the gap ends the fit: `Converged` (never `Solved`,
        // which the search does not report).
        assert_eq!(
            report.termination,
            TerminationReason::Converged,
            "seed {seed}"
        );
        assert!(report.converged());
        assert!(
            report
                .trace
                .changes()
                .last()
                .is_some_and(|&gap| gap <= 0.01)
        );
    }
}

#[test]
fn the_shared_iteration_knobs_end_the_run_as_reported() {
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let base = GopParams::default().seed(0).threads(Some(1));
    // One iteration does not close the gap of this instance: the budget ends the run.
    let fitted = base.clone().max_iter(1).fit(&y.as_ref()).unwrap();
    assert_eq!(
        fitted.report().termination,
        TerminationReason::MaxIterations
    );
    assert_eq!(fitted.report().iterations, 1);
    assert!(!fitted.certificate().certified);
    // A zero time limit stops after the first iteration.
    let fitted = base
        .clone()
        .time_limit(Some(std::time::Duration::ZERO))
        .fit(&y.as_ref())
        .unwrap();
    assert_eq!(fitted.report().termination, TerminationReason::TimeLimit);
    assert_eq!(fitted.report().iterations, 1);
    // Without a trace the run and its result are the same; observers still see it all.
    let traced = base.clone().fit(&y.as_ref()).unwrap();
    let mut seen = 0;
    let mut count = |_: &bl_core::engine::IterationView<'_>| seen += 1;
    let untraced = base
        .trace(false)
        .fit_observed(&y.as_ref(), &mut [&mut count])
        .unwrap();
    assert!(untraced.report().trace.is_empty());
    assert_eq!(traced.report().trace.len(), traced.report().iterations);
    assert_eq!(untraced.report().iterations, traced.report().iterations);
    assert_eq!(untraced.report().termination, traced.report().termination);
    assert_eq!(seen, untraced.report().iterations);
    assert_eq!(untraced.certificate(), traced.certificate());
}
