//! A Boolean QP solver written outside the crate: passes the conformance suite, runs
//! through the normal Boolean QP fit ([`BqpParams::solver`]), and is compared with the
//! built-in exact and mixing solvers on the same instances.

use std::sync::Arc;

use maxcut_sdp::conformance::bqp_solver;
use maxcut_sdp::{
    BooleanQp, BooleanQpSolver, BqpOutcome, BqpParams, ExactBqp, Extension, Fit, Fitted,
    MixingParams, ParamGuard, Result, TerminationReason,
};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Best of `starts` seeded random 0/1 vectors, each improved by 1-flip local search.
#[derive(Debug)]
struct MultiStartFlips {
    starts: usize,
    seed: u64,
}

impl Extension for MultiStartFlips {
    fn name(&self) -> &str {
        "multi-start 1-flip"
    }

    fn check(&self) -> std::result::Result<(), bl_core::BlError> {
        bl_core::params::at_least("starts", self.starts, 1)
    }
}

impl BooleanQpSolver for MultiStartFlips {
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut best: Option<(Vec<f64>, f64)> = None;
        for _ in 0..self.starts {
            let mut z: Vec<f64> = (0..qp.n())
                .map(|_| f64::from(u8::from(rng.random::<bool>())))
                .collect();
            let mut value = qp.value(&z)?;
            let mut improved = true;
            while improved {
                improved = false;
                for i in 0..qp.n() {
                    z[i] = 1.0 - z[i];
                    let flipped = qp.value(&z)?;
                    if flipped > value {
                        value = flipped;
                        improved = true;
                    } else {
                        z[i] = 1.0 - z[i];
                    }
                }
            }
            if best.as_ref().is_none_or(|(_, b)| value > *b) {
                best = Some((z, value));
            }
        }
        let (z, value) = best.unwrap_or_default();
        Ok(BqpOutcome {
            z,
            value,
            upper_bound: None,
        })
    }
}

const SOLVER: MultiStartFlips = MultiStartFlips {
    starts: 30,
    seed: 9,
};

#[test]
fn outside_solver_conforms() {
    let report = bqp_solver::conformance(&SOLVER);
    assert!(report.passed(), "{report}");
}

#[test]
fn outside_solver_runs_through_the_fit() {
    let params = BqpParams::default().solver(Arc::new(SOLVER));
    for (name, qp) in bqp_solver::instances() {
        let fitted = params.fit(&qp).unwrap();
        assert_eq!(fitted.solver(), "multi-start 1-flip");
        assert_eq!(fitted.z(), SOLVER.solve_bqp(&qp).unwrap().z, "{name}");
        assert_eq!(fitted.value(), qp.value(fitted.z()).unwrap(), "{name}");
        // A solver without iterations reports one single-shot iteration.
        assert_eq!(fitted.report().termination, TerminationReason::Solved);
        assert_eq!(fitted.report().iterations, 1);
        assert!(fitted.mixing().is_none());
    }
    // The params' check calls the solver's own check.
    let broken = BqpParams::default().solver(Arc::new(MultiStartFlips { starts: 0, seed: 1 }));
    let err = broken.check().unwrap_err();
    assert!(err.to_string().contains("starts"), "{err}");
}

#[test]
fn outside_solver_against_the_built_ins() {
    let mixing = MixingParams::default().seed(1).check().unwrap();
    for (name, qp) in bqp_solver::instances() {
        let ours = SOLVER.solve_bqp(&qp).unwrap();
        let exact = ExactBqp.solve_bqp(&qp).unwrap();
        let built_in = mixing.solve_bqp(&qp).unwrap();
        let slack = 1e-9 * (1.0 + exact.value.abs());
        assert!(ours.value <= exact.value + slack, "{name}");
        assert!(built_in.value <= exact.value + slack, "{name}");
        assert!(
            ours.value >= bqp_solver::MIN_RATIO * exact.value - slack,
            "{name}"
        );
    }
}
