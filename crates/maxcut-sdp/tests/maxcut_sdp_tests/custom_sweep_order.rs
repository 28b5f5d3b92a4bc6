//! A sweep order written outside the crate runs through the normal fit, passes the
//! conformance suite and reaches the same SDP value as the built-in cyclic order.

use std::sync::Arc;

use maxcut_sdp::conformance::sweep_order;
use maxcut_sdp::synthetic::gnp_weighted;
use maxcut_sdp::{Cyclic, Fit, Fitted, MixingParams, Problem};

use crate::common;
use common::FnOrder;

/// Symmetric Gauss–Seidel: forward in odd sweeps, backward in even ones.
const FORWARD_BACKWARD: FnOrder = FnOrder {
    name: "forward-backward",
    arrange: |sweep, order| {
        if sweep > 1 {
            order.reverse();
        }
    },
    identity: false,
};

#[test]
fn outside_order_conforms() {
    let report = sweep_order::conformance(&FORWARD_BACKWARD);
    assert!(report.passed(), "{report}");
}

#[test]
fn outside_order_runs_through_fit_and_agrees_with_cyclic() {
    let n = 16;
    let problem = Problem::maxcut(n, &gnp_weighted(n, 0.5, 4).unwrap()).unwrap();
    let base = MixingParams::default().tol(1e-10).max_iter(10_000).seed(1);
    let custom = base
        .clone()
        .order(Arc::new(FORWARD_BACKWARD))
        .fit(&problem)
        .unwrap();
    let cyclic = base.order(Arc::new(Cyclic)).fit(&problem).unwrap();
    assert!(custom.report().converged());
    let (a, b) = (custom.sdp_value(), cyclic.sdp_value());
    assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
    // Both SDP values bound the exact max-cut from above; the cut is feasible.
    let exact = problem.solve_exact().unwrap().value();
    assert!(custom.value() <= exact + 1e-12);
    assert!(exact <= a + 1e-6 * a.abs());
}
