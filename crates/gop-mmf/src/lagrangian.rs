//! The linearized Lagrangian and the qualifying constraints at one iterate (Sec. 3.3).
//!
//! At the iterate `x^t` with primal solution `theta^t`, multipliers `lambda^t, mu^t >= 0`
//! and residual `r^t = y - x^t theta^t`, convexity of `||y - w||^2` in `w = x theta` gives,
//! for every `(x, theta)` with `theta_n` on the simplex,
//!
//! ```text
//! ||y - x theta||^2 >= L_t(x, theta)
//!   := sum_n [ ||r_n||^2 - 2 r_n^T (x theta_n - x^t theta^t_n)
//!              + lambda_n (1^T theta_n - 1) - mu_n^T theta_n ]                 (7)
//!    = c_t + sum_{k,n} theta_kn g_kn(x),
//! c_t    = sum_n ( ||r_n||^2 + 2 r_n^T x^t theta^t_n - lambda_n ),
//! g_kn(x) = lambda_n - mu_kn - 2 sum_j r_jn x_jk                                 (8)
//! ```
//!
//! (the multiplier terms are `<= 0` on the simplex). `L_t` is bilinear: affine in `x` for
//! fixed `theta` and linear in `theta` for fixed `x`, with the qualifying constraints
//! `g_kn` as coefficients. By stationarity of the primal, `g_kn(x^t) = 0` for every
//! `(k, n)`: all qualifying hyperplanes pass through `x^t` (a central arrangement). Relaxing
//! the simplex to the box `0 <= theta_kn <= 1` gives the lower-bounding function
//!
//! ```text
//! phi_t(x) = min_{theta in [0,1]^{K x N}} L_t(x, theta) = c_t + sum_{k,n} min(0, g_kn(x)),
//! ```
//!
//! valid for every feasible `x` and tight at `x^t` (`phi_t(x^t) = ||r^t||^2`, because
//! `lambda_n = 2 (x^t theta^t_n)^T r_n` at a KKT point). On a cell of the arrangement the
//! signs of all `g_kn` are fixed, the minimizing `theta^B_kn` is `1` where `g_kn < 0` and
//! `0` elsewhere, and `phi_t` is affine: these are the Lagrangian rows of the relaxed duals.

use crate::error::Result;
use crate::primal::PrimalSolution;

/// Checks that `x` (`M x K`) and the parts of `primal` have the lengths its `m`, `k`, `n`
/// give (`theta` and `mu` `K x N`, `lambda` `N`, `residual` `M x N`): what the builders
/// index.
fn check_point(x: &[f64], primal: &PrimalSolution) -> Result<()> {
    use bl_core::error::ensure_len;
    use bl_core::limits::buffer_len;
    let (m, k, n) = (primal.m, primal.k, primal.n);
    ensure_len(
        "Lagrangian: x (M x K)",
        buffer_len("M x K", &[m, k])?,
        x.len(),
    )?;
    let kn = buffer_len("K x N", &[k, n])?;
    ensure_len("Lagrangian: primal.theta (K x N)", kn, primal.theta.len())?;
    ensure_len("Lagrangian: primal.mu (K x N)", kn, primal.mu.len())?;
    ensure_len("Lagrangian: primal.lambda (N)", n, primal.lambda.len())?;
    let mn = buffer_len("M x N", &[m, n])?;
    ensure_len(
        "Lagrangian: primal.residual (M x N)",
        mn,
        primal.residual.len(),
    )?;
    Ok(())
}

/// How the Lagrangian is linearized to make the qualifying constraints affine in `x`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Linearization {
    /// The tangent of `||y - w||^2` in the product `w = x theta` (this crate's choice,
    /// [`Lagrangian::at`]): a lower bound of the objective for every `x`, and `g_kn`
    /// involves only column `k` of `x`.
    #[default]
    Product,
    /// The paper's construction: linearized in `x` about `x^t` (eq. (6)), then in `theta`
    /// about `theta^t`, with the gradient (8) and App. A's expansion (20) in place of the
    /// printed eq. (7) ([`Lagrangian::paper_at`]). Not a valid lower bound in general; kept
    /// to measure what the paper's construction does.
    Paper,
}

/// An affine function `g(x) = a^T x + b` of the flattened `x` (`M x K` column-major, entry
/// `(j, k)` at `k * M + j`), with a sparse `a`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Affine {
    /// `(flat index, coefficient)` pairs of `a`.
    pub coeffs: Vec<(usize, f64)>,
    /// The offset `b`.
    pub offset: f64,
}

/// `sum a x_i` over the `(i, a)` pairs, with `x_i = 0` beyond the end of `x`.
fn sparse_dot(coeffs: &[(usize, f64)], x: &[f64]) -> f64 {
    coeffs
        .iter()
        .map(|&(i, a)| a * x.get(i).copied().unwrap_or(0.0))
        .sum()
}

impl Affine {
    /// `g(x)`.
    #[must_use]
    pub fn eval(&self, x: &[f64]) -> f64 {
        self.offset + sparse_dot(&self.coeffs, x)
    }

    /// `||a||_2`.
    #[must_use]
    pub fn norm(&self) -> f64 {
        self.coeffs.iter().map(|&(_, a)| a * a).sum::<f64>().sqrt()
    }

    /// `||a||_inf`.
    #[must_use]
    pub fn max_abs(&self) -> f64 {
        self.coeffs.iter().fold(0.0, |m, &(_, a)| m.max(a.abs()))
    }
}

/// One qualifying constraint `g_kn` of eq. (8).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Qualifying {
    /// Component `k`.
    pub component: usize,
    /// Sample `n`.
    pub sample: usize,
    /// `g_kn(x) = lambda_n - mu_kn - 2 r_n^T x_{.k}`.
    pub g: Affine,
}

/// The linearized Lagrangian `L_t = c_t + s_t^T x + sum theta_kn g_kn(x)` at one iterate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Lagrangian {
    /// The constant `c_t`.
    pub constant: f64,
    /// The `theta`-free part that depends on `x`, `s_t^T x` as `(flat index, coefficient)`
    /// pairs in increasing index order: empty for [`Linearization::Product`], the term
    /// `-2 sum_n theta^t_n^T x^T x^t theta^t_n` of eq. (7) for [`Linearization::Paper`].
    pub slope: Vec<(usize, f64)>,
    /// The qualifying constraints, ordered by sample then component.
    pub qualifying: Vec<Qualifying>,
}

impl Lagrangian {
    /// Builds eqs. (7)-(8) from the primal solution at `x` (`M x K` column-major).
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (in [`crate::GopError::Core`]) when `x` or a part of
    /// `primal` does not have the length `primal.m`, `primal.k`, `primal.n` give;
    /// `BlError::InvalidParameter` when such a length exceeds
    /// [`bl_core::limits::MAX_ELEMENTS`].
    pub fn at(x: &[f64], primal: &PrimalSolution) -> Result<Self> {
        check_point(x, primal)?;
        let (m, k, n) = (primal.m, primal.k, primal.n);
        let mut constant = 0.0;
        let mut qualifying = Vec::with_capacity(k * n);
        for s in 0..n {
            let r = &primal.residual[s * m..(s + 1) * m];
            let rr: f64 = r.iter().map(|v| v * v).sum();
            // r_n^T x^t theta^t_n
            let rw: f64 = (0..m)
                .map(|j| {
                    r[j] * (0..k)
                        .map(|a| x[a * m + j] * primal.theta[s * k + a])
                        .sum::<f64>()
                })
                .sum();
            let lambda = primal.lambda[s];
            constant += rr + 2.0 * rw - lambda;
            for a in 0..k {
                let coeffs: Vec<(usize, f64)> = (0..m)
                    .filter(|&j| r[j] != 0.0)
                    .map(|j| (a * m + j, -2.0 * r[j]))
                    .collect();
                qualifying.push(Qualifying {
                    component: a,
                    sample: s,
                    g: Affine {
                        coeffs,
                        offset: lambda - primal.mu[s * k + a],
                    },
                });
            }
        }
        Ok(Self {
            constant,
            slope: Vec::new(),
            qualifying,
        })
    }

    /// Builds the paper's linearization at `x^t` (eqs. (6), (8) and App. A's (20)): the
    /// Lagrangian (3) linearized in `x` about `x^t`, then in `theta_n` about `theta^t_n`.
    /// With this crate's sign of `lambda` (`+lambda_n (1^T theta_n - 1)`; the paper writes
    /// `-lambda_n`), residual `r_n = y_n - x^t theta^t_n` and `w_n = x^t theta^t_n`:
    ///
    /// ```text
    /// L_t(x, theta) = sum_n [ y_n^T y_n + ||w_n||^2 - 2 w_n^T x theta^t_n - lambda_n ]
    ///                 + sum_{k,n} theta_kn g_kn(x),                                (20)
    /// g_kn(x) = -2 x_{.k}^T r_n + 2 x^t_{.k}^T (x - x^t) theta^t_n + lambda_n - mu_kn.  (8)
    /// ```
    ///
    /// This is the Taylor expansion (20) of (6) in `theta`, whose gradient is (8). Eq. (7)
    /// and App. A's (21) as printed contain `-2 theta^t_n^T x^t^T x theta_n` where the
    /// expansion has `-2 theta^t_n^T x^t^T x^t theta_n`; with that term the gradient in
    /// `theta_n` would not be (8). We read it as a misprint; the printed (7) is not
    /// implemented, and its effect is not measured.
    ///
    /// Unlike [`Lagrangian::at`], `g_kn` involves every column of `x` (through
    /// `x theta^t_n`), and `L_t` is **not** a lower bound of (3) everywhere: the
    /// linearization in `theta` is taken of (6), which is not convex in `theta` away from
    /// `x^t` (the paper's App. A.1 notes that `2 x^t^T x - x^t^T x^t` may be indefinite).
    /// It exists to compare with the paper (the number of cells, and how often the bound
    /// fails); `GopParams::linearization` selects it.
    ///
    /// # Errors
    /// As [`Lagrangian::at`].
    pub fn paper_at(x: &[f64], primal: &PrimalSolution) -> Result<Self> {
        check_point(x, primal)?;
        let (m, k, n) = (primal.m, primal.k, primal.n);
        let mut constant = 0.0;
        let mut slope = vec![0.0; m * k];
        let mut qualifying = Vec::with_capacity(k * n);
        for s in 0..n {
            let r = &primal.residual[s * m..(s + 1) * m];
            let th = &primal.theta[s * k..(s + 1) * k];
            // w_n = x^t theta^t_n and y_n = r_n + w_n.
            let w: Vec<f64> = (0..m)
                .map(|j| (0..k).map(|a| x[a * m + j] * th[a]).sum())
                .collect();
            let yy: f64 = r.iter().zip(&w).map(|(a, b)| (a + b) * (a + b)).sum();
            let ww: f64 = w.iter().map(|v| v * v).sum();
            let lambda = primal.lambda[s];
            constant += yy + ww - lambda;
            for a in 0..k {
                for j in 0..m {
                    slope[a * m + j] -= 2.0 * th[a] * w[j];
                }
            }
            for c in 0..k {
                // Coefficient of x_{ja}: 2 theta^t_an x^t_jc, plus -2 r_jn when a = c.
                let mut coeffs = Vec::with_capacity(m * k);
                for a in 0..k {
                    for j in 0..m {
                        let mut v = 2.0 * th[a] * x[c * m + j];
                        if a == c {
                            v -= 2.0 * r[j];
                        }
                        if v != 0.0 {
                            coeffs.push((a * m + j, v));
                        }
                    }
                }
                // Offset: -2 x^t_{.c}^T w_n + lambda_n - mu_cn.
                let xw: f64 = (0..m).map(|j| x[c * m + j] * w[j]).sum();
                qualifying.push(Qualifying {
                    component: c,
                    sample: s,
                    g: Affine {
                        coeffs,
                        offset: -2.0 * xw + lambda - primal.mu[s * k + c],
                    },
                });
            }
        }
        Ok(Self {
            constant,
            slope: slope
                .into_iter()
                .enumerate()
                .filter(|&(_, v)| v != 0.0)
                .collect(),
            qualifying,
        })
    }

    /// Builds the Lagrangian of the chosen linearization at `x`.
    ///
    /// # Errors
    /// As [`Lagrangian::at`].
    pub fn build(linearization: Linearization, x: &[f64], primal: &PrimalSolution) -> Result<Self> {
        match linearization {
            Linearization::Product => Self::at(x, primal),
            Linearization::Paper => Self::paper_at(x, primal),
        }
    }

    /// The `theta`-free part `c_t + s_t^T x`.
    #[must_use]
    pub fn constant_at(&self, x: &[f64]) -> f64 {
        self.constant + sparse_dot(&self.slope, x)
    }

    /// `L_t(x, theta)` for `theta` (`K x N` column-major, any values). Like `x`, `theta`
    /// reads as 0 beyond its end: a qualifying constraint whose entry
    /// `sample * k + component` lies past `theta` (or past `usize::MAX`, which a
    /// deserialized or hand-built Lagrangian may hold) adds nothing.
    #[must_use]
    pub fn eval(&self, x: &[f64], theta: &[f64], k: usize) -> f64 {
        let entry = |q: &Qualifying| {
            q.sample
                .checked_mul(k)
                .and_then(|i| i.checked_add(q.component))
                .and_then(|i| theta.get(i).copied())
                .unwrap_or(0.0)
        };
        self.constant_at(x)
            + self
                .qualifying
                .iter()
                .map(|q| entry(q) * q.g.eval(x))
                .sum::<f64>()
    }

    /// The lower-bounding function `phi_t(x) = c_t + sum min(0, g_kn(x))`.
    #[must_use]
    pub fn lower_bound(&self, x: &[f64]) -> f64 {
        self.constant_at(x)
            + self
                .qualifying
                .iter()
                .map(|q| q.g.eval(x).min(0.0))
                .sum::<f64>()
    }
}
