//! Hyperparameters of (sparse) bilinear logistic regression.
//!
//! The problem (Shi, Xu, Baraniuk 2014, eqs. (3)-(5)):
//!
//! ```text
//! min_{U, V, b}  (1/n) sum_i log(1 + exp(-y_i (tr(U^T X_i V) + b)))
//!                + mu1 |U|_1 + mu2/2 ||U||_F^2 + nu1 |V|_1 + nu2/2 ||V||_F^2
//! ```
//!
//! with `U` of shape `s x r` and `V` of shape `t x r`. All penalties zero gives plain
//! bilinear logistic regression (BLR), one of the paper's baselines.
//!
//! | name | default | meaning | valid range |
//! |---|---|---|---|
//! | `rank` | 1 | `r`, columns of `U` and `V` | `1..=min(s, t)` (checked at fit) |
//! | `mu1`, `nu1` | 0.01 | l1 weights on `U`, `V` | `>= 0` |
//! | `mu2`, `nu2` | 0.5 | squared-l2 weights on `U`, `V` | `>= 0` |
//! | `solver` | [`Solver::Alg2`] | block coordinate proximal descent (Alg. 2) or exact block coordinate descent (Alg. 1) | |
//! | `l_min` | 1e-3 | `L_min` of the step rule (13)/(15) | `[1e-10, 1]` ([`L_MIN_RANGE`]) |
//! | `eta` | 2 | growth factor `eta` of the step rule | `[1.5, 10]` ([`ETA_RANGE`]) |
//! | `max_iter` | 500 | outer iterations | `>= 1` |
//! | `tol` | 1e-3 | stop when `q^k <= tol` (eq. (8)) | `>= 0` |
//! | `stop` | [`StopCriterion::Eq8`] | which `q^k` (eq. (8) by default) | |
//! | `init` | [`Init::MeanSvd`] | starting point (Sec. 7.1) | |
//! | `seed` | 0 | seed of [`Init::Random`] | any |
//! | `inner_tol` | 1e-6 | Alg. 1: relative tolerance of each block solve | `> 0` |
//! | `inner_max_iter` | 5000 | Alg. 1: iteration budget of each block solve | `>= 1` |
//! | `time_limit` | none | wall-clock limit of a fit | any |
//! | `threads` | none | threads of the two data passes per iteration; none = rayon's global pool | `1 ..= 1024` |
//!
//! The two data passes of an iteration (`X_i V` and `U^T X_i` for every sample) are split
//! over samples across threads. Each sample's result is computed by one thread in a fixed
//! order, so a fit gives bit-identical results for any number of threads.
//!
//! The defaults of `mu1, mu2, nu1, nu2` are the regularized setting of the paper's Fig. 3.
//!
//! The paper only asks `L_min > 0` and `eta > 1` (Sec. 3, after eq. (13)). The bounds here
//! keep the step rule meaningful in floating point and within the search's budget of
//! [`crate::block::MAX_TRIALS`] = 100 trials per step:
//!
//! - the step is `1/L` with `L >= L_min`, so `L_min` caps the longest step (below `1e-10`
//!   a step on a flat loss can overflow). An `L_min` above the block's Lipschitz constant
//!   shortens every step, and a large floor is never needed (the search raises `L`
//!   itself). The curvature of the mean logistic loss along the intercept,
//!   `(1/n) sum_i p_i (1 - p_i)`, is at most 1/4 whatever the data, so a floor above 1
//!   would keep every intercept step at least 4 times shorter than the loss allows: hence
//!   the cap 1 (with `L_min = 1e3` a fit on unit-scale data barely moves in 300
//!   iterations);
//! - the search multiplies `L` by `eta` until the decrease test holds: an accepted `L` can
//!   exceed the smallest sufficient one by a factor `eta` (hence the cap 10), and 100
//!   trials span a factor `eta^100` (`4e17` for `eta = 1.5`, hence the floor 1.5: the first
//!   step starts at `L = L_min` and must reach the block's Lipschitz constant; with
//!   `eta = 1.001` the search gives up after raising `L` by 10%).
//!
//! With `L_min = 1e300` or `eta = 1e300` the first steps are so short that the objective
//! does not move and the fit would stop at once reporting convergence; such values are
//! rejected.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use bl_core::engine::IterationParams;
use bl_core::error::ensure_finite;
use bl_core::params::{self, ParamGuard};

use crate::block::{BlockUpdate, ExactBlockSolve, ProxLinearStep};
use crate::error::{Result, SblrError};

/// Which algorithm solves the biconvex problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Solver {
    /// Algorithm 2: per iteration one proximal-linear step on `(U, b)` then one on
    /// `(V, b)`, step sizes by backtracking (13)-(16).
    #[default]
    Alg2,
    /// Algorithm 1: exact block coordinate descent; each block (6a)/(6b) is a convex
    /// elastic-net logistic regression solved by FISTA to `inner_tol`.
    Alg1,
}

/// The stopping quantity `q^k` compared with `tol`.
///
/// The default is the paper's eq. (8) (Shi, Xu, Baraniuk 2014, Sec. 3.2), with
/// `W^k = (U^k, V^k, b^k)`, `||W||_F^2 = ||U||_F^2 + ||V||_F^2 + b^2` and `F^k` the
/// objective of (4):
///
/// ```text
/// q^k = max( ||W^k - W^{k-1}||_F / (1 + ||W^{k-1}||_F),  |F^k - F^{k-1}| / (1 + F^{k-1}) )
/// ```
///
/// The two single-term criteria are kept as options; both use `max(1, .)` denominators.
/// The multinomial model (Alg. 3) uses the same quantities over `(U_1..U_m, V_1..V_m, b)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum StopCriterion {
    /// Eq. (8): the larger of the relative iterate change and the relative objective
    /// change, each with a `1 +` denominator.
    #[default]
    Eq8,
    /// `|F^k - F^{k-1}| / max(1, |F^{k-1}|)` (`bl_core::engine::relative_change`).
    ObjectiveChange,
    /// `||(U, V, b)^k - (U, V, b)^{k-1}||_F / max(1, ||(U, V, b)^{k-1}||_F)`
    /// (`bl_core::engine::relative_change_blocks`).
    IterateChange,
}

impl StopCriterion {
    /// `q^k` from the blocks `(previous, current)` of the iterate (together they hold each
    /// of `U`, `V` and `b` once) and the objectives `F^{k-1}`, `F^k`. NaN if any input
    /// is NaN.
    #[must_use]
    pub fn quantity(self, blocks: &[(&[f64], &[f64])], f_prev: f64, f_new: f64) -> f64 {
        match self {
            Self::ObjectiveChange => bl_core::engine::relative_change(f_prev, f_new),
            Self::IterateChange => bl_core::engine::relative_change_blocks(blocks),
            Self::Eq8 => {
                let (mut diff, mut norm) = (0.0, 0.0);
                for (old, new) in blocks {
                    for (&o, &n) in old.iter().zip(new.iter()) {
                        diff += (n - o) * (n - o);
                        norm += o * o;
                    }
                }
                let iterate = diff.sqrt() / (1.0 + norm.sqrt());
                // F >= 0 for (4) and (31), so `1 + |F|` is the paper's `1 + F`.
                let objective = (f_new - f_prev).abs() / (1.0 + f_prev.abs());
                if iterate.is_nan() || objective.is_nan() {
                    f64::NAN
                } else {
                    iterate.max(objective)
                }
            }
        }
    }
}

/// Starting point `(U^0, V^0, b^0)`; `b^0 = 0` except for a warm start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub enum Init {
    /// The paper's initialization (Sec. 7.1): `U^0 = -` the first `r` left and `V^0 =` the
    /// first `r` right singular vectors of the mean sample `(1/n) sum_i X_i`. Singular
    /// vectors are made unique by giving the largest-magnitude entry of each right vector
    /// a positive sign. **Trap:** after per-entry centring of the data the mean sample is
    /// zero up to rounding and this start is noise; use [`Init::LabelWeightedSvd`] then.
    #[default]
    MeanSvd,
    /// `U^0, V^0 =` the first `r` singular vectors of the label-weighted mean
    /// `(1/n) sum_i y_i X_i` (a class contrast, not affected by centring), signed so that
    /// `tr(U^0^T M V^0) > 0`, i.e. the start already scores the positive class higher.
    LabelWeightedSvd,
    /// Independent `N(0, 1/s)` entries in `U^0` and `N(0, 1/t)` in `V^0`, seeded by `seed`.
    Random,
    /// A given start, e.g. from a fitted model ([`crate::FittedSblr::warm_start`]).
    Warm {
        /// `U^0`, `s x r`, column-major.
        u: Vec<f64>,
        /// `V^0`, `t x r`, column-major.
        v: Vec<f64>,
        /// `b^0`.
        intercept: f64,
    },
    /// A given start of the multinomial model, e.g. from a fitted one
    /// ([`crate::FittedMultinomialSblr::warm_start`]); `m` = number of classes - 1.
    WarmMultinomial {
        /// `U_1, ..., U_m`, each `s x r` column-major, class `c` at offset `c s r`.
        u: Vec<f64>,
        /// `V_1, ..., V_m`, each `t x r` column-major, class `c` at offset `c t r`.
        v: Vec<f64>,
        /// `b_1, ..., b_m`.
        intercepts: Vec<f64>,
    },
}

/// A block update shared between clones of the parameters and the solver (a user's, see
/// [`SblrParams::block_update`], or a built-in one).
#[derive(Clone)]
pub struct SharedUpdate(pub(crate) Arc<dyn BlockUpdate + Send + Sync>);

impl std::fmt::Debug for SharedUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedUpdate(..)")
    }
}

impl PartialEq for SharedUpdate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Hyperparameters of SBLR before validation: `SblrParams::default().rank(2)...`, then
/// [`Fit::fit`](bl_core::Fit::fit) (binary model, [`crate::FittedSblr`]) or
/// [`MultinomialParams`](crate::MultinomialParams) (Alg. 3). [`ParamGuard::check`] validates
/// every field and returns [`SblrValidParams`].
///
/// See the [module documentation](self) for the table of parameters. Serializes with the
/// field names of the table; a custom block update is not serialized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SblrParams {
    pub(crate) rank: usize,
    pub(crate) mu1: f64,
    pub(crate) mu2: f64,
    pub(crate) nu1: f64,
    pub(crate) nu2: f64,
    pub(crate) solver: Solver,
    pub(crate) l_min: f64,
    pub(crate) eta: f64,
    pub(crate) max_iter: usize,
    pub(crate) tol: f64,
    pub(crate) stop: StopCriterion,
    pub(crate) init: Init,
    pub(crate) seed: u64,
    pub(crate) inner_tol: f64,
    pub(crate) inner_max_iter: usize,
    pub(crate) time_limit: Option<Duration>,
    #[serde(default)]
    pub(crate) threads: Option<usize>,
    #[serde(skip)]
    pub(crate) block_update: Option<SharedUpdate>,
}

/// Checked hyperparameters of SBLR, built by [`ParamGuard::check`] on [`SblrParams`] (the
/// fields are read through [`Deref`](std::ops::Deref) to it).
///
/// Deserializing (by any serde format) runs the same checks, so a `SblrValidParams` is
/// always valid.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "SblrParams", into = "SblrParams")]
pub struct SblrValidParams(SblrParams);

impl TryFrom<SblrParams> for SblrValidParams {
    type Error = SblrError;

    fn try_from(raw: SblrParams) -> Result<Self> {
        raw.check()
    }
}

impl From<SblrValidParams> for SblrParams {
    fn from(valid: SblrValidParams) -> Self {
        valid.0
    }
}

impl std::ops::Deref for SblrValidParams {
    type Target = SblrParams;

    fn deref(&self) -> &SblrParams {
        &self.0
    }
}

impl Default for SblrParams {
    fn default() -> Self {
        Self {
            rank: 1,
            mu1: 0.01,
            mu2: 0.5,
            nu1: 0.01,
            nu2: 0.5,
            solver: Solver::Alg2,
            l_min: 1e-3,
            eta: 2.0,
            max_iter: 500,
            tol: 1e-3,
            stop: StopCriterion::Eq8,
            init: Init::MeanSvd,
            seed: 0,
            inner_tol: 1e-6,
            inner_max_iter: 5000,
            time_limit: None,
            threads: None,
            block_update: None,
        }
    }
}

impl SblrValidParams {
    /// Rank `r`.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// Penalties `(mu1, mu2, nu1, nu2)`.
    #[must_use]
    pub fn penalties(&self) -> (f64, f64, f64, f64) {
        (self.mu1, self.mu2, self.nu1, self.nu2)
    }
    /// The built-in algorithm (ignored when a custom block update is set).
    #[must_use]
    pub fn solver(&self) -> Solver {
        self.solver
    }
    /// Whether a custom block update is set ([`SblrParams::block_update`]).
    #[must_use]
    pub fn has_custom_update(&self) -> bool {
        self.block_update.is_some()
    }
    /// `(L_min, eta)` of the step rule.
    #[must_use]
    pub fn step_rule(&self) -> (f64, f64) {
        (self.l_min, self.eta)
    }
    /// `(max_iter, tol, stop criterion)`.
    #[must_use]
    pub fn stopping(&self) -> (usize, f64, StopCriterion) {
        (self.max_iter, self.tol, self.stop)
    }
    /// The initialization.
    #[must_use]
    pub fn init(&self) -> &Init {
        &self.init
    }
    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Alg. 1's block tolerance and budget.
    #[must_use]
    pub fn inner(&self) -> (f64, usize) {
        (self.inner_tol, self.inner_max_iter)
    }
    /// The wall-clock limit, if any.
    #[must_use]
    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit
    }
    /// The thread count of the data passes (`None`: rayon's global pool).
    #[must_use]
    pub fn threads(&self) -> Option<usize> {
        self.threads
    }

    /// The checked parameters as a builder again (to change a field and check anew).
    #[must_use]
    pub fn to_params(&self) -> SblrParams {
        self.0.clone()
    }

    /// The block update a fit runs: the user's ([`SblrParams::block_update`]) if set,
    /// else the built-in one chosen by [`Solver`].
    #[must_use]
    pub fn block_updater(&self) -> SharedUpdate {
        match (&self.block_update, self.solver) {
            (Some(custom), _) => custom.clone(),
            (None, Solver::Alg2) => SharedUpdate(Arc::new(ProxLinearStep {
                l_min: self.l_min,
                eta: self.eta,
            })),
            (None, Solver::Alg1) => SharedUpdate(Arc::new(ExactBlockSolve {
                l_min: self.l_min,
                eta: self.eta,
                tol: self.inner_tol,
                max_iter: self.inner_max_iter,
            })),
        }
    }
}

impl SblrParams {
    /// The engine's stopping rule of the outer iteration.
    pub(crate) fn rule(&self) -> IterationParams {
        IterationParams {
            max_iter: self.max_iter,
            tol: self.tol,
            time_limit: self.time_limit,
            ..IterationParams::default()
        }
    }
}

impl ParamGuard for SblrParams {
    type Checked = SblrValidParams;
    type Error = SblrError;

    /// Validates the data-independent ranges (the rank against the sample shape is
    /// checked at fit time).
    ///
    /// # Errors
    /// `SblrError::Core(BlError::InvalidParameter)` naming the first invalid field:
    /// `rank == 0`, a negative or non-finite penalty, `l_min` outside [`L_MIN_RANGE`],
    /// `eta` outside [`ETA_RANGE`], `max_iter == 0`, a negative `tol`, a bad `inner_tol` /
    /// `inner_max_iter`; `SblrError::Core(BlError::NonFinite)` for a non-finite warm start.
    fn check(&self) -> Result<SblrValidParams> {
        params::at_least("rank", self.rank, 1)?;
        for (name, value) in [
            ("mu1", self.mu1),
            ("mu2", self.mu2),
            ("nu1", self.nu1),
            ("nu2", self.nu2),
        ] {
            params::nonnegative(name, value)?;
        }
        check_step_rule(self.l_min, self.eta)?;
        params::at_least("max_iter", self.max_iter, 1)?;
        params::nonnegative("tol", self.tol)?;
        params::positive("inner_tol", self.inner_tol)?;
        params::at_least("inner_max_iter", self.inner_max_iter, 1)?;
        crate::passes::check_threads(self.threads)?;
        match &self.init {
            Init::Warm { u, v, intercept } => {
                ensure_finite("warm start U", u)?;
                ensure_finite("warm start V", v)?;
                ensure_finite("warm start intercept", &[*intercept])?;
            }
            Init::WarmMultinomial { u, v, intercepts } => {
                ensure_finite("warm start U", u)?;
                ensure_finite("warm start V", v)?;
                ensure_finite("warm start intercepts", intercepts)?;
            }
            Init::MeanSvd | Init::LabelWeightedSvd | Init::Random => {}
        }
        Ok(SblrValidParams(self.clone()))
    }
}

/// The valid range of `L_min` (inclusive), for SBLR and [`crate::LogisticRegression`].
pub const L_MIN_RANGE: (f64, f64) = (1e-10, 1.0);

/// The valid range of the growth factor `eta` (inclusive), for SBLR and
/// [`crate::LogisticRegression`].
pub const ETA_RANGE: (f64, f64) = (1.5, 10.0);

/// `l_min` in [`L_MIN_RANGE`] and `eta` in [`ETA_RANGE`].
pub(crate) fn check_step_rule(l_min: f64, eta: f64) -> Result<()> {
    params::in_range("l_min", l_min, L_MIN_RANGE.0, L_MIN_RANGE.1)?;
    params::in_range("eta", eta, ETA_RANGE.0, ETA_RANGE.1)?;
    Ok(())
}

impl SblrParams {
    /// The defaults of the table above.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
    /// Runs a user's block update in place of the built-in [`Solver`]: each outer
    /// iteration updates `(U, b)` then `(V, b)` with it (eqs. (6a)/(6b) or (7a)-(7d)).
    /// The update must pass [`crate::conformance::check_block_update`].
    #[must_use]
    pub fn block_update(mut self, update: impl BlockUpdate + Send + Sync + 'static) -> Self {
        self.block_update = Some(SharedUpdate(Arc::new(update)));
        self
    }
    /// Sets the rank `r`.
    #[must_use]
    pub fn rank(mut self, rank: usize) -> Self {
        self.rank = rank;
        self
    }
    /// Sets all four penalties `(mu1, mu2, nu1, nu2)` of eq. (5).
    #[must_use]
    pub fn penalties(mut self, mu1: f64, mu2: f64, nu1: f64, nu2: f64) -> Self {
        (self.mu1, self.mu2, self.nu1, self.nu2) = (mu1, mu2, nu1, nu2);
        self
    }
    /// Sets all penalties to zero: unregularized bilinear logistic regression (BLR).
    #[must_use]
    pub fn unregularized(self) -> Self {
        self.penalties(0.0, 0.0, 0.0, 0.0)
    }
    bl_core::params::setters! {
        /// Sets the l1 weight on `U`.
        mu1: f64;
        /// Sets the squared-l2 weight on `U`.
        mu2: f64;
        /// Sets the l1 weight on `V`.
        nu1: f64;
        /// Sets the squared-l2 weight on `V`.
        nu2: f64;
        /// Chooses Alg. 1 or Alg. 2.
        solver: Solver;
        /// Sets `L_min` of the step rule.
        l_min: f64;
        /// Sets `eta` of the step rule.
        eta: f64;
        /// Sets the outer iteration budget.
        max_iter: usize;
        /// Sets the tolerance on `q^k`.
        tol: f64;
        /// Chooses the stopping quantity `q^k`.
        stop: StopCriterion;
        /// Chooses the initialization.
        init: Init;
        /// Sets the seed (used by [`Init::Random`]).
        seed: u64;
    }
    /// Sets Alg. 1's block tolerance and iteration budget.
    #[must_use]
    pub fn inner(mut self, tol: f64, max_iter: usize) -> Self {
        self.inner_tol = tol;
        self.inner_max_iter = max_iter;
        self
    }
    bl_core::params::setters! {
        /// Sets a wall-clock limit (the fit then ends with `TerminationReason::TimeLimit`).
        time_limit: Option<Duration>;
        /// Sets the number of threads of the two data passes per iteration (`None`, the
        /// default: rayon's global pool, one thread per core unless `RAYON_NUM_THREADS` says
        /// otherwise). The result does not depend on it.
        threads: Option<usize>;
    }
}
