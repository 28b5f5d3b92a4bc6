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
//! 2. `Z_v = U^T A` (`r x t n`), one product over the stacked data, whose `i`-th `r x t`
//!    block is `U^T X_i`; viewed as `r t x n` its columns are the features of the `V`
//!    block with the variable `vec(V^T)`.
//!
//! With `V` fixed the decision values are `f_i = <vec(U), Z_u e_i> + b`, and with `U` fixed
//! `f_i = <vec(V^T), Z_v e_i> + b`, so every backtracking trial of Alg. 2 and every inner
//! iteration of Alg. 1 works on the `O((s + t) r n)` reduced features only: the gradients
//! (12a)-(12c) are `Z_u c`, `Z_v c` and `sum_i c_i`. Nothing is allocated after
//! [`BinarySolver`] is built.

use bl_core::data::MatrixDataset;
use bl_core::linalg::top_singular_vectors;
use bl_core::prox::elastic_net_penalty;
use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use crate::block::{
    BlockState, BlockStepInfo, BlockUpdate, BlockWork, LinearBlock, entry_residual,
};
use crate::error::{Result, SblrError, ensure_shape};
use crate::params::{Init, SblrValidParams, SharedUpdate, StopCriterion};
use bl_core::error::build::{invalid, numerical, shape_mismatch};

/// The `±1` labels of a binary data set (class 1 is `+1`).
///
/// # Errors
/// [`SblrError::NotBinary`] unless there are exactly two classes;
/// [`SblrError::MissingClass`] when one class has no sample.
pub fn binary_signs(data: &MatrixDataset) -> Result<Vec<f64>> {
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

pub(crate) fn check_rank(rank: usize, s: usize, t: usize) -> Result<()> {
    if rank == 0 || rank > s.min(t) {
        return Err(SblrError::InvalidRank { rank, s, t });
    }
    Ok(())
}

/// Decision values `tr(U^T X_i V) + b` of every sample, by one product `U^T A` over the
/// stacked data.
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when `U` is not `s x r` or `V` not `t x r`.
pub fn decision_values(
    data: &MatrixDataset,
    u: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    intercept: f64,
) -> Result<Vec<f64>> {
    let (s, t) = data.shape();
    let r = u.ncols();
    ensure_shape("decision_values: U", (s, r), (u.nrows(), r))?;
    ensure_shape("decision_values: V", (t, r), (v.nrows(), v.ncols()))?;
    let n = data.n_samples();
    let mut p = Mat::<f64>::zeros(r, t * n);
    matmul(
        p.as_mut(),
        Accum::Replace,
        u.transpose(),
        data.stacked(),
        1.0,
        Par::Seq,
    );
    Ok((0..n)
        .map(|i| {
            let mut f = intercept;
            for j in 0..t {
                for k in 0..r {
                    f += p[(k, i * t + j)] * v[(j, k)];
                }
            }
            f
        })
        .collect())
}

/// The loss (3) `(1/n) sum_i log(1 + exp(-y_i (tr(U^T X_i V) + b)))`.
///
/// # Errors
/// Shape mismatches; `y` of the wrong length.
pub fn loss(
    data: &MatrixDataset,
    y: &[f64],
    u: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    intercept: f64,
) -> Result<f64> {
    bl_core::error::ensure_len("loss: y", data.n_samples(), y.len())?;
    let f = decision_values(data, u, v, intercept)?;
    let n = f.len() as f64;
    Ok(f.iter()
        .zip(y)
        .map(|(&fi, &yi)| bl_core::logistic::log1p_exp(-yi * fi))
        .sum::<f64>()
        / n)
}

/// The penalties `(mu1, mu2, nu1, nu2)` of eq. (5).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Penalties {
    /// l1 weight on `U`.
    pub mu1: f64,
    /// Squared-l2 weight on `U`.
    pub mu2: f64,
    /// l1 weight on `V`.
    pub nu1: f64,
    /// Squared-l2 weight on `V`.
    pub nu2: f64,
}

impl Penalties {
    /// The penalty value `mu1 |U|_1 + mu2/2 ||U||^2 + nu1 |V|_1 + nu2/2 ||V||^2`.
    #[must_use]
    pub fn value(&self, u: MatRef<'_, f64>, v: MatRef<'_, f64>) -> f64 {
        let mut total = 0.0;
        for (m, l1, l2) in [(u, self.mu1, self.mu2), (v, self.nu1, self.nu2)] {
            for j in 0..m.ncols() {
                for i in 0..m.nrows() {
                    let x = m[(i, j)];
                    total += l1 * x.abs() + 0.5 * l2 * x * x;
                }
            }
        }
        total
    }
}

/// The objective (5): loss plus penalties.
///
/// # Errors
/// As [`loss`].
pub fn objective(
    data: &MatrixDataset,
    y: &[f64],
    u: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    intercept: f64,
    penalties: &Penalties,
) -> Result<f64> {
    Ok(loss(data, y, u, v, intercept)? + penalties.value(u, v))
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

/// The gradients (12a)-(12c) of the loss at `(U, V, b)`, computed sample by sample (a
/// reference implementation, independent of the solver's reduced features).
///
/// # Errors
/// As [`loss`].
pub fn gradients(
    data: &MatrixDataset,
    y: &[f64],
    u: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    intercept: f64,
) -> Result<Gradients> {
    bl_core::error::ensure_len("gradients: y", data.n_samples(), y.len())?;
    let f = decision_values(data, u, v, intercept)?;
    let n = f.len() as f64;
    let (s, t) = data.shape();
    let r = u.ncols();
    let mut gu = Mat::<f64>::zeros(s, r);
    let mut gv = Mat::<f64>::zeros(t, r);
    let mut gb = 0.0;
    for (i, (&fi, &yi)) in f.iter().zip(y).enumerate() {
        let c = -yi * bl_core::logistic::sigmoid(-yi * fi) / n;
        let x = data.sample(i);
        matmul(gu.as_mut(), Accum::Add, x, v, c, Par::Seq);
        matmul(gv.as_mut(), Accum::Add, x.transpose(), u, c, Par::Seq);
        gb += c;
    }
    Ok(Gradients {
        u: gu,
        v: gv,
        intercept: gb,
    })
}

/// The first-order stationarity residual `dist(0, grad + subdifferential)` of problem (5)
/// at `(U, V, b)`: the Euclidean norm over all entries of `U`, `V` and `b` of the
/// distance from 0 to each entry's subdifferential.
///
/// # Errors
/// As [`loss`].
pub fn stationarity_residual(
    data: &MatrixDataset,
    y: &[f64],
    u: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    intercept: f64,
    penalties: &Penalties,
) -> Result<f64> {
    let g = gradients(data, y, u, v, intercept)?;
    let mut sum = g.intercept * g.intercept;
    for (x, gx, l1, l2) in [
        (u, g.u.as_ref(), penalties.mu1, penalties.mu2),
        (v, g.v.as_ref(), penalties.nu1, penalties.nu2),
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

/// `sum_i weight_i X_i / n` over the stacked data.
fn weighted_mean(stacked: MatRef<'_, f64>, s: usize, t: usize, weights: &[f64]) -> Mat<f64> {
    let n = weights.len();
    let mut m = Mat::<f64>::zeros(s, t);
    for (i, &w) in weights.iter().enumerate() {
        let x = stacked.subcols(i * t, t);
        for j in 0..t {
            for a in 0..s {
                m[(a, j)] += w * x[(a, j)];
            }
        }
    }
    let scale = 1.0 / n as f64;
    for j in 0..t {
        for a in 0..s {
            m[(a, j)] *= scale;
        }
    }
    m
}

/// The first `r` singular pairs of `m`, each pair signed so that the largest-magnitude
/// entry of the right vector is positive. Returns `(U, V)` column-major.
fn signed_top_pairs(m: MatRef<'_, f64>, r: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let (s, t) = (m.nrows(), m.ncols());
    let svd = top_singular_vectors(m, r)?;
    let mut u = vec![0.0; s * r];
    let mut v = vec![0.0; t * r];
    for k in 0..r {
        let mut best = 0;
        for j in 0..t {
            if svd.v[(j, k)].abs() > svd.v[(best, k)].abs() {
                best = j;
            }
        }
        let sign = if svd.v[(best, k)] < 0.0 { -1.0 } else { 1.0 };
        for a in 0..s {
            u[k * s + a] = sign * svd.u[(a, k)];
        }
        for j in 0..t {
            v[k * t + j] = sign * svd.v[(j, k)];
        }
    }
    Ok((u, v))
}

/// The starting point `(U^0 (s x r), V^0 (t x r), b^0)` of [`Init`], column-major.
///
/// # Errors
/// A warm start of the wrong shape; an SVD failure.
pub fn initial_point(
    init: &Init,
    stacked: MatRef<'_, f64>,
    s: usize,
    t: usize,
    y: &[f64],
    rank: usize,
    seed: u64,
) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    match init {
        Init::MeanSvd => {
            let m = weighted_mean(stacked, s, t, &vec![1.0; y.len()]);
            let (mut u, v) = signed_top_pairs(m.as_ref(), rank)?;
            u.iter_mut().for_each(|x| *x = -*x);
            Ok((u, v, 0.0))
        }
        Init::LabelWeightedSvd => {
            let m = weighted_mean(stacked, s, t, y);
            let (u, v) = signed_top_pairs(m.as_ref(), rank)?;
            Ok((u, v, 0.0))
        }
        Init::Random => {
            let mut rng = seeded_rng(seed);
            let mut u = vec![0.0; s * rank];
            let mut v = vec![0.0; t * rank];
            fill_standard_normal(&mut rng, &mut u);
            fill_standard_normal(&mut rng, &mut v);
            let (cu, cv) = (1.0 / (s as f64).sqrt(), 1.0 / (t as f64).sqrt());
            u.iter_mut().for_each(|x| *x *= cu);
            v.iter_mut().for_each(|x| *x *= cv);
            Ok((u, v, 0.0))
        }
        Init::Warm { u, v, intercept } => {
            if u.len() != s * rank {
                return Err(shape_mismatch(
                    "warm start U",
                    format!("{s} x {rank} = {} values", s * rank),
                    format!("{} values", u.len()),
                ));
            }
            if v.len() != t * rank {
                return Err(shape_mismatch(
                    "warm start V",
                    format!("{t} x {rank} = {} values", t * rank),
                    format!("{} values", v.len()),
                ));
            }
            Ok((u.clone(), v.clone(), *intercept))
        }
        Init::WarmMultinomial { .. } => Err(invalid(
            "init",
            "WarmMultinomial",
            "MeanSvd, LabelWeightedSvd, Random or Warm for the binary model",
        )),
    }
}

/// One block step of (7a)-(7d): the scores of the block's current iterate, then `update`
/// on the elastic-net logistic block with features `z` and penalties `(l1, l2)`.
fn update_block(
    update: &dyn BlockUpdate,
    z: MatRef<'_, f64>,
    y: &[f64],
    (l1, l2): (f64, f64),
    mut state: BlockState<'_>,
    work: &mut BlockWork,
) -> Result<BlockStepInfo> {
    let block = LinearBlock { z, y, l1, l2 };
    block.scores(state.x, state.scores);
    update.update(&block, &mut state, work)
}

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
/// iterate at any time. [`crate::SblrParams::fit`] runs it inside `bl_core::engine::run`.
///
/// Holds a view of the data (never a copy) and `O((s + t) r n)` buffers.
#[derive(Debug)]
pub struct BinarySolver<'a> {
    stacked: MatRef<'a, f64>,
    s: usize,
    t: usize,
    n: usize,
    r: usize,
    y: Vec<f64>,
    penalties: Penalties,
    update: SharedUpdate,
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

impl<'a> BinarySolver<'a> {
    /// A solver for a binary data set (class 1 is `+1`).
    ///
    /// # Errors
    /// Invalid parameters; [`SblrError::NotBinary`], [`SblrError::MissingClass`],
    /// [`SblrError::InvalidRank`]; a bad warm start.
    pub fn new(data: &'a MatrixDataset, params: &SblrValidParams) -> Result<Self> {
        let y = binary_signs(data)?;
        let (s, t) = data.shape();
        Self::from_stacked(data.stacked(), s, t, y, params)
    }

    /// A solver on the stacked samples `[X_1 ... X_n]` (`s x t n`) with labels `±1`
    /// (used by one-vs-all, which relabels without copying the data).
    ///
    /// # Errors
    /// As [`BinarySolver::new`]; [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when the stacked matrix does
    /// not hold `y.len()` samples of `s x t`.
    pub fn from_stacked(
        stacked: MatRef<'a, f64>,
        s: usize,
        t: usize,
        y: Vec<f64>,
        params: &SblrValidParams,
    ) -> Result<Self> {
        let n = y.len();
        bl_core::error::ensure_nonempty("labels", n)?;
        ensure_shape(
            "BinarySolver: stacked data",
            (s, t * n),
            (stacked.nrows(), stacked.ncols()),
        )?;
        check_signs(&y)?;
        let r = params.rank;
        check_rank(r, s, t)?;
        let (u0, v0, b0) = initial_point(&params.init, stacked, s, t, &y, r, params.seed)?;
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
            stacked,
            s,
            t,
            n,
            r,
            y,
            penalties: Penalties {
                mu1: params.mu1,
                mu2: params.mu2,
                nu1: params.nu1,
                nu2: params.nu2,
            },
            update: params.block_updater(),
            stop: params.stop,
            prev_u: vec![0.0; s * r + 1],
            prev_v: vec![0.0; r * t + 1],
            zu: vec![0.0; s * r * n],
            zv: vec![0.0; r * t * n],
            zu_fresh: false,
            scores: vec![0.0; n],
            l_u: params.l_min,
            l_v: params.l_min,
            work: BlockWork::new((s * r).max(r * t), n),
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
        let (s, t, r) = (self.s, self.t, self.r);
        let v = MatRef::from_column_major_slice(&self.xv[..r * t], r, t).transpose();
        for (i, chunk) in self.zu.chunks_exact_mut(s * r).enumerate() {
            matmul(
                MatMut::from_column_major_slice_mut(chunk, s, r),
                Accum::Replace,
                self.stacked.subcols(i * t, t),
                v,
                1.0,
                Par::Seq,
            );
        }
    }

    /// Pass 2: `Z_v = U^T [X_1 ... X_n]`.
    fn compute_zv(&mut self) {
        let (s, t, r, n) = (self.s, self.t, self.r, self.n);
        let u = MatRef::from_column_major_slice(&self.xu[..s * r], s, r);
        matmul(
            MatMut::from_column_major_slice_mut(&mut self.zv, r, t * n),
            Accum::Replace,
            u.transpose(),
            self.stacked,
            1.0,
            Par::Seq,
        );
    }

    /// One iteration of the configured block update on `(U, b)` then `(V, b)` (Alg. 2:
    /// (7a)-(7d); Alg. 1: (6a)-(6b); or the user's [`BlockUpdate`]).
    ///
    /// # Errors
    /// Whatever the block update returns (`BlError::Numerical` for the built-in ones when
    /// no acceptable step is found).
    pub fn step(&mut self) -> Result<StepReport> {
        let update = self.update.clone();
        let (s, t, r, n) = (self.s, self.t, self.r, self.n);
        let (sr, rt) = (s * r, r * t);
        let objective_before = self.objective;
        self.prev_u.copy_from_slice(&self.xu);
        self.prev_v.copy_from_slice(&self.xv);

        // (U, b) block with V fixed.
        if !self.zu_fresh {
            self.compute_zu();
        }
        self.zu_fresh = false;
        let u_step = update_block(
            &*update.0,
            MatRef::from_column_major_slice(&self.zu, sr, n),
            &self.y,
            (self.penalties.mu1, self.penalties.mu2),
            BlockState {
                x: &mut self.xu,
                scores: &mut self.scores,
                lipschitz: &mut self.l_u,
            },
            &mut self.work,
        )?;
        let intercept_half = self.xu[sr];
        self.xv[rt] = intercept_half;

        // (V, b) block with U fixed.
        self.compute_zv();
        let v_step = update_block(
            &*update.0,
            MatRef::from_column_major_slice(&self.zv, rt, n),
            &self.y,
            (self.penalties.nu1, self.penalties.nu2),
            BlockState {
                x: &mut self.xv,
                scores: &mut self.scores,
                lipschitz: &mut self.l_v,
            },
            &mut self.work,
        )?;
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
