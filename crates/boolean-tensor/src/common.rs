//! Shared numerical helpers of the baselines: MTTKRP and the ALS factor update, leading
//! left singular vectors, EM imputation of missing entries.

use faer::{Mat, MatRef, Par, Side};

use crate::error::Result;
use crate::kernels::Mttkrp;
use crate::tensor::{Tensor, cp_reconstruct_into, other_modes};
use bl_core::error::build::numerical;

/// One ALS update of the CP factor along `mode` for fixed other factors (Kolda & Bader
/// 2009, Fig. 3.3): `F_n = X_(n) (F_b (.) F_a) [(F_a^T F_a) * (F_b^T F_b)]^{-1}`, with `m`
/// the buffer of the MTTKRP (in-place kernel of [`crate::kernels`]).
pub(crate) fn als_update(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    f: &[Mat<f64>; 3],
    work: &mut Mttkrp,
    m: &mut Mat<f64>,
) -> Result<Mat<f64>> {
    let (a, b) = other_modes(mode);
    m.resize_with(shape[mode], f[0].ncols(), |_, _| 0.0);
    work.compute(data, shape, mode, f.each_ref().map(Mat::as_ref), m.as_mut());
    let g = hadamard(gram(f[a].as_ref()).as_ref(), gram(f[b].as_ref()).as_ref());
    solve_right_spd(g.as_ref(), m.as_ref())
}

/// The budget of an ALS fit (CP-ALS, SUSTain): `rank`, `max_iter` and `n_starts` at
/// least 1, `tol` finite and `>= 0`.
pub(crate) fn check_als_budget(
    rank: usize,
    max_iter: usize,
    n_starts: usize,
    tol: f64,
) -> Result<()> {
    bl_core::params::at_least("rank", rank, 1)?;
    bl_core::params::at_least("max_iter", max_iter, 1)?;
    bl_core::params::at_least("n_starts", n_starts, 1)?;
    bl_core::params::nonnegative("tol", tol)?;
    Ok(())
}

/// `F^T F`.
pub(crate) fn gram(f: MatRef<'_, f64>) -> Mat<f64> {
    f.transpose() * f
}

/// One EM step of a CP model with missing entries: rebuilds `model` from the factors,
/// refills the missing entries of `filled` from it, and returns the loss
/// `1/2 ||P_Omega(X - W)||^2` on the observed entries.
pub(crate) fn cp_em_step(
    x: &Tensor,
    f: &[Mat<f64>; 3],
    kr: &mut Mat<f64>,
    model: &mut [f64],
    filled: &mut [f64],
    par: Par,
) -> f64 {
    cp_reconstruct_into(f.each_ref().map(Mat::as_ref), kr, model, par);
    impute(x, model, filled);
    masked_loss(x, model)
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
    let evd = gram
        .self_adjoint_eigen(Side::Lower)
        .map_err(|e| numerical::<crate::TensorError>("leading eigenvectors", format!("{e:?}")))?;
    // Eigenvalues in nondecreasing order: take the last r columns, largest first.
    let u = evd.U();
    Ok(Mat::from_fn(m, r.min(m), |i, j| u[(i, m - 1 - j)]))
}

/// Copies the observed entries of `x` and fills the missing ones from `model` (the EM
/// imputation step used by the baselines for completion).
pub(crate) fn impute(x: &Tensor, model: &[f64], out: &mut [f64]) {
    match x.mask() {
        None => out.copy_from_slice(x.data()),
        Some(mask) => {
            for (((o, &xv), &mv), &m) in out.iter_mut().zip(x.data()).zip(model).zip(mask) {
                *o = if m { xv } else { mv };
            }
        }
    }
}

/// `1/2 ||P_Omega(X - W)||^2`.
pub(crate) fn masked_loss(x: &Tensor, model: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, (&xv, &mv)) in x.data().iter().zip(model).enumerate() {
        if x.is_observed(i) {
            s += (xv - mv) * (xv - mv);
        }
    }
    0.5 * s
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

pub(crate) fn hadamard(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)] * b[(i, j)])
}

/// One report for a fit made of several engine runs (starts, modes): every run's
/// iterations in order (each run numbers its own from 1 and tags them with an extra, e.g.
/// `start`), their total count and time, and the termination and objective of the run
/// `kept`.
pub(crate) fn combine_reports(
    reports: Vec<bl_core::engine::FitReport>,
    kept: usize,
) -> bl_core::engine::FitReport {
    let mut trace = bl_core::engine::Trace::default();
    let (mut iterations, mut elapsed) = (0, std::time::Duration::ZERO);
    let (mut termination, mut objective) = (bl_core::TerminationReason::MaxIterations, f64::NAN);
    for (i, report) in reports.into_iter().enumerate() {
        iterations += report.iterations;
        elapsed += report.elapsed;
        if i == kept {
            termination = report.termination;
            objective = report.objective;
        }
        for record in report.trace.records() {
            trace.push(record.clone());
        }
    }
    bl_core::engine::FitReport {
        iterations,
        termination,
        objective,
        elapsed,
        trace,
    }
}
