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

use crate::error::{MaxcutError, Result, empty, non_finite, shape_mismatch};

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
    pub(crate) fn form(&self, par: Par) -> Vec<f64> {
        let n = self.n;
        let mut c = vec![0.0; n * n];
        triangular::matmul(
            MatMut::from_column_major_slice_mut(&mut c, n, n),
            BlockStructure::TriangularLower,
            Accum::Replace,
            self.gt_ref().transpose(),
            BlockStructure::Rectangular,
            self.gt_ref(),
            BlockStructure::Rectangular,
            1.0,
            par,
        );
        for j in 0..n {
            for i in 0..j {
                c[i + j * n] = c[j + i * n];
            }
        }
        c
    }
}

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
/// Build it once (the constructors validate and copy the input), then call
/// [`Problem::solve`] (mixing method + rounding) or [`Problem::solve_exact`]
/// (enumeration, `n <= 24`).
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
    /// [`MaxcutError::Empty`] for `n = 0`, [`MaxcutError::NotSquare`],
    /// [`MaxcutError::NonFinite`], [`MaxcutError::NotSymmetric`].
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
    /// [`MaxcutError::Empty`] for `n = 0`, [`MaxcutError::IndexOutOfBounds`],
    /// [`MaxcutError::NonFinite`].
    pub fn sparse_from_edges(n: usize, edges: &[(usize, usize, f64)]) -> Result<Self> {
        if n == 0 {
            return Err(empty("C"));
        }
        let mut triplets = Vec::with_capacity(2 * edges.len());
        for (e, &(i, j, w)) in edges.iter().enumerate() {
            check_edge("edges", e, i, j, w, n)?;
            triplets.push((i, j, w));
            if i != j {
                triplets.push((j, i, w));
            }
        }
        Ok(Self {
            repr: Repr::Sparse(build_sparse(n, triplets)),
        })
    }

    /// A sparse symmetric `C` given in compressed sparse row form: row `i` holds the
    /// entries `values[p]` at columns `col_idx[p]` for `p in row_ptr[i]..row_ptr[i + 1]`.
    /// Both triangles must be present (full symmetric storage); duplicates are summed.
    ///
    /// # Errors
    /// [`MaxcutError::Empty`] for `n = 0`, [`MaxcutError::InvalidCsr`] for a malformed
    /// structure, [`MaxcutError::IndexOutOfBounds`], [`MaxcutError::NonFinite`],
    /// [`MaxcutError::NotSymmetric`].
    pub fn sparse_from_csr(
        n: usize,
        row_ptr: &[usize],
        col_idx: &[usize],
        values: &[f64],
    ) -> Result<Self> {
        if n == 0 {
            return Err(empty("C"));
        }
        if row_ptr.len() != n + 1 {
            return Err(MaxcutError::InvalidCsr {
                message: format!(
                    "row_ptr has length {}, expected n + 1 = {}",
                    row_ptr.len(),
                    n + 1
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
        let sparse = build_sparse(n, triplets);
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
    /// As [`Problem::sparse_from_edges`].
    pub fn maxcut(n: usize, edges: &[(usize, usize, f64)]) -> Result<Self> {
        if n == 0 {
            return Err(empty("graph"));
        }
        let mut triplets = Vec::with_capacity(2 * edges.len() + n);
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
            repr: Repr::Sparse(build_sparse(n, triplets)),
        })
    }

    /// The implicit low-rank cost `C = G G^T` for `G` of size `n x m` (`n` variables).
    /// `C` is never formed here; [`MixingParams::low_rank`](crate::MixingParams::low_rank)
    /// decides whether a solve forms it. `m = 0` gives `C = 0`.
    ///
    /// # Errors
    /// [`MaxcutError::Empty`] for `n = 0`, [`MaxcutError::NonFinite`].
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
    /// [`MaxcutError::ShapeMismatch`] for a wrong length, [`MaxcutError::NotDiscrete`]
    /// for an entry other than `-1.0` or `+1.0`.
    pub fn value(&self, y: &[f64]) -> Result<f64> {
        check_len("y", self.n(), y.len())?;
        check_signs("y", y)?;
        Ok(self.view().quad_form(y))
    }

    /// `out = C x` (a plain matrix-vector product; for `C = G G^T` it is `G (G^T x)`).
    ///
    /// # Errors
    /// [`MaxcutError::ShapeMismatch`] unless `x` and `out` have length `n`.
    pub fn apply(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        check_len("x", self.n(), x.len())?;
        check_len("out", self.n(), out.len())?;
        match &self.repr {
            Repr::Dense { n, c } => matmul(
                MatMut::from_column_major_slice_mut(out, *n, 1),
                Accum::Replace,
                MatRef::from_column_major_slice(c, *n, *n),
                MatRef::from_column_major_slice(x, *n, 1),
                1.0,
                Par::Seq,
            ),
            Repr::Sparse(s) => {
                for i in 0..s.n {
                    let mut acc = s.diag[i] * x[i];
                    for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                        acc += s.values[p] * x[s.col_idx[p]];
                    }
                    out[i] = acc;
                }
            }
            Repr::LowRank(l) => {
                let mut u = vec![0.0; l.m];
                matmul(
                    MatMut::from_column_major_slice_mut(&mut u, l.m, 1),
                    Accum::Replace,
                    l.gt_ref(),
                    MatRef::from_column_major_slice(x, l.n, 1),
                    1.0,
                    Par::Seq,
                );
                matmul(
                    MatMut::from_column_major_slice_mut(out, l.n, 1),
                    Accum::Replace,
                    l.gt_ref().transpose(),
                    MatRef::from_column_major_slice(&u, l.m, 1),
                    1.0,
                    Par::Seq,
                );
            }
        }
        Ok(())
    }

    /// `C` as a dense `n x n` matrix (forms `G G^T` for the low-rank form). Meant for
    /// small problems, tests and certificates.
    pub fn to_dense(&self) -> Mat<f64> {
        let n = self.n();
        match &self.repr {
            Repr::Dense { c, .. } => Mat::from_fn(n, n, |i, j| c[i + j * n]),
            Repr::Sparse(s) => {
                let mut c = Mat::zeros(n, n);
                for i in 0..n {
                    c[(i, i)] = s.diag[i];
                    for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                        c[(i, s.col_idx[p])] += s.values[p];
                    }
                }
                c
            }
            Repr::LowRank(l) => {
                let c = l.form(Par::Seq);
                Mat::from_fn(n, n, |i, j| c[i + j * n])
            }
        }
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
                matmul(
                    MatMut::from_column_major_slice_mut(scratch, *n, 1),
                    Accum::Replace,
                    MatRef::from_column_major_slice(c, *n, *n),
                    MatRef::from_column_major_slice(y, *n, 1),
                    1.0,
                    Par::Seq,
                );
                dot(y, scratch)
            }
            CostView::Sparse(s) => {
                let mut total = 0.0;
                for i in 0..s.n {
                    let mut acc = s.diag[i] * y[i];
                    for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                        acc += s.values[p] * y[s.col_idx[p]];
                    }
                    total += y[i] * acc;
                }
                total
            }
            CostView::LowRank(l) => {
                matmul(
                    MatMut::from_column_major_slice_mut(scratch, l.m, 1),
                    Accum::Replace,
                    l.gt_ref(),
                    MatRef::from_column_major_slice(y, l.n, 1),
                    1.0,
                    Par::Seq,
                );
                dot(scratch, scratch)
            }
        }
    }

    /// Dense copy (column-major), for the exact solvers.
    pub(crate) fn dense_copy(&self) -> Vec<f64> {
        match self {
            CostView::Dense { c, .. } => c.to_vec(),
            CostView::Sparse(s) => {
                let n = s.n;
                let mut c = vec![0.0; n * n];
                for i in 0..n {
                    c[i + i * n] = s.diag[i];
                    for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                        c[i + s.col_idx[p] * n] += s.values[p];
                    }
                }
                c
            }
            CostView::LowRank(l) => l.form(Par::Seq),
        }
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

pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(shape_mismatch(
            what,
            format!("length {expected}"),
            format!("length {found}"),
        ))
    }
}

pub(crate) fn check_signs(what: &'static str, y: &[f64]) -> Result<()> {
    match y.iter().position(|&v| v != 1.0 && v != -1.0) {
        Some(index) => Err(MaxcutError::NotDiscrete {
            what,
            index,
            value: y[index],
            expected: "-1.0 or +1.0",
        }),
        None => Ok(()),
    }
}

fn check_edge(what: &'static str, e: usize, i: usize, j: usize, w: f64, n: usize) -> Result<()> {
    for index in [i, j] {
        if index >= n {
            return Err(MaxcutError::IndexOutOfBounds { what, index, n });
        }
    }
    if !w.is_finite() {
        return Err(non_finite(what, e, w));
    }
    Ok(())
}

/// Validates a dense square matrix and returns a column-major copy. With `require_sym`
/// the matrix must be symmetric up to [`SYMMETRY_TOL`]; either way the copy is the exact
/// symmetric part `(C + C^T) / 2`.
pub(crate) fn dense_symmetric(
    what: &'static str,
    c: MatRef<'_, f64>,
    require_sym: bool,
) -> Result<(usize, Vec<f64>)> {
    let (rows, cols) = (c.nrows(), c.ncols());
    if rows != cols {
        return Err(MaxcutError::NotSquare { what, rows, cols });
    }
    let n = rows;
    if n == 0 {
        return Err(empty(what));
    }
    let mut max_abs = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            let v = c[(i, j)];
            if !v.is_finite() {
                return Err(non_finite(what, i + j * rows, v));
            }
            max_abs = max_abs.max(v.abs());
        }
    }
    let tol = SYMMETRY_TOL * max_abs;
    let mut out = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..=j {
            let (upper, lower) = (c[(i, j)], c[(j, i)]);
            if require_sym && (upper - lower).abs() > tol {
                return Err(MaxcutError::NotSymmetric {
                    what,
                    row: i,
                    col: j,
                    upper,
                    lower,
                });
            }
            let s = 0.5 * (upper + lower);
            out[i + j * n] = s;
            out[j + i * n] = s;
        }
    }
    Ok((n, out))
}

/// Validates `G` (`n x m`) and copies it as `G^T`. With `homogenize`, a first row
/// `1^T G` is added (the homogenized factor of a Boolean QP).
pub(crate) fn low_rank_factor(
    what: &'static str,
    g: MatRef<'_, f64>,
    homogenize: bool,
) -> Result<LowRankFactor> {
    let (rows, m) = (g.nrows(), g.ncols());
    if rows == 0 {
        return Err(empty(what));
    }
    for j in 0..m {
        for i in 0..rows {
            let v = g[(i, j)];
            if !v.is_finite() {
                return Err(non_finite(what, i + j * rows, v));
            }
        }
    }
    let offset = usize::from(homogenize);
    let n = rows + offset;
    let mut gt = vec![0.0; m * n];
    // Columns `offset..` of `G^T` are the rows of `G`: faer's blocked transposed copy.
    MatMut::from_column_major_slice_mut(&mut gt[offset * m..], m, rows).copy_from(g.transpose());
    if offset == 1 {
        let (head, tail) = gt.split_at_mut(m);
        for i in 0..rows {
            for (h, x) in head.iter_mut().zip(&tail[i * m..(i + 1) * m]) {
                *h += *x;
            }
        }
    }
    let row_sq = (0..n)
        .map(|i| {
            let r = &gt[i * m..(i + 1) * m];
            dot(r, r)
        })
        .collect();
    Ok(LowRankFactor { n, m, gt, row_sq })
}

/// Builds the canonical form from `(i, j, C_ij)` triplets (duplicates summed, explicit
/// zeros dropped).
fn build_sparse(n: usize, mut triplets: Vec<(usize, usize, f64)>) -> SparseSym {
    triplets.sort_unstable_by_key(|t| (t.0, t.1));
    let mut diag = vec![0.0; n];
    let mut row_ptr = vec![0usize; n + 1];
    let mut col_idx: Vec<usize> = Vec::with_capacity(triplets.len());
    let mut values: Vec<f64> = Vec::with_capacity(triplets.len());
    let mut rows: Vec<usize> = Vec::with_capacity(triplets.len());
    for (i, j, w) in triplets {
        if i == j {
            diag[i] += w;
        } else if rows.last() == Some(&i) && col_idx.last() == Some(&j) {
            if let Some(last) = values.last_mut() {
                *last += w;
            }
        } else {
            rows.push(i);
            col_idx.push(j);
            values.push(w);
        }
    }
    // Drop entries that cancelled to exactly zero.
    let mut keep = 0;
    for p in 0..values.len() {
        if values[p] != 0.0 {
            rows[keep] = rows[p];
            col_idx[keep] = col_idx[p];
            values[keep] = values[p];
            keep += 1;
        }
    }
    rows.truncate(keep);
    col_idx.truncate(keep);
    values.truncate(keep);
    for &i in &rows {
        row_ptr[i + 1] += 1;
    }
    for i in 0..n {
        row_ptr[i + 1] += row_ptr[i];
    }
    SparseSym {
        n,
        row_ptr,
        col_idx,
        values,
        diag,
    }
}

/// Checks that a canonical sparse matrix is symmetric up to [`SYMMETRY_TOL`] and makes it
/// exactly symmetric.
fn symmetrize_sparse(mut s: SparseSym) -> Result<SparseSym> {
    let max_abs = s.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let tol = SYMMETRY_TOL * max_abs;
    let lookup = |s: &SparseSym, i: usize, j: usize| -> f64 {
        let row = &s.col_idx[s.row_ptr[i]..s.row_ptr[i + 1]];
        match row.binary_search(&j) {
            Ok(p) => s.values[s.row_ptr[i] + p],
            Err(_) => 0.0,
        }
    };
    let mut averaged = s.values.clone();
    for i in 0..s.n {
        for p in s.row_ptr[i]..s.row_ptr[i + 1] {
            let j = s.col_idx[p];
            let (upper, lower) = (s.values[p], lookup(&s, j, i));
            if (upper - lower).abs() > tol {
                return Err(MaxcutError::NotSymmetric {
                    what: "C",
                    row: i,
                    col: j,
                    upper,
                    lower,
                });
            }
            averaged[p] = 0.5 * (upper + lower);
        }
    }
    s.values = averaged;
    Ok(s)
}
