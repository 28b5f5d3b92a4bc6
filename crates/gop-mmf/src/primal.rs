//! The primal problem: `x` fixed, `theta` free (Sec. 3.2 of the paper).
//!
//! For fixed `x` (`M x K`) problem (2) separates over the samples `n`:
//!
//! ```text
//! min_{theta_n}  ||y_n - x theta_n||^2   s.t.  1^T theta_n = 1,  theta_n >= 0,
//! ```
//!
//! a convex QP on the simplex (unnumbered in the paper). With the Lagrangian
//! `||y_n - x theta_n||^2 + lambda_n (1^T theta_n - 1) - mu_n^T theta_n` (`mu_n >= 0`; the
//! paper's eq. (3) writes `-lambda_n`), the KKT conditions are
//!
//! ```text
//! stationarity     2 x^T (x theta_n - y_n) + lambda_n 1 - mu_n = 0
//! feasibility      1^T theta_n = 1,  theta_n >= 0,  mu_n >= 0
//! compl. slackness mu_kn theta_kn = 0.
//! ```
//!
//! [`solve_sample`] solves it exactly for small `K` by enumerating supports `S` (smallest
//! first): on a support, stationarity and `1^T theta = 1` form the bordered linear system
//! `[2 G_SS, 1; 1^T, 0] [theta_S; lambda] = [2 c_S; 1]` with `G = x^T x`, `c = x^T y_n`,
//! which is nonsingular exactly when the columns `x_S` are affinely independent; the first
//! support whose solution has `theta_S >= 0` and `mu >= 0` off the support is a KKT point,
//! hence optimal (the problem is convex). Some optimal point always has an affinely
//! independent support (Caratheodory), so the enumeration never misses the optimum.
//!
//! The multipliers are exact: `mu = 2 G theta - 2 c + lambda 1` (zero on the support up to
//! rounding, clamped at zero), so every qualifying constraint of [`crate::lagrangian`]
//! passes through the current `x`.

use bl_core::error::build::shape_mismatch;
use bl_core::limits;
use bl_core::params::invalid;

use crate::error::{GopError, Result};

/// Largest number of components `K` the exact primal accepts (it enumerates `2^K - 1`
/// supports).
pub const MAX_COMPONENTS: usize = 12;

/// Relative KKT tolerance for accepting a support.
const KKT_TOL: f64 = 1e-9;

/// Largest relative KKT violation accepted when no support meets [`KKT_TOL`].
const KKT_FALLBACK_TOL: f64 = 1e-6;

/// The solution of the primal problem for one sample, with its KKT multipliers.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleSolution {
    /// `theta_n` on the simplex (length `K`).
    pub theta: Vec<f64>,
    /// Multiplier of `1^T theta_n = 1`.
    pub lambda: f64,
    /// Multipliers of `theta_n >= 0` (length `K`, all `>= 0`).
    pub mu: Vec<f64>,
    /// `||y_n - x theta_n||^2`.
    pub objective: f64,
    /// Indices `k` with `theta_kn` free (the support found).
    pub support: Vec<usize>,
}

/// The primal solution for all samples at one `x`.
#[derive(Debug, Clone, PartialEq)]
pub struct PrimalSolution {
    /// Number of features `M`.
    pub m: usize,
    /// Number of components `K`.
    pub k: usize,
    /// Number of samples `N`.
    pub n: usize,
    /// `theta` (`K x N`, column-major: entry `(k, n)` at `n * K + k`).
    pub theta: Vec<f64>,
    /// `lambda_n` (length `N`).
    pub lambda: Vec<f64>,
    /// `mu` (`K x N`, column-major).
    pub mu: Vec<f64>,
    /// Residual `r = y - x theta` (`M x N`, column-major).
    pub residual: Vec<f64>,
    /// `||y - x theta||_F^2`, the primal value (an upper bound of problem (2)).
    pub objective: f64,
}

/// Gram matrix `G = x^T x` (`K x K`, row-major) of a column-major `M x K` matrix.
fn gram(x: &[f64], m: usize, k: usize) -> Vec<f64> {
    let mut g = vec![0.0; k * k];
    for a in 0..k {
        for b in a..k {
            let v: f64 = (0..m).map(|j| x[a * m + j] * x[b * m + j]).sum();
            g[a * k + b] = v;
            g[b * k + a] = v;
        }
    }
    g
}

/// Solves the dense system `a z = rhs` (size `s`, row-major) by Gaussian elimination with
/// partial pivoting; `None` when a pivot is below `tiny`.
fn solve_dense(mut a: Vec<f64>, mut rhs: Vec<f64>, s: usize, tiny: f64) -> Option<Vec<f64>> {
    for col in 0..s {
        let piv =
            (col..s).max_by(|&i, &j| a[i * s + col].abs().total_cmp(&a[j * s + col].abs()))?;
        if a[piv * s + col].abs() <= tiny {
            return None;
        }
        if piv != col {
            for t in 0..s {
                a.swap(col * s + t, piv * s + t);
            }
            rhs.swap(col, piv);
        }
        let d = a[col * s + col];
        for i in col + 1..s {
            let f = a[i * s + col] / d;
            if f != 0.0 {
                for t in col..s {
                    a[i * s + t] -= f * a[col * s + t];
                }
                rhs[i] -= f * rhs[col];
            }
        }
    }
    let mut z = vec![0.0; s];
    for i in (0..s).rev() {
        let tail: f64 = (i + 1..s).map(|t| a[i * s + t] * z[t]).sum();
        z[i] = (rhs[i] - tail) / a[i * s + i];
    }
    Some(z)
}

/// Solves the primal problem for one sample given `G = x^T x` (row-major `K x K`),
/// `c = x^T y_n` and the data needed to evaluate the residual.
fn solve_with_gram(
    x: &[f64],
    m: usize,
    k: usize,
    g: &[f64],
    y: &[f64],
    sample: usize,
) -> Result<SampleSolution> {
    let c: Vec<f64> = (0..k)
        .map(|a| (0..m).map(|j| x[a * m + j] * y[j]).sum())
        .collect();
    let gmax = g.iter().fold(0.0_f64, |acc, v| acc.max(v.abs()));
    let cmax = c.iter().fold(0.0_f64, |acc, v| acc.max(v.abs()));
    let scale = 1.0_f64.max(2.0 * gmax).max(2.0 * cmax);
    let tiny = 1e-12 * scale;

    // Supports ordered by size, then lexicographically by bit mask.
    let mut masks: Vec<u32> = (1..(1u32 << k)).collect();
    masks.sort_by_key(|mask| (mask.count_ones(), *mask));

    let mut best: Option<(f64, Vec<f64>, f64, Vec<usize>)> = None;
    for mask in masks {
        let support: Vec<usize> = (0..k).filter(|&a| mask & (1 << a) != 0).collect();
        let s = support.len();
        let dim = s + 1;
        let mut a = vec![0.0; dim * dim];
        let mut rhs = vec![0.0; dim];
        for (p, &ka) in support.iter().enumerate() {
            for (q, &kb) in support.iter().enumerate() {
                a[p * dim + q] = 2.0 * g[ka * k + kb];
            }
            a[p * dim + s] = 1.0;
            a[s * dim + p] = 1.0;
            rhs[p] = 2.0 * c[ka];
        }
        rhs[s] = 1.0;
        let Some(z) = solve_dense(a, rhs, dim, tiny) else {
            continue;
        };
        let lambda = z[s];
        let mut theta = vec![0.0; k];
        for (p, &ka) in support.iter().enumerate() {
            theta[ka] = z[p];
        }
        let mu = multipliers(g, &c, &theta, lambda, k);
        let theta_viol = support.iter().map(|&a| -theta[a]).fold(0.0, f64::max);
        let mu_viol = (0..k)
            .filter(|a| !support.contains(a))
            .map(|a| -mu[a] / scale)
            .fold(0.0, f64::max);
        let viol = theta_viol.max(mu_viol);
        if viol <= KKT_TOL {
            return Ok(finish(x, m, k, g, &c, y, theta, lambda, support));
        }
        if best.as_ref().is_none_or(|b| viol < b.0) {
            best = Some((viol, theta, lambda, support));
        }
    }
    match best {
        Some((viol, theta, lambda, support)) if viol <= KKT_FALLBACK_TOL => {
            Ok(finish(x, m, k, g, &c, y, theta, lambda, support))
        }
        other => Err(GopError::Primal {
            sample,
            violation: other.map_or(f64::INFINITY, |b| b.0),
        }),
    }
}

/// `mu = 2 G theta - 2 c + lambda 1`.
fn multipliers(g: &[f64], c: &[f64], theta: &[f64], lambda: f64, k: usize) -> Vec<f64> {
    (0..k)
        .map(|a| {
            let gt: f64 = (0..k).map(|b| g[a * k + b] * theta[b]).sum();
            2.0 * gt - 2.0 * c[a] + lambda
        })
        .collect()
}

/// Cleans an accepted KKT point: `theta` clamped to the simplex, `lambda` refitted on the
/// support, `mu` recomputed from stationarity and clamped at zero.
fn finish(
    x: &[f64],
    m: usize,
    k: usize,
    g: &[f64],
    c: &[f64],
    y: &[f64],
    mut theta: Vec<f64>,
    lambda: f64,
    support: Vec<usize>,
) -> SampleSolution {
    for t in theta.iter_mut() {
        *t = t.max(0.0);
    }
    let sum: f64 = theta.iter().sum();
    if sum > 0.0 {
        for t in theta.iter_mut() {
            *t /= sum;
        }
    } else {
        theta[support[0]] = 1.0;
    }
    // lambda from stationarity on the support: lambda = -(2 G theta - 2 c)_k, averaged.
    let grad: Vec<f64> = multipliers(g, c, &theta, 0.0, k);
    let lambda_fit = if support.is_empty() {
        lambda
    } else {
        -support.iter().map(|&a| grad[a]).sum::<f64>() / support.len() as f64
    };
    let mu: Vec<f64> = grad.iter().map(|v| (v + lambda_fit).max(0.0)).collect();
    let objective: f64 = (0..m)
        .map(|j| {
            let fit: f64 = (0..k).map(|a| x[a * m + j] * theta[a]).sum();
            (y[j] - fit).powi(2)
        })
        .sum();
    let mut support = support;
    support.retain(|&a| theta[a] > 0.0);
    SampleSolution {
        theta,
        lambda: lambda_fit,
        mu,
        objective,
        support,
    }
}

fn check_shapes(x_len: usize, m: usize, k: usize) -> Result<()> {
    if !(1..=MAX_COMPONENTS).contains(&k) {
        return Err(invalid("k", k, "between 1 and 12 for the exact primal").into());
    }
    // Checked: `m * k` may overflow for a caller-given `m`.
    let mk = limits::buffer_len("M x K", &[m, k])?;
    if x_len != mk {
        return Err(shape_mismatch(
            "x",
            format!("{m} x {k} ({mk} values)"),
            format!("{x_len} values"),
        ));
    }
    Ok(())
}

/// Checks the shapes of `x` (`M x K`), `y` (`M x N`) and, when given, `theta` (`K x N`),
/// every product checked ([`limits::buffer_len`]).
fn check_problem(
    x: &[f64],
    y: &[f64],
    theta: Option<&[f64]>,
    (m, k, n): (usize, usize, usize),
) -> Result<()> {
    check_shapes(x.len(), m, k)?;
    bl_core::error::ensure_len("y", limits::buffer_len("M x N", &[m, n])?, y.len())?;
    if let Some(theta) = theta {
        bl_core::error::ensure_len("theta", limits::buffer_len("K x N", &[k, n])?, theta.len())?;
    }
    Ok(())
}

/// Solves the primal problem for one sample `y_n` (length `M`) at `x` (`M x K`, column-major).
///
/// ```
/// use gop_mmf::primal::solve_sample;
/// // x = [0, -1] (M = 1, K = 2), y_n = -0.5: theta = (1/2, 1/2) fits exactly.
/// let s = solve_sample(&[0.0, -1.0], 1, 2, &[-0.5])?;
/// assert!(s.objective < 1e-24);
/// assert!((s.theta[0] - 0.5).abs() < 1e-12);
/// # Ok::<(), gop_mmf::GopError>(())
/// ```
///
/// # Errors
/// Shapes, non-finite input, `K` outside `1..=12`, or no KKT point within tolerance.
pub fn solve_sample(x: &[f64], m: usize, k: usize, y: &[f64]) -> Result<SampleSolution> {
    check_shapes(x.len(), m, k)?;
    bl_core::error::ensure_len("solve_sample: y", m, y.len())?;
    bl_core::error::ensure_finite("x", x)?;
    bl_core::error::ensure_finite("y", y)?;
    let g = gram(x, m, k);
    solve_with_gram(x, m, k, &g, y, 0)
}

/// Solves the primal problem for every sample: `y` is `M x N` column-major, `x` is
/// `M x K` column-major.
///
/// # Errors
/// As [`solve_sample`]; [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
/// when a product of `m`, `k` and `n` overflows or exceeds [`limits::MAX_ELEMENTS`]
/// (checked before anything is allocated: with `M = 0` the data are empty whatever `N`
/// is).
pub fn solve_primal(x: &[f64], y: &[f64], m: usize, k: usize, n: usize) -> Result<PrimalSolution> {
    check_problem(x, y, None, (m, k, n))?;
    bl_core::error::ensure_finite("x", x)?;
    bl_core::error::ensure_finite("y", y)?;
    let g = gram(x, m, k);
    let mut out = PrimalSolution {
        m,
        k,
        n,
        theta: limits::try_zeroed("theta (K x N)", &[k, n])?,
        lambda: limits::try_zeroed("lambda (N)", &[n])?,
        mu: limits::try_zeroed("mu (K x N)", &[k, n])?,
        residual: limits::try_zeroed("residual (M x N)", &[m, n])?,
        objective: 0.0,
    };
    for s in 0..n {
        let yn = &y[s * m..(s + 1) * m];
        let sol = solve_with_gram(x, m, k, &g, yn, s)?;
        for j in 0..m {
            let fit: f64 = (0..k).map(|a| x[a * m + j] * sol.theta[a]).sum();
            out.residual[s * m + j] = yn[j] - fit;
        }
        out.theta[s * k..(s + 1) * k].copy_from_slice(&sol.theta);
        out.mu[s * k..(s + 1) * k].copy_from_slice(&sol.mu);
        out.lambda[s] = sol.lambda;
        out.objective += sol.objective;
    }
    Ok(out)
}

/// The objective `||y - x theta||_F^2` of problem (2) at `(x, theta)` (column-major:
/// `x` is `M x K`, `theta` is `K x N`, `y` is `M x N`).
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when a slice does not have
/// its shape's length, [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
/// for `k` outside `1..=12` or a product of the sizes that overflows or exceeds
/// [`limits::MAX_ELEMENTS`].
pub fn objective(x: &[f64], theta: &[f64], y: &[f64], m: usize, k: usize, n: usize) -> Result<f64> {
    check_problem(x, y, Some(theta), (m, k, n))?;
    let mut total = 0.0;
    for s in 0..n {
        for j in 0..m {
            let fit: f64 = (0..k).map(|a| x[a * m + j] * theta[s * k + a]).sum();
            total += (y[s * m + j] - fit).powi(2);
        }
    }
    Ok(total)
}
