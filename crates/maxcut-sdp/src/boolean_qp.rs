//! Boolean quadratic programs `max z^T A z` over `z in {0, 1}^n`, by reduction to ±1 form.
//!
//! With `y = 2 z - 1` and a homogenizing sign `y_0` (the Boolean tensor paper's eq. (7)),
//! `z = (1 + y_0 y) / 2` and
//!
//! ```text
//! z^T A z = y~^T C~ y~ / 4,   y~ = (y_0, y),   C~ = [[1^T A 1, 1^T A], [A 1, A]]
//! ```
//!
//! for symmetric `A`, so the ±1 problem over `n + 1` variables is solved and mapped back
//! (the map is two-to-one: `y~` and `-y~` give the same `z`). For `A = G G^T`,
//! `C~ = G~ G~^T` with `G~ = [1^T G; G]`, so the low-rank form is kept: `C~` is formed
//! or not exactly as for [`Problem::low_rank`] (see [`LowRankMode`](crate::LowRankMode)).

use faer::MatRef;
use faer::Par;

use crate::cost::{Repr, dot};
use crate::error::{MaxcutError, Result};
use crate::exact::{MAX_EXACT_N, dense_quad, gray_binary};
use crate::input::{check_len, dense_symmetric, low_rank_factor};
use crate::problem::Problem;

/// A Boolean quadratic program `max z^T A z`, `z in {0, 1}^n`, held as its homogenized
/// ±1 problem over `n + 1` variables.
///
/// Fit it with [`crate::BqpParams`] (any [`crate::BooleanQpSolver`]; the mixing method by
/// default), or solve it exactly ([`BooleanQp::solve_exact`], `n <= 24`).
///
/// ```
/// use std::sync::Arc;
/// use faer::mat;
/// use maxcut_sdp::{BooleanQp, BqpParams, ExactBqp, Fit};
/// // z^T A z = 2 z0 + z1 - 3 z0 z1 (off-diagonal -1.5 twice): best z = (1, 0), value 2.
/// let a = mat![[2.0, -1.5], [-1.5, 1.0]];
/// let qp = BooleanQp::dense(a.as_ref())?;
/// let fitted = BqpParams::default().fit(&qp)?;
/// assert_eq!(fitted.z(), &[1.0, 0.0]);
/// assert_eq!(fitted.value(), 2.0);
/// let exact = BqpParams::default().solver(Arc::new(ExactBqp)).fit(&qp)?;
/// assert_eq!(exact.value(), 2.0);
/// assert_eq!(qp.solve_exact()?.value(), 2.0);
/// # Ok::<(), maxcut_sdp::MaxcutError>(())
/// ```
#[derive(Debug, Clone)]
pub struct BooleanQp {
    n: usize,
    homogenized: Problem,
}

impl BooleanQp {
    /// `max z^T A z` for a dense square `A` (`n x n`). `A` need not be symmetric: its
    /// symmetric part `(A + A^T) / 2` has the same quadratic form and is what is stored.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for `n = 0`, [`MaxcutError::NotSquare`],
    /// [`bl_core::BlError::NonFinite`]; [`bl_core::BlError::InvalidParameter`] if the
    /// `(n + 1) x (n + 1)` copy exceeds `2^32` values or cannot be allocated.
    pub fn dense(a: MatRef<'_, f64>) -> Result<Self> {
        let (n, a) = dense_symmetric("A", a, false)?;
        let m = n + 1;
        let mut c = bl_core::limits::try_zeroed::<f64>("(n + 1) x (n + 1)", &[m, m])?;
        let mut total = 0.0;
        for j in 0..n {
            let col = &a[j * n..(j + 1) * n];
            let sum: f64 = col.iter().sum();
            total += sum;
            c[(j + 1) * m] = sum;
            c[j + 1] = sum;
            c[(j + 1) * m + 1..(j + 2) * m].copy_from_slice(col);
        }
        c[0] = total;
        Ok(Self {
            n,
            homogenized: Problem {
                repr: Repr::Dense { n: m, c },
            },
        })
    }

    /// `max z^T G G^T z = ||G^T z||^2` for `G` of size `n x m` (`n` variables). `A` is not
    /// formed here.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for `n = 0`, [`bl_core::BlError::NonFinite`];
    /// [`bl_core::BlError::InvalidParameter`] if the `m x (n + 1)` copy exceeds `2^32`
    /// values or cannot be allocated (checked before `G` is read).
    pub fn low_rank(g: MatRef<'_, f64>) -> Result<Self> {
        let factor = low_rank_factor("G", g, true)?;
        Ok(Self {
            n: g.nrows(),
            homogenized: Problem {
                repr: Repr::LowRank(factor),
            },
        })
    }

    /// Number of Boolean variables `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The homogenized ±1 problem over `n + 1` variables (`C~` above; variable 0 is `y_0`).
    pub fn homogenized(&self) -> &Problem {
        &self.homogenized
    }

    /// `z^T A z` for `z in {0, 1}^n`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] for a wrong length; [`MaxcutError::NotDiscrete`]
    /// for entries other than `0.0` or `1.0`.
    pub fn value(&self, z: &[f64]) -> Result<f64> {
        check_len("z", self.n, z.len())?;
        if let Some(index) = z.iter().position(|&x| x != 0.0 && x != 1.0) {
            return Err(MaxcutError::NotDiscrete {
                what: "z",
                index,
                value: z[index],
                expected: "0.0 or 1.0",
            });
        }
        Ok(self.value_unchecked(z))
    }

    /// `z^T A z` for a `z` of length `n` (not validated).
    pub(crate) fn value_unchecked(&self, z: &[f64]) -> f64 {
        let n = self.n;
        match &self.homogenized.repr {
            Repr::Dense { c, .. } => {
                let m = n + 1;
                (0..n)
                    .map(|j| z[j] * dot(&c[(j + 1) * m + 1..(j + 2) * m], z))
                    .sum()
            }
            Repr::LowRank(lr) => {
                let mut u = vec![0.0; lr.m];
                for (i, &zi) in z.iter().enumerate() {
                    if zi != 0.0 {
                        for (ul, gl) in u.iter_mut().zip(lr.row(i + 1)) {
                            *ul += gl;
                        }
                    }
                }
                dot(&u, &u)
            }
            // Not built by the constructors; the reduction identity covers it anyway.
            Repr::Sparse(_) => {
                0.25 * self
                    .homogenized
                    .view()
                    .quad_form(&Self::signs_from_binary(z))
            }
        }
    }

    /// `y~ = (1, 2 z - 1)`: the homogenized signs of a 0/1 vector `z` (no validation).
    pub fn signs_from_binary(z: &[f64]) -> Vec<f64> {
        std::iter::once(1.0)
            .chain(z.iter().map(|&x| 2.0 * x - 1.0))
            .collect()
    }

    /// `z = (1 + y_0 y) / 2`: the 0/1 vector of homogenized signs `y~ = (y_0, y)`
    /// (entries `±1`, no validation; an empty input gives an empty output).
    pub fn binary_from_signs(y: &[f64]) -> Vec<f64> {
        match y.split_first() {
            Some((&y0, rest)) => rest.iter().map(|&yi| 0.5 * (1.0 + y0 * yi)).collect(),
            None => Vec::new(),
        }
    }

    /// Solves `max z^T A z` exactly by enumerating all `2^n` vectors `z` in Gray-code order
    /// (directly in 0/1 form, independent of the reduction).
    ///
    /// # Errors
    /// [`MaxcutError::TooLargeForExact`] for `n > 24`.
    pub fn solve_exact(&self) -> Result<BqpExactSolution> {
        let n = self.n;
        if n > MAX_EXACT_N {
            return Err(MaxcutError::TooLargeForExact {
                n,
                max: MAX_EXACT_N,
            });
        }
        let a = self.dense_a()?;
        let z = gray_binary(&a, n);
        let value = dense_quad(&a, n, &z);
        Ok(BqpExactSolution { z, value })
    }

    /// `A` (symmetric part) as a dense column-major `n x n` array.
    fn dense_a(&self) -> Result<Vec<f64>> {
        let n = self.n;
        match &self.homogenized.repr {
            Repr::Dense { .. } | Repr::Sparse(_) => {
                let c = self.homogenized.view().dense_copy()?;
                let m = n + 1;
                Ok((0..n)
                    .flat_map(|j| c[(j + 1) * m + 1..(j + 2) * m].iter().copied())
                    .collect())
            }
            Repr::LowRank(lr) => {
                let inner = crate::cost::LowRankFactor {
                    n,
                    m: lr.m,
                    gt: lr.gt[lr.m..].to_vec(),
                    row_sq: lr.row_sq[1..].to_vec(),
                };
                inner.form(Par::Seq)
            }
        }
    }
}

/// An optimal 0/1 vector of `max z^T A z`.
#[derive(Debug, Clone, PartialEq)]
pub struct BqpExactSolution {
    z: Vec<f64>,
    value: f64,
}

impl BqpExactSolution {
    /// An optimal `z` (entries `0.0` or `1.0`).
    pub fn z(&self) -> &[f64] {
        &self.z
    }

    /// The optimal value `z^T A z`.
    pub fn value(&self) -> f64 {
        self.value
    }
}
