//! Observers: what a run shows the outside after every iteration, and the trace.

use std::collections::TryReserveError;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One iteration as seen by observers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationView<'a> {
    /// 1-based iteration number.
    pub iteration: usize,
    /// Objective after the iteration.
    pub objective: f64,
    /// Change measure of the iteration.
    pub change: f64,
    /// Wall-clock time since the start of the run.
    pub elapsed: Duration,
    /// Named extra values.
    pub extras: &'a [(&'static str, f64)],
}

/// Called by the engine after every iteration. Every `fit` of the workspace accepts
/// observers through [`Fit::fit_observed`](crate::fit::Fit::fit_observed); a closure
/// `FnMut(&IterationView)` is an observer.
pub trait Observer {
    /// Receives one iteration.
    fn observe(&mut self, view: &IterationView<'_>);
}

impl<F: FnMut(&IterationView<'_>)> Observer for F {
    fn observe(&mut self, view: &IterationView<'_>) {
        self(view);
    }
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

/// The record of every iteration of a run (kept in every [`FitReport`](super::FitReport);
/// also usable as an observer of its own).
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

    /// Number of recorded iterations.
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether nothing was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The objective of every recorded iteration.
    #[must_use]
    pub fn objectives(&self) -> Vec<f64> {
        self.records.iter().map(|r| r.objective).collect()
    }

    /// The change measure of every recorded iteration.
    #[must_use]
    pub fn changes(&self) -> Vec<f64> {
        self.records.iter().map(|r| r.change).collect()
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

    /// Appends a record (for solvers that assemble one trace from several runs).
    pub fn push(&mut self, record: TraceRecord) {
        self.records.push(record);
    }
}

impl Trace {
    /// Records `view` with fallible reservations (the records' growth, the extras and
    /// their names): what the engine's [`run`](super::run) calls, so that a trace that no
    /// longer fits in memory ends the run with an error instead of aborting the process.
    ///
    /// # Errors
    /// The refused reservation; the trace is unchanged.
    pub(super) fn try_record(&mut self, view: &IterationView<'_>) -> Result<(), TryReserveError> {
        let record = TraceRecord::try_from_view(view)?;
        self.records.try_reserve(1)?;
        self.records.push(record);
        Ok(())
    }
}

impl TraceRecord {
    /// The record of `view`, every allocation reserved fallibly.
    fn try_from_view(view: &IterationView<'_>) -> Result<Self, TryReserveError> {
        let mut extras = Vec::new();
        extras.try_reserve_exact(view.extras.len())?;
        for &(name, value) in view.extras {
            let mut owned = String::new();
            owned.try_reserve_exact(name.len())?;
            owned.push_str(name);
            extras.push((owned, value));
        }
        Ok(Self {
            iteration: view.iteration,
            objective: view.objective,
            change: view.change,
            elapsed_s: view.elapsed.as_secs_f64(),
            extras,
        })
    }
}

/// Used as an observer of its own, a trace records every view; a record that cannot be
/// reserved is not kept (an observer has no way to report an error). The engine's own
/// trace ([`run`](super::run) with `trace` on) reports that case as an error instead.
impl Observer for Trace {
    fn observe(&mut self, view: &IterationView<'_>) {
        // A refused reservation drops this record rather than aborting the process.
        let _ = self.try_record(view);
    }
}
