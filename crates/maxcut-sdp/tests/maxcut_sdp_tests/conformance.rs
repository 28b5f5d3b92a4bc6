//! Every built-in implementation of each plug-in point passes its conformance suite, and
//! each suite rejects an implementation that breaks its contract (so the suites can fail).

use maxcut_sdp::conformance::{bqp_solver as conformance, sweep_order};
use maxcut_sdp::{
    BooleanQp, BooleanQpSolver, BqpOutcome, Cyclic, ExactBqp, Fit, MaxcutError, MixingParams,
    Problem, RandomPermutation, Result,
};

use crate::common;
use common::FnOrder;

#[test]
fn mixing_method_conforms() {
    conformance::check(&MixingParams::default().seed(3)).unwrap();
}

#[test]
fn certified_mixing_method_conforms() {
    conformance::check(&MixingParams::default().seed(4).certify(true)).unwrap();
}

#[test]
fn exact_enumeration_conforms() {
    conformance::check(&ExactBqp).unwrap();
}

/// Always answers the all-zero vector: wrong on every instance with a positive optimum.
struct AllZeros;

impl BooleanQpSolver for AllZeros {
    fn name(&self) -> &str {
        "all-zeros"
    }
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        Ok(BqpOutcome {
            z: vec![0.0; qp.n()],
            value: 0.0,
            upper_bound: None,
        })
    }
}

/// Reports a value that its z does not have.
struct Liar;

impl BooleanQpSolver for Liar {
    fn name(&self) -> &str {
        "liar"
    }
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let mut outcome = ExactBqp.solve_bqp(qp)?;
        outcome.value += 1.0;
        Ok(outcome)
    }
}

#[test]
fn built_in_sweep_orders_conform() {
    sweep_order::check(&Cyclic).unwrap();
    sweep_order::check(&RandomPermutation).unwrap();
}

/// Visits coordinate 0 twice and never visits the last one.
const REPEATS: FnOrder = FnOrder {
    name: "repeats",
    arrange: |_, order| {
        if let Some(last) = order.last_mut() {
            *last = 0;
        }
    },
    identity: false,
};

/// Reverses the order every sweep but claims to be the identity.
const FALSE_IDENTITY: FnOrder = FnOrder {
    name: "false identity",
    arrange: |_, order| order.reverse(),
    identity: true,
};

#[test]
fn suites_reject_broken_implementations() {
    for (result, needle) in [
        (conformance::check(&AllZeros), "below"),
        (conformance::check(&Liar), "reported value"),
        (sweep_order::check(&REPEATS), "not a permutation"),
        (
            sweep_order::check(&FALSE_IDENTITY),
            "claims to be the identity",
        ),
    ] {
        let err = result.unwrap_err();
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn a_faulty_order_is_a_typed_error_not_a_panic() {
    let edges = maxcut_sdp::synthetic::gnp_weighted(5, 0.9, 2).unwrap();
    let problem = Problem::maxcut(5, &edges).unwrap();
    let err = MixingParams::default()
        .order(REPEATS)
        .fit(&problem)
        .unwrap_err();
    assert!(
        matches!(
            err,
            MaxcutError::InvalidSweepOrder {
                sweep: 1,
                index: 4,
                value: 0,
                ..
            }
        ),
        "{err}"
    );
}
