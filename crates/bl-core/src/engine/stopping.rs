//! What a step reports, and why a run ended.

use serde::{Deserialize, Serialize};

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
    /// Change measure compared against [`IterationParams::tol`](crate::IterationParams)
    /// (e.g. [`relative_change`](super::relative_change)).
    pub change: f64,
    /// Named extra values recorded in the trace (step sizes, residuals, ...).
    pub extras: Extras,
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
            extras: Extras::default(),
            stop: None,
        }
    }

    /// Adds a named extra value (at most [`MAX_EXTRAS`] per step; see [`Extras::push`]).
    #[must_use]
    pub fn with(mut self, name: &'static str, value: f64) -> Self {
        self.extras.push(name, value);
        self
    }

    /// Asks the engine to stop now for `reason` (`None` continues).
    #[must_use]
    pub fn stop_if(mut self, reason: Option<Stop>) -> Self {
        self.stop = reason;
        self
    }
}

/// How many named extras one step can report.
pub const MAX_EXTRAS: usize = 8;

/// The named extras of one step, stored inline: reporting them allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extras {
    items: [(&'static str, f64); MAX_EXTRAS],
    len: usize,
}

impl Default for Extras {
    fn default() -> Self {
        Self {
            items: [("", 0.0); MAX_EXTRAS],
            len: 0,
        }
    }
}

impl Extras {
    /// Adds `name = value`. A step reports at most [`MAX_EXTRAS`] extras: beyond that the
    /// value is not kept (a programming error of the step, caught by a debug assertion).
    pub fn push(&mut self, name: &'static str, value: f64) {
        debug_assert!(self.len < MAX_EXTRAS, "more than {MAX_EXTRAS} extras");
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = (name, value);
            self.len += 1;
        }
    }

    /// The extras, in the order they were added.
    #[must_use]
    pub fn as_slice(&self) -> &[(&'static str, f64)] {
        &self.items[..self.len]
    }
}

impl std::ops::Deref for Extras {
    type Target = [(&'static str, f64)];
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}
