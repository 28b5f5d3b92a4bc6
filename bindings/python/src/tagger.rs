//! Online bilinear sequence taggers of the `online-bilinear` crate (Wu and Sun, "An
//! Online Learning Algorithm for Bilinear Models", ICML 2015), behind
//! `bilinear.BilinearTagger`.

use online_bilinear::{
    Corpus, FittedTagger, Learner, OblError, Sentence, TaggerParams, Template, Templates,
};
use online_bilinear::{Fit, Fitted};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{choose, guarded};

/// A fitted tagger (pickles through the crate's JSON form).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct TaggerModel {
    inner: FittedTagger,
}

fn learner(name: &str) -> PyResult<Learner> {
    [
        Learner::Bol,
        Learner::Bcd,
        Learner::Sp,
        Learner::CrfL2,
        Learner::CrfL1,
    ]
    .into_iter()
    .find(|l| l.name() == name)
    .ok_or_else(|| {
        PyValueError::new_err(format!(
            "invalid learner {name:?}: must be 'bol', 'bcd', 'sp', 'crf-l2' or 'crf-l1'"
        ))
    })
}

/// The named template set; with `bias`, the bias feature (active at every position) first,
/// which is the feature that carries the label transitions with `transitions_only`.
fn templates(name: &str, bias: bool) -> PyResult<Templates> {
    let named = choose(
        "templates",
        name,
        &[
            ("segmentation", Templates::segmentation()),
            ("chunking", Templates::chunking()),
        ],
    )?;
    if !bias {
        return Ok(named);
    }
    let mut list = vec![Template::Bias];
    list.extend_from_slice(named.as_slice());
    guarded(|| Templates::new(list))
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

/// Trains a tagger on sentences `x` (each a list of token columns) with tags `y`.
/// Releases the GIL.
#[pyfunction]
#[pyo3(signature = (x, y, *, learner_name, templates_name, epochs, c, power_steps, averaging, zero_order, transitions_only, cutoff, shuffle, seed))]
#[allow(clippy::too_many_arguments)]
pub fn tagger_fit(
    py: Python<'_>,
    x: Columns,
    y: Vec<Vec<String>>,
    learner_name: &str,
    templates_name: &str,
    epochs: usize,
    c: f64,
    power_steps: usize,
    averaging: bool,
    zero_order: bool,
    transitions_only: bool,
    cutoff: usize,
    shuffle: bool,
    seed: u64,
) -> PyResult<TaggerModel> {
    let params = TaggerParams::new(learner(learner_name)?)
        .templates(templates(templates_name, transitions_only)?)
        .epochs(epochs)
        .c(c)
        .power_steps(power_steps)
        .averaging(averaging)
        .zero_order(zero_order)
        .transitions_only(transitions_only)
        .cutoff(cutoff)
        .shuffle(shuffle)
        .seed(seed);
    let inner = py.detach(|| guarded(|| params.fit(&corpus(x, Some(y))?)))?;
    Ok(TaggerModel { inner })
}

#[pymethods]
impl TaggerModel {
    /// Tag sequences of sentences `x` (each a list of token columns).
    fn predict(&self, py: Python<'_>, x: Columns) -> PyResult<Vec<Vec<String>>> {
        py.detach(|| guarded(|| self.inner.predict_corpus(&corpus(x, None)?)))
    }

    /// Label error rate and, for BMES / chunk tags, word or chunk precision, recall, F1.
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

    /// Epochs run.
    #[getter]
    fn n_iter(&self) -> usize {
        self.inner.report().iterations
    }

    /// The rank-1 factors `alpha`, `beta` (None for the CRFs).
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

/// Adds the tagger items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TaggerModel>()?;
    m.add_function(wrap_pyfunction!(tagger_fit, m)?)?;
    Ok(())
}
