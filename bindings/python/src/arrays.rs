//! NumPy arrays to Rust buffers and faer matrices and back (copies, any strides on the way
//! in).
//!
//! Every copy of an array argument is sized before anything is allocated: its logical
//! size (the product of its shape, whatever its strides: a stride-0 view from
//! `np.broadcast_to` counts every value it shows) must be at most
//! [`bl_core::limits::MAX_ELEMENTS`] values, else `ValueError` naming the argument (the
//! message of [`bl_core::limits::buffer_len`]); the buffer is then reserved with
//! `try_reserve_exact`, and a refused reservation is `MemoryError` naming the argument.
//! Neither aborts the process.

use bl_core::limits::buffer_len;
use faer::{Mat, MatRef};
use numpy::ndarray::{Array2, ArrayBase, ArrayView2, Data, Dimension};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::{PyErr, PyResult};

use crate::errors::ToPyErr;

/// `MemoryError` for `n` values of `T` that could not be reserved for `what`.
fn refused<T>(what: &str, dims: &[usize], n: usize) -> PyErr {
    let shape: Vec<String> = dims.iter().map(ToString::to_string).collect();
    PyMemoryError::new_err(format!(
        "{what}: cannot allocate {n} values ({} bytes) for its {} values",
        n.saturating_mul(size_of::<T>()),
        shape.join(" x ")
    ))
}

/// An empty buffer with room for exactly `product(dims)` values of `T`, for a copy of
/// the argument `what` (module docs: `ValueError` above
/// [`MAX_ELEMENTS`](bl_core::limits::MAX_ELEMENTS) values or on overflow, `MemoryError`
/// when the reservation is refused).
///
/// # Errors
/// As said.
pub fn try_buffer<T>(what: &'static str, dims: &[usize]) -> PyResult<Vec<T>> {
    let n = buffer_len(what, dims).map_err(|e| e.to_py())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| refused::<T>(what, dims, n))?;
    Ok(v)
}

/// The values of `a` in its logical order (C order of its shape, whatever its strides),
/// converted by `convert`, in a buffer from [`try_buffer`]: the one copy of an array
/// argument `what`. For another order, pass a view with permuted axes (e.g.
/// `a.reversed_axes()` for Fortran order).
///
/// # Errors
/// As [`try_buffer`], before anything is allocated or converted.
pub fn copy_array<S, D, A, T>(
    what: &'static str,
    a: &ArrayBase<S, D>,
    convert: impl FnMut(&A) -> T,
) -> PyResult<Vec<T>>
where
    S: Data<Elem = A>,
    D: Dimension,
{
    let mut v = try_buffer(what, a.shape())?;
    v.extend(a.iter().map(convert));
    Ok(v)
}

/// A faer matrix as an `(nrows, ncols)` array in C order (a copy of a result).
///
/// # Errors
/// As [`try_buffer`] for a copy of `what`.
pub fn mat_to_array(what: &'static str, m: MatRef<'_, f64>) -> PyResult<Array2<f64>> {
    let (r, c) = (m.nrows(), m.ncols());
    let mut v = try_buffer(what, &[r, c])?;
    for i in 0..r {
        v.extend(m.row(i).iter().copied());
    }
    Array2::from_shape_vec((r, c), v).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// An `(nrows, ncols)` array argument `what` (any strides) as a faer matrix.
///
/// # Errors
/// As [`try_buffer`], before the matrix is allocated.
pub fn array_to_mat(what: &'static str, a: ArrayView2<'_, f64>) -> PyResult<Mat<f64>> {
    let (r, c) = a.dim();
    buffer_len(what, &[r, c]).map_err(|e| e.to_py())?;
    let mut m = Mat::new();
    m.try_reserve(r, c)
        .map_err(|_| refused::<f64>(what, &[r, c], r * c))?;
    // The capacity is there: `resize_with` does not allocate again.
    m.resize_with(r, c, |i, j| a[(i, j)]);
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bl_core::limits::MAX_ELEMENTS;
    use numpy::ndarray::{Array3, ArrayView3, ShapeBuilder};

    #[test]
    fn copies_follow_the_logical_order_of_any_view() {
        let a = Array3::from_shape_fn((2, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as f64);
        let c = copy_array("x", &a.view(), |&x| x).unwrap();
        assert_eq!(c, a.iter().copied().collect::<Vec<_>>());
        // Fortran order: the first index fastest.
        let f = copy_array("x", &a.view().reversed_axes(), |&x| x).unwrap();
        assert_eq!(&f[..3], &[0.0, 100.0, 10.0]);
    }

    #[test]
    fn oversized_views_are_refused_before_allocating() {
        // A stride-0 view showing 2^33 values of a single one.
        let one = [1.0];
        let v =
            ArrayView3::from_shape((1 << 11, 1 << 11, 1 << 11).strides((0, 0, 0)), &one).unwrap();
        assert!(v.len() > MAX_ELEMENTS);
        pyo3::Python::initialize();
        let e = copy_array("x", &v, |&x| x).unwrap_err();
        assert!(e.to_string().contains("`x`"), "{e}");
        let m = ArrayView2::from_shape((1 << 17, 1 << 17).strides((0, 0)), &one).unwrap();
        let e = array_to_mat("factors", m).unwrap_err();
        assert!(e.to_string().contains("factors"), "{e}");
    }

    #[test]
    fn a_refused_reservation_is_an_error() {
        // A reservation no allocator can grant (2^32 values of 1 MiB), under the cap on
        // values: `MemoryError` naming the argument, not an abort.
        pyo3::Python::initialize();
        let e = try_buffer::<[u8; 1 << 20]>("x", &[MAX_ELEMENTS]).unwrap_err();
        assert!(
            e.to_string().starts_with("MemoryError: x: cannot allocate"),
            "{e}"
        );
    }
}
