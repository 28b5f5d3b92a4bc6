//! The plug-in point of the Boolean QP fit: the [`BooleanQpSolver`] trait, with the mixing
//! method ([`MixingValidParams`]) and exact enumeration ([`ExactBqp`]) as its built-in
//! implementations.
//!
//! A solver is set on [`crate::BqpParams::solver`] as an `Arc<dyn BooleanQpSolver>` and
//! runs through the normal fit of a [`BooleanQp`]. To contribute one, implement
//! [`bl_core::Extension`] (a name, a check of its own settings) and [`BooleanQpSolver`],
//! and assert from a test that [`crate::conformance::bqp_solver::conformance`] passes (see
//! `tests/maxcut_sdp_tests/custom_bqp_solver.rs`).
//!
//! `boolean-tensor`'s atom search takes its own `boolean_tensor::QpSolver`, whose two
//! built-ins (`MixingQp`, `ExactQp`) call these two implementations.

use std::time::Instant;

use bl_core::engine::{FitReport, Observer};
use bl_core::{Extension, Fit};

use crate::boolean_qp::BooleanQp;
use crate::bqp_fitted::{BqpOutcome, FittedBqp};
use crate::error::Result;
use crate::params::MixingValidParams;

/// A solver of Boolean quadratic programs `max z^T A z, z in {0, 1}^n`.
///
/// Implementations must be deterministic (the same problem gives the same outcome) and
/// return a `z` whose reported `value` equals `qp.value(z)`;
/// [`crate::conformance::bqp_solver::conformance`] checks this and more.
pub trait BooleanQpSolver: Extension {
    /// Solves `qp`.
    ///
    /// # Errors
    /// Whatever stops the solver (invalid parameters, a problem too large for it).
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome>;

    /// Solves `qp` as the fit of [`crate::BqpParams`] does: the outcome with the report
    /// of the run, showing its iterations to `observers`. The default calls
    /// [`BooleanQpSolver::solve_bqp`] once and reports it as a single shot
    /// ([`FitReport::single_shot`]); an iterative solver overrides it to run on the shared
    /// engine. It must give the outcome of [`BooleanQpSolver::solve_bqp`].
    ///
    /// # Errors
    /// As [`BooleanQpSolver::solve_bqp`].
    fn solve_bqp_observed(
        &self,
        qp: &BooleanQp,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedBqp> {
        let _ = observers;
        let start = Instant::now();
        let outcome = self.solve_bqp(qp)?;
        let report = FitReport::single_shot(outcome.value, start.elapsed());
        Ok(FittedBqp::new(self.name(), outcome, report))
    }
}

/// The mixing method as a solver: the checked parameters of the mixing method.
impl Extension for MixingValidParams {
    fn name(&self) -> &str {
        "mixing"
    }
}

/// The default solver: the mixing method on the homogenized ±1 problem over `n + 1`
/// variables ([`BooleanQp::homogenized`]), with rounding and local search; the signs are
/// mapped back to `z`.
impl BooleanQpSolver for MixingValidParams {
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        Ok(self.solve_bqp_observed(qp, &mut [])?.into_outcome())
    }

    /// The observers see the sweeps of the ±1 problem (objective in ±1 units, 4 times
    /// `z^T A z`).
    fn solve_bqp_observed(
        &self,
        qp: &BooleanQp,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedBqp> {
        let fitted = self.fit_observed(qp.homogenized(), observers)?;
        let z = BooleanQp::binary_from_signs(fitted.y());
        let value = qp.value_unchecked(&z);
        let info = fitted.info().clone();
        let approximate = info.upper_bound().map(|b| 0.25 * b);
        let certified = info.certified_bound.map(|b| 0.25 * b);
        let outcome = BqpOutcome {
            z,
            value,
            upper_bound: certified.or(approximate),
        };
        Ok(FittedBqp::from_mixing(outcome, info))
    }
}

/// Exact Gray-code enumeration ([`BooleanQp::solve_exact`]); `n <= 24`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactBqp;

impl Extension for ExactBqp {
    fn name(&self) -> &str {
        "exact"
    }
}

impl BooleanQpSolver for ExactBqp {
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let solution = qp.solve_exact()?;
        Ok(BqpOutcome {
            z: solution.z().to_vec(),
            value: solution.value(),
            upper_bound: Some(solution.value()),
        })
    }
}
