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
//! | `k` | required | number of components `K` | `2..=12` |
//! | `budget` | required | l1 budget `P` on `x` | finite, `> 0` |
//! | `eps` | `0.01` | stop when `PUBD - RLBD <= eps` (absolute gap) | finite, `> 0` |
//! | `max_iter` | `1000` | iterations (node expansions) | `>= 1` |
//! | `time_limit` | none | wall-clock limit | any |
//! | `max_nodes` | `200_000` | nodes the tree may hold | `>= 1` |
//! | `seed` | `0` | seeds the random starting point | any |
//! | `threads` | `0` | worker threads for the LPs (`0` = one per core) | any |
//! | `initial_x` | random in the ball | starting `x` (`M x K`, column-major) | finite, `sum |x| <= P` |
//! | `filter_tol` | `1e-9` | relative tolerance for zero / duplicate hyperplanes | `[0, 1e-3]` |
//! | `cell_slack` | `1e-9` | smallest interior-point slack of a cell, relative to `P` | `[0, 1e-3]` |
//! | `rank_shortcut` | `true` | skip the cell LPs when all sign vectors are provably cells | |
//! | `linearization` | `Product` | how the Lagrangian is linearized: `Product` (tangent in `x theta`, a valid bound) or `Paper` (eqs. (6)-(8) as printed; not a valid bound in general) | |
//! | `nonnegative_bound` | `false` | add `Q >= 0` to every relaxed dual (valid: the objective is a sum of squares); `false` leaves `Q` free, as the paper's relaxed dual does | |
//! | `tangent_cone_cells` | `true` | enumerate cells in the tangent cone at `x^t`, block by block, when `x^t` is inside the region (small LPs); else on the whole region | |

use std::time::Duration;

use crate::error::{GopError, Result};
use crate::lagrangian::Linearization;
use crate::primal::MAX_COMPONENTS;

/// Hyperparameters of [`GopParams::fit`]. Build with [`GopParams::new`] and the chainable
/// setters; [`GopParams::check`] validates (the fit calls it).
///
/// ```
/// use gop_mmf::GopParams;
/// let params = GopParams::new(2, 1.0).eps(1e-3).max_iter(50).seed(3).threads(1);
/// assert!(params.check().is_ok());
/// assert!(GopParams::new(1, 1.0).check().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
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
}

impl GopParams {
    /// Parameters for `K = k` components and l1 budget `P = budget`, other values default.
    #[must_use]
    pub fn new(k: usize, budget: f64) -> Self {
        Self {
            k,
            budget,
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
        }
    }

    /// Sets the absolute gap tolerance `eps`.
    #[must_use]
    pub fn eps(mut self, eps: f64) -> Self {
        self.eps = eps;
        self
    }

    /// Sets the iteration budget.
    #[must_use]
    pub fn max_iter(mut self, max_iter: usize) -> Self {
        self.max_iter = max_iter;
        self
    }

    /// Sets a wall-clock limit.
    #[must_use]
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Sets the largest number of tree nodes.
    #[must_use]
    pub fn max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes;
        self
    }

    /// Sets the seed of the random starting point.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the number of worker threads (`0` = one per core).
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the starting `x` (`M x K`, column-major: entry `(j, k)` at `k * M + j`).
    #[must_use]
    pub fn initial_x(mut self, x: Vec<f64>) -> Self {
        self.initial_x = Some(x);
        self
    }

    /// Sets the relative filtering tolerance.
    #[must_use]
    pub fn filter_tol(mut self, tol: f64) -> Self {
        self.filter_tol = tol;
        self
    }

    /// Sets the smallest cell slack (relative to `P`).
    #[must_use]
    pub fn cell_slack(mut self, slack: f64) -> Self {
        self.cell_slack = slack;
        self
    }

    /// Enables or disables the rank shortcut of the cell enumeration.
    #[must_use]
    pub fn rank_shortcut(mut self, on: bool) -> Self {
        self.rank_shortcut = on;
        self
    }

    /// Enables or disables the tangent-cone cell enumeration (see
    /// [`crate::arrangement`]); when off, every node's cells are found by the walk on its
    /// whole region (the slower reference path).
    #[must_use]
    pub fn tangent_cone_cells(mut self, on: bool) -> Self {
        self.tangent_cone_cells = on;
        self
    }

    /// Sets the linearization of the Lagrangian ([`Linearization`]).
    #[must_use]
    pub fn linearization(mut self, linearization: Linearization) -> Self {
        self.linearization = linearization;
        self
    }

    /// Adds (`true`) or leaves out (`false`, the default, as in the paper's relaxed dual)
    /// the row `Q >= 0` of the relaxed duals. Without it the lower bound may be negative
    /// (as in the paper's Fig. 3). With it every bound below 0 is lifted to 0, so nodes tie
    /// at 0 and best-first selection degrades to oldest-first: on the Sec. 5.1 instance the
    /// median number of iterations over 20 starts rises from 5 to 21.
    #[must_use]
    pub fn nonnegative_bound(mut self, on: bool) -> Self {
        self.nonnegative_bound = on;
        self
    }

    /// Number of components `K`.
    #[must_use]
    pub fn k(&self) -> usize {
        self.k
    }

    /// The l1 budget `P`.
    #[must_use]
    pub fn budget(&self) -> f64 {
        self.budget
    }

    /// The gap tolerance `eps`.
    #[must_use]
    pub fn gap_tolerance(&self) -> f64 {
        self.eps
    }

    /// Checks every value against the table in the module docs (shapes of `initial_x` are
    /// checked by the fit, which knows `M`).
    ///
    /// # Errors
    /// [`GopError::InvalidParameter`] naming the first bad value.
    pub fn check(&self) -> Result<()> {
        let bad = |name: &'static str, value: String, expected: &'static str| {
            Err(GopError::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        if self.k < 2 || self.k > MAX_COMPONENTS {
            return bad("k", self.k.to_string(), "between 2 and 12");
        }
        if !(self.budget.is_finite() && self.budget > 0.0) {
            return bad("budget", self.budget.to_string(), "finite and > 0");
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return bad("eps", self.eps.to_string(), "finite and > 0");
        }
        if self.max_iter == 0 {
            return bad("max_iter", "0".into(), ">= 1");
        }
        if self.max_nodes == 0 {
            return bad("max_nodes", "0".into(), ">= 1");
        }
        if !(0.0..=1e-3).contains(&self.filter_tol) {
            return bad("filter_tol", self.filter_tol.to_string(), "in [0, 1e-3]");
        }
        if !(0.0..=1e-3).contains(&self.cell_slack) {
            return bad("cell_slack", self.cell_slack.to_string(), "in [0, 1e-3]");
        }
        Ok(())
    }
}
