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
//! | setter | default | meaning | valid range |
//! |---|---|---|---|
//! | `rank` | 1 | `r`, columns of `U` and `V` | `1..=min(s, t)` (checked at fit) |
//! | `mu1`, `nu1` | 0.01 | l1 weights on `U`, `V` | finite, `>= 0` |
//! | `mu2`, `nu2` | 0.5 | squared-l2 weights on `U`, `V` | finite, `>= 0` |
//! | `penalties` | | sets `mu1, mu2, nu1, nu2` at once | |
//! | `block_update` | [`ProxLinearStep`] (`l_min = 1e-3`, `eta = 2`) | the update of each block per iteration: Alg. 2's proximal-linear step, Alg. 1's [`ExactBlockSolve`] or yours ([`BlockUpdate`]) | its own `check()` |
//! | `max_iter` | 500 | outer iterations `k` | `>= 1` |
//! | `tol` | 1e-3 | stop when `q^k <= tol` (eq. (8)) | finite, `>= 0` |
//! | `time_limit` | none | wall-clock limit of a fit | any |
//! | `threads` | none | threads of the two data passes per iteration; none = rayon's global pool | `1 ..= 1024` |
//! | `trace` | on | keep every iteration in the report's trace | |
//! | `stop` | [`StopCriterion::Eq8`] | which `q^k` (eq. (8) by default) | |
//! | `init` | [`Init::MeanSvd`] | starting point (Sec. 7.1) | |
//! | `seed` | 0 | seed of [`Init::Random`] | any |
//!
//! `max_iter`, `tol`, `time_limit`, `threads` and `trace` are the fit's
//! [`IterationParams`] (`bl_core::iteration_setters!`). The checked form,
//! [`SblrValidParams`], has a getter of the same name for every field.
//!
//! The two data passes of an iteration (`X_i V` and `U^T X_i` for every sample) are split
//! over samples across threads. Each sample's result is computed by one thread in a fixed
//! order, so a fit gives bit-identical results for any number of threads.
//!
//! The defaults of `mu1, mu2, nu1, nu2` are the regularized setting of the paper's Fig. 3;
//! [`SblrParams::standardized`] is the preset for standardized data (and the defaults of
//! the Python estimator).
//!
//! The paper only asks `L_min > 0` and `eta > 1` (Sec. 3, after eq. (13)). The bounds of
//! the built-in updates ([`L_MIN_RANGE`], [`ETA_RANGE`]) keep the step rule meaningful in
//! floating point and within the search's budget per step (the step rule tries
//! `m = -1 ..= MAX_TRIALS - 1`, [`crate::block::MAX_TRIALS`] = 100):
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
//!   exceed the smallest sufficient one by a factor `eta` (hence the cap 10), and the
//!   trials of a step span a factor `eta^100` (`4e17` for `eta = 1.5`, hence the floor
//!   1.5: the first step starts at `L = L_min` and must reach the block's Lipschitz
//!   constant; with `eta = 1.001` the search gives up after raising `L` by 10%).
//!
//! With `L_min = 1e300` or `eta = 1e300` the first steps are so short that the objective
//! does not move and the fit would stop at once reporting convergence; such values are
//! rejected.
//!
//! **Saved form.** The parameters serialize (inside every saved model) with the fields
//! `rank`, `mu1`, `mu2`, `nu1`, `nu2`, `solver` (`"Alg2"` or `"Alg1"`), `l_min`, `eta`,
//! `inner_tol`, `inner_max_iter` (the built-in update and its settings), `max_iter`, `tol`,
//! `time_limit`, `threads`, `trace`, `stop`, `init`, `seed`. A block update of yours is
//! saved by its name, in the field `block_update` (with the default [`ProxLinearStep`]'s
//! fields beside it), and loads as a [`NotSaved`] of that name:
//! the code of an update cannot be saved (see [`BlockUpdate::as_built_in`]).

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use bl_core::IterationParams;
use bl_core::error::ensure_finite;
use bl_core::params::{self, ParamGuard};

use crate::error::{Result, SblrError};
use crate::update::{BlockUpdate, BuiltInUpdate, ExactBlockSolve, NotSaved, ProxLinearStep};
pub use crate::update::{ETA_RANGE, L_MIN_RANGE};
use faer::MatRef;

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
    /// of `U`, `V` and `b` once; a block of two unequal lengths is read up to the shorter)
    /// and the objectives `F^{k-1}`, `F^k`. NaN if any input it reads is NaN (`Eq8` reads
    /// all, `ObjectiveChange` only the objectives, `IterateChange` only the blocks).
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

/// The penalties `(mu1, mu2, nu1, nu2)` of eq. (5).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Penalties {
    /// l1 weight on `U`.
    pub mu1: f64,
    /// Squared-l2 weight on `U`.
    pub mu2: f64,
    /// l1 weight on `V`.
    pub nu1: f64,
    /// Squared-l2 weight on `V`.
    pub nu2: f64,
}

impl Penalties {
    /// The penalties `(mu1, mu2, nu1, nu2)`.
    #[must_use]
    pub const fn new(mu1: f64, mu2: f64, nu1: f64, nu2: f64) -> Self {
        Self { mu1, mu2, nu1, nu2 }
    }

    /// The penalty value `mu1 |U|_1 + mu2/2 ||U||^2 + nu1 |V|_1 + nu2/2 ||V||^2`.
    #[must_use]
    pub fn value(&self, u: MatRef<'_, f64>, v: MatRef<'_, f64>) -> f64 {
        let mut total = 0.0;
        for (m, l1, l2) in [(u, self.mu1, self.mu2), (v, self.nu1, self.nu2)] {
            for j in 0..m.ncols() {
                for i in 0..m.nrows() {
                    let x = m[(i, j)];
                    total += l1 * x.abs() + 0.5 * l2 * x * x;
                }
            }
        }
        total
    }
}

/// Hyperparameters of SBLR before validation: `SblrParams::default().rank(2)...`, then
/// [`Fit::fit`](bl_core::Fit::fit) (the binary model, [`crate::FittedSblr`]).
/// [`ParamGuard::check`] validates every field (and the block update's own settings) and
/// returns [`SblrValidParams`], which fits.
///
/// See the [module documentation](self) for the table of parameters and the saved form.
#[derive(Debug, Clone)]
pub struct SblrParams {
    pub(crate) rank: usize,
    pub(crate) mu1: f64,
    pub(crate) mu2: f64,
    pub(crate) nu1: f64,
    pub(crate) nu2: f64,
    pub(crate) block_update: Arc<dyn BlockUpdate>,
    pub(crate) stop: StopCriterion,
    pub(crate) init: Init,
    pub(crate) seed: u64,
    pub(crate) iteration: IterationParams,
}

/// Checked hyperparameters of SBLR, built by [`ParamGuard::check`] on [`SblrParams`]; a
/// getter of the same name for every field.
///
/// Deserializing (by any serde format) runs the same checks, so a `SblrValidParams` is
/// always valid.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SblrValidParams(SblrParams);

checked_conversions!(SblrValidParams from SblrParams);

impl Default for SblrParams {
    fn default() -> Self {
        Self {
            rank: 1,
            mu1: 0.01,
            mu2: 0.5,
            nu1: 0.01,
            nu2: 0.5,
            block_update: Arc::new(ProxLinearStep::default()),
            stop: StopCriterion::Eq8,
            init: Init::MeanSvd,
            seed: 0,
            iteration: IterationParams::new(500, 1e-3),
        }
    }
}

impl PartialEq for SblrParams {
    /// Equal fields; block updates are equal when they are the same plug-in (one `Arc`) or
    /// equal built-ins.
    fn eq(&self, other: &Self) -> bool {
        let same_update = Arc::ptr_eq(&self.block_update, &other.block_update)
            || self
                .block_update
                .as_built_in()
                .is_some_and(|a| other.block_update.as_built_in() == Some(a));
        same_update
            && self.rank == other.rank
            && (self.mu1, self.mu2, self.nu1, self.nu2)
                == (other.mu1, other.mu2, other.nu1, other.nu2)
            && self.stop == other.stop
            && self.init == other.init
            && self.seed == other.seed
            && self.iteration == other.iteration
    }
}

bilinear_knobs!(SblrParams => SblrValidParams);

bl_core::params::knobs! {
    SblrParams => SblrValidParams in 0;
    /// The block update each iteration runs on `(U, b)` then `(V, b)`:
    /// [`ProxLinearStep`] (Alg. 2, the default, `l_min = 1e-3`, `eta = 2`),
    /// [`ExactBlockSolve`] (Alg. 1) or yours; it must pass
    /// [`crate::conformance::conformance`], and its own `check()` runs in [`ParamGuard::check`].
    block_update: &Arc<dyn BlockUpdate>;
}

impl ParamGuard for SblrParams {
    type Checked = SblrValidParams;
    type Error = SblrError;

    /// Validates the data-independent ranges (the rank against the sample shape is
    /// checked at fit time).
    ///
    /// # Errors
    /// `SblrError::Core(BlError::InvalidParameter)` naming the first invalid field:
    /// `rank == 0`, a negative or non-finite penalty, an invalid block update (its own
    /// `check()`: for the built-ins `l_min` outside [`L_MIN_RANGE`], `eta` outside
    /// [`ETA_RANGE`], a bad `inner_tol` / `inner_max_iter`), `max_iter == 0`, a negative
    /// or non-finite `tol`, `threads` outside `1..=1024`;
    /// `SblrError::Core(BlError::NonFinite)` for a non-finite warm start.
    fn check(&self) -> Result<SblrValidParams> {
        params::at_least("rank", self.rank, 1)?;
        check_penalties([self.mu1, self.mu2, self.nu1, self.nu2])?;
        self.block_update.check()?;
        self.iteration.check()?;
        check_init(&self.init)?;
        Ok(SblrValidParams(self.clone()))
    }
}

/// `mu1, mu2, nu1, nu2` finite and `>= 0`.
pub(crate) fn check_penalties(penalties: [f64; 4]) -> Result<()> {
    for (name, value) in ["mu1", "mu2", "nu1", "nu2"].into_iter().zip(penalties) {
        params::nonnegative(name, value)?;
    }
    Ok(())
}

/// A warm start's values finite.
pub(crate) fn check_init(init: &Init) -> Result<()> {
    match init {
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
    Ok(())
}

impl SblrParams {
    /// The defaults of the table above.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The preset for **standardized data** (every entry centred and scaled to unit
    /// variance over the samples, as scikit-learn's `StandardScaler` leaves it), and the
    /// defaults of the Python estimator `bilinear.SparseBilinearLogisticRegression`: the
    /// defaults with `mu2 = nu2 = 0.01` and [`Init::LabelWeightedSvd`].
    ///
    /// Why: on unit-variance entries the ridge `mu2 = nu2 = 0.5` of Fig. 3 (the defaults)
    /// outweighs a moderate signal: with one entry shifted by 2 standard deviations
    /// between the classes, every fit with the defaults ends at `U V^T = 0` (from either
    /// start), while the ridge `0.01` keeps the signal and separates the classes (the test
    /// `standardized_preset_keeps_the_signal_the_defaults_shrink`). And centring makes the
    /// mean sample zero up to rounding, so the paper's mean-sample start
    /// ([`Init::MeanSvd`]) is noise there, while the label-weighted mean is a class
    /// contrast that centring leaves intact.
    #[must_use]
    pub fn standardized() -> Self {
        Self::default()
            .mu2(0.01)
            .nu2(0.01)
            .init(Init::LabelWeightedSvd)
    }
}

/// The saved layout of [`SblrParams`] (see the [module documentation](self)).
#[derive(Serialize, Deserialize)]
struct SavedParams {
    rank: usize,
    mu1: f64,
    mu2: f64,
    nu1: f64,
    nu2: f64,
    solver: SavedSolver,
    l_min: f64,
    eta: f64,
    inner_tol: f64,
    inner_max_iter: usize,
    max_iter: usize,
    tol: f64,
    stop: StopCriterion,
    init: Init,
    seed: u64,
    time_limit: Option<Duration>,
    #[serde(default)]
    threads: Option<usize>,
    #[serde(default = "trace_on")]
    trace: bool,
    /// The name of a block update of a user's (absent for the built-ins, which `solver`
    /// names, and in models saved before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    block_update: Option<String>,
}

fn trace_on() -> bool {
    true
}

/// The built-in block update a saved model names.
#[derive(Serialize, Deserialize)]
enum SavedSolver {
    /// [`ProxLinearStep`].
    Alg2,
    /// [`ExactBlockSolve`].
    Alg1,
}

impl From<SblrParams> for SavedParams {
    fn from(p: SblrParams) -> Self {
        let inner = ExactBlockSolve::default();
        // A user's update: its name, beside the default step rule's fields.
        let (step, custom) = match p.block_update.as_built_in() {
            Some(built_in) => (built_in, None),
            None => (
                BuiltInUpdate::ProxLinear(ProxLinearStep::default()),
                Some(p.block_update.name().to_string()),
            ),
        };
        let (solver, l_min, eta, inner_tol, inner_max_iter) = match step {
            BuiltInUpdate::Exact(e) => (SavedSolver::Alg1, e.l_min, e.eta, e.tol, e.max_iter),
            BuiltInUpdate::ProxLinear(s) => {
                (SavedSolver::Alg2, s.l_min, s.eta, inner.tol, inner.max_iter)
            }
        };
        let IterationParams {
            max_iter,
            tol,
            time_limit,
            threads,
            trace,
        } = p.iteration;
        Self {
            rank: p.rank,
            mu1: p.mu1,
            mu2: p.mu2,
            nu1: p.nu1,
            nu2: p.nu2,
            solver,
            l_min,
            eta,
            inner_tol,
            inner_max_iter,
            max_iter,
            tol,
            stop: p.stop,
            init: p.init,
            seed: p.seed,
            time_limit,
            threads,
            trace,
            block_update: custom,
        }
    }
}

impl From<SavedParams> for SblrParams {
    fn from(w: SavedParams) -> Self {
        let update = match w.solver {
            SavedSolver::Alg2 => BuiltInUpdate::ProxLinear(ProxLinearStep {
                l_min: w.l_min,
                eta: w.eta,
            }),
            SavedSolver::Alg1 => BuiltInUpdate::Exact(ExactBlockSolve {
                l_min: w.l_min,
                eta: w.eta,
                tol: w.inner_tol,
                max_iter: w.inner_max_iter,
            }),
        };
        Self {
            rank: w.rank,
            mu1: w.mu1,
            mu2: w.mu2,
            nu1: w.nu1,
            nu2: w.nu2,
            block_update: match w.block_update {
                Some(name) => Arc::new(NotSaved::new(name)),
                None => update.into_update(),
            },
            stop: w.stop,
            init: w.init,
            seed: w.seed,
            iteration: IterationParams {
                max_iter: w.max_iter,
                tol: w.tol,
                time_limit: w.time_limit,
                threads: w.threads,
                trace: w.trace,
            },
        }
    }
}

impl Serialize for SblrParams {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        SavedParams::from(self.clone()).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SblrParams {
    /// The saved layout, unchecked (a [`SblrValidParams`] checks it).
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        SavedParams::deserialize(deserializer).map(Self::from)
    }
}
