//! Small dense linear algebra of the fits: Gram and Hadamard products, the normal
//! equations, leading eigenvectors.

use faer::{Mat, MatRef, Side};

use crate::error::Result;
use bl_core::error::build::numerical;

/// `F^T F`, through [`bl_core::linalg::product`]: a small Gram matrix (rank 53 over a
/// mode of 3 took faer's large-matrix path) does not reserve faer's 64 MiB packing
/// buffers.
pub(crate) fn gram(f: MatRef<'_, f64>) -> Mat<f64> {
    let mut g = Mat::zeros(f.ncols(), f.ncols());
    bl_core::linalg::product(
        g.as_mut(),
        faer::Accum::Replace,
        f.transpose(),
        f,
        faer::get_global_parallelism(),
    );
    g
}

/// The `r` leading left singular vectors of `a` (`m x n`), from the eigenvectors of
/// `A A^T` (`m x m`); at most `m` columns are returned.
#[cfg(test)]
pub(crate) fn leading_left_vectors(a: MatRef<'_, f64>, r: usize) -> Result<Mat<f64>> {
    leading_eigenvectors((a * a.transpose()).as_ref(), r)
}

/// The eigenvectors of the `r` largest eigenvalues of the symmetric `gram` (`m x m`),
/// largest first; at most `m` columns.
pub(crate) fn leading_eigenvectors(gram: MatRef<'_, f64>, r: usize) -> Result<Mat<f64>> {
    let m = gram.nrows();
    // On the calling thread: faer's own eigensolver splits sums by the pool's size.
    let (_, u) = bl_core::linalg::symmetric_eigen(gram, "leading eigenvectors")?;
    // Eigenvalues in nondecreasing order: take the last r columns, largest first.
    Ok(Mat::from_fn(m, r.min(m), |i, j| u[(i, m - 1 - j)]))
}

/// Solves `X G = B` for `X` (`G` symmetric positive semidefinite, `k x k`; `B` `n x k`)
/// by Cholesky with a small ridge fallback; returns `X` (`n x k`).
pub(crate) fn solve_right_spd(g: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Result<Mat<f64>> {
    solve_right_spd_ridged(g, b, &[0.0, 1e-12, 1e-8, 1e-4], "normal equations")
}

/// [`solve_right_spd`] with the ridges to try in turn (fractions of the largest diagonal
/// entry of `G`, added when the Cholesky factorization fails or gives non-finite values)
/// and the context of the error when all fail.
pub(crate) fn solve_right_spd_ridged(
    g: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    ridges: &[f64],
    context: &'static str,
) -> Result<Mat<f64>> {
    use faer::linalg::solvers::Solve;
    let k = g.nrows();
    let max_diag = (0..k)
        .map(|i| g[(i, i)])
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    for &ridge in ridges {
        let mut gr = g.to_owned();
        for i in 0..k {
            gr[(i, i)] += ridge * max_diag;
        }
        if let Ok(llt) = gr.llt(Side::Lower) {
            let sol = llt.solve(b.transpose().to_owned());
            let out = sol.transpose().to_owned();
            if (0..out.ncols()).all(|j| (0..out.nrows()).all(|i| out[(i, j)].is_finite())) {
                return Ok(out);
            }
        }
    }
    Err(numerical(
        context,
        format!("the {k} x {k} Gram matrix is not positive definite"),
    ))
}

/// The entrywise product of two matrices of the same shape.
pub(crate) fn hadamard(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)] * b[(i, j)])
}
