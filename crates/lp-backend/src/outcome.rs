//! What a finished solve found: the solution of an optimum, or a verdict.

use crate::error::LpError;
use crate::status::LpStatus;

/// An optimal solution: objective value and the value of every variable.
#[derive(Debug, Clone, PartialEq)]
pub struct LpSolution {
    /// The optimal objective value, in the program's own direction.
    pub objective: f64,
    /// Variable values, indexed like [`LinearProgram::vars`](crate::LinearProgram::vars).
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
