//! What a finished run reports.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{TerminationReason, Trace};

/// Summary of a run of the engine, kept by every fitted model (`Fitted::report`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Iterations performed.
    pub iterations: usize,
    /// Why the loop stopped.
    pub termination: TerminationReason,
    /// Objective after the last iteration (NaN if none ran).
    pub objective: f64,
    /// Total wall-clock time.
    pub elapsed: Duration,
    /// Every iteration's objective, change measure, time and extras.
    pub trace: Trace,
}

impl FitReport {
    /// Whether the run met its tolerance or its own optimality condition.
    #[must_use]
    pub fn converged(&self) -> bool {
        self.termination.is_converged()
    }

    /// The report of a single-shot fit (a closed form, one LP, one decomposition): one
    /// iteration, [`Solved`](TerminationReason::Solved), this objective and time, and an
    /// empty trace (there is no change measure to record).
    #[must_use]
    pub fn single_shot(objective: f64, elapsed: Duration) -> Self {
        Self {
            iterations: 1,
            termination: TerminationReason::Solved,
            objective,
            elapsed,
            trace: Trace::default(),
        }
    }

    /// Wall-clock time in seconds.
    #[must_use]
    pub fn seconds(&self) -> f64 {
        self.elapsed.as_secs_f64()
    }
}
