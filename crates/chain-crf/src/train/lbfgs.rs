//! `lbfgs`: maximum likelihood with L1 and/or L2 penalties by L-BFGS, OWL-QN when `c1 > 0`
//! (D. C. Liu and J. Nocedal, *On the limited memory BFGS method for large scale
//! optimization*, Math. Programming 45, 1989; G. Andrew and J. Gao, *Scalable training of
//! L1-regularized log-linear models*, ICML 2007).
//!
//! The objective is CRFsuite's: `sum_s (log Z(x_s) - score(x_s, y_s)) + c1 ||w||_1 +
//! c2 ||w||_2^2`. Its gradient (expected minus observed feature values, by
//! forward-backward) is summed over the sequences on the fit's threads, in a fixed number
//! of chunks (one per thread) reduced in chunk order: a run is deterministic for a given
//! thread count. The optimizer is [`crate::optim`], run by `optimize` on any objective:
//! [`crate::distributed::fit_lbfgs`] gives it the sum over shards held elsewhere.
//!
//! Stopping, as CRFsuite, and the termination each stop reports: the relative decrease of
//! the objective over the last `period` iterations, `(F_{k - period} - F_k) / F_k`, at most
//! `delta` (the fit's `tol`): [`bl_core::TerminationReason::Converged`]; or
//! `||g|| / max(1, ||w||) <= epsilon` (or a zero pseudo-gradient, no descent direction
//! left): [`bl_core::TerminationReason::Solved`]; or a line search that finds no step
//! within its `max_linesearch` trials (or reaches a step bound, or an interval narrower
//! than rounding allows; [`crate::optim::Outcome::LineSearchFailed`]):
//! [`bl_core::TerminationReason::BudgetExhausted`], not converged, the weights those of the
//! last accepted step; or the iteration budget (`max_iterations`, the fit's `max_iter`):
//! `MaxIterations`, or the time limit: `TimeLimit`. A gradient
//! with a NaN or infinite entry where the loss is finite, or a line search none of whose
//! trials is finite ([`crate::optim::Outcome::NonFinite`]), is an error
//! ([`bl_core::BlError::Numerical`], context `"lbfgs"`), not a stop.

use bl_core::engine::{Observer, Progress, run};
use bl_core::limits;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{IterationLog, Job, Trained, load_transitions, nonnegative, norm_and_active};
use crate::data::Dataset;
use crate::error::{CrfError, Result};
use crate::features::FeatureSet;
use crate::lattice::Lattice;
use crate::optim::{
    LineSearchMethod, Outcome, QuasiNewton, Settings, balanced_ranges, non_finite, sum_in_order,
};

/// The line search of L-BFGS, by CRFsuite's names (`linesearch`): each runs the search of
/// libLBFGS that CRFsuite runs under that name, along the direction `d` from the weights
/// `w`, on `phi(a) = F(w + a d)`, from step 1 (the first iteration: `1 / ||d||`), at most
/// `max_linesearch` evaluations; [`crate::optim`] has the details. With `c1 > 0` (OWL-QN)
/// every value runs the same search, halving under the Armijo condition on the projected
/// points, as CRFsuite does (libLBFGS runs OWL-QN only with backtracking, and CRFsuite asks
/// for backtracking whenever `c1 > 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum LineSearch {
    /// Moré and Thuente's search to the strong Wolfe conditions (`ftol` 1e-4, `gtol` 0.9),
    /// by safeguarded cubic and quadratic interpolation; it may take steps longer than 1.
    /// CRFsuite's default.
    #[default]
    MoreThuente,
    /// Backtracking to the Armijo condition `phi(a) <= phi(0) + 1e-4 a phi'(0)` and the
    /// regular Wolfe curvature condition `phi'(a) >= 0.9 phi'(0)`: the step is halved while
    /// the decrease is too small and multiplied by 2.1 while the slope is still too steep.
    Backtracking,
    /// Backtracking to the strong Wolfe conditions: as `Backtracking`, and the step is also
    /// halved while `phi'(a) > 0.9 |phi'(0)|`.
    StrongBacktracking,
}

impl LineSearch {
    /// The optimizer's search for this name (used when `c1 = 0`).
    fn method(self) -> LineSearchMethod {
        match self {
            Self::MoreThuente => LineSearchMethod::MoreThuente,
            Self::Backtracking => LineSearchMethod::BacktrackingWolfe,
            Self::StrongBacktracking => LineSearchMethod::BacktrackingStrongWolfe,
        }
    }
}

/// Settings of `lbfgs` (CRFsuite's names and defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Lbfgs {
    /// L1 coefficient (`c1`, default 0).
    pub c1: f64,
    /// L2 coefficient (`c2`, default 1).
    pub c2: f64,
    /// Stored correction pairs (`num_memories`, default 6).
    pub num_memories: usize,
    /// Gradient test threshold (`epsilon`, default 1e-5).
    pub epsilon: f64,
    /// Iterations over which the relative decrease is measured (`period`, default 10).
    pub period: usize,
    /// The line search (`linesearch`, default `MoreThuente`; [`LineSearch`]). Only L-BFGS
    /// (`c1 = 0`) reads it: OWL-QN always halves the step under the Armijo condition, as
    /// in CRFsuite.
    pub linesearch: LineSearch,
    /// Line-search trials per iteration (`max_linesearch`, default 20).
    pub max_linesearch: usize,
}

impl Default for Lbfgs {
    fn default() -> Self {
        Self {
            c1: 0.0,
            c2: 1.0,
            num_memories: 6,
            epsilon: 1e-5,
            period: 10,
            linesearch: LineSearch::MoreThuente,
            max_linesearch: 20,
        }
    }
}

impl Lbfgs {
    pub(crate) fn check(&self) -> Result<()> {
        nonnegative("c1", self.c1)?;
        nonnegative("c2", self.c2)?;
        nonnegative("epsilon", self.epsilon)?;
        bl_core::params::at_least("num_memories", self.num_memories, 1)?;
        bl_core::params::at_least("period", self.period, 1)?;
        bl_core::params::at_least("max_linesearch", self.max_linesearch, 1)?;
        Ok(())
    }
}

/// One worker's share: a contiguous range of sequences and its own gradient buffer.
#[derive(Debug, Clone)]
struct Chunk {
    range: std::ops::Range<usize>,
    grad: Vec<f64>,
    lattice: Lattice,
    state: Vec<f64>,
    /// Edge marginals without the transition factor, summed over the chunk.
    edges: Vec<f64>,
    /// Observed transitions of the chunk.
    observed: Vec<f64>,
    marg: Vec<f64>,
}

/// The negative log-likelihood and its gradient over a data set (module docs).
#[derive(Debug)]
pub(crate) struct Likelihood<'a> {
    data: &'a Dataset,
    features: &'a FeatureSet,
    chunks: Vec<Chunk>,
    /// The dense `L x L` transition weights of the point being evaluated.
    trans: Vec<f64>,
    /// Their `exp(T - max T)`.
    exp_trans: Vec<f64>,
}

impl<'a> Likelihood<'a> {
    /// Split into `n_chunks >= 1` chunks of nearly equal attribute counts.
    ///
    /// Memory: per chunk a gradient (one value per weight) and two `L x L` tables, and
    /// two `L x L` tables beside them.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` naming the buffer (the weights, the labels) when one
    /// exceeds [`bl_core::limits::MAX_ELEMENTS`] values or cannot be reserved, before it
    /// is filled.
    pub(crate) fn new(
        data: &'a Dataset,
        features: &'a FeatureSet,
        n_chunks: usize,
    ) -> Result<Self> {
        let dim = features.len();
        let l = features.n_labels();
        let square = "labels x labels (lbfgs transitions)";
        let cost = |s: usize| {
            let x = data.instance(s);
            x.items.n_attributes() + x.items.len() * l
        };
        let ranges = balanced_ranges(data.len(), n_chunks, cost);
        let mut chunks = limits::try_with_capacity("chunks (lbfgs)", &[ranges.len()])?;
        for range in ranges {
            chunks.push(Chunk {
                range,
                grad: limits::try_zeroed("weights (lbfgs gradient)", &[dim])?,
                lattice: Lattice::default(),
                state: Vec::new(),
                edges: limits::try_zeroed(square, &[l, l])?,
                observed: limits::try_zeroed(square, &[l, l])?,
                marg: Vec::new(),
            });
        }
        Ok(Self {
            data,
            features,
            chunks,
            trans: limits::try_zeroed(square, &[l, l])?,
            exp_trans: limits::try_zeroed(square, &[l, l])?,
        })
    }

    /// The loss at `w`; writes its gradient into `grad`.
    pub(crate) fn eval(&mut self, w: &[f64], grad: &mut [f64]) -> f64 {
        let features = self.features;
        let data = self.data;
        let mt = load_transitions(features, w, 1.0, &mut self.trans, &mut self.exp_trans);
        let (trans, exp_trans) = (&self.trans, &self.exp_trans);
        let losses: Vec<f64> = self
            .chunks
            .par_iter_mut()
            .map(|chunk| {
                pulp::Arch::new().dispatch(ChunkKernel {
                    chunk,
                    data,
                    features,
                    w,
                    trans,
                    exp_trans,
                    mt,
                })
            })
            .collect();
        let grads: Vec<&[f64]> = self.chunks.iter().map(|c| c.grad.as_slice()).collect();
        sum_in_order(&grads, grad);
        losses.iter().sum()
    }
}

/// One chunk's loss and gradient, run through `pulp::Arch::dispatch` so that the
/// forward-backward loops are compiled for the widest vector instructions the CPU has
/// (detected at run time). Multiplies and adds stay separate and in a fixed order, so the
/// result does not depend on the instruction set.
struct ChunkKernel<'c, 'a> {
    chunk: &'c mut Chunk,
    data: &'a Dataset,
    features: &'a FeatureSet,
    w: &'a [f64],
    trans: &'a [f64],
    exp_trans: &'a [f64],
    mt: f64,
}

impl pulp::WithSimd for ChunkKernel<'_, '_> {
    type Output = f64;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> f64 {
        let Self {
            chunk,
            data,
            features,
            w,
            trans,
            exp_trans,
            mt,
        } = self;
        let l = features.n_labels();
        chunk.grad.fill(0.0);
        chunk.edges.fill(0.0);
        chunk.marg.resize(l, 0.0);
        let mut loss = 0.0;
        for s in chunk.range.clone() {
            let x = data.instance(s);
            let mut state = std::mem::take(&mut chunk.state);
            features.state_scores_unchecked(x.items, w, &mut state);
            let mut gold = 0.0;
            for (t, &y) in x.labels.iter().enumerate() {
                gold += state[t * l + y as usize];
                if t > 0 {
                    gold += trans[x.labels[t - 1] as usize * l + y as usize];
                }
            }
            let log_z = chunk
                .lattice
                .forward_backward_unchecked(state, l, exp_trans, mt);
            loss += log_z - gold;
            // Expected state features minus the observed ones.
            let g = &mut chunk.grad;
            for t in 0..x.items.len() {
                chunk.lattice.state_marginals_unchecked(t, &mut chunk.marg);
                let y = x.labels[t] as usize;
                chunk.marg[y] -= 1.0;
                let (ids, vals) = x.items.item(t);
                for (&a, &v) in ids.iter().zip(vals) {
                    let (first, labels) = features.state_features(a);
                    let g = &mut g[first..first + labels.len()];
                    for (gj, &b) in g.iter_mut().zip(labels) {
                        *gj += v * chunk.marg[b as usize];
                    }
                }
                if t > 0 {
                    chunk.observed[x.labels[t - 1] as usize * l + y] += 1.0;
                }
            }
            chunk.lattice.add_edge_outer_unchecked(&mut chunk.edges);
            chunk.state = chunk.lattice.take_buffer();
        }
        // Expected transitions (the outer sums times the transition factor) minus the
        // observed ones.
        for (prev, next, k) in features.iter_transitions() {
            let j = prev as usize * l + next as usize;
            chunk.grad[k] += chunk.edges[j] * exp_trans[j] - chunk.observed[j];
            chunk.observed[j] = 0.0;
        }
        loss
    }
}

pub(super) fn train(
    s: &Lbfgs,
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    let mut lik = Likelihood::new(job.data, job.features, job.pool.threads())?;
    optimize(s, job, observers, &mut |w, g| Ok(lik.eval(w, g)))
}

/// The smooth part of the objective, `sum_s (log Z(x_s) - score(x_s, y_s))` at `w` with
/// its gradient written into the second argument: [`Likelihood::eval`] on one machine, a
/// sum over shards in [`super::distributed`]. An error ends the fit.
pub(crate) type Objective<'o> = dyn FnMut(&[f64], &mut [f64]) -> Result<f64> + Send + 'o;

/// Runs L-BFGS / OWL-QN ([`crate::optim`], which adds the penalties) on `objective`
/// with `s`'s settings and the job's stopping rule, logging every iteration. The first
/// error of `objective` stops the optimizer (later evaluations of the same iteration
/// return NaN without calling it) and is returned.
pub(crate) fn optimize(
    s: &Lbfgs,
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
    objective: &mut Objective<'_>,
) -> Result<Trained> {
    let settings = Settings {
        c1: s.c1,
        c2: s.c2,
        memory: s.num_memories,
        epsilon: s.epsilon,
        max_linesearch: s.max_linesearch,
        line_search: s.linesearch.method(),
    };
    let failure: std::sync::Mutex<Option<CrfError>> = std::sync::Mutex::new(None);
    let mut loss = |w: &[f64], g: &mut [f64]| {
        if failure.lock().map_or(true, |f| f.is_some()) {
            return f64::NAN;
        }
        match objective(w, g) {
            Ok(f) => f,
            Err(e) => {
                if let Ok(mut f) = failure.lock() {
                    *f = Some(e);
                }
                f64::NAN
            }
        }
    };
    let x0 = limits::try_zeroed("weights (lbfgs)", &[job.features.len()])?;
    let mut qn = job
        .pool
        .install(|| QuasiNewton::new(settings, x0, &mut loss))?;
    if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
        return Err(e);
    }
    // The objectives of the last `period + 1` points (oldest first): all the test reads.
    let mut past = std::collections::VecDeque::from([qn.objective()]);
    let period = s.period;
    let rule = job.iteration;
    let report = run(&rule, observers, |k| {
        let outcome = job.pool.install(|| qn.iterate(&mut loss));
        if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
            return Err(e);
        }
        let f = qn.objective();
        if past.len() > period {
            past.pop_front();
        }
        past.push_back(f);
        // `past` holds the points `k - period ..= k` once `k >= period`.
        let change = match past.front() {
            Some(&old) if k >= period => (old - f) / f.abs().max(f64::MIN_POSITIVE),
            _ => f64::INFINITY,
        };
        let norm_active = norm_and_active(qn.x());
        let time = job.elapsed();
        job.keep(IterationLog {
            error_norm: Some(qn.gradient_norm()),
            linesearch_trials: Some(qn.trials()),
            ..IterationLog::new(k, f, norm_active, time, job.holdout_score(qn.x())?)
        })?;
        if outcome == Outcome::NonFinite {
            return Err(non_finite());
        }
        Ok::<_, CrfError>(Progress::new(f, change).stop_if(outcome.stop()))
    })?;
    Ok(Trained {
        weights: qn.into_x(),
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{spread_weights, with_all_features};

    /// The gradient of the likelihood equals central finite differences, with real values
    /// and all possible features (so unseen pairs have gradient too).
    #[test]
    fn gradient_matches_finite_differences() {
        let (data, features) = with_all_features(&[
            &[
                (&[("a", 1.0), ("v", 0.5)], "X"),
                (&[("b", 1.0), ("v", -2.0)], "Y"),
                (&[("a", 1.0)], "Z"),
            ],
            &[(&[("b", 1.5)], "Y"), (&[("a", 1.0), ("v", 3.0)], "X")],
        ]);
        for chunks in [1, 2] {
            let mut lik = Likelihood::new(&data, &features, chunks).unwrap();
            let w = spread_weights(features.len());
            let mut g = vec![0.0; w.len()];
            lik.eval(&w, &mut g);
            let mut scratch = vec![0.0; w.len()];
            for j in 0..w.len() {
                let h = 1e-5;
                let (mut wp, mut wm) = (w.clone(), w.clone());
                wp[j] += h;
                wm[j] -= h;
                let fd = (lik.eval(&wp, &mut scratch) - lik.eval(&wm, &mut scratch)) / (2.0 * h);
                assert!(
                    (fd - g[j]).abs() < 1e-6,
                    "feature {j}: fd {fd}, gradient {}",
                    g[j]
                );
            }
        }
    }
}
