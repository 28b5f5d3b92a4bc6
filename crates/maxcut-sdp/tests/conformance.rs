//! Every shipped Boolean QP solver passes the conformance suite, and the suite rejects a
//! solver that breaks its contract (so the suite itself can fail).

use maxcut_sdp::solver::conformance;
use maxcut_sdp::{BooleanQp, BooleanQpSolver, BqpOutcome, ExactBqp, MixingParams, Result};

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
fn suite_rejects_broken_solvers() {
    let err = conformance::check(&AllZeros).unwrap_err();
    assert!(err.contains("below"), "{err}");
    let err = conformance::check(&Liar).unwrap_err();
    assert!(err.contains("reported value"), "{err}");
}
