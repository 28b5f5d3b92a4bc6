//! The Khatri–Rao product and the reconstruction of a tensor from CP factors.

use bl_core::linalg::product;
use faer::reborrow::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use super::{Tensor, check_matrix_size, check_shape, too_large, try_zeros};
use crate::error::Result;
use bl_core::error::build::shape_mismatch;

/// The Khatri–Rao (column-wise Kronecker) product `A (.) B` of `A` (`I x R`) and `B`
/// (`J x R`): the `I J x R` matrix whose column `r` is the Kronecker product
/// `a_r (x) b_r`, i.e. entry `(i J + j, r) = A[i, r] B[j, r]` (Kolda–Bader convention).
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when the column counts differ or the product has more
/// than [`bl_core::limits::MAX_ELEMENTS`] entries or does not fit in memory.
pub fn khatri_rao(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Result<Mat<f64>> {
    if a.ncols() != b.ncols() {
        return Err(shape_mismatch(
            "khatri_rao: column counts",
            a.ncols(),
            b.ncols(),
        ));
    }
    let rows = a.nrows().checked_mul(b.nrows()).ok_or_else(|| {
        too_large(
            "khatri_rao: result",
            format!("{} x {} rows", a.nrows(), b.nrows()),
        )
    })?;
    check_matrix_size(rows, a.ncols(), "khatri_rao: result")?;
    let mut out = Mat::zeros(rows, a.ncols());
    khatri_rao_into(a, b, out.as_mut());
    Ok(out)
}

pub(crate) fn khatri_rao_into(a: MatRef<'_, f64>, b: MatRef<'_, f64>, mut out: MatMut<'_, f64>) {
    let jn = b.nrows();
    for r in 0..a.ncols() {
        let mut col = out.rb_mut().col_mut(r);
        for i in 0..a.nrows() {
            let ai = a[(i, r)];
            for j in 0..jn {
                col[i * jn + j] = ai * b[(j, r)];
            }
        }
    }
}

/// Writes `sum_r f0[:, r] (x) f1[:, r] (x) f2[:, r]` (CP form, factors `d_n x R`) into
/// `out` (column-major, shape `(d0, d1, d2)`), by one product
/// `X_(0) = F0 (F2 (.) F1)^T`. `kr` is workspace of size `d1 d2 x R`.
pub(crate) fn cp_reconstruct_into(
    factors: [MatRef<'_, f64>; 3],
    kr: &mut Mat<f64>,
    out: &mut [f64],
    par: Par,
) {
    let [f0, f1, f2] = factors;
    let (d0, d1, d2, r) = (f0.nrows(), f1.nrows(), f2.nrows(), f0.ncols());
    if r == 0 {
        out.fill(0.0);
        return;
    }
    kr.resize_with(d1 * d2, r, |_, _| 0.0);
    khatri_rao_into(f2, f1, kr.as_mut());
    product(
        MatMut::from_column_major_slice_mut(out, d0, d1 * d2),
        Accum::Replace,
        f0,
        kr.as_ref().transpose(),
        par,
    );
}

/// The tensor `sum_r f0[:, r] (x) f1[:, r] (x) f2[:, r]` of a CP model with factors
/// `F_n` of size `d_n x R` (weights folded into the factors).
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when the column counts differ or the tensor has more
/// than [`bl_core::limits::MAX_ELEMENTS`] entries or does not fit in memory; [`TensorError::EmptyMode`](crate::TensorError::EmptyMode) for a factor with no rows;
/// [`BlError::NonFinite`](bl_core::BlError::NonFinite).
pub fn cp_to_tensor(factors: [MatRef<'_, f64>; 3]) -> Result<Tensor> {
    let r = factors[0].ncols();
    for f in &factors[1..] {
        if f.ncols() != r {
            return Err(shape_mismatch(
                "cp_to_tensor: factor column counts",
                r,
                f.ncols(),
            ));
        }
    }
    let shape = [factors[0].nrows(), factors[1].nrows(), factors[2].nrows()];
    let n = check_shape(shape)?;
    let mut out = try_zeros(n, "cp_to_tensor: tensor shape")?;
    // Blocks of at most d0 components, so the Khatri-Rao workspace (d1 d2 x block) is no
    // larger than the tensor itself, whatever the rank.
    let [f0, f1, f2] = factors;
    let [d0, d1, d2] = shape;
    let mut kr = Mat::zeros(0, 0);
    let mut start = 0;
    while start < r {
        let w = d0.min(r - start);
        kr.resize_with(d1 * d2, w, |_, _| 0.0);
        khatri_rao_into(f2.subcols(start, w), f1.subcols(start, w), kr.as_mut());
        product(
            MatMut::from_column_major_slice_mut(&mut out, d0, d1 * d2),
            if start == 0 {
                Accum::Replace
            } else {
                Accum::Add
            },
            f0.subcols(start, w),
            kr.as_ref().transpose(),
            Par::Seq,
        );
        start += w;
    }
    Tensor::from_vec(shape, out)
}

/// The value of the CP model `[[F_0, F_1, F_2]]` at `[i, j, k]` (inside the factors'
/// rows): `sum_r F_0[i, r] F_1[j, r] F_2[k, r]`.
pub(crate) fn cp_entry(factors: &[Mat<f64>; 3], [i, j, k]: [usize; 3]) -> f64 {
    let [a, b, c] = factors;
    (0..a.ncols())
        .map(|r| a[(i, r)] * b[(j, r)] * c[(k, r)])
        .sum()
}
