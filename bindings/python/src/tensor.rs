//! Boolean Matching Pursuit, CP-ALS and Tucker of the `boolean-tensor` crate.
//!
//! The Python classes `bilinear.BooleanTensorDecomposition`, `CPDecomposition` and
//! `TuckerDecomposition` call these functions; their keyword defaults come from
//! `tensor_defaults` (the Rust defaults of `BmpParams`, `CpAlsParams`, `TuckerParams`). The fitted factors come back as NumPy
//! arrays (the Python objects hold and pickle them); `*_reconstruct` rebuilds the tensor
//! from them with the crate's own functions.

use std::sync::Arc;

use boolean_tensor::{
    Atom, Bmp, CpAls, ExactQp, Fit, Fitted, ParamGuard, Tensor, TensorError, Tucker,
    atoms_to_tensor, cp_to_tensor,
};
use faer::{Mat, MatRef};
use numpy::ndarray::{Array1, Array3, ArrayView3, ShapeBuilder};
use numpy::{IntoPyArray, PyArray3, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{array_to_mat, copy_array, mat_to_array, try_buffer};
use crate::errors::guarded;

/// The array argument `what`, `(d0, d1, d2)` (any strides), as a tensor of the crate
/// (mode 0 fastest): one copy, sized and reserved before it is made (`ValueError` above
/// `bl_core::limits::MAX_ELEMENTS` values, `MemoryError` when refused; see
/// [`crate::arrays`]); NaN entries become missing entries of the mask.
fn to_tensor(what: &'static str, x: ArrayView3<'_, f64>) -> PyResult<Tensor> {
    let (d0, d1, d2) = x.dim();
    let mut data = try_buffer(what, x.shape())?;
    // The C order of the reversed axes is the Fortran order of `x`: `i` fastest.
    data.extend(x.reversed_axes().iter().copied());
    let shape = [d0, d1, d2];
    if data.iter().any(|v| v.is_nan()) {
        let mut mask = try_buffer(what, &[data.len()])?;
        mask.extend(data.iter().map(|v| !v.is_nan()));
        guarded(|| Tensor::from_vec_masked(shape, data, mask))
    } else {
        guarded(|| Tensor::from_vec(shape, data))
    }
}

/// Values of shape `[d0, d1, d2]` stored mode 0 fastest (the crate's layout) as a
/// C-ordered array, as NumPy arrays are by default (the result `what`, copied by
/// [`copy_array`]: a refused reservation is `MemoryError`).
fn fortran_to_array(what: &'static str, shape: [usize; 3], data: &[f64]) -> PyResult<Array3<f64>> {
    let [d0, d1, d2] = shape;
    let view = ArrayView3::from_shape((d0, d1, d2).f(), data)
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
    let v = copy_array(what, &view, |&x| x)?;
    Array3::from_shape_vec((d0, d1, d2), v)
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// A tensor of the crate as a `(d0, d1, d2)` array (see [`fortran_to_array`]).
fn from_tensor(what: &'static str, t: &Tensor) -> PyResult<Array3<f64>> {
    fortran_to_array(what, t.shape(), t.data())
}

/// The names of the three factor arguments, for the messages.
const FACTORS: [&str; 3] = ["factors[0]", "factors[1]", "factors[2]"];

/// Three factor matrices from NumPy (each copy sized and reserved first, see
/// [`crate::arrays`]).
fn factor_mats(factors: [PyReadonlyArray2<'_, f64>; 3]) -> PyResult<[Mat<f64>; 3]> {
    let [a, b, c] = factors;
    Ok([
        array_to_mat(FACTORS[0], a.as_array())?,
        array_to_mat(FACTORS[1], b.as_array())?,
        array_to_mat(FACTORS[2], c.as_array())?,
    ])
}

/// The dict of a CP or Tucker fit: `factors` (a list of three arrays), `loss`, `n_iter`
/// and the model's own `extra` item.
fn factor_model<'py>(
    py: Python<'py>,
    factors: [MatRef<'_, f64>; 3],
    loss: f64,
    n_iter: usize,
    extra: (&str, Bound<'py, PyAny>),
) -> PyResult<Bound<'py, PyDict>> {
    let [a, b, c] = factors;
    let arrays = [
        mat_to_array(FACTORS[0], a)?.into_pyarray(py),
        mat_to_array(FACTORS[1], b)?.into_pyarray(py),
        mat_to_array(FACTORS[2], c)?.into_pyarray(py),
    ];
    let factors = pyo3::types::PyList::new(py, arrays)?.into_any();
    dict(
        py,
        vec![
            ("factors", factors),
            extra,
            ("loss", loss.into_pyobject(py)?.into_any()),
            ("n_iter", n_iter.into_pyobject(py)?.into_any()),
        ],
    )
}

fn dict<'py>(
    py: Python<'py>,
    items: Vec<(&str, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// Fits BMP (Chang et al., Algorithms 1-2) on `x` (NaN = missing); `max_iter` is the
/// maximum number of atoms (the Python estimator's `n_atoms`). Returns a dict with
/// the atoms (`modes`, `z`, `u`, `w`: one entry per atom), `coefficients`, `rmse_path`,
/// `n_iter`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (x, *, max_iter, tol, alternations, refit_sweeps, refit_tol, modes, exact_qp, seed, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn bmp_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray3<'py, f64>,
    max_iter: usize,
    tol: f64,
    alternations: usize,
    refit_sweeps: usize,
    refit_tol: f64,
    modes: Vec<usize>,
    exact_qp: bool,
    seed: u64,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = x.as_array();
    let mut params = Bmp::params()
        .max_iter(max_iter)
        .threads(threads)
        .tol(tol)
        .alternations(alternations)
        .refit_sweeps(refit_sweeps)
        .refit_tol(refit_tol)
        .modes(&modes)
        .seed(seed);
    if exact_qp {
        params = params.solver(Arc::new(ExactQp));
    }
    let fitted = py.detach(|| {
        let x = to_tensor("X", x)?;
        guarded(|| params.fit(&x))
    })?;
    let atoms = fitted.atoms();
    let vecs = |f: fn(&Atom) -> &[f64]| -> PyResult<Bound<'py, PyAny>> {
        let list: Vec<_> = atoms
            .iter()
            .map(|a| Array1::from(f(a).to_vec()).into_pyarray(py))
            .collect();
        Ok(pyo3::types::PyList::new(py, list)?.into_any())
    };
    let atom_modes: Vec<usize> = atoms.iter().map(Atom::mode).collect();
    dict(
        py,
        vec![
            ("modes", atom_modes.into_pyobject(py)?.into_any()),
            ("z", vecs(Atom::z)?),
            ("u", vecs(Atom::u)?),
            ("w", vecs(Atom::w)?),
            (
                "coefficients",
                Array1::from(fitted.coefficients().to_vec())
                    .into_pyarray(py)
                    .into_any(),
            ),
            (
                "rmse_path",
                Array1::from(fitted.rmse_path()).into_pyarray(py).into_any(),
            ),
            (
                "n_iter",
                fitted.report().iterations.into_pyobject(py)?.into_any(),
            ),
        ],
    )
}

/// The tensor `sum_k c_k z_k (x) u_k (x) w_k` of BMP atoms (`z_k` along `modes[k]`).
#[pyfunction]
pub fn bmp_reconstruct<'py>(
    py: Python<'py>,
    modes: Vec<usize>,
    z: Vec<PyReadonlyArray1<'py, f64>>,
    u: Vec<PyReadonlyArray1<'py, f64>>,
    w: Vec<PyReadonlyArray1<'py, f64>>,
    coefficients: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let vecs = |what, a: &[PyReadonlyArray1<'py, f64>]| -> PyResult<Vec<Vec<f64>>> {
        a.iter()
            .map(|v| copy_array(what, &v.as_array(), |&x| x))
            .collect()
    };
    let (z, u, w) = (vecs("z", &z)?, vecs("u", &u)?, vecs("w", &w)?);
    let coefficients = copy_array("coefficients", &coefficients.as_array(), |&x| x)?;
    let t = py.detach(|| {
        guarded(|| -> Result<Tensor, TensorError> {
            if [z.len(), u.len(), w.len()]
                .iter()
                .any(|&n| n != modes.len())
            {
                return Err(bl_core::error::build::shape_mismatch(
                    "BMP atoms",
                    format!("{} z, u and w vectors (one per mode)", modes.len()),
                    format!("{}, {} and {}", z.len(), u.len(), w.len()),
                ));
            }
            let atoms = modes
                .iter()
                .zip(z)
                .zip(u)
                .zip(w)
                .map(|(((&m, z), u), w)| Atom::new(m, z, u, w))
                .collect::<Result<Vec<_>, _>>()?;
            atoms_to_tensor(&atoms, &coefficients)
        })
    })?;
    Ok(from_tensor("the reconstructed tensor", &t)?.into_pyarray(py))
}

/// Fits CP-ALS on `x` (NaN = missing; EM over the missing entries). Returns a dict with
/// `factors` (three `(d_n, rank)` arrays), `loss`, `start`, `n_iter`.
#[pyfunction]
#[pyo3(signature = (x, *, rank, max_iter, tol, n_starts, seed, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn cp_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray3<'py, f64>,
    rank: usize,
    max_iter: usize,
    tol: f64,
    n_starts: usize,
    seed: u64,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = x.as_array();
    let params = CpAls::params()
        .rank(rank)
        .threads(threads)
        .max_iter(max_iter)
        .tol(tol)
        .n_starts(n_starts)
        .seed(seed);
    let fitted = py.detach(|| {
        let x = to_tensor("X", x)?;
        guarded(|| params.fit(&x))
    })?;
    let start = fitted.start().into_pyobject(py)?.into_any();
    factor_model(
        py,
        fitted.factors(),
        fitted.loss(),
        fitted.report().iterations,
        ("start", start),
    )
}

/// The tensor of a CP model from its three factor matrices.
#[pyfunction]
pub fn cp_reconstruct<'py>(
    py: Python<'py>,
    factors: [PyReadonlyArray2<'py, f64>; 3],
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let f = factor_mats(factors)?;
    let t = py.detach(|| guarded(|| cp_to_tensor(f.each_ref().map(Mat::as_ref))))?;
    Ok(from_tensor("the reconstructed tensor", &t)?.into_pyarray(py))
}

/// Fits Tucker (HOSVD; EM rounds over missing entries) on `x`. Returns a dict with
/// `factors` (three orthonormal `(d_n, r_n)` arrays), `core` (`(r0, r1, r2)`), `loss`,
/// `n_iter`.
#[pyfunction]
#[pyo3(signature = (x, *, ranks, max_iter, tol, threads=None))]
pub fn tucker_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray3<'py, f64>,
    ranks: [usize; 3],
    max_iter: usize,
    tol: f64,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = x.as_array();
    let params = Tucker::params()
        .ranks(ranks)
        .max_iter(max_iter)
        .tol(tol)
        .threads(threads);
    let fitted = py.detach(|| {
        let x = to_tensor("X", x)?;
        guarded(|| params.fit(&x))
    })?;
    factor_model(
        py,
        fitted.factors(),
        fitted.loss(),
        fitted.report().iterations,
        (
            "core",
            fortran_to_array("core", fitted.ranks(), fitted.core())?
                .into_pyarray(py)
                .into_any(),
        ),
    )
}

/// The tensor `G x_0 U_0 x_1 U_1 x_2 U_2` of a Tucker model (mode products of the crate).
#[pyfunction]
pub fn tucker_reconstruct<'py>(
    py: Python<'py>,
    core: PyReadonlyArray3<'py, f64>,
    factors: [PyReadonlyArray2<'py, f64>; 3],
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    let core = core.as_array();
    let u = factor_mats(factors)?;
    let t = py.detach(|| {
        let core = to_tensor("core", core)?;
        guarded(|| -> Result<Tensor, TensorError> {
            let mut t = core;
            for (mode, m) in u.iter().enumerate() {
                t = t.mode_product(mode, m.as_ref())?;
            }
            Ok(t)
        })
    })?;
    Ok(from_tensor("the reconstructed tensor", &t)?.into_pyarray(py))
}

/// The defaults of the Python estimators' keywords, read from the checked Rust defaults:
/// `{"bmp": {n_atoms, tol, alternations, refit_sweeps, refit_tol, modes, seed, threads},
/// "cp": {rank, max_iter, tol, n_starts, seed, threads}, "tucker": {ranks, max_iter, tol,
/// threads}}` (BMP's `n_atoms` is `BmpParams`' `max_iter`, the number of atoms; `threads`
/// is `None` for rayon's global pool).
#[pyfunction]
pub fn tensor_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let (bmp, cp, tucker) = guarded(|| -> Result<_, TensorError> {
        Ok((
            Bmp::params().check()?,
            CpAls::params().check()?,
            Tucker::params().check()?,
        ))
    })?;
    let b = PyDict::new(py);
    b.set_item("n_atoms", bmp.iteration().max_iter)?;
    b.set_item("tol", bmp.iteration().tol)?;
    b.set_item("alternations", bmp.alternations())?;
    b.set_item("refit_sweeps", bmp.refit_sweeps())?;
    b.set_item("refit_tol", bmp.refit_tol())?;
    b.set_item("modes", bmp.modes().to_vec())?;
    b.set_item("seed", bmp.seed())?;
    b.set_item("threads", bmp.iteration().threads)?;
    let c = PyDict::new(py);
    c.set_item("rank", cp.rank())?;
    c.set_item("max_iter", cp.iteration().max_iter)?;
    c.set_item("tol", cp.iteration().tol)?;
    c.set_item("n_starts", cp.n_starts())?;
    c.set_item("seed", cp.seed())?;
    c.set_item("threads", cp.iteration().threads)?;
    let t = PyDict::new(py);
    t.set_item("ranks", tucker.ranks().to_vec())?;
    t.set_item("max_iter", tucker.iteration().max_iter)?;
    t.set_item("tol", tucker.iteration().tol)?;
    t.set_item("threads", tucker.iteration().threads)?;
    let d = PyDict::new(py);
    d.set_item("bmp", b)?;
    d.set_item("cp", c)?;
    d.set_item("tucker", t)?;
    Ok(d)
}

/// Adds the tensor items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bmp_fit, m)?)?;
    m.add_function(wrap_pyfunction!(bmp_reconstruct, m)?)?;
    m.add_function(wrap_pyfunction!(cp_fit, m)?)?;
    m.add_function(wrap_pyfunction!(cp_reconstruct, m)?)?;
    m.add_function(wrap_pyfunction!(tucker_fit, m)?)?;
    m.add_function(wrap_pyfunction!(tucker_reconstruct, m)?)?;
    m.add_function(wrap_pyfunction!(tensor_defaults, m)?)?;
    Ok(())
}
