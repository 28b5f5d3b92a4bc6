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
//!
//! The inequality holds for every `lambda`, so the floating-point `lambda` needs no error
//! analysis; what does is the largest eigenvalue and the sums. [`Problem::dual_bound`]
//! takes the eigenvalue from the solver only as a guess `mu` and *verifies* it: a
//! floating-point Cholesky factorization of `mu I - M` that runs to completion proves
//! `lambda_max(M) <= mu` up to a rounding term with an explicit bound (see
//! [`Problem::dual_bound`] for the argument and every term).

use faer::{Accum, MatMut, MatRef};

use crate::cost::{CostView, dot, product};
use crate::error::{MaxcutError, Result};
use crate::problem::Problem;
use bl_core::error::build::{non_finite, numerical, shape_mismatch};

/// Largest `n` accepted by [`Problem::dual_bound`] (it solves a dense `n x n` symmetric
/// eigenvalue problem, `O(n^3)` time and `n^2` memory).
pub const MAX_DUAL_BOUND_N: usize = 4096;

/// The unit roundoff of `f64` (round to nearest): `2^-53`.
const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

/// How many times the verified shift is widened (by 4x each) before falling back to the
/// Gershgorin bound.
const SHIFT_ATTEMPTS: usize = 40;

/// `gamma_k = k u / (1 - k u)`, the classical bound on the relative error of a sum or
/// dot product of `k` terms (Higham, *Accuracy and Stability of Numerical Algorithms*,
/// 2nd ed., Lemma 3.1 and Sec. 3.1), for any order of summation, with or without fused
/// multiply-adds. Every call has `k <= 2^40`, so `k u < 1/2` and the formula applies; the
/// `1` returned otherwise is never reached.
fn gamma(k: usize) -> f64 {
    let ku = k as f64 * UNIT_ROUNDOFF;
    if ku < 0.5 { ku / (1.0 - ku) } else { 1.0 }
}

/// An upper bound on the exact sum of `terms`: the floating-point sum plus
/// `2 gamma_{len+1} sum |t|`, which covers the rounding of the sum, of `sum |t|` and of the
/// final addition (Higham, eq. (4.4)).
fn sum_up(terms: &[f64]) -> f64 {
    let (s, a) = terms
        .iter()
        .fold((0.0f64, 0.0f64), |(s, a), &t| (s + t, a + t.abs()));
    s + 2.0 * gamma(terms.len() + 1) * a
}

/// Whether the floating-point Cholesky factorization of the symmetric `a` (`n x n`,
/// column-major, lower triangle read and overwritten) runs to completion, i.e. every pivot
/// is positive. Plain right-looking loop: each entry is `a_ij - sum_k r_ik r_jk`
/// accumulated in floating point, then divided by the pivot, as in Higham's Theorem 10.3.
fn cholesky_completes(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let pivot = a[j + j * n];
        if !(pivot > 0.0 && pivot.is_finite()) {
            return false;
        }
        let r = pivot.sqrt();
        let (head, tail) = a.split_at_mut((j + 1) * n);
        let col = &mut head[j * n..];
        col[j] = r;
        for x in &mut col[j + 1..] {
            *x /= r;
        }
        for k in j + 1..n {
            let ljk = col[k];
            if ljk == 0.0 {
                continue;
            }
            let target = &mut tail[(k - j - 1) * n..(k - j) * n];
            for i in k..n {
                target[i] -= col[i] * ljk;
            }
        }
    }
    true
}

/// A bound on the rounding error of every value `y^T C y` this crate computes for a
/// sign vector `y` ([`Problem::value`], the fit's value, [`Problem::solve_exact`]'s value):
/// `4 gamma_{2n+1} sum_ij |C_ij|` for a stored `C` (a matrix-vector product, then a dot
/// product: `gamma_{2n} sum_ij |C_ij|`), and `4 gamma_{2n+m+1} (sum_i ||G_i||)^2` for
/// `C = G G^T`, which covers both `||G^T y||^2` (error at most
/// `gamma_{n+m+1} sum_l (sum_i |G_il|)^2 <= gamma_{n+m+1} (sum_i ||G_i||)^2`) and the
/// dense `fl(G G^T)` of the exact solver (off by `gamma_m sum_ij ||G_i|| ||G_j||`, then
/// evaluated with error `gamma_{2n}` times the same sum).
fn evaluation_allowance(view: CostView<'_>, dense_c: &[f64]) -> f64 {
    let n = view.n();
    match view {
        CostView::Dense { .. } | CostView::Sparse(_) => {
            let abs_sum: f64 = dense_c.iter().map(|c| c.abs()).sum();
            4.0 * gamma(2 * n + 1) * abs_sum
        }
        CostView::LowRank(lr) => {
            let norms: f64 = lr.row_sq.iter().map(|s| s.sqrt()).sum();
            4.0 * gamma(2 * n + lr.m + 1) * norms * norms
        }
    }
}

/// A bound on `||C - fl(C)||_2`, the error of the dense copy of `C` the bound works on:
/// `0` for a stored `C` (copied exactly), and for `C = G G^T` formed by a matrix product,
/// `|fl(C)_ij - C_ij| <= gamma_m sum_l |G_il| |G_jl| <= gamma_m ||G_i|| ||G_j||`, a
/// rank-one nonnegative matrix of 2-norm `gamma_m sum_i ||G_i||^2`, doubled to cover the
/// rounding of `||G_i||^2` and of the sum.
fn forming_error(view: CostView<'_>) -> f64 {
    match view {
        CostView::Dense { .. } | CostView::Sparse(_) => 0.0,
        CostView::LowRank(lr) => {
            let trace: f64 = lr.row_sq.iter().sum();
            2.0 * gamma(lr.m + lr.n + 1) * trace
        }
    }
}

/// The Gershgorin bound `max_i (M_ii + sum_{j != i} |M_ij|)` on `lambda_max(M)`, widened by
/// `2 gamma_{n+1}` times the row's absolute sum: rigorous, and the fallback when no
/// shift could be verified.
fn gershgorin_up(m: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|i| {
            let (mut s, mut a) = (m[i + i * n], m[i + i * n].abs());
            for j in (0..n).filter(|&j| j != i) {
                s += m[i + j * n].abs();
                a += m[i + j * n].abs();
            }
            s + 2.0 * gamma(n + 1) * a
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A verified upper bound on `lambda_max(M)` for the symmetric `M` (`n x n`,
/// column-major, exact floating-point entries), starting from the guess `guess`.
///
/// For a shift `mu`, let `A = fl(mu I - M)` (off-diagonal `-M_ij` exactly, diagonal
/// `fl(mu - M_ii)`, off by at most `u |A_ii| / (1 - u) <= 2 u |A_ii|`). If the Cholesky
/// factorization of `A` runs to completion, the computed factor satisfies
/// `R^T R = A + dA` with `|dA_ij| <= gamma_{n+1} / (1 - gamma_{n+1}) d_i d_j`,
/// `d_i = sqrt(A_ii)` (Higham, Thm. 10.3 and its proof; Rump, *Verification of positive
/// definiteness*, BIT 46 (2006), Lemma 2.1), so `||dA||_2 <= gamma_{n+1} / (1 -
/// gamma_{n+1}) tr(A)` and `A >= -||dA||_2 I`. Hence `lambda_max(M) <= mu + 2 u max_i
/// |A_ii| + gamma_{n+1} / (1 - gamma_{n+1}) tr(A) + underflow`, where `underflow = 4 n
/// (2 (n + 2) + max_i A_ii) * f64::MIN_POSITIVE` over-covers Rump's underflow term (his
/// uses the smallest subnormal, `2^-1074`). If the factorization breaks down, the shift
/// is widened (4x, up to 40 times), then the Gershgorin bound is used.
fn lambda_max_up(m: &[f64], n: usize, guess: f64, frobenius: f64) -> f64 {
    let g = gamma(n + 1);
    let chol_factor = g / (1.0 - g);
    let mut delta = (4.0 * n as f64 * f64::EPSILON * frobenius).max(f64::MIN_POSITIVE);
    let mut a = vec![0.0; n * n];
    for _ in 0..SHIFT_ATTEMPTS {
        let mu = guess + delta;
        if !mu.is_finite() {
            break;
        }
        for j in 0..n {
            for i in j..n {
                a[i + j * n] = -m[i + j * n];
            }
            a[j + j * n] = mu - m[j + j * n];
        }
        let diag: Vec<f64> = (0..n).map(|i| a[i + i * n]).collect();
        if cholesky_completes(&mut a, n) {
            let max_diag = diag.iter().fold(0.0f64, |x, &d| x.max(d.abs()));
            let trace = sum_up(&diag);
            let underflow = 4.0 * n as f64 * (2.0 * (n + 2) as f64 + max_diag) * f64::MIN_POSITIVE;
            return sum_up(&[
                mu,
                2.0 * UNIT_ROUNDOFF * max_diag,
                sum_up(&[
                    chol_factor * trace,
                    chol_factor * trace * 2.0 * UNIT_ROUNDOFF,
                ]),
                underflow,
            ]);
        }
        delta *= 4.0;
    }
    gershgorin_up(m, n)
}

impl Problem {
    /// A certified upper bound on `max <C, Y> s.t. diag(Y) = 1, Y psd`, hence on
    /// `max y^T C y` over signs, from a factor `V` (`k x n`, e.g.
    /// [`FittedMixing::v`](crate::FittedMixing::v)). Valid for any `V`, including in
    /// floating point; tight (to rounding terms of order `n u sum_ij |C_ij|`, `u = 2^-53`)
    /// when `V` is optimal.
    ///
    /// # The bound and why it is rigorous
    /// With `lambda_i = C_ii + ||sum_{j != i} C_ij v_j||` (computed in floating point: any
    /// `lambda` gives a valid bound, so its rounding does not matter) and
    /// `M = C - Diag(lambda)`, weak duality gives
    /// `<C, Y> <= sum_i lambda_i + n lambda_max(M)` for every feasible `Y`. The returned
    /// value bounds the right-hand side from above in exact arithmetic:
    ///
    /// - `lambda_max(M)` is not taken from the eigenvalue solver, whose error has no
    ///   proven bound here: the solver's largest eigenvalue is only a guess `mu`, then a
    ///   floating-point Cholesky factorization of `mu I - M` that runs to completion
    ///   proves `lambda_max(M) <= mu + gamma_{n+1} / (1 - gamma_{n+1}) tr(mu I - M) +
    ///   2 u max_i |mu - M_ii|` (+ an underflow term), `u = 2^-53`, `gamma_k = k u / (1 -
    ///   k u)` (Higham's backward error of Cholesky, Thm. 10.3; Rump, BIT 2006). If it
    ///   breaks down, `mu` is widened; as a last resort the Gershgorin bound is used.
    /// - `M` is formed in floating point: its diagonal `C_ii - lambda_i` is off by at most
    ///   `2 u |M_ii|`, added to the eigenvalue bound. For `C = G G^T` the dense `C` comes
    ///   from a matrix product, off by at most `2 gamma_{m+n+1} sum_i ||G_i||^2` in 2-norm,
    ///   also added. A dense or sparse `C` is copied exactly.
    /// - every sum (`sum_i lambda_i`, `n lambda_max`, the terms above) is rounded up by
    ///   `2 gamma_{k+1}` times the sum of the absolute values of its `k` terms.
    ///
    /// Finally an allowance for the rounding of the values this crate computes is added:
    /// `4 gamma_{2n+1} sum_ij |C_ij|` (or `4 gamma_{2n+m+1} (sum_i ||G_i||)^2` for
    /// `C = G G^T`), which bounds the error of `y^T C y` as evaluated by
    /// [`Problem::value`], the fits and [`Problem::solve_exact`]. So `value(y) <= dual_bound(V)` for every sign
    /// vector `y` and every `V`, also when the SDP and the integer optimum coincide
    /// (e.g. `n = 2`), where a bound without that allowance can lie a few units of
    /// rounding below a computed value. The added terms are of order
    /// `n u sum_ij |C_ij|`: the allowance alone is about `2e-13` of the SDP value for
    /// max-cut of G(200, 0.05) and `1e-12` for a dense Gaussian `C` at `n = 200` (`1e-12`
    /// and `1e-11` at `n = 1000`); a `V` short of the optimum widens the gap further (see
    /// the module docs).
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] if `V` does not have `n` columns or has no rows,
    /// [`bl_core::BlError::NonFinite`], [`MaxcutError::TooLargeForExact`] for
    /// `n > MAX_DUAL_BOUND_N`, [`bl_core::BlError::Numerical`] if the eigenvalue solver
    /// fails or the bound is not finite (input too large), and
    /// [`bl_core::BlError::InvalidParameter`] if `k x n` values cannot be allocated.
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
        let mut vv = bl_core::limits::try_zeroed::<f64>("V", &[k, n])?;
        for i in 0..n {
            for r in 0..k {
                let value = v[(r, i)];
                if !value.is_finite() {
                    return Err(non_finite("V", r + i * k, value));
                }
                vv[r + i * k] = value;
            }
        }
        let view = self.view();
        let c = view.dense_copy()?;
        let allowance = evaluation_allowance(view, &c);
        // VC = V C (k x n): column i is sum_j C_ji v_j = sum_j C_ij v_j.
        let mut vc = bl_core::limits::try_zeroed::<f64>("V C", &[k, n])?;
        product(
            MatMut::from_column_major_slice_mut(&mut vc, k, n),
            Accum::Replace,
            MatRef::from_column_major_slice(&vv, k, n),
            MatRef::from_column_major_slice(&c, n, n),
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
        if let Some(bad) = lambda.iter().find(|l| !l.is_finite()) {
            return Err(numerical(
                "dual bound",
                format!("lambda = {bad}; rescale the input"),
            ));
        }
        let mut m = c;
        for i in 0..n {
            m[i + i * n] -= lambda[i];
        }
        let m_mat = MatRef::from_column_major_slice(&m, n, n);
        // On the calling thread, so that the bound does not change with the pool's size
        // (faer's own eigensolver splits sums by it).
        let eigenvalues = bl_core::linalg::symmetric_eigenvalues(m_mat, "dual bound")?;
        let guess = eigenvalues.last().copied().unwrap_or(0.0);
        let frobenius = m_mat.norm_l2();
        let max_m_diag = (0..n).fold(0.0f64, |x, i| x.max(m[i + i * n].abs()));
        let lambda_max = sum_up(&[
            lambda_max_up(&m, n, guess, frobenius),
            2.0 * UNIT_ROUNDOFF * max_m_diag,
            forming_error(view),
        ]);
        let scaled = n as f64 * lambda_max;
        let bound = sum_up(&[
            sum_up(&lambda),
            scaled,
            2.0 * UNIT_ROUNDOFF * scaled.abs(),
            allowance,
        ]);
        if bound.is_finite() {
            Ok(bound)
        } else {
            Err(numerical("dual bound", format!("bound = {bound}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Q diag(eigs) Q^T` for a Householder `Q = I - 2 w w^T / ||w||^2`.
    fn with_eigenvalues(eigs: &[f64]) -> Vec<f64> {
        let n = eigs.len();
        let w: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * 0.37).collect();
        let ww = dot(&w, &w);
        let q = |i: usize, j: usize| f64::from(u8::from(i == j)) - 2.0 * w[i] * w[j] / ww;
        let mut m = vec![0.0; n * n];
        for j in 0..n {
            for i in 0..n {
                m[i + j * n] = (0..n).map(|l| q(i, l) * eigs[l] * q(j, l)).sum();
            }
        }
        // Exactly symmetric.
        for j in 0..n {
            for i in 0..j {
                m[i + j * n] = m[j + i * n];
            }
        }
        m
    }

    #[test]
    fn the_verified_shift_is_above_and_close_to_lambda_max() {
        let eigs = [-3.0, -1.0, 0.5, 2.0, 2.0, 7.25];
        let n = eigs.len();
        let m = with_eigenvalues(&eigs);
        let frobenius = m.iter().map(|x| x * x).sum::<f64>().sqrt();
        // From an exact guess, one below and one far below: always above 7.25, and close
        // to it (a Gershgorin fallback would be far above).
        for guess in [7.25, 7.25 - 1e-9, 0.0] {
            let bound = lambda_max_up(&m, n, guess, frobenius);
            assert!(bound >= 7.25, "guess {guess}: {bound}");
            assert!(bound <= 4.0 * 7.25 + 1.0, "guess {guess}: {bound}");
        }
        let tight = lambda_max_up(&m, n, 7.25, frobenius);
        assert!(tight - 7.25 <= 1e-12, "{tight}");
        // A guess the Cholesky factorization cannot verify (not finite) falls back to
        // Gershgorin, still an upper bound.
        let fallback = lambda_max_up(&m, n, f64::NAN, frobenius);
        assert!(fallback >= gershgorin_up(&m, n) - 1e-12 && fallback >= 7.25);
    }

    #[test]
    fn sums_are_rounded_up() {
        // 1 + 2^-53 + 2^-53 rounds to 1 in floating point; the exact sum is above.
        let tiny = f64::EPSILON / 2.0;
        let terms = [1.0, tiny, tiny];
        assert_eq!(terms.iter().sum::<f64>(), 1.0);
        assert!(sum_up(&terms) > 1.0);
        assert!(sum_up(&terms) - 1.0 < 1e-14);
    }

    #[test]
    fn cholesky_completes_exactly_on_positive_definite_matrices() {
        let pd = with_eigenvalues(&[1.0, 2.0, 3.0]);
        assert!(cholesky_completes(&mut pd.clone(), 3));
        let indefinite = with_eigenvalues(&[-1.0, 2.0, 3.0]);
        assert!(!cholesky_completes(&mut indefinite.clone(), 3));
    }
}
