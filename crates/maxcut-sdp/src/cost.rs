//! The internal forms of a cost matrix `C` (dense, sparse symmetric, low-rank factor), a
//! borrowed view over them, and the small dense kernels every module shares.

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, MatMut, MatRef, Par};

use crate::error::Result;

/// Off-diagonal part of a symmetric sparse matrix in CSR form, plus its diagonal.
#[derive(Debug, Clone)]
pub(crate) struct SparseSym {
    pub(crate) n: usize,
    pub(crate) row_ptr: Vec<usize>,
    pub(crate) col_idx: Vec<usize>,
    pub(crate) values: Vec<f64>,
    pub(crate) diag: Vec<f64>,
}

impl SparseSym {
    /// `sum_{j != i} C_ij x_j` (row `i` without its diagonal).
    pub(crate) fn off_diagonal_dot(&self, i: usize, x: &[f64]) -> f64 {
        let range = self.row_ptr[i]..self.row_ptr[i + 1];
        self.col_idx[range.clone()]
            .iter()
            .zip(&self.values[range])
            .fold(0.0, |acc, (&j, &c)| acc + c * x[j])
    }
}

/// `C = G G^T`, stored as `G^T` (`m x n`, column-major: column `i` is row `i` of `G`).
#[derive(Debug, Clone)]
pub(crate) struct LowRankFactor {
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) gt: Vec<f64>,
    /// `||G_i||^2 = C_ii`.
    pub(crate) row_sq: Vec<f64>,
}

impl LowRankFactor {
    pub(crate) fn row(&self, i: usize) -> &[f64] {
        &self.gt[i * self.m..(i + 1) * self.m]
    }

    pub(crate) fn gt_ref(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.gt, self.m, self.n)
    }

    /// Forms `C = G G^T` densely (column-major `n x n`, exactly symmetric): the lower
    /// triangle by one triangular product (half the work of a full product), mirrored.
    /// Up to `n^2 m <=` [`SMALL_FORM`] the lower triangle is a plain loop of dot products
    /// (see [`bl_core::linalg::SMALL_PRODUCT`] for why), above it faer's blocked triangular product.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] if `n x n` values cannot be allocated.
    pub(crate) fn form(&self, par: Par) -> Result<Vec<f64>> {
        let n = self.n;
        let mut c = bl_core::limits::try_zeroed::<f64>("n x n (C formed densely)", &[n, n])?;
        if n.saturating_mul(n).saturating_mul(self.m) <= SMALL_FORM {
            for j in 0..n {
                let gj = self.row(j);
                for i in j..n {
                    c[i + j * n] = dot(self.row(i), gj);
                }
            }
        } else {
            self.form_blocked(&mut c, par);
        }
        for j in 0..n {
            for i in 0..j {
                c[i + j * n] = c[j + i * n];
            }
        }
        Ok(c)
    }

    /// The lower triangle of `G G^T` by faer's triangular product.
    pub(crate) fn form_blocked(&self, c: &mut [f64], par: Par) {
        let n = self.n;
        triangular::matmul(
            MatMut::from_column_major_slice_mut(c, n, n),
            BlockStructure::TriangularLower,
            Accum::Replace,
            self.gt_ref().transpose(),
            BlockStructure::Rectangular,
            self.gt_ref(),
            BlockStructure::Rectangular,
            1.0,
            par,
        );
    }
}

/// Largest `n^2 m` for which [`LowRankFactor::form`] uses a plain loop (one product per
/// fit, `n^2 m / 2` multiply-adds: about a millisecond at this size).
pub(crate) const SMALL_FORM: usize = 1 << 22;

pub(crate) use bl_core::linalg::product;

#[derive(Debug, Clone)]
pub(crate) enum Repr {
    /// Column-major `n x n`, exactly symmetric.
    Dense {
        n: usize,
        c: Vec<f64>,
    },
    Sparse(SparseSym),
    LowRank(LowRankFactor),
}

/// A borrowed view of a cost matrix, the common input of the rounding, the local search
/// and the exact solvers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CostView<'a> {
    Dense { n: usize, c: &'a [f64] },
    Sparse(&'a SparseSym),
    LowRank(&'a LowRankFactor),
}

impl CostView<'_> {
    pub(crate) fn n(&self) -> usize {
        match self {
            CostView::Dense { n, .. } => *n,
            CostView::Sparse(s) => s.n,
            CostView::LowRank(l) => l.n,
        }
    }

    /// Length of the scratch buffer [`CostView::quad_form_with`] needs.
    pub(crate) fn scratch_len(&self) -> usize {
        match self {
            CostView::Dense { n, .. } => *n,
            CostView::Sparse(_) => 0,
            CostView::LowRank(l) => l.m,
        }
    }

    /// `y^T C y` (any real `y`), sequential and deterministic.
    pub(crate) fn quad_form(&self, y: &[f64]) -> f64 {
        let mut scratch = vec![0.0; self.scratch_len()];
        self.quad_form_with(y, &mut scratch)
    }

    /// `y^T C y` with a caller-provided scratch of length [`CostView::scratch_len`].
    pub(crate) fn quad_form_with(&self, y: &[f64], scratch: &mut [f64]) -> f64 {
        match self {
            CostView::Dense { n, c } => {
                matvec(scratch, MatRef::from_column_major_slice(c, *n, *n), y);
                dot(y, scratch)
            }
            CostView::Sparse(s) => {
                let mut total = 0.0;
                for i in 0..s.n {
                    total += y[i] * (s.diag[i] * y[i] + s.off_diagonal_dot(i, y));
                }
                total
            }
            CostView::LowRank(l) => {
                matvec(scratch, l.gt_ref(), y);
                dot(scratch, scratch)
            }
        }
    }

    /// Dense copy (column-major), for the exact solvers, the certificate and the formed
    /// sweeps.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] if `n x n` values cannot be allocated.
    pub(crate) fn dense_copy(&self) -> Result<Vec<f64>> {
        match self {
            CostView::Dense { c, .. } => Ok(c.to_vec()),
            CostView::Sparse(s) => {
                let n = s.n;
                let mut c =
                    bl_core::limits::try_zeroed::<f64>("n x n (C formed densely)", &[n, n])?;
                for i in 0..n {
                    c[i + i * n] = s.diag[i];
                    for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                        c[i + s.col_idx[p] * n] += s.values[p];
                    }
                }
                Ok(c)
            }
            CostView::LowRank(l) => l.form(Par::Seq),
        }
    }
}

/// `out = A x` for a column `x` (sequential, deterministic).
pub(crate) fn matvec(out: &mut [f64], a: MatRef<'_, f64>, x: &[f64]) {
    let (rows, cols) = (a.nrows(), a.ncols());
    matmul(
        MatMut::from_column_major_slice_mut(out, rows, 1),
        Accum::Replace,
        a,
        MatRef::from_column_major_slice(x, cols, 1),
        1.0,
        Par::Seq,
    );
}

/// `y += a x`.
#[inline]
pub(crate) fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// Plain dot product with four accumulators (deterministic order).
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = a.len() / 4;
    for c in 0..chunks {
        for l in 0..4 {
            acc[l] += a[4 * c + l] * b[4 * c + l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for p in 4 * chunks..a.len() {
        s += a[p] * b[p];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn filled(rows: usize, cols: usize, seed: usize) -> Mat<f64> {
        Mat::from_fn(rows, cols, |i, j| {
            (((i * 31 + j * 17 + seed * 7) % 23) as f64 - 11.0) / 7.0
        })
    }

    fn max_rel_diff(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
        let scale = (0..a.ncols())
            .flat_map(|j| (0..a.nrows()).map(move |i| (i, j)))
            .fold(1.0f64, |s, (i, j)| s.max(b[(i, j)].abs()));
        (0..a.ncols())
            .flat_map(|j| (0..a.nrows()).map(move |i| (i, j)))
            .fold(0.0f64, |d, (i, j)| d.max((a[(i, j)] - b[(i, j)]).abs()))
            / scale
    }

    #[test]
    fn the_small_product_agrees_with_faer() {
        // (m, k, n) up to SMALL_PRODUCT (64 x 32 x 32 is exactly at it), plain and
        // transposed operands, both accumulation modes. The last case is above it: the
        // product hands it to faer's matmul, so that case only checks the hand-over.
        for &(m, k, n) in &[
            (1, 1, 1),
            (9, 40, 32),
            (30, 7, 5),
            (64, 32, 32),
            (50, 60, 40),
        ] {
            for transposed in [false, true] {
                let a = filled(m, k, 1);
                let at = a.transpose().to_owned();
                let lhs = if transposed {
                    at.transpose()
                } else {
                    a.as_ref()
                };
                let rhs = filled(k, n, 2);
                for accum in [Accum::Replace, Accum::Add] {
                    let mut ours = filled(m, n, 3);
                    let mut faer = ours.clone();
                    product(ours.as_mut(), accum, lhs, rhs.as_ref(), Par::Seq);
                    matmul(faer.as_mut(), accum, lhs, rhs.as_ref(), 1.0, Par::Seq);
                    let d = max_rel_diff(ours.as_ref(), faer.as_ref());
                    assert!(d <= 1e-12, "{m} x {k} x {n}: {d}");
                }
            }
        }
    }

    #[test]
    fn forming_g_gt_by_the_loop_agrees_with_faer() {
        for &(n, m) in &[(1, 1), (20, 60), (33, 5), (100, 400)] {
            let g = filled(n, m, 4);
            let lr = crate::input::low_rank_factor("G", g.as_ref(), false).unwrap();
            assert!(n * n * m <= SMALL_FORM);
            let ours = lr.form(Par::Seq).unwrap();
            let mut faer = vec![0.0; n * n];
            lr.form_blocked(&mut faer, Par::Seq);
            for j in 0..n {
                for i in j..n {
                    let (a, b) = (ours[i + j * n], faer[i + j * n]);
                    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{n} x {m}");
                    assert_eq!(ours[j + i * n], a, "symmetric");
                }
            }
        }
    }
}
