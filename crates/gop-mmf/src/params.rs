//! Hyperparameters of the GOP fit.
//!
//! The problem is eq. (2) of the paper: for data `y` (`M x N`),
//!
//! ```text
//! min_{x, theta} ||y - x theta||_F^2   s.t.  theta_n in simplex (n = 1..N),  sum_jk |x_jk| <= P   (2)
//! ```
//!
//! with `x` of size `M x K` and `theta` of size `K x N`.
//!
//! | name | default | meaning | valid range |
//! |---|---|---|---|
//! | `k` | `2` | number of components `K` | `2..=12` |
//! | `budget` | `1.0` | l1 budget `P` on `x` | finite, `> 0` |
//! | `eps` | `0.01` | stop when `PUBD - RLBD <= eps` (absolute gap) | finite, `> 0` |
//! | `max_iter` | `1000` | iterations (node expansions) | `>= 1` |
//! | `time_limit` | none | wall-clock limit | any |
//! | `max_nodes` | `200_000` | nodes the tree may hold | `>= 1` |
//! | `seed` | `0` | seeds the random starting point | any |
//! | `threads` | `0` | worker threads for the LPs (`0` = one per core) | `0..=`[`MAX_THREADS`](bl_core::limits::MAX_THREADS) (1024) |
//! | `initial_x` | random in the ball | starting `x` (`M x K`, column-major) | finite, `sum |x| <= P` |
//! | `filter_tol` | `1e-9` | relative tolerance for zero / duplicate hyperplanes | `[0, 1e-3]` |
//! | `cell_slack` | `1e-9` | smallest interior-point slack of a cell, relative to `P` | `[0, 1e-3]` |
//! | `rank_shortcut` | `true` | skip the cell LPs when all sign vectors are provably cells | |
//! | `linearization` | `Product` | how the Lagrangian is linearized: `Product` (tangent in `x theta`, a valid bound) or `Paper` (eqs. (6)-(8) as printed; not a valid bound in general) | |
//! | `nonnegative_bound` | `false` | add `Q >= 0` to every relaxed dual (valid: the objective is a sum of squares); `false` leaves `Q` free, as the paper's relaxed dual does | |
//! | `lp_solver` | [`lp_backend::Microlp`] | the LP backend of the cell enumeration and the relaxed duals: any [`LpSolver`] | must pass [`lp_backend::conformance::check_solver`] |
//! | `tangent_cone_cells` | `true` | enumerate cells in the tangent cone at `x^t`, block by block, when `x^t` is inside the region (small LPs); else on the whole region | |

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bl_core::params::{ParamGuard, at_least, count_in, in_range, positive};
use lp_backend::LpSolver;

use crate::error::GopError;
use crate::lagrangian::Linearization;
use crate::primal::MAX_COMPONENTS;

/// Unchecked hyperparameters of the GOP fit: `Default` and one chainable setter per field;
/// [`ParamGuard::check`] validates them into [`GopValidParams`] (the fit calls it).
///
/// The LP backend is a setting like any other: [`GopParams::lp_solver`] takes any
/// [`LpSolver`] (the plug-in point of this crate), and the normal
/// [`fit`](bl_core::Fit::fit) runs every LP of the fit through it.
///
/// ```
/// use gop_mmf::{GopParams, ParamGuard};
/// let params = GopParams::default().k(2).budget(1.0).eps(1e-3).max_iter(50).seed(3).threads(1);
/// let checked = params.check()?;
/// assert_eq!((checked.k(), checked.budget(), checked.eps()), (2, 1.0, 1e-3));
/// assert_eq!(checked.lp_solver().name(), "microlp");
/// let err = GopParams::default().k(1).check().unwrap_err();
/// assert_eq!(err.invalid_parameter(), Some("k"));
/// # Ok::<(), gop_mmf::GopError>(())
/// ```
#[derive(Clone)]
pub struct GopParams {
    pub(crate) k: usize,
    pub(crate) budget: f64,
    pub(crate) eps: f64,
    pub(crate) max_iter: usize,
    pub(crate) time_limit: Option<Duration>,
    pub(crate) max_nodes: usize,
    pub(crate) seed: u64,
    pub(crate) threads: usize,
    pub(crate) initial_x: Option<Vec<f64>>,
    pub(crate) filter_tol: f64,
    pub(crate) cell_slack: f64,
    pub(crate) rank_shortcut: bool,
    pub(crate) tangent_cone_cells: bool,
    pub(crate) linearization: Linearization,
    pub(crate) nonnegative_bound: bool,
    pub(crate) lp_solver: Arc<dyn LpSolver>,
}

impl Default for GopParams {
    fn default() -> Self {
        Self {
            k: 2,
            budget: 1.0,
            eps: 0.01,
            max_iter: 1000,
            time_limit: None,
            max_nodes: 200_000,
            seed: 0,
            threads: 0,
            initial_x: None,
            filter_tol: 1e-9,
            cell_slack: 1e-9,
            rank_shortcut: true,
            tangent_cone_cells: true,
            linearization: Linearization::Product,
            nonnegative_bound: false,
            lp_solver: Arc::new(lp_backend::default_solver()),
        }
    }
}

impl fmt::Debug for GopParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GopParams")
            .field("k", &self.k)
            .field("budget", &self.budget)
            .field("eps", &self.eps)
            .field("max_iter", &self.max_iter)
            .field("time_limit", &self.time_limit)
            .field("max_nodes", &self.max_nodes)
            .field("seed", &self.seed)
            .field("threads", &self.threads)
            .field("initial_x", &self.initial_x)
            .field("filter_tol", &self.filter_tol)
            .field("cell_slack", &self.cell_slack)
            .field("rank_shortcut", &self.rank_shortcut)
            .field("tangent_cone_cells", &self.tangent_cone_cells)
            .field("linearization", &self.linearization)
            .field("nonnegative_bound", &self.nonnegative_bound)
            .field("lp_solver", &self.lp_solver.name())
            .finish()
    }
}

impl GopParams {
    bl_core::params::setters! {
        /// Sets the number of components `K`.
        k: usize;
        /// Sets the l1 budget `P`.
        budget: f64;
        /// Sets the absolute gap tolerance `eps`.
        eps: f64;
        /// Sets the iteration budget.
        max_iter: usize;
        /// Sets the largest number of tree nodes; a fit that reaches it before the gap closes
        /// ends with [`TerminationReason::BudgetExhausted`](bl_core::engine::TerminationReason).
        max_nodes: usize;
        /// Sets the seed of the random starting point.
        seed: u64;
        /// Sets the number of worker threads (`0` = one per core). Any other value must be
        /// at most [`bl_core::limits::MAX_THREADS`] (1024), the bound every crate of the
        /// workspace uses; a larger one is refused by [`ParamGuard::check`] before any pool
        /// is built.
        threads: usize;
        /// Sets the relative filtering tolerance.
        filter_tol: f64;
        /// Sets the smallest cell slack (relative to `P`).
        cell_slack: f64;
        /// Enables or disables the rank shortcut of the cell enumeration.
        rank_shortcut: bool;
        /// Enables or disables the tangent-cone cell enumeration (see
        /// [`crate::arrangement`]); when off, every node's cells are found by the walk on its
        /// whole region (the slower reference path).
        tangent_cone_cells: bool;
        /// Sets the linearization of the Lagrangian ([`Linearization`]).
        linearization: Linearization;
        /// Adds (`true`) or leaves out (`false`, the default, as in the paper's relaxed dual)
        /// the row `Q >= 0` of the relaxed duals. Without it the lower bound may be negative
        /// (as in the paper's Fig. 3). With it every bound below 0 is lifted to 0, so nodes tie
        /// at 0 and best-first selection degrades to oldest-first (more iterations; see
        /// `docs/measurements/gop-mmf.md`).
        nonnegative_bound: bool;
    }

    /// Sets a wall-clock limit.
    #[must_use]
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Sets the starting `x` (`M x K`, column-major: entry `(j, k)` at `k * M + j`).
    #[must_use]
    pub fn initial_x(mut self, x: Vec<f64>) -> Self {
        self.initial_x = Some(x);
        self
    }

    /// Sets the LP backend (default [`lp_backend::Microlp`]). Any [`LpSolver`] that passes
    /// [`lp_backend::conformance::check_solver`] may be used; a backend without warm starts
    /// gets them from the trait's default [`LpSolver::prepare`] (cold solves).
    #[must_use]
    pub fn lp_solver<S: LpSolver + 'static>(mut self, solver: S) -> Self {
        self.lp_solver = Arc::new(solver);
        self
    }
}

/// Checked GOP hyperparameters (from [`ParamGuard::check`] on [`GopParams`]).
#[derive(Debug, Clone)]
pub struct GopValidParams {
    pub(crate) params: GopParams,
}

impl GopValidParams {
    /// Number of components `K`.
    #[must_use]
    pub fn k(&self) -> usize {
        self.params.k
    }

    /// The l1 budget `P`.
    #[must_use]
    pub fn budget(&self) -> f64 {
        self.params.budget
    }

    /// The gap tolerance `eps`.
    #[must_use]
    pub fn eps(&self) -> f64 {
        self.params.eps
    }

    /// The LP backend.
    #[must_use]
    pub fn lp_solver(&self) -> &dyn LpSolver {
        self.params.lp_solver.as_ref()
    }
}

impl ParamGuard for GopParams {
    type Checked = GopValidParams;
    type Error = GopError;

    /// Checks every value against the table in the module docs (the shape of `initial_x`
    /// is checked by the fit, which knows `M`).
    ///
    /// # Errors
    /// [`GopError::Core`] with [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
    /// naming the first value out of its range (a nonzero `threads` above
    /// [`bl_core::limits::MAX_THREADS`] included).
    fn check(&self) -> Result<GopValidParams, GopError> {
        count_in("k", self.k, 2, MAX_COMPONENTS)?;
        positive("budget", self.budget)?;
        positive("eps", self.eps)?;
        at_least("max_iter", self.max_iter, 1)?;
        at_least("max_nodes", self.max_nodes, 1)?;
        // 0 means one thread per core; any explicit count has the workspace-wide bound.
        if self.threads != 0 {
            bl_core::limits::threads("threads", self.threads)?;
        }
        in_range("filter_tol", self.filter_tol, 0.0, 1e-3)?;
        in_range("cell_slack", self.cell_slack, 0.0, 1e-3)?;
        Ok(GopValidParams {
            params: self.clone(),
        })
    }
}
