//! NumPy arrays to faer matrices and back (copies, any strides on the way in).

use faer::{Mat, MatRef};
use numpy::ndarray::{Array2, ArrayView2};

/// A faer matrix as an `(nrows, ncols)` array.
pub fn mat_to_array(m: MatRef<'_, f64>) -> Array2<f64> {
    Array2::from_shape_fn((m.nrows(), m.ncols()), |(i, j)| m[(i, j)])
}

/// An `(nrows, ncols)` array as a faer matrix.
pub fn array_to_mat(a: ArrayView2<'_, f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)])
}
