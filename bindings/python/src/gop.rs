//! Certified global optimization of sparse mixed-membership matrix factorization
//! (Zhang, Wang, Trapp, Flaherty) of the `gop-mmf` crate, behind `bilinear.gop_mmf`.

use std::time::Duration;

use gop_mmf::{Fit, Fitted, GopParams};
use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{array_to_mat, mat_to_array};
use crate::errors::guarded;

/// Solves `min ||y - x theta||_F^2` (theta's columns in the simplex, `sum |x| <= budget`)
/// to the gap `eps` by GOP. Returns a dict with `x`, `theta`, `lower_bound`,
/// `upper_bound`, `gap`, `certified`, `n_iter`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (y, *, k, budget, eps, max_iter, max_nodes, time_limit, seed, threads))]
#[allow(clippy::too_many_arguments)]
pub fn gop_fit<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, f64>,
    k: usize,
    budget: f64,
    eps: f64,
    max_iter: usize,
    max_nodes: usize,
    time_limit: Option<f64>,
    seed: u64,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let y = array_to_mat(y.as_array());
    let mut params = GopParams::default()
        .k(k)
        .budget(budget)
        .eps(eps)
        .max_iter(max_iter)
        .max_nodes(max_nodes)
        .seed(seed)
        .threads(threads);
    if let Some(seconds) = time_limit {
        let limit = Duration::try_from_secs_f64(seconds).map_err(|_| {
            PyValueError::new_err(format!(
                "time_limit must be a finite non-negative number of seconds, got {seconds}"
            ))
        })?;
        params = params.time_limit(limit);
    }
    let fit = py.detach(|| guarded(|| params.fit(&y.as_ref())))?;
    let c = fit.certificate();
    let d = PyDict::new(py);
    d.set_item("x", mat_to_array(fit.x()).into_pyarray(py))?;
    d.set_item("theta", mat_to_array(fit.theta()).into_pyarray(py))?;
    d.set_item("lower_bound", c.lower_bound)?;
    d.set_item("upper_bound", c.upper_bound)?;
    d.set_item("gap", c.gap)?;
    d.set_item("certified", c.certified)?;
    d.set_item("n_iter", fit.report().iterations)?;
    Ok(d)
}

/// Adds the GOP items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gop_fit, m)?)?;
    Ok(())
}
