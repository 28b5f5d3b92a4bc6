//! The shared iteration engine: the one loop every iterative solver of the workspace runs
//! on, with its stopping rules, termination reasons, observers and trace.
//!
//! An algorithm is a step over its own explicit state. It either implements [`Solver`]
//! (a problem type, a state type and a `step`) and runs through [`run_solver`], or hands a
//! step closure to [`run`]. The engine owns the loop, the iteration budget, the tolerance
//! test, the time limit, the observers and the trace, in the manner of argmin's executor.
//! Each step reports a [`Progress`] (objective, a change measure such as SBLR's `q^k` of
//! eq. (8), named extras, and optionally a [`Stop`] of its own); the engine decides whether
//! to stop and returns a [`FitReport`].
//!
//! ```
//! use bl_core::engine::{run_solver, Progress, Solver, StoppingRule, TerminationReason};
//!
//! /// Gradient steps of length `rate` on f(x) = (x - target)^2.
//! struct Descent { rate: f64 }
//!
//! impl Solver for Descent {
//!     type Problem = f64; // the target
//!     type State = f64;   // the iterate
//!     type Error = bl_core::BlError;
//!
//!     fn step(&mut self, target: &f64, x: &mut f64, _iteration: usize) -> bl_core::Result<Progress> {
//!         let previous = *x;
//!         *x -= self.rate * 2.0 * (*x - target);
//!         let change = bl_core::engine::relative_change(previous, *x);
//!         Ok(Progress::new((*x - target).powi(2), change).with("x", *x))
//!     }
//! }
//!
//! let mut x = 0.0;
//! let mut seen = 0;
//! let mut count = |_: &bl_core::engine::IterationView<'_>| seen += 1;
//! let report = run_solver(&mut Descent { rate: 0.25 }, &3.0, &mut x,
//!                         &StoppingRule::new(500, 1e-12), &mut [&mut count])?;
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

pub use change::{relative_change, relative_change_blocks, relative_change_slices};
pub use observe::{IterationView, Observer, Trace, TraceRecord};
pub use report::FitReport;
pub use stopping::{Progress, Stop, StoppingRule, TerminationReason};

use crate::error::BlError;

/// An iterative algorithm: one [`step`](Solver::step) advances `State` on `Problem`.
///
/// This is the plug-in point of every iterative solver in the workspace: a type that
/// implements `Solver` for a crate's problem and state types runs through the crate's
/// normal `fit` (see each crate's documentation and `CONTRIBUTING.md`).
pub trait Solver {
    /// The data the solver reads (borrowed for the whole run).
    type Problem: ?Sized;
    /// The iterate the solver advances (owned by the caller, so warm starts are free).
    type State;
    /// The error a step can return; engine errors convert into it.
    type Error: From<BlError>;

    /// Performs iteration `iteration` (1-based) and reports its progress.
    ///
    /// # Errors
    /// Whatever the algorithm cannot recover from; the run ends with it.
    fn step(
        &mut self,
        problem: &Self::Problem,
        state: &mut Self::State,
        iteration: usize,
    ) -> Result<Progress, Self::Error>;
}

/// Runs `solver` on `problem` from `state` until `rule` says stop; `state` holds the final
/// iterate afterwards.
///
/// # Errors
/// An invalid [`StoppingRule`], or the first error returned by a step.
pub fn run_solver<S: Solver + ?Sized>(
    solver: &mut S,
    problem: &S::Problem,
    state: &mut S::State,
    rule: &StoppingRule,
    observers: &mut [&mut dyn Observer],
) -> Result<FitReport, S::Error> {
    run(rule, observers, |iteration| {
        solver.step(problem, state, iteration)
    })
}

/// Runs `step` until the stopping rule says stop. `step` receives the 1-based iteration
/// number and returns its [`Progress`] or an error, which ends the run and is returned.
/// Every iteration is recorded in the report's trace and shown to every observer.
///
/// Order of tests after each step: numerical failure (objective or change not finite),
/// [`Stop::Solved`], convergence (`change <= tol`), [`Stop::BudgetExhausted`] (so a step
/// that meets the tolerance as its budget runs out is converged), time limit, iteration
/// budget.
///
/// # Errors
/// An invalid [`StoppingRule`], or the first error returned by `step`.
pub fn run<E, F>(
    rule: &StoppingRule,
    observers: &mut [&mut dyn Observer],
    mut step: F,
) -> Result<FitReport, E>
where
    E: From<BlError>,
    F: FnMut(usize) -> Result<Progress, E>,
{
    rule.validate()?;
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
            extras: &progress.extras,
        };
        trace.observe(&view);
        for observer in observers.iter_mut() {
            observer.observe(&view);
        }
        let termination = if !objective.is_finite() || progress.change.is_nan() {
            Some(TerminationReason::NumericalFailure)
        } else if progress.stop == Some(Stop::Solved) {
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
