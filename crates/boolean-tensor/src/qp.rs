//! The Boolean QP behind the atom searches of BMP and LFM: `max_{z in {0,1}^n}
//! ||G^T z||^2 = z^T G G^T z` (Algorithm 2 and eq. (6) of Chang et al., with the sign
//! fixed: the paper writes `C = -G G^T` and maximizes, which would pick `z = 0`; a descent
//! atom needs the maximum of `||G^T z||`. The derivation is in `docs/papers/bmp.md`,
//! "Known traps".)
//!
//! The solver is the plug-in point [`QpSolver`], a [`bl_core::Extension`]: the built-in
//! [`MixingQp`] (default) and [`ExactQp`] implement it, and so can a user type, which is
//! set with the `solver` setter of [`crate::BmpParams`] and [`crate::LfmParams`] (an
//! `Arc<dyn QpSolver>`) and runs through the normal `fit`. Every implementation must pass
//! [`crate::conformance::conformance`], the suite the tests run on the built-in solvers
//! and on the outside example in `tests/boolean_tensor_tests/custom_qp.rs`.
//!
//! ```
//! use std::sync::Arc;
//! use bl_core::Extension;
//! use boolean_tensor::qp::{self, QpSolver};
//! use boolean_tensor::{Bmp, Fit, SyntheticParams, TensorError};
//!
//! /// 1-flip local search from every single row: flip entries while one raises
//! /// `||G^T z||^2`; the best local optimum wins.
//! #[derive(Debug)]
//! struct LocalSearch;
//!
//! impl Extension for LocalSearch {
//!     fn name(&self) -> &str { "local search" }
//! }
//!
//! impl QpSolver for LocalSearch {
//!     fn maximize(&self, g: faer::MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>, TensorError> {
//!         qp::validate_input(g)?;
//!         let n = g.nrows();
//!         let mut best = (f64::NEG_INFINITY, vec![0.0; n]);
//!         for start in 0..n {
//!             let mut z = vec![0.0; n];
//!             z[start] = 1.0;
//!             let mut value = qp::objective(g, &z)?;
//!             let mut improved = true;
//!             while improved {
//!                 improved = false;
//!                 for i in 0..n {
//!                     z[i] = 1.0 - z[i];
//!                     let flipped = qp::objective(g, &z)?;
//!                     if flipped > value * (1.0 + 1e-12) {
//!                         value = flipped;
//!                         improved = true;
//!                     } else {
//!                         z[i] = 1.0 - z[i];
//!                     }
//!                 }
//!             }
//!             if value > best.0 {
//!                 best = (value, z);
//!             }
//!         }
//!         Ok(best.1)
//!     }
//! }
//!
//! /// Takes every row: not a maximizer, and the suite says so.
//! #[derive(Debug)]
//! struct AllRows;
//!
//! impl Extension for AllRows {
//!     fn name(&self) -> &str { "all rows" }
//! }
//!
//! impl QpSolver for AllRows {
//!     fn maximize(&self, g: faer::MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>, TensorError> {
//!         qp::validate_input(g)?;
//!         Ok(vec![1.0; g.nrows()])
//!     }
//! }
//!
//! let report = boolean_tensor::conformance::conformance(&LocalSearch);
//! assert!(report.passed(), "{report}");
//! assert!(!boolean_tensor::conformance::conformance(&AllRows).passed());
//! // The user's solver runs through the normal fit.
//! let data = SyntheticParams::default().shape([8, 7, 6]).n_atoms(1).seed(4).generate()?;
//! let fitted = Bmp::params().max_iter(1).solver(Arc::new(LocalSearch)).fit(data.observed())?;
//! assert_eq!(fitted.n_atoms(), 1);
//! # Ok::<(), TensorError>(())
//! ```

use bl_core::{BlError, Extension};
use faer::MatRef;
use maxcut_sdp::{BooleanQp, BooleanQpSolver, ExactBqp, MaxcutError, MixingParams, ParamGuard};

use crate::error::Result;

/// A solver of the Boolean QP `max_{z in {0,1}^n} ||G^T z||^2` for `G` of size `n x m`.
///
/// Implemented by [`MixingQp`] and [`ExactQp`]; a user type that implements it (with
/// [`Extension`]: a name, and a `check` of its own settings, which the `check` of the
/// params holding it calls) is passed to [`crate::BmpParams::solver`] or
/// [`crate::LfmParams::solver`] and runs through the normal `fit`. It must pass
/// [`crate::conformance::conformance`]. The atom searches of one fit call the solver from
/// several threads at once (one per mode), hence `Send + Sync` (from [`Extension`]). The
/// fits check every answer: one that is not a 0/1 vector with one entry per row of `G`
/// stops the fit with [`BlError::InvalidParameter`] naming `solver`.
pub trait QpSolver: Extension {
    /// A Boolean `z` (entries `0.0` / `1.0`, length `g.nrows()`) approximately maximizing
    /// `||G^T z||^2`. `seed` seeds any random choice (the same seed gives the same `z`).
    ///
    /// # Errors
    /// A `g` the solver refuses, or a failure of the solver. [`validate_input`], the check
    /// a user solver can call, refuses a `g` without rows or columns or with a non-finite
    /// entry; the built-ins refuse a `g` without rows or with a non-finite entry (a `g`
    /// without columns is `G = 0` to them, and gets an answer).
    fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>>;
}

/// A `maxcut-sdp` error as a [`BlError`] (the error type of [`Extension::check`]).
fn to_core(e: MaxcutError) -> BlError {
    match e {
        MaxcutError::Core(e) => e,
        other => bl_core::error::invalid("solver", other, "valid mixing parameters"),
    }
}

/// The mixing method of `maxcut-sdp` on the implicit form `C = G G^T`
/// ([`BooleanQp::low_rank`]), then hyperplane rounding and a 1-flip local search.
/// The default solver, with the parameters of [`MixingQp::default`].
#[derive(Debug, Clone)]
pub struct MixingQp {
    params: MixingParams,
}

impl MixingQp {
    /// The mixing method with these parameters (their seed is replaced by the seed of
    /// each call of [`QpSolver::maximize`], and their trace is off: the report of each
    /// QP is not kept).
    #[must_use]
    pub fn new(params: MixingParams) -> Self {
        Self { params }
    }

    /// The parameters of the mixing method.
    #[must_use]
    pub fn params(&self) -> &MixingParams {
        &self.params
    }
}

impl Default for MixingQp {
    /// The mixing method with `tol = 1e-4`, at most 200 sweeps (`max_iter`), 32 rounding trials,
    /// automatic rank `ceil(sqrt(2 (n + 1)))`, and local search on. (The atom only seeds
    /// the alternating refinement of [`crate::bmp`], so a moderate accuracy suffices.)
    fn default() -> Self {
        Self::new(MixingParams::default().tol(1e-4).max_iter(200).trials(32))
    }
}

impl Extension for MixingQp {
    fn name(&self) -> &str {
        "mixing"
    }

    /// Checks the mixing parameters.
    fn check(&self) -> std::result::Result<(), BlError> {
        self.params.check().map(|_| ()).map_err(to_core)
    }
}

impl QpSolver for MixingQp {
    /// `seed` replaces the seed of the mixing parameters; the run is untraced (its report
    /// is not kept).
    fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>> {
        let qp = BooleanQp::low_rank(g)?;
        let params = self.params.clone().seed(seed).trace(false).check()?;
        Ok(params.solve_bqp(&qp)?.z)
    }
}

/// Exact enumeration ([`BooleanQp::solve_exact`], `n <= 24`); for tests and certificates
/// on small tensors. The seed is not used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactQp;

impl Extension for ExactQp {
    fn name(&self) -> &str {
        "exact"
    }
}

impl QpSolver for ExactQp {
    fn maximize(&self, g: MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>> {
        let qp = BooleanQp::low_rank(g)?;
        Ok(ExactBqp.solve_bqp(&qp)?.z)
    }
}

/// `||G^T z||^2`, the objective of the QP.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when `z` does not have one entry per row of `g`.
pub fn objective(g: MatRef<'_, f64>, z: &[f64]) -> Result<f64> {
    bl_core::error::ensure_len(
        "QP objective: z (one entry per row of G)",
        g.nrows(),
        z.len(),
    )?;
    Ok((0..g.ncols())
        .map(|j| {
            let s: f64 = z.iter().enumerate().map(|(i, zi)| g[(i, j)] * zi).sum();
            s * s
        })
        .sum())
}

/// `solver`'s answer for `g`, checked against the contract of [`QpSolver::maximize`]
/// (`g.nrows()` entries, each `0.0` or `1.0`): the atom searches of BMP and LFM ask
/// through it, so a user solver that breaks the contract stops the fit with an error
/// instead of a panic or a non-Boolean factor.
///
/// # Errors
/// Those of the solver; [`BlError::InvalidParameter`] naming `solver` for a broken
/// answer.
pub(crate) fn maximize_checked(
    solver: &dyn QpSolver,
    g: MatRef<'_, f64>,
    seed: u64,
) -> Result<Vec<f64>> {
    let z = solver.maximize(g, seed)?;
    let n = g.nrows();
    let broken = if z.len() == n {
        z.iter()
            .position(|&v| v != 0.0 && v != 1.0)
            .map(|i| format!("`{}` answered z[{i}] = {}", solver.name(), z[i]))
    } else {
        Some(format!(
            "`{}` answered a z of length {} for a G with {n} rows",
            solver.name(),
            z.len()
        ))
    };
    match broken {
        Some(value) => Err(bl_core::error::build::invalid(
            "solver",
            value,
            "a 0/1 vector z with one entry per row of G",
        )),
        None => Ok(z),
    }
}

/// The input contract of [`QpSolver::maximize`]: `g` has at least one row and one column
/// and only finite entries.
///
/// # Errors
/// [`bl_core::BlError::Empty`] or [`bl_core::BlError::NonFinite`].
pub fn validate_input(g: MatRef<'_, f64>) -> Result<()> {
    bl_core::error::ensure_nonempty("QP matrix G (rows)", g.nrows())?;
    bl_core::error::ensure_nonempty("QP matrix G (columns)", g.ncols())?;
    for j in 0..g.ncols() {
        for i in 0..g.nrows() {
            let v = g[(i, j)];
            if !v.is_finite() {
                return Err(BlError::NonFinite {
                    what: "QP matrix G",
                    index: i + g.nrows() * j,
                    value: v,
                }
                .into());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TensorError;

    #[test]
    fn the_objective_refuses_a_z_of_the_wrong_length() {
        let g = faer::mat![[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]];
        assert_eq!(
            objective(g.as_ref(), &[1.0, 0.0, 1.0]).unwrap(),
            1.5_f64.powi(2) + 1.0
        );
        for z in [&[1.0, 0.0][..], &[1.0, 0.0, 1.0, 1.0][..], &[][..]] {
            let err = objective(g.as_ref(), z).unwrap_err();
            assert!(
                matches!(err, TensorError::Core(BlError::ShapeMismatch { .. })),
                "{err}"
            );
        }
    }
}
