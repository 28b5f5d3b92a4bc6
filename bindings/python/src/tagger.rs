//! Online bilinear sequence taggers of the `online-bilinear` crate (Wu and Sun, "An
//! Online Learning Algorithm for Bilinear Models", ICML 2015), behind
//! `bilinear.BilinearTagger`.

use online_bilinear::{BuiltIn, Corpus, FittedTagger, OblError, Sentence, TaggerParams, Templates};
use online_bilinear::{Fit, Fitted, Predict};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{choose, guarded};
use crate::keywords::set_if_given;

mod dask;

pub use dask::{TaggerPartition, TaggerPlan, TaggerShard, tagger_check, tagger_count, tagger_plan};

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
    Ok(Some(if bias { named.with_bias() } else { named }))
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

/// Adds the tagger items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TaggerModel>()?;
    m.add_function(wrap_pyfunction!(tagger_fit, m)?)?;
    m.add_function(wrap_pyfunction!(tagger_defaults, m)?)?;
    m.add_class::<TaggerPartition>()?;
    m.add_class::<TaggerPlan>()?;
    m.add_class::<TaggerShard>()?;
    m.add_function(wrap_pyfunction!(tagger_count, m)?)?;
    m.add_function(wrap_pyfunction!(tagger_check, m)?)?;
    m.add_function(wrap_pyfunction!(tagger_plan, m)?)?;
    Ok(())
}
