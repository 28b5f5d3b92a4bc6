//! Unfolding and refolding in the Kolda–Bader convention (module docs of
//! [`crate::tensor`]), and the mode-`n` product on raw data.

use faer::linalg::matmul::matmul;
use faer::reborrow::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use super::other_modes;

/// `(d_n, prod_{m != n} d_m)`.
pub(crate) fn unfolded_shape(shape: [usize; 3], mode: usize) -> (usize, usize) {
    let (a, b) = other_modes(mode);
    (shape[mode], shape[a] * shape[b])
}

/// Row and column of `(i, j, k)` in `X_(mode)`.
pub(crate) fn unfolded_position(
    shape: [usize; 3],
    mode: usize,
    i: usize,
    j: usize,
    k: usize,
) -> (usize, usize) {
    let [d0, d1, _] = shape;
    match mode {
        0 => (i, j + d1 * k),
        1 => (j, i + d0 * k),
        _ => (k, i + d0 * j),
    }
}

/// Writes `X_(mode)` of the column-major data `data` into `out` (`d_n x rest`).
pub(crate) fn unfold_into(data: &[f64], shape: [usize; 3], mode: usize, mut out: MatMut<'_, f64>) {
    let [d0, d1, d2] = shape;
    match mode {
        0 => out.copy_from(MatRef::from_column_major_slice(data, d0, d1 * d2)),
        1 => {
            for k in 0..d2 {
                let slab =
                    MatRef::from_column_major_slice(&data[k * d0 * d1..(k + 1) * d0 * d1], d0, d1);
                out.rb_mut()
                    .subcols_mut(k * d0, d0)
                    .copy_from(slab.transpose());
            }
        }
        _ => out.copy_from(MatRef::from_column_major_slice(data, d0 * d1, d2).transpose()),
    }
}

/// `X_(mode)` of the column-major data `data` as a matrix view, without a copy where the
/// layout allows: `X_(0)` is the data as a `d0 x d1 d2` column-major matrix and `X_(2)`
/// the transpose of the data as a `d0 d1 x d2` one; `X_(1)` is unfolded into `buf`
/// (resized as needed).
pub(crate) fn unfolded_view<'a>(
    data: &'a [f64],
    shape: [usize; 3],
    mode: usize,
    buf: &'a mut Mat<f64>,
) -> MatRef<'a, f64> {
    let [d0, d1, d2] = shape;
    match mode {
        0 => MatRef::from_column_major_slice(data, d0, d1 * d2),
        1 => {
            let (rows, cols) = unfolded_shape(shape, 1);
            buf.resize_with(rows, cols, |_, _| 0.0);
            unfold_into(data, shape, 1, buf.as_mut());
            buf.as_ref()
        }
        _ => MatRef::from_column_major_slice(data, d0 * d1, d2).transpose(),
    }
}

/// Writes the tensor whose mode-`mode` unfolding is `m` into `out` (inverse of
/// [`unfold_into`]).
pub(crate) fn refold_into(m: MatRef<'_, f64>, shape: [usize; 3], mode: usize, out: &mut [f64]) {
    let [d0, d1, d2] = shape;
    match mode {
        0 => MatMut::from_column_major_slice_mut(out, d0, d1 * d2).copy_from(m),
        1 => {
            for k in 0..d2 {
                MatMut::from_column_major_slice_mut(
                    &mut out[k * d0 * d1..(k + 1) * d0 * d1],
                    d0,
                    d1,
                )
                .copy_from(m.subcols(k * d0, d0).transpose());
            }
        }
        _ => MatMut::from_column_major_slice_mut(out, d0 * d1, d2).copy_from(m.transpose()),
    }
}

/// `out = data x_mode M` for column-major `data` of shape `shape`; `out` has the shape
/// with `d_mode` replaced by `M.nrows()`.
pub(crate) fn mode_product_into(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    m: MatRef<'_, f64>,
    out: &mut [f64],
    par: Par,
) {
    let [d0, d1, d2] = shape;
    let p = m.nrows();
    match mode {
        0 => matmul(
            MatMut::from_column_major_slice_mut(out, p, d1 * d2),
            Accum::Replace,
            m,
            MatRef::from_column_major_slice(data, d0, d1 * d2),
            1.0,
            par,
        ),
        1 => {
            for k in 0..d2 {
                matmul(
                    MatMut::from_column_major_slice_mut(
                        &mut out[k * d0 * p..(k + 1) * d0 * p],
                        d0,
                        p,
                    ),
                    Accum::Replace,
                    MatRef::from_column_major_slice(&data[k * d0 * d1..(k + 1) * d0 * d1], d0, d1),
                    m.transpose(),
                    1.0,
                    par,
                );
            }
        }
        _ => matmul(
            MatMut::from_column_major_slice_mut(out, d0 * d1, p),
            Accum::Replace,
            MatRef::from_column_major_slice(data, d0 * d1, d2),
            m.transpose(),
            1.0,
            par,
        ),
    }
}
