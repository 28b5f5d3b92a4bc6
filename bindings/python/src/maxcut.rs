//! The mixing method for `max <C, Y>, diag(Y) = 1, Y psd` and max-cut, of the
//! `maxcut-sdp` crate (Wang, Chang, Kolter 2017), behind `bilinear.mixing_sdp` and
//! `bilinear.maxcut`.

use maxcut_sdp::{Fit, Fitted, FittedMixing, MaxcutError, MixingParams, ParamGuard, Problem};
use numpy::ndarray::{Array1, ArrayView2};
use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{array_to_mat, mat_to_array};
use crate::errors::guarded;
use crate::keywords::set_if_given;

/// The largest integer a node index may have (exactly representable as `f64`).
const MAX_INDEX: f64 = 9_007_199_254_740_992.0;

fn index(value: f64, row: usize, col: usize) -> PyResult<usize> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value < MAX_INDEX {
        // exact: a non-negative integer below 2^53
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(value as usize)
    } else {
        Err(PyValueError::new_err(format!(
            "edge {row}: node index {value} in column {col} is not a non-negative integer"
        )))
    }
}

/// `(i, j, w)` triples from an `(m, 2)` (unit weights) or `(m, 3)` array.
fn edge_list(edges: ArrayView2<'_, f64>) -> PyResult<Vec<(usize, usize, f64)>> {
    let cols = edges.ncols();
    if cols != 2 && cols != 3 {
        return Err(PyValueError::new_err(format!(
            "edges must have 2 columns (i, j) or 3 (i, j, weight), got {cols}"
        )));
    }
    edges
        .rows()
        .into_iter()
        .enumerate()
        .map(|(e, r)| {
            let w = if cols == 3 { r[2] } else { 1.0 };
            Ok((index(r[0], e, 0)?, index(r[1], e, 1)?, w))
        })
        .collect()
}

fn solve<'py>(
    py: Python<'py>,
    build: impl FnOnce() -> Result<Problem, MaxcutError> + Send,
    params: &MixingParams,
) -> PyResult<Bound<'py, PyDict>> {
    let solution: FittedMixing = py.detach(|| guarded(|| params.fit(&build()?)))?;
    let v = solution.v();
    let d = PyDict::new(py);
    d.set_item("y", Array1::from(solution.y().to_vec()).into_pyarray(py))?;
    d.set_item("value", solution.value())?;
    d.set_item("sdp_value", solution.sdp_value())?;
    d.set_item("upper_bound", solution.upper_bound())?;
    d.set_item("certified_bound", solution.certified_bound())?;
    d.set_item("n_iter", solution.report().iterations)?;
    d.set_item("converged", solution.report().converged())?;
    d.set_item("v", mat_to_array("v", v)?.into_pyarray(py))?;
    Ok(d)
}

/// The mixing method, then rounding and local search, on `C` given either as a dense
/// symmetric array (`dense`) or by `edges` on `n` nodes: with `maxcut = false` each
/// `(i, j, w)` adds `w` to `C_ij` and `C_ji`; with `maxcut = true`, `C` is the max-cut
/// cost `L / 4` of the graph. Every knob left `None` keeps the default of
/// `MixingParams::default()`, or of the preset `MixingParams::max_cut()` with `maxcut`
/// (the Python defaults are the Rust ones). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (*, dense=None, edges=None, n=0, maxcut=false, rank=None, tol=None, max_iter=None, trials=None, local_search=None, certify=None, threads=None, seed=None))]
#[allow(clippy::too_many_arguments)]
pub fn mixing<'py>(
    py: Python<'py>,
    dense: Option<PyReadonlyArray2<'py, f64>>,
    edges: Option<PyReadonlyArray2<'py, f64>>,
    n: usize,
    maxcut: bool,
    rank: Option<usize>,
    tol: Option<f64>,
    max_iter: Option<usize>,
    trials: Option<usize>,
    local_search: Option<bool>,
    certify: Option<bool>,
    threads: Option<usize>,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let start = if maxcut {
        MixingParams::max_cut()
    } else {
        MixingParams::default()
    };
    let p = start.rank(rank).threads(threads);
    let p = set_if_given(p, tol, MixingParams::tol);
    let p = set_if_given(p, max_iter, MixingParams::max_iter);
    let p = set_if_given(p, trials, MixingParams::trials);
    let p = set_if_given(p, local_search, MixingParams::local_search);
    let p = set_if_given(p, certify, MixingParams::certify);
    let p = set_if_given(p, seed, MixingParams::seed);
    match (dense, edges) {
        (Some(c), None) => {
            let m = array_to_mat("C", c.as_array())?;
            solve(py, || Problem::dense(m.as_ref()), &p)
        }
        (None, Some(e)) => {
            let edges = edge_list(e.as_array())?;
            // The factor V (`rank x n` values) must be possible before the problem's
            // `O(n)` buffers are built for the declared node count.
            guarded(|| -> Result<usize, MaxcutError> {
                let k = p.check()?.rank_for(n);
                Ok(bl_core::limits::buffer_len("V (rank x n)", &[k, n])?)
            })?;
            let build = || {
                if maxcut {
                    Problem::maxcut(n, &edges)
                } else {
                    Problem::sparse_from_edges(n, &edges)
                }
            };
            solve(py, build, &p)
        }
        _ => Err(PyValueError::new_err(
            "give C either as `dense` or as `edges`, not both or neither",
        )),
    }
}

/// Adds the SDP items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mixing, m)?)?;
    Ok(())
}
