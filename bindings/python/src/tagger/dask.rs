//! Distributed training by iterative parameter mixing (`online_bilinear::distributed`),
//! driven by `bilinear._tagger_dask`: a partition is validated and kept on its worker
//! (`TaggerPartition`), counted once (`tagger_count`), encoded once with the plan
//! (`TaggerShard`); per epoch only the weights (bytes) travel.

use online_bilinear::{Corpus, FittedTagger, OblError, Templates};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{Columns, Knobs, TaggerModel, corpus, params_from, templates};
use crate::errors::guarded;

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

/// The checked parameters of a distributed fit: `threads` of `knobs` is left at the
/// crate's default (the plan does not take it).
fn checked_params(
    learner_name: &str,
    knobs: Knobs,
) -> PyResult<online_bilinear::TaggerValidParams> {
    use online_bilinear::ParamGuard;
    let knobs = Knobs {
        threads: None,
        ..knobs
    };
    let params = params_from(learner_name, None, knobs)?;
    guarded(|| params.check())
}

/// Checks the learner's name and settings of a distributed fit as [`tagger_plan`] does,
/// before any partition is read.
#[pyfunction]
#[pyo3(signature = (*, learner_name, knobs))]
pub fn tagger_check(learner_name: &str, knobs: Knobs) -> PyResult<()> {
    checked_params(learner_name, knobs).map(|_| ())
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
    use online_bilinear::distributed::{FeatureCounts, IpmPlan};
    let params = checked_params(learner_name, knobs)?;
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
    /// `stop_after`'s keys plus `"seconds"`), the non-empty sentences of all shards (as
    /// given to `stop_after`: each epoch's change in the report is `mistakes / sentences`,
    /// the measure `stop_after` compared with `tol`) and the termination `stop_after` gave.
    fn finish(
        &self,
        py: Python<'_>,
        weights: Vec<u8>,
        history: Vec<Bound<'_, PyDict>>,
        sentences: usize,
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
                self.inner.finish(&w, &history, sentences, termination)
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
