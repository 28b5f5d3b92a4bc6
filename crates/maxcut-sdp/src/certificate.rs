//! A certified upper bound on the SDP optimum from weak duality.
//!
//! The dual of `max <C, Y> s.t. diag(Y) = 1, Y psd` is `min sum_i lambda_i s.t.
//! Diag(lambda) - C psd`. For any `lambda` and any feasible `Y` (so `tr Y = n`),
//! `<C, Y> = sum_i lambda_i + <C - Diag(lambda), Y> <= sum_i lambda_i + n lambda_max(C - Diag(lambda))`.
//! At a stationary point of the mixing method `sum_j C_ij v_j = (C_ii + ||g_i||) v_i`, so
//! `lambda_i = C_ii + ||g_i||` makes the bound tight at the optimum (then
//! `lambda_max(C - Diag(lambda)) = 0`). Near it the bound is close to `<C, V^T V>`, but
//! its gap shrinks only like the square root of the primal gap (an objective error `e`
//! leaves an error of order `sqrt(e)` in `V`, hence in `lambda`): solve to a small `tol`
//! (e.g. `1e-10`) when a tight certificate matters.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Side};

use crate::error::{MaxcutError, Result};
use crate::problem::{Problem, dot};
use bl_core::error::build::{non_finite, numerical, shape_mismatch};

/// Largest `n` accepted by [`Problem::dual_bound`] (it solves a dense `n x n` symmetric
/// eigenvalue problem, `O(n^3)` time and `n^2` memory).
pub const MAX_DUAL_BOUND_N: usize = 4096;

impl Problem {
    /// A certified upper bound on `max <C, Y> s.t. diag(Y) = 1, Y psd`, hence on
    /// `max y^T C y` over signs, from a factor `V` (`k x n`, e.g.
    /// [`MixingSolution::v`](crate::MixingSolution::v)): with
    /// `lambda_i = C_ii + ||sum_{j != i} C_ij v_j||`, the bound is
    /// `sum_i lambda_i + n lambda_max(C - Diag(lambda))` plus a margin covering the
    /// rounding error of the eigenvalue solver. Valid for any `V`; tight when `V` is
    /// optimal.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] if `V` does not have `n` columns or has no rows,
    /// [`bl_core::BlError::NonFinite`], [`MaxcutError::TooLargeForExact`] for
    /// `n > MAX_DUAL_BOUND_N`, [`bl_core::BlError::Numerical`] if the eigenvalue solver fails.
    pub fn dual_bound(&self, v: MatRef<'_, f64>) -> Result<f64> {
        let n = self.n();
        let k = v.nrows();
        if v.ncols() != n || k == 0 {
            return Err(shape_mismatch(
                "V",
                format!("k x {n} with k >= 1"),
                format!("{} x {}", v.nrows(), v.ncols()),
            ));
        }
        if n > MAX_DUAL_BOUND_N {
            return Err(MaxcutError::TooLargeForExact {
                n,
                max: MAX_DUAL_BOUND_N,
            });
        }
        let mut vv = vec![0.0; k * n];
        for i in 0..n {
            for r in 0..k {
                let value = v[(r, i)];
                if !value.is_finite() {
                    return Err(non_finite("V", r + i * k, value));
                }
                vv[r + i * k] = value;
            }
        }
        let c = self.view().dense_copy();
        // VC = V C (k x n): column i is sum_j C_ji v_j = sum_j C_ij v_j.
        let mut vc = vec![0.0; k * n];
        matmul(
            MatMut::from_column_major_slice_mut(&mut vc, k, n),
            Accum::Replace,
            MatRef::from_column_major_slice(&vv, k, n),
            MatRef::from_column_major_slice(&c, n, n),
            1.0,
            faer::get_global_parallelism(),
        );
        let mut lambda = vec![0.0; n];
        for i in 0..n {
            let cii = c[i + i * n];
            let g = &mut vc[i * k..(i + 1) * k];
            for (gr, vr) in g.iter_mut().zip(&vv[i * k..(i + 1) * k]) {
                *gr -= cii * vr;
            }
            lambda[i] = cii + dot(g, g).sqrt();
        }
        let m = Mat::from_fn(n, n, |i, j| {
            c[i + j * n] - if i == j { lambda[i] } else { 0.0 }
        });
        let eigenvalues = m.self_adjoint_eigenvalues(Side::Lower).map_err(|e| {
            numerical::<MaxcutError>(
                "dual bound",
                format!("symmetric eigenvalue solver failed: {e:?}"),
            )
        })?;
        let lambda_max = eigenvalues.last().copied().unwrap_or(0.0);
        let frobenius = m.norm_l2();
        let margin = 4.0 * n as f64 * f64::EPSILON * frobenius;
        let bound = lambda.iter().sum::<f64>() + n as f64 * (lambda_max + margin);
        if bound.is_finite() {
            Ok(bound)
        } else {
            Err(numerical("dual bound", format!("bound = {bound}")))
        }
    }
}
