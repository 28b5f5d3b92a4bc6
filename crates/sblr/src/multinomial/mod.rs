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
//! exactly as Alg. 2 does for the binary model. The data are read twice per iteration:
//! `X_i [V_1 ... V_m]` per sample and `[U_1 ... U_m]^T [X_1 ... X_n]` in one product.
//!
//! The hyperparameters are those of [`SblrParams`]; the solver must be
//! [`Solver::Alg2`](crate::Solver::Alg2) (Algorithm 3 is its multinomial form). A warm start is
//! [`Init::WarmMultinomial`](crate::Init::WarmMultinomial) ([`FittedMultinomialSblr::warm_start`]); the binary
//! [`Init::Warm`](crate::Init::Warm) is rejected. [`Init::MeanSvd`](crate::Init::MeanSvd) starts every class at the paper's binary start;
//! [`Init::LabelWeightedSvd`](crate::Init::LabelWeightedSvd) starts class `c` at the top singular pairs of
//! `mean(X | c) - mean(X | reference)`.

mod model;
mod solver;

use bl_core::ParamGuard;
use bl_core::engine::{Progress, run};

use crate::error::{Result, SblrError};
use crate::params::{SblrParams, SblrValidParams};
use bl_core::error::build::invalid;
use solver::MultinomialSolver;

pub use model::FittedMultinomialSblr;

/// Multinomial sparse bilinear logistic regression (Algorithm 3).
#[derive(Debug, Clone, Copy, Default)]
pub struct MultinomialSblr;

impl MultinomialSblr {
    /// The hyperparameter builder (the parameters of the binary model, see
    /// [`crate::params`]); [`SblrParams::multinomial`] turns it into the parameters of the
    /// multinomial fit.
    #[must_use]
    pub fn params() -> SblrParams {
        SblrParams::default()
    }
}

/// Hyperparameters of [`MultinomialSblr`]: the [`SblrParams`] of the binary model, fitted
/// by Alg. 3 (`SblrParams::default().rank(2).multinomial().fit(&data)`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultinomialParams(pub SblrParams);

impl SblrParams {
    /// These parameters for the multinomial model (Alg. 3).
    #[must_use]
    pub fn multinomial(self) -> MultinomialParams {
        MultinomialParams(self)
    }
}

impl ParamGuard for MultinomialParams {
    type Checked = SblrValidParams;
    type Error = SblrError;

    /// The checks of [`SblrParams`] and no custom block update (Alg. 3 updates all classes
    /// jointly); [`Solver::Alg1`](crate::Solver::Alg1) and a binary [`Init::Warm`](crate::Init::Warm) are refused by the fit.
    ///
    /// # Errors
    /// `SblrError::Core(BlError::InvalidParameter)` naming the first invalid field.
    fn check(&self) -> Result<SblrValidParams> {
        let params = self.0.check()?;
        if params.block_update.is_some() {
            return Err(invalid(
                "block_update",
                "a custom block update",
                "none (Alg. 3 updates all classes jointly)",
            ));
        }
        Ok(params)
    }
}

fit_matrix! {
    /// Validates the parameters and fits the multinomial model; the last class of `data`
    /// is the reference class. Observers see every outer iteration.
    ///
    /// # Errors
    /// Invalid parameters (including [`Solver::Alg1`](crate::Solver::Alg1) and the binary [`Init::Warm`](crate::Init::Warm));
    /// `BlError::ShapeMismatch` for an [`Init::WarmMultinomial`](crate::Init::WarmMultinomial) of the wrong size;
    /// [`SblrError::MissingClass`] when a class has no sample; [`SblrError::InvalidRank`];
    /// `BlError::InvalidParameter` when the reduced features (`s (classes - 1) rank n`
    /// or `(classes - 1) rank t n` values) exceed [`bl_core::limits::MAX_ELEMENTS`] or
    /// cannot be allocated; `BlError::Numerical`.
    MultinomialParams => FittedMultinomialSblr;
    fn(&self, data, observers) {
        let params = &self.check()?;
        let mut solver = MultinomialSolver::new(data, params)?;
        let report = run(&params.rule(), observers, |_| {
            let (objective, change, l_u, l_v) = solver.step()?;
            Ok::<_, SblrError>(
                Progress::new(objective, change)
                    .with("loss", solver.loss())
                    .with("l_u", l_u)
                    .with("l_v", l_v),
            )
        })?;
        Ok(solver.into_model(report, data.class_names().to_vec(), params.clone()))
    }
}
