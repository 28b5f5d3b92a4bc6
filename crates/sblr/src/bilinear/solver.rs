//! The step-by-step solver of the binary model (Alg. 1 and Alg. 2).

use bl_core::data::{Element, MatrixDataset};
use bl_core::prox::elastic_net_penalty;
use faer::MatRef;

use super::{Penalties, binary_signs, check_rank, check_signs, initial_point_with};
use std::sync::Arc;

use crate::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};
use crate::error::Result;
use crate::features::{LocalFeatures, ReducedFeatures, Side};
use crate::params::{SblrValidParams, StopCriterion};
use crate::passes::InMemory;
use crate::update::BlockUpdate;
use bl_core::error::build::{invalid, numerical};

/// What one iteration of [`BinarySolver`] reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// Objective of problem (4) after the iteration.
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
/// [`crate::Sblr`]) on a data set in memory: build it once, call [`BinarySolverOn::step`]
/// per iteration, read the iterate at any time. [`Fit::fit`](crate::Fit::fit) on
/// [`crate::SblrValidParams`] runs it inside `bl_core::engine::run`.
///
/// Holds a view of the data (never a copy) and `O((s + t) r n)` buffers. The samples may
/// be `f64` or `f32` (`T`); the two data passes of each iteration read them in that
/// precision, accumulate in `f64`, and run on the threads of
/// the params' `threads` ([`SblrValidParams::iteration`]) with results independent of the
/// thread count. It is [`BinarySolverOn`] over the in-memory samples: the same solver runs
/// on a `.npy` file streamed in blocks ([`crate::stream::NpySource`]) or on features held
/// by the workers of a cluster ([`crate::distributed`]).
pub type BinarySolver<'a, T = f64> = BinarySolverOn<LocalFeatures<InMemory<'a, T>>>;

/// The step-by-step solver of the binary model (Alg. 1 and Alg. 2) over any
/// [`ReducedFeatures`]: the one implementation of the two algorithms, whatever holds the
/// data. Each iteration refreshes the `(U, b)` block's features (one pass), updates the
/// block by the params' [`BlockUpdate`] through the features' two products, then does the
/// same for `(V, b)`; margins, gradients and step rules work on vectors of length `n`,
/// `s r` and `r t`, in buffers allocated once.
#[derive(Debug)]
pub struct BinarySolverOn<F> {
    features: F,
    s: usize,
    t: usize,
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
    zu_fresh: bool,
    scores: Vec<f64>,
    l_u: f64,
    l_v: f64,
    work: BlockWork,
    objective: f64,
    loss: f64,
    iterations: usize,
}

impl<'a, T: Element> BinarySolverOn<LocalFeatures<InMemory<'a, T>>> {
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
    /// As [`BinarySolverOn::new`], except `NotBinary` (the labels are given:
    /// `BlError::InvalidParameter` for a label other than `±1`, `BlError::Empty` for no
    /// label); [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when the stacked
    /// matrix does not hold `y.len()` samples of `s x t`; `BlError::InvalidParameter` when
    /// its columns are not contiguous (a transposed view).
    pub fn from_stacked(
        stacked: MatRef<'a, T>,
        s: usize,
        t: usize,
        y: Vec<f64>,
        params: &SblrValidParams,
    ) -> Result<Self> {
        let passes = InMemory::from_stacked(stacked, s, t, y.len())?;
        check_signs(&y)?;
        check_rank(params.rank(), s, t)?;
        let features = LocalFeatures::new(passes, params.rank(), params.iteration().threads)?;
        Self::with_features(features, y, params)
    }
}

impl<F: ReducedFeatures> BinarySolverOn<F> {
    /// A solver on `features` (whose rank must be the params') with labels `±1`, one per
    /// sample. Computes the start (one pass for the spectral starts), the `(U, b)` block's
    /// features (one pass) and the objective there.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) for labels of another
    /// length; `BlError::InvalidParameter` for labels other than `±1` or features of
    /// another rank; [`SblrError::MissingClass`](crate::SblrError::MissingClass);
    /// [`SblrError::InvalidRank`](crate::SblrError::InvalidRank); a bad warm start;
    /// the features' errors; `BlError::Numerical` when the objective at the start is not
    /// finite.
    pub fn with_features(mut features: F, y: Vec<f64>, params: &SblrValidParams) -> Result<Self> {
        let (s, t) = features.sample_shape();
        let n = features.n_samples();
        bl_core::error::ensure_len("labels", n, y.len())?;
        check_signs(&y)?;
        let r = params.rank();
        check_rank(r, s, t)?;
        if features.rank() != r {
            return Err(invalid(
                "features",
                format!("features of rank {}", features.rank()),
                format!("features of the params' rank {r}"),
            ));
        }
        let (u0, v0, b0) =
            initial_point_with(params.init(), s, t, &y, r, params.seed(), |weights| {
                features.weighted_mean(weights)
            })?;
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
            features,
            s,
            t,
            r,
            y,
            penalties: params.penalties(),
            update: Arc::clone(params.block_update()),
            stop: params.stop(),
            prev_u: vec![0.0; s * r + 1],
            prev_v: vec![0.0; r * t + 1],
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
        solver.refresh_block(Side::U)?;
        solver.zu_fresh = true;
        let block = LinearBlock {
            z: solver.features.features(Side::U),
            y: &solver.y,
            l1: solver.penalties.mu1,
            l2: solver.penalties.mu2,
        };
        solver.loss = block.loss_unchecked(&solver.scores);
        solver.objective = solver.loss + solver.penalty();
        if !solver.objective.is_finite() {
            return Err(numerical(
                "BinarySolver",
                "the objective at the starting point is not finite",
            ));
        }
        Ok(solver)
    }

    /// The features the solver works on.
    pub fn features(&self) -> &F {
        &self.features
    }

    fn penalty(&self) -> f64 {
        let (sr, rt) = (self.s * self.r, self.r * self.t);
        elastic_net_penalty(&self.xu[..sr], self.penalties.mu1, self.penalties.mu2)
            + elastic_net_penalty(&self.xv[..rt], self.penalties.nu1, self.penalties.nu2)
    }

    /// The start of a block: its features refreshed from the other factor (one pass)
    /// and the decision values of the block's current iterate into `scores`
    /// (`z^T w + b`, as [`LinearBlock::scores`] computes them).
    fn refresh_block(&mut self, side: Side) -> Result<()> {
        let (sr, rt) = (self.s * self.r, self.r * self.t);
        let (w, x, d) = match side {
            Side::U => (&self.xv[..rt], &self.xu, sr),
            Side::V => (&self.xu[..sr], &self.xv, rt),
        };
        self.features
            .refresh_and_score(side, w, &x[..d], &mut self.scores)?;
        let b = x[d];
        for v in &mut self.scores {
            *v += b;
        }
        Ok(())
    }

    /// One block step of (7a)-(7d) on `(U, b)` (`u_block`) or `(V, b)`, whose features
    /// and scores must be fresh ([`Self::refresh_block`]): `update` on the elastic-net
    /// logistic block.
    fn update_block(&mut self, update: &dyn BlockUpdate, u_block: bool) -> Result<BlockStepInfo> {
        let (side, (l1, l2), x, lipschitz) = if u_block {
            let pens = (self.penalties.mu1, self.penalties.mu2);
            (Side::U, pens, &mut self.xu, &mut self.l_u)
        } else {
            let pens = (self.penalties.nu1, self.penalties.nu2);
            (Side::V, pens, &mut self.xv, &mut self.l_v)
        };
        let block = LinearBlock {
            z: self.features.features(side),
            y: &self.y,
            l1,
            l2,
        };
        let mut state = BlockState::new(x, &mut self.scores, lipschitz);
        update.update(&block, &mut state, &mut self.work)
    }

    /// One iteration of the params' block update on `(U, b)` then `(V, b)` (Alg. 2:
    /// (7a)-(7d); Alg. 1: (6a)-(6b); or the user's [`BlockUpdate`]).
    ///
    /// # Errors
    /// Whatever the block update returns (`BlError::Numerical` for the built-in ones when
    /// no acceptable step is found); the features' errors (a pass over the samples that
    /// fails: a read, a non-finite entry, a lost worker); `BlError::Numerical` when the
    /// objective after the iteration is not finite.
    pub fn step(&mut self) -> Result<StepReport> {
        let update = Arc::clone(&self.update);
        let (s, t, r) = (self.s, self.t, self.r);
        let (sr, rt) = (s * r, r * t);
        let objective_before = self.objective;
        self.prev_u.copy_from_slice(&self.xu);
        self.prev_v.copy_from_slice(&self.xv);

        // (U, b) block with V fixed.
        // (Right after the start, the features and scores of this iterate are fresh.)
        if !self.zu_fresh {
            self.refresh_block(Side::U)?;
        }
        self.zu_fresh = false;
        let u_step = self.update_block(update.as_ref(), true)?;
        let intercept_half = self.xu[sr];
        self.xv[rt] = intercept_half;

        // (V, b) block with U fixed.
        self.refresh_block(Side::V)?;
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

    /// Objective of problem (4) at the current iterate.
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
