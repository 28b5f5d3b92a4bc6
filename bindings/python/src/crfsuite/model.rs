//! The fitted model (module docs of [`super`]): [`CrfModel`], a CRF or a bilinear tagger
//! of attribute data, and [`CrfSequence`], a sequence encoded with its attribute ids.

use bl_core::limits::quote;
use chain_crf::{Dictionary, Model, Sequence};
use online_bilinear::{FittedTagger, OblError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::type_object::PyTypeInfo;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyType};

use super::items::{encode, iterate};
use crate::errors::{ToPyErr, guarded};

/// A trained CRF (pickles through the crate's saved form, checked again on load), or a
/// bilinear tagger trained on the same items (`algorithm` `bol`, `bcd`, `sp`).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct CrfModel {
    pub(super) inner: Inner,
}

/// What a [`CrfModel`] holds.
#[derive(Debug)]
pub(super) enum Inner {
    /// A `chain-crf` model.
    Crf(Model),
    /// An `online-bilinear` tagger fitted on attribute data, with its attribute and label
    /// dictionaries (the training data's).
    Bilinear {
        tagger: Box<FittedTagger>,
        attributes: Dictionary,
        labels: Dictionary,
    },
}

impl Inner {
    fn attributes(&self) -> &Dictionary {
        match self {
            Inner::Crf(m) => m.attributes(),
            Inner::Bilinear { attributes, .. } => attributes,
        }
    }

    fn labels(&self) -> &Dictionary {
        match self {
            Inner::Crf(m) => m.labels(),
            Inner::Bilinear { labels, .. } => labels,
        }
    }

    /// The best label path (label ids) of `seq`, sequence `sequence` of `data` (named in
    /// errors).
    fn tag(&self, seq: &Sequence, data: &str, sequence: usize) -> PyResult<Vec<u32>> {
        match self {
            Inner::Crf(m) => Ok(m.tag(seq.items()).0),
            Inner::Bilinear { tagger, .. } => {
                guarded(|| Ok::<_, OblError>(tagger.tag_items(seq.items())))?
                    .map_err(|e| bilinear_error(e, tagger.learner(), data, Some(sequence)))
            }
        }
    }

    /// The CRF, or a `ValueError` saying that a bilinear tagger has no `what`.
    fn crf(&self, what: &str) -> PyResult<&Model> {
        match self {
            Inner::Crf(m) => Ok(m),
            Inner::Bilinear { tagger, .. } => Err(PyValueError::new_err(format!(
                "a model trained with algorithm {:?} has no {what}: its scores are not a \
                 probability model and its weights are not CRFsuite's state and transition \
                 features (use algorithm 'lbfgs', 'l2sgd', 'ap', 'pa' or 'arow' for them)",
                tagger.learner()
            ))),
        }
    }

    fn to_bytes(&self) -> PyResult<Vec<u8>> {
        match self {
            Inner::Crf(m) => Ok(m.to_bytes()),
            Inner::Bilinear { tagger, .. } => guarded(|| tagger.to_json()).map(String::into_bytes),
        }
    }

    /// A saved CRF, or a saved bilinear tagger of attribute data.
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let crf = match Model::from_bytes(data) {
            Ok(m) => return Ok(Inner::Crf(m)),
            Err(e) => e,
        };
        let text = std::str::from_utf8(data)
            .map_err(|_| PyValueError::new_err(format!("not a saved model: {crf}")))?;
        let tagger = match FittedTagger::from_json(text) {
            Ok(t) => t,
            Err(_) => return Err(crf.to_py()),
        };
        let attributes = tagger.attribute_dictionary().ok_or_else(|| {
            PyValueError::new_err(
                "a tagger saved by bilinear.BilinearTagger (templates, not items): load it \
                 with BilinearTagger",
            )
        })?;
        let labels = tagger.label_dictionary();
        Ok(Inner::Bilinear {
            tagger: Box::new(tagger),
            attributes,
            labels,
        })
    }
}

/// An error of the bilinear tagger `learner` (`bol`, `bcd`, `sp`) on `data` as a Python
/// exception: a value other than 0 or 1 is a `ValueError` naming `data`, the sequence
/// (`sequence`, or the one the error names when `None`), the position and the attribute,
/// in `bilinear.crfsuite`'s terms (the algorithms that take real values); any other
/// error as [`ToPyErr`] converts it.
pub(super) fn bilinear_error(
    err: OblError,
    learner: &str,
    data: &str,
    sequence: Option<usize>,
) -> PyErr {
    match err {
        OblError::NonBinaryAttribute {
            sequence: s,
            position,
            attribute,
            value,
        } => PyValueError::new_err(format!(
            "{data}: sequence {}, position {position}: attribute {} has the value {value}; \
             algorithm {learner:?} takes binary attribute values only: 1 (active) or 0 \
             (absent); use algorithm 'lbfgs', 'l2sgd', 'ap', 'pa' or 'arow' for real \
             values, or make the attribute binary",
            sequence.unwrap_or(s),
            quote(&attribute)
        )),
        other => other.to_py(),
    }
}

/// A sequence encoded with a model's attribute ids (`CrfModel.encode`), with its index
/// (named in errors as sequence `index` of `xseq`).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct CrfSequence {
    seq: Sequence,
    index: usize,
}

#[pymethods]
impl CrfSequence {
    fn __len__(&self) -> usize {
        self.seq.len()
    }
}

/// How many sequences prediction reads (holding the GIL) before tagging them (without).
const CHUNK: usize = 256;

impl CrfModel {
    /// Reads `x` in chunks, runs `work` on each chunk's encoded sequences without the GIL
    /// and appends `convert` of each result to the returned Python list. Only a chunk is
    /// held in Rust: the results grow as a Python list does, so an `x` larger than the
    /// memory (or endless) ends in `MemoryError`, as `list(x)` would, not in an abort.
    fn map_chunks<'py, R: Send>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        work: impl Fn(&Inner, usize, &Sequence) -> R + Sync,
        mut convert: impl FnMut(R) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut it = iterate(x, || "X".to_owned(), "an iterable of sequences")?;
        let out = new_empty::<PyList>(py)?;
        let mut chunk: Vec<Sequence> = Vec::with_capacity(CHUNK);
        let mut s = 0;
        let mut done = false;
        while !done {
            let first = s;
            chunk.clear();
            while chunk.len() < CHUNK {
                match it.next().transpose()? {
                    Some(xseq) => {
                        chunk.push(encode(self.inner.attributes(), &xseq, "X", s)?);
                        s += 1;
                    }
                    None => {
                        done = true;
                        break;
                    }
                }
            }
            let model = &self.inner;
            let results: Vec<R> = py.detach(|| {
                chunk
                    .iter()
                    .enumerate()
                    .map(|(i, q)| work(model, first + i, q))
                    .collect()
            });
            for r in results {
                out.append(convert(r)?)?;
            }
        }
        Ok(out)
    }

    /// The model's label names as Python strings, made once per call.
    fn label_strings<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyString>> {
        self.inner
            .labels()
            .names()
            .iter()
            .map(|s| PyString::new(py, s))
            .collect()
    }

    fn names(&self, path: &[u32]) -> Vec<String> {
        path.iter()
            .map(|&y| self.inner.labels().name(y).to_owned())
            .collect()
    }

    /// The label id of `label`, or `None` for a label the model does not know.
    fn label_id(&self, label: &str) -> Option<u32> {
        self.inner.labels().get(label)
    }
}

/// An empty Python `list` or `dict`, made by calling the type: a refused allocation is
/// `MemoryError` (`PyList::empty` and `PyDict::new` would panic).
fn new_empty<T: PyTypeInfo>(py: Python<'_>) -> PyResult<Bound<'_, T>> {
    Ok(py.get_type::<T>().call0()?.cast_into::<T>()?)
}

/// `bilinear.crfsuite.UnknownLabelError` (defined in Python, `_tagger.py`) for `label`,
/// with the message of the Python `Tagger.marginal`; a `ValueError` with that message if
/// the class cannot be imported.
fn unknown_label(py: Python<'_>, label: &str, n_labels: usize) -> PyErr {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let quoted = PyString::new(py, label)
        .repr()
        .map_or_else(|_| format!("{label:?}"), |r| r.to_string());
    let message = format!("unknown label {quoted}: not one of the model's {n_labels} labels");
    match CLASS.import(py, "bilinear.crfsuite._tagger", "UnknownLabelError") {
        Ok(class) => match class.call1((message.as_str(),)) {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        },
        Err(_) => PyValueError::new_err(message),
    }
}

/// A feature's two names (attribute and label, or two labels) and its weight.
type WeightedPair = (String, String, f64);

/// The model's `(name, name, weight)` features with the names copied out.
fn owned_pairs<'a>(features: impl Iterator<Item = (&'a str, &'a str, f64)>) -> Vec<WeightedPair> {
    features
        .map(|(a, b, w)| (a.to_owned(), b.to_owned(), w))
        .collect()
}

#[pymethods]
impl CrfModel {
    /// The labels, in the model's order.
    fn labels(&self) -> Vec<String> {
        self.inner.labels().names().to_vec()
    }

    /// Every attribute the model knows, in id order.
    fn attributes(&self) -> Vec<String> {
        self.inner.attributes().names().to_vec()
    }

    /// Number of features (state and transition; a bilinear tagger's features).
    #[getter]
    fn n_features(&self) -> usize {
        match &self.inner {
            Inner::Crf(m) => m.features().len(),
            Inner::Bilinear { tagger, .. } => tagger.n_features(),
        }
    }

    /// The trainer's name for a bilinear tagger (`bol`, `bcd`, `sp`), `None` for a CRF.
    #[getter]
    fn bilinear_learner(&self) -> Option<String> {
        match &self.inner {
            Inner::Crf(_) => None,
            Inner::Bilinear { tagger, .. } => Some(tagger.learner().to_owned()),
        }
    }

    /// `(attribute, label, weight)` of every state feature.
    fn state_features(&self) -> PyResult<Vec<WeightedPair>> {
        let model = self.inner.crf("state features")?;
        Ok(owned_pairs(model.state_features()))
    }

    /// `(previous label, label, weight)` of every transition feature.
    fn transition_features(&self) -> PyResult<Vec<WeightedPair>> {
        let model = self.inner.crf("transition features")?;
        Ok(owned_pairs(model.transition_features()))
    }

    /// One sequence of items, encoded for [`tag`](Self::tag), [`marginals`](Self::marginals)
    /// and [`probability`](Self::probability).
    #[pyo3(signature = (xseq, sequence=0))]
    fn encode(&self, xseq: &Bound<'_, PyAny>, sequence: usize) -> PyResult<CrfSequence> {
        Ok(CrfSequence {
            seq: encode(self.inner.attributes(), xseq, "xseq", sequence)?,
            index: sequence,
        })
    }

    /// The most probable labels (Viterbi) of an encoded sequence.
    fn tag(&self, py: Python<'_>, seq: &CrfSequence) -> PyResult<Vec<String>> {
        let path = py.detach(|| self.inner.tag(&seq.seq, "xseq", seq.index))?;
        Ok(self.names(&path))
    }

    /// `p(y_t = label | x)`: one row per position, one column per label in
    /// [`labels`](Self::labels) order.
    fn marginals(&self, py: Python<'_>, seq: &CrfSequence) -> PyResult<Vec<Vec<f64>>> {
        let model = self.inner.crf("marginals")?;
        let l = model.n_labels();
        let m = py.detach(|| model.marginals(seq.seq.items()));
        Ok(m.chunks(l.max(1)).map(<[f64]>::to_vec).collect())
    }

    /// `p(labels | x)`: `ValueError` when `labels` and the sequence differ in length,
    /// `bilinear.crfsuite.UnknownLabelError` (a `ValueError` and a `RuntimeError`, as
    /// python-crfsuite raises `RuntimeError`) naming the first label the model does not
    /// know.
    fn probability(&self, py: Python<'_>, seq: &CrfSequence, labels: Vec<String>) -> PyResult<f64> {
        let model = self.inner.crf("sequence probabilities")?;
        let n = seq.seq.len();
        if labels.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} labels for a sequence of {n} items",
                labels.len()
            )));
        }
        let mut ids = Vec::with_capacity(n);
        for label in &labels {
            match self.label_id(label) {
                Some(id) => ids.push(id),
                None => return Err(unknown_label(py, label, self.inner.labels().len())),
            }
        }
        py.detach(|| guarded(|| model.probability(seq.seq.items(), &ids)))
    }

    /// The labels of every sequence of `x` (a list of lists of str; see
    /// [`Self::map_chunks`] for an `x` larger than the memory).
    fn predict<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let labels = self.label_strings(py);
        self.map_chunks(
            py,
            x,
            |m, s, q| m.tag(q, "X", s),
            |path| {
                let list = new_empty::<PyList>(py)?;
                for y in path? {
                    match labels.get(y as usize) {
                        Some(label) => list.append(label)?,
                        None => list.append(self.inner.labels().name(y))?,
                    }
                }
                Ok(list.into_any())
            },
        )
    }

    /// `{label: p(y_t = label | x)}` for every position of every sequence of `x` (as
    /// [`Self::predict`]).
    fn predict_marginals<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.inner.crf("marginals")?;
        let labels = self.label_strings(py);
        let l = labels.len().max(1);
        self.map_chunks(
            py,
            x,
            |m, _, q| match m {
                Inner::Crf(m) => m.marginals(q.items()),
                Inner::Bilinear { .. } => Vec::new(),
            },
            |p| {
                let rows = new_empty::<PyList>(py)?;
                for row in p.chunks(l) {
                    let d = new_empty::<PyDict>(py)?;
                    for (name, &v) in labels.iter().zip(row) {
                        d.set_item(name, v)?;
                    }
                    rows.append(d)?;
                }
                Ok(rows.into_any())
            },
        )
    }

    /// The saved form (the crate's checked JSON, as bytes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.inner.to_bytes()?))
    }

    /// A model from [`to_bytes`](Self::to_bytes); the crate checks it in full.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(Self {
            inner: Inner::from_bytes(data)?,
        })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = slf.get().to_bytes(slf.py())?;
        Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
    }
}
