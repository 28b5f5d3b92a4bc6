//! The Boolean QP fit: [`BqpParams`] hold the solver (any [`BooleanQpSolver`], the mixing
//! method by default) and fit a [`BooleanQp`] into a [`FittedBqp`].

use std::sync::Arc;

use bl_core::Fit;
use bl_core::engine::Observer;
use bl_core::params::ParamGuard;

use crate::boolean_qp::BooleanQp;
use crate::bqp_fitted::FittedBqp;
use crate::bqp_solver::BooleanQpSolver;
use crate::error::{MaxcutError, Result};
use crate::params::MixingValidParams;

/// Parameters of the Boolean QP fit `max z^T A z` over `z in {0, 1}^n`: the solver.
///
/// | name | default | meaning |
/// |---|---|---|
/// | `solver` | the mixing method with [`crate::MixingParams::default`] | any `Arc<dyn` [`BooleanQpSolver`]`>`: the mixing method (checked [`crate::MixingParams`]), [`crate::ExactBqp`], or a user's solver |
///
/// The solver's own knobs (the mixing method's rank, iteration budget, threads, ...)
/// are set on the solver.
///
/// ```
/// use std::sync::Arc;
/// use maxcut_sdp::{BooleanQp, BqpParams, Fit, Fitted, MixingParams, ParamGuard};
/// let g = maxcut_sdp::synthetic::gaussian(10, 4, 1)?;
/// let qp = BooleanQp::low_rank(g.as_ref())?;
/// let mixing = MixingParams::default().seed(3).max_iter(500).check()?;
/// let fitted = BqpParams::default().solver(Arc::new(mixing)).fit(&qp)?;
/// assert_eq!(fitted.solver(), "mixing");
/// assert!(fitted.report().iterations >= 1);
/// assert!(fitted.value() <= qp.solve_exact()?.value() + 1e-9);
/// # Ok::<(), maxcut_sdp::MaxcutError>(())
/// ```
#[derive(Debug, Clone)]
pub struct BqpParams {
    solver: Arc<dyn BooleanQpSolver>,
}

impl Default for BqpParams {
    fn default() -> Self {
        Self {
            solver: Arc::new(MixingValidParams::default()),
        }
    }
}

/// [`BqpParams`] after [`ParamGuard::check`].
#[derive(Debug, Clone)]
pub struct BqpValidParams {
    solver: Arc<dyn BooleanQpSolver>,
}

bl_core::params::knobs! {
    BqpParams => BqpValidParams;
    /// The solver: the mixing method (checked [`crate::MixingParams`], the default),
    /// [`crate::ExactBqp`], or any [`BooleanQpSolver`].
    solver: &Arc<dyn BooleanQpSolver>;
}

impl ParamGuard for BqpParams {
    type Checked = BqpValidParams;
    type Error = MaxcutError;

    /// Checks the solver's own settings ([`Extension::check`](bl_core::Extension::check)).
    ///
    /// # Errors
    /// The solver's [`bl_core::BlError::InvalidParameter`].
    fn check(&self) -> Result<BqpValidParams> {
        self.solver.check()?;
        Ok(BqpValidParams {
            solver: Arc::clone(&self.solver),
        })
    }
}

impl Fit<BooleanQp> for BqpValidParams {
    type Fitted = FittedBqp;
    type Error = MaxcutError;

    /// Solves `qp` with the solver ([`BooleanQpSolver::solve_bqp_observed`]; the mixing
    /// method shows its sweeps to `observers`) and checks its answer: `z` must be a 0/1
    /// vector of length `n` whose value is the reported one.
    ///
    /// # Errors
    /// The solver's error, or [`bl_core::BlError::InvalidParameter`] (naming `solver`)
    /// for an answer that breaks the contract above.
    fn fit_observed(
        &self,
        qp: &BooleanQp,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedBqp> {
        let fitted = self.solver.solve_bqp_observed(qp, observers)?;
        let value = qp.value(fitted.z()).map_err(|e| {
            MaxcutError::from(bl_core::params::invalid(
                "solver",
                format!(
                    "`{}` answered a z that is not valid: {e}",
                    self.solver.name()
                ),
                "a 0/1 vector z of length n",
            ))
        })?;
        if (value - fitted.value()).abs() > 1e-9 * (1.0 + value.abs()) {
            return Err(bl_core::params::invalid(
                "solver",
                format!(
                    "`{}` reported z^T A z = {} but its z has {value}",
                    self.solver.name(),
                    fitted.value()
                ),
                "a reported value equal to z^T A z",
            )
            .into());
        }
        Ok(fitted)
    }
}
