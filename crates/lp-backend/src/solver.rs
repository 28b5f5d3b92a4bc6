//! The solver interface: statuses, outcomes, the [`LpSolver`] trait and warm-started
//! extensions of a solved base program.

use std::fmt;

use crate::error::LpError;
use crate::model::{LinearProgram, Row, validate_row};

/// The verdict of a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LpStatus {
    /// An optimal solution was found.
    Optimal,
    /// No point satisfies the rows and bounds.
    Infeasible,
    /// The objective improves without limit.
    Unbounded,
    /// The backend could not decide (numerical failure, internal error).
    Failed,
}

/// An optimal solution: objective value and the value of every variable.
#[derive(Debug, Clone, PartialEq)]
pub struct LpSolution {
    /// The optimal objective value, in the program's own direction.
    pub objective: f64,
    /// Variable values, indexed like [`LinearProgram::vars`].
    pub values: Vec<f64>,
}

/// What a finished solve found. A backend failure is an [`LpError`] instead.
#[derive(Debug, Clone, PartialEq)]
pub enum LpOutcome {
    /// Optimal, with the solution.
    Optimal(LpSolution),
    /// Proven infeasible.
    Infeasible,
    /// Proven unbounded.
    Unbounded,
}

impl LpOutcome {
    /// The status of this outcome.
    #[must_use]
    pub fn status(&self) -> LpStatus {
        match self {
            Self::Optimal(_) => LpStatus::Optimal,
            Self::Infeasible => LpStatus::Infeasible,
            Self::Unbounded => LpStatus::Unbounded,
        }
    }

    /// The solution, when optimal.
    #[must_use]
    pub fn solution(&self) -> Option<&LpSolution> {
        match self {
            Self::Optimal(s) => Some(s),
            _ => None,
        }
    }

    /// The solution, or [`LpError::NotOptimal`] naming `context`.
    ///
    /// # Errors
    /// When the outcome is infeasible or unbounded.
    pub fn into_optimal(self, context: impl Into<String>) -> Result<LpSolution, LpError> {
        match self {
            Self::Optimal(s) => Ok(s),
            other => Err(LpError::NotOptimal {
                context: context.into(),
                status: other.status(),
            }),
        }
    }
}

/// The status of a solve result, mapping errors to [`LpStatus::Failed`].
#[must_use]
pub fn status_of(result: &Result<LpOutcome, LpError>) -> LpStatus {
    match result {
        Ok(outcome) => outcome.status(),
        Err(e) => e.status(),
    }
}

/// A linear-programming backend.
///
/// Implementations must pass [`crate::conformance::check_solver`]. They must be `Send + Sync`
/// so one solver can serve parallel solves.
pub trait LpSolver: Send + Sync + fmt::Debug {
    /// Short name of the backend, used in error messages and benchmark IDs.
    fn name(&self) -> &'static str;

    /// Solves `lp` from scratch.
    ///
    /// # Errors
    /// [`LpError::InvalidModel`] for a malformed model, [`LpError::Failed`] when the
    /// backend fails. Infeasible and unbounded programs are `Ok` outcomes.
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError>;

    /// Solves `base` once and returns a handle that solves `base` plus extra rows, reusing
    /// the base solve where the backend can (warm start). The default implementation
    /// solves every extension from scratch.
    ///
    /// # Errors
    /// As [`LpSolver::solve`] for the base program.
    fn prepare<'a>(&'a self, base: &LinearProgram) -> Result<Box<dyn WarmLp + 'a>, LpError> {
        base.validate()?;
        let outcome = self.solve(base)?;
        Ok(Box::new(ColdExtensions {
            solver: self,
            base: base.clone(),
            outcome,
        }))
    }
}

/// A solved base program that can be extended by extra rows (see [`LpSolver::prepare`]).
///
/// `solve_with_rows` takes `&self`, so one prepared base may serve several threads.
pub trait WarmLp: Send + Sync {
    /// The outcome of the base program.
    fn base_outcome(&self) -> &LpOutcome;

    /// Solves the base program with `rows` added (the base is left unchanged).
    ///
    /// # Errors
    /// [`LpError::InvalidModel`] for a malformed row, [`LpError::Failed`] on backend failure.
    fn solve_with_rows(&self, rows: &[Row]) -> Result<LpOutcome, LpError>;
}

/// Extensions solved from scratch: the fallback for backends without warm starts.
#[derive(Debug)]
struct ColdExtensions<'a, S: LpSolver + ?Sized> {
    solver: &'a S,
    base: LinearProgram,
    outcome: LpOutcome,
}

impl<S: LpSolver + ?Sized> WarmLp for ColdExtensions<'_, S> {
    fn base_outcome(&self) -> &LpOutcome {
        &self.outcome
    }

    fn solve_with_rows(&self, rows: &[Row]) -> Result<LpOutcome, LpError> {
        for (i, row) in rows.iter().enumerate() {
            validate_row(row, self.base.num_vars(), &format!("extra row {i}"))?;
        }
        if matches!(self.outcome, LpOutcome::Infeasible) {
            return Ok(LpOutcome::Infeasible);
        }
        let mut lp = self.base.clone();
        for row in rows {
            lp.push_row(row.clone());
        }
        self.solver.solve(&lp)
    }
}
