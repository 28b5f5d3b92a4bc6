//! `l2sgd`: SGD with L2 and CRFsuite's learning-rate calibration ([`L2sgd`] documents
//! the algorithm, its second core and its differences from CRFsuite).

use bl_core::engine::{Observer, Progress, run};
use bl_core::iteration::Pool;
use bl_core::limits;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{IterationLog, Job, Trained, load_transitions, nonnegative, norm_and_active, positive};
use crate::data::{Dataset, Instance};
use crate::error::Result;
use crate::features::FeatureSet;
use crate::lattice::Lattice;

/// Settings of `l2sgd` (CRFsuite's names and defaults): stochastic gradient descent on the
/// L2-regularized negative log-likelihood, with CRFsuite's calibration of the learning
/// rate. The epoch budget (`max_iterations`, default 1000) and the stopping threshold
/// (`delta`, default 1e-6) are the fit's `max_iter` and `tol` ([`crate::CrfParams`]).
///
/// The schedule follows S. Shalev-Shwartz, Y. Singer and N. Srebro, *Pegasos: Primal
/// Estimated sub-GrAdient SOlver for SVM*, ICML 2007; the calibration and the sparse
/// updates follow L. Bottou, *Stochastic gradient descent tricks*, in *Neural Networks:
/// Tricks of the Trade*, 2nd ed., Springer 2012 (and his SGD-CRF programs).
///
/// # The objective
///
/// The objective is [`Lbfgs`](crate::Lbfgs)'s with `c1 = 0`, so the two trainers' losses
/// compare directly:
///
/// `F(w) = sum_s NLL_s(w) + c2 ||w||^2`, with `NLL_s(w) = log Z(x_s) - score(x_s, y_s)`.
///
/// SGD works on `F / N = (1/N) sum_s f_s(w)` for `N` sequences, with the per-sequence
/// objective `f_s(w) = NLL_s(w) + (lambda / 2) ||w||^2` and `lambda = 2 c2 / N`.
///
/// # One step
///
/// The `t`-th step (counted from 0 over the whole run, across epochs) visits one sequence
/// `s` and moves against the gradient of `f_s`:
///
/// `w <- w - eta_t grad f_s(w) = (1 - eta_t lambda) w - eta_t grad NLL_s(w)`,
///
/// with the Pegasos-type rate `eta_t = 1 / (lambda (t0 + t)) = eta0 / (1 + eta0 lambda t)`,
/// where `t0 = 1 / (lambda eta0)` and `eta0` is the calibrated rate. The second form is
/// the one computed: it is also defined for `c2 = 0`, where the rate stays `eta0`.
/// `grad NLL_s` is the expected minus the observed feature values, by forward-backward
/// ([`Lattice`](crate::lattice::Lattice)) at the weights before the step.
///
/// **Sparse steps.** The weights are held as `w = a v`. The shrink
/// `(1 - eta_t lambda) w` multiplies the scalar `a`; the gradient touches only the
/// features of the sequence: the state features of its attributes and the transition
/// features, `v_k -= (eta_t / a) g_k`. A step therefore costs its own sequence
/// (forward-backward and its features), not the length of `w`, and allocates nothing once
/// the buffers have grown to the longest sequence. `a` is folded into `v` at the end of
/// each epoch (one pass over `w`, needed for the epoch's objective anyway), or earlier if
/// `|a|` falls below `1e-9`.
///
/// # Epoch loss
///
/// CRFsuite judges an epoch by its *epoch loss*: the sum of the per-sequence losses
/// `NLL_s` met during the epoch (each at the weights of its own step, which change from
/// one sequence to the next) plus the penalty at the weights the epoch ends with. It costs
/// nothing beyond the steps, and it is smoother than the objective at the epoch's end,
/// which on a small data set jumps with the last few steps. The calibration and the
/// stopping test use it, as in CRFsuite.
///
/// # Calibration
///
/// Before training, `eta0` is chosen as CRFsuite does (after the `determineEta0` search
/// of Bottou's `sgd` programs). A sample of `S = min(N, calibration_samples)` sequences is
/// drawn (the first `S` of a seeded shuffle). A trial of a rate `eta` runs one epoch of
/// the steps above over the sample, from `w = 0`, with `t` from 0 and the full data's
/// `lambda`; its value is the epoch loss on the sample (with the penalty
/// `(lambda S / 2) ||w||^2`, so the sample's share of `c2 ||w||^2`), and the trial is good
/// when that is finite and below the sample's loss at `w = 0`. The trials start at
/// `calibration_eta` and multiply the rate by `calibration_rate` while the trials are good
/// and fewer than `calibration_candidates` good ones have been seen; then they start again
/// from `calibration_eta / calibration_rate` and divide the rate by `calibration_rate`
/// until `calibration_candidates` more good trials have been seen. At most
/// `calibration_max_trials` trials run in all; the decreasing search also ends after its
/// first trial at a rate that dividing no longer changes (0 after about 1,080 trials from
/// the defaults; the smallest subnormal for a `calibration_rate` below 2): every later
/// trial would repeat it exactly. A rate close to 1 takes many trials to get there (about
/// `745 / ln(calibration_rate)`), each an epoch over the sample, so
/// `calibration_max_trials` is what bounds the search then. The chosen `eta0` is the
/// tried rate with the lowest finite value (the earliest on ties); when no trial is
/// finite, the fit fails
/// with [`bl_core::BlError::Numerical`]. Only the best trial so far is kept, so the
/// calibration's memory does not grow with `calibration_max_trials`.
///
/// # Epochs and stopping
///
/// An epoch visits every sequence once, in an order drawn afresh for each epoch by a
/// seeded shuffle (the fit's `seed`: the same seed gives the same weights, whatever the
/// thread count). After each epoch the exact objective `F(w)` at the epoch's weights is
/// logged (the log's `loss`, comparable with `lbfgs`'s) with `||w||`, the number of
/// nonzero weights, the learning rate of the epoch's last step and the held-out score.
/// The run stops (`Converged`) when the relative decrease of the epoch loss `E_k` over the
/// last `period` epochs, `(E_{k - period} - E_k) / E_k`, is at most `delta` (the fit's
/// `tol`; tested from epoch `period + 1` on), or when the budget `max_iterations` (the
/// fit's `max_iter`) or the time limit runs out. The fit returns the weights of the epoch
/// with the lowest exact objective, and the report's `objective` is that epoch's, not
/// necessarily the last one's.
///
/// Observers and the trace see the exact objective, the change measure and the extras
/// `learning_rate` (of the epoch's last step), `calibrated_eta` (`eta0`),
/// `calibration_trials` and `epoch_loss` (`E_k`).
///
/// # A second core
///
/// SGD is sequential: each step reads the weights the previous step wrote, so the steps
/// of an epoch run one after another on one thread. What the other threads do is the
/// scoring: while one thread runs epoch `k + 1`'s steps, the others compute the exact
/// objective of epoch `k`'s weights (a copy) and its held-out score, so on two cores the
/// exact objective costs no wall-clock time once an epoch's steps take longer than its
/// scoring (the steps do not read the scores: the weights are the same on any number of
/// threads). The cost is one epoch of steps computed ahead and thrown away when the run
/// stops before the budget. The objective is summed over a fixed number of chunks in
/// order, so its value does not depend on the thread count either. The calibration's
/// trials run on one thread (each trial's rate depends on the trial before).
///
/// # Differences from CRFsuite
///
/// - **The best epoch.** CRFsuite keeps the weights of the epoch with the lowest epoch
///   loss; here the epoch with the lowest exact objective `F(w)`, which this trainer
///   computes at every epoch's end (one extra forward-backward pass per epoch, overlapped
///   with the next epoch's steps) and logs as the `loss` where CRFsuite logs its epoch
///   loss.
/// - **Where the gradient is taken.** CRFsuite shrinks the weights first and takes the
///   gradient at the shrunk weights; here the gradient is taken at the weights before the
///   step, so a step is exactly `w - eta_t grad f_s(w)` (as in Bottou's `svmsgd`).
/// - **Counts.** CRFsuite stops when the relative decrease is `< delta`; the fit's engine
///   stops when it is `<= delta`. CRFsuite's check of `calibration.max_trials` lets at
///   most `max_trials - 1` trials run; here at most `calibration_max_trials` run.
/// - **`c2 = 0`** is allowed and gives the constant rate `eta0` (CRFsuite divides by
///   `lambda = 0`).
/// - The shuffles use this crate's seeded generator, not the C library's `rand()`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct L2sgd {
    /// L2 coefficient (`c2`, default 1): the objective is `NLL + c2 ||w||^2`.
    pub c2: f64,
    /// Epochs over which the relative decrease of the epoch loss is measured (`period`,
    /// default 10).
    pub period: usize,
    /// The first learning rate tried by the calibration (`calibration.eta`, default 0.1).
    pub calibration_eta: f64,
    /// The factor between two rates tried by the calibration (`calibration.rate`, default
    /// 2; must exceed 1).
    pub calibration_rate: f64,
    /// Sequences in the calibration sample (`calibration.samples`, default 1000).
    pub calibration_samples: usize,
    /// Good rates the calibration looks for in each direction
    /// (`calibration.candidates`, default 10).
    pub calibration_candidates: usize,
    /// Most trials of the calibration (`calibration.max_trials`, default 20).
    pub calibration_max_trials: usize,
}

impl Default for L2sgd {
    fn default() -> Self {
        Self {
            c2: 1.0,
            period: 10,
            calibration_eta: 0.1,
            calibration_rate: 2.0,
            calibration_samples: 1000,
            calibration_candidates: 10,
            calibration_max_trials: 20,
        }
    }
}

impl L2sgd {
    pub(crate) fn check(&self) -> Result<()> {
        nonnegative("c2", self.c2)?;
        bl_core::params::at_least("period", self.period, 1)?;
        positive("calibration_eta", self.calibration_eta)?;
        let rate = self.calibration_rate;
        if !(rate.is_finite() && rate > 1.0) {
            return Err(bl_core::error::build::invalid(
                "calibration_rate",
                rate,
                "finite and > 1",
            ));
        }
        bl_core::params::at_least("calibration_samples", self.calibration_samples, 1)?;
        bl_core::params::at_least("calibration_candidates", self.calibration_candidates, 1)?;
        bl_core::params::at_least("calibration_max_trials", self.calibration_max_trials, 1)?;
        Ok(())
    }
}

/// Below this `|a|` (of `w = a v`) the scale is folded into `v`.
const MIN_SCALE: f64 = 1e-9;

/// Chunks of the objective's pass (fixed, so its sum does not depend on the threads).
const EVAL_CHUNKS: usize = 16;

/// The learning rate of step `t` from `eta0` ([`L2sgd`]).
#[inline]
fn rate(eta0: f64, lambda: f64, t: u64) -> f64 {
    eta0 / (1.0 + eta0 * lambda * t as f64)
}

/// The score of the gold path from state scores (`n x L`) and dense transitions.
fn gold_score(state: &[f64], trans: &[f64], labels: &[u32], l: usize) -> f64 {
    let mut gold = 0.0;
    for (t, &y) in labels.iter().enumerate() {
        gold += state[t * l + y as usize];
        if t > 0 {
            gold += trans[labels[t - 1] as usize * l + y as usize];
        }
    }
    gold
}

/// The weights `w = a v` and the buffers of the SGD steps ([`L2sgd`]).
#[derive(Debug)]
pub(crate) struct Sgd<'a> {
    features: &'a FeatureSet,
    v: Vec<f64>,
    a: f64,
    lattice: Lattice,
    state: Vec<f64>,
    trans: Vec<f64>,
    exp_trans: Vec<f64>,
    edges: Vec<f64>,
    marg: Vec<f64>,
}

impl<'a> Sgd<'a> {
    /// Zero weights over `features`.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` when a buffer (the weights, three `L x L` tables)
    /// exceeds [`limits::MAX_ELEMENTS`] values or cannot be reserved.
    pub(crate) fn new(features: &'a FeatureSet) -> Result<Self> {
        let l = features.n_labels();
        let square = "labels x labels (l2sgd transitions)";
        Ok(Self {
            features,
            v: limits::try_zeroed("weights (l2sgd)", &[features.len()])?,
            a: 1.0,
            lattice: Lattice::default(),
            state: Vec::new(),
            trans: limits::try_zeroed(square, &[l, l])?,
            exp_trans: limits::try_zeroed(square, &[l, l])?,
            edges: limits::try_zeroed(square, &[l, l])?,
            marg: limits::try_zeroed("labels (l2sgd marginals)", &[l])?,
        })
    }

    /// Sets the weights to zero.
    fn reset(&mut self) {
        self.v.fill(0.0);
        self.a = 1.0;
    }

    /// The weights (folds the scale into `v`: one pass over the weights).
    pub(crate) fn weights(&mut self) -> &[f64] {
        self.fold();
        &self.v
    }

    fn fold(&mut self) {
        if self.a != 1.0 {
            let a = self.a;
            for x in &mut self.v {
                *x *= a;
            }
            self.a = 1.0;
        }
    }

    /// One step on sequence `x` with rate `eta` and L2 coefficient `lambda`:
    /// `w <- w - eta grad f_x(w)`, `f_x(w) = NLL_x(w) + (lambda / 2) ||w||^2`; returns
    /// `NLL_x(w)` at the weights before the step. Costs the sequence's features; allocates
    /// nothing once the buffers fit the sequence.
    pub(crate) fn step(&mut self, x: Instance<'_>, eta: f64, lambda: f64) -> f64 {
        let features = self.features;
        let l = features.n_labels();
        let n = x.labels.len();
        // Scores and marginals at the weights before the step.
        let mut state = std::mem::take(&mut self.state);
        features.state_scores_unchecked(x.items, &self.v, &mut state);
        if self.a != 1.0 {
            for s in &mut state {
                *s *= self.a;
            }
        }
        let mt = load_transitions(
            features,
            &self.v,
            self.a,
            &mut self.trans,
            &mut self.exp_trans,
        );
        let gold = gold_score(&state, &self.trans, x.labels, l);
        let log_z = self
            .lattice
            .forward_backward_unchecked(state, l, &self.exp_trans, mt);
        // The shrink (1 - eta lambda) w, on the scale alone.
        let a = self.a * (1.0 - eta * lambda);
        if a.abs() < MIN_SCALE {
            for v in &mut self.v {
                *v *= a;
            }
            self.a = 1.0;
        } else {
            self.a = a;
        }
        // The gradient of NLL, expected minus observed, on the sequence's features.
        let gain = eta / self.a;
        for t in 0..n {
            let (ids, vals) = x.items.item(t);
            // p(y_t = b | x) - [b = y_t] for every label b.
            self.lattice.state_marginals_unchecked(t, &mut self.marg);
            self.marg[x.labels[t] as usize] -= 1.0;
            for (&id, &value) in ids.iter().zip(vals) {
                let (first, labels) = features.state_features(id);
                let g = gain * value;
                let v = &mut self.v[first..first + labels.len()];
                for (v, &b) in v.iter_mut().zip(labels) {
                    *v -= g * self.marg[b as usize];
                }
            }
        }
        self.edges.fill(0.0);
        self.lattice.add_edge_outer_unchecked(&mut self.edges);
        for (e, &f) in self.edges.iter_mut().zip(&self.exp_trans) {
            *e *= f;
        }
        for t in 1..n {
            self.edges[x.labels[t - 1] as usize * l + x.labels[t] as usize] -= 1.0;
        }
        for (prev, next, k) in features.iter_transitions() {
            self.v[k] -= gain * self.edges[prev as usize * l + next as usize];
        }
        self.state = self.lattice.take_buffer();
        log_z - gold
    }

    /// One pass of steps over `order` from step count `t` with `eta0`, `lambda`; returns
    /// the rate of the last step (`eta0` for an empty order) and the sum of the sequences'
    /// losses met on the way (CRFsuite's running loss). Stops early, returning `None`,
    /// when a sequence's loss is not finite.
    fn epoch(
        &mut self,
        data: &Dataset,
        order: &[usize],
        eta0: f64,
        lambda: f64,
        t: &mut u64,
    ) -> Option<(f64, f64)> {
        let mut eta = eta0;
        let mut sum = 0.0;
        for &s in order {
            eta = rate(eta0, lambda, *t);
            let loss = self.step(data.instance(s), eta, lambda);
            *t += 1;
            if !loss.is_finite() {
                return None;
            }
            sum += loss;
        }
        Some((eta, sum))
    }
}

/// One chunk's buffers of the objective's pass.
#[derive(Debug, Default)]
struct EvalChunk {
    lattice: Lattice,
    state: Vec<f64>,
}

/// `sum_s NLL_s(w)` over a list of sequences, on the fit's threads ([`L2sgd`]).
#[derive(Debug)]
struct Objective {
    chunks: Vec<EvalChunk>,
    trans: Vec<f64>,
    exp_trans: Vec<f64>,
}

impl Objective {
    fn new(features: &FeatureSet) -> Result<Self> {
        let l = features.n_labels();
        let square = "labels x labels (l2sgd objective transitions)";
        Ok(Self {
            chunks: (0..EVAL_CHUNKS).map(|_| EvalChunk::default()).collect(),
            trans: limits::try_zeroed(square, &[l, l])?,
            exp_trans: limits::try_zeroed(square, &[l, l])?,
        })
    }

    /// `sum_{s in which} NLL_s(w)` on the current rayon pool: the same value for every
    /// thread count.
    fn nll(&mut self, data: &Dataset, features: &FeatureSet, which: &[usize], w: &[f64]) -> f64 {
        let l = features.n_labels();
        let mt = load_transitions(features, w, 1.0, &mut self.trans, &mut self.exp_trans);
        let (trans, exp_trans) = (&self.trans, &self.exp_trans);
        let per = which.len().div_ceil(EVAL_CHUNKS).max(1);
        let chunks = &mut self.chunks;
        let parts: Vec<f64> = chunks
            .par_iter_mut()
            .zip(which.par_chunks(per))
            .map(|(chunk, ids)| {
                let mut sum = 0.0;
                for &s in ids {
                    let x = data.instance(s);
                    let mut state = std::mem::take(&mut chunk.state);
                    features.state_scores_unchecked(x.items, w, &mut state);
                    let gold = gold_score(&state, trans, x.labels, l);
                    sum += chunk
                        .lattice
                        .forward_backward_unchecked(state, l, exp_trans, mt)
                        - gold;
                    chunk.state = chunk.lattice.take_buffer();
                }
                sum
            })
            .collect();
        parts.iter().sum()
    }
}

/// One trial of the calibration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Trial {
    /// The rate tried.
    pub(crate) eta: f64,
    /// The epoch loss on the sample (NaN when the epoch blew up).
    pub(crate) loss: f64,
    /// Finite and below the sample's loss at `w = 0`.
    pub(crate) good: bool,
}

/// The calibration's outcome: the chosen rate and how many trials ran. Trials are not
/// stored (only the best so far), so a large `calibration_max_trials` costs time, not
/// memory.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Calibration {
    pub(crate) eta: f64,
    pub(crate) n_trials: usize,
}

/// Chooses `eta0` on the sample `sample` ([`L2sgd`]). `lambda = 2 c2 / N` of the full
/// data set. Each trial is shown to `on_trial` (the tests'), then only the best one so
/// far is kept. The search also ends after one trial of the decreasing rate once dividing
/// no longer changes it (0, or a subnormal fixed point of a rate below 2): every further
/// trial would repeat that one exactly, which cannot change the choice (the earliest of
/// equal losses is kept; a repeated good trial only counts towards `wanted`).
fn calibrate(
    s: &L2sgd,
    sgd: &mut Sgd<'_>,
    objective: &mut Objective,
    data: &Dataset,
    sample: &[usize],
    lambda: f64,
    pool: &Pool,
    mut on_trial: impl FnMut(&Trial),
) -> Result<Calibration> {
    let features = sgd.features;
    let penalty = 0.5 * lambda * sample.len() as f64;
    sgd.reset();
    let initial = pool.install(|| objective.nll(data, features, sample, sgd.weights()));
    let mut n_trials = 0usize;
    let mut best = None::<Trial>;
    // The rate of the last trial of the decreasing search.
    let mut last_decreasing = None::<f64>;
    let mut eta = s.calibration_eta;
    let (mut decreasing, mut wanted) = (false, s.calibration_candidates);
    while (wanted > 0 || !decreasing) && n_trials < s.calibration_max_trials {
        if decreasing {
            // Dividing no longer changes the rate (it underflowed to 0, or to a subnormal
            // that a rate below 2 rounds back to itself): the trial would repeat the last.
            if last_decreasing == Some(eta) {
                break;
            }
            last_decreasing = Some(eta);
        }
        sgd.reset();
        let mut t = 0;
        let value = match sgd.epoch(data, sample, eta, lambda, &mut t) {
            Some((_, running)) => {
                let (norm, _) = norm_and_active(sgd.weights());
                running + penalty * norm * norm
            }
            None => f64::NAN,
        };
        let good = value.is_finite() && value < initial;
        let trial = Trial {
            eta,
            loss: value,
            good,
        };
        on_trial(&trial);
        n_trials += 1;
        // The lowest finite loss, the earliest on ties.
        if value.is_finite() && best.is_none_or(|b| value < b.loss) {
            best = Some(trial);
        }
        if good {
            wanted -= 1;
        }
        if decreasing {
            eta /= s.calibration_rate;
        } else if good && wanted > 0 {
            eta *= s.calibration_rate;
        } else {
            decreasing = true;
            wanted = s.calibration_candidates;
            eta = s.calibration_eta / s.calibration_rate;
        }
    }
    match best {
        Some(b) => Ok(Calibration {
            eta: b.eta,
            n_trials,
        }),
        None => Err(bl_core::error::build::numerical(
            "l2sgd calibration",
            format!("no learning rate of the {n_trials} tried gave a finite loss on the sample"),
        )),
    }
}

pub(super) fn train(
    s: &L2sgd,
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    let data = job.data;
    let features = job.features;
    let n = data.len();
    let lambda = 2.0 * s.c2 / n as f64;
    let mut rng = bl_core::random::seeded_rng(job.seed);
    let mut order: Vec<usize> = (0..n).collect();
    let all = order.clone();
    order.shuffle(&mut rng);
    let mut sgd = Sgd::new(features)?;
    let mut objective = Objective::new(features)?;
    let sample = &order[..n.min(s.calibration_samples)];
    let calibration = calibrate(
        s,
        &mut sgd,
        &mut objective,
        data,
        sample,
        lambda,
        &job.pool,
        |_| {},
    )?;
    let eta0 = calibration.eta;
    let n_trials = calibration.n_trials;

    sgd.reset();
    let mut t: u64 = 0;
    let dim = features.len();
    // The weights of the epoch being reported, and of the best epoch so far.
    let mut cur = bl_core::limits::try_zeroed::<f64>("weights (l2sgd current)", &[dim])?;
    let mut best_w = bl_core::limits::try_zeroed::<f64>("weights (l2sgd best)", &[dim])?;
    let mut best = f64::INFINITY;
    // The epoch losses of the last `period` epochs (oldest first): all the test reads.
    let mut past: std::collections::VecDeque<f64> = std::collections::VecDeque::new();
    // What the pass that produced the weights in `sgd` returned.
    let mut pending = None;
    let (period, max_iter) = (s.period, job.iteration.max_iter);
    let rule = job.iteration;
    let mut report = run(&rule, observers, |k| {
        if k == 1 {
            order.shuffle(&mut rng);
            pending = sgd.epoch(data, &order, eta0, lambda, &mut t);
        }
        let Some((eta, running)) = pending else {
            return Err(bl_core::error::build::numerical(
                "l2sgd",
                format!(
                    "epoch {k}: the loss of a sequence is not finite (learning rate {eta0} \
                     from the calibration)"
                ),
            ));
        };
        cur.copy_from_slice(sgd.weights());
        // The next epoch's steps on one thread while the others score this epoch's
        // weights (the steps do not read the scores; the result is the same on any
        // number of threads).
        let ahead = k < max_iter;
        if ahead {
            order.shuffle(&mut rng);
        }
        let shared: &Job<'_> = job;
        let (next, (nll, holdout)) = shared.pool.install(|| {
            rayon::join(
                || ahead.then(|| sgd.epoch(data, &order, eta0, lambda, &mut t)),
                || {
                    rayon::join(
                        || objective.nll(data, features, &all, &cur),
                        || shared.holdout_score(&cur),
                    )
                },
            )
        });
        pending = next.flatten();
        let holdout = holdout?;
        let (norm, active) = norm_and_active(&cur);
        let f = nll + s.c2 * norm * norm;
        // CRFsuite's epoch loss and stopping test.
        let epoch_loss = running + s.c2 * norm * norm;
        // `past` holds epochs `k - period ..= k - 1` once `k > period`.
        let change = match past.front() {
            Some(&old) if k > period => {
                (old - epoch_loss) / epoch_loss.abs().max(f64::MIN_POSITIVE)
            }
            _ => f64::INFINITY,
        };
        if past.len() >= period {
            past.pop_front();
        }
        past.push_back(epoch_loss);
        if f < best {
            best = f;
            best_w.copy_from_slice(&cur);
        }
        job.keep(IterationLog {
            learning_rate: Some(eta),
            ..IterationLog::new(k, f, (norm, active), job.elapsed(), holdout)
        })?;
        Ok::<_, crate::CrfError>(
            Progress::new(f, change)
                .with("learning_rate", eta)
                .with("calibrated_eta", eta0)
                .with("calibration_trials", n_trials as f64)
                .with("epoch_loss", epoch_loss),
        )
    })?;
    report.objective = best;
    Ok(Trained {
        weights: best_w,
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{spread_weights, with_all_features};

    /// Two short sequences with real values, and all possible features.
    fn tiny() -> (Dataset, FeatureSet) {
        with_all_features(&[
            &[
                (&[("a", 1.0), ("v", 0.5)], "X"),
                (&[("b", 1.0), ("v", -2.0)], "Y"),
                (&[("a", 1.0), ("a", 0.25)], "Z"),
            ],
            &[(&[("b", 1.5)], "Y"), (&[("a", 1.0), ("v", 3.0)], "X")],
        ])
    }

    /// `NLL_x(w)` by enumerating every label path (independent of the lattice).
    fn brute_nll(features: &FeatureSet, x: Instance<'_>, w: &[f64]) -> f64 {
        let l = features.n_labels();
        let n = x.labels.len();
        let score = |path: &[u32]| {
            let mut s = 0.0;
            features
                .for_each_feature(x.items, path, |k, v| s += w[k] * v)
                .unwrap();
            s
        };
        let mut scores = Vec::new();
        let mut path = vec![0u32; n];
        for code in 0..l.pow(n as u32) {
            let mut c = code;
            for p in path.iter_mut() {
                *p = (c % l) as u32;
                c /= l;
            }
            scores.push(score(&path));
        }
        let m = scores.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let log_z = m + scores.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        log_z - score(x.labels)
    }

    /// The step is `w - eta grad f_x(w)`: `(w - w') / eta` equals central finite
    /// differences of `f_x = NLL_x + (lambda / 2) ||w||^2` (NLL by brute force), for a
    /// scale `a != 1`, a shrink to exactly zero (`eta lambda = 1`) and no L2.
    #[test]
    fn step_is_a_gradient_step_of_the_sequence_objective() {
        let (data, features) = tiny();
        let w = spread_weights(features.len());
        let f = |x: Instance<'_>, w: &[f64], lambda: f64| {
            brute_nll(&features, x, w) + 0.5 * lambda * w.iter().map(|v| v * v).sum::<f64>()
        };
        for s in 0..data.len() {
            let x = data.instance(s);
            for (eta, lambda, a) in [(0.1, 0.3, 1.0), (0.05, 0.7, 0.37), (2.0, 0.5, 1.0)] {
                let mut sgd = Sgd::new(&features).unwrap();
                // w = a v with a != 1: the scaled representation.
                sgd.v = w.iter().map(|x| x / a).collect();
                sgd.a = a;
                let loss = sgd.step(x, eta, lambda);
                assert!((loss - brute_nll(&features, x, &w)).abs() < 1e-10);
                let after = sgd.weights().to_vec();
                let h = 1e-5;
                for k in 0..w.len() {
                    let (mut up, mut down) = (w.clone(), w.clone());
                    up[k] += h;
                    down[k] -= h;
                    let fd = (f(x, &up, lambda) - f(x, &down, lambda)) / (2.0 * h);
                    let step = (w[k] - after[k]) / eta;
                    assert!(
                        (fd - step).abs() < 1e-6 * (1.0 + fd.abs()),
                        "sequence {s}, eta {eta}, feature {k}: {fd} vs {step}"
                    );
                }
            }
        }
    }

    /// The sequence objective is what the objective pass sums, for any chunking.
    #[test]
    fn objective_pass_sums_the_sequence_losses() {
        let (data, features) = tiny();
        let w: Vec<f64> = (0..features.len())
            .map(|j| ((j * 13 % 7) as f64 - 3.0) / 5.0)
            .collect();
        let pool = Pool::new(Some(2)).unwrap();
        let mut objective = Objective::new(&features).unwrap();
        let got = pool.install(|| objective.nll(&data, &features, &[0, 1, 1], &w));
        let want = brute_nll(&features, data.instance(0), &w)
            + 2.0 * brute_nll(&features, data.instance(1), &w);
        assert!((got - want).abs() < 1e-10, "{got} vs {want}");
    }

    /// The calibration of `s` on the sample `sample` of `tiny()` (lambda 1, one thread):
    /// its result and every trial it showed.
    fn calibrate_tiny(s: &L2sgd, sample: &[usize]) -> (Calibration, Vec<Trial>) {
        let (data, features) = tiny();
        let pool = Pool::new(Some(1)).unwrap();
        let mut sgd = Sgd::new(&features).unwrap();
        let mut objective = Objective::new(&features).unwrap();
        let mut trials = Vec::new();
        let cal = calibrate(
            s,
            &mut sgd,
            &mut objective,
            &data,
            sample,
            1.0,
            &pool,
            |tr| trials.push(*tr),
        )
        .unwrap();
        (cal, trials)
    }

    /// The calibration's search: up by the rate while good, then down from
    /// `eta / rate`, at most `max_trials`; the choice is the lowest finite loss.
    #[test]
    fn calibration_follows_the_search() {
        let s = L2sgd {
            calibration_candidates: 3,
            calibration_max_trials: 9,
            ..L2sgd::default()
        };
        let (cal, trials) = calibrate_tiny(&s, &[0, 1]);
        assert_eq!(cal.n_trials, trials.len());
        assert!(trials.len() <= 9);
        let first_down = trials
            .iter()
            .position(|tr| tr.eta < s.calibration_eta)
            .unwrap();
        for (i, tr) in trials.iter().enumerate() {
            let k = if i < first_down {
                i as i32
            } else {
                -((i - first_down) as i32) - 1
            };
            assert!((tr.eta / (s.calibration_eta * 2f64.powi(k)) - 1.0).abs() < 1e-12);
        }
        let best = trials
            .iter()
            .filter(|tr| tr.loss.is_finite())
            .map(|tr| tr.loss)
            .fold(f64::INFINITY, f64::min);
        let chosen = trials.iter().find(|tr| tr.eta == cal.eta).unwrap();
        assert_eq!(chosen.loss, best);
        assert!(chosen.good);
    }

    /// A one-sequence sample is never improved by a small rate (the epoch's running loss
    /// starts at the loss at `w = 0` and the penalty adds to it), so the decreasing trials
    /// are never good and the search runs until `calibration_max_trials`: with 10^15 it
    /// used to run (and store) trial after trial until memory ran out. It now stops once
    /// the rate has underflowed to 0, keeping only the best trial.
    #[test]
    fn a_huge_trial_budget_stops_when_the_rate_underflows() {
        let s = L2sgd {
            calibration_max_trials: 1_000_000_000_000_000,
            ..L2sgd::default()
        };
        let (cal, trials) = calibrate_tiny(&s, &[0]);
        let last = trials[trials.len() - 1].eta;
        // 0.1 halved until it underflows: about 1,080 trials, then one at 0.
        assert!(
            cal.n_trials > 1_000 && cal.n_trials < 1_200,
            "{}",
            cal.n_trials
        );
        assert_eq!(last, 0.0);
        assert!(cal.eta.is_finite());
    }

    /// With a rate below 2 the decreasing rate never reaches 0: the smallest subnormal
    /// divided by 1.5 rounds back to itself. The search ends there too (it ran to the
    /// trial budget before).
    #[test]
    fn a_rate_below_two_stops_at_its_subnormal_fixed_point() {
        let s = L2sgd {
            calibration_rate: 1.5,
            // (about 1,840 trials are needed; the search without the stop used them all)
            calibration_max_trials: 10_000,
            ..L2sgd::default()
        };
        let (cal, trials) = calibrate_tiny(&s, &[0]);
        let etas: Vec<f64> = trials.iter().map(|tr| tr.eta).collect();
        let last = etas[etas.len() - 1];
        assert!(last > 0.0 && last / 1.5 == last, "{last}");
        // Each rate of the decreasing search is tried once.
        assert_eq!(etas.iter().filter(|&&e| e == last).count(), 1);
        assert_eq!(cal.n_trials, etas.len());
        assert!(cal.n_trials < 2_000, "{}", cal.n_trials);
    }
}
