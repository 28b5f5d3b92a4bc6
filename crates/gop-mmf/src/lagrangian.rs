//! The linearized Lagrangian and the qualifying constraints at one iterate (Sec. 3.2).
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

use crate::primal::PrimalSolution;

/// An affine function `g(x) = a^T x + b` of the flattened `x` (`M x K` column-major, entry
/// `(j, k)` at `k * M + j`), with a sparse `a`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Affine {
    /// `(flat index, coefficient)` pairs of `a`.
    pub coeffs: Vec<(usize, f64)>,
    /// The offset `b`.
    pub offset: f64,
}

impl Affine {
    /// `g(x)`.
    #[must_use]
    pub fn eval(&self, x: &[f64]) -> f64 {
        self.offset
            + self
                .coeffs
                .iter()
                .map(|&(i, a)| a * x.get(i).copied().unwrap_or(0.0))
                .sum::<f64>()
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

/// The linearized Lagrangian `L_t = c_t + sum theta_kn g_kn(x)` at one iterate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Lagrangian {
    /// The constant `c_t`.
    pub constant: f64,
    /// The qualifying constraints, ordered by sample then component.
    pub qualifying: Vec<Qualifying>,
}

impl Lagrangian {
    /// Builds eqs. (7)-(8) from the primal solution at `x` (`M x K` column-major).
    #[must_use]
    pub fn at(x: &[f64], primal: &PrimalSolution) -> Self {
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
        Self {
            constant,
            qualifying,
        }
    }

    /// `L_t(x, theta)` for `theta` (`K x N` column-major, any values).
    #[must_use]
    pub fn eval(&self, x: &[f64], theta: &[f64], k: usize) -> f64 {
        self.constant
            + self
                .qualifying
                .iter()
                .map(|q| theta[q.sample * k + q.component] * q.g.eval(x))
                .sum::<f64>()
    }

    /// The lower-bounding function `phi_t(x) = c_t + sum min(0, g_kn(x))`.
    #[must_use]
    pub fn lower_bound(&self, x: &[f64]) -> f64 {
        self.constant
            + self
                .qualifying
                .iter()
                .map(|q| q.g.eval(x).min(0.0))
                .sum::<f64>()
    }
}
