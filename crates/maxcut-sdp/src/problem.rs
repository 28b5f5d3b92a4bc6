//! The cost matrix `C` of `max <C, Y> s.t. diag(Y) = 1, Y psd`, in one of three forms.
//!
//! | constructor | storage | cost of one mixing sweep |
//! |---|---|---|
//! | [`Problem::dense`] | `n x n` column-major | `O(n^2 k)` |
//! | [`Problem::sparse_from_edges`], [`Problem::sparse_from_csr`], [`Problem::maxcut`] | CSR (off-diagonal) + diagonal | `O(nnz k)` |
//! | [`Problem::low_rank`] (`C = G G^T`) | `G` | `O(n m k)` implicit, or `O(n^2 k)` after forming `C` (see [`LowRankMode`](crate::LowRankMode)) |

use faer::{Mat, MatRef};

use crate::cost::{CostView, Repr, matvec};
use crate::error::{MaxcutError, Result, empty};
pub use crate::input::SYMMETRY_TOL;
use crate::input::{
    build_sparse, check_edge, check_len, check_n, check_signs, dense_symmetric, low_rank_factor,
    symmetrize_sparse,
};

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
