//! The binary bilinear model: objective, gradients, stationarity, initialization and the
//! step-by-step solver behind [`crate::Sblr`] (Alg. 1 and Alg. 2).
//!
//! # How one iteration touches the data
//!
//! The data stay where the [`MatrixDataset`] holds them, viewed as the stacked
//! `s x (t n)` matrix `A = [X_1 ... X_n]`. One iteration reads them exactly twice:
//!
//! 1. `Z_u = [vec(X_1 V), ..., vec(X_n V)]` (`s r x n`), one product per sample into a
//!    preallocated buffer (the `X_i V` cannot be one product over `A` without a second,
//!    row-stacked copy of the data);
//! 2. `Z_v = U^T A` (`r x t n`), whose `i`-th `r x t` block is `U^T X_i`, also computed
//!    one product per sample ([`crate::passes`]); viewed as `r t x n` its columns are the
//!    features of the `V` block with the variable `vec(V^T)`.
//!
//! With `V` fixed the decision values are `f_i = <vec(U), Z_u e_i> + b`, and with `U` fixed
//! `f_i = <vec(V^T), Z_v e_i> + b`, so every backtracking trial of Alg. 2 and every inner
//! iteration of Alg. 1 works on the `O((s + t) r n)` reduced features only: the gradients
//! (12a)-(12c) are `Z_u c`, `Z_v c` and `sum_i c_i`. The solver allocates nothing after
//! [`BinarySolver`] is built; only rayon's job queue, to which each pass hands its work,
//! takes a small block now and then (about 1.5 KB per 63 passes).

mod init;
mod solver;

use bl_core::data::{Element, MatrixDataset};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};

use crate::block::entry_residual;
use crate::error::{Result, SblrError, ensure_shape};
use crate::passes::{Stacked, pool};
use bl_core::error::build::invalid;

pub(crate) use crate::error::check_rank;
pub use crate::params::Penalties;
pub use init::initial_point;
pub(crate) use init::initial_point_with;
pub(crate) use init::signed_top_pairs;
pub use solver::{BinarySolver, BinarySolverOn, StepReport};

/// The `±1` labels of a binary data set (class 1 is `+1`).
///
/// # Errors
/// [`SblrError::NotBinary`] unless there are exactly two classes;
/// [`SblrError::MissingClass`] when one class has no sample.
pub fn binary_signs<T: Element>(data: &MatrixDataset<T>) -> Result<Vec<f64>> {
    if data.n_classes() != 2 {
        return Err(SblrError::NotBinary {
            found: data.n_classes(),
        });
    }
    let counts = data.class_counts();
    if let Some(k) = counts.iter().position(|&c| c == 0) {
        return Err(SblrError::MissingClass {
            class: data.class_names()[k].clone(),
        });
    }
    Ok(data.signs()?)
}

pub(crate) fn check_signs(y: &[f64]) -> Result<()> {
    let pos = y.iter().filter(|&&v| v == 1.0).count();
    let neg = y.iter().filter(|&&v| v == -1.0).count();
    if pos + neg != y.len() {
        return Err(invalid(
            "signs",
            "a value other than ±1",
            "labels in {-1, +1}",
        ));
    }
    if pos == 0 || neg == 0 {
        return Err(SblrError::MissingClass {
            class: if pos == 0 { "+1".into() } else { "-1".into() },
        });
    }
    Ok(())
}

/// A point `(U, V, b)` of problem (4): `U` is `s x r`, `V` is `t x r`.
#[derive(Debug, Clone, Copy)]
pub struct Point<'a> {
    /// The left factor `U` (`s x r`).
    pub u: MatRef<'a, f64>,
    /// The right factor `V` (`t x r`).
    pub v: MatRef<'a, f64>,
    /// The intercept `b`.
    pub intercept: f64,
}

impl<'a> Point<'a> {
    /// The point `(U, V, b)`.
    #[must_use]
    pub fn new(u: MatRef<'a, f64>, v: MatRef<'a, f64>, intercept: f64) -> Self {
        Self { u, v, intercept }
    }
}

/// Decision values `tr(U^T X_i V) + b` of every sample, from `U^T A` over the stacked
/// data (the data pass 2 of [`crate::passes`], one product `U^T X_i` per sample).
///
/// With `r = 0` (empty factors) every decision value is `b`.
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when `U` is not `s x r` or `V` not `t x r`;
/// [`bl_core::BlError::InvalidParameter`] (as `SblrError::Core`) when the product `U^T A`
/// (`r t n` values) exceeds [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated.
pub fn decision_values<T: Element>(data: &MatrixDataset<T>, at: Point<'_>) -> Result<Vec<f64>> {
    let Point { u, v, intercept } = at;
    let (s, t) = data.shape();
    let r = u.ncols();
    ensure_shape("decision_values: U", (s, r), (u.nrows(), r))?;
    ensure_shape("decision_values: V", (t, r), (v.nrows(), v.ncols()))?;
    let n = data.n_samples();
    let stacked = Stacked::new(data.stacked(), s, t, n)?;
    if r == 0 {
        return Ok(vec![intercept; n]);
    }
    let mut p = bl_core::limits::try_zeroed("decision_values: r x t x n", &[r, t, n])?;
    let u: Vec<f64> = (0..r)
        .flat_map(|k| (0..s).map(move |a| u[(a, k)]))
        .collect();
    stacked.u_times(&u, r, &mut p, &pool(None)?);
    Ok(p.chunks_exact(r * t)
        .map(|pi| {
            let mut f = intercept;
            for (j, pj) in pi.chunks_exact(r).enumerate() {
                for (k, &pjk) in pj.iter().enumerate() {
                    f += pjk * v[(j, k)];
                }
            }
            f
        })
        .collect())
}

/// Gradients (12a)-(12c) of the loss.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradients {
    /// `grad_U = -(1/n) sum_i w_i y_i X_i V`, `s x r`.
    pub u: Mat<f64>,
    /// `grad_V = -(1/n) sum_i w_i y_i X_i^T U`, `t x r`.
    pub v: Mat<f64>,
    /// `grad_b = -(1/n) sum_i w_i y_i`.
    pub intercept: f64,
}

/// Problem (4) on one data set: the samples, their `±1` labels and the penalties. It
/// evaluates the loss, the objective, the gradients and the stationarity residual at any
/// [`Point`], sample by sample (a reference implementation, independent of the solver's
/// reduced features).
#[derive(Debug, Clone, Copy)]
pub struct Problem<'a, T: Element = f64> {
    data: &'a MatrixDataset<T>,
    y: &'a [f64],
    penalties: Penalties,
}

impl<'a, T: Element> Problem<'a, T> {
    /// Problem (4) for `data` with labels `y` (one `±1` per sample).
    ///
    /// # Errors
    /// `y` of the wrong length.
    pub fn new(data: &'a MatrixDataset<T>, y: &'a [f64], penalties: Penalties) -> Result<Self> {
        bl_core::error::ensure_len("labels y", data.n_samples(), y.len())?;
        Ok(Self { data, y, penalties })
    }

    /// The loss (3) `(1/n) sum_i log(1 + exp(-y_i (tr(U^T X_i V) + b)))`.
    ///
    /// # Errors
    /// As [`decision_values`]: shape mismatches of the point, a product `U^T A` too large
    /// to allocate.
    pub fn loss(&self, at: Point<'_>) -> Result<f64> {
        let f = decision_values(self.data, at)?;
        let n = f.len() as f64;
        Ok(f.iter()
            .zip(self.y)
            .map(|(&fi, &yi)| bl_core::logistic::log1p_exp(-yi * fi))
            .sum::<f64>()
            / n)
    }

    /// The objective of problem (4): loss plus penalties.
    ///
    /// # Errors
    /// As [`Problem::loss`].
    pub fn objective(&self, at: Point<'_>) -> Result<f64> {
        Ok(self.loss(at)? + self.penalties.value(at.u, at.v))
    }

    /// The gradients (12a)-(12c) of the loss at `at`.
    ///
    /// # Errors
    /// As [`Problem::loss`].
    pub fn gradients(&self, at: Point<'_>) -> Result<Gradients> {
        let f = decision_values(self.data, at)?;
        let n = f.len() as f64;
        let (s, t) = self.data.shape();
        let r = at.u.ncols();
        let mut gu = Mat::<f64>::zeros(s, r);
        let mut gv = Mat::<f64>::zeros(t, r);
        let mut gb = 0.0;
        for (i, (&fi, &yi)) in f.iter().zip(self.y).enumerate() {
            let c = -yi * bl_core::logistic::sigmoid(-yi * fi) / n;
            let sample = self.data.sample(i);
            let x = Mat::from_fn(s, t, |a, j| sample[(a, j)].to_f64());
            matmul(gu.as_mut(), Accum::Add, x.as_ref(), at.v, c, Par::Seq);
            matmul(gv.as_mut(), Accum::Add, x.transpose(), at.u, c, Par::Seq);
            gb += c;
        }
        Ok(Gradients {
            u: gu,
            v: gv,
            intercept: gb,
        })
    }

    /// The first-order stationarity residual `dist(0, grad + subdifferential)` at `at`:
    /// the Euclidean norm over all entries of `U`, `V` and `b` of the distance from 0 to
    /// each entry's subdifferential.
    ///
    /// # Errors
    /// As [`Problem::loss`].
    pub fn stationarity_residual(&self, at: Point<'_>) -> Result<f64> {
        let g = self.gradients(at)?;
        let p = &self.penalties;
        let mut sum = g.intercept * g.intercept;
        for (x, gx, l1, l2) in [
            (at.u, g.u.as_ref(), p.mu1, p.mu2),
            (at.v, g.v.as_ref(), p.nu1, p.nu2),
        ] {
            for j in 0..x.ncols() {
                for i in 0..x.nrows() {
                    let r = entry_residual(x[(i, j)], gx[(i, j)], l1, l2);
                    sum += r * r;
                }
            }
        }
        Ok(sum.sqrt())
    }
}
