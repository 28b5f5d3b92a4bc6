//! How a GOP fit ends: a run out of its node budget is `BudgetExhausted` (not converged,
//! not certified); a run that closes the gap is converged and certified.

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
        assert!(
            matches!(
                report.termination,
                TerminationReason::Converged | TerminationReason::Solved
            ),
            "seed {seed}: {:?}",
            report.termination
        );
        assert!(report.converged());
    }
}
