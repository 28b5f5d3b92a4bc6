//! What a Boolean QP solve returns: the plain [`BqpOutcome`] of a solver, and the fitted
//! model [`FittedBqp`] (the outcome, the report of the run, and the diagnostics of the
//! mixing method when it was the solver).

use bl_core::Fitted;
use bl_core::engine::FitReport;

use crate::solution::MixingInfo;

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

/// The result of fitting a [`crate::BooleanQp`] with [`crate::BqpParams`]: the solver's
/// [`BqpOutcome`], the report of its run, and, when the solver was the mixing method, its
/// diagnostics.
///
/// It predicts nothing: `z` answers the problem it was fitted on.
#[derive(Debug, Clone)]
pub struct FittedBqp {
    solver: String,
    outcome: BqpOutcome,
    report: FitReport,
    mixing: Option<MixingInfo>,
}

impl FittedBqp {
    /// The fitted model of a solver's `outcome` and the `report` of its run (for a solver
    /// without iterations, [`FitReport::single_shot`]). For implementations of
    /// [`crate::BooleanQpSolver::solve_bqp_observed`].
    pub fn new(solver: impl Into<String>, outcome: BqpOutcome, report: FitReport) -> Self {
        Self {
            solver: solver.into(),
            outcome,
            report,
            mixing: None,
        }
    }

    /// The fitted model of the mixing method: `info` is that of the homogenized ±1 solve.
    pub(crate) fn from_mixing(outcome: BqpOutcome, info: MixingInfo) -> Self {
        Self {
            solver: "mixing".to_string(),
            outcome,
            report: info.report.clone(),
            mixing: Some(info),
        }
    }

    /// The 0/1 vector `z` (entries exactly `0.0` or `1.0`).
    pub fn z(&self) -> &[f64] {
        &self.outcome.z
    }

    /// `z^T A z`.
    pub fn value(&self) -> f64 {
        self.outcome.value
    }

    /// The solver's upper bound on `max z^T A z`, when it has one: the optimum for exact
    /// enumeration; for the mixing method the certified bound when
    /// [`crate::MixingParams::certify`] was on, else the SDP value of converged sweeps
    /// (approximate, see [`MixingInfo::upper_bound`]), else `None`.
    pub fn upper_bound(&self) -> Option<f64> {
        self.outcome.upper_bound
    }

    /// The [`bl_core::Extension::name`] of the solver.
    pub fn solver(&self) -> &str {
        &self.solver
    }

    /// The solver's outcome.
    pub fn outcome(&self) -> &BqpOutcome {
        &self.outcome
    }

    /// The solver's outcome, by value.
    pub fn into_outcome(self) -> BqpOutcome {
        self.outcome
    }

    /// Diagnostics of the mixing method's ±1 solve when it was the solver (values there
    /// are in ±1 units, i.e. 4 times `z^T A z`); `None` for other solvers.
    pub fn mixing(&self) -> Option<&MixingInfo> {
        self.mixing.as_ref()
    }

    /// The SDP value of the homogenized problem divided by 4 (in the units of
    /// `z^T A z`), when the solver was the mixing method.
    pub fn sdp_value(&self) -> Option<f64> {
        self.mixing.as_ref().map(|info| 0.25 * info.sdp_value)
    }

    /// The certified dual bound divided by 4 (a rigorous upper bound on `max z^T A z`),
    /// when the solver was the mixing method with [`crate::MixingParams::certify`] on.
    pub fn certified_bound(&self) -> Option<f64> {
        self.mixing
            .as_ref()
            .and_then(|info| info.certified_bound)
            .map(|b| 0.25 * b)
    }
}

impl Fitted for FittedBqp {
    /// The run of the solver: the sweeps of the mixing method on the homogenized ±1
    /// problem, or one single-shot iteration for a solver without iterations.
    fn report(&self) -> &FitReport {
        &self.report
    }
}
