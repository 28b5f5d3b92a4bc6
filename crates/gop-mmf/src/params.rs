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
//! | `tol` | `0.01` | the paper's `eps`: stop when the gap `PUBD - RLBD <= tol` (absolute) | finite, `> 0` |
//! | `max_iter` | `1000` | iterations (node expansions) | `>= 1` |
//! | `time_limit` | `None` | wall-clock limit (`None`: none), read between iterations and before every LP of an expansion; an expansion it interrupts is abandoned (its node stays open, or is pruned against the new `PUBD`) and the fit ends with `TimeLimit` (`Converged` if that node's primal closed the gap) | any |
//! | `threads` | `None` | worker threads for the LPs (`None`: rayon's global pool, one per core) | `1..=`[`MAX_THREADS`](bl_core::limits::MAX_THREADS) (1024) |
//! | `trace` | `true` | keep every iteration in the report's trace | any |
//! | `max_nodes` | `200_000` | tree size at which expansion stops (the last expansion adds all its children, so the tree may end larger) | `>= 1` |
//! | `seed` | `0` | seeds the random starting point | any |
//! | `initial_x` | `None` (random in the ball) | starting `x` (`M x K`, column-major) | finite, `sum |x| <= P` |
//! | `filter_tol` | `1e-9` | relative tolerance for zero / duplicate hyperplanes | `[0, 1e-3]` |
//! | `cell_slack` | `1e-9` | smallest interior-point slack of a cell, relative to `P` | `[0, 1e-3]` |
//! | `rank_shortcut` | `true` | skip the cell LPs when all sign vectors are provably cells | |
//! | `tangent_cone_cells` | `true` | enumerate cells in the tangent cone at `x^t`, block by block, when `x^t` is inside the region (small LPs); else on the whole region | |
//! | `linearization` | `Product` | how the Lagrangian is linearized: `Product` (tangent in `x theta`, a valid bound) or `Paper` (the paper's eqs. (6), (8) and App. A's (20), see [`Lagrangian::paper_at`](crate::lagrangian::Lagrangian::paper_at); not a valid bound in general) | |
//! | `nonnegative_bound` | `false` | add `Q >= 0` to every relaxed dual (valid: the objective is a sum of squares); `false` leaves `Q` free, as the paper's relaxed dual does | |
//! | `lp_solver` | [`lp_backend::Microlp`] | the LP backend of the cell enumeration and the relaxed duals: any [`LpSolver`] | its own [`check`](bl_core::Extension::check); must pass [`lp_backend::conformance::conformance`] |
//!
//! `max_iter`, `tol`, `time_limit`, `threads` and `trace` are the workspace's shared
//! iteration knobs ([`IterationParams`], set with the same setters as every fit); `tol` is
//! the paper's gap tolerance `eps` (Sec. 3.3), the only name it has here.

use std::sync::Arc;

use bl_core::IterationParams;
use bl_core::params::{ParamGuard, at_least, count_in, in_range, positive};
use lp_backend::LpSolver;

use crate::error::GopError;
use crate::lagrangian::Linearization;
use crate::primal::MAX_COMPONENTS;

/// The default iteration knobs: 1000 node expansions and the paper's gap tolerance
/// `eps = 0.01` (Sec. 5.1); no time limit, all cores, trace on.
const DEFAULT_ITERATION: IterationParams = IterationParams::new(1000, 0.01);

/// Unchecked hyperparameters of the GOP fit: `Default` and one chainable setter per field;
/// [`ParamGuard::check`] validates them into [`GopValidParams`] (the fit calls it).
///
/// The LP backend is a setting like any other: [`GopParams::lp_solver`] takes any
/// [`LpSolver`] (the plug-in point of this crate) as `Arc<dyn LpSolver>`, and the normal
/// [`fit`](bl_core::Fit::fit) runs every LP of the fit through it.
///
/// ```
/// use std::sync::Arc;
/// use gop_mmf::{GopParams, ParamGuard};
/// let params = GopParams::default()
///     .k(2)
///     .budget(1.0)
///     .tol(1e-3)
///     .max_iter(50)
///     .seed(3)
///     .threads(Some(1))
///     .lp_solver(Arc::new(lp_backend::GoodLpMicrolp));
/// let checked = params.check()?;
/// assert_eq!((checked.k(), checked.budget(), checked.iteration().tol), (2, 1.0, 1e-3));
/// assert_eq!(checked.lp_solver().name(), "good_lp-microlp");
/// let err = GopParams::default().k(1).check().unwrap_err();
/// assert_eq!(err.invalid_parameter(), Some("k"));
/// # Ok::<(), gop_mmf::GopError>(())
/// ```
#[derive(Debug, Clone)]
pub struct GopParams {
    k: usize,
    budget: f64,
    iteration: IterationParams,
    max_nodes: usize,
    seed: u64,
    initial_x: Option<Vec<f64>>,
    filter_tol: f64,
    cell_slack: f64,
    rank_shortcut: bool,
    tangent_cone_cells: bool,
    linearization: Linearization,
    nonnegative_bound: bool,
    lp_solver: Arc<dyn LpSolver>,
}

impl Default for GopParams {
    fn default() -> Self {
        Self {
            k: 2,
            budget: 1.0,
            iteration: DEFAULT_ITERATION,
            max_nodes: 200_000,
            seed: 0,
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

impl GopParams {
    bl_core::params::setters! {
        /// Sets the starting `x` (`M x K`, column-major: entry `(j, k)` at `k * M + j`);
        /// `None` (the default) draws one at random in the l1 ball (from `seed`).
        initial_x: Option<Vec<f64>>;
    }
}

/// Checked GOP hyperparameters (from [`ParamGuard::check`] on [`GopParams`]): every value
/// but `initial_x` is in the range of the table in the [module docs](self) (`initial_x` is
/// checked by the fit, which knows `M`); one getter per field.
#[derive(Debug, Clone)]
pub struct GopValidParams {
    params: GopParams,
}

bl_core::params::knobs! {
    GopParams => GopValidParams in params;
    /// The iteration knobs: `max_iter` (node expansions, default 1000, `>= 1`), `tol` (the
    /// paper's gap tolerance `eps`, default 0.01, finite and `> 0`), `time_limit`,
    /// `threads` (of the LPs), `trace`.
    ..iteration;
    /// The number of components `K` (default 2, in `2 ..= 12`).
    k: usize;
    /// The l1 budget `P` on `x` (default 1.0, finite and `> 0`).
    budget: f64;
    /// The tree size at which expansion stops (default 200,000, `>= 1`); a fit whose tree
    /// reaches it before the gap closes ends with
    /// [`TerminationReason::BudgetExhausted`](bl_core::engine::TerminationReason). The
    /// expansion that reaches it adds all its children, so the tree may end larger.
    max_nodes: usize;
    /// The seed of the random starting point (default 0).
    seed: u64;
    /// The relative filtering tolerance for zero or duplicate hyperplanes (default `1e-9`,
    /// in `[0, 1e-3]`).
    filter_tol: f64;
    /// The smallest cell slack, relative to `P` (default `1e-9`, in `[0, 1e-3]`).
    cell_slack: f64;
    /// Whether the rank shortcut of the cell enumeration is on (default on).
    rank_shortcut: bool;
    /// Whether the tangent-cone cell enumeration is on (default on; see
    /// [`crate::arrangement`]); when off, every node's cells are found by the walk on its
    /// whole region (the slower reference path).
    tangent_cone_cells: bool;
    /// The linearization of the Lagrangian ([`Linearization`], default
    /// [`Linearization::Product`]).
    linearization: Linearization;
    /// Whether the relaxed duals carry the row `Q >= 0`: `true` adds it, `false` (the
    /// default, as in the paper's relaxed dual) leaves it out. Without it the lower bound
    /// may be negative (as in the paper's Fig. 3). With it every bound below 0 is lifted to
    /// 0, so nodes tie at 0 and best-first selection degrades to oldest-first (more
    /// iterations; see `docs/measurements/gop-mmf.md`).
    nonnegative_bound: bool;
    /// The LP backend (default [`lp_backend::Microlp`]). Any [`LpSolver`] that passes
    /// [`lp_backend::conformance::conformance`] may be used; a backend without warm starts
    /// gets them from the trait's default [`LpSolver::prepare`] (cold solves).
    /// [`ParamGuard::check`] calls the backend's own [`check`](bl_core::Extension::check).
    lp_solver: &Arc<dyn LpSolver>;
}

impl GopValidParams {
    /// The starting `x` (`M x K`, column-major), if one was given.
    #[must_use]
    pub fn initial_x(&self) -> Option<&[f64]> {
        self.params.initial_x.as_deref()
    }
}

impl ParamGuard for GopParams {
    type Checked = GopValidParams;
    type Error = GopError;

    /// Checks every value against the table in the module docs (`initial_x`, its shape,
    /// finiteness and l1 norm, is checked by the fit, which knows `M`), then the LP
    /// backend's own `check()`.
    ///
    /// # Errors
    /// [`GopError::Core`] with [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
    /// naming the first value out of its range (`threads` above
    /// [`bl_core::limits::MAX_THREADS`] included), or the backend's refusal.
    fn check(&self) -> Result<GopValidParams, GopError> {
        count_in("k", self.k, 2, MAX_COMPONENTS)?;
        positive("budget", self.budget)?;
        self.iteration.check()?;
        // The gap tolerance is strictly positive (a float gap may never reach 0).
        positive("tol", self.iteration.tol)?;
        at_least("max_nodes", self.max_nodes, 1)?;
        in_range("filter_tol", self.filter_tol, 0.0, 1e-3)?;
        in_range("cell_slack", self.cell_slack, 0.0, 1e-3)?;
        self.lp_solver.check()?;
        Ok(GopValidParams {
            params: self.clone(),
        })
    }
}
