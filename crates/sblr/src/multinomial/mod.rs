//! The multinomial model (Sec. 6, eqs. (29)-(33), Algorithm 3).
//!
//! With `K = m + 1` classes, the last class is the zero-score reference and class
//! `c < m` has its own `U_c` (`s x r`), `V_c` (`t x r`) and `b_c`:
//!
//! ```text
//! p(y = c | X) = exp(f_c) / (1 + sum_j exp(f_j)),   f_c = tr(U_c^T X V_c) + b_c
//! min  (1/n) sum_i [log(1 + sum_c exp(f_ic)) - f_{i, y_i}]
//!      + sum_c (mu1 |U_c|_1 + mu2/2 ||U_c||^2 + nu1 |V_c|_1 + nu2/2 ||V_c||^2)
//! ```
//!
//! Algorithm 3 here: per iteration one proximal-linear step on the block
//! `(U_1..U_m, b)` and one on `(V_1..V_m, b)`, each with the backtracking rule of
//! (13)/(15) (`L = max(L_min, L_prev eta^k)`, `k >= -1` smallest with sufficient decrease),
//! exactly as Alg. 2 does for the binary model. The data are read twice per iteration, by
//! the passes of [`crate::passes`]: `X_i [V_1 ... V_m]` and `[U_1 ... U_m]^T X_i`, one
//! product per sample.
//!
//! The hyperparameters ([`MultinomialParams`]) are those of the binary model with the step
//! rule `(l_min, eta)` of Alg. 3 in place of the block update (Algorithm 3 is the
//! multinomial form of Alg. 2's step, so it takes no other update); the setters have the
//! names of [`SblrParams`]'s. A warm start is
//! [`Init::WarmMultinomial`]
//! ([`FittedMultinomialSblr::warm_start`]); the binary [`Init::Warm`]
//! is rejected. [`Init::MeanSvd`] starts every class at the paper's
//! binary start; [`Init::LabelWeightedSvd`] starts class `c`
//! at the top singular pairs of `mean(X | c) - mean(X | reference)`.
//!
//! | setter | default | meaning | valid range |
//! |---|---|---|---|
//! | `rank`, `mu1`, `mu2`, `nu1`, `nu2`, `penalties` | as [`crate::params`] | rank and penalties of every class | as [`crate::params`] |
//! | `l_min`, `eta` | 1e-3, 2 | step rule (13)/(15) of both blocks | [`L_MIN_RANGE`](crate::params::L_MIN_RANGE), [`ETA_RANGE`](crate::params::ETA_RANGE) |
//! | `max_iter`, `tol`, `time_limit`, `threads`, `trace` | 500, 1e-3, none, none, on | the fit's [`IterationParams`] | as [`crate::params`] |
//! | `stop`, `init`, `seed` | [`StopCriterion::Eq8`], [`Init::MeanSvd`], 0 | as [`crate::params`] | |

mod model;
mod solver;

use bl_core::IterationParams;
use bl_core::engine::{Progress, run};
use bl_core::params::{self, ParamGuard};
use serde::{Deserialize, Serialize};

use crate::error::{Result, SblrError};
use crate::params::{Init, SblrParams, StopCriterion, check_init, check_penalties};
use crate::update::{BuiltInUpdate, DEFAULT_ETA, DEFAULT_L_MIN, check_step_rule};
use bl_core::error::build::invalid;
use solver::MultinomialSolver;

pub use model::FittedMultinomialSblr;

/// Multinomial sparse bilinear logistic regression (Algorithm 3).
#[derive(Debug, Clone, Copy, Default)]
pub struct MultinomialSblr;

impl MultinomialSblr {
    /// The hyperparameter builder with the defaults of the [module table](self).
    #[must_use]
    pub fn params() -> MultinomialParams {
        MultinomialParams::default()
    }
}

/// Hyperparameters of [`MultinomialSblr`] before validation
/// (`MultinomialSblr::params().rank(2).fit(&data)`); [`ParamGuard::check`] gives
/// [`MultinomialValidParams`], which fits. See the [module table](self). Serializes with
/// the field names of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultinomialParams {
    rank: usize,
    mu1: f64,
    mu2: f64,
    nu1: f64,
    nu2: f64,
    l_min: f64,
    eta: f64,
    stop: StopCriterion,
    init: Init,
    seed: u64,
    #[serde(flatten)]
    iteration: IterationParams,
    /// The block update of the [`SblrParams`] these were made from, when Alg. 3 cannot
    /// run it ([`SblrParams::multinomial`]); refused by `check()`.
    #[serde(skip)]
    refused_update: Option<String>,
}

/// Checked hyperparameters of [`MultinomialSblr`]: a getter of the same name for every
/// field. Deserializing (by any serde format) runs the same checks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultinomialValidParams(MultinomialParams);

checked_conversions!(MultinomialValidParams from MultinomialParams);

impl Default for MultinomialParams {
    fn default() -> Self {
        let binary = SblrParams::default();
        Self {
            rank: binary.rank,
            mu1: binary.mu1,
            mu2: binary.mu2,
            nu1: binary.nu1,
            nu2: binary.nu2,
            l_min: DEFAULT_L_MIN,
            eta: DEFAULT_ETA,
            stop: binary.stop,
            init: binary.init,
            seed: binary.seed,
            iteration: binary.iteration,
            refused_update: None,
        }
    }
}

bilinear_knobs!(MultinomialParams => MultinomialValidParams);

bl_core::params::knobs! {
    MultinomialParams => MultinomialValidParams in 0;
    /// `L_min` of the step rule (13)/(15) (default `1e-3`, in
    /// [`L_MIN_RANGE`](crate::params::L_MIN_RANGE)).
    l_min: f64;
    /// The growth factor `eta` of the step rule (default 2, in
    /// [`ETA_RANGE`](crate::params::ETA_RANGE)).
    eta: f64;
}

impl SblrParams {
    /// The multinomial parameters with this rank, penalties, stopping quantity, start, seed
    /// and iteration knobs, and the step rule of the block update: Alg. 3 is the
    /// multinomial form of Alg. 2, so the update must be a [`ProxLinearStep`](crate::ProxLinearStep)
    /// (whose `l_min` and `eta` it takes); any other is refused by `check()`.
    #[must_use]
    pub fn multinomial(self) -> MultinomialParams {
        let (step, refused_update) = match self.block_update.as_built_in() {
            Some(BuiltInUpdate::ProxLinear(step)) => (step, None),
            _ => (
                crate::ProxLinearStep::default(),
                Some(self.block_update.name().to_string()),
            ),
        };
        MultinomialParams {
            rank: self.rank,
            mu1: self.mu1,
            mu2: self.mu2,
            nu1: self.nu1,
            nu2: self.nu2,
            l_min: step.l_min,
            eta: step.eta,
            stop: self.stop,
            init: self.init,
            seed: self.seed,
            iteration: self.iteration,
            refused_update,
        }
    }
}

impl ParamGuard for MultinomialParams {
    type Checked = MultinomialValidParams;
    type Error = SblrError;

    /// The checks of [`SblrParams`] with the step rule's ranges in place of the block
    /// update's; a block update other than `ProxLinearStep` carried over by
    /// [`SblrParams::multinomial`] is refused. A binary [`Init::Warm`] is refused by the
    /// fit.
    ///
    /// # Errors
    /// `SblrError::Core(BlError::InvalidParameter)` naming the first invalid field;
    /// `SblrError::Core(BlError::NonFinite)` for a non-finite warm start.
    fn check(&self) -> Result<MultinomialValidParams> {
        if let Some(name) = &self.refused_update {
            return Err(invalid(
                "block_update",
                name,
                "ProxLinearStep (Alg. 3 is the multinomial form of Alg. 2's step)",
            ));
        }
        params::at_least("rank", self.rank, 1)?;
        check_penalties([self.mu1, self.mu2, self.nu1, self.nu2])?;
        check_step_rule(self.l_min, self.eta)?;
        self.iteration.check()?;
        check_init(&self.init)?;
        Ok(MultinomialValidParams(self.clone()))
    }
}

fit_matrix! {
    /// Fits the multinomial model; the last class of `data` is the reference class.
    /// Observers see every outer iteration.
    ///
    /// # Errors
    /// The binary [`Init::Warm`]; `BlError::ShapeMismatch` for an
    /// [`Init::WarmMultinomial`] of the wrong size; [`SblrError::MissingClass`] when a
    /// class has no sample; [`SblrError::InvalidRank`]; `BlError::InvalidParameter` when
    /// the reduced features (`s (classes - 1) rank n` or `(classes - 1) rank t n` values)
    /// exceed [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated;
    /// `BlError::Numerical`.
    MultinomialValidParams => FittedMultinomialSblr;
    fn(&self, data, observers) {
        let mut solver = MultinomialSolver::new(data, self)?;
        let report = run(self.iteration(), observers, |_| {
            let (objective, change, l_u, l_v) = solver.step()?;
            Ok::<_, SblrError>(
                Progress::new(objective, change)
                    .with("loss", solver.loss())
                    .with("l_u", l_u)
                    .with("l_v", l_v),
            )
        })?;
        Ok(solver.into_model(report, data.class_names().to_vec(), self.clone()))
    }
}
