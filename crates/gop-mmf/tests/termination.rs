//! How a GOP fit ends: a run out of its node budget is `BudgetExhausted` (not converged,
//! not certified); a run that closes the gap is converged and certified.

use bl_core::engine::TerminationReason;
use faer::Mat;
use gop_mmf::{Fit, Fitted, GopParams};

fn example() -> Mat<f64> {
    // Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1.
    Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n])
}

#[test]
fn a_run_out_of_nodes_is_budget_exhausted_and_not_converged() {
    let y = example();
    for seed in 0..4 {
        let fitted = GopParams::default()
            .eps(0.01)
            .seed(seed)
            .threads(1)
            .max_nodes(2)
            .fit(&y.as_ref())
            .unwrap();
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
    let y = example();
    for seed in 0..4 {
        let fitted = GopParams::default()
            .eps(0.01)
            .seed(seed)
            .threads(1)
            .fit(&y.as_ref())
            .unwrap();
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
