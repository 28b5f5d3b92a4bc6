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
//! | `max_iter` | `1000` | stop after this many sweeps | `>= 1` |
//! | `tol` | `1e-6` | stop when one sweep raises the objective by at most `tol * |f|` | finite, `>= 0` |
//! | `time_limit` | `None` | stop after the sweep that passes this wall-clock time | any |
//! | `threads` | `None` = rayon's global pool | threads of the fit: the parallel sweeps on a sparse `C` (levels, colour classes), forming `C = G G^T` or `W`, the rounding (the certificate's eigendecomposition runs on one thread); the result does not depend on it | `1 ..= 1024` |
//! | `trace` | `true` | keep every sweep in the report's trace | |
//! | `trials` | `100` | random hyperplanes tried by the rounding | `1 ..= 2^32`, and `trials x rank <= 2^32` |
//! | `seed` | `0` | seeds the initial `V`, the sweep orders and the hyperplanes | any |
//! | `order` | [`Cyclic`] | order of the coordinates within a sweep, any `Arc<dyn` [`SweepOrder`]`>` (built in: [`Cyclic`], [`crate::RandomPermutation`], [`crate::Colored`]) | its own [`check`](bl_core::Extension::check); every order must pass [`crate::conformance::sweep_order::conformance`] |
//! | `low_rank` | [`LowRankMode::Auto`] | how `C = G G^T` is handled | |
//! | `sparse_sweep` | [`SparseSweep::Levels`] | how the cyclic sweep over a sparse `C` runs (`Levels`, `Sequential`: the same iterates; `LevelsF32Gather`: `f32` gathers) | |
//! | `local_search` | `true` | 1-flip local search after rounding | |
//! | `certify` | `false` | also compute the certified dual bound ([`crate::Problem::dual_bound`], `O(n^3)`) | `n <= 4096` when on |

use std::sync::Arc;

use bl_core::IterationParams;
use bl_core::params::{self, ParamGuard};
use serde::{Deserialize, Serialize};

use crate::error::MaxcutError;
use crate::sweep_order::{Cyclic, SweepOrder};

/// How a structured cost is handled: an implicit low-rank `C = G G^T` (`G` of size
/// `n x m`) or a sparse `C` (e.g. [`crate::Problem::maxcut`]).
///
/// A sweep over a dense `n x n` matrix costs `2 n^2 k` flops in blocked matrix products;
/// the implicit sweep keeps `W = G^T V^T` (`m x k`) up to date and costs about
/// `4 n m k` flops, and forming `C` once costs one `n x m x n` matrix product (fast,
/// blocked, multi-threaded). A sparse sweep costs `2 nnz k` flops, gathered from
/// scattered columns of `V`: slower per flop, so on dense graphs the dense sweep wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum LowRankMode {
    /// Form `C = G G^T` explicitly when `2 m >= n` and `n <= 4096` (then a dense sweep
    /// is cheaper than an implicit one and the product is paid back within a few
    /// sweeps; the cap keeps `C` within 128 MiB); otherwise stay implicit. Form a sparse
    /// `C` when `n <= 4096` and at least [`SPARSE_FORM_DENSITY`] of its off-diagonal
    /// entries are nonzero.
    #[default]
    Auto,
    /// Never form `C`: sweeps cost `O(n m k)` through `W = G^T V^T`, or `O(nnz k)` on
    /// the sparse `C`.
    Implicit,
    /// Always form the dense `n x n` matrix `C` first (`n^2` doubles).
    Formed,
}

/// How the cyclic sweep ([`Cyclic`]) over a sparse `C` runs. [`SparseSweep::Levels`] and
/// [`SparseSweep::Sequential`] compute the same iterates, bit for bit, as the sequential
/// sweep of Alg. 1 of Wang, Chang, Kolter (2017), and differ in speed only;
/// [`SparseSweep::LevelsF32Gather`] rounds the gathered columns to `f32`. Orders that are
/// not the identity ([`crate::RandomPermutation`], [`crate::Colored`], user orders whose
/// [`SweepOrder::is_identity`] is `false`) ignore this setting, and so does a sparse `C`
/// that is formed densely ([`LowRankMode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SparseSweep {
    /// Dependency levels: the update of `v_i` needs the new `v_j` of its neighbours
    /// `j < i` only, so the vertices are grouped into levels (`0` without a lower-index
    /// neighbour, else one more than the highest such neighbour) and each level, whose
    /// vertices share no edge, is updated at once on the current rayon pool. `V` is kept
    /// sorted by level during the sweeps (a reordering of its columns, undone by
    /// [`crate::Mixing::v`]).
    #[default]
    Levels,
    /// One vertex after the other in index order, on one thread, `V` in natural order.
    Sequential,
    /// [`SparseSweep::Levels`], gathering the neighbour columns from an `f32` copy of `V`
    /// (half the bytes; the sweep on a large sparse graph is bound by those reads).
    /// Products and sums stay in `f64`, `V` stays `f64` and authoritative, and each new
    /// column is written to both. The iterates differ from the paper's by the `f32`
    /// rounding of the gathered columns (`f32` has a relative precision of `6e-8`); the
    /// SDP value reached at the stop rule agrees with [`SparseSweep::Levels`] to `1e-6`
    /// relative (tested; about `2e-12` measured on the paper's two graphs).
    /// Deterministic for any number of threads. Costs `4 n k` more bytes (the copy).
    LevelsF32Gather,
}

/// Largest `n` for which [`LowRankMode::Auto`] forms `C = G G^T` (or a sparse `C`)
/// densely.
pub const AUTO_FORM_MAX_N: usize = 4096;

/// Fraction of nonzero off-diagonal entries from which [`LowRankMode::Auto`] forms a
/// sparse `C` densely (when `n <= AUTO_FORM_MAX_N`): above it the blocked dense sweep
/// is faster than the sparse one (measured: `docs/measurements/maxcut-mixing.md`, Table 3).
pub const SPARSE_FORM_DENSITY: f64 = 0.25;

/// Hyperparameters of the mixing method and the rounding: `fit` a [`crate::Problem`]
/// (through [`bl_core::Fit`]) to get a [`crate::FittedMixing`]. Their checked form
/// ([`MixingValidParams`]) is also the built-in [`crate::BooleanQpSolver`] of
/// [`crate::BqpParams`], which fits a [`crate::BooleanQp`].
///
/// Build with [`MixingParams::default`] and the chainable setters (unchecked);
/// [`ParamGuard::check`] validates them into [`MixingValidParams`], which every fit does
/// first. The iteration knobs (`max_iter`: sweeps, `tol`, `time_limit`, `threads`,
/// `trace`) are those of [`IterationParams`], set by the same setters as in every crate.
///
/// ```
/// use std::sync::Arc;
/// use maxcut_sdp::{MixingParams, ParamGuard, RandomPermutation};
/// let params = MixingParams::default()
///     .tol(1e-4)
///     .max_iter(200)
///     .trials(50)
///     .seed(7)
///     .order(Arc::new(RandomPermutation));
/// let checked = params.check()?;
/// assert_eq!(checked.trials(), 50);
/// assert_eq!(checked.iteration().max_iter, 200);
/// assert!(MixingParams::default().trials(0).check().is_err());
/// # Ok::<(), maxcut_sdp::MaxcutError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MixingParams {
    rank: Option<usize>,
    iteration: IterationParams,
    trials: usize,
    seed: u64,
    order: Arc<dyn SweepOrder>,
    low_rank: LowRankMode,
    local_search: bool,
    certify: bool,
    sparse_sweep: SparseSweep,
}

/// The paper's stop rule: at most 1000 sweeps, stop when one sweep raises the objective
/// by at most `1e-6 |f|`.
pub const DEFAULT_ITERATION: IterationParams = IterationParams::new(1000, 1e-6);

impl Default for MixingParams {
    fn default() -> Self {
        Self {
            rank: None,
            iteration: DEFAULT_ITERATION,
            trials: 100,
            seed: 0,
            order: Arc::new(Cyclic),
            low_rank: LowRankMode::Auto,
            local_search: true,
            certify: false,
            sparse_sweep: SparseSweep::Levels,
        }
    }
}

impl MixingParams {
    /// The preset for **max-cut**: the defaults with [`certify`](Self::certify) on, so
    /// that the cut comes with its rigorous weak-duality bound (a fit of `n > 4096` nodes
    /// is then [`MaxcutError::TooLargeForExact`]; turn `certify` off there). What the
    /// Python package's `bilinear.maxcut` starts from.
    #[must_use]
    pub fn max_cut() -> Self {
        Self::default().certify(true)
    }

    /// Sets the rank `k` (rows of `V`); `None` means `ceil(sqrt(2 n))`. Either is capped
    /// at `n`.
    #[must_use]
    pub fn rank(mut self, rank: impl Into<Option<usize>>) -> Self {
        self.rank = rank.into();
        self
    }
}

bl_core::params::knobs! {
    MixingParams => MixingValidParams in params;
    /// The iteration knobs: `max_iter` counts sweeps (default 1000, `>= 1`); `tol` is
    /// relative, stop when one sweep raises the objective by at most `tol * |f|` (default
    /// `1e-6`, finite and `>= 0`); `time_limit`, `threads`, `trace`.
    ..iteration;
    /// The number of random hyperplanes tried by the rounding (default 100, in
    /// `1 ..= 2^32`; the rounding further refuses `trials x rank > 2^32`).
    trials: usize;
    /// The seed of every random choice: initial `V`, sweep orders, hyperplanes (default 0).
    seed: u64;
    /// How an implicit `C = G G^T`, or a sparse `C`, is handled (ignored for dense `C`;
    /// default [`LowRankMode::Auto`]): [`LowRankMode::Implicit`] keeps a sparse `C` sparse,
    /// [`LowRankMode::Formed`] forms it densely, [`LowRankMode::Auto`] forms it when at
    /// least [`SPARSE_FORM_DENSITY`] of the off-diagonal entries are nonzero and
    /// `n <= AUTO_FORM_MAX_N`. The iterates are the same up to rounding either way.
    low_rank: LowRankMode;
    /// Whether the 1-flip local search runs after the rounding (default on).
    local_search: bool;
    /// Whether the certified dual bound in [`crate::MixingInfo::certified_bound`] is
    /// computed (default off; one dense symmetric eigenvalue problem of size `n`, `O(n^3)`;
    /// only for `n <= 4096`).
    certify: bool;
    /// How the cyclic sweep over a sparse `C` runs ([`SparseSweep`], default
    /// [`SparseSweep::Levels`]).
    sparse_sweep: SparseSweep;
    /// The coordinate order within a sweep (default [`Cyclic`]): a built-in ([`Cyclic`],
    /// [`crate::RandomPermutation`], [`crate::Colored`]) or any type implementing
    /// [`SweepOrder`] (see [`crate::conformance::sweep_order::conformance`]).
    order: &Arc<dyn SweepOrder>;
}

/// Two parameter sets are equal when every value is, and their sweep orders have the
/// same [`Extension::name`](bl_core::Extension::name) and [`SweepOrder::is_identity`].
impl PartialEq for MixingParams {
    fn eq(&self, other: &Self) -> bool {
        self.rank == other.rank
            && self.iteration == other.iteration
            && self.trials == other.trials
            && self.seed == other.seed
            && self.order.name() == other.order.name()
            && self.order.is_identity() == other.order.is_identity()
            && self.low_rank == other.low_rank
            && self.local_search == other.local_search
            && self.certify == other.certify
            && self.sparse_sweep == other.sparse_sweep
    }
}

/// [`MixingParams`] after [`ParamGuard::check`]: every value is in its valid range. Read
/// with one getter per field.
#[derive(Debug, Clone)]
pub struct MixingValidParams {
    params: MixingParams,
}

impl ParamGuard for MixingParams {
    type Checked = MixingValidParams;
    type Error = MaxcutError;

    /// Checks every parameter against its valid range, and the sweep order's own
    /// settings ([`Extension::check`](bl_core::Extension::check)).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (as [`MaxcutError::Core`]) naming the first
    /// parameter out of range (`trials` must be in `1 ..= 2^32`; the rounding further
    /// refuses `trials x rank > 2^32` values before drawing them).
    fn check(&self) -> Result<MixingValidParams, MaxcutError> {
        if let Some(rank) = self.rank {
            params::at_least("rank", rank, 1)?;
        }
        self.iteration.check()?;
        params::count_in("trials", self.trials, 1, bl_core::limits::MAX_ELEMENTS)?;
        self.order.check()?;
        Ok(MixingValidParams::from_builder(self))
    }
}

impl Default for MixingValidParams {
    /// The checked form of [`MixingParams::default`] (valid by construction).
    fn default() -> Self {
        Self::from_builder(&MixingParams::default())
    }
}

impl MixingValidParams {
    /// The values of `params`, unchecked: only for values already checked.
    fn from_builder(params: &MixingParams) -> Self {
        Self {
            params: params.clone(),
        }
    }

    bl_core::params::getters! {
        in params;
        /// The requested rank (`None`: automatic).
        rank: Option<usize>;
    }

    /// The rank used for a problem with `n` variables: the requested rank or
    /// `ceil(sqrt(2 n))`, capped at `n` (at least 1).
    pub fn rank_for(&self, n: usize) -> usize {
        match self.params.rank {
            Some(k) => k.clamp(1, n.max(1)),
            None => auto_rank(n),
        }
    }
}

/// `ceil(sqrt(2 n))` capped at `n`, at least 1: the rank above which the factorized
/// problem has no spurious local optima for almost every `C` (the Barvinok–Pataki
/// bound, as used by Wang et al. 2017).
///
/// Defined for every `n` (the arithmetic is done in `u128`, so `n = usize::MAX` does not
/// overflow).
pub fn auto_rank(n: usize) -> usize {
    let target = 2 * n as u128;
    let mut k = (target as f64).sqrt().ceil() as u128;
    // Guard against floating-point error in the square root.
    while k > 1 && (k - 1) * (k - 1) >= target {
        k -= 1;
    }
    while k * k < target {
        k += 1;
    }
    usize::try_from(k).unwrap_or(usize::MAX).clamp(1, n.max(1))
}
