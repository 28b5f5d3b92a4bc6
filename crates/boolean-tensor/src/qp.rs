//! The Boolean QP behind the BMP atom search: `max_{z in {0,1}^n} ||G^T z||^2 =
//! z^T G G^T z` (Algorithm 2 and eq. (6) of Chang et al., with the sign fixed: the paper
//! writes `C = -G G^T` and maximizes, which would pick `z = 0`; a descent atom needs the
//! maximum of `||G^T z||`. The derivation is in `docs/papers/bmp.md`, "Known traps".)
//!
//! The solver is replaceable: [`QpSolver::Custom`] takes any implementation of
//! `maxcut-sdp`'s [`BooleanQpSolver`] trait (whose conformance suite lives in
//! `maxcut-sdp`); `tests/bmp.rs` checks that the atom search works with each built-in one.

use std::fmt;
use std::sync::Arc;

use faer::MatRef;
use maxcut_sdp::{BooleanQp, BooleanQpSolver, ExactBqp, MixingParams, ParamGuard};

use crate::error::Result;

/// Which solver maximizes `||G^T z||^2` over Boolean `z`.
#[derive(Clone)]
pub enum QpSolver {
    /// The mixing method of `maxcut-sdp` on the implicit form `C = G G^T`
    /// ([`BooleanQp::low_rank`]), then hyperplane rounding and a 1-flip local search.
    /// The default, with the parameters of [`QpSolver::default_mixing`].
    Mixing(MixingParams),
    /// Exact enumeration ([`BooleanQp::solve_exact`], `n <= 24`); for tests and
    /// certificates on small tensors.
    Exact,
    /// Any other implementation of [`BooleanQpSolver`] (it receives the QP built by
    /// [`BooleanQp::low_rank`]; the seed is not passed on).
    Custom(Arc<dyn BooleanQpSolver>),
}

impl fmt::Debug for QpSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mixing(p) => f.debug_tuple("Mixing").field(p).finish(),
            Self::Exact => f.write_str("Exact"),
            Self::Custom(s) => write!(f, "Custom({})", s.name()),
        }
    }
}

impl PartialEq for QpSolver {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Mixing(a), Self::Mixing(b)) => a == b,
            (Self::Exact, Self::Exact) => true,
            (Self::Custom(a), Self::Custom(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Default for QpSolver {
    fn default() -> Self {
        Self::default_mixing()
    }
}

impl QpSolver {
    /// The mixing method with `tol = 1e-4`, at most 200 sweeps, 32 rounding trials,
    /// automatic rank `ceil(sqrt(2 (n + 1)))`, and local search on. (The atom only seeds
    /// the alternating refinement of [`crate::bmp`], so a moderate accuracy suffices.)
    pub fn default_mixing() -> Self {
        Self::Mixing(MixingParams::default().tol(1e-4).max_sweeps(200).trials(32))
    }

    /// A Boolean `z` (entries `0.0`/`1.0`) approximately maximizing `||G^T z||^2` for `G`
    /// of size `n x m`; `seed` replaces the seed of the mixing parameters.
    ///
    /// # Errors
    /// The errors of `maxcut-sdp` (empty or non-finite `G`, invalid parameters, `n > 24`
    /// for [`QpSolver::Exact`]).
    pub fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>> {
        let qp = BooleanQp::low_rank(g)?;
        let outcome = match self {
            Self::Mixing(params) => params.clone().seed(seed).solve_bqp(&qp)?,
            Self::Exact => ExactBqp.solve_bqp(&qp)?,
            Self::Custom(solver) => solver.solve_bqp(&qp)?,
        };
        Ok(outcome.z)
    }

    pub(crate) fn check(&self) -> Result<()> {
        if let Self::Mixing(params) = self {
            params.check()?;
        }
        Ok(())
    }
}
