//! The Dask side of the SBLR fit (`sblr::distributed`): [`SblrChunk`], a chunk of samples
//! kept on its worker with the reduced features of every fit running on it, and
//! [`sblr_fit_chunks`], the client's fit, whose passes over the chunks go through the
//! Python driver (`PyChunks`; the Python side is `bilinear._sblr_dask`).

use bl_core::data::Element;

use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray3};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, MutexGuard};

use sblr::distributed::{ChunkFeatures, ChunkSamples, RemoteChunks};
use sblr::features::Side;
use sblr::{FittedSblr, ParamGuard as _};

use super::{FitParams, Kind, SblrModel};
use crate::arrays::copy_array;
use crate::errors::{choose, guarded};

// What the docs link to.
#[cfg(doc)]
use super::sblr_fit;

/// The values of the 1-D array argument `what`, whatever its strides and alignment (a
/// copy sized and reserved first, see [`crate::arrays`]).
fn to_vec(what: &'static str, a: &PyReadonlyArray1<'_, f64>) -> PyResult<Vec<f64>> {
    copy_array(what, &a.as_array(), |&v| v)
}

/// The samples of a chunk in the precision of the fit.
#[derive(Debug)]
enum ChunkData {
    F64(Arc<ChunkSamples<f64>>),
    F32(Arc<ChunkSamples<f32>>),
}

/// One fit's reduced features of a chunk.
#[derive(Debug)]
enum ChunkFeaturesAny {
    F64(ChunkFeatures<f64>),
    F32(ChunkFeatures<f32>),
}

/// `"u"` or `"v"`: the block whose features a call is about.
fn side(name: &str) -> PyResult<Side> {
    choose("side", name, &[("u", Side::U), ("v", Side::V)])
}

/// An `(n, s, t)` block of samples as NumPy gives it: `float64` or `float32`, any strides.
#[derive(FromPyObject)]
enum Block<'py> {
    F64(PyReadonlyArray3<'py, f64>),
    F32(PyReadonlyArray3<'py, f32>),
}

/// The samples `x` (as NumPy stores them: C order, or any strides at the cost of one copy)
/// of chunk `chunk` for a fit on samples of `s x t`, stored as `T`: transposed into the
/// chunk's buffer straight from `x`, converted value by value (the chunk's buffer is the
/// only allocation for a C-contiguous `x`). With `first_sample` (the index of its first
/// sample in the data), the values are checked; without it, they are checked later
/// ([`SblrChunk::check_finite`]). Releases the GIL.
fn chunk_samples<S, T>(
    py: Python<'_>,
    x: &PyReadonlyArray3<'_, S>,
    shape: (usize, usize),
    chunk: usize,
    first_sample: Option<usize>,
) -> PyResult<Arc<ChunkSamples<T>>>
where
    S: Element + numpy::Element + Copy,
    T: Element,
{
    let view = x.as_array();
    let dims = view.dim();
    // Any other layout is copied into C order first (sized and reserved first).
    let copied;
    let values = match view.as_slice() {
        Some(values) => values,
        None => {
            copied = copy_array("x", &view, |&v| v)?;
            copied.as_slice()
        }
    };
    let samples = py.detach(|| {
        guarded(|| match first_sample {
            Some(first) => ChunkSamples::from_c_order(values, dims, shape, chunk, first),
            None => ChunkSamples::transposed(values, dims, shape, chunk),
        })
    })?;
    Ok(Arc::new(samples))
}

/// A chunk of samples on a worker of a cluster, with the reduced features of every fit
/// running on it (keyed by an integer slot per fit): the worker side of
/// `sblr::distributed`. Built from an `(n, s, t)` block of the data; the Python layer
/// keeps it on the worker that built it (`bilinear._sblr_dask`).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct SblrChunk {
    /// The chunk's index (for the messages).
    chunk: usize,
    data: ChunkData,
    features: std::sync::Mutex<HashMap<u64, ChunkFeaturesAny>>,
}

/// The two products of a chunk's reduced features with a vector.
#[derive(Debug, Clone, Copy)]
enum Product {
    /// `z^T w`.
    Scores,
    /// `z c`.
    WeightedSum,
}

impl SblrChunk {
    /// `product` of fit `slot`'s features of block `side_name` with `v`, without the GIL.
    fn product<'py>(
        &self,
        py: Python<'py>,
        slot: u64,
        side_name: &str,
        v: &PyReadonlyArray1<'py, f64>,
        product: Product,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let side = side(side_name)?;
        // Arrays from a network frame may be misaligned: copy them.
        let v = to_vec("v", v)?;
        let v = v.as_slice();
        let out = py.detach(|| {
            self.with_features(slot, |f| match (f, product) {
                (ChunkFeaturesAny::F64(f), Product::Scores) => f.scores(side, v),
                (ChunkFeaturesAny::F32(f), Product::Scores) => f.scores(side, v),
                (ChunkFeaturesAny::F64(f), Product::WeightedSum) => f.weighted_sum(side, v),
                (ChunkFeaturesAny::F32(f), Product::WeightedSum) => f.weighted_sum(side, v),
            })
        })?;
        Ok(Array1::from(out).into_pyarray(py))
    }

    /// The features of every fit running on the chunk, locked.
    fn lock_features(&self) -> PyResult<MutexGuard<'_, HashMap<u64, ChunkFeaturesAny>>> {
        self.features
            .lock()
            .map_err(|_| PyRuntimeError::new_err("SblrChunk: a call panicked earlier"))
    }

    fn with_features<R>(
        &self,
        slot: u64,
        f: impl FnOnce(&mut ChunkFeaturesAny) -> Result<R, sblr::SblrError>,
    ) -> PyResult<R> {
        let mut map = self.lock_features()?;
        let features = map.get_mut(&slot).ok_or_else(|| {
            PyRuntimeError::new_err(format!(
                "SblrChunk: no features for fit {slot} (the chunk was rebuilt, e.g. after \
                 its worker restarted)"
            ))
        })?;
        guarded(|| f(features))
    }
}

#[pymethods]
impl SblrChunk {
    /// Chunk `chunk` of the data (`x`: its `(n, s', t')` samples, `float64` or
    /// `float32`, whose first is sample `first_sample` of the data) for a fit on samples
    /// of `s x t`, stored as `dtype` (`"float64"` or `"float32"`): the values are
    /// transposed and converted straight into the chunk's own buffer (no other copy for a
    /// C-contiguous `x`). `ValueError` naming the chunk for samples of another shape or
    /// none, and naming the chunk and the sample for a non-finite entry; with
    /// `first_sample=None` (not known yet) the values are checked by
    /// [`SblrChunk::check_finite`] instead. Releases the GIL.
    #[new]
    #[pyo3(signature = (x, s, t, chunk, first_sample, dtype="float64"))]
    fn new(
        py: Python<'_>,
        x: Block<'_>,
        s: usize,
        t: usize,
        chunk: usize,
        first_sample: Option<usize>,
        dtype: &str,
    ) -> PyResult<Self> {
        let float32 = choose("dtype", dtype, &[("float64", false), ("float32", true)])?;
        let shape = (s, t);
        let data = match (&x, float32) {
            (Block::F64(x), false) => {
                ChunkData::F64(chunk_samples(py, x, shape, chunk, first_sample)?)
            }
            (Block::F32(x), false) => {
                ChunkData::F64(chunk_samples(py, x, shape, chunk, first_sample)?)
            }
            (Block::F64(x), true) => {
                ChunkData::F32(chunk_samples(py, x, shape, chunk, first_sample)?)
            }
            (Block::F32(x), true) => {
                ChunkData::F32(chunk_samples(py, x, shape, chunk, first_sample)?)
            }
        };
        Ok(Self {
            chunk,
            data,
            features: std::sync::Mutex::default(),
        })
    }

    /// `ValueError` naming the chunk and the sample (numbered in the data: the chunk's
    /// first is sample `first_sample`) of the first non-finite entry, if any: the check
    /// of a chunk built with `first_sample=None`. Releases the GIL.
    fn check_finite(&self, py: Python<'_>, first_sample: usize) -> PyResult<()> {
        py.detach(|| {
            guarded(|| match &self.data {
                ChunkData::F64(d) => d.ensure_finite(self.chunk, first_sample),
                ChunkData::F32(d) => d.ensure_finite(self.chunk, first_sample),
            })
        })
    }

    /// Samples in the chunk.
    #[getter]
    fn n_samples(&self) -> usize {
        match &self.data {
            ChunkData::F64(d) => d.n_samples(),
            ChunkData::F32(d) => d.n_samples(),
        }
    }

    /// Bytes the chunk holds: its samples and the reduced features of the fits running
    /// on it (what Dask's memory accounting is told, through `__sizeof__`).
    #[getter]
    fn nbytes(&self) -> usize {
        let samples = match &self.data {
            ChunkData::F64(d) => d.nbytes(),
            ChunkData::F32(d) => d.nbytes(),
        };
        // A poisoned lock (a call panicked) counts no features.
        let features = self.features.lock().map_or(0, |map| {
            map.values()
                .map(|f| match f {
                    ChunkFeaturesAny::F64(f) => f.nbytes(),
                    ChunkFeaturesAny::F32(f) => f.nbytes(),
                })
                .sum()
        });
        samples + features
    }

    /// `nbytes` and the object itself: `sys.getsizeof` (and so `dask.sizeof`) of the
    /// chunk.
    fn __sizeof__(&self) -> usize {
        self.nbytes() + size_of::<Self>()
    }

    /// Recomputes fit `slot`'s features of block `side` (`"u"`: from `V^T`, `"v"`: from
    /// `U`), creating them at rank `rank` on the first call. Releases the GIL.
    fn refresh(
        &self,
        py: Python<'_>,
        slot: u64,
        side_name: &str,
        w: PyReadonlyArray1<'_, f64>,
        rank: usize,
    ) -> PyResult<()> {
        let side = side(side_name)?;
        // Arrays from a network frame may be misaligned: copy them.
        let w = to_vec("w", &w)?;
        let w = w.as_slice();
        {
            let mut map = self.lock_features()?;
            if let std::collections::hash_map::Entry::Vacant(entry) = map.entry(slot) {
                let features = guarded(|| -> Result<ChunkFeaturesAny, sblr::SblrError> {
                    Ok(match &self.data {
                        ChunkData::F64(d) => {
                            ChunkFeaturesAny::F64(ChunkFeatures::new(Arc::clone(d), rank, Some(1))?)
                        }
                        ChunkData::F32(d) => {
                            ChunkFeaturesAny::F32(ChunkFeatures::new(Arc::clone(d), rank, Some(1))?)
                        }
                    })
                })?;
                entry.insert(features);
            }
        }
        py.detach(|| {
            self.with_features(slot, |f| match f {
                ChunkFeaturesAny::F64(f) => f.refresh(side, w),
                ChunkFeaturesAny::F32(f) => f.refresh(side, w),
            })
        })
    }

    /// `refresh`, then `scores` of `x` on the new features: one task for the start of a
    /// block.
    fn refresh_and_scores<'py>(
        &self,
        py: Python<'py>,
        slot: u64,
        side_name: &str,
        w: PyReadonlyArray1<'py, f64>,
        x: PyReadonlyArray1<'py, f64>,
        rank: usize,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.refresh(py, slot, side_name, w, rank)?;
        self.scores(py, slot, side_name, x)
    }

    /// `z^T w` over the chunk for fit `slot`'s block `side`.
    fn scores<'py>(
        &self,
        py: Python<'py>,
        slot: u64,
        side_name: &str,
        w: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.product(py, slot, side_name, &w, Product::Scores)
    }

    /// `z c` over the chunk for fit `slot`'s block `side` (`c`: one value per sample of
    /// the chunk).
    fn weighted_sum<'py>(
        &self,
        py: Python<'py>,
        slot: u64,
        side_name: &str,
        c: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.product(py, slot, side_name, &c, Product::WeightedSum)
    }

    /// `sum_i w_i X_i` over the chunk (`s t` values, column-major).
    fn weighted_sample_sum<'py>(
        &self,
        py: Python<'py>,
        weights: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        // Arrays from a network frame may be misaligned: copy them.
        let weights = to_vec("weights", &weights)?;
        let weights = weights.as_slice();
        let out = py.detach(|| {
            guarded(|| match &self.data {
                ChunkData::F64(d) => d.weighted_sample_sum(weights),
                ChunkData::F32(d) => d.weighted_sample_sum(weights),
            })
        })?;
        Ok(Array1::from(out).into_pyarray(py))
    }

    /// Drops fit `slot`'s features (a no-op when there are none).
    fn release(&self, slot: u64) -> PyResult<()> {
        self.lock_features()?.remove(&slot);
        Ok(())
    }
}

/// The client's [`RemoteChunks`]: every call goes to the Python `driver` (its methods
/// `refresh(side, w)`, `refresh_and_scores(side, w_then_x)`, `scores(side, w)`,
/// `weighted_sum(side, c)` and `weighted_sample_sum(weights)`, which send tasks to the
/// chunks' workers); its first exception is kept in `error`, which the caller shares
/// (the chunks are moved into the fit), to be raised as it is.
struct PyChunks<'py> {
    driver: Bound<'py, PyAny>,
    s: usize,
    t: usize,
    n: usize,
    error: Rc<RefCell<Option<PyErr>>>,
}

impl PyChunks<'_> {
    /// Calls `driver.method(side?, values)` and copies the returned array into `out`
    /// (when given).
    fn call(
        &self,
        method: &str,
        side: Option<Side>,
        values: &[f64],
        out: Option<&mut [f64]>,
    ) -> sblr::Result<()> {
        let py = self.driver.py();
        let result = (|| -> PyResult<()> {
            let array = PyArray1::from_slice(py, values);
            let returned = match side {
                Some(side) => {
                    let name = if side == Side::U { "u" } else { "v" };
                    self.driver.call_method1(method, (name, array))?
                }
                None => self.driver.call_method1(method, (array,))?,
            };
            if let Some(out) = out {
                let returned: PyReadonlyArray1<'_, f64> = returned.extract()?;
                let returned = to_vec("the driver's result", &returned)?;
                if returned.len() != out.len() {
                    return Err(PyRuntimeError::new_err(format!(
                        "driver.{method} returned {} values, expected {}",
                        returned.len(),
                        out.len()
                    )));
                }
                out.copy_from_slice(&returned);
            }
            Ok(())
        })();
        result.map_err(|e| {
            let message = e.to_string();
            self.error.borrow_mut().get_or_insert(e);
            sblr::distributed::remote_failure(message)
        })
    }
}

impl RemoteChunks for PyChunks<'_> {
    fn sample_shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }
    fn n_samples(&self) -> usize {
        self.n
    }
    fn refresh(&self, side: Side, w: &[f64]) -> sblr::Result<()> {
        self.call("refresh", Some(side), w, None)
    }
    fn scores(&self, side: Side, w: &[f64], out: &mut [f64]) -> sblr::Result<()> {
        self.call("scores", Some(side), w, Some(out))
    }
    fn weighted_sum(&self, side: Side, c: &[f64], out: &mut [f64]) -> sblr::Result<()> {
        self.call("weighted_sum", Some(side), c, Some(out))
    }
    fn weighted_sample_sum(&self, weights: &[f64], out: &mut [f64]) -> sblr::Result<()> {
        self.call("weighted_sample_sum", None, weights, Some(out))
    }
    fn refresh_and_scores(
        &self,
        side: Side,
        w: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) -> sblr::Result<()> {
        // `w` and `x` travel as one array, `w` first; the driver splits them.
        let both: Vec<f64> = w.iter().chain(x).copied().collect();
        self.call("refresh_and_scores", Some(side), &both, Some(out))
    }
}

/// Fits the binary model with labels `y` (`±1`, one per sample) on samples of `s x t`
/// held in chunks reached through `driver` (see `PyChunks`): the crate's solver runs here,
/// the passes and the products over the chunks run where the driver sends them. An
/// exception of the driver is raised as it is. `params` as [`sblr_fit`]'s.
#[pyfunction]
pub fn sblr_fit_chunks(
    driver: Bound<'_, PyAny>,
    y: PyReadonlyArray1<'_, f64>,
    s: usize,
    t: usize,
    params: FitParams,
) -> PyResult<SblrModel> {
    let params = params.into_params()?;
    let y = to_vec("y", &y)?;
    let error = Rc::new(RefCell::new(None));
    let chunks = PyChunks {
        driver,
        s,
        t,
        n: y.len(),
        error: Rc::clone(&error),
    };
    let result = guarded(|| -> Result<FittedSblr, sblr::SblrError> {
        let params = params.check()?;
        sblr::distributed::fit_binary(chunks, y, &params, &mut [])
    });
    match result {
        Ok(model) => Ok(SblrModel {
            kind: Kind::Binary(model),
        }),
        Err(e) => Err(error.borrow_mut().take().unwrap_or(e)),
    }
}
