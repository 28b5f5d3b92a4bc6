//! One-vs-all over any binary estimator of this crate (the paper's multi-class protocol).
//!
//! For each class `c` a binary model is fitted with `y = +1` for class `c` and `-1` for the
//! rest, on the same data buffer (relabelling never copies the samples); the prediction
//! is the class with the largest decision value. The classes are fitted in parallel
//! (rayon).
//!
//! [`OneVsAll`] follows the params convention of the crate: it is a builder over the
//! builder of a binary estimator (`OneVsAll::new(Sblr::params())`), whose
//! [`ParamGuard::check`] checks the wrapped builder and gives [`OneVsAllValidParams`]
//! over its checked form; `Fit` is implemented on that checked form (the builder fits
//! through bl-core's blanket implementation, checking first). [`BinaryEstimator`] is
//! implemented by the checked parameters of the binary models.

use std::time::Duration;

use bl_core::data::{Element, MatrixDataset};
use bl_core::engine::{FitReport, IterationView, Observer, TerminationReason, Trace, TraceRecord};
use bl_core::{Fit, Fitted};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Result, SblrError};
use crate::linear::{FittedLogisticRegression, LogisticValidParams};
use crate::model::{FittedSblr, fit_stacked};
use crate::params::SblrValidParams;
use crate::saved;
use bl_core::ParamGuard;

/// Checked parameters of a binary estimator that can be fitted with explicit `±1` labels.
pub trait BinaryEstimator: Sync {
    /// The fitted model.
    type Fitted: BinaryDecision + Fitted + Send;
    /// Fits on `data` with the labels `y` (`±1`, one per sample), ignoring the data set's
    /// own labels.
    ///
    /// # Errors
    /// Whatever the estimator's fit returns.
    fn fit_signs<T: Element>(&self, data: &MatrixDataset<T>, y: Vec<f64>) -> Result<Self::Fitted>;

    /// The worker threads of a fit (the estimator's `threads`; `None`: rayon's global
    /// pool). One-vs-all runs its class fits on them too, so `Some(1)` fits the classes one
    /// after the other. The default is `None`.
    fn threads(&self) -> Option<usize> {
        None
    }
}

/// A fitted binary model's decision values (positive means the `+1` class).
pub trait BinaryDecision {
    /// Decision values of every sample.
    ///
    /// # Errors
    /// Samples of the wrong shape; `BlError::Numerical` (as `SblrError::Core`) when a
    /// decision value overflows.
    fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>>;

    /// The sample shape `(s, t)` the model takes.
    fn sample_shape(&self) -> (usize, usize);
}

impl BinaryEstimator for SblrValidParams {
    type Fitted = FittedSblr;
    fn fit_signs<T: Element>(&self, data: &MatrixDataset<T>, y: Vec<f64>) -> Result<FittedSblr> {
        let (s, t) = data.shape();
        bl_core::error::ensure_len("labels", data.n_samples(), y.len())?;
        fit_stacked(data.stacked(), s, t, y, self, &mut [])
    }

    fn threads(&self) -> Option<usize> {
        self.iteration().threads
    }
}

impl BinaryDecision for FittedSblr {
    fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>> {
        FittedSblr::decision_function(self, data)
    }
    fn sample_shape(&self) -> (usize, usize) {
        self.shape()
    }
}

impl BinaryEstimator for LogisticValidParams {
    type Fitted = FittedLogisticRegression;
    fn fit_signs<T: Element>(
        &self,
        data: &MatrixDataset<T>,
        y: Vec<f64>,
    ) -> Result<FittedLogisticRegression> {
        self.fit_signs_impl(data, &y, &mut [])
    }

    fn threads(&self) -> Option<usize> {
        self.iteration().threads
    }
}

impl BinaryDecision for FittedLogisticRegression {
    fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<f64>> {
        FittedLogisticRegression::decision_function(self, data)
    }
    fn sample_shape(&self) -> (usize, usize) {
        self.shape()
    }
}

/// One-vs-all over the builder of a binary estimator:
/// `OneVsAll::new(Sblr::params().rank(1)).fit(&data)` (see the
/// [module documentation](self)).
#[derive(Debug, Clone)]
pub struct OneVsAll<E> {
    estimator: E,
}

impl<E> OneVsAll<E> {
    /// Wraps the builder of a binary estimator.
    pub fn new(estimator: E) -> Self {
        Self { estimator }
    }
}

/// Checked one-vs-all parameters: the checked parameters of the binary estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct OneVsAllValidParams<C> {
    estimator: C,
}

impl<C> OneVsAllValidParams<C> {
    /// The checked parameters of the binary estimator fitted per class.
    pub fn estimator(&self) -> &C {
        &self.estimator
    }
}

impl<E> ParamGuard for OneVsAll<E>
where
    E: ParamGuard,
    E::Checked: BinaryEstimator,
    SblrError: From<E::Error>,
{
    type Checked = OneVsAllValidParams<E::Checked>;
    type Error = SblrError;

    /// Checks the wrapped builder.
    ///
    /// # Errors
    /// The wrapped builder's.
    fn check(&self) -> Result<OneVsAllValidParams<E::Checked>> {
        Ok(OneVsAllValidParams {
            estimator: self.estimator.check()?,
        })
    }
}

impl<E: BinaryEstimator, T: Element> Fit<MatrixDataset<T>> for OneVsAllValidParams<E> {
    type Fitted = FittedOneVsAll<E::Fitted>;
    type Error = SblrError;

    /// Fits one binary model per class, in parallel on the estimator's threads
    /// ([`BinaryEstimator::threads`]: `Some(1)` fits them one after the other, each on one
    /// thread). The classes' runs are summed up in one report ([`FittedOneVsAll`]'s
    /// [`Fitted::report`]); observers see its records, class by class, once all fits are
    /// done.
    ///
    /// # Errors
    /// [`SblrError::MissingClass`] when a class has no sample; any binary fit's error.
    fn fit_observed(
        &self,
        data: &MatrixDataset<T>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedOneVsAll<E::Fitted>> {
        let counts = data.class_counts();
        if let Some(k) = counts.iter().position(|&c| c == 0) {
            return Err(SblrError::MissingClass {
                class: data.class_names()[k].clone(),
            });
        }
        let models = bl_core::iteration::Pool::new(self.estimator.threads())?.install(|| {
            (0..data.n_classes())
                .into_par_iter()
                .map(|c| {
                    self.estimator
                        .fit_signs(data, class_signs(data.labels(), c))
                })
                .collect::<Vec<Result<_>>>()
        });
        // The first error in class order (rayon's own collect into a `Result` returns
        // whichever failing task it meets first, which can change from run to run).
        let models = models.into_iter().collect::<Result<Vec<_>>>()?;
        Ok(assemble(models, data.class_names().to_vec(), observers))
    }
}

/// The `±1` labels of class `class` against the rest: `+1` where `labels` (class
/// indices, one per sample) is `class`, `-1` elsewhere. What each binary model of
/// one-vs-all is fitted on (e.g. with [`crate::distributed::fit_binary`]).
#[must_use]
pub fn class_signs(labels: &[usize], class: usize) -> Vec<f64> {
    labels
        .iter()
        .map(|&l| if l == class { 1.0 } else { -1.0 })
        .collect()
}

/// The fitted one-vs-all model of the class models `models` (one per class name, in
/// order): their runs summed up in one report, whose records `observers` see class by
/// class.
pub(crate) fn assemble<M: Fitted>(
    models: Vec<M>,
    class_names: Vec<String>,
    observers: &mut [&mut dyn Observer],
) -> FittedOneVsAll<M> {
    let report = combined_report(&models);
    for record in report.trace.records() {
        let view = IterationView {
            iteration: record.iteration,
            objective: record.objective,
            change: record.change,
            elapsed: Duration::try_from_secs_f64(record.elapsed_s).unwrap_or_default(),
            extras: &[],
        };
        for observer in observers.iter_mut() {
            observer.observe(&view);
        }
    }
    FittedOneVsAll {
        models,
        class_names,
        report,
    }
}

/// The runs of the class models as one report: iterations, objectives and times summed;
/// converged when every class converged, else the first other termination; the trace is
/// the classes' records one after the other, numbered on, without extras (the
/// per-class traces, with extras, are in each model's own report). Counts saturate, so a
/// loaded model with absurd counts cannot overflow.
fn combined_report<M: Fitted>(models: &[M]) -> FitReport {
    let mut trace = Trace::default();
    let (mut iterations, mut objective, mut elapsed) = (0_usize, 0.0, Duration::ZERO);
    let mut termination = TerminationReason::Converged;
    for model in models {
        let report = model.report();
        for record in report.trace.records() {
            trace.push(TraceRecord {
                iteration: iterations.saturating_add(record.iteration),
                objective: record.objective,
                change: record.change,
                elapsed_s: elapsed.as_secs_f64() + record.elapsed_s,
                extras: Vec::new(),
            });
        }
        iterations = iterations.saturating_add(report.iterations);
        objective += report.objective;
        elapsed = elapsed.saturating_add(report.elapsed);
        if termination.is_converged() && !report.termination.is_converged() {
            termination = report.termination;
        }
    }
    FitReport {
        iterations,
        termination,
        objective,
        elapsed,
        trace,
    }
}

/// One fitted binary model per class.
///
/// Deserializing (by any serde format; each binary model validates itself) checks that
/// there are as many models as class names, at least two, with distinct names, and that
/// every model takes samples of the same shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    try_from = "RawFittedOneVsAll<M>",
    bound(deserialize = "M: BinaryDecision + Fitted + Deserialize<'de>")
)]
pub struct FittedOneVsAll<M> {
    models: Vec<M>,
    class_names: Vec<String>,
    #[serde(skip)]
    report: FitReport,
}

/// The fields of a saved [`FittedOneVsAll`], before validation.
#[derive(Deserialize)]
struct RawFittedOneVsAll<M> {
    models: Vec<M>,
    class_names: Vec<String>,
}

impl<M: BinaryDecision + Fitted> TryFrom<RawFittedOneVsAll<M>> for FittedOneVsAll<M> {
    type Error = SblrError;

    fn try_from(raw: RawFittedOneVsAll<M>) -> Result<Self> {
        const MODEL: &str = "FittedOneVsAll";
        saved::class_names(MODEL, &raw.class_names, None)?;
        saved::length(
            MODEL,
            "models",
            raw.class_names.len(),
            "one binary model per class name",
            raw.models.len(),
        )?;
        let shape = raw.models[0].sample_shape();
        if let Some((c, other)) = raw
            .models
            .iter()
            .enumerate()
            .find(|(_, m)| m.sample_shape() != shape)
        {
            let (s, t) = other.sample_shape();
            return Err(saved::bad(
                MODEL,
                "models",
                format!(
                    "every model on {} x {} samples (as model 0)",
                    shape.0, shape.1
                ),
                format!("model {c} on {s} x {t} samples"),
            ));
        }
        Ok(Self {
            report: combined_report(&raw.models),
            models: raw.models,
            class_names: raw.class_names,
        })
    }
}

impl<M> Fitted for FittedOneVsAll<M> {
    /// The class fits summed up (see [`OneVsAll`]'s `fit_observed`); each class model has
    /// its own report.
    fn report(&self) -> &FitReport {
        &self.report
    }
}

impl<M: BinaryDecision> FittedOneVsAll<M> {
    /// The binary model of each class (class `c` against the rest).
    pub fn models(&self) -> &[M] {
        &self.models
    }

    /// Class names.
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// Decision values, `scores[i][c]` for sample `i` and class `c`.
    ///
    /// # Errors
    /// As the class models' [`BinaryDecision::decision_function`] (samples of the wrong
    /// shape, an overflowing decision value); `BlError::InvalidParameter` (as
    /// `SblrError::Core`) when the scores (`n x classes` values) exceed
    /// [`bl_core::limits::MAX_ELEMENTS`].
    pub fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<Vec<f64>>> {
        bl_core::limits::buffer_len(
            "FittedOneVsAll: n x classes",
            &[data.n_samples(), self.models.len()],
        )?;
        let per_class = self
            .models
            .iter()
            .map(|m| m.decision_function(data))
            .collect::<Result<Vec<_>>>()?;
        Ok((0..data.n_samples())
            .map(|i| per_class.iter().map(|f| f[i]).collect())
            .collect())
    }
}

predict_labels! {
    /// The class with the largest decision value, for every sample.
    ///
    /// # Errors
    /// As [`FittedOneVsAll::decision_function`]; `targets` of another length than the
    /// data's samples.
    [M: BinaryDecision,] FittedOneVsAll<M>;
    fn(&self, data, targets) {
        argmax_rows(&self.decision_function(data)?, targets)
    }
}

/// [`argmax`] of every row of scores, into `targets` (one per row).
pub(crate) fn argmax_rows(scores: &[Vec<f64>], targets: &mut [usize]) -> Result<()> {
    bl_core::error::ensure_len("predict: targets", scores.len(), targets.len())?;
    for (label, row) in targets.iter_mut().zip(scores) {
        *label = argmax(row);
    }
    Ok(())
}

pub(crate) fn argmax(row: &[f64]) -> usize {
    let mut best = 0;
    for (c, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = c;
        }
    }
    best
}
