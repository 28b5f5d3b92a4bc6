//! Strictly interior points of polyhedra, by maximizing a common slack.
//!
//! For half-spaces `a_i^T x <= b_i` (or `>=`), the program
//!
//! ```text
//! max t   s.t.  a_i^T x + ||a_i||_2 t <= b_i   (resp. a_i^T x - ||a_i||_2 t >= b_i),
//!               lower <= x <= upper,  t <= cap
//! ```
//!
//! finds the point deepest inside all half-spaces at once: `t` is its Euclidean distance to
//! the nearest bounding hyperplane (capped at `cap`). The set has a non-empty interior
//! (relative to the variable bounds and the `Eq` rows, which get no slack) exactly when the
//! optimum `t*` is positive. `t` has no lower bound, so the program is feasible whenever the
//! bounds, the `Eq` rows and the zero rows are, and [`InteriorPointSearch::with_extra`] tests many extensions of one base
//! set with warm starts (this is how `gop-mmf` enumerates the cells of a hyperplane
//! arrangement).

use crate::error::LpError;
use crate::model::{Cmp, LinearProgram, Row, Sense};
use crate::outcome::LpOutcome;
use crate::solver::{LpSolver, WarmLp};

/// A strictly interior point and its common slack.
#[derive(Debug, Clone, PartialEq)]
pub struct InteriorPoint {
    /// The point (one value per variable, without the slack variable).
    pub point: Vec<f64>,
    /// Its Euclidean distance to the nearest bounding hyperplane (at most the cap).
    pub slack: f64,
}

/// Adds the slack variable `t` (index `t`) to a half-space row.
fn with_slack(row: &Row, t: usize) -> Result<Row, LpError> {
    let norm = row.norm();
    let coeff = match row.cmp {
        Cmp::Le => norm,
        Cmp::Ge => -norm,
        Cmp::Eq => 0.0,
    };
    if row.coeffs.iter().any(|&(j, _)| j >= t) {
        return Err(LpError::InvalidModel {
            message: format!("a half-space uses a variable index >= the dimension {t}"),
        });
    }
    let mut coeffs = row.coeffs.clone();
    if coeff != 0.0 {
        coeffs.push((t, coeff));
    }
    Ok(Row::new(coeffs, row.cmp, row.rhs))
}

/// A base set of half-spaces whose extensions are tested for strictly interior points,
/// reusing one solve of the base (warm starts where the backend supports them).
pub struct InteriorPointSearch<'a> {
    warm: Box<dyn WarmLp + 'a>,
    dim: usize,
    min_slack: f64,
}

impl std::fmt::Debug for InteriorPointSearch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InteriorPointSearch")
            .field("dim", &self.dim)
            .field("min_slack", &self.min_slack)
            .finish_non_exhaustive()
    }
}

impl<'a> InteriorPointSearch<'a> {
    /// Prepares the base set: variables with `bounds` (no slack on them), the half-spaces
    /// `halfspaces` (`Le`/`Ge` rows get the slack, `Eq` rows are kept as they are), slack
    /// capped at `cap > 0`; a point counts as strictly interior when its slack exceeds
    /// `min_slack >= 0`.
    ///
    /// # Errors
    /// [`LpError::InvalidModel`] for malformed rows or bounds, [`LpError::Core`]
    /// (an invalid parameter) for `cap` or `min_slack` out of range, [`LpError::Failed`]
    /// when the backend fails.
    pub fn new(
        solver: &'a dyn LpSolver,
        bounds: &[(f64, f64)],
        halfspaces: &[Row],
        cap: f64,
        min_slack: f64,
    ) -> Result<Self, LpError> {
        bl_core::params::positive("cap", cap)?;
        bl_core::params::nonnegative("min_slack", min_slack)?;
        let dim = bounds.len();
        let mut lp = LinearProgram::new(Sense::Maximize);
        for &(lo, hi) in bounds {
            lp.add_var(lo, hi, 0.0);
        }
        lp.add_var(f64::NEG_INFINITY, cap, 1.0);
        for row in halfspaces {
            lp.push_row(with_slack(row, dim)?);
        }
        let warm = solver.prepare(&lp)?;
        Ok(Self {
            warm,
            dim,
            min_slack,
        })
    }

    fn interpret(&self, outcome: &LpOutcome) -> Result<Option<InteriorPoint>, LpError> {
        match outcome {
            LpOutcome::Optimal(sol) => {
                // A plug-in backend may return fewer values than variables: an error.
                let (Some(point), Some(&slack)) =
                    (sol.values.get(..self.dim), sol.values.get(self.dim))
                else {
                    return Err(LpError::Failed {
                        backend: "interior point",
                        message: format!(
                            "the backend returned {} values for {} variables",
                            sol.values.len(),
                            self.dim + 1
                        ),
                    });
                };
                Ok((slack > self.min_slack).then(|| InteriorPoint {
                    point: point.to_vec(),
                    slack,
                }))
            }
            LpOutcome::Infeasible => Ok(None),
            LpOutcome::Unbounded => Err(LpError::Failed {
                backend: "interior point",
                message: "the capped slack program was reported unbounded".into(),
            }),
        }
    }

    /// The deepest interior point of the base set, if it has an interior.
    ///
    /// # Errors
    /// [`LpError::Failed`] if the backend reported an impossible verdict (unbounded) or a
    /// solution with fewer values than variables.
    pub fn base(&self) -> Result<Option<InteriorPoint>, LpError> {
        self.interpret(self.warm.base_outcome())
    }

    /// The deepest interior point of the base set intersected with `extra` half-spaces.
    ///
    /// Extensions reuse the prepared base ([`WarmLp::solve_with_rows`]; the backend decides
    /// between a warm start and a cold solve).
    ///
    /// # Errors
    /// [`LpError::InvalidModel`] for malformed rows, [`LpError::Failed`] on backend failure.
    pub fn with_extra(&self, extra: &[Row]) -> Result<Option<InteriorPoint>, LpError> {
        let rows = extra
            .iter()
            .map(|r| with_slack(r, self.dim))
            .collect::<Result<Vec<_>, _>>()?;
        let outcome = self.warm.solve_with_rows(&rows)?;
        self.interpret(&outcome)
    }
}

/// The deepest strictly interior point of `{x : bounds, halfspaces}` (see the module docs),
/// or `None` when the set has an empty interior (slack `<= min_slack`) or is empty.
///
/// ```
/// use lp_backend::{interior_point, Cmp, Microlp, Row};
/// // The triangle x >= 0, y >= 0, x + y <= 1: its incircle has radius 1 / (2 + sqrt 2).
/// let rows = vec![Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Le, 1.0)];
/// let p = interior_point(&Microlp, &[(0.0, f64::INFINITY); 2], &rows, 10.0, 1e-9)?;
/// // Variable bounds get no slack, so the deepest point is at distance 1/sqrt 2 from the
/// // slanted edge only.
/// let p = p.expect("the triangle has an interior");
/// assert!((p.slack - 1.0 / 2f64.sqrt()).abs() < 1e-9);
/// # Ok::<(), lp_backend::LpError>(())
/// ```
///
/// # Errors
/// As [`InteriorPointSearch::new`].
pub fn interior_point(
    solver: &dyn LpSolver,
    bounds: &[(f64, f64)],
    halfspaces: &[Row],
    cap: f64,
    min_slack: f64,
) -> Result<Option<InteriorPoint>, LpError> {
    InteriorPointSearch::new(solver, bounds, halfspaces, cap, min_slack)?.base()
}
