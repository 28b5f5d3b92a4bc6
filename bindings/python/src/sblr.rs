//! `SblrModel`: a fitted SBLR model (binary, one-vs-all or multinomial) of the `sblr` crate.
//!
//! The Python class `bilinear.SparseBilinearLogisticRegression` validates the input with
//! scikit-learn's helpers and calls `sblr_fit`; this module only converts arrays and
//! parameters and calls the crate.

use bl_core::data::{Element, MatrixDataset};
use bl_core::{Fit, Fitted};

use faer::MatRef;
use numpy::ndarray::{Array1, Array2, Array3, ArrayView3};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

use pyo3::types::PyDict;
use sblr::{
    BlockUpdate, BuiltInUpdate, ExactBlockSolve, FittedMultinomialSblr, FittedOneVsAll, FittedSblr,
    Init, OneVsAll, ParamGuard as _, Predict as _, ProxLinearStep, Sblr, SblrParams,
};
use serde_json::{Value, json};

use crate::arrays::mat_to_array;
use crate::errors::{choose, guarded, json_err};

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

/// Samples `(n, s, t)` (any strides) into the column-major-per-sample buffer of
/// `MatrixDataset`, stored as `T` (one copy), with the class index of each sample.
fn dataset<T: Element>(
    x: ArrayView3<'_, f64>,
    labels: Vec<usize>,
    n_classes: usize,
) -> Result<MatrixDataset<T>, bl_core::BlError> {
    let (n, s, t) = x.dim();
    let mut data = Vec::with_capacity(n * s * t);
    for i in 0..n {
        for k in 0..t {
            for j in 0..s {
                data.push(T::from_f64(x[(i, j, k)]));
            }
        }
    }
    let names = (0..n_classes).map(|c| c.to_string()).collect();
    MatrixDataset::with_data(s, t, data, labels, names)
}

/// Unlabelled samples for prediction (every label 0 of two placeholder classes).
fn samples(x: ArrayView3<'_, f64>) -> Result<MatrixDataset, bl_core::BlError> {
    let n = x.dim().0;
    dataset(x, vec![0; n], 2)
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
/// `mu1`, `mu2`, `nu1`, `nu2`, `solver`, `tol`, `max_iter`, `init`). The Python class reads
/// its defaults from here, so they are written once, in Rust.
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
    Ok(defaults)
}

/// Fits SBLR on `x` (`(n, s, t)`) with class indices `y` in `0..n_classes`.
///
/// `multi_class` is `"ovr"` (one-vs-all; a single binary model when `n_classes == 2`) or
/// `"multinomial"` (Alg. 3; the last class is the zero-score reference). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, *, rank, mu1, mu2, nu1, nu2, solver, tol, max_iter, init, seed, multi_class, dtype="float64"))]
#[allow(clippy::too_many_arguments)]
pub fn sblr_fit(
    py: Python<'_>,
    x: PyReadonlyArray3<'_, f64>,
    y: PyReadonlyArray1<'_, i64>,
    n_classes: usize,
    rank: usize,
    mu1: f64,
    mu2: f64,
    nu1: f64,
    nu2: f64,
    solver: &str,
    tol: f64,
    max_iter: usize,
    init: &str,
    seed: u64,
    multi_class: &str,
    dtype: &str,
) -> PyResult<SblrModel> {
    let labels = y
        .as_array()
        .iter()
        .map(|&l| usize::try_from(l))
        .collect::<Result<Vec<usize>, _>>()
        .map_err(|_| PyValueError::new_err("class indices must be non-negative"))?;
    let update: Arc<dyn BlockUpdate> = if choose("solver", solver, SOLVERS)? {
        Arc::new(ExactBlockSolve::default())
    } else {
        Arc::new(ProxLinearStep::default())
    };
    let params = Sblr::params()
        .rank(rank)
        .penalties(mu1, mu2, nu1, nu2)
        .block_update(update)
        .tol(tol)
        .max_iter(max_iter)
        .init(choose("init", init, &inits())?)
        .seed(seed);
    let multinomial = choose(
        "multi_class",
        multi_class,
        &[("ovr", false), ("multinomial", true)],
    )?;
    let float32 = choose("dtype", dtype, &[("float64", false), ("float32", true)])?;
    let x = x.as_array();
    let kind = py.detach(|| {
        guarded(|| -> Result<Kind, sblr::SblrError> {
            if float32 {
                // Samples stored in single precision; the data passes accumulate in f64.
                let data = dataset::<f32>(x, labels, n_classes)?;
                fit_kind(&params, &data, n_classes, multinomial)
            } else {
                let data = dataset::<f64>(x, labels, n_classes)?;
                fit_kind(&params, &data, n_classes, multinomial)
            }
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
    /// One factor (`U` or `V`, chosen by the two accessors of the crate's models): the
    /// matrix of a binary model, else the matrices of the classes stacked (multinomial:
    /// the non-reference classes).
    fn factor<'py>(
        &self,
        py: Python<'py>,
        binary: fn(&FittedSblr) -> MatRef<'_, f64>,
        of_class: fn(&FittedMultinomialSblr, usize) -> Option<MatRef<'_, f64>>,
    ) -> Bound<'py, PyAny> {
        let per_class: Vec<MatRef<'_, f64>> = match &self.kind {
            Kind::Binary(m) => return mat_to_array(binary(m)).into_pyarray(py).into_any(),
            Kind::OneVsAll(m) => m.models().iter().map(binary).collect(),
            Kind::Multinomial(m) => (0..m.n_classes().saturating_sub(1))
                .filter_map(|c| of_class(m, c))
                .collect(),
        };
        stack(&per_class).into_pyarray(py).into_any()
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
    fn u<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.factor(py, FittedSblr::u, FittedMultinomialSblr::u)
    }

    /// `V`: `(t, r)` for a binary model, `(classes, t, r)` otherwise.
    #[getter]
    fn v<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.factor(py, FittedSblr::v, FittedMultinomialSblr::v)
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
        let x = x.as_array();
        let out = py.detach(|| {
            guarded(|| -> Result<Scores, sblr::SblrError> {
                let data = samples(x)?;
                Ok(match &self.kind {
                    Kind::Binary(m) => Scores::Vector(m.decision_function(&data)?),
                    Kind::OneVsAll(m) => Scores::Matrix(rows_to_array(m.decision_function(&data)?)),
                    Kind::Multinomial(m) => {
                        Scores::Matrix(rows_to_array(m.decision_function(&data)?))
                    }
                })
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
        let x = x.as_array();
        let out = py.detach(|| {
            guarded(|| -> Result<Option<Scores>, sblr::SblrError> {
                let data = samples(x)?;
                Ok(match &self.kind {
                    Kind::Binary(m) => Some(Scores::Vector(m.predict_proba(&data)?)),
                    Kind::OneVsAll(_) => None,
                    Kind::Multinomial(m) => {
                        Some(Scores::Matrix(rows_to_array(m.predict_proba(&data)?)))
                    }
                })
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
        let x = x.as_array();
        let labels = py.detach(|| {
            guarded(|| -> Result<Vec<usize>, sblr::SblrError> {
                let data = samples(x)?;
                match &self.kind {
                    Kind::Binary(m) => m.predict(&data),
                    Kind::OneVsAll(m) => m.predict(&data),
                    Kind::Multinomial(m) => m.predict(&data),
                }
            })
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
    m.add_function(wrap_pyfunction!(sblr_standardized_defaults, m)?)?;
    Ok(())
}
