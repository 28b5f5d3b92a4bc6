//! The Boolean QP solver trait of this crate, with the mixing method as the default
//! implementation, exact enumeration as a second one, and a conformance suite that any
//! implementation must pass.
//!
//! `boolean-tensor`'s atom search does not take this trait: it takes its own
//! `boolean_tensor::QpSolver`, whose two built-ins (`MixingQp`, `ExactQp`) call these two
//! implementations. A new implementation of [`BooleanQpSolver`] reaches BMP through a
//! `QpSolver` that calls it. To contribute one, implement [`BooleanQpSolver`] and call
//! [`crate::conformance::bqp_solver::check`] from a test (see `CONTRIBUTING.md` at the
//! workspace root).

use bl_core::Fit;

use crate::boolean_qp::BooleanQp;
use crate::error::Result;
use crate::params::MixingParams;

/// A solution of `max z^T A z` over `z in {0, 1}^n`, whatever solver produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct BqpOutcome {
    /// The 0/1 vector (entries exactly `0.0` or `1.0`).
    pub z: Vec<f64>,
    /// `z^T A z`.
    pub value: f64,
    /// An upper bound on the optimum, when the solver has one (approximate for the mixing
    /// method unless it certifies, exact for enumeration).
    pub upper_bound: Option<f64>,
}

/// A solver of Boolean quadratic programs `max z^T A z, z in {0, 1}^n`.
///
/// Implementations must be deterministic (the same problem gives the same outcome) and
/// return a `z` whose reported `value` equals `qp.value(z)`.
pub trait BooleanQpSolver: Send + Sync {
    /// Short name for reports and benches.
    fn name(&self) -> &str;

    /// Solves `qp`.
    ///
    /// # Errors
    /// Whatever stops the solver (invalid parameters, a problem too large for it).
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome>;
}

/// The default solver: the mixing method with rounding and local search.
impl BooleanQpSolver for MixingParams {
    fn name(&self) -> &str {
        "mixing"
    }

    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let solution = self.fit(qp)?;
        Ok(BqpOutcome {
            upper_bound: solution.certified_bound().or(solution.upper_bound()),
            value: solution.value(),
            z: solution.z().to_vec(),
        })
    }
}

/// Exact Gray-code enumeration ([`BooleanQp::solve_exact`]); `n <= 24`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactBqp;

impl BooleanQpSolver for ExactBqp {
    fn name(&self) -> &str {
        "exact"
    }

    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let solution = qp.solve_exact()?;
        Ok(BqpOutcome {
            z: solution.z().to_vec(),
            value: solution.value(),
            upper_bound: Some(solution.value()),
        })
    }
}
