//! Certified global optimization of sparse mixed-membership matrix factorization
//! (Zhang, Wang, Trapp, Flaherty) of the `gop-mmf` crate, behind `bilinear.gop_mmf`.
//!
//! Every keyword is optional: an omitted one (`None`) keeps the default of
//! `gop_mmf::GopParams::default()`, so the defaults live in Rust only; `gop_defaults`
//! hands them to Python.

use std::time::Duration;

use gop_mmf::{Fit, Fitted, GopError, GopParams, GopValidParams, ParamGuard};
use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{array_to_mat, mat_to_array};
use crate::errors::{ToPyErr, guarded};

/// The `time_limit` keyword (seconds) as a `Duration`; a negative, NaN or infinite one is
/// a `ValueError`.
fn time_limit_duration(seconds: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(seconds).map_err(|_| {
        PyValueError::new_err(format!(
            "time_limit must be a finite non-negative number of seconds, got {seconds}"
        ))
    })
}

/// `params` with `set` applied to a knob Python gave, unchanged (the Rust default) for `None`.
fn given<T>(params: GopParams, knob: Option<T>, set: fn(GopParams, T) -> GopParams) -> GopParams {
    match knob {
        Some(value) => set(params, value),
        None => params,
    }
}

/// Solves `min ||y - x theta||_F^2` (theta's columns in the simplex, `sum |x| <= budget`)
/// to the gap `tol` (the paper's `eps`) by GOP. Every keyword left `None` keeps the Rust
/// default (`gop_defaults()`). Returns a dict with `x`, `theta`, `lower_bound`,
/// `upper_bound`, `gap`, `certified`, `n_iter`, `termination`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (
    y, *, k=None, budget=None, tol=None, max_iter=None, max_nodes=None, time_limit=None,
    seed=None, threads=None
))]
#[allow(clippy::too_many_arguments)]
pub fn gop_fit<'py>(
    py: Python<'py>,
    y: PyReadonlyArray2<'py, f64>,
    k: Option<usize>,
    budget: Option<f64>,
    tol: Option<f64>,
    max_iter: Option<usize>,
    max_nodes: Option<usize>,
    time_limit: Option<f64>,
    seed: Option<u64>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let y = array_to_mat("y", y.as_array())?;
    let time_limit = time_limit.map(time_limit_duration).transpose()?;
    let mut params = GopParams::default().threads(threads);
    params = given(params, k, GopParams::k);
    params = given(params, budget, GopParams::budget);
    params = given(params, tol, GopParams::tol);
    params = given(params, max_iter, GopParams::max_iter);
    params = given(params, max_nodes, GopParams::max_nodes);
    params = given(params, seed, GopParams::seed);
    params = given(params, time_limit.map(Some), GopParams::time_limit);
    let fit = py.detach(|| guarded(|| params.fit(&y.as_ref())))?;
    let c = fit.certificate();
    let d = PyDict::new(py);
    d.set_item("x", mat_to_array("x", fit.x())?.into_pyarray(py))?;
    d.set_item(
        "theta",
        mat_to_array("theta", fit.theta())?.into_pyarray(py),
    )?;
    d.set_item("lower_bound", c.lower_bound)?;
    d.set_item("upper_bound", c.upper_bound)?;
    d.set_item("gap", c.gap)?;
    d.set_item("certified", c.certified)?;
    d.set_item("n_iter", fit.report().iterations)?;
    d.set_item("termination", format!("{:?}", fit.report().termination))?;
    Ok(d)
}

/// The defaults of the keywords of `gop_fit`, read from `GopParams::default()` (checked):
/// `k`, `budget`, `tol`, `max_iter`, `max_nodes`, `time_limit` (seconds or `None`),
/// `seed`, `threads` (`None`: all cores).
#[pyfunction]
pub fn gop_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let checked: GopValidParams = GopParams::default()
        .check()
        .map_err(|e: GopError| e.to_py())?;
    let it = checked.iteration();
    let d = PyDict::new(py);
    d.set_item("k", checked.k())?;
    d.set_item("budget", checked.budget())?;
    d.set_item("tol", it.tol)?;
    d.set_item("max_iter", it.max_iter)?;
    d.set_item("max_nodes", checked.max_nodes())?;
    d.set_item("time_limit", it.time_limit.map(|t| t.as_secs_f64()))?;
    d.set_item("seed", checked.seed())?;
    d.set_item("threads", it.threads)?;
    Ok(d)
}

/// Adds the GOP items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gop_fit, m)?)?;
    m.add_function(wrap_pyfunction!(gop_defaults, m)?)?;
    Ok(())
}
