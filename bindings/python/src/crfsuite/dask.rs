//! The native side of `bilinear.crfsuite.CRF`'s fit on a Dask cluster (the Python side
//! is `bilinear/crfsuite/_dask.py`; the protocol is `chain_crf::distributed`'s).
//!
//! On a worker, [`CrfShard::read`] reads one partition of `(xseq, yseq)` pairs with the
//! one-machine reader (errors name the partition, the sequence within it and the
//! position), [`CrfShard::summary`] gives the bytes the client merges, and after
//! [`CrfShard::freeze`] the shard answers [`CrfShard::gradient`] (`lbfgs`) or
//! [`CrfShard::epoch`] (`ap`, `pa`, `arow`) with bytes. On the client, [`crfsuite_plan`]
//! merges the summaries and [`crfsuite_fit_distributed`] runs the crate's fit, calling a
//! Python function once per evaluation or epoch to do the round trip. Only bytes cross
//! between Python and Rust here; every message is checked when read.

use chain_crf::distributed::{
    self, EpochResult, EpochSource, GradientSource, OnlineState, Plan, Remap, Shard, ShardSummary,
};
use chain_crf::{
    Algorithm, CrfError, CrfValidParams, Dataset, DatasetBuilder, FeatureSet, ParamGuard,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::{
    FitOutput, OnIteration, crf_output, crf_params, iterate, read_dev, read_sequence,
    score_holdout, type_name,
};
use crate::errors::{ToPyErr, guarded};

/// What a shard holds: the partition as read, then the frozen shard.
#[derive(Debug)]
enum State {
    Read(Dataset),
    Ready(Box<Shard>),
    /// Moved into a frozen shard.
    Moved,
}

/// One partition of the training data on a worker (module docs). Not picklable: it stays
/// in the process that read it.
#[pyclass(module = "bilinear._native")]
#[derive(Debug)]
pub struct CrfShard {
    state: State,
    partition: usize,
    sequences: usize,
    bytes: usize,
}

impl CrfShard {
    fn moved(&self) -> PyErr {
        PyRuntimeError::new_err(format!(
            "the shard of partition {} was moved into its frozen form",
            self.partition
        ))
    }

    fn ready(&self, what: &str) -> PyResult<&Shard> {
        match &self.state {
            State::Ready(s) => Ok(s),
            _ => Err(PyRuntimeError::new_err(format!(
                "partition {}: {what} needs a frozen shard (call freeze first)",
                self.partition
            ))),
        }
    }
}

#[pymethods]
impl CrfShard {
    /// Reads partition `partition` (an iterable of `(xseq, yseq)` pairs) as the
    /// one-machine fit reads `X` and `y`. Releases nothing: the items are Python objects.
    #[staticmethod]
    fn read(pairs: &Bound<'_, PyAny>, partition: usize) -> PyResult<Self> {
        let what = || format!("partition {partition}");
        let it = iterate(pairs, what, "an iterable of (xseq, yseq) pairs")?;
        let (xname, yname) = (
            format!("partition {partition}, X"),
            format!("partition {partition}, y"),
        );
        let mut b = DatasetBuilder::new();
        for (s, pair) in it.enumerate() {
            let pair = pair?;
            let bad = || {
                PyValueError::new_err(format!(
                    "partition {partition}: sequence {s} must be an (xseq, yseq) pair, not {}",
                    type_name(&pair)
                ))
            };
            if pair.is_instance_of::<pyo3::types::PyString>() || pair.len().ok() != Some(2) {
                return Err(bad());
            }
            let (xseq, yseq) = (pair.get_item(0)?, pair.get_item(1)?);
            read_sequence(&mut b, &xseq, &yseq, (&xname, &yname), s)?;
        }
        let data = b.finish();
        let bytes = 12 * data.n_pairs() + 8 * data.n_items() + 64 * data.attributes().len();
        Ok(Self {
            sequences: data.len(),
            state: State::Read(data),
            partition,
            bytes,
        })
    }

    /// Number of sequences.
    #[getter]
    fn sequences(&self) -> usize {
        self.sequences
    }

    /// The partition's index.
    #[getter]
    fn partition(&self) -> usize {
        self.partition
    }

    /// An estimate of the memory held (what Dask's scheduler reads through `sizeof`).
    fn __sizeof__(&self) -> usize {
        self.bytes
    }

    /// The summary the client merges (`chain_crf::distributed::ShardSummary`), as bytes.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.state {
            State::Read(d) => {
                let b = py.detach(|| ShardSummary::of(d).map(|s| s.to_bytes()));
                Ok(PyBytes::new(py, &b.map_err(|e| e.to_py())?))
            }
            _ => Err(self.moved()),
        }
    }

    /// The frozen shard `index` of a fit seeded with `seed`: this partition with the
    /// shared ids of `remap` and the shared `features` (both bytes from the client's
    /// plan). This object gives its data to the new one.
    fn freeze(
        &mut self,
        py: Python<'_>,
        remap: &[u8],
        features: &[u8],
        index: usize,
        seed: u64,
    ) -> PyResult<Self> {
        let data = match std::mem::replace(&mut self.state, State::Moved) {
            State::Read(d) => d,
            other => {
                self.state = other;
                return Err(self.moved());
            }
        };
        let shard = py.detach(|| {
            let remap = Remap::from_bytes(remap)?;
            let features = FeatureSet::from_bytes(features)?;
            Shard::new(data, &remap, features, index, seed)
        });
        let shard = shard.map_err(|e| e.to_py())?;
        let bytes = self.bytes + 8 * shard.n_features();
        Ok(Self {
            state: State::Ready(Box::new(shard)),
            partition: self.partition,
            sequences: self.sequences,
            bytes,
        })
    }

    /// The negative log-likelihood of the shard at the weights `w` (bytes of
    /// `vector_to_bytes`) and its gradient, as `vector_to_bytes(loss, gradient)`.
    fn gradient<'py>(&self, py: Python<'py>, w: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let shard = self.ready("gradient")?;
        let out = py.detach(|| {
            let (_, w) = distributed::vector_from_bytes(w)?;
            let mut g = vec![0.0; w.len()];
            let loss = shard.loss_and_gradient(&w, &mut g)?;
            Ok::<_, CrfError>(distributed::vector_to_bytes(loss, &g))
        });
        Ok(PyBytes::new(py, &out.map_err(|e| e.to_py())?))
    }

    /// One epoch of `algorithm` (`ap`, `pa`, `arow`, with sklearn-crfsuite's parameters
    /// `params`) from the state `state` (bytes of `OnlineState`), as the bytes of its
    /// `EpochResult`.
    fn epoch<'py>(
        &mut self,
        py: Python<'py>,
        algorithm: &str,
        params: &Bound<'py, PyDict>,
        state: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let unchecked = crf_params(algorithm, params, Some(1))?;
        let algorithm = guarded(|| unchecked.check())?.algorithm().clone();
        let partition = self.partition;
        let State::Ready(shard) = &mut self.state else {
            return Err(PyRuntimeError::new_err(format!(
                "partition {partition}: epoch needs a frozen shard (call freeze first)"
            )));
        };
        let out = py.detach(|| {
            let state = OnlineState::from_bytes(state)?;
            Ok::<_, CrfError>(shard.epoch(&algorithm, &state)?.to_bytes())
        });
        Ok(PyBytes::new(py, &out.map_err(|e| e.to_py())?))
    }
}

/// The client's merge of the shards' summaries, with the fit's checked parameters.
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct CrfPlan {
    plan: Plan,
    params: CrfValidParams,
    algorithm: String,
}

#[pymethods]
impl CrfPlan {
    /// The id remapping of shard `i`, as bytes.
    fn remap<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyBytes>> {
        let r = self.plan.remap(i).ok_or_else(|| {
            PyValueError::new_err(format!(
                "shard {i} of a plan of {} shards",
                self.plan.n_shards()
            ))
        })?;
        Ok(PyBytes::new(py, &r.to_bytes()))
    }

    /// The shared feature set, as bytes.
    fn features<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.plan.features().to_bytes())
    }

    /// Number of features (the length of a weight vector).
    #[getter]
    fn n_features(&self) -> usize {
        self.plan.features().len()
    }

    /// Number of training sequences over all shards.
    #[getter]
    fn sequences(&self) -> usize {
        self.plan.sequences()
    }

    /// The fit's seed (each shard's shuffles derive from it).
    #[getter]
    fn seed(&self) -> u64 {
        self.params.seed()
    }

    /// The initial state of the online trainers, as bytes (`None` for `lbfgs`).
    fn initial_state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        if self.algorithm == "lbfgs" {
            return Ok(None);
        }
        let s =
            guarded(|| OnlineState::initial(self.params.algorithm(), self.plan.features().len()))?;
        Ok(Some(PyBytes::new(py, &s.to_bytes())))
    }
}

/// The algorithms with a distributed fit.
const DISTRIBUTED: [&str; 4] = ["lbfgs", "ap", "pa", "arow"];

/// The checked parameters of a distributed fit of `algorithm`: a `ValueError` for an
/// algorithm without one or a parameter the checks refuse.
fn checked_params(
    algorithm: &str,
    params: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<CrfValidParams> {
    if !DISTRIBUTED.contains(&algorithm) {
        return Err(PyValueError::new_err(format!(
            "algorithm {algorithm:?} has no distributed fit: use 'lbfgs', 'ap', 'pa' or 'arow'"
        )));
    }
    let unchecked = crf_params(algorithm, params, threads)?;
    guarded(|| unchecked.check())
}

/// Checks the algorithm and the parameters of a distributed fit as [`crfsuite_plan`]
/// does, before any partition is read.
#[pyfunction]
#[pyo3(signature = (*, algorithm, params, threads=None))]
pub fn crfsuite_check(
    algorithm: &str,
    params: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<()> {
    checked_params(algorithm, params, threads).map(|_| ())
}

/// Merges the summaries (bytes from [`CrfShard::summary`], in shard order) for a fit of
/// `algorithm` with sklearn-crfsuite's parameters `params` (`threads` for the client's
/// vector operations).
#[pyfunction]
#[pyo3(signature = (summaries, *, algorithm, params, threads=None))]
pub fn crfsuite_plan(
    py: Python<'_>,
    summaries: Vec<Bound<'_, PyBytes>>,
    algorithm: &str,
    params: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<CrfPlan> {
    let checked = checked_params(algorithm, params, threads)?;
    let bytes: Vec<&[u8]> = summaries.iter().map(|b| b.as_bytes()).collect();
    let plan = py.detach(|| {
        let summaries = bytes
            .iter()
            .map(|b| ShardSummary::from_bytes(b))
            .collect::<Result<Vec<_>, _>>()?;
        Plan::merge(&summaries, checked.features())
    });
    Ok(CrfPlan {
        plan: plan.map_err(|e| e.to_py())?,
        params: checked,
        algorithm: algorithm.to_owned(),
    })
}

/// A source that calls a Python function for every evaluation: `evaluate(message)`
/// returns one message per shard, in shard order. The first Python error is kept and
/// re-raised after the fit.
#[derive(Debug)]
struct PySource {
    evaluate: Py<PyAny>,
    n_features: usize,
    error: Option<PyErr>,
}

impl PySource {
    /// Calls `evaluate(message)` and reads each returned message with `read`.
    fn round<T>(
        &mut self,
        message: Vec<u8>,
        read: impl Fn(&[u8]) -> chain_crf::Result<T>,
    ) -> chain_crf::Result<Vec<T>> {
        let out = Python::attach(|py| {
            let replies = self.evaluate.call1(py, (PyBytes::new(py, &message),))?;
            let mut out = Vec::new();
            for r in replies.bind(py).try_iter()? {
                let r = r?;
                let b = r.cast::<PyBytes>().map_err(|_| {
                    PyValueError::new_err(format!(
                        "a shard's reply must be bytes, not {}",
                        type_name(&r)
                    ))
                })?;
                out.push(read(b.as_bytes()).map_err(|e| e.to_py())?);
            }
            Ok::<_, PyErr>(out)
        });
        out.map_err(|e| {
            self.error = Some(e);
            CrfError::Serialized("the round trip to the shards failed".into())
        })
    }
}

impl GradientSource for PySource {
    fn loss_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> chain_crf::Result<f64> {
        let n = self.n_features;
        let parts = self.round(distributed::vector_to_bytes(0.0, w), |b| {
            let (loss, g) = distributed::vector_from_bytes(b)?;
            if g.len() != n {
                return Err(CrfError::Serialized(format!(
                    "a shard's gradient has {} entries for {n} features",
                    g.len()
                )));
            }
            Ok((loss, g))
        })?;
        grad.fill(0.0);
        let mut loss = 0.0;
        for (l, g) in parts {
            loss += l;
            for (a, b) in grad.iter_mut().zip(&g) {
                *a += b;
            }
        }
        Ok(loss)
    }
}

impl EpochSource for PySource {
    fn epoch(
        &mut self,
        _algorithm: &Algorithm,
        state: &OnlineState,
    ) -> chain_crf::Result<Vec<EpochResult>> {
        self.round(state.to_bytes(), EpochResult::from_bytes)
    }
}

/// Fits the plan's algorithm on the shards behind `evaluate` (module docs): for `lbfgs`,
/// `evaluate(weights)` returns each shard's `gradient` reply; for `ap`, `pa` and `arow`,
/// `evaluate(state)` returns each shard's `epoch` reply. `x_dev`, `y_dev` are read on the
/// client with the plan's dictionaries and scored after every iteration. Returns what
/// `crfsuite_fit` returns.
#[pyfunction]
#[pyo3(signature = (plan, x_dev=None, y_dev=None, *, evaluate, on_iteration=None))]
pub fn crfsuite_fit_distributed<'py>(
    py: Python<'py>,
    plan: &CrfPlan,
    x_dev: Option<&Bound<'py, PyAny>>,
    y_dev: Option<&Bound<'py, PyAny>>,
    evaluate: Py<PyAny>,
    on_iteration: Option<Py<PyAny>>,
) -> PyResult<FitOutput<'py>> {
    let dev = read_dev((x_dev, y_dev), plan.plan.attributes(), plan.plan.labels())?;
    let mut source = PySource {
        evaluate,
        n_features: plan.plan.features().len(),
        error: None,
    };
    let mut callback = OnIteration::new(on_iteration);
    let result = py.detach(|| {
        let holdout = dev.as_ref().map(|(d, _)| d);
        if plan.algorithm == "lbfgs" {
            distributed::fit_lbfgs(
                &plan.params,
                &plan.plan,
                &mut source,
                holdout,
                &mut [&mut callback],
            )
        } else {
            distributed::fit_online(
                &plan.params,
                &plan.plan,
                &mut source,
                holdout,
                &mut [&mut callback],
            )
        }
    });
    if let Some(e) = source.error.take() {
        return Err(e);
    }
    let fitted = result.map_err(|e| e.to_py())?;
    callback.finish()?;
    let model = fitted.model();
    let labels = dev
        .as_ref()
        .map(|(d, _)| score_holdout(model.n_labels(), d, |_, x| Ok(model.tag(x).0)))
        .transpose()?;
    let dev_info = dev.map(|(_, c)| c).zip(labels.as_ref());
    crf_output(py, fitted, dev_info)
}

/// Adds the distributed items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CrfShard>()?;
    m.add_class::<CrfPlan>()?;
    m.add_function(wrap_pyfunction!(crfsuite_check, m)?)?;
    m.add_function(wrap_pyfunction!(crfsuite_plan, m)?)?;
    m.add_function(wrap_pyfunction!(crfsuite_fit_distributed, m)?)?;
    Ok(())
}
