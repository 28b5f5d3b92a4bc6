//! Algorithm 3: the two proximal-linear block steps of the multinomial model and its
//! starting point.

use bl_core::data::{Element, MatrixDataset};
use bl_core::error::build::{invalid, numerical, shape_mismatch};
use bl_core::logistic::{log_sum_exp_with_zero, softmax_with_zero};
use bl_core::prox::{elastic_net_penalty, elastic_net_prox_step};
use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::Mat;

use crate::bilinear::{check_rank, signed_top_pairs};
use crate::block::{Buffers, ProxBlock, Trials, backtrack};
use crate::error::{Result, SblrError};
use crate::params::{Init, StopCriterion};
use crate::passes::{Pool, Stacked};

use super::{FittedMultinomialSblr, MultinomialValidParams};
use bl_core::engine::FitReport;

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
            let (fi, y, loss_i) = self.sample_loss(f, i);
            sum += loss_i;
            let pi = &mut probs[i * m..(i + 1) * m];
            // Lengths agree by construction.
            let _ = softmax_with_zero(fi, pi);
            for c in 0..m {
                g[i * m + c] = (pi[c] - f64::from(u8::from(y == c))) / n as f64;
            }
        }
        sum / n as f64
    }

    /// Sample `i`'s scores `f_i`, label `y_i` and loss `log(1 + sum_c exp(f_ic)) - f_iy`.
    fn sample_loss<'f>(&self, f: &'f [f64], i: usize) -> (&'f [f64], usize, f64) {
        let m = self.m;
        let fi = &f[i * m..(i + 1) * m];
        let y = self.labels[i];
        (
            fi,
            y,
            log_sum_exp_with_zero(fi) - if y < m { fi[y] } else { 0.0 },
        )
    }

    fn loss(&self, f: &[f64]) -> f64 {
        let n = self.labels.len();
        let mut sum = 0.0;
        for i in 0..n {
            sum += self.sample_loss(f, i).2;
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

pub(super) struct MultinomialSolver<'a, T: Element> {
    data: Stacked<'a, T>,
    threads: Pool,
    s: usize,
    t: usize,
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

impl<'a, T: Element> MultinomialSolver<'a, T> {
    pub(super) fn new(data: &'a MatrixDataset<T>, params: &MultinomialValidParams) -> Result<Self> {
        let counts = data.class_counts();
        if let Some(k) = counts.iter().position(|&c| c == 0) {
            return Err(SblrError::MissingClass {
                class: data.class_names()[k].clone(),
            });
        }
        let (s, t) = data.shape();
        let r = params.rank();
        check_rank(r, s, t)?;
        let n = data.n_samples();
        let m = data.n_classes() - 1;
        // The reduced features hold m r values per sample and row (column): with many
        // classes they outgrow the data, so they are checked before anything is built.
        bl_core::limits::buffer_len(
            "MultinomialSblr: s x (classes - 1) x rank x n",
            &[s, m, r, n],
        )?;
        bl_core::limits::buffer_len(
            "MultinomialSblr: (classes - 1) x rank x t x n",
            &[m, r, t, n],
        )?;
        let stacked = Stacked::new(data.stacked(), s, t, n)?;
        let labels = data.labels().to_vec();
        let (u_all, v_all, b0) = initial_factors(params.init(), data, r, params.seed())?;
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
            data: stacked,
            threads: params.iteration().pool()?,
            s,
            t,
            r,
            m,
            labels,
            mu: (params.mu1(), params.mu2()),
            nu: (params.nu1(), params.nu2()),
            l_min: params.l_min(),
            eta: params.eta(),
            stop: params.stop(),
            prev_u: xu.clone(),
            prev_v: xv.clone(),
            xu,
            xv,
            class_u,
            class_v,
            zu: bl_core::limits::try_zeroed(
                "MultinomialSblr: s x (classes - 1) x rank x n",
                &[s, m, r, n],
            )?,
            zv: bl_core::limits::try_zeroed(
                "MultinomialSblr: (classes - 1) x rank x t x n",
                &[m, r, t, n],
            )?,
            scores: vec![0.0; n * m],
            l_u: params.l_min(),
            l_v: params.l_min(),
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

    /// `Z_u[i] = X_i [V_1 ... V_m]` (`s x m r`) for every sample.
    fn compute_zu(&mut self) {
        let (t, mr) = (self.t, self.m * self.r);
        self.data
            .times_v(&self.xv[..mr * t], mr, &mut self.zu, &self.threads);
    }

    /// `Z_v[i] = [U_1 ... U_m]^T X_i` (`m r x t`) for every sample.
    fn compute_zv(&mut self) {
        let (s, mr) = (self.s, self.m * self.r);
        self.data
            .u_times(&self.xu[..s * mr], mr, &mut self.zv, &self.threads);
    }

    /// The loss at the current iterate.
    pub(super) fn loss(&self) -> f64 {
        self.loss
    }

    /// The fitted model at the current iterate.
    pub(super) fn into_model(
        self,
        report: FitReport,
        class_names: Vec<String>,
        params: MultinomialValidParams,
    ) -> FittedMultinomialSblr {
        let (s, t, r, m) = (self.s, self.t, self.r, self.m);
        let mut v = vec![0.0; t * m * r];
        for c in 0..m {
            for k in 0..r {
                for j in 0..t {
                    v[c * t * r + k * t + j] = self.xv[j * m * r + c * r + k];
                }
            }
        }
        FittedMultinomialSblr {
            s,
            t,
            rank: r,
            m,
            u: self.xu[..s * m * r].to_vec(),
            v,
            intercepts: self.xu[s * m * r..].to_vec(),
            objective: self.objective,
            report,
            class_names,
            params,
        }
    }

    /// One accepted proximal step (Alg. 3) of the `U` block (`u_block`) or the `V` block,
    /// whose features must be fresh; returns the loss after the step.
    fn block_step(&mut self, u_block: bool) -> Result<f64> {
        let (z, class_of, penalties, x, lipschitz) = if u_block {
            (
                &self.zu,
                &self.class_u,
                self.mu,
                &mut self.xu,
                &mut self.l_u,
            )
        } else {
            (
                &self.zv,
                &self.class_v,
                self.nu,
                &mut self.xv,
                &mut self.l_v,
            )
        };
        let block = MultiBlock::new(z, class_of, &self.labels, self.m, penalties);
        block.scores(x, &mut self.scores);
        prox_step(
            &block,
            x,
            &mut self.scores,
            lipschitz,
            self.l_min,
            self.eta,
            &mut self.work,
        )?;
        Ok(block.loss(&self.scores))
    }

    /// One iteration; returns `(objective, q^k, L_u, L_v)`.
    pub(super) fn step(&mut self) -> Result<(f64, f64, f64, f64)> {
        let (s, t, r, m) = (self.s, self.t, self.r, self.m);
        let (du, dv) = (s * m * r, m * r * t);
        let before = self.objective;
        self.prev_u.copy_from_slice(&self.xu);
        self.prev_v.copy_from_slice(&self.xv);
        self.compute_zu();
        self.block_step(true)?;
        self.xv[dv..].copy_from_slice(&self.xu[du..]);
        self.compute_zv();
        let loss = self.block_step(false)?;
        self.xu[du..].copy_from_slice(&self.xv[dv..]);
        self.loss = loss;
        self.objective = loss + self.penalty();
        if !self.objective.is_finite() {
            return Err(numerical("MultinomialSblr", "the objective is not finite"));
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
fn initial_factors<T: Element>(
    init: &Init,
    data: &MatrixDataset<T>,
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
                        mean[(a, j)] += w * x[(a, j)].to_f64();
                    }
                }
            }
        }
        mean
    };
    let mut put = |c: usize, m_c: &Mat<f64>, sign: f64| -> Result<()> {
        let (u, v) = signed_top_pairs(m_c.as_ref(), r)?;
        for (dst, x) in u_all[c * s * r..(c + 1) * s * r].iter_mut().zip(u) {
            *dst = sign * x;
        }
        v_all[c * t * r..(c + 1) * t * r].copy_from_slice(&v);
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
                    return Err(shape_mismatch(
                        context,
                        format!("{what} = {expected} values"),
                        format!("{found} values"),
                    ));
                }
            }
            return Ok((u.clone(), v.clone(), intercepts.clone()));
        }
    }
    Ok((u_all, v_all, vec![0.0; m]))
}
