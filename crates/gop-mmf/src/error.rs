//! The error type of `gop-mmf`.

/// Everything that can go wrong in a GOP fit.
///
/// The generic input errors (invalid parameters, shapes, empty or non-finite data) are
/// `bl-core`'s [`BlError`](bl_core::BlError), wrapped as [`GopError::Core`]; LP failures of
/// `lp-backend` come in as [`GopError::Lp`] (an unbounded relaxed dual's context names the
/// node and cell; a backend failure names the backend).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GopError {
    /// An input or parameter check failed (see [`bl_core::BlError`]).
    #[error(transparent)]
    Core(#[from] bl_core::BlError),
    /// An LP could not be solved.
    #[error("LP failure: {0}")]
    Lp(#[from] lp_backend::LpError),
    /// The exact primal solver found no KKT point (numerically degenerate data).
    #[error(
        "primal of sample {sample} has no KKT point within tolerance (violation {violation:.3e})"
    )]
    Primal {
        /// The sample (column of `y`).
        sample: usize,
        /// Smallest KKT violation found.
        violation: f64,
    },
    /// A deadline given to the cell enumeration
    /// ([`CellOptions::deadline`](crate::arrangement::CellOptions::deadline)) or to the
    /// relaxed duals ([`solve_relaxed_duals_until`](crate::dual::solve_relaxed_duals_until))
    /// passed before they were done: their work is abandoned, not cut short. A fit never
    /// returns it: the fit's `time_limit` sets the deadline, and an expansion it interrupts
    /// leaves its node unexpanded (open, or pruned when its bound can no longer beat
    /// `PUBD - tol`) and ends the fit with `TerminationReason::TimeLimit` (or
    /// `Converged`, when that node's primal closed the gap).
    #[error("the deadline passed during {stage}; its work was abandoned")]
    DeadlinePassed {
        /// What was running: `"the cell enumeration"` or `"the relaxed duals"`.
        stage: &'static str,
    },
    /// No open node was left while the gap `PUBD - RLBD` was still above `tol`. The cells of
    /// a node cover its region, so at least one relaxed dual of every expanded node is
    /// feasible: an empty tree with an open gap means the LP backend's verdicts were
    /// inconsistent (e.g. every relaxed dual reported infeasible). A numerical failure of
    /// the LPs, never a solved problem.
    #[error(
        "GOP tree emptied at iteration {iteration} with the gap open (PUBD {upper_bound}, \
         RLBD {lower_bound}, tol {tol}): no relaxed dual of the expanded nodes was feasible \
         although their cells cover the region, so the LP backend `{backend}` gave \
         inconsistent verdicts"
    )]
    EmptyTree {
        /// The iteration that found no open node.
        iteration: usize,
        /// `PUBD` at that point.
        upper_bound: f64,
        /// `RLBD` at that point.
        lower_bound: f64,
        /// The gap tolerance.
        tol: f64,
        /// Name of the LP backend.
        backend: String,
    },
}

impl GopError {
    /// The name of the invalid parameter, when this is
    /// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter).
    #[must_use]
    pub fn invalid_parameter(&self) -> Option<&'static str> {
        match self {
            Self::Core(bl_core::BlError::InvalidParameter { name, .. }) => Some(name),
            _ => None,
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = GopError> = std::result::Result<T, E>;
