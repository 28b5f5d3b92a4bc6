//! `SblrModel`: a fitted SBLR model (binary, one-vs-all or multinomial) of the `sblr` crate.
//!
//! The Python class `bilinear.SparseBilinearLogisticRegression` validates the input with
//! scikit-learn's helpers and calls `sblr_fit` (or `sblr_fit_npy`, or for a dask array
//! `sblr_fit_chunks` on `SblrChunk`s, the worker side of `sblr::distributed`); this module
//! converts arrays and parameters and calls the crate.

use bl_core::data::{Element, MatrixDataset};
use bl_core::{Fit, Fitted};

use faer::MatRef;
use numpy::ndarray::{Array1, Array2, Array3, ArrayView3};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

use pyo3::types::PyDict;
use sblr::stream::NpySource;
use sblr::{
    BlockUpdate, BuiltInUpdate, ExactBlockSolve, FittedMultinomialSblr, FittedOneVsAll, FittedSblr,
    Init, OneVsAll, ParamGuard as _, Predict as _, ProxLinearStep, Sblr, SblrParams,
};
use serde_json::{Value, json};

use crate::arrays::{mat_to_array, try_buffer};
use crate::errors::{ToPyErr as _, choose, guarded, json_err};

mod chunks;

pub use chunks::{SblrChunk, sblr_fit_chunks};

/// The three kinds of fitted SBLR models.
#[derive(Debug, Clone)]
enum Kind {
    Binary(FittedSblr),
    OneVsAll(FittedOneVsAll<FittedSblr>),
    Multinomial(FittedMultinomialSblr),
}

/// A fitted SBLR model (pickles through its JSON form).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct SblrModel {
    kind: Kind,
}

/// Samples `(n, s, t)` (the array argument `X`, any strides) into the
/// column-major-per-sample buffer of `MatrixDataset`, stored as `T` (one copy, sized and
/// reserved before it is made: `ValueError` above `bl_core::limits::MAX_ELEMENTS` values,
/// `MemoryError` when refused; see [`crate::arrays`]), with the class index of each
/// sample.
fn dataset<T: Element>(
    x: ArrayView3<'_, f64>,
    labels: Vec<usize>,
    n_classes: usize,
) -> PyResult<MatrixDataset<T>> {
    let (_, s, t) = x.dim();
    // Sample by sample, each column-major: the C order of the axes (sample, column, row).
    let mut data = try_buffer("X", x.shape())?;
    data.extend(x.permuted_axes([0, 2, 1]).iter().map(|&v| T::from_f64(v)));
    let names = (0..n_classes).map(|c| c.to_string()).collect();
    guarded(|| MatrixDataset::with_data(s, t, data, labels, names))
}

/// Unlabelled samples for prediction (every label 0 of two placeholder classes).
fn samples(x: ArrayView3<'_, f64>) -> PyResult<MatrixDataset> {
    let (n, s, t) = x.dim();
    // The samples' size first: an oversized `X` is reported before the labels are
    // allocated.
    bl_core::limits::buffer_len("X", &[n, s, t]).map_err(|e| e.to_py())?;
    let mut labels = try_buffer("X", &[n])?;
    labels.resize(n, 0);
    dataset(x, labels, 2)
}

/// The class indices `y` as `usize` (one copy, sized and reserved first as
/// [`dataset`]'s); `ValueError` for a negative one.
fn class_indices(y: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<usize>> {
    let y = y.as_array();
    let mut out = try_buffer("y", y.shape())?;
    for &l in y {
        let l = usize::try_from(l)
            .map_err(|_| PyValueError::new_err("class indices must be non-negative"))?;
        out.push(l);
    }
    Ok(out)
}

/// One-vs-all (a single binary model for two classes) or multinomial, on samples of
/// either precision.
fn fit_kind<T: Element>(
    params: &sblr::SblrParams,
    data: &MatrixDataset<T>,
    n_classes: usize,
    multinomial: bool,
) -> Result<Kind, sblr::SblrError> {
    Ok(if multinomial {
        Kind::Multinomial(params.clone().multinomial().fit(data)?)
    } else if n_classes == 2 {
        Kind::Binary(params.fit(data)?)
    } else {
        Kind::OneVsAll(OneVsAll::new(params.clone()).fit(data)?)
    })
}

/// The Python names of the built-in block updates: `"alg1"` (`true`, [`ExactBlockSolve`])
/// or `"alg2"` ([`ProxLinearStep`]).
const SOLVERS: &[(&str, bool)] = &[("alg2", false), ("alg1", true)];

/// The Python names of the starts.
fn inits() -> [(&'static str, Init); 3] {
    [
        ("mean_svd", Init::MeanSvd),
        ("label_weighted_svd", Init::LabelWeightedSvd),
        ("random", Init::Random),
    ]
}

/// The keyword defaults of `SparseBilinearLogisticRegression`: the values of the crate's
/// preset [`SblrParams::standardized`] (for standardized data), by Python name (`rank`,
/// `mu1`, `mu2`, `nu1`, `nu2`, `solver`, `tol`, `max_iter`, `init`, `seed`, `threads`). The
/// Python class reads its defaults from here, so they are written once, in Rust.
#[pyfunction]
pub fn sblr_standardized_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let preset = SblrParams::standardized()
        .check()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let solver = match preset.block_update().as_built_in() {
        Some(BuiltInUpdate::Exact(_)) => "alg1",
        _ => "alg2",
    };
    let init = inits()
        .into_iter()
        .find(|(_, init)| init == preset.init())
        .map_or("label_weighted_svd", |(name, _)| name);
    let defaults = PyDict::new(py);
    defaults.set_item("rank", preset.rank())?;
    defaults.set_item("mu1", preset.mu1())?;
    defaults.set_item("mu2", preset.mu2())?;
    defaults.set_item("nu1", preset.nu1())?;
    defaults.set_item("nu2", preset.nu2())?;
    defaults.set_item("solver", solver)?;
    defaults.set_item("tol", preset.iteration().tol)?;
    defaults.set_item("max_iter", preset.iteration().max_iter)?;
    defaults.set_item("init", init)?;
    defaults.set_item("seed", preset.seed())?;
    defaults.set_item("threads", preset.iteration().threads)?;
    Ok(defaults)
}

/// Fits SBLR on `x` (`(n, s, t)`) with class indices `y` in `0..n_classes` and the
/// parameters `params` (see [`FitParams`]).
///
/// `multi_class` is `"ovr"` (one-vs-all; a single binary model when `n_classes == 2`) or
/// `"multinomial"` (Alg. 3; the last class is the zero-score reference). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, params, *, multi_class, dtype="float64"))]
pub fn sblr_fit(
    py: Python<'_>,
    x: PyReadonlyArray3<'_, f64>,
    y: PyReadonlyArray1<'_, i64>,
    n_classes: usize,
    params: FitParams,
    multi_class: &str,
    dtype: &str,
) -> PyResult<SblrModel> {
    let labels = class_indices(&y)?;
    let params = params.into_params()?;
    let multinomial = choose(
        "multi_class",
        multi_class,
        &[("ovr", false), ("multinomial", true)],
    )?;
    let float32 = choose("dtype", dtype, &[("float64", false), ("float32", true)])?;
    let x = x.as_array();
    let kind = py.detach(|| {
        if float32 {
            // Samples stored in single precision; the data passes accumulate in f64.
            let data = dataset::<f32>(x, labels, n_classes)?;
            guarded(|| fit_kind(&params, &data, n_classes, multinomial))
        } else {
            let data = dataset::<f64>(x, labels, n_classes)?;
            guarded(|| fit_kind(&params, &data, n_classes, multinomial))
        }
    })?;
    Ok(SblrModel { kind })
}

/// The parameters every native fit takes: the dict of the Python class's
/// `_native_params()`, with the keys `rank`, `mu1`, `mu2`, `nu1`, `nu2`, `solver`, `tol`,
/// `max_iter`, `init`, `seed` and `threads` (`solver` and `init` by their Python names;
/// `threads` `None` or a pool size, the crate's `threads`).
#[derive(Debug, FromPyObject)]
#[pyo3(from_item_all)]
pub struct FitParams {
    rank: usize,
    mu1: f64,
    mu2: f64,
    nu1: f64,
    nu2: f64,
    solver: String,
    tol: f64,
    max_iter: usize,
    init: String,
    seed: u64,
    threads: Option<usize>,
}

impl FitParams {
    /// The crate's params (unchecked).
    fn into_params(self) -> PyResult<SblrParams> {
        let update: Arc<dyn BlockUpdate> = if choose("solver", &self.solver, SOLVERS)? {
            Arc::new(ExactBlockSolve::default())
        } else {
            Arc::new(ProxLinearStep::default())
        };
        Ok(Sblr::params()
            .rank(self.rank)
            .penalties(self.mu1, self.mu2, self.nu1, self.nu2)
            .block_update(update)
            .tol(self.tol)
            .max_iter(self.max_iter)
            .init(choose("init", &self.init, &inits())?)
            .seed(self.seed)
            .threads(self.threads))
    }
}

/// `ValueError` for parameters a fit would refuse (a solver or start of another name, a
/// negative penalty or tolerance, `max_iter = 0`, ...: the crate's own check,
/// `SblrParams::check`) and, with `shape` `(s, t)`, for a rank outside `1..=min(s, t)`
/// or buffers too large for samples of that shape (`sblr::distributed::check_sample_shape`):
/// what the Python class checks before it reads any data.
#[pyfunction]
#[pyo3(signature = (params, shape=None))]
pub fn sblr_check_params(params: FitParams, shape: Option<(usize, usize)>) -> PyResult<()> {
    let params = params.into_params()?;
    guarded(|| -> Result<(), sblr::SblrError> {
        let params = params.check()?;
        if let Some(shape) = shape {
            sblr::distributed::check_sample_shape(params.rank(), shape)?;
        }
        Ok(())
    })
}

/// Fits SBLR on the `(n, s, t)` `.npy` file at `path` (`f4` or `f8`, C or Fortran order),
/// streamed in blocks of at most `memory_budget` bytes for every data pass
/// (`sblr::stream::NpySource`), with class indices `y` in `0..n_classes`: one binary
/// model for two classes, else one-vs-all (the classes one after the other). The fitted
/// model equals `sblr_fit` on the same values, bit for bit (`f4` files: with
/// `dtype="float32"`). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (path, y, n_classes, params, *, memory_budget))]
pub fn sblr_fit_npy(
    py: Python<'_>,
    path: std::path::PathBuf,
    y: PyReadonlyArray1<'_, i64>,
    n_classes: usize,
    params: FitParams,
    memory_budget: usize,
) -> PyResult<SblrModel> {
    let labels = class_indices(&y)?;
    let params = params.into_params()?;
    let kind = py.detach(|| {
        guarded(|| -> Result<Kind, sblr::SblrError> {
            let names = (0..n_classes).map(|c| c.to_string()).collect();
            let source = NpySource::with_classes(&path, labels, names, memory_budget)?;
            Ok(if n_classes == 2 {
                Kind::Binary(params.fit(&source)?)
            } else {
                Kind::OneVsAll(OneVsAll::new(params.clone()).fit(&source)?)
            })
        })
    })?;
    Ok(SblrModel { kind })
}

/// Stacks per-class factors into `(classes, rows, rank)`.
fn stack(mats: &[MatRef<'_, f64>]) -> Array3<f64> {
    let (rows, cols) = mats.first().map_or((0, 0), |m| (m.nrows(), m.ncols()));
    Array3::from_shape_fn((mats.len(), rows, cols), |(c, i, j)| mats[c][(i, j)])
}

fn rows_to_array(rows: Vec<Vec<f64>>) -> Array2<f64> {
    let k = rows.first().map_or(0, Vec::len);
    let n = rows.len();
    Array2::from_shape_vec((n, k), rows.into_iter().flatten().collect())
        .unwrap_or_else(|_| Array2::zeros((n, k)))
}

/// Scores of a binary model (one per sample) or of several classes (a row per sample).
enum Scores {
    Vector(Vec<f64>),
    Matrix(Array2<f64>),
}

impl Scores {
    fn into_py(self, py: Python<'_>) -> Bound<'_, PyAny> {
        match self {
            Self::Vector(v) => Array1::from(v).into_pyarray(py).into_any(),
            Self::Matrix(a) => a.into_pyarray(py).into_any(),
        }
    }
}

impl SblrModel {
    /// `f` of the model's kind and the samples `x` (`(n, s, t)`), without the GIL.
    fn on_samples<T: Send>(
        &self,
        py: Python<'_>,
        x: PyReadonlyArray3<'_, f64>,
        f: impl FnOnce(&Kind, &MatrixDataset) -> Result<T, sblr::SblrError> + Send,
    ) -> PyResult<T> {
        let x = x.as_array();
        py.detach(|| {
            let data = samples(x)?;
            guarded(|| f(&self.kind, &data))
        })
    }

    /// One factor (`U` or `V`, chosen by the two accessors of the crate's models): the
    /// matrix of a binary model, else the matrices of the classes stacked (multinomial:
    /// the non-reference classes).
    fn factor<'py>(
        &self,
        py: Python<'py>,
        (what, binary): (&'static str, fn(&FittedSblr) -> MatRef<'_, f64>),
        of_class: fn(&FittedMultinomialSblr, usize) -> Option<MatRef<'_, f64>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let per_class: Vec<MatRef<'_, f64>> = match &self.kind {
            Kind::Binary(m) => {
                return Ok(mat_to_array(what, binary(m))?.into_pyarray(py).into_any());
            }
            Kind::OneVsAll(m) => m.models().iter().map(binary).collect(),
            Kind::Multinomial(m) => (0..m.n_classes().saturating_sub(1))
                .filter_map(|c| of_class(m, c))
                .collect(),
        };
        Ok(stack(&per_class).into_pyarray(py).into_any())
    }
}

#[pymethods]
impl SblrModel {
    /// `"binary"`, `"ovr"` or `"multinomial"`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.kind {
            Kind::Binary(_) => "binary",
            Kind::OneVsAll(_) => "ovr",
            Kind::Multinomial(_) => "multinomial",
        }
    }

    /// Iterations of the fit (one-vs-all: summed over the classes).
    #[getter]
    fn n_iter(&self) -> usize {
        match &self.kind {
            Kind::Binary(m) => m.report().iterations,
            Kind::OneVsAll(m) => m.report().iterations,
            Kind::Multinomial(m) => m.report().iterations,
        }
    }

    /// The sample shape `(s, t)`.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        match &self.kind {
            Kind::Binary(m) => m.shape(),
            Kind::OneVsAll(m) => m.models()[0].shape(),
            Kind::Multinomial(m) => m.shape(),
        }
    }

    /// `U`: `(s, r)` for a binary model, `(classes, s, r)` otherwise (multinomial: one
    /// per non-reference class).
    #[getter]
    fn u<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.factor(py, ("U", FittedSblr::u), FittedMultinomialSblr::u)
    }

    /// `V`: `(t, r)` for a binary model, `(classes, t, r)` otherwise.
    #[getter]
    fn v<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.factor(py, ("V", FittedSblr::v), FittedMultinomialSblr::v)
    }

    /// The intercepts: one for a binary model, one per class (multinomial: per
    /// non-reference class).
    #[getter]
    fn intercept<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let b: Vec<f64> = match &self.kind {
            Kind::Binary(m) => vec![m.intercept()],
            Kind::OneVsAll(m) => m.models().iter().map(FittedSblr::intercept).collect(),
            Kind::Multinomial(m) => m.intercepts().to_vec(),
        };
        Array1::from(b).into_pyarray(py)
    }

    /// Decision values: `(n,)` for a binary model (positive means class 1), `(n, classes)`
    /// otherwise.
    fn decision_function<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray3<'py, f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let out = self.on_samples(py, x, |kind, data| {
            Ok(match kind {
                Kind::Binary(m) => Scores::Vector(m.decision_function(data)?),
                Kind::OneVsAll(m) => Scores::Matrix(rows_to_array(m.decision_function(data)?)),
                Kind::Multinomial(m) => Scores::Matrix(rows_to_array(m.decision_function(data)?)),
            })
        })?;
        Ok(out.into_py(py))
    }

    /// Probabilities: of class 1 `(n,)` for a binary model, `(n, classes)` for the
    /// multinomial one; `None` for one-vs-all (the crate has no calibrated OvA
    /// probabilities; the Python class normalizes the sigmoids).
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray3<'py, f64>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let out = self.on_samples(py, x, |kind, data| {
            Ok(match kind {
                Kind::Binary(m) => Some(Scores::Vector(m.predict_proba(data)?)),
                Kind::OneVsAll(_) => None,
                Kind::Multinomial(m) => Some(Scores::Matrix(rows_to_array(m.predict_proba(data)?))),
            })
        })?;
        Ok(out.map(|o| o.into_py(py)))
    }

    /// Predicted class indices `(n,)`.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray3<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let labels = self.on_samples(py, x, |kind, data| match kind {
            Kind::Binary(m) => m.predict(data),
            Kind::OneVsAll(m) => m.predict(data),
            Kind::Multinomial(m) => m.predict(data),
        })?;
        let labels: Vec<i64> = labels
            .into_iter()
            .map(|l| i64::try_from(l).unwrap_or(i64::MAX))
            .collect();
        Ok(Array1::from(labels).into_pyarray(py))
    }

    /// The model as JSON: `{"kind": ..., "model": <the crate's serde form>}`.
    fn to_json(&self) -> PyResult<String> {
        let model = match &self.kind {
            Kind::Binary(m) => serde_json::to_value(m),
            Kind::OneVsAll(m) => serde_json::to_value(m),
            Kind::Multinomial(m) => serde_json::to_value(m),
        }
        .map_err(json_err)?;
        Ok(json!({ "kind": self.kind(), "model": model }).to_string())
    }

    /// A model from [`SblrModel::to_json`]'s text; the crate validates it.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let value: Value = serde_json::from_str(text).map_err(json_err)?;
        let model = value.get("model").cloned().unwrap_or(Value::Null);
        let kind = match value.get("kind").and_then(Value::as_str) {
            Some("binary") => Kind::Binary(serde_json::from_value(model).map_err(json_err)?),
            Some("ovr") => Kind::OneVsAll(serde_json::from_value(model).map_err(json_err)?),
            Some("multinomial") => {
                Kind::Multinomial(serde_json::from_value(model).map_err(json_err)?)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "invalid saved model: kind {other:?}, expected 'binary', 'ovr' or 'multinomial'"
                )));
            }
        };
        Ok(Self { kind })
    }

    /// Pickling through the JSON form.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let json = slf.get().to_json()?;
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (json,)))
    }

    fn __repr__(&self) -> String {
        let (s, t) = self.shape();
        format!("SblrModel(kind={:?}, shape=({s}, {t}))", self.kind())
    }
}

/// Adds the SBLR items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SblrModel>()?;
    m.add_function(wrap_pyfunction!(sblr_fit, m)?)?;
    m.add_function(wrap_pyfunction!(sblr_fit_npy, m)?)?;
    m.add_class::<SblrChunk>()?;
    m.add_function(wrap_pyfunction!(sblr_fit_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(sblr_one_vs_all, m)?)?;
    m.add_function(wrap_pyfunction!(sblr_standardized_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(sblr_check_params, m)?)?;
    Ok(())
}

/// The one-vs-all model of binary models `models` (model `c`: class `c` against the
/// rest, e.g. fitted in parallel by `sblr_fit_chunks`).
#[pyfunction]
pub fn sblr_one_vs_all(models: Vec<PyRef<'_, SblrModel>>) -> PyResult<SblrModel> {
    let binaries = models
        .iter()
        .map(|m| match &m.kind {
            Kind::Binary(b) => Ok(b.clone()),
            _ => Err(PyValueError::new_err("sblr_one_vs_all takes binary models")),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let names = (0..binaries.len()).map(|c| c.to_string()).collect();
    let model = guarded(|| sblr::distributed::one_vs_all(binaries, names))?;
    Ok(SblrModel {
        kind: Kind::OneVsAll(model),
    })
}
