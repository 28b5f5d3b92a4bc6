//! The step-by-step solver of the binary model (Alg. 1 and Alg. 2).

use bl_core::data::{Element, MatrixDataset};
use bl_core::prox::elastic_net_penalty;
use faer::MatRef;

use super::{Penalties, binary_signs, check_rank, check_signs, initial_point};
use std::sync::Arc;

use crate::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};
use crate::error::Result;
use crate::params::{SblrValidParams, StopCriterion};
use crate::passes::{Pool, Stacked};
use crate::update::BlockUpdate;
use bl_core::error::build::numerical;

/// What one iteration of [`BinarySolver`] reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// Objective (5) after the iteration.
    pub objective: f64,
    /// Loss (3) after the iteration.
    pub loss: f64,
    /// The stopping quantity `q^k` of eq. (8) (see [`StopCriterion`]).
    pub change: f64,
    /// The `(U, b)` update.
    pub u_step: BlockStepInfo,
    /// The `(V, b)` update.
    pub v_step: BlockStepInfo,
    /// The intercept `b^{k-1/2}` between the two block updates.
    pub intercept_half: f64,
}

/// The step-by-step solver of the binary model (the low-level layer under
/// [`crate::Sblr`]): build it once, call [`BinarySolver::step`] per iteration, read the
/// iterate at any time. [`Fit::fit`](crate::Fit::fit) on [`crate::SblrValidParams`] runs it inside
/// `bl_core::engine::run`.
///
/// Holds a view of the data (never a copy) and `O((s + t) r n)` buffers. The samples may
/// be `f64` or `f32` (`T`); the two data passes of each iteration read them in that
/// precision, accumulate in `f64`, and run on the threads of
/// the params' `threads` ([`SblrValidParams::iteration`]) with results independent of the
/// thread count.
#[derive(Debug)]
pub struct BinarySolver<'a, T: Element = f64> {
    data: Stacked<'a, T>,
    threads: Pool,
    s: usize,
    t: usize,
    n: usize,
    r: usize,
    y: Vec<f64>,
    penalties: Penalties,
    update: Arc<dyn BlockUpdate>,
    stop: StopCriterion,
    /// `(vec(U), b)`, length `s r + 1`.
    xu: Vec<f64>,
    /// `(vec(V^T), b)`, length `r t + 1`.
    xv: Vec<f64>,
    prev_u: Vec<f64>,
    prev_v: Vec<f64>,
    zu: Vec<f64>,
    zv: Vec<f64>,
    zu_fresh: bool,
    scores: Vec<f64>,
    l_u: f64,
    l_v: f64,
    work: BlockWork,
    objective: f64,
    loss: f64,
    iterations: usize,
}

impl<'a, T: Element> BinarySolver<'a, T> {
    /// A solver for a binary data set (class 1 is `+1`).
    ///
    /// # Errors
    /// Invalid parameters; [`SblrError::NotBinary`](crate::SblrError::NotBinary), [`SblrError::MissingClass`](crate::SblrError::MissingClass),
    /// [`SblrError::InvalidRank`](crate::SblrError::InvalidRank); a bad warm start.
    pub fn new(data: &'a MatrixDataset<T>, params: &SblrValidParams) -> Result<Self> {
        let y = binary_signs(data)?;
        let (s, t) = data.shape();
        Self::from_stacked(data.stacked(), s, t, y, params)
    }

    /// A solver on the stacked samples `[X_1 ... X_n]` (`s x t n`) with labels `±1`
    /// (used by one-vs-all, which relabels without copying the data).
    ///
    /// # Errors
    /// As [`BinarySolver::new`]; [`bl_core::BlError::ShapeMismatch`] (as
    /// `SblrError::Core`) when the stacked matrix does not hold `y.len()` samples of
    /// `s x t`; `BlError::InvalidParameter` when its columns are not contiguous (a
    /// transposed view).
    pub fn from_stacked(
        stacked: MatRef<'a, T>,
        s: usize,
        t: usize,
        y: Vec<f64>,
        params: &SblrValidParams,
    ) -> Result<Self> {
        let n = y.len();
        let data = Stacked::new(stacked, s, t, n)?;
        check_signs(&y)?;
        let r = params.rank();
        check_rank(r, s, t)?;
        let (u0, v0, b0) = initial_point(params.init(), stacked, s, t, &y, r, params.seed())?;
        let mut xu = vec![0.0; s * r + 1];
        xu[..s * r].copy_from_slice(&u0);
        xu[s * r] = b0;
        let mut xv = vec![0.0; r * t + 1];
        for k in 0..r {
            for j in 0..t {
                xv[j * r + k] = v0[k * t + j];
            }
        }
        xv[r * t] = b0;
        let mut solver = Self {
            data,
            threads: params.iteration().pool()?,
            s,
            t,
            n,
            r,
            y,
            penalties: params.penalties(),
            update: Arc::clone(params.block_update()),
            stop: params.stop(),
            prev_u: vec![0.0; s * r + 1],
            prev_v: vec![0.0; r * t + 1],
            zu: bl_core::limits::try_zeroed("BinarySolver: s x rank x n", &[s, r, n])?,
            zv: bl_core::limits::try_zeroed("BinarySolver: rank x t x n", &[r, t, n])?,
            zu_fresh: false,
            scores: vec![0.0; n],
            l_u: params.block_update().initial_lipschitz(),
            l_v: params.block_update().initial_lipschitz(),
            work: BlockWork::new((s * r).max(r * t), n)?,
            xu,
            xv,
            objective: f64::NAN,
            loss: f64::NAN,
            iterations: 0,
        };
        solver.compute_zu();
        solver.zu_fresh = true;
        let mut scores = std::mem::take(&mut solver.scores);
        let block = solver.u_block();
        block.scores(&solver.xu, &mut scores);
        let loss = block.loss(&scores);
        solver.scores = scores;
        solver.loss = loss;
        solver.objective = solver.loss + solver.penalty();
        if !solver.objective.is_finite() {
            return Err(numerical(
                "BinarySolver",
                "the objective at the starting point is not finite",
            ));
        }
        Ok(solver)
    }

    fn u_block(&self) -> LinearBlock<'_> {
        LinearBlock {
            z: MatRef::from_column_major_slice(&self.zu, self.s * self.r, self.n),
            y: &self.y,
            l1: self.penalties.mu1,
            l2: self.penalties.mu2,
        }
    }

    fn penalty(&self) -> f64 {
        let (sr, rt) = (self.s * self.r, self.r * self.t);
        elastic_net_penalty(&self.xu[..sr], self.penalties.mu1, self.penalties.mu2)
            + elastic_net_penalty(&self.xv[..rt], self.penalties.nu1, self.penalties.nu2)
    }

    /// Pass 1: `Z_u[:, i] = vec(X_i V)`.
    fn compute_zu(&mut self) {
        let rt = self.r * self.t;
        self.data
            .times_v(&self.xv[..rt], self.r, &mut self.zu, &self.threads);
    }

    /// Pass 2: `Z_v = U^T [X_1 ... X_n]`.
    fn compute_zv(&mut self) {
        let sr = self.s * self.r;
        self.data
            .u_times(&self.xu[..sr], self.r, &mut self.zv, &self.threads);
    }

    /// One block step of (7a)-(7d) on `(U, b)` (`u_block`) or `(V, b)`, whose features
    /// must be fresh: the scores of the block's current iterate, then `update` on the
    /// elastic-net logistic block.
    fn update_block(&mut self, update: &dyn BlockUpdate, u_block: bool) -> Result<BlockStepInfo> {
        let (z, dim, (l1, l2), x, lipschitz) = if u_block {
            let pens = (self.penalties.mu1, self.penalties.mu2);
            (&self.zu, self.s * self.r, pens, &mut self.xu, &mut self.l_u)
        } else {
            let pens = (self.penalties.nu1, self.penalties.nu2);
            (&self.zv, self.r * self.t, pens, &mut self.xv, &mut self.l_v)
        };
        let z = MatRef::from_column_major_slice(z, dim, self.n);
        let block = LinearBlock {
            z,
            y: &self.y,
            l1,
            l2,
        };
        block.scores(x, &mut self.scores);
        let mut state = BlockState::new(x, &mut self.scores, lipschitz);
        update.update(&block, &mut state, &mut self.work)
    }

    /// One iteration of the params' block update on `(U, b)` then `(V, b)` (Alg. 2:
    /// (7a)-(7d); Alg. 1: (6a)-(6b); or the user's [`BlockUpdate`]).
    ///
    /// # Errors
    /// Whatever the block update returns (`BlError::Numerical` for the built-in ones when
    /// no acceptable step is found).
    pub fn step(&mut self) -> Result<StepReport> {
        let update = Arc::clone(&self.update);
        let (s, t, r) = (self.s, self.t, self.r);
        let (sr, rt) = (s * r, r * t);
        let objective_before = self.objective;
        self.prev_u.copy_from_slice(&self.xu);
        self.prev_v.copy_from_slice(&self.xv);

        // (U, b) block with V fixed.
        if !self.zu_fresh {
            self.compute_zu();
        }
        self.zu_fresh = false;
        let u_step = self.update_block(update.as_ref(), true)?;
        let intercept_half = self.xu[sr];
        self.xv[rt] = intercept_half;

        // (V, b) block with U fixed.
        self.compute_zv();
        let v_step = self.update_block(update.as_ref(), false)?;
        self.xu[sr] = self.xv[rt];
        self.loss = v_step.loss_after;
        self.objective = self.loss + self.penalty();
        self.iterations += 1;
        let change = self.stop.quantity(
            &[
                (&self.prev_u[..], &self.xu[..]),
                (&self.prev_v[..rt], &self.xv[..rt]),
            ],
            objective_before,
            self.objective,
        );
        if !self.objective.is_finite() {
            return Err(numerical(
                "BinarySolver::step",
                "the objective is not finite",
            ));
        }
        Ok(StepReport {
            objective: self.objective,
            loss: self.loss,
            change,
            u_step,
            v_step,
            intercept_half,
        })
    }

    /// The current `U` (`s x r`).
    #[must_use]
    pub fn u(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.xu[..self.s * self.r], self.s, self.r)
    }

    /// The current `V` (`t x r`), a transposed view of the stored `V^T`.
    #[must_use]
    pub fn v(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.xv[..self.r * self.t], self.r, self.t).transpose()
    }

    /// The current intercept `b`.
    #[must_use]
    pub fn intercept(&self) -> f64 {
        self.xu[self.s * self.r]
    }

    /// Objective (5) at the current iterate.
    #[must_use]
    pub fn objective(&self) -> f64 {
        self.objective
    }

    /// Loss (3) at the current iterate.
    #[must_use]
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// Iterations done so far.
    #[must_use]
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// The labels `±1` the solver fits.
    #[must_use]
    pub fn signs(&self) -> &[f64] {
        &self.y
    }

    /// The penalties.
    #[must_use]
    pub fn penalties(&self) -> Penalties {
        self.penalties
    }

    /// The current `(U, V)` as owned column-major vectors `(s x r, t x r)`.
    #[must_use]
    pub fn factors(&self) -> (Vec<f64>, Vec<f64>) {
        let u = self.xu[..self.s * self.r].to_vec();
        let mut v = vec![0.0; self.t * self.r];
        for k in 0..self.r {
            for j in 0..self.t {
                v[k * self.t + j] = self.xv[j * self.r + k];
            }
        }
        (u, v)
    }
}
