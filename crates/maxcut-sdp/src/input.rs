//! Validation of user input and its copy into the internal forms of [`crate::Problem`]:
//! dense symmetric, sparse symmetric (CSR) and low-rank factor.

use faer::{MatMut, MatRef};

use crate::cost::{LowRankFactor, SparseSym, dot};
use crate::error::{MaxcutError, Result, empty};
use bl_core::error::build::{non_finite, shape_mismatch};

/// Relative tolerance of the symmetry checks: `|C_ij - C_ji| <= SYMMETRY_TOL * max |C|`.
pub const SYMMETRY_TOL: f64 = 1e-10;

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

pub(crate) fn check_edge(
    what: &'static str,
    e: usize,
    i: usize,
    j: usize,
    w: f64,
    n: usize,
) -> Result<()> {
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
    // Checked before the scan: a view may repeat one value over any shape.
    let mut out = bl_core::limits::try_zeroed::<f64>("n x n (copy of the matrix)", &[n, n])?;
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
    let offset = usize::from(homogenize);
    let n = rows + offset;
    // Checked before the scan: a view may repeat one value over any shape.
    let mut gt = bl_core::limits::try_zeroed::<f64>("m x n (copy of G^T)", &[m, n])?;
    for j in 0..m {
        for i in 0..rows {
            let v = g[(i, j)];
            if !v.is_finite() {
                return Err(non_finite(what, i + j * rows, v));
            }
        }
    }
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

/// Checks a caller-given number of variables before anything of that size is allocated:
/// `1 <= n <= MAX_ELEMENTS` ([`bl_core::limits::MAX_ELEMENTS`], `2^32`).
pub(crate) fn check_n(what: &'static str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(empty(what));
    }
    bl_core::limits::buffer_len("n", &[n])?;
    Ok(())
}

/// Builds the canonical form from `(i, j, C_ij)` triplets (duplicates summed, explicit
/// zeros dropped). The `n`-sized buffers are reserved fallibly (`n` comes from the caller).
pub(crate) fn build_sparse(n: usize, mut triplets: Vec<(usize, usize, f64)>) -> Result<SparseSym> {
    let mut diag = bl_core::limits::try_zeroed::<f64>("n", &[n])?;
    let mut row_ptr = bl_core::limits::try_zeroed::<usize>("n + 1", &[n.saturating_add(1)])?;
    triplets.sort_unstable_by_key(|t| (t.0, t.1));
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
    Ok(SparseSym {
        n,
        row_ptr,
        col_idx,
        values,
        diag,
    })
}

/// Checks that a canonical sparse matrix is symmetric up to [`SYMMETRY_TOL`] and makes it
/// exactly symmetric.
pub(crate) fn symmetrize_sparse(mut s: SparseSym) -> Result<SparseSym> {
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
