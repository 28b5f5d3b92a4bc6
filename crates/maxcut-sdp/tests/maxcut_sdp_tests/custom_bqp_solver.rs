//! A Boolean QP solver written outside the crate: passes the conformance suite and is
//! compared with the built-in exact and mixing solvers on the same instances.

use maxcut_sdp::conformance::bqp_solver;
use maxcut_sdp::{BooleanQp, BooleanQpSolver, BqpOutcome, ExactBqp, MixingParams, Result};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Best of `starts` seeded random 0/1 vectors, each improved by 1-flip local search.
struct MultiStartFlips {
    starts: usize,
    seed: u64,
}

impl BooleanQpSolver for MultiStartFlips {
    fn name(&self) -> &str {
        "multi-start 1-flip"
    }

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

#[test]
fn outside_solver_conforms() {
    bqp_solver::check(&MultiStartFlips {
        starts: 30,
        seed: 9,
    })
    .unwrap();
}

#[test]
fn outside_solver_against_the_built_ins() {
    let solver = MultiStartFlips {
        starts: 30,
        seed: 9,
    };
    let mixing = MixingParams::default().seed(1);
    for (name, qp) in bqp_solver::instances() {
        let ours = solver.solve_bqp(&qp).unwrap();
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
