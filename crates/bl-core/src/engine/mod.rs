//! The shared iteration engine: the one loop every iterative fit of the workspace runs on,
//! with its stopping tests, termination reasons, observers and trace.
//!
//! An algorithm is a step closure over its own explicit state, handed to [`run`] with the
//! fit's [`IterationParams`]. The engine owns the loop, the iteration budget, the tolerance
//! test, the time limit, the observers and the trace, in the manner of argmin's executor.
//! Each step reports a [`Progress`] (objective, a change measure such as SBLR's `q^k` of
//! eq. (8), named extras, and optionally a [`Stop`] of its own); the engine decides whether
//! to stop and returns a [`FitReport`]. The extension points of the crates are their
//! plug-in traits (see [`crate::extension`]), not the loop.
//!
//! Policies, the same for every fit:
//! - **Numerical failure is an error.** A step whose objective is NaN or infinite, or whose
//!   change measure is NaN, ends the run with [`BlError::Numerical`] (context
//!   `"iteration"`); an infinite change is not an error, it only fails the tolerance test.
//! - **Tracing is an observer.** With `trace` on, the report keeps every iteration; with it
//!   off, the loop allocates nothing per iteration (extras are stored inline).
//! - **Single-shot fits** (a closed form, one LP, one decomposition) report one iteration
//!   terminated [`Solved`](TerminationReason::Solved): [`FitReport::single_shot`].
//! - **Inner runs** (a solver called inside another's step) run untraced
//!   ([`IterationParams::untraced`]); the outer report says how they ended where it
//!   matters (e.g. a CRF fit reports its optimizer's own termination).
//!
//! ```
//! use bl_core::engine::{run, Progress, TerminationReason};
//! use bl_core::IterationParams;
//!
//! // Gradient steps of length 0.25 on f(x) = (x - 3)^2.
//! let mut x = 0.0_f64;
//! let mut seen = 0;
//! let mut count = |_: &bl_core::engine::IterationView<'_>| seen += 1;
//! let report = run(&IterationParams::new(500, 1e-12), &mut [&mut count], |_| {
//!     let previous = x;
//!     x -= 0.25 * 2.0 * (x - 3.0);
//!     let change = bl_core::engine::relative_change(previous, x);
//!     Ok::<_, bl_core::BlError>(Progress::new((x - 3.0).powi(2), change).with("x", x))
//! })?;
//! assert_eq!(report.termination, TerminationReason::Converged);
//! assert!((x - 3.0).abs() < 1e-10);
//! assert_eq!(report.trace.len(), report.iterations);
//! assert_eq!(seen, report.iterations);
//! # Ok::<(), bl_core::BlError>(())
//! ```

mod change;
mod observe;
mod report;
mod stopping;

use std::collections::TryReserveError;
use std::time::Instant;

/// The knobs [`run`] reads (re-exported from [`crate::iteration`]).
pub use crate::iteration::IterationParams;
pub use change::{relative_change, relative_change_blocks, relative_change_slices};
pub use observe::{IterationView, Observer, Trace, TraceRecord};
pub use report::FitReport;
pub use stopping::{Extras, MAX_EXTRAS, Progress, Stop, TerminationReason};

use crate::error::BlError;

/// Runs `step` until `rule` says stop. `step` receives the 1-based iteration number and
/// returns its [`Progress`] or an error, which ends the run and is returned. Every
/// iteration is shown to every observer, and recorded in the report's trace when
/// `rule.trace` is on. `rule.threads` is not read here (the fit reads it).
///
/// Order of tests after each step: numerical failure (objective or change NaN, objective
/// infinite: an error), [`Stop::Solved`], convergence (`change <= tol`),
/// [`Stop::BudgetExhausted`] (so a step that meets the tolerance as its budget runs out is
/// converged), time limit, iteration budget.
///
/// The trace grows by one record per iteration (about 60 bytes plus 32 bytes and the name
/// per extra), reserved fallibly: when memory for the next record is refused, the run
/// ends with an error naming the trace and `max_iter` instead of aborting the process.
/// With `trace` off nothing is kept, whatever the budget.
///
/// # Errors
/// Invalid `max_iter` or `tol`, [`BlError::Numerical`] (context `"iteration"`) for a
/// non-finite objective or a NaN change, [`BlError::InvalidParameter`] naming `max_iter`
/// when the trace cannot keep another record, or the first error returned by `step`.
pub fn run<E, F>(
    rule: &IterationParams,
    observers: &mut [&mut dyn Observer],
    step: F,
) -> Result<FitReport, E>
where
    E: From<BlError>,
    F: FnMut(usize) -> Result<Progress, E>,
{
    run_keeping(rule, observers, step, Trace::try_record)
}

/// [`run`], with `keep` recording a view in the trace (`Trace::try_record`; a test injects
/// a refusal).
fn run_keeping<E, F, K>(
    rule: &IterationParams,
    observers: &mut [&mut dyn Observer],
    mut step: F,
    mut keep: K,
) -> Result<FitReport, E>
where
    E: From<BlError>,
    F: FnMut(usize) -> Result<Progress, E>,
    K: FnMut(&mut Trace, &IterationView<'_>) -> Result<(), TryReserveError>,
{
    crate::params::at_least("max_iter", rule.max_iter, 1)?;
    crate::params::nonnegative("tol", rule.tol)?;
    let start = Instant::now();
    let mut trace = Trace::default();
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
            extras: progress.extras.as_slice(),
        };
        if rule.trace && keep(&mut trace, &view).is_err() {
            return Err(crate::limits::record_refused(
                "trace",
                rule.max_iter,
                iteration,
                "; turn the trace off or lower max_iter",
            )
            .into());
        }
        for observer in observers.iter_mut() {
            observer.observe(&view);
        }
        if !objective.is_finite() || progress.change.is_nan() {
            return Err(BlError::Numerical {
                context: "iteration",
                message: format!(
                    "iteration {iteration} gave objective {objective} and change {}",
                    progress.change
                ),
            }
            .into());
        }
        let termination = if progress.stop == Some(Stop::Solved) {
            Some(TerminationReason::Solved)
        } else if progress.change <= rule.tol {
            // Met the tolerance: converged, even if a budget of the step ran out with it.
            Some(TerminationReason::Converged)
        } else if progress.stop == Some(Stop::BudgetExhausted) {
            Some(TerminationReason::BudgetExhausted)
        } else if rule.time_limit.is_some_and(|limit| elapsed >= limit) {
            Some(TerminationReason::TimeLimit)
        } else {
            None
        };
        if let Some(termination) = termination {
            return Ok(FitReport {
                iterations: iteration,
                termination,
                objective,
                elapsed,
                trace,
            });
        }
    }
    Ok(FitReport {
        iterations: rule.max_iter,
        termination: TerminationReason::MaxIterations,
        objective,
        elapsed: start.elapsed(),
        trace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reservation error, as the allocator gives when memory is refused.
    fn refusal() -> TryReserveError {
        let mut v: Vec<u8> = Vec::new();
        match v.try_reserve(usize::MAX) {
            Err(e) => e,
            Ok(()) => unreachable!("a reservation of usize::MAX bytes cannot succeed"),
        }
    }

    #[test]
    fn a_refused_trace_record_ends_the_run_with_an_error_naming_max_iter() {
        let rule = IterationParams::new(1_000_000_000_000_000, 0.0);
        let mut steps = 0;
        let mut seen = 0;
        let mut observer = |_: &IterationView<'_>| seen += 1;
        let result: Result<FitReport, BlError> = run_keeping(
            &rule,
            &mut [&mut observer],
            |_| {
                steps += 1;
                // (a run the refusal did not stop ends here, and the test fails below)
                if steps > 10 {
                    return Err(BlError::Numerical {
                        context: "test",
                        message: "the refusal did not stop the run".into(),
                    });
                }
                Ok(Progress::new(1.0, 1.0).with("step", 0.5))
            },
            |trace, view| {
                if view.iteration == 4 {
                    Err(refusal())
                } else {
                    trace.try_record(view)
                }
            },
        );
        let err = result.unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(
                err,
                BlError::InvalidParameter {
                    name: "max_iter",
                    ..
                }
            ),
            "{text}"
        );
        assert!(
            text.contains("trace") && text.contains("iteration 4"),
            "{text}"
        );
        assert!(text.contains("1000000000000000"), "{text}");
        // The run stopped at the refusal: no step after it, no observer call for it.
        assert_eq!(steps, 4);
        assert_eq!(seen, 3);
    }

    #[test]
    fn the_engine_trace_keeps_every_record_with_its_extras() {
        let rule = IterationParams::new(3, 0.0);
        let report: FitReport = run::<BlError, _>(&rule, &mut [], |k| {
            Ok(Progress::new(k as f64, 1.0).with("a", 1.0).with("bb", 2.0))
        })
        .unwrap();
        let records = report.trace.records();
        assert_eq!(records.len(), 3);
        assert_eq!(records[2].iteration, 3);
        assert_eq!(records[2].objective, 3.0);
        assert_eq!(
            records[1].extras,
            vec![("a".to_string(), 1.0), ("bb".to_string(), 2.0)]
        );
        assert_eq!(report.trace.extra("bb"), vec![(1, 2.0), (2, 2.0), (3, 2.0)]);
    }

    #[test]
    fn a_trace_used_as_an_observer_records_every_view() {
        let mut trace = Trace::default();
        let extras = [("x", 1.5)];
        let view = IterationView {
            iteration: 1,
            objective: 2.0,
            change: 0.5,
            elapsed: std::time::Duration::from_millis(250),
            extras: &extras,
        };
        trace.observe(&view);
        assert_eq!(trace.len(), 1);
        assert_eq!(trace.records()[0].elapsed_s, 0.25);
        assert_eq!(trace.extra("x"), vec![(1, 1.5)]);
    }
}
