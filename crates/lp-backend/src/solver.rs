//! The solver interface: the [`LpSolver`] plug-in trait and warm-started extensions of a
//! solved base program.

use bl_core::Extension;

use crate::error::LpError;
use crate::model::{LinearProgram, Row, validate_row};
use crate::outcome::LpOutcome;

/// A linear-programming backend: the plug-in point of the LPs of the workspace.
///
/// It follows the workspace's plug-in protocol ([`bl_core::extension`]): [`Extension`] is
/// its supertrait (the backend's [`name`](Extension::name), used in error messages and
/// benchmark IDs, and a [`check`](Extension::check) hook that the params holding it call),
/// the built-ins [`Microlp`](crate::Microlp) and [`GoodLpMicrolp`](crate::GoodLpMicrolp)
/// are its implementations, and every implementation must pass
/// [`conformance`](crate::conformance::conformance). `Extension` makes it `Send + Sync`,
/// so one solver can serve parallel solves.
pub trait LpSolver: Extension {
    /// Solves `lp` from scratch.
    ///
    /// # Errors
    /// [`LpError::InvalidModel`] for a malformed model, [`LpError::Failed`] when the
    /// backend fails. Infeasible and unbounded programs are `Ok` outcomes.
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError>;

    /// Solves `base` once and returns a handle that solves `base` plus extra rows, reusing
    /// the base solve where the backend can (warm start). The default implementation
    /// solves every extension from scratch (an extension of an infeasible base is reported
    /// infeasible without a solve).
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
