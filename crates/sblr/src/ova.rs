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

use std::time::{Duration, Instant};

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

    /// As [`fit_signs`](Self::fit_signs), with `observers` seeing every iteration of the
    /// fit, whatever its trace setting. The estimators of this crate pass them to their
    /// fit; the default fits and then shows the observers the fitted model's trace (none
    /// when the estimator's trace is off).
    ///
    /// # Errors
    /// Whatever the estimator's fit returns.
    fn fit_signs_observed<T: Element>(
        &self,
        data: &MatrixDataset<T>,
        y: Vec<f64>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Self::Fitted> {
        let model = self.fit_signs(data, y)?;
        show_records(model.report().trace.records(), observers);
        Ok(model)
    }

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
        self.fit_signs_observed(data, y, &mut [])
    }

    fn fit_signs_observed<T: Element>(
        &self,
        data: &MatrixDataset<T>,
        y: Vec<f64>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedSblr> {
        let (s, t) = data.shape();
        bl_core::error::ensure_len("labels", data.n_samples(), y.len())?;
        fit_stacked(data.stacked(), s, t, y, self, observers)
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

    fn fit_signs_observed<T: Element>(
        &self,
        data: &MatrixDataset<T>,
        y: Vec<f64>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedLogisticRegression> {
        self.fit_signs_impl(data, &y, observers)
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
    /// [`Fitted::report`]), whose `elapsed` is the wall-clock time of the whole fit.
    /// Observers see every iteration of every class fit (whatever the trace setting;
    /// [`BinaryEstimator::fit_signs_observed`]), class by class, numbered on across the
    /// classes and without extras as in the report's trace, once all fits are done (the
    /// class fits run in parallel, observers on the calling thread); their times count
    /// from the start of the one-vs-all fit.
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
        let started = Instant::now();
        let observed = !observers.is_empty();
        let runs = bl_core::iteration::Pool::new(self.estimator.threads())?.install(|| {
            (0..data.n_classes())
                .into_par_iter()
                .map(|c| {
                    let start = started.elapsed();
                    let y = class_signs(data.labels(), c);
                    // Observers are not `Send`: each class fit records what they would see
                    // (only when there are observers), shown to them afterwards.
                    let mut seen = Trace::default();
                    let model = if observed {
                        self.estimator.fit_signs_observed(data, y, &mut [&mut seen])
                    } else {
                        self.estimator.fit_signs(data, y)
                    };
                    model.map(|m| (m, start, seen))
                })
                .collect::<Vec<Result<_>>>()
        });
        // The first error in class order (rayon's own collect into a `Result` returns
        // whichever failing task it meets first, which can change from run to run).
        let runs = runs.into_iter().collect::<Result<Vec<_>>>()?;
        let elapsed = started.elapsed();
        let mut models = Vec::with_capacity(runs.len());
        let mut starts = Vec::with_capacity(runs.len());
        let mut before = 0_usize;
        for (model, start, seen) in runs {
            let mut shown = Renumbered {
                observers: &mut *observers,
                before,
                start,
            };
            show_records(seen.records(), &mut [&mut shown]);
            before = before.saturating_add(model.report().iterations);
            models.push(model);
            starts.push(start);
        }
        let class_names = data.class_names().to_vec();
        Ok(assemble(models, class_names, Some((&starts, elapsed))))
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
/// order): their runs summed up in one report ([`combined_report`] with `timing`; none for
/// models fitted elsewhere: their times summed).
pub(crate) fn assemble<M: Fitted>(
    models: Vec<M>,
    class_names: Vec<String>,
    timing: Option<(&[Duration], Duration)>,
) -> FittedOneVsAll<M> {
    FittedOneVsAll {
        report: combined_report(&models, timing),
        models,
        class_names,
    }
}

/// An observer of one class fit that shows every iteration to `observers`, numbered on
/// after the `before` iterations of the previous classes, its time counted from `start`
/// (the class fit's start within the one-vs-all fit), without extras (as the records of
/// the one-vs-all report's trace).
pub(crate) struct Renumbered<'a, 'b> {
    pub(crate) observers: &'a mut [&'b mut dyn Observer],
    pub(crate) before: usize,
    pub(crate) start: Duration,
}

impl Observer for Renumbered<'_, '_> {
    fn observe(&mut self, view: &IterationView<'_>) {
        let view = IterationView {
            iteration: self.before.saturating_add(view.iteration),
            elapsed: self.start.saturating_add(view.elapsed),
            extras: &[],
            ..*view
        };
        for observer in self.observers.iter_mut() {
            observer.observe(&view);
        }
    }
}

/// Shows recorded iterations to `observers`, in order, without their extras.
fn show_records(records: &[TraceRecord], observers: &mut [&mut dyn Observer]) {
    for record in records {
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
}

/// The runs of the class models as one report: iterations and objectives summed;
/// converged when every class converged, else the first other termination; the trace is
/// the classes' records one after the other, numbered on, without extras (the
/// per-class traces, with extras, are in each model's own report). With `timing`
/// (`(starts, total)`: each class fit's start and the whole fit's wall-clock time, as a
/// one-vs-all fit measures them) `elapsed` is `total` and each record's time counts from
/// the start of the whole fit; without (class models fitted elsewhere or loaded) the
/// classes' times are summed, as if they had run one after the other. Counts saturate, so
/// a loaded model with absurd counts cannot overflow.
pub(crate) fn combined_report<M: Fitted>(
    models: &[M],
    timing: Option<(&[Duration], Duration)>,
) -> FitReport {
    let mut trace = Trace::default();
    let (mut iterations, mut objective, mut elapsed) = (0_usize, 0.0, Duration::ZERO);
    let mut termination = TerminationReason::Converged;
    for (c, model) in models.iter().enumerate() {
        let report = model.report();
        let start = timing.map_or(elapsed, |(starts, _)| {
            starts.get(c).copied().unwrap_or_default()
        });
        for record in report.trace.records() {
            trace.push(TraceRecord {
                iteration: iterations.saturating_add(record.iteration),
                objective: record.objective,
                change: record.change,
                elapsed_s: start.as_secs_f64() + record.elapsed_s,
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
        elapsed: timing.map_or(elapsed, |(_, total)| total),
        trace,
    }
}

/// One fitted binary model per class.
///
/// Deserializing (by any serde format; each binary model validates itself) checks that
/// there are as many models as class names, at least two, with distinct names, and that
/// every model takes samples of the same shape. The report is saved with the models and
/// must agree with them (the class models' iterations summed, their termination and
/// number of trace records, as [`OneVsAll`] sums them up); a model saved without it
/// (before it was saved) gets the report of its class models, their times summed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    try_from = "RawFittedOneVsAll<M>",
    bound(deserialize = "M: BinaryDecision + Fitted + Deserialize<'de>")
)]
pub struct FittedOneVsAll<M> {
    models: Vec<M>,
    class_names: Vec<String>,
    report: FitReport,
}

/// The fields of a saved [`FittedOneVsAll`], before validation.
#[derive(Deserialize)]
struct RawFittedOneVsAll<M> {
    models: Vec<M>,
    class_names: Vec<String>,
    #[serde(default)]
    report: Option<FitReport>,
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
        let runs = combined_report(&raw.models, None);
        let report = match raw.report {
            None => runs,
            Some(saved) => {
                let summary =
                    |r: &FitReport| (r.iterations, r.termination, r.trace.records().len());
                if summary(&saved) != summary(&runs) {
                    let show = |(iterations, termination, records): (_, _, _)| {
                        format!("{iterations} iterations, {termination:?}, {records} trace records")
                    };
                    return Err(saved::bad(
                        MODEL,
                        "report",
                        format!("the class models' runs ({})", show(summary(&runs))),
                        show(summary(&saved)),
                    ));
                }
                saved
            }
        };
        Ok(Self {
            report,
            models: raw.models,
            class_names: raw.class_names,
        })
    }
}

impl<M> Fitted for FittedOneVsAll<M> {
    /// The class fits summed up (see [`OneVsAll`]'s `fit_observed`); each class model has
    /// its own report. `elapsed` is the wall-clock time of the one-vs-all fit (the classes
    /// may run in parallel); for a model assembled from class models fitted elsewhere
    /// ([`crate::distributed::one_vs_all`]), or loaded from a file saved without its
    /// report, the sum of the class fits' times.
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
