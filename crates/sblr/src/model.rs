//! The binary model: [`Sblr`] (entry point), fitting, and the fitted [`FittedSblr`].

use bl_core::Predict;
use bl_core::data::{Element, MatrixDataset};
use bl_core::engine::{Observer, Progress, run};
use bl_core::logistic::sigmoid;

use faer::{Mat, MatRef};

use crate::bilinear::{
    BinarySolver, BinarySolverOn, Penalties, Point, binary_signs, decision_values,
};
use crate::error::{Result, SblrError, ensure_shape};
use crate::features::ReducedFeatures;
use crate::params::{Init, SblrParams, SblrValidParams};
use crate::saved::{self, SavedModel};

/// Sparse bilinear logistic regression for matrix samples (Shi, Xu, Baraniuk 2014):
/// `p(y = +1 | X) = sigmoid(tr(U^T X V) + b)`.
///
/// `Sblr::params()` gives a builder ([`SblrParams`]); its
/// [`Fit::fit`](bl_core::Fit::fit) returns a [`FittedSblr`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Sblr;

impl Sblr {
    /// The hyperparameter builder with the defaults of [`crate::params`].
    #[must_use]
    pub fn params() -> SblrParams {
        SblrParams::default()
    }
}

fit_matrix! {
    /// Fits the binary model on a data set with exactly two
    /// classes; class 1 is the positive class (`y = +1`). The data are read in place, never
    /// copied. Observers see every outer iteration.
    ///
    /// # Errors
    /// [`SblrError::NotBinary`],
    /// [`SblrError::MissingClass`], [`SblrError::InvalidRank`] (rank above `min(s, t)`), a
    /// warm start of the wrong shape or an [`Init::WarmMultinomial`] start
    /// (`BlError::InvalidParameter`), or `BlError::Numerical` when an iterate stops being
    /// finite or a block update finds no step.
    SblrValidParams => FittedSblr;
    fn(&self, data, observers) {
        let y = binary_signs(data)?;
        let (s, t) = data.shape();
        let mut model = fit_stacked(data.stacked(), s, t, y, self, observers)?;
        model.class_names = data.class_names().to_vec();
        Ok(model)
    }
}

/// Fits on stacked data with `±1` labels (class names `["-1", "+1"]`).
pub(crate) fn fit_stacked<T: Element>(
    stacked: MatRef<'_, T>,
    s: usize,
    t: usize,
    y: Vec<f64>,
    params: &SblrValidParams,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedSblr> {
    let solver = BinarySolver::from_stacked(stacked, s, t, y, params)?;
    fit_solver(solver, params, observers)
}

/// Runs `solver` to the end of the params' budget (class names `["-1", "+1"]`).
pub(crate) fn fit_solver<F: ReducedFeatures>(
    mut solver: BinarySolverOn<F>,
    params: &SblrValidParams,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedSblr> {
    let (s, t) = solver.features().sample_shape();
    let report = run(params.iteration(), observers, |_| {
        let report = solver.step()?;
        Ok::<_, SblrError>(
            Progress::new(report.objective, report.change)
                .with("loss", report.loss)
                .with("l_u", report.u_step.lipschitz)
                .with("l_v", report.v_step.lipschitz)
                .with("trials_u", report.u_step.trials as f64)
                .with("trials_v", report.v_step.trials as f64)
                .with("inner_u", report.u_step.inner_iterations as f64)
                .with("inner_v", report.v_step.inner_iterations as f64),
        )
    })?;
    let (u, v) = solver.factors();
    Ok(FittedSblr {
        s,
        t,
        rank: params.rank(),
        u,
        v,
        intercept: solver.intercept(),
        objective: solver.objective(),
        report,
        class_names: vec!["-1".into(), "+1".into()],
        params: params.clone(),
    })
}

saved::saved_model! {
    /// A fitted binary (sparse) bilinear logistic regression model.
    ///
    /// Serializes with serde (e.g. to JSON; [`SavedModel::to_json`], [`SavedModel::save`])
    /// and can warm-start another fit ([`FittedSblr::warm_start`]). Deserializing, by any
    /// serde format, validates the model: `s, t >= 1`; `rank` in `1..=min(s, t)` and equal to
    /// `params.rank`; `u` of length `s * rank` and `v` of length `t * rank`; `u`, `v`,
    /// `intercept` and `objective` finite; weights whose decision value on a sample with
    /// entries in `[-1, 1]` cannot overflow; exactly two distinct class names; valid
    /// parameters. So a loaded model never panics in `predict`.
    #[serde(try_from = "raw::RawFittedSblr")]
    pub struct FittedSblr from raw RawFittedSblr {
        s: usize,
        t: usize,
        rank: usize,
        u: Vec<f64>,
        v: Vec<f64>,
        intercept: f64,
    }
    with objective, report, class_names, params: SblrValidParams;
    /// The outer iterations: objective of problem (4), `q^k`, and extras `loss`, `l_u`, `l_v`,
    /// `trials_u`, `trials_v`, `inner_u`, `inner_v` per iteration; the time covers the
    /// iterations only (initialization excluded).
    fn report;
}

impl FittedSblr {
    /// Sets the class names (a fit on a source other than a data set in memory).
    pub(crate) fn set_class_names(&mut self, names: Vec<String>) {
        self.class_names = names;
    }

    /// The load-time checks listed on [`FittedSblr`].
    fn validate(&self) -> Result<()> {
        let m = <Self as SavedModel>::MODEL;
        let (s, t, r) = (self.s, self.t, self.rank);
        saved::bilinear_factors(m, (s, t, r), self.params.rank(), 1, (&self.u, &self.v))?;
        saved::finite_scalar(m, "intercept", self.intercept)?;
        saved::scores_bounded(
            m,
            "u, v, intercept",
            saved::bilinear_bound(&self.u, &self.v, s, t, self.intercept),
        )?;
        saved::class_names(m, &self.class_names, Some(2))?;
        saved::finite_scalar(m, "objective", self.objective)
    }

    /// The left factor `U` (`s x r`).
    #[must_use]
    pub fn u(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.u, self.s, self.rank)
    }
    /// The right factor `V` (`t x r`).
    #[must_use]
    pub fn v(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.v, self.t, self.rank)
    }
    /// The intercept `b`.
    #[must_use]
    pub fn intercept(&self) -> f64 {
        self.intercept
    }
    /// The weight matrix `W = U V^T` (`s x t`), so that the decision value is
    /// `<W, X> + b`.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` (as `SblrError::Core`) when `s t` exceeds
    /// [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated (a loaded model's factors
    /// hold `(s + t) r` values, far fewer than `W` may need).
    pub fn weight_matrix(&self) -> Result<Mat<f64>> {
        const WHAT: &str = "FittedSblr::weight_matrix: s x t";
        bl_core::limits::reservable::<f64>(WHAT, &[self.s, self.t])?;
        Ok(self.u() * self.v().transpose())
    }
    /// The rank `r`.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// The sample shape `(s, t)` the model was fitted on.
    #[must_use]
    pub fn shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }
    /// Objective of problem (4) at the returned point.
    #[must_use]
    pub fn objective(&self) -> f64 {
        self.objective
    }
    /// Class names; index 1 is the positive class.
    #[must_use]
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// The hyperparameters of the fit.
    #[must_use]
    pub fn params(&self) -> &SblrValidParams {
        &self.params
    }
    /// The penalties of the fit.
    #[must_use]
    pub fn penalties(&self) -> Penalties {
        self.params.penalties()
    }
    /// An [`Init::Warm`] start at this model.
    #[must_use]
    pub fn warm_start(&self) -> Init {
        Init::Warm {
            u: self.u.clone(),
            v: self.v.clone(),
            intercept: self.intercept,
        }
    }

    fn check_shape<T: Element>(&self, data: &MatrixDataset<T>) -> Result<()> {
        ensure_shape("FittedSblr: samples", (self.s, self.t), data.shape())?;
        Ok(())
    }

    /// Decision values `tr(U^T X_i V) + b`; positive means class 1.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when the samples are not `s x t`;
    /// [`bl_core::BlError::Numerical`] (as `SblrError::Core`) when a decision value overflows.
    pub fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>> {
        self.check_shape(data)?;
        let f = decision_values(data, Point::new(self.u(), self.v(), self.intercept))?;
        saved::finite_scores("FittedSblr::decision_function", &f)?;
        Ok(f)
    }

    /// The decision value of one sample.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) for a sample that is not `s x t`;
    /// [`SblrError::Core`] for a non-finite entry; [`bl_core::BlError::Numerical`] (as `SblrError::Core`) when the
    /// decision value overflows.
    pub fn decision_function_sample(&self, x: MatRef<'_, f64>) -> Result<f64> {
        ensure_shape(
            "FittedSblr: sample",
            (self.s, self.t),
            (x.nrows(), x.ncols()),
        )?;
        bl_core::linalg::ensure_finite_mat("sample", x)?;
        let xv = x * self.v();
        let mut f = self.intercept;
        let u = self.u();
        for k in 0..self.rank {
            for a in 0..self.s {
                f += u[(a, k)] * xv[(a, k)];
            }
        }
        saved::finite_scores("FittedSblr::decision_function_sample", &[f])?;
        Ok(f)
    }

    /// `P(class 1 | X_i) = sigmoid(tr(U^T X_i V) + b)` for every sample.
    ///
    /// # Errors
    /// As [`FittedSblr::decision_function`].
    pub fn predict_proba<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>> {
        Ok(probabilities(self.decision_function(data)?))
    }

    /// Predicted class names.
    ///
    /// # Errors
    /// As [`FittedSblr::decision_function`].
    pub fn predict_names<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<String>> {
        let labels: Vec<usize> = self.predict(data)?;
        Ok(labels
            .into_iter()
            .map(|k| self.class_names[k].clone())
            .collect())
    }
}

predict_labels! {
    /// Predicted class indices (1 when the decision value is positive, else 0), in the
    /// class order of the training data.
    ///
    /// # Errors
    /// As [`FittedSblr::decision_function`]; `targets` of another length than the data's
    /// samples.
    [] FittedSblr;
    fn(&self, data, targets) {
        positive_class(&self.decision_function(data)?, targets)
    }
}

/// `sigmoid` of each binary decision value: `P(class 1 | X_i)`.
pub(crate) fn probabilities(decision: Vec<f64>) -> Vec<f64> {
    decision.into_iter().map(sigmoid).collect()
}

/// Class index 1 where the decision value is positive, else 0, into `targets` (of the
/// same length).
pub(crate) fn positive_class(decision: &[f64], targets: &mut [usize]) -> Result<()> {
    bl_core::error::ensure_len("predict: targets", decision.len(), targets.len())?;
    for (label, &f) in targets.iter_mut().zip(decision) {
        *label = usize::from(f > 0.0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats other than JSON can carry NaN and infinities: the checks catch them.
    #[test]
    fn non_finite_entries_are_rejected_by_name() {
        let errors = saved::rejected_edits(
            &Sblr::params().max_iter(5),
            FittedSblr::validate,
            &[
                ("u", &|m: &mut FittedSblr| m.u[1] = f64::NAN),
                ("v", &|m: &mut FittedSblr| m.v[0] = f64::INFINITY),
                ("intercept", &|m: &mut FittedSblr| m.intercept = f64::NAN),
                ("objective", &|m: &mut FittedSblr| m.objective = f64::NAN),
            ],
        );
        // The factors' errors give the index of the entry.
        for err in &errors[..2] {
            assert!(err.to_string().contains("index"), "{err}");
        }
    }
}
