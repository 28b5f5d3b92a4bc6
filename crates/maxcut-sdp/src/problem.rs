//! The cost matrix `C` of `max <C, Y> s.t. diag(Y) = 1, Y psd`, in one of three forms.
//!
//! | constructor | storage | cost of one mixing sweep |
//! |---|---|---|
//! | [`Problem::dense`] | `n x n` column-major | `O(n^2 k)` |
//! | [`Problem::sparse_from_edges`], [`Problem::sparse_from_csr`], [`Problem::maxcut`] | CSR (off-diagonal) + diagonal | `O(nnz k)` |
//! | [`Problem::low_rank`] (`C = G G^T`) | `G` | `O(n m k)` implicit, or `O(n^2 k)` after forming `C` (see [`LowRankMode`](crate::LowRankMode)) |

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, Mat, MatMut, MatRef, Par};

use crate::error::{MaxcutError, Result, empty};
pub(crate) use crate::input::{
    build_sparse, check_edge, check_len, check_n, check_signs, dense_symmetric, low_rank_factor,
    symmetrize_sparse,
};

/// Relative tolerance of the symmetry checks: `|C_ij - C_ji| <= SYMMETRY_TOL * max |C|`.
pub const SYMMETRY_TOL: f64 = 1e-10;

/// Which of the three forms a [`Problem`] stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CostForm {
    /// A dense symmetric `n x n` matrix.
    Dense,
    /// A sparse symmetric matrix (CSR of the off-diagonal part plus the diagonal).
    Sparse,
    /// An implicit `C = G G^T` with `G` of size `n x m`.
    LowRank,
}

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

/// The cost matrix `C` of the SDP `max <C, Y> s.t. diag(Y) = 1, Y psd` and of its
/// integer version `max y^T C y` over `y in {-1, +1}^n`.
///
/// Build it once (the constructors validate and copy the input), then fit it with
/// [`crate::MixingParams`] (mixing method + rounding, through [`bl_core::Fit`]) or call
/// [`Problem::solve_exact`] (enumeration, `n <= 24`).
///
/// For max-cut with weights `w_ij`, [`Problem::maxcut`] builds `C = L / 4` (`L` the graph
/// Laplacian), so `y^T C y` is exactly the weight of the cut `{i : y_i = +1}`.
#[derive(Debug, Clone)]
pub struct Problem {
    pub(crate) repr: Repr,
}

impl Problem {
    /// A dense symmetric cost matrix `C` (`n x n`).
    ///
    /// Entries that differ from their transpose by at most `SYMMETRY_TOL * max |C|`
    /// ([`SYMMETRY_TOL`]) are accepted (and averaged), so `G G^T` computed by a matrix
    /// product is fine.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for `n = 0`, [`MaxcutError::NotSquare`],
    /// [`bl_core::BlError::NonFinite`], [`MaxcutError::NotSymmetric`];
    /// [`bl_core::BlError::InvalidParameter`] if the `n x n` copy exceeds `2^32` values or
    /// cannot be allocated (checked before `C` is read: a view may repeat one value).
    pub fn dense(c: MatRef<'_, f64>) -> Result<Self> {
        let (n, c) = dense_symmetric("C", c, true)?;
        Ok(Self {
            repr: Repr::Dense { n, c },
        })
    }

    /// A sparse symmetric `C` from a weighted edge list: each `(i, j, w)` with `i != j`
    /// adds `w` to both `C_ij` and `C_ji`; `(i, i, w)` adds `w` to `C_ii`. Duplicates are
    /// summed. An empty list gives `C = 0`.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for `n = 0`, [`MaxcutError::IndexOutOfBounds`],
    /// [`bl_core::BlError::NonFinite`], [`bl_core::BlError::InvalidParameter`] for
    /// `n > 2^32` ([`bl_core::limits::MAX_ELEMENTS`]) or an `n` whose `O(n)` buffers cannot
    /// be allocated (checked before anything of size `n` is).
    pub fn sparse_from_edges(n: usize, edges: &[(usize, usize, f64)]) -> Result<Self> {
        check_n("C", n)?;
        let mut triplets = Vec::with_capacity(2 * edges.len());
        for (e, &(i, j, w)) in edges.iter().enumerate() {
            check_edge("edges", e, i, j, w, n)?;
            triplets.push((i, j, w));
            if i != j {
                triplets.push((j, i, w));
            }
        }
        Ok(Self {
            repr: Repr::Sparse(build_sparse(n, triplets)?),
        })
    }

    /// A sparse symmetric `C` given in compressed sparse row form: row `i` holds the
    /// entries `values[p]` at columns `col_idx[p]` for `p in row_ptr[i]..row_ptr[i + 1]`.
    /// Both triangles must be present (full symmetric storage); duplicates are summed.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for `n = 0`, [`MaxcutError::InvalidCsr`] for a malformed
    /// structure, [`MaxcutError::IndexOutOfBounds`], [`bl_core::BlError::NonFinite`],
    /// [`MaxcutError::NotSymmetric`]. `n` is bounded by the input (`row_ptr` has `n + 1`
    /// entries); `n = usize::MAX` is an [`MaxcutError::InvalidCsr`], not an overflow.
    pub fn sparse_from_csr(
        n: usize,
        row_ptr: &[usize],
        col_idx: &[usize],
        values: &[f64],
    ) -> Result<Self> {
        if n == 0 {
            return Err(empty("C"));
        }
        if row_ptr.len().checked_sub(1) != Some(n) {
            return Err(MaxcutError::InvalidCsr {
                message: format!(
                    "row_ptr has length {}, expected n + 1 with n = {n}",
                    row_ptr.len(),
                ),
            });
        }
        if col_idx.len() != values.len() {
            return Err(MaxcutError::InvalidCsr {
                message: format!(
                    "col_idx has {} entries but values has {}",
                    col_idx.len(),
                    values.len()
                ),
            });
        }
        if row_ptr[0] != 0 || row_ptr[n] != col_idx.len() {
            return Err(MaxcutError::InvalidCsr {
                message: format!(
                    "row_ptr must start at 0 and end at nnz = {}, found {} and {}",
                    col_idx.len(),
                    row_ptr[0],
                    row_ptr[n]
                ),
            });
        }
        if let Some(i) = (0..n).find(|&i| row_ptr[i] > row_ptr[i + 1]) {
            return Err(MaxcutError::InvalidCsr {
                message: format!("row_ptr decreases at row {i}"),
            });
        }
        let mut triplets = Vec::with_capacity(values.len());
        for i in 0..n {
            for p in row_ptr[i]..row_ptr[i + 1] {
                check_edge("CSR", p, i, col_idx[p], values[p], n)?;
                triplets.push((i, col_idx[p], values[p]));
            }
        }
        let sparse = build_sparse(n, triplets)?;
        let sparse = symmetrize_sparse(sparse)?;
        Ok(Self {
            repr: Repr::Sparse(sparse),
        })
    }

    /// The max-cut cost `C = L / 4` of a weighted undirected graph on `n` vertices, where
    /// `L = Diag(W 1) - W` is its Laplacian: `y^T C y = sum_{cut edges} w_ij`.
    /// Each `(i, j, w)` is one edge (duplicates add up); self-loops never cross a cut and
    /// are ignored. Negative weights are allowed.
    ///
    /// # Errors
    /// As [`Problem::sparse_from_edges`] (`n` is checked before anything of size `n` is
    /// allocated).
    pub fn maxcut(n: usize, edges: &[(usize, usize, f64)]) -> Result<Self> {
        check_n("graph", n)?;
        let mut triplets = Vec::with_capacity(4 * edges.len());
        for (e, &(i, j, w)) in edges.iter().enumerate() {
            check_edge("edges", e, i, j, w, n)?;
            if i != j {
                let q = 0.25 * w;
                triplets.push((i, j, -q));
                triplets.push((j, i, -q));
                triplets.push((i, i, q));
                triplets.push((j, j, q));
            }
        }
        Ok(Self {
            repr: Repr::Sparse(build_sparse(n, triplets)?),
        })
    }

    /// The implicit low-rank cost `C = G G^T` for `G` of size `n x m` (`n` variables).
    /// `C` is never formed here; [`MixingParams::low_rank`](crate::MixingParams::low_rank)
    /// decides whether a solve forms it. `m = 0` gives `C = 0`.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for `n = 0`, [`bl_core::BlError::NonFinite`];
    /// [`bl_core::BlError::InvalidParameter`] if the `m x n` copy exceeds `2^32` values or
    /// cannot be allocated (checked before `G` is read).
    pub fn low_rank(g: MatRef<'_, f64>) -> Result<Self> {
        Ok(Self {
            repr: Repr::LowRank(low_rank_factor("G", g, false)?),
        })
    }

    /// Number of variables `n`.
    pub fn n(&self) -> usize {
        match &self.repr {
            Repr::Dense { n, .. } => *n,
            Repr::Sparse(s) => s.n,
            Repr::LowRank(l) => l.n,
        }
    }

    /// The form in which `C` is stored.
    pub fn form(&self) -> CostForm {
        match &self.repr {
            Repr::Dense { .. } => CostForm::Dense,
            Repr::Sparse(_) => CostForm::Sparse,
            Repr::LowRank(_) => CostForm::LowRank,
        }
    }

    /// The number of stored nonzeros: `n^2` (dense), off-diagonal entries plus `n`
    /// (sparse), or `n m` (entries of `G`).
    pub fn nnz(&self) -> usize {
        match &self.repr {
            Repr::Dense { n, .. } => n * n,
            Repr::Sparse(s) => s.values.len() + s.n,
            Repr::LowRank(l) => l.n * l.m,
        }
    }

    /// `y^T C y` for a sign vector `y in {-1, +1}^n`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] for a wrong length, [`MaxcutError::NotDiscrete`]
    /// for an entry other than `-1.0` or `+1.0`.
    pub fn value(&self, y: &[f64]) -> Result<f64> {
        check_len("y", self.n(), y.len())?;
        check_signs("y", y)?;
        Ok(self.view().quad_form(y))
    }

    /// `out = C x` (a plain matrix-vector product; for `C = G G^T` it is `G (G^T x)`).
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] unless `x` and `out` have length `n`.
    pub fn apply(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        check_len("x", self.n(), x.len())?;
        check_len("out", self.n(), out.len())?;
        match &self.repr {
            Repr::Dense { n, c } => matvec(out, MatRef::from_column_major_slice(c, *n, *n), x),
            Repr::Sparse(s) => {
                for i in 0..s.n {
                    out[i] = s.diag[i] * x[i] + s.off_diagonal_dot(i, x);
                }
            }
            Repr::LowRank(l) => {
                let mut u = vec![0.0; l.m];
                matvec(&mut u, l.gt_ref(), x);
                matvec(out, l.gt_ref().transpose(), &u);
            }
        }
        Ok(())
    }

    /// `C` as a dense `n x n` matrix (forms `G G^T` for the low-rank form). Meant for
    /// small problems, tests and certificates.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] if `n x n` values cannot be allocated
    /// (`n^2 > 2^32` or not enough memory).
    pub fn to_dense(&self) -> Result<Mat<f64>> {
        let n = self.n();
        let c = self.view().dense_copy()?;
        bl_core::limits::reservable::<f64>("n x n (C as a matrix)", &[n, n])?;
        Ok(MatRef::from_column_major_slice(&c, n, n).to_owned())
    }

    pub(crate) fn view(&self) -> CostView<'_> {
        match &self.repr {
            Repr::Dense { n, c } => CostView::Dense { n: *n, c },
            Repr::Sparse(s) => CostView::Sparse(s),
            Repr::LowRank(l) => CostView::LowRank(l),
        }
    }
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
        // (m, k, n) on both sides of SMALL_PRODUCT, plain and transposed operands, both
        // accumulation modes.
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
