//! When to stop: the stopping rule, what a step reports, and why a run ended.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::BlError;

/// When to stop iterating.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `max_iter` | 500 | iteration budget | `>= 1` |
/// | `tol` | 1e-3 | stop when the step's change measure is `<= tol` | finite, `>= 0` |
/// | `time_limit` | none | stop after this wall-clock time | any |
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StoppingRule {
    /// Maximum number of iterations.
    pub max_iter: usize,
    /// Tolerance on the change measure reported by each step.
    pub tol: f64,
    /// Optional wall-clock limit.
    pub time_limit: Option<Duration>,
}

impl Default for StoppingRule {
    fn default() -> Self {
        Self {
            max_iter: 500,
            tol: 1e-3,
            time_limit: None,
        }
    }
}

impl StoppingRule {
    /// A rule with this budget and tolerance and no time limit.
    #[must_use]
    pub fn new(max_iter: usize, tol: f64) -> Self {
        Self {
            max_iter,
            tol,
            time_limit: None,
        }
    }

    /// Checks the rule.
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`] for `max_iter == 0`, or `tol` negative or not finite.
    pub fn validate(&self) -> Result<(), BlError> {
        crate::params::at_least("max_iter", self.max_iter, 1)?;
        crate::params::nonnegative("tol", self.tol)
    }
}

/// Why an iteration stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TerminationReason {
    /// The change measure fell to the tolerance.
    Converged,
    /// The step reached its own optimality condition (an exact optimum, an empty active
    /// set, a closed gap): see [`Stop::Solved`].
    #[serde(alias = "Stopped")]
    Solved,
    /// The iteration budget ran out first.
    MaxIterations,
    /// The time limit ran out first.
    TimeLimit,
    /// A budget of the algorithm's own (nodes, cuts, evaluations) ran out first: see
    /// [`Stop::BudgetExhausted`]. Not converged.
    BudgetExhausted,
    /// The objective or the change measure became NaN or infinite.
    NumericalFailure,
}

impl TerminationReason {
    /// Whether the iteration met its tolerance or its own optimality condition.
    #[must_use]
    pub fn is_converged(self) -> bool {
        matches!(self, Self::Converged | Self::Solved)
    }
}

/// A step's own reason to stop now, whatever the change measure says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stop {
    /// Optimal: reported as [`TerminationReason::Solved`].
    Solved,
    /// Out of an algorithm-specific budget: reported as
    /// [`TerminationReason::BudgetExhausted`].
    BudgetExhausted,
}

/// What one step reports to the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Objective value after the step.
    pub objective: f64,
    /// Change measure compared against [`StoppingRule::tol`] (e.g.
    /// [`relative_change`](super::relative_change)).
    pub change: f64,
    /// Named extra values recorded in the trace (step sizes, residuals, ...).
    pub extras: Vec<(&'static str, f64)>,
    /// Set by the step to stop now.
    pub stop: Option<Stop>,
}

impl Progress {
    /// A progress report with no extras.
    #[must_use]
    pub fn new(objective: f64, change: f64) -> Self {
        Self {
            objective,
            change,
            extras: Vec::new(),
            stop: None,
        }
    }

    /// Adds a named extra value.
    #[must_use]
    pub fn with(mut self, name: &'static str, value: f64) -> Self {
        self.extras.push((name, value));
        self
    }

    /// Asks the engine to stop now for `reason` (`None` continues).
    #[must_use]
    pub fn stop_if(mut self, reason: Option<Stop>) -> Self {
        self.stop = reason;
        self
    }
}
