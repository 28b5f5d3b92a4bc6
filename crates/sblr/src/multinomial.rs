//! The multinomial model (Sec. 6, eqs. (29)-(33), Algorithm 3).
//!
//! With `K = m + 1` classes, the last class is the zero-score reference and class
//! `c < m` has its own `U_c` (`s x r`), `V_c` (`t x r`) and `b_c`:
//!
//! ```text
//! p(y = c | X) = exp(f_c) / (1 + sum_j exp(f_j)),   f_c = tr(U_c^T X V_c) + b_c
//! min  (1/n) sum_i [log(1 + sum_c exp(f_ic)) - f_{i, y_i}]
//!      + sum_c (mu1 |U_c|_1 + mu2/2 ||U_c||^2 + nu1 |V_c|_1 + nu2/2 ||V_c||^2)
//! ```
//!
//! Algorithm 3 here: per iteration one proximal-linear step on the block
//! `(U_1..U_m, b)` and one on `(V_1..V_m, b)`, each with the backtracking rule of
//! (13)/(15) (`L = max(L_min, L_prev eta^k)`, `k >= -1` smallest with sufficient decrease),
//! exactly as Alg. 2 does for the binary model. The data are read twice per iteration:
//! `X_i [V_1 ... V_m]` per sample and `[U_1 ... U_m]^T [X_1 ... X_n]` in one product.
//!
//! The hyperparameters are those of [`SblrParams`]; the solver must be
//! [`Solver::Alg2`] (Algorithm 3 is its multinomial form). A warm start is
//! [`Init::WarmMultinomial`] ([`FittedMultinomialSblr::warm_start`]); the binary
//! [`Init::Warm`] is rejected. [`Init::MeanSvd`] starts every class at the paper's binary start;
//! [`Init::LabelWeightedSvd`] starts class `c` at the top singular pairs of
//! `mean(X | c) - mean(X | reference)`.

use bl_core::data::MatrixDataset;
use bl_core::engine::{FitReport, Observer, Progress, run};
use bl_core::linalg::top_singular_vectors;
use bl_core::logistic::{log_sum_exp_with_zero, softmax_with_zero};
use bl_core::prox::{elastic_net_penalty, elastic_net_prox_step};
use bl_core::random::{fill_standard_normal, seeded_rng};
use bl_core::{Fit, Fitted, ParamGuard};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::bilinear::check_rank;
use crate::block::{Buffers, ProxBlock, Trials, backtrack};
use crate::error::{Result, SblrError, invalid, numerical};
use crate::ova::argmax;
use crate::params::{Init, SblrParams, SblrValidParams, Solver, StopCriterion};
use crate::saved::{self, SavedReport};

/// Multinomial sparse bilinear logistic regression (Algorithm 3).
#[derive(Debug, Clone, Copy, Default)]
pub struct MultinomialSblr;

impl MultinomialSblr {
    /// The hyperparameter builder (the parameters of the binary model, see
    /// [`crate::params`]); [`SblrParams::multinomial`] turns it into the parameters of the
    /// multinomial fit.
    #[must_use]
    pub fn params() -> SblrParams {
        SblrParams::default()
    }
}

/// Hyperparameters of [`MultinomialSblr`]: the [`SblrParams`] of the binary model, fitted
/// by Alg. 3 (`SblrParams::default().rank(2).multinomial().fit(&data)`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultinomialParams(pub SblrParams);

impl SblrParams {
    /// These parameters for the multinomial model (Alg. 3).
    #[must_use]
    pub fn multinomial(self) -> MultinomialParams {
        MultinomialParams(self)
    }
}

impl ParamGuard for MultinomialParams {
    type Checked = SblrValidParams;
    type Error = SblrError;

    /// The checks of [`SblrParams`] and no custom block update (Alg. 3 updates all classes
    /// jointly); [`Solver::Alg1`] and a binary [`Init::Warm`] are refused by the fit.
    ///
    /// # Errors
    /// `SblrError::Core(BlError::InvalidParameter)` naming the first invalid field.
    fn check(&self) -> Result<SblrValidParams> {
        let params = self.0.check()?;
        if params.block_update.is_some() {
            return Err(invalid(
                "block_update",
                "a custom block update",
                "none (Alg. 3 updates all classes jointly)",
            ));
        }
        Ok(params)
    }
}

impl Fit<MatrixDataset> for MultinomialParams {
    type Fitted = FittedMultinomialSblr;
    type Error = SblrError;

    /// Validates the parameters and fits the multinomial model; the last class of `data`
    /// is the reference class. Observers see every outer iteration.
    ///
    /// # Errors
    /// Invalid parameters (including [`Solver::Alg1`] and the binary [`Init::Warm`]);
    /// `BlError::ShapeMismatch` for an [`Init::WarmMultinomial`] of the wrong size;
    /// [`SblrError::MissingClass`] when a class has no sample; [`SblrError::InvalidRank`];
    /// `BlError::Numerical`.
    fn fit_observed(
        &self,
        data: &MatrixDataset,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedMultinomialSblr> {
        let params = &self.check()?;
        let mut solver = MultinomialSolver::new(data, params)?;
        let report = run(&params.rule(), observers, |_| {
            let (objective, change, l_u, l_v) = solver.step()?;
            Ok::<_, SblrError>(
                Progress::new(objective, change)
                    .with("loss", solver.loss)
                    .with("l_u", l_u)
                    .with("l_v", l_v),
            )
        })?;
        let (s, t, r, m) = (solver.s, solver.t, solver.r, solver.m);
        let mut v = vec![0.0; t * m * r];
        for c in 0..m {
            for k in 0..r {
                for j in 0..t {
                    v[c * t * r + k * t + j] = solver.xv[j * m * r + c * r + k];
                }
            }
        }
        Ok(FittedMultinomialSblr {
            s,
            t,
            rank: r,
            m,
            u: solver.xu[..s * m * r].to_vec(),
            v,
            intercepts: solver.xu[s * m * r..].to_vec(),
            objective: solver.objective,
            report,
            class_names: data.class_names().to_vec(),
            params: params.clone(),
        })
    }
}

/// One block of the multinomial model: per-sample feature blocks of `dim` entries, each
/// entry belonging to one class.
struct MultiBlock<'a> {
    z: &'a [f64],
    dim: usize,
    class_of: &'a [usize],
    labels: &'a [usize],
    m: usize,
    l1: f64,
    l2: f64,
}

impl<'a> MultiBlock<'a> {
    /// The block of the variables whose classes are `class_of` (so `dim = class_of.len()`),
    /// with per-sample features `z` and penalties `(l1, l2)`.
    fn new(
        z: &'a [f64],
        class_of: &'a [usize],
        labels: &'a [usize],
        m: usize,
        (l1, l2): (f64, f64),
    ) -> Self {
        MultiBlock {
            z,
            dim: class_of.len(),
            class_of,
            labels,
            m,
            l1,
            l2,
        }
    }

    /// Scores `f[i*m + c] = b_c + sum_{e in class c} x_e z_i[e]` of `x = (w, b_1..b_m)`.
    fn scores(&self, x: &[f64], out: &mut [f64]) {
        let (d, m) = (self.dim, self.m);
        for (zi, fi) in self.z.chunks_exact(d).zip(out.chunks_exact_mut(m)) {
            fi.copy_from_slice(&x[d..d + m]);
            for e in 0..d {
                fi[self.class_of[e]] += x[e] * zi[e];
            }
        }
    }

    /// Loss of scores `f`, with `probs[i*m + c] = p_ic` and `g[i*m + c] = (p_ic - [y_i = c]) / n`.
    fn loss_and_dscores(&self, f: &[f64], probs: &mut [f64], g: &mut [f64]) -> f64 {
        let m = self.m;
        let n = self.labels.len();
        let mut sum = 0.0;
        for i in 0..n {
            let fi = &f[i * m..(i + 1) * m];
            let y = self.labels[i];
            sum += log_sum_exp_with_zero(fi) - if y < m { fi[y] } else { 0.0 };
            let pi = &mut probs[i * m..(i + 1) * m];
            // Lengths agree by construction.
            let _ = softmax_with_zero(fi, pi);
            for c in 0..m {
                g[i * m + c] = (pi[c] - f64::from(u8::from(y == c))) / n as f64;
            }
        }
        sum / n as f64
    }

    fn loss(&self, f: &[f64]) -> f64 {
        let m = self.m;
        let n = self.labels.len();
        let mut sum = 0.0;
        for i in 0..n {
            let fi = &f[i * m..(i + 1) * m];
            let y = self.labels[i];
            sum += log_sum_exp_with_zero(fi) - if y < m { fi[y] } else { 0.0 };
        }
        sum / n as f64
    }

    /// `loss(f + df) - loss(f)` without cancellation, from the probabilities at `f`:
    /// per sample `log1p(sum_c p_c expm1(df_c)) - df_y`.
    fn loss_change(&self, probs: &[f64], df: &[f64]) -> f64 {
        let m = self.m;
        let n = self.labels.len();
        let mut sum = 0.0;
        for i in 0..n {
            let mut acc = 0.0;
            for c in 0..m {
                acc += probs[i * m + c] * df[i * m + c].exp_m1();
            }
            let y = self.labels[i];
            sum += acc.ln_1p() - if y < m { df[i * m + y] } else { 0.0 };
        }
        sum / n as f64
    }

    /// Gradient of the loss in `(w, b)` from `g = dloss/df`.
    fn gradient(&self, g: &[f64], out: &mut [f64]) {
        let (d, m) = (self.dim, self.m);
        out[..d + m].iter_mut().for_each(|v| *v = 0.0);
        for (zi, gi) in self.z.chunks_exact(d).zip(g.chunks_exact(m)) {
            for e in 0..d {
                out[e] += gi[self.class_of[e]] * zi[e];
            }
            for c in 0..m {
                out[d + c] += gi[c];
            }
        }
    }
}

struct MultiWork {
    probs: Vec<f64>,
    g_scores: Vec<f64>,
    grad: Vec<f64>,
    trial: Vec<f64>,
    delta: Vec<f64>,
    dscores: Vec<f64>,
}

/// One proximal-linear step with the backtracking rule (13)/(15) on a multinomial block.
fn prox_step(
    block: &MultiBlock<'_>,
    x: &mut [f64],
    scores: &mut [f64],
    lipschitz: &mut f64,
    l_min: f64,
    eta: f64,
    work: &mut MultiWork,
) -> Result<f64> {
    let (d, m) = (block.dim, block.m);
    let nm = scores.len();
    let d1 = d + m;
    let loss0 = block.loss_and_dscores(scores, &mut work.probs[..nm], &mut work.g_scores[..nm]);
    block.gradient(&work.g_scores[..nm], &mut work.grad[..d1]);
    let mut trials = 0;
    let rule = Trials::StepRule {
        previous: *lipschitz,
        l_min,
        eta,
    };
    let buffers = Buffers {
        trial: &mut work.trial[..d1],
        delta: &mut work.delta[..d1],
        dscores: &mut work.dscores[..nm],
    };
    let found = backtrack(
        block,
        &x[..d1],
        &work.probs[..nm],
        &work.grad[..d1],
        rule,
        buffers,
        &mut trials,
    )?;
    let Some((l, _, change)) = found else {
        return Err(numerical(
            "multinomial prox step",
            format!(
                "no step size satisfied the sufficient-decrease test after {trials} trials \
                 (from L = {})",
                *lipschitz
            ),
        ));
    };
    x[..d1].copy_from_slice(&work.trial[..d1]);
    for (f, df) in scores.iter_mut().zip(&work.dscores[..nm]) {
        *f += df;
    }
    *lipschitz = l;
    Ok(loss0 + change)
}

impl ProxBlock for MultiBlock<'_> {
    fn prox_point(&self, x: &[f64], g: &[f64], lipschitz: f64, out: &mut [f64]) -> Result<()> {
        let (d, m) = (self.dim, self.m);
        elastic_net_prox_step(&x[..d], &g[..d], lipschitz, self.l1, self.l2, &mut out[..d])?;
        for e in d..d + m {
            out[e] = x[e] - g[e] / lipschitz;
        }
        Ok(())
    }
    fn score_change(&self, delta: &[f64], out: &mut [f64]) {
        self.scores(delta, out);
    }
    fn loss_change(&self, base: &[f64], dscores: &[f64]) -> f64 {
        MultiBlock::loss_change(self, base, dscores)
    }
}

struct MultinomialSolver<'a> {
    stacked: MatRef<'a, f64>,
    s: usize,
    t: usize,
    n: usize,
    r: usize,
    m: usize,
    labels: Vec<usize>,
    mu: (f64, f64),
    nu: (f64, f64),
    l_min: f64,
    eta: f64,
    stop: StopCriterion,
    xu: Vec<f64>,
    xv: Vec<f64>,
    prev_u: Vec<f64>,
    prev_v: Vec<f64>,
    class_u: Vec<usize>,
    class_v: Vec<usize>,
    zu: Vec<f64>,
    zv: Vec<f64>,
    scores: Vec<f64>,
    l_u: f64,
    l_v: f64,
    work: MultiWork,
    objective: f64,
    loss: f64,
}

impl<'a> MultinomialSolver<'a> {
    fn new(data: &'a MatrixDataset, params: &SblrValidParams) -> Result<Self> {
        if params.solver != Solver::Alg2 {
            return Err(invalid(
                "solver",
                "Alg1",
                "Solver::Alg2 (the multinomial model is solved by Algorithm 3)",
            ));
        }
        let counts = data.class_counts();
        if let Some(k) = counts.iter().position(|&c| c == 0) {
            return Err(SblrError::MissingClass {
                class: data.class_names()[k].clone(),
            });
        }
        let (s, t) = data.shape();
        let r = params.rank;
        check_rank(r, s, t)?;
        let n = data.n_samples();
        let m = data.n_classes() - 1;
        let stacked = data.stacked();
        let labels = data.labels().to_vec();
        let (u_all, v_all, b0) = initial_factors(&params.init, data, r, params.seed)?;
        let mut xu = vec![0.0; s * m * r + m];
        xu[..s * m * r].copy_from_slice(&u_all);
        xu[s * m * r..].copy_from_slice(&b0);
        let mut xv = vec![0.0; m * r * t + m];
        xv[m * r * t..].copy_from_slice(&b0);
        // v_all: class c's V_c (t x r) at c*t*r; xv holds [V_1..V_m]^T (m r x t).
        for c in 0..m {
            for k in 0..r {
                for j in 0..t {
                    xv[j * m * r + c * r + k] = v_all[c * t * r + k * t + j];
                }
            }
        }
        let class_u = (0..s * m * r).map(|e| e / (s * r)).collect();
        let class_v = (0..m * r * t).map(|e| (e % (m * r)) / r).collect();
        let dmax = (s * m * r).max(m * r * t) + m;
        let mut solver = Self {
            stacked,
            s,
            t,
            n,
            r,
            m,
            labels,
            mu: (params.mu1, params.mu2),
            nu: (params.nu1, params.nu2),
            l_min: params.l_min,
            eta: params.eta,
            stop: params.stop,
            prev_u: xu.clone(),
            prev_v: xv.clone(),
            xu,
            xv,
            class_u,
            class_v,
            zu: vec![0.0; s * m * r * n],
            zv: vec![0.0; m * r * t * n],
            scores: vec![0.0; n * m],
            l_u: params.l_min,
            l_v: params.l_min,
            work: MultiWork {
                probs: vec![0.0; n * m],
                g_scores: vec![0.0; n * m],
                grad: vec![0.0; dmax],
                trial: vec![0.0; dmax],
                delta: vec![0.0; dmax],
                dscores: vec![0.0; n * m],
            },
            objective: f64::NAN,
            loss: f64::NAN,
        };
        solver.compute_zu();
        let mut scores = std::mem::take(&mut solver.scores);
        let loss = {
            let block = solver.u_block();
            block.scores(&solver.xu, &mut scores);
            block.loss(&scores)
        };
        solver.scores = scores;
        solver.loss = loss;
        solver.objective = loss + solver.penalty();
        Ok(solver)
    }

    fn u_block(&self) -> MultiBlock<'_> {
        MultiBlock::new(&self.zu, &self.class_u, &self.labels, self.m, self.mu)
    }

    fn penalty(&self) -> f64 {
        let (du, dv) = (self.s * self.m * self.r, self.m * self.r * self.t);
        elastic_net_penalty(&self.xu[..du], self.mu.0, self.mu.1)
            + elastic_net_penalty(&self.xv[..dv], self.nu.0, self.nu.1)
    }

    /// `Z_u[i] = X_i [V_1 ... V_m]` (`s x m r`), one product per sample.
    fn compute_zu(&mut self) {
        let (s, t, mr) = (self.s, self.t, self.m * self.r);
        let v_all = MatRef::from_column_major_slice(&self.xv[..mr * t], mr, t).transpose();
        for (i, chunk) in self.zu.chunks_exact_mut(s * mr).enumerate() {
            matmul(
                MatMut::from_column_major_slice_mut(chunk, s, mr),
                Accum::Replace,
                self.stacked.subcols(i * t, t),
                v_all,
                1.0,
                Par::Seq,
            );
        }
    }

    /// `Z_v = [U_1 ... U_m]^T [X_1 ... X_n]`, one product.
    fn compute_zv(&mut self) {
        let (s, t, n, mr) = (self.s, self.t, self.n, self.m * self.r);
        let u_all = MatRef::from_column_major_slice(&self.xu[..s * mr], s, mr);
        matmul(
            MatMut::from_column_major_slice_mut(&mut self.zv, mr, t * n),
            Accum::Replace,
            u_all.transpose(),
            self.stacked,
            1.0,
            Par::Seq,
        );
    }

    /// One iteration; returns `(objective, q^k, L_u, L_v)`.
    fn step(&mut self) -> Result<(f64, f64, f64, f64)> {
        let (s, t, r, m) = (self.s, self.t, self.r, self.m);
        let (du, dv) = (s * m * r, m * r * t);
        let before = self.objective;
        self.prev_u.copy_from_slice(&self.xu);
        self.prev_v.copy_from_slice(&self.xv);
        self.compute_zu();
        let block = MultiBlock::new(&self.zu, &self.class_u, &self.labels, m, self.mu);
        block.scores(&self.xu, &mut self.scores);
        prox_step(
            &block,
            &mut self.xu,
            &mut self.scores,
            &mut self.l_u,
            self.l_min,
            self.eta,
            &mut self.work,
        )?;
        self.xv[dv..].copy_from_slice(&self.xu[du..]);
        self.compute_zv();
        let loss = {
            let block = MultiBlock::new(&self.zv, &self.class_v, &self.labels, m, self.nu);
            block.scores(&self.xv, &mut self.scores);
            prox_step(
                &block,
                &mut self.xv,
                &mut self.scores,
                &mut self.l_v,
                self.l_min,
                self.eta,
                &mut self.work,
            )?;
            block.loss(&self.scores)
        };
        self.xu[du..].copy_from_slice(&self.xv[dv..]);
        self.loss = loss;
        self.objective = loss + self.penalty();
        if !self.objective.is_finite() {
            return Err(SblrError::Core(bl_core::BlError::Numerical {
                context: "MultinomialSblr",
                message: "the objective is not finite".into(),
            }));
        }
        let change = self.stop.quantity(
            &[
                (&self.prev_u[..], &self.xu[..]),
                (&self.prev_v[..dv], &self.xv[..dv]),
            ],
            before,
            self.objective,
        );
        Ok((self.objective, change, self.l_u, self.l_v))
    }
}

/// Initial `[U_1..U_m]` (`s x m r`, column-major), the `V_c` (class `c` at `c t r`) and
/// the intercepts `b_1..b_m` (zero except for a warm start).
fn initial_factors(
    init: &Init,
    data: &MatrixDataset,
    r: usize,
    seed: u64,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let (s, t) = data.shape();
    let m = data.n_classes() - 1;
    let n = data.n_samples();
    let mut u_all = vec![0.0; s * m * r];
    let mut v_all = vec![0.0; t * m * r];
    let mean_of = |weight: &dyn Fn(usize) -> f64| {
        let mut mean = Mat::<f64>::zeros(s, t);
        for i in 0..n {
            let w = weight(data.labels()[i]);
            if w != 0.0 {
                let x = data.sample(i);
                for j in 0..t {
                    for a in 0..s {
                        mean[(a, j)] += w * x[(a, j)];
                    }
                }
            }
        }
        mean
    };
    let mut put = |c: usize, m_c: &Mat<f64>, sign: f64| -> Result<()> {
        let svd = top_singular_vectors(m_c.as_ref(), r)?;
        for k in 0..r {
            let mut best = 0;
            for j in 0..t {
                if svd.v[(j, k)].abs() > svd.v[(best, k)].abs() {
                    best = j;
                }
            }
            let flip = if svd.v[(best, k)] < 0.0 { -1.0 } else { 1.0 };
            for a in 0..s {
                u_all[c * s * r + k * s + a] = sign * flip * svd.u[(a, k)];
            }
            for j in 0..t {
                v_all[c * t * r + k * t + j] = flip * svd.v[(j, k)];
            }
        }
        Ok(())
    };
    match init {
        Init::MeanSvd => {
            let mean = mean_of(&|_| 1.0 / n as f64);
            for c in 0..m {
                put(c, &mean, -1.0)?;
            }
        }
        Init::LabelWeightedSvd => {
            let counts = data.class_counts();
            for c in 0..m {
                let (nc, nr) = (counts[c] as f64, counts[m] as f64);
                let contrast = mean_of(&|l| {
                    if l == c {
                        1.0 / nc
                    } else if l == m {
                        -1.0 / nr
                    } else {
                        0.0
                    }
                });
                put(c, &contrast, 1.0)?;
            }
        }
        Init::Random => {
            let mut rng = seeded_rng(seed);
            fill_standard_normal(&mut rng, &mut u_all);
            fill_standard_normal(&mut rng, &mut v_all);
            let (cu, cv) = (1.0 / (s as f64).sqrt(), 1.0 / (t as f64).sqrt());
            u_all.iter_mut().for_each(|x| *x *= cu);
            v_all.iter_mut().for_each(|x| *x *= cv);
        }
        Init::Warm { .. } => {
            return Err(invalid(
                "init",
                "Warm",
                "MeanSvd, LabelWeightedSvd, Random or WarmMultinomial for the multinomial model",
            ));
        }
        Init::WarmMultinomial { u, v, intercepts } => {
            for (context, found, expected, what) in [
                (
                    "warm start U",
                    u.len(),
                    s * m * r,
                    format!("{m} x {s} x {r}"),
                ),
                (
                    "warm start V",
                    v.len(),
                    t * m * r,
                    format!("{m} x {t} x {r}"),
                ),
                ("warm start intercepts", intercepts.len(), m, format!("{m}")),
            ] {
                if found != expected {
                    return Err(SblrError::Core(bl_core::BlError::ShapeMismatch {
                        context,
                        expected: format!("{what} = {expected} values"),
                        found: format!("{found} values"),
                    }));
                }
            }
            return Ok((u.clone(), v.clone(), intercepts.clone()));
        }
    }
    Ok((u_all, v_all, vec![0.0; m]))
}

/// A fitted multinomial SBLR model; the last class is the zero-score reference.
///
/// Serializes with serde ([`FittedMultinomialSblr::to_json`], [`FittedMultinomialSblr::save`]);
/// deserializing, by any serde format, validates the model (see
/// [`FittedMultinomialSblr::from_json`]), so a loaded model never panics in `predict`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawFittedMultinomialSblr")]
pub struct FittedMultinomialSblr {
    s: usize,
    t: usize,
    rank: usize,
    m: usize,
    u: Vec<f64>,
    v: Vec<f64>,
    intercepts: Vec<f64>,
    objective: f64,
    report: FitReport,
    class_names: Vec<String>,
    params: SblrValidParams,
}

/// The fields of a saved [`FittedMultinomialSblr`], before validation.
#[derive(Deserialize)]
struct RawFittedMultinomialSblr {
    s: usize,
    t: usize,
    rank: usize,
    m: usize,
    u: Vec<f64>,
    v: Vec<f64>,
    intercepts: Vec<f64>,
    objective: f64,
    #[serde(flatten)]
    report: SavedReport,
    class_names: Vec<String>,
    params: SblrValidParams,
}

impl TryFrom<RawFittedMultinomialSblr> for FittedMultinomialSblr {
    type Error = SblrError;

    fn try_from(raw: RawFittedMultinomialSblr) -> Result<Self> {
        let model = FittedMultinomialSblr {
            s: raw.s,
            t: raw.t,
            rank: raw.rank,
            m: raw.m,
            u: raw.u,
            v: raw.v,
            intercepts: raw.intercepts,
            objective: raw.objective,
            report: raw.report.into_report(Self::MODEL, raw.objective)?,
            class_names: raw.class_names,
            params: raw.params,
        };
        model.validate()?;
        Ok(model)
    }
}

impl Fitted for FittedMultinomialSblr {
    /// The outer iterations: objective (31), `q^k`, and extras `loss`, `l_u`, `l_v`.
    fn report(&self) -> &FitReport {
        &self.report
    }
}

impl FittedMultinomialSblr {
    const MODEL: &'static str = "FittedMultinomialSblr";

    /// The checks of [`FittedMultinomialSblr::from_json`].
    fn validate(&self) -> Result<()> {
        let name = Self::MODEL;
        let (s, t, r, m) = (self.s, self.t, self.rank, self.m);
        saved::positive(name, "s", s)?;
        saved::positive(name, "t", t)?;
        if r == 0 || r > s.min(t) {
            return Err(saved::bad(
                name,
                "rank",
                format!("1..=min(s, t) = 1..={}", s.min(t)),
                r.to_string(),
            ));
        }
        if self.params.rank != r {
            return Err(saved::bad(
                name,
                "params.rank",
                format!("the model's rank {r}"),
                self.params.rank.to_string(),
            ));
        }
        saved::positive(name, "m", m)?;
        saved::class_names(name, &self.class_names, m.checked_add(1))?;
        let len = saved::product(name, "u", &[m, s, r])?;
        saved::length(
            name,
            "u",
            len,
            &format!("m x s x rank = {m} x {s} x {r}"),
            self.u.len(),
        )?;
        let len = saved::product(name, "v", &[m, t, r])?;
        saved::length(
            name,
            "v",
            len,
            &format!("m x t x rank = {m} x {t} x {r}"),
            self.v.len(),
        )?;
        saved::length(
            name,
            "intercepts",
            m,
            &format!("m = {m}, one per class but the reference"),
            self.intercepts.len(),
        )?;
        saved::finite(name, "u", &self.u)?;
        saved::finite(name, "v", &self.v)?;
        saved::finite(name, "intercepts", &self.intercepts)?;
        for c in 0..m {
            let (du, dv) = (s * r, t * r);
            saved::scores_bounded(
                name,
                "u, v, intercepts",
                saved::bilinear_bound(
                    &self.u[c * du..(c + 1) * du],
                    &self.v[c * dv..(c + 1) * dv],
                    s,
                    t,
                    self.intercepts[c],
                ),
            )?;
        }
        saved::finite_scalar(name, "objective", self.objective)?;
        Ok(())
    }

    /// The model as JSON text (the serde layout of the struct).
    ///
    /// # Errors
    /// [`SblrError::ModelFormat`] if encoding fails.
    pub fn to_json(&self) -> Result<String> {
        saved::to_json(Self::MODEL, self)
    }

    /// A model from the JSON text of [`FittedMultinomialSblr::to_json`], checked:
    /// `s, t, m >= 1`; `rank` in `1..=min(s, t)` and equal to `params.rank`; `m + 1`
    /// distinct class names; `u` of length `m s rank`, `v` of length `m t rank`,
    /// `intercepts` of length `m`, all finite; weights whose decision values on a sample
    /// with entries in `[-1, 1]` cannot overflow; a finite objective; valid parameters.
    /// `serde` deserialization of any format runs the same checks.
    ///
    /// # Errors
    /// [`SblrError::ModelFormat`] for text that is not JSON of the model's layout (or
    /// invalid parameters); [`SblrError::InvalidModel`] naming the first field that fails
    /// a check above.
    pub fn from_json(text: &str) -> Result<Self> {
        saved::from_json::<RawFittedMultinomialSblr, _>(Self::MODEL, text)
    }

    /// Writes [`FittedMultinomialSblr::to_json`] to a file.
    ///
    /// # Errors
    /// [`SblrError::Core`] with the I/O error.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        saved::write_file(path.as_ref(), &self.to_json()?)
    }

    /// Reads a model written by [`FittedMultinomialSblr::save`], with the checks of
    /// [`FittedMultinomialSblr::from_json`].
    ///
    /// # Errors
    /// [`SblrError::Core`] with the I/O error; as [`FittedMultinomialSblr::from_json`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_json(&saved::read_file(path.as_ref())?)
    }

    /// `U_c` (`s x r`) of explicit class `c < n_classes() - 1`; `None` for the reference
    /// class or an index out of range.
    #[must_use]
    pub fn u(&self, c: usize) -> Option<MatRef<'_, f64>> {
        let len = self.s * self.rank;
        let block = self
            .u
            .get(c.checked_mul(len)?..c.checked_add(1)?.checked_mul(len)?)?;
        Some(MatRef::from_column_major_slice(block, self.s, self.rank))
    }
    /// `V_c` (`t x r`) of explicit class `c`; `None` for the reference class or an index
    /// out of range.
    #[must_use]
    pub fn v(&self, c: usize) -> Option<MatRef<'_, f64>> {
        let len = self.t * self.rank;
        let block = self
            .v
            .get(c.checked_mul(len)?..c.checked_add(1)?.checked_mul(len)?)?;
        Some(MatRef::from_column_major_slice(block, self.t, self.rank))
    }
    /// The shape `(s, t)` of the samples the model was fitted on.
    #[must_use]
    pub fn shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }
    /// The rank `r` of every class's factors.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// Intercepts `b_c` of the explicit classes.
    #[must_use]
    pub fn intercepts(&self) -> &[f64] {
        &self.intercepts
    }

    /// An [`Init::WarmMultinomial`] start at this model (e.g. along a regularization path).
    #[must_use]
    pub fn warm_start(&self) -> Init {
        Init::WarmMultinomial {
            u: self.u.clone(),
            v: self.v.clone(),
            intercepts: self.intercepts.clone(),
        }
    }
    /// Number of classes `m + 1`.
    #[must_use]
    pub fn n_classes(&self) -> usize {
        self.m + 1
    }
    /// Class names; the last is the reference class.
    #[must_use]
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// Objective at the returned point.
    #[must_use]
    pub fn objective(&self) -> f64 {
        self.objective
    }
    /// The hyperparameters.
    #[must_use]
    pub fn params(&self) -> &SblrValidParams {
        &self.params
    }

    /// Scores `f_ic` (0 for the reference class), `scores[i][c]`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) for samples of another shape; [`bl_core::BlError::Numerical`] (as `SblrError::Core`)
    /// when a score overflows.
    pub fn decision_function(&self, data: &MatrixDataset) -> Result<Vec<Vec<f64>>> {
        let (s, t) = (self.s, self.t);
        if data.shape() != (s, t) {
            return Err(SblrError::Core(bl_core::BlError::ShapeMismatch {
                context: "FittedMultinomialSblr: samples",
                expected: format!("{s} x {t}"),
                found: format!("{} x {}", data.shape().0, data.shape().1),
            }));
        }
        let (r, m, n) = (self.rank, self.m, data.n_samples());
        let u_all = MatRef::from_column_major_slice(&self.u, s, m * r);
        let tr = t * r;
        let mut p = Mat::<f64>::zeros(m * r, t * n);
        matmul(
            p.as_mut(),
            Accum::Replace,
            u_all.transpose(),
            data.stacked(),
            1.0,
            Par::Seq,
        );
        let scores: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let mut row: Vec<f64> = (0..m)
                    .map(|c| {
                        let v =
                            MatRef::from_column_major_slice(&self.v[c * tr..(c + 1) * tr], t, r);
                        let mut f = self.intercepts[c];
                        for j in 0..t {
                            for k in 0..r {
                                f += p[(c * r + k, i * t + j)] * v[(j, k)];
                            }
                        }
                        f
                    })
                    .collect();
                row.push(0.0);
                row
            })
            .collect();
        for (i, row) in scores.iter().enumerate() {
            if let Some(&f) = row.iter().find(|f| !f.is_finite()) {
                return Err(saved::overflow(
                    "FittedMultinomialSblr::decision_function",
                    i,
                    f,
                ));
            }
        }
        Ok(scores)
    }

    /// Class probabilities `p[i][c]` (eq. (29)).
    ///
    /// # Errors
    /// As [`FittedMultinomialSblr::decision_function`].
    pub fn predict_proba(&self, data: &MatrixDataset) -> Result<Vec<Vec<f64>>> {
        let m = self.m;
        self.decision_function(data)?
            .into_iter()
            .map(|row| {
                let mut p = vec![0.0; m + 1];
                let reference = softmax_with_zero(&row[..m], &mut p[..m])?;
                p[m] = reference;
                Ok(p)
            })
            .collect()
    }

    /// The most probable class of every sample.
    ///
    /// # Errors
    /// As [`FittedMultinomialSblr::decision_function`].
    pub fn predict(&self, data: &MatrixDataset) -> Result<Vec<usize>> {
        Ok(self
            .decision_function(data)?
            .iter()
            .map(|row| argmax(row))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats other than JSON can carry NaN and infinities: the checks catch them.
    #[test]
    fn non_finite_entries_are_rejected_by_name() {
        let data = bl_core::random::synthetic_two_class(12, 3, 3, 1.0, 0).unwrap();
        let model = MultinomialSblr::params()
            .max_iter(5)
            .multinomial()
            .fit(&data)
            .unwrap();
        model.validate().unwrap();
        let mut bad = model.clone();
        bad.u[0] = f64::NAN;
        let mut bad_v = model.clone();
        bad_v.v[2] = f64::NEG_INFINITY;
        let mut bad_b = model.clone();
        bad_b.intercepts[0] = f64::NAN;
        for (field, m) in [("u", bad), ("v", bad_v), ("intercepts", bad_b)] {
            let err = m.validate().unwrap_err();
            assert!(
                matches!(err, SblrError::InvalidModel { field: f, .. } if f == field),
                "{err}"
            );
        }
    }
}
