//! The verdict of a solve.

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
