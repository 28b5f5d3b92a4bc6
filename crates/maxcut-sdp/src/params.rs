//! Hyperparameters of the mixing method and the rounding.
//!
//! The mixing method (Wang, Chang, Kolter 2017, Alg. 1) solves the SDP
//!
//! ```text
//! maximize <C, Y>  subject to  diag(Y) = 1,  Y psd                    (1)
//! ```
//!
//! through the low-rank factorization `Y = V^T V`, `V` of size `k x n` with unit
//! columns, by cyclic coordinate updates `v_i <- g_i / ||g_i||`,
//! `g_i = sum_{j != i} C_ij v_j` (their eq. (4), written for maximization).
//!
//! | name | default | meaning | valid range |
//! |---|---|---|---|
//! | `rank` | `None` = `ceil(sqrt(2 n))` | `k`, rows of `V`; capped at `n` (rank `n` already reaches every feasible `Y`) | `>= 1` |
//! | `tol` | `1e-6` | stop when one sweep raises the objective by at most `tol * |f|` | finite, `>= 0` |
//! | `max_sweeps` | `1000` | stop after this many sweeps | `>= 1` |
//! | `trials` | `100` | random hyperplanes tried by the rounding | `>= 1` |
//! | `seed` | `0` | seeds the initial `V`, the sweep orders and the hyperplanes | any |
//! | `order` | [`Order::Cyclic`] | order of the coordinates within a sweep | |
//! | `low_rank` | [`LowRankMode::Auto`] | how `C = G G^T` is handled | |
//! | `local_search` | `true` | 1-flip local search after rounding | |
//! | `certify` | `false` | also compute the certified dual bound ([`crate::Problem::dual_bound`], `O(n^3)`) | `n <= 4096` when on |

use serde::{Deserialize, Serialize};

use crate::error::{MaxcutError, Result};

/// Order in which the coordinates `v_1, ..., v_n` are updated within one sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Order {
    /// `0, 1, ..., n - 1` in every sweep (the paper's Alg. 1).
    #[default]
    Cyclic,
    /// A fresh uniformly random permutation in every sweep (seeded).
    RandomPermutation,
}

/// How an implicit low-rank cost `C = G G^T` (`G` of size `n x m`) is handled.
///
/// A sweep over a dense `n x n` matrix costs `2 n^2 k` flops; the implicit sweep keeps
/// `W = G^T V^T` (`m x k`) up to date and costs about `4 n m k` flops, and forming
/// `C` once costs one `n x m x n` matrix product (fast, blocked, multi-threaded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LowRankMode {
    /// Form `C = G G^T` explicitly when `2 m >= n` and `n <= 4096` (then a dense sweep
    /// is cheaper than an implicit one and the product is paid back within a few
    /// sweeps; the cap keeps `C` under 128 MiB); otherwise stay implicit.
    #[default]
    Auto,
    /// Never form `C`: sweeps cost `O(n m k)` through `W = G^T V^T`.
    Implicit,
    /// Always form the dense `n x n` matrix `C = G G^T` first.
    Formed,
}

/// Largest `n` for which [`LowRankMode::Auto`] forms `C = G G^T` densely.
pub const AUTO_FORM_MAX_N: usize = 4096;

/// Hyperparameters of [`crate::Problem::solve`] and [`crate::BooleanQp::solve`].
///
/// Build with [`MixingParams::default`] and the chainable setters; every setter takes and
/// returns `self`. Values are validated by [`MixingParams::check`], which the solvers call.
///
/// ```
/// use maxcut_sdp::{MixingParams, Order};
/// let params = MixingParams::default().tol(1e-4).trials(50).seed(7).order(Order::RandomPermutation);
/// assert!(params.check().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixingParams {
    rank: Option<usize>,
    tol: f64,
    max_sweeps: usize,
    trials: usize,
    seed: u64,
    order: Order,
    low_rank: LowRankMode,
    local_search: bool,
    certify: bool,
}

impl Default for MixingParams {
    fn default() -> Self {
        Self {
            rank: None,
            tol: 1e-6,
            max_sweeps: 1000,
            trials: 100,
            seed: 0,
            order: Order::Cyclic,
            low_rank: LowRankMode::Auto,
            local_search: true,
            certify: false,
        }
    }
}

impl MixingParams {
    /// Sets the rank `k` (rows of `V`); `None` means `ceil(sqrt(2 n))`. Either is capped
    /// at `n`.
    #[must_use]
    pub fn rank(mut self, rank: impl Into<Option<usize>>) -> Self {
        self.rank = rank.into();
        self
    }

    /// Sets the relative tolerance on the objective increase of one sweep.
    #[must_use]
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }

    /// Sets the maximum number of sweeps.
    #[must_use]
    pub fn max_sweeps(mut self, max_sweeps: usize) -> Self {
        self.max_sweeps = max_sweeps;
        self
    }

    /// Sets the number of random hyperplanes tried by the rounding.
    #[must_use]
    pub fn trials(mut self, trials: usize) -> Self {
        self.trials = trials;
        self
    }

    /// Sets the seed of every random choice (initial `V`, sweep orders, hyperplanes).
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the coordinate order within a sweep.
    #[must_use]
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Sets how an implicit `C = G G^T` is handled (ignored for dense and sparse `C`).
    #[must_use]
    pub fn low_rank(mut self, mode: LowRankMode) -> Self {
        self.low_rank = mode;
        self
    }

    /// Turns the 1-flip local search after the rounding on or off.
    #[must_use]
    pub fn local_search(mut self, on: bool) -> Self {
        self.local_search = on;
        self
    }

    /// Turns on the certified dual bound in [`crate::MixingInfo::certified_bound`] (one
    /// dense symmetric eigenvalue problem of size `n`, `O(n^3)`; only for `n <= 4096`).
    #[must_use]
    pub fn certify(mut self, on: bool) -> Self {
        self.certify = on;
        self
    }

    /// The requested rank (`None`: automatic).
    pub fn get_rank(&self) -> Option<usize> {
        self.rank
    }

    /// The relative tolerance.
    pub fn get_tol(&self) -> f64 {
        self.tol
    }

    /// The maximum number of sweeps.
    pub fn get_max_sweeps(&self) -> usize {
        self.max_sweeps
    }

    /// The number of rounding trials.
    pub fn get_trials(&self) -> usize {
        self.trials
    }

    /// The seed.
    pub fn get_seed(&self) -> u64 {
        self.seed
    }

    /// The coordinate order.
    pub fn get_order(&self) -> Order {
        self.order
    }

    /// The low-rank handling.
    pub fn get_low_rank(&self) -> LowRankMode {
        self.low_rank
    }

    /// Whether the 1-flip local search runs.
    pub fn get_local_search(&self) -> bool {
        self.local_search
    }

    /// Whether the certified dual bound is computed.
    pub fn get_certify(&self) -> bool {
        self.certify
    }

    /// The rank used for a problem with `n` variables: the requested rank or
    /// `ceil(sqrt(2 n))`, capped at `n` (at least 1).
    pub fn rank_for(&self, n: usize) -> usize {
        match self.rank {
            Some(k) => k.clamp(1, n.max(1)),
            None => auto_rank(n),
        }
    }

    /// Checks every parameter against its valid range.
    ///
    /// # Errors
    /// [`MaxcutError::InvalidParameter`] naming the first parameter out of range.
    pub fn check(&self) -> Result<()> {
        if self.rank == Some(0) {
            return Err(invalid("rank", "0", ">= 1 (or None for ceil(sqrt(2 n)))"));
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return Err(invalid("tol", &self.tol.to_string(), "finite and >= 0"));
        }
        if self.max_sweeps == 0 {
            return Err(invalid("max_sweeps", "0", ">= 1"));
        }
        if self.trials == 0 {
            return Err(invalid("trials", "0", ">= 1"));
        }
        Ok(())
    }
}

/// `ceil(sqrt(2 n))` capped at `n`, at least 1: the rank above which the factorized
/// problem has no spurious local optima for almost every `C` (the Barvinok–Pataki
/// bound, as used by Wang et al. 2017).
pub fn auto_rank(n: usize) -> usize {
    let target = 2 * n;
    let mut k = (target as f64).sqrt().ceil() as usize;
    // Guard against floating-point error in the square root.
    while k > 1 && (k - 1) * (k - 1) >= target {
        k -= 1;
    }
    while k * k < target {
        k += 1;
    }
    k.clamp(1, n.max(1))
}

fn invalid(name: &'static str, value: &str, expected: &'static str) -> MaxcutError {
    MaxcutError::InvalidParameter {
        name,
        value: value.to_string(),
        expected,
    }
}
