//! The paper's linear baselines on `vec(X_i)`: L2, l1 ("sparse") and elastic-net logistic
//! regression, fitted by FISTA with backtracking (Beck & Teboulle 2009).
//!
//! ```text
//! min_{w, b} (1/n) sum_i log(1 + exp(-y_i (<w, vec(X_i)> + b))) + l1 |w|_1 + l2/2 ||w||^2
//! ```
//!
//! The intercept is not penalized. The features are the columns of
//! [`MatrixDataset::vectorized`], read in place from the data set's buffer in its stored
//! precision (`f32` or `f64`) with `f64` accumulation by [`Samples`]: no copy of the data
//! is made. The two matrix-vector products of an iteration are split over threads
//! (`z^T w` over samples, `z c` over features), each value computed by one thread in a
//! fixed order, so a fit gives bit-identical results for any number of threads.
//!
//! | setter | default | meaning | valid range |
//! |---|---|---|---|
//! | `l1` | 0 | l1 weight (sparse LR) | finite, `>= 0` |
//! | `l2` | 1e-2 | squared-l2 weight (L2 LR) | finite, `>= 0` |
//! | `l_min`, `eta` | 1e-3, 2 | backtracking floor and growth factor | `[1e-10, 1]`, `[1.5, 10]` (as [`crate::params`]) |
//! | `max_iter` | 10000 | FISTA iterations | `>= 1` |
//! | `tol` | 1e-6 | FISTA stops when the gradient-mapping norm is `<= tol * max(1, first)` | finite, `> 0` |
//! | `time_limit` | none | wall-clock limit of a fit | any |
//! | `threads` | none | threads of the two products per iteration; none = rayon's global pool (data of fewer than 2^16 values runs on one thread) | `1 ..= 1024` |
//! | `trace` | on | keep every FISTA iteration in the report's trace | |
//!
//! `max_iter`, `tol`, `time_limit`, `threads` and `trace` are the fit's
//! [`IterationParams`] (`bl_core::iteration_setters!`); the checked form,
//! [`LogisticValidParams`], has a getter of the same name for every field.

use bl_core::data::{Element, MatrixDataset};
use faer::MatRef;
use serde::{Deserialize, Serialize};

use crate::bilinear::binary_signs;
use bl_core::engine::{FitReport, Observer};
use bl_core::params::{self, ParamGuard};

use crate::block::{BlockState, BlockWork, LinearBlock};
use crate::error::{Result, SblrError, ensure_shape};
use crate::model::{positive_class, probabilities};
use crate::passes::Samples;
use crate::passes::{Stacked, pool};
use crate::saved::{self, SavedModel};
use crate::update::{DEFAULT_ETA, DEFAULT_L_MIN, ExactBlockSolve, check_step_rule};
use bl_core::IterationParams;
use bl_core::error::build::numerical;
use bl_core::linalg::LinearOperator;

/// Logistic regression on vectorized samples (the baselines LR and sparse LR).
#[derive(Debug, Clone, Copy, Default)]
pub struct LogisticRegression;

impl LogisticRegression {
    /// The builder with the defaults of the [module table](self) (L2 with `l2 = 1e-2`).
    #[must_use]
    pub fn params() -> LogisticParams {
        LogisticParams::default()
    }
}

/// Hyperparameters of [`LogisticRegression`] before validation (see the
/// [module table](self)); [`ParamGuard::check`] gives [`LogisticValidParams`], which fits.
/// Serializes with the field names of the table (the iteration knobs flattened).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LogisticParams {
    l1: f64,
    l2: f64,
    l_min: f64,
    eta: f64,
    #[serde(flatten)]
    iteration: IterationParams,
}

/// Checked hyperparameters of [`LogisticRegression`]: a getter of the same name for every
/// field. Deserializing (by any serde format) runs [`LogisticParams::check`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LogisticValidParams(LogisticParams);

checked_conversions!(LogisticValidParams from LogisticParams);

impl Default for LogisticParams {
    fn default() -> Self {
        Self {
            l1: 0.0,
            l2: 1e-2,
            l_min: DEFAULT_L_MIN,
            eta: DEFAULT_ETA,
            iteration: IterationParams::new(10_000, 1e-6),
        }
    }
}

bl_core::params::knobs! {
    LogisticParams => LogisticValidParams in 0;
    /// The l1 weight (default 0, finite and `>= 0`).
    l1: f64;
    /// The squared-l2 weight (default `1e-2`, finite and `>= 0`).
    l2: f64;
    /// The backtracking floor `L_min`: FISTA's first backtracking trial is at `L_min`
    /// (default `1e-3`, in `[1e-10, 1]`).
    l_min: f64;
    /// The backtracking growth factor `eta` (default 2, in `[1.5, 10]`).
    eta: f64;
    /// FISTA's budget (default 10000), tolerance (default `1e-6`, finite and `> 0`), time
    /// limit, threads of the products and trace.
    ..iteration;
}

impl ParamGuard for LogisticParams {
    type Checked = LogisticValidParams;
    type Error = SblrError;

    /// Checks the ranges of the [module table](self).
    ///
    /// # Errors
    /// `SblrError::Core(BlError::InvalidParameter)` naming the first invalid field.
    fn check(&self) -> Result<LogisticValidParams> {
        params::nonnegative("l1", self.l1)?;
        params::nonnegative("l2", self.l2)?;
        check_step_rule(self.l_min, self.eta)?;
        self.iteration.check()?;
        // FISTA's tolerance is relative to the first gradient-mapping norm: 0 would never
        // stop before the budget.
        params::positive("tol", self.iteration.tol)?;
        Ok(LogisticValidParams(*self))
    }
}

fit_matrix! {
    /// Fits on a binary data set (class 1 is `+1`); observers see every FISTA iteration.
    /// FISTA reads the samples in place, in their stored precision, through [`Samples`]
    /// (each entry widened to `f64` as it is read, `f64` accumulation); no copy of the data
    /// is made.
    ///
    /// # Errors
    /// Invalid parameters; [`SblrError::NotBinary`], [`SblrError::MissingClass`];
    /// `BlError::Numerical`.
    LogisticValidParams => FittedLogisticRegression;
    fn(&self, data, observers) {
        let y = binary_signs(data)?;
        let mut model = self.fit_signs_impl(data, &y, observers)?;
        model.class_names = data.class_names().to_vec();
        Ok(model)
    }
}

impl LogisticValidParams {
    pub(crate) fn fit_signs_impl<T: Element>(
        &self,
        data: &MatrixDataset<T>,
        y: &[f64],
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedLogisticRegression> {
        crate::bilinear::check_signs(y)?;
        bl_core::error::ensure_len("labels", data.n_samples(), y.len())?;
        let samples = Samples::of(data)?.with_threads(self.iteration().threads)?;
        let (mut x, objective, report) = self.solve(samples, y, observers)?;
        let d = x.len() - 1;
        let intercept = x[d];
        x.truncate(d);
        let (s, t) = data.shape();
        Ok(FittedLogisticRegression {
            s,
            t,
            weights: x,
            intercept,
            objective,
            report,
            class_names: vec!["-1".into(), "+1".into()],
            params: *self,
        })
    }

    /// FISTA on the features `z` from `(w, b) = 0`: the solution `(w, b)`, its objective
    /// and the iterations' report.
    fn solve<F: LinearOperator>(
        &self,
        z: F,
        y: &[f64],
        observers: &mut [&mut dyn Observer],
    ) -> Result<(Vec<f64>, f64, FitReport)> {
        let (d, n) = (z.nrows(), z.ncols());
        let block = LinearBlock {
            z,
            y,
            l1: self.l1(),
            l2: self.l2(),
        };
        let mut x = vec![0.0; d + 1];
        let mut scores = vec![0.0; n];
        let mut lipschitz = self.l_min() * self.eta();
        let mut work = BlockWork::new(d, n)?;
        let solver = ExactBlockSolve {
            l_min: self.l_min(),
            eta: self.eta(),
            tol: self.iteration().tol,
            max_iter: self.iteration().max_iter,
        };
        let (info, report) = solver.solve(
            &block,
            &mut BlockState::new(&mut x, &mut scores, &mut lipschitz),
            &mut work,
            self.iteration(),
            observers,
        )?;
        let objective = info.loss_after + block.penalty_unchecked(&x);
        if !objective.is_finite() {
            return Err(numerical(
                "LogisticRegression",
                "the objective is not finite",
            ));
        }
        Ok((x, objective, report))
    }
}

saved::saved_model! {
    /// A fitted (sparse) logistic regression on vectorized samples.
    ///
    /// Serializes with serde ([`SavedModel::to_json`]); deserializing, by any serde format,
    /// validates the model: `s, t >= 1`; `weights` of length `s t`, finite, and with a finite
    /// bound `sum |w| + |b|` on the decision value of a sample with entries in `[-1, 1]`; a
    /// finite intercept and objective; exactly two distinct class names; valid parameters
    /// ([`LogisticParams::check`]).
    #[serde(try_from = "raw::RawFittedLogisticRegression")]
    pub struct FittedLogisticRegression from raw RawFittedLogisticRegression {
        s: usize,
        t: usize,
        weights: Vec<f64>,
        intercept: f64,
    }
    with objective, report, class_names, params: LogisticValidParams;
    /// The FISTA iterations (objective, gradient-mapping change measure, `lipschitz`).
    fn report;
}

impl FittedLogisticRegression {
    /// The load-time checks listed on [`FittedLogisticRegression`].
    fn validate(&self) -> Result<()> {
        let m = <Self as SavedModel>::MODEL;
        let (s, t) = (self.s, self.t);
        saved::positive(m, "s", s)?;
        saved::positive(m, "t", t)?;
        let len = saved::product(m, "weights", &[s, t])?;
        saved::length(
            m,
            "weights",
            len,
            &format!("s x t = {s} x {t}"),
            self.weights.len(),
        )?;
        saved::finite(m, "weights", &self.weights)?;
        saved::finite_scalar(m, "intercept", self.intercept)?;
        let bound = self.weights.iter().map(|w| w.abs()).sum::<f64>() + self.intercept.abs();
        saved::scores_bounded(m, "weights, intercept", bound)?;
        saved::class_names(m, &self.class_names, Some(2))?;
        saved::finite_scalar(m, "objective", self.objective)
    }

    /// The sample shape `(s, t)` the model was fitted on.
    #[must_use]
    pub fn shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }

    /// The weights as an `s x t` matrix (`w = vec(W)`).
    #[must_use]
    pub fn weights(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.weights, self.s, self.t)
    }
    /// The intercept.
    #[must_use]
    pub fn intercept(&self) -> f64 {
        self.intercept
    }
    /// The objective at the returned point.
    #[must_use]
    pub fn objective(&self) -> f64 {
        self.objective
    }
    /// Number of nonzero weights.
    #[must_use]
    pub fn n_nonzero(&self) -> usize {
        self.weights.iter().filter(|&&w| w != 0.0).count()
    }
    /// Class names; index 1 is the positive class.
    #[must_use]
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// The hyperparameters.
    #[must_use]
    pub fn params(&self) -> &LogisticValidParams {
        &self.params
    }

    /// Decision values `<w, vec(X_i)> + b`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) for samples of another shape; [`bl_core::BlError::Numerical`] (as `SblrError::Core`)
    /// when a decision value overflows.
    pub fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>> {
        ensure_shape(
            "FittedLogisticRegression: samples",
            (self.s, self.t),
            data.shape(),
        )?;
        let n = data.n_samples();
        let samples = Stacked::new(data.vectorized(), self.s * self.t, 1, n)?;
        let mut out = vec![0.0; n];
        samples.u_times(&self.weights, 1, &mut out, &pool(None)?);
        out.iter_mut().for_each(|f| *f += self.intercept);
        saved::finite_scores("FittedLogisticRegression::decision_function", &out)?;
        Ok(out)
    }

    /// `P(class 1 | X_i)`.
    ///
    /// # Errors
    /// As [`FittedLogisticRegression::decision_function`].
    pub fn predict_proba<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>> {
        Ok(probabilities(self.decision_function(data)?))
    }
}

predict_labels! {
    /// Predicted class indices (1 when the decision value is positive).
    ///
    /// # Errors
    /// As [`FittedLogisticRegression::decision_function`]; `targets` of another length
    /// than the data's samples.
    [] FittedLogisticRegression;
    fn(&self, data, targets) {
        positive_class(&self.decision_function(data)?, targets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parameters round-trip through JSON, and deserializing runs the range checks.
    #[test]
    fn params_deserialize_checked() {
        let params = LogisticRegression::params()
            .l1(0.25)
            .max_iter(7)
            .check()
            .unwrap();
        let json = serde_json::to_string(&params).unwrap();
        let back: LogisticValidParams = serde_json::from_str(&json).unwrap();
        assert_eq!(back, params);
        let bad = json.replace("\"l1\":0.25", "\"l1\":-1.0");
        assert_ne!(bad, json);
        let err = serde_json::from_str::<LogisticValidParams>(&bad).unwrap_err();
        assert!(err.to_string().contains("l1"), "{err}");
    }

    /// Formats other than JSON can carry NaN and infinities: the checks catch them.
    #[test]
    fn non_finite_entries_are_rejected_by_name() {
        saved::rejected_edits(
            &LogisticRegression::params(),
            FittedLogisticRegression::validate,
            &[
                ("weights", &|m: &mut FittedLogisticRegression| {
                    m.weights[4] = f64::NAN;
                }),
                ("intercept", &|m: &mut FittedLogisticRegression| {
                    m.intercept = f64::INFINITY;
                }),
            ],
        );
    }
}
