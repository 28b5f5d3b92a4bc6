//! Online bilinear sequence taggers of the `online-bilinear` crate (Wu and Sun, "An
//! Online Learning Algorithm for Bilinear Models", ICML 2015), behind
//! `bilinear.BilinearTagger`.

use online_bilinear::{
    BuiltIn, Corpus, FittedTagger, OblError, Sentence, TaggerParams, Template, Templates,
};
use online_bilinear::{Fit, Fitted, Predict};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{choose, guarded};
use crate::keywords::set_if_given;

/// A fitted tagger (pickles through the crate's JSON form).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct TaggerModel {
    inner: FittedTagger,
}

fn learner(name: &str) -> PyResult<BuiltIn> {
    BuiltIn::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "invalid learner {name:?}: must be 'bol', 'bcd', 'sp', 'crf-l2' or 'crf-l1'"
        ))
    })
}

/// The named template set (`None`: the crate's default for the corpus,
/// `online_bilinear::default_templates`); with `bias`, the bias feature (active at every
/// position) first, which is the feature that carries the label transitions with
/// `transitions_only`.
fn templates(name: Option<&str>, bias: bool, corpus: &Corpus) -> PyResult<Option<Templates>> {
    let named = match name {
        Some(name) => choose(
            "templates",
            name,
            &[
                ("segmentation", Templates::segmentation()),
                ("chunking", Templates::chunking()),
                ("word", Templates::word_tagging()),
            ],
        )?,
        None if bias => guarded(|| online_bilinear::default_templates(corpus))?,
        None => return Ok(None),
    };
    if !bias || named.as_slice().contains(&Template::Bias) {
        return Ok(Some(named));
    }
    let mut list = vec![Template::Bias];
    list.extend_from_slice(named.as_slice());
    guarded(|| Templates::new(list)).map(Some)
}

/// Token columns (`columns[c][i]`: column `c` of token `i`) of every sentence.
type Columns = Vec<Vec<Vec<String>>>;

fn corpus(x: Columns, y: Option<Vec<Vec<String>>>) -> Result<Corpus, OblError> {
    let sentences = match y {
        Some(y) => {
            if y.len() != x.len() {
                return Err(bl_core::error::build::shape_mismatch(
                    "tag sequences",
                    x.len(),
                    y.len(),
                ));
            }
            x.into_iter()
                .zip(y)
                .map(|(cols, tags)| Sentence::new(cols, tags))
                .collect::<Result<Vec<_>, _>>()?
        }
        None => x
            .into_iter()
            .map(|cols| {
                let n = cols.first().map_or(0, Vec::len);
                Sentence::new(cols, vec![String::new(); n])
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(Corpus::new(sentences))
}

/// The crate's defaults of a learner's parameters (what the Python estimator's `None`
/// means): `max_iter`, `tol`, `c`, `power_steps`, `averaging`, `zero_order`,
/// `transitions_only`, `shuffle`, `seed`.
#[pyfunction]
pub fn tagger_defaults<'py>(py: Python<'py>, learner_name: &str) -> PyResult<Bound<'py, PyDict>> {
    use online_bilinear::ParamGuard;
    let builtin = learner(learner_name)?;
    let params = guarded(|| TaggerParams::builtin(builtin).check())?;
    let d = PyDict::new(py);
    d.set_item("max_iter", params.iteration().max_iter)?;
    d.set_item("tol", params.iteration().tol)?;
    d.set_item("c", params.c())?;
    d.set_item("power_steps", params.power_steps())?;
    d.set_item("averaging", params.averaging())?;
    d.set_item("zero_order", params.zero_order())?;
    d.set_item("transitions_only", params.transitions_only())?;
    d.set_item("shuffle", params.shuffle())?;
    d.set_item("seed", params.seed())?;
    Ok(d)
}

/// The optional settings of a fit (each `None`: the crate's default): the dict of the
/// Python estimator's `_knobs()`, which has every key (`max_iter`, `tol`, `threads`, `c`,
/// `power_steps`, `averaging`, `zero_order`, `transitions_only`, `cutoff`, `shuffle`,
/// `seed`).
#[derive(Debug, Clone, Copy, FromPyObject)]
#[pyo3(from_item_all)]
pub struct Knobs {
    max_iter: Option<usize>,
    tol: Option<f64>,
    threads: Option<usize>,
    c: Option<f64>,
    power_steps: Option<usize>,
    averaging: Option<bool>,
    zero_order: Option<bool>,
    transitions_only: Option<bool>,
    cutoff: Option<usize>,
    shuffle: Option<bool>,
    seed: Option<u64>,
}

/// The parameters of `learner_name` with `templates` and the knobs that are set.
fn params_from(
    learner_name: &str,
    templates: Option<Templates>,
    k: Knobs,
) -> PyResult<TaggerParams> {
    let params = TaggerParams::builtin(learner(learner_name)?).threads(k.threads);
    let params = set_if_given(params, templates, TaggerParams::templates);
    let params = set_if_given(params, k.max_iter, TaggerParams::max_iter);
    let params = set_if_given(params, k.tol, TaggerParams::tol);
    let params = set_if_given(params, k.c, TaggerParams::c);
    let params = set_if_given(params, k.power_steps, TaggerParams::power_steps);
    let params = set_if_given(params, k.averaging, TaggerParams::averaging);
    let params = set_if_given(params, k.zero_order, TaggerParams::zero_order);
    let params = set_if_given(params, k.transitions_only, TaggerParams::transitions_only);
    let params = set_if_given(params, k.cutoff, TaggerParams::cutoff);
    let params = set_if_given(params, k.shuffle, TaggerParams::shuffle);
    let params = set_if_given(params, k.seed, TaggerParams::seed);
    Ok(params)
}

/// Trains a tagger on sentences `x` (each a list of token columns) with tags `y`; every
/// setting of `knobs` left `None` takes the crate's default ([`tagger_defaults`]).
/// Releases the GIL.
#[pyfunction]
#[pyo3(signature = (x, y, *, learner_name, templates_name=None, knobs))]
pub fn tagger_fit(
    py: Python<'_>,
    x: Columns,
    y: Vec<Vec<String>>,
    learner_name: &str,
    templates_name: Option<&str>,
    knobs: Knobs,
) -> PyResult<TaggerModel> {
    let corpus = guarded(|| corpus(x, Some(y)))?;
    let transitions_only = knobs.transitions_only == Some(true);
    let templates = templates(templates_name, transitions_only, &corpus)?;
    let params = params_from(learner_name, templates, knobs)?;
    let inner = py.detach(|| guarded(|| params.fit(&corpus)))?;
    Ok(TaggerModel { inner })
}

#[pymethods]
impl TaggerModel {
    /// Tag sequences of sentences `x` (each a list of token columns).
    fn predict(&self, py: Python<'_>, x: Columns) -> PyResult<Vec<Vec<String>>> {
        py.detach(|| {
            guarded(|| -> Result<Vec<Vec<String>>, OblError> {
                self.inner.predict(&corpus(x, None)?)
            })
        })
    }

    /// `{"label_error_rate", "f1"}`: the label error rate and, for BMES / chunk tags, the
    /// word or chunk F1 (NaN for other tags).
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        x: Columns,
        y: Vec<Vec<String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let e = py.detach(|| guarded(|| self.inner.evaluate(&corpus(x, Some(y))?)))?;
        let d = PyDict::new(py);
        d.set_item("label_error_rate", e.label_error_rate)?;
        d.set_item("f1", e.f1())?;
        Ok(d)
    }

    /// The tag set.
    #[getter]
    fn tags(&self) -> Vec<String> {
        self.inner.tags().to_vec()
    }

    /// Number of features in the dictionary.
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }

    /// Iterations run (epochs of an online learner, 1 for a CRF).
    #[getter]
    fn n_iter(&self) -> usize {
        self.inner.report().iterations
    }

    /// The rank-1 factors `alpha`, `beta` (None for sp and the CRFs).
    #[getter]
    fn alpha(&self) -> Option<Vec<f64>> {
        self.inner.alpha().map(<[f64]>::to_vec)
    }

    #[getter]
    fn beta(&self) -> Option<Vec<f64>> {
        self.inner.beta().map(<[f64]>::to_vec)
    }

    /// The crate's JSON form.
    fn to_json(&self) -> PyResult<String> {
        guarded(|| self.inner.to_json())
    }

    /// A model from [`TaggerModel::to_json`]'s text; the crate validates it.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        Ok(Self {
            inner: guarded(|| FittedTagger::from_json(text))?,
        })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = slf.get().to_json()?;
        Ok((slf.get_type().getattr("from_json")?, (json,)))
    }
}

// ---------------------------------------------------------------------------------------
// Distributed training by iterative parameter mixing (`online_bilinear::distributed`),
// driven by `bilinear._tagger_dask`: a partition is validated and kept on its worker
// (`TaggerPartition`), counted once (`tagger_count`), encoded once with the plan
// (`TaggerShard`); per epoch only the weights (bytes) travel.

/// The arguments a pickled `TaggerPartition` is rebuilt from.
type PartitionArgs = (Columns, Vec<Vec<String>>, usize);

/// The arguments a pickled `TaggerShard` is rebuilt from.
type ShardArgs = (Py<TaggerPlan>, Py<TaggerPartition>);

/// `e` with its message prefixed by `partition {index}: ` (a `ValueError` stays one).
fn in_partition(py: Python<'_>, index: usize, e: PyErr) -> PyErr {
    if e.is_instance_of::<PyValueError>(py) {
        PyValueError::new_err(format!("partition {index}: {}", e.value(py)))
    } else {
        e
    }
}

/// The sentences of one partition of a distributed fit, as the crate's corpus (pickles by
/// its columns and tags, so it can move if Dask must move it).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct TaggerPartition {
    columns: Columns,
    tags: Vec<Vec<String>>,
    index: usize,
    corpus: Corpus,
}

#[pymethods]
impl TaggerPartition {
    /// Partition `index`: sentences `x` (token columns) with tags `y`. Errors name the
    /// partition.
    #[new]
    fn new(py: Python<'_>, x: Columns, y: Vec<Vec<String>>, index: usize) -> PyResult<Self> {
        let (columns, tags) = (x.clone(), y.clone());
        let corpus = py
            .detach(|| guarded(|| corpus(x, Some(y))))
            .map_err(|e| in_partition(py, index, e))?;
        Ok(Self {
            columns,
            tags,
            index,
            corpus,
        })
    }

    /// The templates this partition alone would get by default: `"segmentation"` (every
    /// token a single character, or no token) or `"word"`; a `ValueError` for several
    /// observation columns. (All partitions `"segmentation"`: the whole corpus's default is
    /// segmentation; otherwise word.)
    fn default_templates(&self) -> PyResult<&'static str> {
        let t = guarded(|| online_bilinear::default_templates(&self.corpus))
            .map_err(|e| Python::attach(|py| in_partition(py, self.index, e)))?;
        Ok(if t == Templates::segmentation() {
            "segmentation"
        } else {
            "word"
        })
    }

    /// Number of sentences.
    fn __len__(&self) -> usize {
        self.corpus.len()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, PartitionArgs)> {
        let me = slf.get();
        Ok((
            slf.get_type().into_any(),
            (me.columns.clone(), me.tags.clone(), me.index),
        ))
    }
}

/// The feature counts of a partition under the named templates (with the bias first when
/// `bias`), as JSON: what travels once to build the dictionary of the whole corpus.
#[pyfunction]
pub fn tagger_count(
    py: Python<'_>,
    partition: &TaggerPartition,
    templates_name: &str,
    bias: bool,
) -> PyResult<String> {
    let t = templates(Some(templates_name), bias, &partition.corpus)?
        .ok_or_else(|| PyValueError::new_err("no templates"))?;
    py.detach(|| {
        guarded(|| {
            online_bilinear::distributed::FeatureCounts::count(&partition.corpus, &t)?.to_json()
        })
    })
    .map_err(|e| in_partition(py, partition.index, e))
}

/// What every shard shares (`online_bilinear::distributed::IpmPlan`); pickles as its JSON.
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct TaggerPlan {
    inner: std::sync::Arc<online_bilinear::distributed::IpmPlan>,
}

/// The plan of a distributed fit of `n_shards` shards on the merged counts (JSON of
/// [`tagger_count`], in partition order); keywords as `tagger_fit`'s (but for `threads`
/// of `knobs`, which the plan does not take: it is left at the crate's default).
#[pyfunction]
#[pyo3(signature = (counts, n_shards, *, learner_name, knobs))]
pub fn tagger_plan(
    py: Python<'_>,
    counts: Vec<String>,
    n_shards: usize,
    learner_name: &str,
    knobs: Knobs,
) -> PyResult<TaggerPlan> {
    use online_bilinear::ParamGuard;
    use online_bilinear::distributed::{FeatureCounts, IpmPlan};
    let knobs = Knobs {
        threads: None,
        ..knobs
    };
    let params = params_from(learner_name, None, knobs)?;
    let params = guarded(|| params.check())?;
    let inner = py.detach(|| {
        guarded(|| -> Result<IpmPlan, OblError> {
            let parts: Vec<FeatureCounts> = counts
                .iter()
                .map(|t| FeatureCounts::from_json(t))
                .collect::<Result<_, _>>()?;
            IpmPlan::from_counts(&params, FeatureCounts::merge(&parts)?, n_shards)
        })
    })?;
    Ok(TaggerPlan {
        inner: std::sync::Arc::new(inner),
    })
}

/// `(weights, {"epoch", "mistakes", "token_errors", "tokens", "seconds"})` to Python.
fn epoch_dict<'py>(
    py: Python<'py>,
    info: &online_bilinear::EpochInfo,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("epoch", info.epoch)?;
    d.set_item("mistakes", info.mistakes)?;
    d.set_item("token_errors", info.token_errors)?;
    d.set_item("tokens", info.tokens)?;
    d.set_item("seconds", info.seconds)?;
    Ok(d)
}

fn epoch_from(d: &Bound<'_, PyDict>) -> PyResult<online_bilinear::EpochInfo> {
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(k)?
            .ok_or_else(|| PyValueError::new_err(format!("epoch record without {k:?}")))
    };
    Ok(online_bilinear::EpochInfo {
        epoch: get("epoch")?.extract()?,
        mistakes: get("mistakes")?.extract()?,
        token_errors: get("token_errors")?.extract()?,
        tokens: get("tokens")?.extract()?,
        seconds: get("seconds")?.extract()?,
    })
}

#[pymethods]
impl TaggerPlan {
    /// Number of shards.
    #[getter]
    fn n_shards(&self) -> usize {
        self.inner.n_shards()
    }

    /// Number of features of the dictionary.
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.features().len()
    }

    /// The seed of shard `j`.
    fn shard_seed(&self, j: usize) -> u64 {
        self.inner.shard_seed(j)
    }

    /// The weights of epoch 0, as bytes.
    fn initial_weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let w = py.detach(|| guarded(|| self.inner.initial_weights().map(|w| w.to_bytes())))?;
        Ok(pyo3::types::PyBytes::new(py, &w))
    }

    /// The mixed weights (bytes) of the shards' weights `shards` (bytes, in shard order)
    /// that started from `start`.
    fn mix<'py>(
        &self,
        py: Python<'py>,
        start: Vec<u8>,
        shards: Vec<Vec<u8>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        use online_bilinear::distributed::IpmWeights;
        let out = py.detach(|| {
            guarded(|| -> Result<Vec<u8>, OblError> {
                let start = IpmWeights::from_bytes(&self.inner, &start)?;
                let shards: Vec<IpmWeights> = shards
                    .iter()
                    .map(|b| IpmWeights::from_bytes(&self.inner, b))
                    .collect::<Result<_, _>>()?;
                Ok(self.inner.mix(&start, &shards)?.to_bytes())
            })
        })?;
        Ok(pyo3::types::PyBytes::new(py, &out))
    }

    /// Why to stop after an epoch of these totals over all shards (`"converged"`,
    /// `"max_iterations"`), or `None` to go on.
    fn stop_after(
        &self,
        epoch: &Bound<'_, PyDict>,
        sentences: usize,
    ) -> PyResult<Option<&'static str>> {
        use bl_core::TerminationReason::*;
        Ok(
            match self.inner.stop_after(&epoch_from(epoch)?, sentences) {
                Some(Converged) => Some("converged"),
                Some(_) => Some("max_iterations"),
                None => None,
            },
        )
    }

    /// The fitted tagger of the final weights, with the history of epochs (dicts of
    /// `stop_after`'s keys plus `"seconds"`) and the termination `stop_after` gave.
    fn finish(
        &self,
        py: Python<'_>,
        weights: Vec<u8>,
        history: Vec<Bound<'_, PyDict>>,
        termination: &str,
    ) -> PyResult<TaggerModel> {
        use bl_core::TerminationReason;
        let history: Vec<online_bilinear::EpochInfo> =
            history.iter().map(epoch_from).collect::<PyResult<_>>()?;
        let termination = match termination {
            "converged" => TerminationReason::Converged,
            "max_iterations" => TerminationReason::MaxIterations,
            other => {
                return Err(PyValueError::new_err(format!(
                    "termination {other:?}: must be 'converged' or 'max_iterations'"
                )));
            }
        };
        let inner = py.detach(|| {
            guarded(|| -> Result<FittedTagger, OblError> {
                let w =
                    online_bilinear::distributed::IpmWeights::from_bytes(&self.inner, &weights)?;
                self.inner.finish(&w, &history, termination)
            })
        })?;
        Ok(TaggerModel { inner })
    }

    /// The plan's JSON form.
    fn to_json(&self) -> PyResult<String> {
        guarded(|| self.inner.to_json())
    }

    /// A plan from [`TaggerPlan::to_json`]'s text; the crate validates it.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        let inner =
            py.detach(|| guarded(|| online_bilinear::distributed::IpmPlan::from_json(text)))?;
        Ok(Self {
            inner: std::sync::Arc::new(inner),
        })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = slf.get().to_json()?;
        Ok((slf.get_type().getattr("from_json")?, (json,)))
    }
}

/// One shard of a distributed fit: a partition encoded once with the plan, kept on its
/// worker. Pickles as its plan and partition (re-encoded when unpickled).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct TaggerShard {
    plan: Py<TaggerPlan>,
    partition: Py<TaggerPartition>,
    inner: online_bilinear::distributed::Shard,
}

#[pymethods]
impl TaggerShard {
    /// Encodes `partition` with `plan`.
    #[new]
    fn new(
        py: Python<'_>,
        plan: Bound<'_, TaggerPlan>,
        partition: Bound<'_, TaggerPartition>,
    ) -> PyResult<Self> {
        let (p, part) = (plan.get(), partition.get());
        let inner = py
            .detach(|| {
                guarded(|| online_bilinear::distributed::Shard::encode(&p.inner, &part.corpus))
            })
            .map_err(|e| in_partition(py, part.index, e))?;
        Ok(Self {
            plan: plan.unbind(),
            partition: partition.unbind(),
            inner,
        })
    }

    /// Number of non-empty sentences.
    #[getter]
    fn n_nonempty(&self) -> usize {
        self.inner.n_nonempty()
    }

    /// Runs the next epoch from `weights` (bytes) with `seed`: `(weights, epoch record)`.
    /// Releases the GIL.
    fn run_epoch<'py>(
        &self,
        py: Python<'py>,
        weights: Vec<u8>,
        seed: u64,
    ) -> PyResult<(Bound<'py, pyo3::types::PyBytes>, Bound<'py, PyDict>)> {
        let plan = std::sync::Arc::clone(&self.plan.get().inner);
        let (out, info) = py.detach(|| {
            guarded(
                || -> Result<(Vec<u8>, online_bilinear::EpochInfo), OblError> {
                    let start =
                        online_bilinear::distributed::IpmWeights::from_bytes(&plan, &weights)?;
                    let (w, info) = self.inner.run_epoch(&plan, &start, seed)?;
                    Ok((w.to_bytes(), info))
                },
            )
        })?;
        Ok((pyo3::types::PyBytes::new(py, &out), epoch_dict(py, &info)?))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, ShardArgs)> {
        let py = slf.py();
        let me = slf.get();
        Ok((
            slf.get_type().into_any(),
            (me.plan.clone_ref(py), me.partition.clone_ref(py)),
        ))
    }
}

/// Adds the tagger items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TaggerModel>()?;
    m.add_function(wrap_pyfunction!(tagger_fit, m)?)?;
    m.add_function(wrap_pyfunction!(tagger_defaults, m)?)?;
    m.add_class::<TaggerPartition>()?;
    m.add_class::<TaggerPlan>()?;
    m.add_class::<TaggerShard>()?;
    m.add_function(wrap_pyfunction!(tagger_count, m)?)?;
    m.add_function(wrap_pyfunction!(tagger_plan, m)?)?;
    Ok(())
}
