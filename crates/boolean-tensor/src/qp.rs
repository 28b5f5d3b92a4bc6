//! The Boolean QP behind the atom searches of BMP and LFM: `max_{z in {0,1}^n}
//! ||G^T z||^2 = z^T G G^T z` (Algorithm 2 and eq. (6) of Chang et al., with the sign
//! fixed: the paper writes `C = -G G^T` and maximizes, which would pick `z = 0`; a descent
//! atom needs the maximum of `||G^T z||`. The derivation is in `docs/papers/bmp.md`,
//! "Known traps".)
//!
//! The solver is the plug-in point [`QpSolver`]: the built-in [`MixingQp`] (default) and
//! [`ExactQp`] implement it, and so can a user type, which then runs through the normal
//! `fit` of [`crate::BmpParams`] and [`crate::LfmParams`] (their `solver` setter). Every
//! implementation must pass [`conformance`], the battery of checks the tests apply to the
//! built-in solvers and to the outside example in `tests/custom_qp.rs`.
//!
//! ```
//! use boolean_tensor::qp::{self, QpSolver};
//! use boolean_tensor::TensorError;
//!
//! /// 1-flip local search from every single row: flip entries while one raises
//! /// `||G^T z||^2`; the best local optimum wins.
//! #[derive(Debug)]
//! struct LocalSearch;
//!
//! impl QpSolver for LocalSearch {
//!     fn maximize(&self, g: faer::MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>, TensorError> {
//!         qp::validate_input(g)?;
//!         let n = g.nrows();
//!         let mut best = (f64::NEG_INFINITY, vec![0.0; n]);
//!         for start in 0..n {
//!             let mut z = vec![0.0; n];
//!             z[start] = 1.0;
//!             let mut value = qp::objective(g, &z);
//!             let mut improved = true;
//!             while improved {
//!                 improved = false;
//!                 for i in 0..n {
//!                     z[i] = 1.0 - z[i];
//!                     let flipped = qp::objective(g, &z);
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
//! impl QpSolver for AllRows {
//!     fn maximize(&self, g: faer::MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>, TensorError> {
//!         qp::validate_input(g)?;
//!         Ok(vec![1.0; g.nrows()])
//!     }
//! }
//!
//! qp::conformance(&LocalSearch)?;
//! assert!(qp::conformance(&AllRows).is_err());
//! # Ok::<(), TensorError>(())
//! ```

use std::fmt;

use faer::{Mat, MatRef};
use maxcut_sdp::{BooleanQp, BooleanQpSolver, ExactBqp, MixingParams, ParamGuard};

use crate::error::{Result, TensorError};
use bl_core::error::build::invalid;

/// A solver of the Boolean QP `max_{z in {0,1}^n} ||G^T z||^2` for `G` of size `n x m`.
///
/// Implemented by [`MixingQp`] and [`ExactQp`]; a user type that implements it is passed
/// to [`crate::BmpParams::solver`] or [`crate::LfmParams::solver`] and runs through the
/// normal `fit`. It must pass [`conformance`]. The atom searches of one fit call the
/// solver from several threads at once (one per mode), hence `Send + Sync`.
pub trait QpSolver: fmt::Debug + Send + Sync {
    /// A Boolean `z` (entries `0.0` / `1.0`, length `g.nrows()`) approximately maximizing
    /// `||G^T z||^2`. `seed` seeds any random choice (the same seed gives the same `z`).
    ///
    /// # Errors
    /// An empty or non-finite `g` (see [`validate_input`]), or a failure of the solver.
    fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>>;

    /// Checks the solver's own parameters; called by the `check` of the parameters that
    /// hold it. The default accepts.
    ///
    /// # Errors
    /// An invalid parameter of the solver.
    fn check(&self) -> Result<()> {
        Ok(())
    }
}

/// The mixing method of `maxcut-sdp` on the implicit form `C = G G^T`
/// ([`BooleanQp::low_rank`]), then hyperplane rounding and a 1-flip local search.
/// The default solver, with the parameters of [`MixingQp::default`].
#[derive(Debug, Clone, PartialEq)]
pub struct MixingQp(pub MixingParams);

impl Default for MixingQp {
    /// The mixing method with `tol = 1e-4`, at most 200 sweeps, 32 rounding trials,
    /// automatic rank `ceil(sqrt(2 (n + 1)))`, and local search on. (The atom only seeds
    /// the alternating refinement of [`crate::bmp`], so a moderate accuracy suffices.)
    fn default() -> Self {
        Self(MixingParams::default().tol(1e-4).max_sweeps(200).trials(32))
    }
}

impl QpSolver for MixingQp {
    /// `seed` replaces the seed of the mixing parameters.
    fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>> {
        let qp = BooleanQp::low_rank(g)?;
        Ok(self.0.clone().seed(seed).solve_bqp(&qp)?.z)
    }

    fn check(&self) -> Result<()> {
        self.0.check()?;
        Ok(())
    }
}

/// Exact enumeration ([`BooleanQp::solve_exact`], `n <= 24`); for tests and certificates
/// on small tensors. The seed is not used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactQp;

impl QpSolver for ExactQp {
    fn maximize(&self, g: MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>> {
        let qp = BooleanQp::low_rank(g)?;
        Ok(ExactBqp.solve_bqp(&qp)?.z)
    }
}

/// `||G^T z||^2`, the objective of the QP.
pub fn objective(g: MatRef<'_, f64>, z: &[f64]) -> f64 {
    (0..g.ncols())
        .map(|j| {
            let s: f64 = (0..g.nrows()).map(|i| g[(i, j)] * z[i]).sum();
            s * s
        })
        .sum()
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
                return Err(bl_core::BlError::NonFinite {
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

/// A failed conformance check: which check, and what was seen.
fn fail(check: &'static str, seen: impl fmt::Display) -> TensorError {
    invalid("QpSolver", seen, format!("a solver that passes: {check}"))
}

/// The brute-force maximum of `||G^T z||^2` over Boolean `z` (for `n <= 16`).
fn brute_force(g: MatRef<'_, f64>) -> f64 {
    let n = g.nrows();
    (0u32..1 << n)
        .map(|bits| {
            let z: Vec<f64> = (0..n).map(|i| f64::from((bits >> i) & 1)).collect();
            objective(g, &z)
        })
        .fold(0.0, f64::max)
}

/// Runs the battery of checks every [`QpSolver`] must pass:
///
/// 1. on seeded Gaussian `G` of sizes `1 x 1` to `12 x 7`: the answer has length `n`,
///    entries `0.0` / `1.0`, and the same seed gives the same answer;
/// 2. its value is at least that of the best single row (`max_i ||g_i||^2`), and at
///    least 90% of the brute-force maximum;
/// 3. on a planted rank-1 `G = z* v^T` with Boolean `z*`, the brute-force maximum
///    exactly (to `1e-9` relative): any `z` that contains the support of `z*`;
/// 4. a zero `G` gives a Boolean vector of the right length, not an error;
/// 5. an empty or non-finite `G` is an error, not a panic or an answer.
///
/// # Errors
/// The first failed check, as [`bl_core::BlError::InvalidParameter`] naming the check
/// (or the solver's own error where an answer was required).
pub fn conformance(solver: &dyn QpSolver) -> Result<()> {
    solver.check()?;
    let boolean = |z: &[f64], n: usize, what: &'static str| -> Result<()> {
        if z.len() != n {
            return Err(fail(what, format!("length {} for n = {n}", z.len())));
        }
        if let Some(v) = z.iter().find(|&&v| v != 0.0 && v != 1.0) {
            return Err(fail(what, format!("entry {v}")));
        }
        Ok(())
    };
    let mut rng = bl_core::random::seeded_rng(20_240_601);
    for (case, (n, m)) in [(1, 1), (3, 2), (5, 4), (8, 3), (10, 6), (12, 7)]
        .into_iter()
        .enumerate()
    {
        let g = bl_core::random::standard_normal_mat(&mut rng, n, m);
        let seed = case as u64;
        let z = solver.maximize(g.as_ref(), seed)?;
        boolean(&z, n, "1. a Boolean answer of length n")?;
        if solver.maximize(g.as_ref(), seed)? != z {
            return Err(fail(
                "1. the same seed gives the same answer",
                "two answers",
            ));
        }
        let value = objective(g.as_ref(), &z);
        let best_row = (0..n)
            .map(|i| g.row(i).norm_l2().powi(2))
            .fold(0.0, f64::max);
        if value < best_row * (1.0 - 1e-12) {
            return Err(fail(
                "2. at least the value of the best single row",
                format!("{value} < {best_row} ({n} x {m})"),
            ));
        }
        let optimum = brute_force(g.as_ref());
        if value < 0.9 * optimum {
            return Err(fail(
                "2. at least 90% of the maximum",
                format!("{value} < 0.9 * {optimum} ({n} x {m})"),
            ));
        }
    }
    // 3. Planted rank-1 instance.
    let planted = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0];
    let v = [0.7, -1.3, 2.0, 0.4];
    let g = Mat::from_fn(planted.len(), v.len(), |i, j| planted[i] * v[j]);
    let z = solver.maximize(g.as_ref(), 7)?;
    boolean(&z, planted.len(), "3. a Boolean answer of length n")?;
    let (value, optimum) = (objective(g.as_ref(), &z), brute_force(g.as_ref()));
    if (value - optimum).abs() > 1e-9 * optimum {
        return Err(fail(
            "3. the maximum of a planted rank-1 instance",
            format!("{value} != {optimum}"),
        ));
    }
    // 4. Zero G.
    let zero = Mat::<f64>::zeros(4, 3);
    let z = solver.maximize(zero.as_ref(), 0)?;
    boolean(&z, 4, "4. a Boolean answer for G = 0")?;
    // 5. Invalid inputs.
    let mut bad = Mat::<f64>::zeros(3, 2);
    bad[(1, 1)] = f64::NAN;
    if solver.maximize(bad.as_ref(), 0).is_ok() {
        return Err(fail("5. an error for a non-finite G", "an answer"));
    }
    if solver.maximize(Mat::<f64>::zeros(0, 3).as_ref(), 0).is_ok() {
        return Err(fail("5. an error for an empty G", "an answer"));
    }
    Ok(())
}
