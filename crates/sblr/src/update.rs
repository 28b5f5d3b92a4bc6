//! The plug-in point of the SBLR solvers: [`BlockUpdate`], the one way a block `(U, b)` or
//! `(V, b)` is updated in each outer iteration, and its built-in implementations.
//!
//! * [`ProxLinearStep`] (the default): one proximal-linear step (Alg. 2, eqs. (7a)-(7d),
//!   (9), (10)) with the step rule (13)-(16): `L^k = max(L_min, L^{k-1} eta^{n^k})`,
//!   `n^k >= -1` the smallest integer for which the sufficient-decrease inequality
//!   (14)/(16) holds;
//! * [`ExactBlockSolve`]: FISTA (Beck & Teboulle 2009) with backtracking and gradient
//!   adaptive restart (O'Donoghue & Candès 2015), run until the norm of the gradient
//!   mapping `L ||x^+ - y||` is at most `tol * max(1, first value)` (Alg. 1, the exact block
//!   minimization of (6a)/(6b)).
//!
//! An update is set with [`SblrParams::block_update`](crate::SblrParams::block_update) as
//! an `Arc<dyn BlockUpdate>`; the params' `check()` calls its
//! [`check`](bl_core::Extension::check), and every implementation, built-in or a user's,
//! must pass [`crate::conformance::conformance`]. The one exception is [`NotSaved`], the
//! stand-in a loaded model holds for a user's update, which refuses every update.

use std::sync::Arc;

use bl_core::Extension;
use bl_core::engine::{FitReport, IterationParams, Observer, Progress, run};
use bl_core::error::build::numerical;
use bl_core::linalg::LinearOperator;
use bl_core::params;
use serde::{Deserialize, Serialize};

use crate::block::{BlockState, BlockStepInfo, BlockWork, Buffers, LinearBlock, Trials, backtrack};
use crate::error::{Result, SblrError};

/// The valid range of `L_min` (inclusive), for the built-in updates, the multinomial model
/// and [`crate::LogisticRegression`]; see [`crate::params`] for why.
pub const L_MIN_RANGE: (f64, f64) = (1e-10, 1.0);

/// The valid range of the growth factor `eta` (inclusive), for the built-in updates, the
/// multinomial model and [`crate::LogisticRegression`].
pub const ETA_RANGE: (f64, f64) = (1.5, 10.0);

/// The default `L_min` of every step rule here, and the step parameter each block starts
/// from ([`BlockUpdate::initial_lipschitz`]).
pub const DEFAULT_L_MIN: f64 = 1e-3;

/// The default growth factor `eta` of every step rule here.
pub const DEFAULT_ETA: f64 = 2.0;

/// `l_min` in [`L_MIN_RANGE`] and `eta` in [`ETA_RANGE`].
pub(crate) fn check_step_rule(l_min: f64, eta: f64) -> bl_core::Result<()> {
    params::in_range("l_min", l_min, L_MIN_RANGE.0, L_MIN_RANGE.1)?;
    params::in_range("eta", eta, ETA_RANGE.0, ETA_RANGE.1)?;
    Ok(())
}

/// One way of updating a block: the plug-in point of the SBLR solvers.
///
/// The built-in implementations are [`ProxLinearStep`] (Alg. 2, the default) and
/// [`ExactBlockSolve`] (Alg. 1); a user's implementation is set the same way, with
/// [`crate::SblrParams::block_update`], and runs through the normal `fit`, which then
/// returns a [`crate::FittedSblr`]. Implementations must never increase the block
/// objective `loss + penalty`, must leave `state.scores` equal to the decision values of
/// `state.x`, and repeated updates must reach the block minimizer:
/// [`crate::conformance::conformance`] checks all three. `tests/sblr_tests/custom_block_update.rs`
/// is a worked example.
pub trait BlockUpdate: Extension {
    /// Updates `state` for `block`, using `work` as scratch.
    ///
    /// Called directly, outside a fit, an implementation must not trust its arguments:
    /// the built-ins check their own settings ([`check`](Extension::check)), the state
    /// against the block ([`BlockState::check_against`]) and the scratch
    /// ([`BlockWork::check_fits`]) first, all O(1).
    ///
    /// # Errors
    /// [`bl_core::BlError::Numerical`] (as `SblrError::Core`) when no acceptable step is
    /// found or a value is not finite; for the built-ins, `BlError::InvalidParameter` for
    /// settings their check refuses and `BlError::ShapeMismatch` for a state or scratch
    /// that does not fit the block.
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> Result<BlockStepInfo>;

    /// The step parameter `state.lipschitz` holds before the first update of each block
    /// (the built-ins: their `l_min`; the default: [`DEFAULT_L_MIN`]).
    fn initial_lipschitz(&self) -> f64 {
        DEFAULT_L_MIN
    }

    /// Which built-in this update is, with its settings: what a saved model records of it
    /// (see [`crate::SblrParams`]). Leave the default, `None`, in an implementation of
    /// yours: a model fitted with it then saves its [`name`](Extension::name) (the code
    /// cannot be saved; the model's factors are), and loads with a [`NotSaved`] in its
    /// parameters, which predicts as saved and refuses to fit until an update is set.
    fn as_built_in(&self) -> Option<BuiltInUpdate> {
        None
    }
}

/// The built-in block updates with their settings: the saved form of an update (the
/// `solver`, `l_min`, `eta`, `inner_tol` and `inner_max_iter` fields of saved parameters).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum BuiltInUpdate {
    /// Alg. 2.
    ProxLinear(ProxLinearStep),
    /// Alg. 1.
    Exact(ExactBlockSolve),
}

impl BuiltInUpdate {
    /// The update as the plug-in the parameters hold.
    #[must_use]
    pub fn into_update(self) -> Arc<dyn BlockUpdate> {
        match self {
            Self::ProxLinear(p) => Arc::new(p),
            Self::Exact(e) => Arc::new(e),
        }
    }
}

/// The block update of a loaded model that was fitted with an update of a user's (not a
/// built-in): it keeps that update's name, and [`BlockUpdate::update`] refuses to run
/// (the update's code is not saved). The loaded model predicts as saved; to fit with its
/// parameters, set an update first with
/// [`SblrParams::block_update`](crate::SblrParams::block_update).
///
/// Its [`check`](Extension::check) passes (the loaded parameters are valid, so that the
/// model loads), so a fit with it is refused at the first block update, after the start's
/// passes over the data. Like every plug-in, it compares by identity in
/// [`SblrParams`](crate::SblrParams)' `PartialEq`: two loads of the same model hold two
/// stand-ins and compare unequal (built-in updates compare by value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSaved {
    name: String,
}

impl NotSaved {
    /// The stand-in for the saved update named `name`.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into() }
    }
}

impl Extension for NotSaved {
    fn name(&self) -> &str {
        &self.name
    }
}

impl BlockUpdate for NotSaved {
    /// # Errors
    /// Always `BlError::InvalidParameter` (as `SblrError::Core`) naming `block_update`.
    fn update(
        &self,
        _: &LinearBlock<'_>,
        _: &mut BlockState<'_>,
        _: &mut BlockWork,
    ) -> Result<BlockStepInfo> {
        Err(bl_core::error::invalid(
            "block_update",
            format!(
                "{:?}, a block update of a loaded model whose code is not saved",
                self.name
            ),
            "an update set with SblrParams::block_update before fitting",
        )
        .into())
    }
}

/// Alg. 2's block update: one proximal-linear step with the step rule (13)-(16).
///
/// With `L^{k-1}` in `state.lipschitz`, tries `L = max(l_min, L^{k-1} eta^m)` for
/// `m = -1, 0, 1, ...` and accepts the first `L` for which
/// `loss(x+) <= loss(x) + <g, x+ - x> + L/2 ||x+ - x||^2` (eq. (14), resp. (16)), up to
/// [`DECREASE_SLACK`](crate::block::DECREASE_SLACK). The intercept takes its gradient step (9) with the same `L`.
/// Its [`check`](Extension::check) asks `l_min` in [`L_MIN_RANGE`] and `eta` in
/// [`ETA_RANGE`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProxLinearStep {
    /// Lower bound `L_min > 0` of the step parameter.
    pub l_min: f64,
    /// Growth factor `eta > 1`.
    pub eta: f64,
}

impl Default for ProxLinearStep {
    /// `l_min = 1e-3`, `eta = 2`.
    fn default() -> Self {
        Self {
            l_min: DEFAULT_L_MIN,
            eta: DEFAULT_ETA,
        }
    }
}

impl Extension for ProxLinearStep {
    fn name(&self) -> &str {
        "ProxLinearStep (Alg. 2)"
    }

    /// `l_min` in [`L_MIN_RANGE`], `eta` in [`ETA_RANGE`].
    fn check(&self) -> bl_core::Result<()> {
        check_step_rule(self.l_min, self.eta)
    }
}

impl BlockUpdate for ProxLinearStep {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> Result<BlockStepInfo> {
        self.check()?;
        let d = block.dim();
        let n = block.n_samples();
        state.check_against(block)?;
        work.check_fits(d, n)?;
        let loss0 = block.loss_and_dscores_unchecked(state.scores, &mut work.c[..n]);
        block.gradient_unchecked(&work.c[..n], &mut work.g[..d + 1]);
        let mut trials = 0;
        let rule = Trials::StepRule {
            previous: *state.lipschitz,
            l_min: self.l_min,
            eta: self.eta,
        };
        let buffers = Buffers {
            trial: &mut work.trial[..d + 1],
            delta: &mut work.delta[..d + 1],
            dscores: &mut work.trial_scores[..n],
        };
        let Some((l, _, _)) = backtrack(
            block,
            state.x,
            state.scores,
            &work.g[..d + 1],
            rule,
            buffers,
            &mut trials,
        )?
        else {
            return Err(numerical(
                "ProxLinearStep",
                format!(
                    "no step size satisfied the sufficient-decrease test (14)/(16) after \
                     {trials} trials (from L = {}); check the data for huge values",
                    *state.lipschitz
                ),
            ));
        };
        state.x.copy_from_slice(&work.trial[..d + 1]);
        for (f, df) in state.scores.iter_mut().zip(&work.trial_scores[..n]) {
            *f += df;
        }
        let loss1 = block.loss_unchecked(state.scores);
        *state.lipschitz = l;
        Ok(BlockStepInfo {
            lipschitz: l,
            trials,
            inner_iterations: 1,
            loss_before: loss0,
            loss_after: loss1,
        })
    }

    fn initial_lipschitz(&self) -> f64 {
        self.l_min
    }

    fn as_built_in(&self) -> Option<BuiltInUpdate> {
        Some(BuiltInUpdate::ProxLinear(*self))
    }
}

/// Alg. 1's block update: minimize the block problem by FISTA with backtracking and
/// gradient adaptive restart, to a tight tolerance.
///
/// Stops when the gradient-mapping norm `L ||x^+ - y||` falls to
/// `tol * max(1, its first value)` or after `max_iter` iterations. Starts from the current
/// `state.x` (warm start) and from `L = max(l_min, state.lipschitz / eta)`; `L` only grows
/// within one solve. Each iteration costs one product with `z` for the gradient and one
/// per backtracking trial (the decision values are updated by `z^T (x+ - y)`, and those of
/// the extrapolated point combined from the last two iterates, since they are linear).
/// Each solve is an inner run of the engine, untraced. Its [`check`](Extension::check) asks
/// `l_min` in [`L_MIN_RANGE`], `eta` in [`ETA_RANGE`], `tol > 0` and `max_iter >= 1`
/// (named `inner_tol` and `inner_max_iter` in errors and saved parameters).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExactBlockSolve {
    /// Lower bound of the step parameter.
    pub l_min: f64,
    /// Backtracking growth factor `> 1`.
    pub eta: f64,
    /// Relative tolerance on the gradient-mapping norm.
    pub tol: f64,
    /// Iteration budget.
    pub max_iter: usize,
}

impl Default for ExactBlockSolve {
    /// `l_min = 1e-3`, `eta = 2`, `tol = 1e-6`, `max_iter = 5000`.
    fn default() -> Self {
        Self {
            l_min: DEFAULT_L_MIN,
            eta: DEFAULT_ETA,
            tol: 1e-6,
            max_iter: 5000,
        }
    }
}

impl Extension for ExactBlockSolve {
    fn name(&self) -> &str {
        "ExactBlockSolve (Alg. 1)"
    }

    /// The step rule's ranges, `inner_tol > 0`, `inner_max_iter >= 1`.
    fn check(&self) -> bl_core::Result<()> {
        check_step_rule(self.l_min, self.eta)?;
        params::positive("inner_tol", self.tol)?;
        params::at_least("inner_max_iter", self.max_iter, 1)
    }
}

impl ExactBlockSolve {
    /// The block solve of [`BlockUpdate::update`], its FISTA iterations run by the engine
    /// (`bl_core::engine::run`: change measure `L ||x^+ - y|| / max(1, first value)`)
    /// with the budget, tolerance, time limit and trace of `rule` (the update itself runs
    /// with this solver's `max_iter` and `tol`, untraced; the logistic baseline with its
    /// own knobs) and shown to `observers`; returns the engine's report beside the step
    /// information.
    ///
    /// # Errors
    /// `BlError::Numerical` when backtracking finds no step or an iteration's objective is
    /// not finite; `BlError::InvalidParameter` for `l_min` or `eta` out of range
    /// ([`L_MIN_RANGE`], [`ETA_RANGE`]; this solver's own `tol` and `max_iter` are not
    /// read here), a `rule` with `max_iter == 0` or a negative or non-finite `tol` (or a step
    /// parameter `L` grown to infinity); `BlError::ShapeMismatch` for a state or scratch
    /// that does not fit the block ([`BlockState::check_against`],
    /// [`BlockWork::check_fits`]).
    pub fn solve<F: LinearOperator>(
        &self,
        block: &LinearBlock<'_, F>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
        rule: &IterationParams,
        observers: &mut [&mut dyn Observer],
    ) -> Result<(BlockStepInfo, FitReport)> {
        check_step_rule(self.l_min, self.eta)?;
        let d = block.dim();
        let n = block.n_samples();
        state.check_against(block)?;
        work.check_fits(d, n)?;
        let d1 = d + 1;
        let loss_start = block.loss_unchecked(state.scores);
        let obj_start = loss_start + block.penalty_unchecked(state.x);
        let mut l = (self.l_min).max(*state.lipschitz / self.eta);
        // x = state.x (current), prev = previous iterate.
        work.prev[..d1].copy_from_slice(state.x);
        work.prev_scores[..n].copy_from_slice(state.scores);
        work.start[..d1].copy_from_slice(state.x);
        work.start_scores[..n].copy_from_slice(state.scores);
        let mut t = 1.0_f64;
        let mut trials = 0;
        let mut first_residual = f64::NAN;
        let report = run(rule, observers, |_| {
            let t_next = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
            let beta = (t - 1.0) / t_next;
            for j in 0..d1 {
                work.y_point[j] = state.x[j] + beta * (state.x[j] - work.prev[j]);
            }
            for i in 0..n {
                work.y_scores[i] = state.scores[i] + beta * (state.scores[i] - work.prev_scores[i]);
            }
            let loss_y = block.loss_and_dscores_unchecked(&work.y_scores[..n], &mut work.c[..n]);
            block.gradient_unchecked(&work.c[..n], &mut work.g[..d1]);
            let (trial_l, sq, change) = backtrack(
                block,
                &work.y_point[..d1],
                &work.y_scores[..n],
                &work.g[..d1],
                Trials::Growing {
                    from: l,
                    eta: self.eta,
                },
                Buffers {
                    trial: &mut work.trial[..d1],
                    delta: &mut work.delta[..d1],
                    dscores: &mut work.trial_scores[..n],
                },
                &mut trials,
            )?
            .filter(|&(_, _, change)| (loss_y + change).is_finite())
            .ok_or_else(|| {
                numerical::<SblrError>(
                    "ExactBlockSolve",
                    format!(
                        "backtracking found no step (from L = {l}); check the data for huge \
                         values"
                    ),
                )
            })?;
            l = trial_l;
            let loss_trial = loss_y + change;
            for i in 0..n {
                work.trial_scores[i] += work.y_scores[i];
            }
            let residual = l * sq.sqrt();
            if first_residual.is_nan() {
                first_residual = residual;
            }
            // Gradient adaptive restart: momentum is reset when it points uphill,
            // <y - x+, x+ - x> > 0.
            let mut uphill = 0.0;
            for j in 0..d1 {
                uphill += (work.y_point[j] - work.trial[j]) * (work.trial[j] - state.x[j]);
            }
            work.prev[..d1].copy_from_slice(state.x);
            work.prev_scores[..n].copy_from_slice(state.scores);
            state.x.copy_from_slice(&work.trial[..d1]);
            state.scores.copy_from_slice(&work.trial_scores[..n]);
            t = if uphill > 0.0 { 1.0 } else { t_next };
            let objective = loss_trial + block.penalty_unchecked(state.x);
            Ok::<_, SblrError>(
                Progress::new(objective, residual / first_residual.max(1.0)).with("lipschitz", l),
            )
        })?;
        let mut loss_x = block.loss_unchecked(state.scores);
        // FISTA is not monotone: never return a point worse than the start (this can only
        // happen when the iteration budget ends the solve early).
        let mut report = report;
        if loss_x + block.penalty_unchecked(state.x) > obj_start {
            state.x.copy_from_slice(&work.start[..d1]);
            state.scores.copy_from_slice(&work.start_scores[..n]);
            loss_x = loss_start;
            // The report's objective is that of the point returned.
            report.objective = obj_start;
        }
        *state.lipschitz = l;
        let info = BlockStepInfo {
            lipschitz: l,
            trials,
            inner_iterations: report.iterations,
            loss_before: loss_start,
            loss_after: loss_x,
        };
        Ok((info, report))
    }
}

impl BlockUpdate for ExactBlockSolve {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> Result<BlockStepInfo> {
        self.check()?;
        let rule = IterationParams::new(self.max_iter, self.tol).untraced();
        self.solve(block, state, work, &rule, &mut [])
            .map(|(info, _)| info)
    }

    fn initial_lipschitz(&self) -> f64 {
        self.l_min
    }

    fn as_built_in(&self) -> Option<BuiltInUpdate> {
        Some(BuiltInUpdate::Exact(*self))
    }
}
