//! The shared iteration engine: stopping rules, termination reasons, observers and traces.
//!
//! An algorithm is a step function over its own explicit state; [`run`] owns the loop, the
//! iteration budget, the tolerance test, the time limit and the observers, in the manner of
//! argmin. The step reports a [`Progress`] (objective, a change measure such as SBLR's
//! `q^k` of eq. (8), named extra values) and the engine decides whether to stop.
//!
//! ```
//! use bl_core::engine::{run, Progress, StoppingRule, TerminationReason, Trace};
//!
//! // Minimize f(x) = (x - 3)^2 by gradient steps of length 0.25.
//! let mut x = 0.0_f64;
//! let mut trace = Trace::default();
//! let rule = StoppingRule { max_iter: 500, tol: 1e-12, time_limit: None };
//! let info = run(&rule, &mut [&mut trace], |_iter| {
//!     let previous = x;
//!     x -= 0.25 * 2.0 * (x - 3.0);
//!     Ok::<_, bl_core::BlError>(Progress::new((x - 3.0).powi(2), bl_core::engine::relative_change(previous, x)))
//! })?;
//! assert_eq!(info.termination, TerminationReason::Converged);
//! assert!((x - 3.0).abs() < 1e-10);
//! assert_eq!(trace.records().len(), info.iterations);
//! # Ok::<(), bl_core::BlError>(())
//! ```

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::BlError;

/// When to stop iterating.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `max_iter` | 500 | iteration budget | `>= 1` |
/// | `tol` | 1e-3 | stop when the step's change measure is `<= tol` | `>= 0` |
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
    /// Checks the rule.
    ///
    /// # Errors
    /// `max_iter == 0`, or `tol` negative or not finite.
    pub fn validate(&self) -> Result<(), BlError> {
        if self.max_iter == 0 {
            return Err(BlError::InvalidParameter {
                name: "max_iter",
                value: "0".into(),
                expected: ">= 1",
            });
        }
        crate::error::ensure_nonnegative("tol", self.tol)
    }
}

/// Why an iteration stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TerminationReason {
    /// The change measure fell to the tolerance.
    Converged,
    /// The iteration budget ran out first.
    MaxIterations,
    /// The time limit ran out first.
    TimeLimit,
    /// The objective or the change measure became NaN or infinite.
    NumericalFailure,
    /// The step asked to stop (e.g. an exact optimum or an empty active set was reached).
    Stopped,
}

impl TerminationReason {
    /// Whether the iteration met its tolerance (or stopped on purpose).
    #[must_use]
    pub fn is_converged(self) -> bool {
        matches!(self, Self::Converged | Self::Stopped)
    }
}

/// What one step reports to the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Objective value after the step.
    pub objective: f64,
    /// Change measure compared against [`StoppingRule::tol`] (e.g. [`relative_change`]).
    pub change: f64,
    /// Named extra values recorded by a [`Trace`] (step sizes, residuals, ...).
    pub extras: Vec<(&'static str, f64)>,
    /// Set by the step to stop now (reported as [`TerminationReason::Stopped`]).
    pub stop: bool,
}

impl Progress {
    /// A progress report with no extras.
    #[must_use]
    pub fn new(objective: f64, change: f64) -> Self {
        Self {
            objective,
            change,
            extras: Vec::new(),
            stop: false,
        }
    }

    /// Adds a named extra value.
    #[must_use]
    pub fn with(mut self, name: &'static str, value: f64) -> Self {
        self.extras.push((name, value));
        self
    }
}

/// One iteration as seen by observers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationView<'a> {
    /// 1-based iteration number.
    pub iteration: usize,
    /// Objective after the iteration.
    pub objective: f64,
    /// Change measure of the iteration.
    pub change: f64,
    /// Wall-clock time since the start of [`run`].
    pub elapsed: Duration,
    /// Named extra values.
    pub extras: &'a [(&'static str, f64)],
}

/// Called by [`run`] after every iteration.
pub trait Observer {
    /// Receives one iteration.
    fn observe(&mut self, view: &IterationView<'_>);
}

/// One recorded iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// 1-based iteration number.
    pub iteration: usize,
    /// Objective after the iteration.
    pub objective: f64,
    /// Change measure.
    pub change: f64,
    /// Seconds since the start.
    pub elapsed_s: f64,
    /// Named extra values.
    pub extras: Vec<(String, f64)>,
}

/// An observer that records every iteration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    records: Vec<TraceRecord>,
}

impl Trace {
    /// The recorded iterations, in order.
    #[must_use]
    pub fn records(&self) -> &[TraceRecord] {
        &self.records
    }

    /// The objective of every recorded iteration.
    #[must_use]
    pub fn objectives(&self) -> Vec<f64> {
        self.records.iter().map(|r| r.objective).collect()
    }

    /// The values of a named extra, with the iteration number, where recorded.
    #[must_use]
    pub fn extra(&self, name: &str) -> Vec<(usize, f64)> {
        self.records
            .iter()
            .filter_map(|r| {
                r.extras
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|&(_, v)| (r.iteration, v))
            })
            .collect()
    }
}

impl Observer for Trace {
    fn observe(&mut self, view: &IterationView<'_>) {
        self.records.push(TraceRecord {
            iteration: view.iteration,
            objective: view.objective,
            change: view.change,
            elapsed_s: view.elapsed.as_secs_f64(),
            extras: view
                .extras
                .iter()
                .map(|&(n, v)| (n.to_string(), v))
                .collect(),
        });
    }
}

/// Summary of a [`run`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Iterations performed.
    pub iterations: usize,
    /// Why the loop stopped.
    pub termination: TerminationReason,
    /// Objective after the last iteration (NaN if none ran).
    pub objective: f64,
    /// Total wall-clock time.
    pub elapsed: Duration,
}

/// Runs `step` until the stopping rule says stop. `step` receives the 1-based iteration
/// number and returns its [`Progress`] or an error, which ends the run and is returned.
///
/// Order of tests after each step: numerical failure (objective or change not finite),
/// explicit stop, convergence (`change <= tol`), time limit, iteration budget.
///
/// # Errors
/// An invalid [`StoppingRule`], or the first error returned by `step`.
pub fn run<E, F>(
    rule: &StoppingRule,
    observers: &mut [&mut dyn Observer],
    mut step: F,
) -> Result<RunInfo, E>
where
    E: From<BlError>,
    F: FnMut(usize) -> Result<Progress, E>,
{
    rule.validate()?;
    let start = Instant::now();
    let mut objective = f64::NAN;
    for iteration in 1..=rule.max_iter {
        let progress = step(iteration)?;
        let elapsed = start.elapsed();
        objective = progress.objective;
        let view = IterationView {
            iteration,
            objective,
            change: progress.change,
            elapsed,
            extras: &progress.extras,
        };
        for observer in observers.iter_mut() {
            observer.observe(&view);
        }
        let termination = if !objective.is_finite() || progress.change.is_nan() {
            Some(TerminationReason::NumericalFailure)
        } else if progress.stop {
            Some(TerminationReason::Stopped)
        } else if progress.change <= rule.tol {
            Some(TerminationReason::Converged)
        } else if rule.time_limit.is_some_and(|limit| elapsed >= limit) {
            Some(TerminationReason::TimeLimit)
        } else {
            None
        };
        if let Some(termination) = termination {
            return Ok(RunInfo {
                iterations: iteration,
                termination,
                objective,
                elapsed,
            });
        }
    }
    Ok(RunInfo {
        iterations: rule.max_iter,
        termination: TerminationReason::MaxIterations,
        objective,
        elapsed: start.elapsed(),
    })
}

/// The relative change `|new - old| / max(1, |old|)` of a scalar.
#[must_use]
pub fn relative_change(old: f64, new: f64) -> f64 {
    (new - old).abs() / old.abs().max(1.0)
}

/// Iterate-based relative change `||x^k - x^{k-1}||_F / max(1, ||x^{k-1}||_F)` over slices of
/// equal length. Combine several blocks by summing the squared differences and norms of
/// each block, see [`relative_change_blocks`].
///
/// SBLR's stopping quantity `q^k` (Shi, Xu, Baraniuk 2014, eq. (8)) is the larger of an
/// iterate change and an objective change, each with a `1 +` denominator instead of
/// `max(1, .)`; `sblr::StopCriterion` implements it and offers these two as options.
#[must_use]
pub fn relative_change_slices(old: &[f64], new: &[f64]) -> f64 {
    relative_change_blocks(&[(old, new)])
}

/// Iterate-based relative change over several blocks `(old, new)`:
/// `sqrt(sum ||new - old||^2) / max(1, sqrt(sum ||old||^2))`.
#[must_use]
pub fn relative_change_blocks(blocks: &[(&[f64], &[f64])]) -> f64 {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (old, new) in blocks {
        for (&o, &n) in old.iter().zip(new.iter()) {
            diff += (n - o) * (n - o);
            norm += o * o;
        }
    }
    diff.sqrt() / norm.sqrt().max(1.0)
}
