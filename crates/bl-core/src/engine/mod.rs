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
/// # Errors
/// Invalid `max_iter` or `tol`, [`BlError::Numerical`] (context `"iteration"`) for a
/// non-finite objective or a NaN change, or the first error returned by `step`.
pub fn run<E, F>(
    rule: &IterationParams,
    observers: &mut [&mut dyn Observer],
    mut step: F,
) -> Result<FitReport, E>
where
    E: From<BlError>,
    F: FnMut(usize) -> Result<Progress, E>,
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
        if rule.trace {
            trace.observe(&view);
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
