//! A sweep order written outside the crate runs through the normal fit, passes the
//! conformance suite and reaches the same SDP value as the built-in cyclic order.

use maxcut_sdp::conformance::sweep_order;
use maxcut_sdp::synthetic::gnp_weighted;
use maxcut_sdp::{Cyclic, Fit, Fitted, MixingParams, Problem, SweepOrder};
use rand::rngs::StdRng;

/// Symmetric Gauss–Seidel: forward in odd sweeps, backward in even ones.
#[derive(Debug, Clone)]
struct ForwardBackward;

impl SweepOrder for ForwardBackward {
    fn name(&self) -> &str {
        "forward-backward"
    }

    fn arrange(&self, sweep: usize, _rng: &mut StdRng, order: &mut [usize]) {
        if sweep > 1 {
            order.reverse();
        }
    }
}

#[test]
fn outside_order_conforms() {
    sweep_order::check(&ForwardBackward).unwrap();
}

#[test]
fn outside_order_runs_through_fit_and_agrees_with_cyclic() {
    let n = 16;
    let problem = Problem::maxcut(n, &gnp_weighted(n, 0.5, 4).unwrap()).unwrap();
    let base = MixingParams::default()
        .tol(1e-10)
        .max_sweeps(10_000)
        .seed(1);
    let custom = base.clone().order(ForwardBackward).fit(&problem).unwrap();
    let cyclic = base.order(Cyclic).fit(&problem).unwrap();
    assert!(custom.report().converged());
    let (a, b) = (custom.sdp_value(), cyclic.sdp_value());
    assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
    // Both SDP values bound the exact max-cut from above; the cut is feasible.
    let exact = problem.solve_exact().unwrap().value();
    assert!(custom.value() <= exact + 1e-12);
    assert!(exact <= a + 1e-6 * a.abs());
}
