//! The fit (module docs of [`super`]): CRFsuite's trainers ([`crfsuite_fit`]) and the
//! bilinear learners on the same items, the log, the held-out scores and the facts of a
//! fit.

use bl_core::engine::{IterationView, Observer};
use bl_core::{Fit, FitReport, Fitted};
use chain_crf::{
    Dataset, DatasetBuilder, Dictionary, FittedCrf, Items, IterationLog, ParamGuard, UNKNOWN_LABEL,
};
use online_bilinear::{BuiltIn, OblError, TaggerParams};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::items::{Counts, read_labelled};
use super::model::{CrfModel, Inner, bilinear_error};
use super::params::{BILINEAR, Given, algorithms_taking, common_of, crf_params, parameters_of};
use crate::errors::guarded;
use crate::keywords::set_if_given;

/// One iteration of the log as a dict of sklearn-crfsuite's log keys where the trainer
/// has them (`time` is the time since the start here; Python turns it into the
/// iteration's own time).
fn log_entry<'py>(py: Python<'py>, e: &IterationLog) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("num", e.iteration)?;
    d.set_item("loss", e.loss)?;
    d.set_item("feature_norm", e.feature_norm)?;
    d.set_item("active_features", e.active_features)?;
    d.set_item("time", e.time)?;
    if let Some(v) = e.error_norm {
        d.set_item("error_norm", v)?;
    }
    if let Some(v) = e.linesearch_trials {
        d.set_item("linesearch_trials", v)?;
    }
    if let Some(v) = e.learning_rate {
        d.set_item("learning_rate", v)?;
    }
    if let Some(v) = e.errors {
        d.set_item("errors", v)?;
    }
    if let Some(h) = e.holdout {
        d.set_item("item_accuracy_float", h.item_accuracy)?;
        d.set_item("instance_accuracy_float", h.instance_accuracy)?;
    }
    Ok(d)
}

/// `(match, model, ref)`: correct, predicted and true occurrences of one label.
type LabelCounts = (usize, usize, usize);

/// The returned model on held-out data: per label `(match, model, ref)` counts
/// (CRFsuite's evaluation: correct, predicted and true occurrences), item accuracy and
/// sequence accuracy. `tag(s, items)` gives the label ids of sequence `s`.
pub(super) struct Holdout {
    labels: Vec<LabelCounts>,
    item_accuracy: f64,
    instance_accuracy: f64,
}

pub(super) fn score_holdout(
    n_labels: usize,
    dev: &Dataset,
    tag: impl Fn(usize, Items<'_>) -> PyResult<Vec<u32>>,
) -> PyResult<Holdout> {
    let mut labels = vec![(0, 0, 0); n_labels];
    let (mut right, mut items, mut whole) = (0usize, 0usize, 0usize);
    for (s, x) in dev.iter().enumerate() {
        let path = tag(s, x.items)?;
        let ok = path.iter().zip(x.labels).filter(|(p, y)| p == y).count();
        right += ok;
        items += x.labels.len();
        whole += usize::from(ok == x.labels.len());
        for (&p, &y) in path.iter().zip(x.labels) {
            labels[p as usize].1 += 1;
            if y != UNKNOWN_LABEL {
                labels[y as usize].2 += 1;
                if p == y {
                    labels[y as usize].0 += 1;
                }
            }
        }
    }
    Ok(Holdout {
        labels,
        item_accuracy: right as f64 / items.max(1) as f64,
        instance_accuracy: whole as f64 / dev.len().max(1) as f64,
    })
}

/// Reads the training data and, with both `X_dev` and `y_dev`, the held-out data with the
/// training data's dictionaries.
fn read_data(
    (x, y): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    dev: (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
) -> PyResult<(Dataset, Option<(Dataset, Counts)>)> {
    let mut b = DatasetBuilder::new();
    read_labelled(&mut b, x, y, ("X", "y"))?;
    let train = b.finish();
    let dev = read_dev(dev, train.attributes(), train.labels())?;
    Ok((train, dev))
}

/// Reads the held-out data (`X_dev` and `y_dev`, both or neither) with the training
/// data's dictionaries `attributes` and `labels`.
pub(super) fn read_dev(
    (x_dev, y_dev): (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
    attributes: &Dictionary,
    labels: &Dictionary,
) -> PyResult<Option<(Dataset, Counts)>> {
    match (x_dev, y_dev) {
        (None, None) => Ok(None),
        (Some(xd), Some(yd)) => {
            let mut b = DatasetBuilder::frozen(attributes.clone(), labels.clone());
            let counts = read_labelled(&mut b, xd, yd, ("X_dev", "y_dev"))?;
            Ok(Some((b.finish(), counts)))
        }
        _ => Err(PyValueError::new_err(
            "Pass both X_dev and y_dev to use the holdout data",
        )),
    }
}

/// The facts of a fit: features, iterations, termination, seconds, and the held-out
/// counts per label.
fn fit_info<'py>(
    py: Python<'py>,
    n_features: usize,
    report: &FitReport,
    label_names: &[String],
    dev: Option<(Counts, &Holdout)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("n_features", n_features)?;
    d.set_item("iterations", report.iterations)?;
    d.set_item("termination", format!("{:?}", report.termination))?;
    d.set_item("seconds", report.elapsed.as_secs_f64())?;
    if let Some((counts, h)) = dev {
        d.set_item("dev_sequences", counts.sequences)?;
        d.set_item("dev_items", counts.items)?;
        let per = PyDict::new(py);
        for (name, c) in label_names.iter().zip(&h.labels) {
            per.set_item(name, c)?;
        }
        d.set_item("dev_label_counts", per)?;
    }
    Ok(d)
}

/// What [`crfsuite_fit`] returns: the model, the log and the facts of the fit.
pub(super) type FitOutput<'py> = (CrfModel, Bound<'py, PyList>, Bound<'py, PyDict>);

/// Trains a CRF on `x` (sequences of items, module docs) with labels `y`; `x_dev` and
/// `y_dev` (both or neither) are scored after every iteration (`bol`, `bcd`, `sp`: once,
/// after the fit). `params` holds sklearn-crfsuite's keyword parameters that are not
/// `None`; `threads` the fit's worker threads; `on_iteration(num, loss, seconds)` is
/// called after every iteration (with the GIL, from the fit) by CRFsuite's trainers, never
/// for `bol`, `bcd`, `sp`. Returns the model, the log (one dict per iteration) and a dict of
/// facts about the fit. Releases the GIL while training.
#[pyfunction]
#[pyo3(signature = (x, y, x_dev=None, y_dev=None, *, algorithm, params, threads=None, on_iteration=None))]
#[allow(clippy::too_many_arguments)]
pub fn crfsuite_fit<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    x_dev: Option<&Bound<'py, PyAny>>,
    y_dev: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
    params: &Bound<'py, PyDict>,
    threads: Option<usize>,
    on_iteration: Option<Py<PyAny>>,
) -> PyResult<FitOutput<'py>> {
    if BILINEAR.contains(&algorithm) {
        return fit_bilinear(py, (x, y), (x_dev, y_dev), algorithm, params, threads);
    }
    let unchecked = crf_params(algorithm, params, threads)?;
    let checked = guarded(|| unchecked.check())?;
    let (train, dev) = read_data((x, y), (x_dev, y_dev))?;
    let mut callback = OnIteration::new(on_iteration);
    let (fitted, labels) = py.detach(|| {
        let holdout = dev.as_ref().map(|(d, _)| d);
        let fitted = guarded(|| checked.fit_with_holdout(&train, holdout, &mut [&mut callback]))?;
        let model = fitted.model();
        let labels = holdout
            .map(|d| score_holdout(model.n_labels(), d, |_, x| Ok(model.tag(x).0)))
            .transpose()?;
        Ok::<_, PyErr>((fitted, labels))
    })?;
    callback.finish()?;
    let dev_info = dev.map(|(_, c)| c).zip(labels.as_ref());
    crf_output(py, fitted, dev_info)
}

/// The observer of a fit that calls the Python `on_iteration(num, loss, seconds)` (when
/// given) after every iteration, with the GIL; after its first exception it is not
/// called again, and [`OnIteration::finish`] raises that exception.
pub(super) struct OnIteration {
    callback: Option<Py<PyAny>>,
    error: Option<PyErr>,
}

impl OnIteration {
    pub(super) fn new(callback: Option<Py<PyAny>>) -> Self {
        Self {
            callback,
            error: None,
        }
    }

    /// The exception of the callback, if it raised one.
    pub(super) fn finish(self) -> PyResult<()> {
        self.error.map_or(Ok(()), Err)
    }
}

impl Observer for OnIteration {
    fn observe(&mut self, view: &IterationView<'_>) {
        if let (Some(cb), None) = (&self.callback, &self.error) {
            let seconds = view.elapsed.as_secs_f64();
            Python::attach(|py| {
                if let Err(e) = cb.call1(py, (view.iteration, view.objective, seconds)) {
                    self.error = Some(e);
                }
            });
        }
    }
}

/// What a CRF fit returns to Python (see [`FitOutput`]): the model, its log and the facts
/// of the fit, with the held-out counts `dev`.
pub(super) fn crf_output<'py>(
    py: Python<'py>,
    fitted: FittedCrf,
    dev: Option<(Counts, &Holdout)>,
) -> PyResult<FitOutput<'py>> {
    let log = PyList::empty(py);
    for e in fitted.log() {
        log.append(log_entry(py, e)?)?;
    }
    let model = fitted.model();
    let info = fit_info(
        py,
        model.features().len(),
        fitted.report(),
        model.labels().names(),
        dev,
    )?;
    if let Some(seconds) = fitted.feature_generation() {
        info.set_item("featgen_seconds", seconds.as_secs_f64())?;
    }
    Ok((
        CrfModel {
            inner: Inner::Crf(fitted.into_model()),
        },
        log,
        info,
    ))
}

/// Trains `online-bilinear`'s learner `algorithm` (`bol`, `bcd`, `sp`) on the same items:
/// attribute ids are its feature ids, a bias feature carries the label transitions, and
/// attribute values must be 0 or 1 (its features are binary). `max_iterations` (epochs),
/// `epsilon` (stop after an epoch in which at most this fraction of the sequences caused an
/// update) and the others of [`parameters_of`] (`c`, `averaging`, `zero_order`,
/// `transitions_only`) are read; any other parameter is a `ValueError`. The log has one
/// entry per epoch (`loss` is the epoch's token error rate); with held-out data, its
/// accuracy under the returned model is in the last entry.
fn fit_bilinear<'py>(
    py: Python<'py>,
    (x, y): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    dev: (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
    algorithm: &str,
    given: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<FitOutput<'py>> {
    let known = parameters_of(algorithm);
    for key in given.keys() {
        let key: String = key.extract()?;
        if !common_of(algorithm).contains(&key.as_str()) && !known.contains(&key.as_str()) {
            let takers = algorithms_taking(&key);
            let taken_by = if takers.is_empty() {
                "no algorithm takes it".to_owned()
            } else {
                format!("it applies to {}", takers.join(", "))
            };
            return Err(PyValueError::new_err(format!(
                "parameter {key} does not apply to algorithm {algorithm:?} ({taken_by}; \
                 {algorithm} takes max_iterations and {}): leave it None",
                known.join(", ")
            )));
        }
    }
    let g = Given {
        dict: given.clone(),
    };
    let learner = BuiltIn::from_name(algorithm)
        .ok_or_else(|| PyValueError::new_err(format!("invalid algorithm {algorithm:?}")))?;
    let params = TaggerParams::builtin(learner).threads(threads).trace(true);
    let params = set_if_given(params, g.count("max_iterations")?, TaggerParams::max_iter);
    let params = set_if_given(params, g.float("epsilon")?, TaggerParams::tol);
    let params = set_if_given(params, g.float("c")?, TaggerParams::c);
    let params = set_if_given(params, g.flag("averaging")?, TaggerParams::averaging);
    let params = set_if_given(params, g.flag("zero_order")?, TaggerParams::zero_order);
    let params = set_if_given(
        params,
        g.flag("transitions_only")?,
        TaggerParams::transitions_only,
    );
    let checked = guarded(|| params.check())?;
    let (train, dev) = read_data((x, y), dev)?;
    let tagger = py
        .detach(|| guarded(|| Ok::<_, OblError>(checked.fit(&train))))?
        .map_err(|e| bilinear_error(e, algorithm, "X", None))?;
    let report = tagger.report().clone();
    let scored = dev
        .as_ref()
        .map(|(d, counts)| {
            let h = score_holdout(train.labels().len(), d, |s, x| {
                py.detach(|| guarded(|| Ok::<_, OblError>(tagger.tag_items(x))))?
                    .map_err(|e| bilinear_error(e, algorithm, "X_dev", Some(s)))
            })?;
            Ok::<_, PyErr>((*counts, h))
        })
        .transpose()?;
    let log = PyList::empty(py);
    let records = report.trace.records();
    for (k, r) in records.iter().enumerate() {
        let d = PyDict::new(py);
        d.set_item("num", r.iteration)?;
        d.set_item("loss", r.objective)?;
        d.set_item("time", r.elapsed_s)?;
        if let Some((_, v)) = r.extras.iter().find(|(n, _)| n == "token_errors") {
            d.set_item("errors", *v as usize)?;
        }
        if let (Some((_, h)), true) = (&scored, k + 1 == records.len()) {
            d.set_item("item_accuracy_float", h.item_accuracy)?;
            d.set_item("instance_accuracy_float", h.instance_accuracy)?;
        }
        log.append(d)?;
    }
    let dev_info = scored.as_ref().map(|(c, h)| (*c, h));
    let info = fit_info(
        py,
        tagger.n_features(),
        &report,
        train.labels().names(),
        dev_info,
    )?;
    let model = Inner::Bilinear {
        tagger: Box::new(tagger),
        attributes: train.attributes().clone(),
        labels: train.labels().clone(),
    };
    Ok((CrfModel { inner: model }, log, info))
}
