//! The built-in online learners (bol, bcd, sp) and the shared training loop.
//!
//! Every learner ([`OnlineLearner`]) runs the same loop, one epoch per iteration of
//! [`bl_core::engine::run`]: for each epoch, visit the training sentences (in a
//! seeded random order when `shuffle` is on), decode with the current parameters, and on a
//! mistake (`y_hat != y`) apply the learner's update built from
//! `DeltaPhi = Phi(x, y) - Phi(x, y_hat)`; after each sentence the current parameters enter
//! the running averages.
//!
//! - bol (Algorithm 2): `Theta += C DeltaPhi`, then, with the default
//!   [`Reading::PerBlock`], `R` warm-started power steps on each touched block
//!   ([`crate::rank_one::BlockRankOne::update`]); `alpha_k = sqrt(sigma_k) u_k`,
//!   `beta_k = sqrt(sigma_k) v_k`. The paper's literal readings are in [`crate::spectral`].
//!   0-order weights (Sec. 4.3) are the gradient of `1/2 ||theta_w||^2`, i.e.
//!   `w += C DeltaPhi_0`.
//! - bcd (Algorithm 1): within each epoch one pass updates `alpha` with `beta` fixed and
//!   a second pass updates `beta` with `alpha` fixed. Each is a linear structured
//!   SVM solved online in the dual (Shalev-Shwartz and Singer 2006): with
//!   `g = DeltaPhi beta` (or `DeltaPhi^T alpha`) and margin `m = <params, g>`, the dual step
//!   is `tau = min(C / lambda, (l - m) / ||g||^2)` when `l > m`. With the default
//!   [`BcdSolver::Hamming`], `l` is the Hamming loss, `lambda = 1`, and it starts from
//!   `alpha = 0`, `beta = 1`; with [`BcdSolver::Algorithm1`] (the paper as printed), `l = 1`
//!   (the hinge of eq. (7)), `lambda` is the squared norm of the fixed factor (the
//!   regularizer `1/2 ||alpha beta^T||_F^2`), and it starts from `alpha = beta = 1 / ||1||`.
//! - sp: the structured perceptron on the full (not rank-1) matrix features:
//!   `W += DeltaPhi` (and `w += DeltaPhi_0`).
//!
//! Each epoch reports to the engine the objective `token_errors / tokens` (the online
//! training error of the epoch's first pass) and the change `mistakes / sentences` (the
//! fraction of sentences that caused an update), with the extras `mistakes`,
//! `token_errors`, `tokens` and `train_seconds`. The run stops after `epochs` epochs, or
//! earlier ([`bl_core::engine::TerminationReason::Converged`]) after an epoch in which every
//! training sentence was decoded correctly: no update was made, so the next epoch would
//! decode them all with the same parameters again.

use std::time::Instant;

use bl_core::engine::{FitReport, IterationParams, Observer, Progress};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::learner::{OnlineLearner, OnlineWeights, Snapshot};
use crate::params::{BcdSolver, Reading, TaggerParams};
use crate::rank_one::{BlockRankOne, BlockUpdate};
use crate::scoring::{bilinear_table, sparse_table};
use crate::sparse::SparseRows;
use crate::spectral::{SpectralMode, SpectralRankOne};

/// What happened in one training epoch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpochInfo {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Sentences decoded wrongly during the epoch (each caused an update).
    pub mistakes: usize,
    /// Tokens decoded wrongly during the epoch (online training error).
    pub token_errors: usize,
    /// Tokens visited during the epoch.
    pub tokens: usize,
    /// Training time so far, in seconds (callbacks excluded).
    pub seconds: f64,
}

/// A dense weight vector with optional averaging by the lazy-timestamp trick: an update `d`
/// made after `t` recorded steps also adds `t d` to the accumulator, so the average over
/// `T` steps is `w - acc / T` (one extra value per weight).
#[derive(Debug, Clone)]
struct Linear {
    w: Vec<f64>,
    acc: Option<Vec<f64>>,
    steps: u64,
}

impl Linear {
    fn new(w: Vec<f64>, average: bool) -> Result<Self> {
        let acc = match average {
            true => Some(bl_core::limits::try_zeroed("averaged weights", &[w.len()])?),
            false => None,
        };
        Ok(Self { w, acc, steps: 0 })
    }
    #[inline]
    fn add(&mut self, j: usize, value: f64) {
        if let Some(acc) = self.acc.as_mut() {
            acc[j] += self.steps as f64 * value;
        }
        self.w[j] += value;
    }
    fn record(&mut self) {
        self.steps += 1;
    }
    /// [`value`](Self::value) computed in place in the weights (the same arithmetic).
    fn into_value(self) -> Vec<f64> {
        let mut w = self.w;
        match self.acc {
            Some(_) if self.steps == 0 => w.fill(0.0),
            Some(acc) => {
                let t = self.steps as f64;
                for (w, a) in w.iter_mut().zip(&acc) {
                    *w -= a / t;
                }
            }
            None => {}
        }
        w
    }
    fn value(&self) -> Vec<f64> {
        match &self.acc {
            Some(_) if self.steps == 0 => vec![0.0; self.w.len()],
            Some(acc) => {
                let t = self.steps as f64;
                self.w.iter().zip(acc).map(|(w, a)| w - a / t).collect()
            }
            None => self.w.clone(),
        }
    }
}

/// The sizes of a learner for `n_features` features and `l` tags: `1 <= l <=`
/// [`MAX_TAGS`](crate::viterbi::MAX_TAGS) (a learner for more tags could not score a
/// one-token sentence), and `n_features (l + 1)` weights within
/// [`bl_core::limits::buffer_len`].
fn check_shape(n_features: usize, l: usize) -> Result<()> {
    bl_core::params::count_in("n_tags", l, 1, crate::viterbi::MAX_TAGS)?;
    bl_core::limits::buffer_len("n_features x (n_tags + 1)", &[n_features, l + 1])?;
    Ok(())
}

/// `n` copies of `value`, reserved with `try_reserve_exact` (`n` checked by
/// [`check_shape`]).
fn try_filled(what: &'static str, n: usize, value: f64) -> Result<Vec<f64>> {
    let mut v: Vec<f64> = bl_core::limits::try_zeroed(what, &[n])?;
    v.fill(value);
    Ok(v)
}

/// Calls `f(position, feature, (gold tag, gold previous), (predicted tag, predicted
/// previous))` for every active feature at positions where the local transition differs.
pub(crate) fn for_each_difference(
    enc: &EncodedSentence,
    gold: &[usize],
    pred: &[usize],
    start: usize,
    mut f: impl FnMut(usize, usize, (usize, usize), (usize, usize)),
) {
    for i in 0..enc.len() {
        let bg = if i == 0 { start } else { gold[i - 1] };
        let bp = if i == 0 { start } else { pred[i - 1] };
        if gold[i] == pred[i] && bg == bp {
            continue;
        }
        for &k in enc.at(i) {
            f(i, k as usize, (gold[i], bg), (pred[i], bp));
        }
    }
}

/// Adds the 0-order scores of the sparse weights `zero`, when on.
fn add_zero(enc: &EncodedSentence, l: usize, zero: Option<&SparseRows>, out: &mut Vec<f64>) {
    if let Some(z) = zero {
        crate::scoring::add_sparse_zero_order(enc, l, z, out);
    }
}

/// `z += step DeltaPhi_0`: at each wrongly tagged position, `+step` at (feature, gold tag)
/// and `-step` at (feature, predicted tag) of every active feature.
fn zero_order_update(
    zero: &mut Option<SparseRows>,
    enc: &EncodedSentence,
    gold: &[usize],
    pred: &[usize],
    step: f64,
) {
    if let Some(z) = zero.as_mut() {
        for i in 0..enc.len() {
            if gold[i] != pred[i] {
                for &k in enc.at(i) {
                    z.add(k as usize, gold[i] as u32, step);
                    z.add(k as usize, pred[i] as u32, -step);
                }
            }
        }
    }
}

/// bol's dual state under one of the [`Reading`]s.
#[derive(Debug)]
enum BolState {
    PerBlock(BlockRankOne),
    Spectral(SpectralRankOne),
}

/// bol: Algorithm 2.
#[derive(Debug)]
pub struct Bol {
    l: usize,
    c: f64,
    steps: usize,
    state: BolState,
    delta: BlockUpdate,
    zero: Option<SparseRows>,
    averaging: bool,
}

impl Bol {
    /// bol for `n_features` features and `l` tags with `params` (`c`, `power_steps`,
    /// `reading`, `averaging`, `zero_order`).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a zero
    /// size, more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, or
    /// `n_features (l + 1)` above [`bl_core::limits::MAX_ELEMENTS`].
    pub fn new(n_features: usize, l: usize, params: &TaggerParams) -> Result<Self> {
        check_shape(n_features, l)?;
        let spectral = |mode| {
            SpectralRankOne::new(n_features, l, l + 1, mode, params.averaging)
                .map(BolState::Spectral)
        };
        let state = match params.reading {
            Reading::PerBlock => {
                BolState::PerBlock(BlockRankOne::new(n_features, l, l + 1, params.averaging)?)
            }
            Reading::SpectralExact => spectral(SpectralMode::Exact)?,
            Reading::SpectralAlgorithm2 => spectral(SpectralMode::Algorithm2)?,
        };
        Ok(Self {
            l,
            c: params.c,
            steps: params.power_steps,
            state,
            delta: BlockUpdate::new(l, l + 1),
            zero: params
                .zero_order
                .then(|| SparseRows::new(n_features, l, params.averaging))
                .transpose()?,
            averaging: params.averaging,
        })
    }
}

impl OnlineLearner for Bol {
    fn begin_pass(&mut self, _pass: usize) {
        if let BolState::Spectral(s) = &mut self.state {
            s.renormalize();
        }
    }

    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) {
        match &self.state {
            BolState::PerBlock(s) => s.scores_table(enc, out),
            BolState::Spectral(s) => {
                let (alpha, beta, factor) = s.raw();
                bilinear_table(enc, self.l, alpha, beta, factor, None, out);
            }
        }
        add_zero(enc, self.l, self.zero.as_ref(), out);
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let c = self.c;
        self.delta.set_delta_phi(enc, gold, pred, c);
        match &mut self.state {
            BolState::PerBlock(s) => s.update(&self.delta, self.steps)?,
            BolState::Spectral(s) => s.update(&self.delta, self.steps)?,
        }
        zero_order_update(&mut self.zero, enc, gold, pred, c);
        Ok(())
    }

    fn record(&mut self) {
        match &mut self.state {
            BolState::PerBlock(s) => s.record_step(),
            BolState::Spectral(s) => s.record_step(),
        }
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn snapshot(&self) -> Snapshot {
        let (alpha, beta) = match &self.state {
            BolState::PerBlock(s) => match s.averaged_alpha_beta() {
                Some(averaged) if self.averaging => averaged,
                _ => (s.alpha(), s.beta()),
            },
            BolState::Spectral(s) => match s.averaged_alpha_beta() {
                Some(averaged) if self.averaging => averaged,
                _ => s.alpha_beta(),
            },
        };
        Snapshot {
            weights: OnlineWeights::Bilinear { alpha, beta },
            zero_order: self.zero.as_ref().map(SparseRows::snapshot_dense),
        }
    }

    fn into_snapshot(self: Box<Self>) -> Snapshot {
        let Bol {
            state,
            zero,
            averaging,
            ..
        } = *self;
        let (alpha, beta) = match state {
            BolState::PerBlock(s) => s.into_alpha_beta(averaging),
            BolState::Spectral(s) => match s.averaged_alpha_beta() {
                Some(averaged) if averaging => averaged,
                _ => s.alpha_beta(),
            },
        };
        Snapshot {
            weights: OnlineWeights::Bilinear { alpha, beta },
            zero_order: zero.map(SparseRows::into_snapshot_dense),
        }
    }
}

/// sp: the structured perceptron on the matrix features, stored sparsely
/// ([`crate::sparse`]): only the cells of transitions seen in gold or predicted paths.
#[derive(Debug)]
pub struct Sp {
    l: usize,
    /// With `transitions_only`: the one feature (the bias) that keeps first-order weights.
    pairs_only_for: Option<usize>,
    w: SparseRows,
    zero: Option<SparseRows>,
}

impl Sp {
    /// sp for `n_features` features and `l` tags with `params` (`averaging`,
    /// `zero_order`, `transitions_only`); `bias` is the id of the bias feature, if any.
    ///
    /// # Errors
    /// `transitions_only` without a bias feature in range;
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for no tag,
    /// more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, or `n_features (l + 1)` above
    /// [`bl_core::limits::MAX_ELEMENTS`].
    pub fn new(
        n_features: usize,
        l: usize,
        params: &TaggerParams,
        bias: Option<usize>,
    ) -> Result<Self> {
        check_shape(n_features, l)?;
        let pairs_only_for = match (params.transitions_only, bias) {
            (false, _) => None,
            (true, Some(b)) if b < n_features => Some(b),
            (true, _) => {
                return Err(bl_core::params::invalid(
                    "transitions_only",
                    "true without a bias feature in the dictionary",
                    "a Template::Bias in the templates",
                )
                .into());
            }
        };
        Ok(Self {
            l,
            pairs_only_for,
            w: SparseRows::new(n_features, (l + 1) * l, params.averaging)?,
            zero: params
                .zero_order
                .then(|| SparseRows::new(n_features, l, params.averaging))
                .transpose()?,
        })
    }

    /// Number of stored matrix-feature weights.
    pub fn n_stored(&self) -> usize {
        self.w.nnz()
    }
}

impl OnlineLearner for Sp {
    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) {
        sparse_table(enc, self.l, |k| self.w.row(k), None, out);
        add_zero(enc, self.l, self.zero.as_ref(), out);
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let l = self.l;
        let w = &mut self.w;
        let code = |a: usize, b: usize| (b * l + a) as u32;
        let only = self.pairs_only_for;
        for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
            if only.is_some_and(|bias| bias != k) {
                return;
            }
            w.add(k, code(ag, bg), 1.0);
            w.add(k, code(ap, bp), -1.0);
        });
        zero_order_update(&mut self.zero, enc, gold, pred, 1.0);
        Ok(())
    }

    fn record(&mut self) {
        self.w.record();
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            weights: OnlineWeights::SparseLinear {
                w: self.w.snapshot(),
            },
            zero_order: self.zero.as_ref().map(SparseRows::snapshot_dense),
        }
    }

    fn into_snapshot(self: Box<Self>) -> Snapshot {
        let Sp { w, zero, .. } = *self;
        let w = w.into_snapshot();
        Snapshot {
            weights: OnlineWeights::SparseLinear { w },
            zero_order: zero.map(SparseRows::into_snapshot_dense),
        }
    }
}

/// A sparse vector summed from pushed `(index, value)` terms: after [`finish`](Self::finish),
/// one `(index, sum)` per index in increasing order, each sum taken from 0 in push order.
/// Its buffers are reused, so once warm it allocates nothing.
#[derive(Debug, Default)]
struct SparseSum {
    /// `(index, push order, value)`.
    terms: Vec<(usize, u32, f64)>,
    sums: Vec<(usize, f64)>,
}

impl SparseSum {
    #[inline]
    fn push(&mut self, index: usize, value: f64) {
        self.terms.push((index, self.terms.len() as u32, value));
    }

    /// Sums the pushed terms by index and clears them.
    fn finish(&mut self) {
        self.sums.clear();
        self.terms.sort_unstable_by_key(|&(j, order, _)| (j, order));
        for &(j, _, x) in &self.terms {
            match self.sums.last_mut() {
                Some((last, sum)) if *last == j => *sum += x,
                _ => self.sums.push((j, 0.0 + x)),
            }
        }
        self.terms.clear();
    }

    fn iter(&self) -> std::slice::Iter<'_, (usize, f64)> {
        self.sums.iter()
    }
}

/// bcd: Algorithm 1.
#[derive(Debug)]
pub struct Bcd {
    l: usize,
    c: f64,
    solver: BcdSolver,
    /// `||beta||^2` during an `alpha` pass, `||alpha||^2` during a `beta` pass (the scale of
    /// the regularizer of the SVM (7) with the other factor fixed).
    fixed_norm2: f64,
    alpha: Linear,
    beta: Linear,
    zero: Option<SparseRows>,
    update_alpha: bool,
    g: SparseSum,
    g0: SparseSum,
}

impl Bcd {
    /// bcd for `n_features` features and `l` tags with `params` (`c`, `bcd_solver`,
    /// `averaging`, `zero_order`).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for no tag,
    /// more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, `n_features (l + 1)` above
    /// [`bl_core::limits::MAX_ELEMENTS`], or weights that cannot be allocated.
    pub fn new(n_features: usize, l: usize, params: &TaggerParams) -> Result<Self> {
        check_shape(n_features, l)?;
        let (m, n) = (n_features * l, n_features * (l + 1));
        let (alpha0, beta0) = match params.bcd_solver {
            BcdSolver::Hamming => (0.0, 1.0),
            BcdSolver::Algorithm1 => (1.0 / (m as f64).sqrt(), 1.0 / (n as f64).sqrt()),
        };
        Ok(Self {
            l,
            c: params.c,
            solver: params.bcd_solver,
            fixed_norm2: 1.0,
            alpha: Linear::new(try_filled("bcd alpha", m, alpha0)?, params.averaging)?,
            beta: Linear::new(try_filled("bcd beta", n, beta0)?, params.averaging)?,
            zero: params
                .zero_order
                .then(|| SparseRows::new(n_features, l, params.averaging))
                .transpose()?,
            update_alpha: true,
            g: SparseSum::default(),
            g0: SparseSum::default(),
        })
    }
}

impl OnlineLearner for Bcd {
    fn passes_per_epoch(&self) -> usize {
        2
    }

    fn begin_pass(&mut self, pass: usize) {
        self.update_alpha = pass.is_multiple_of(2);
        let fixed = if self.update_alpha {
            &self.beta.w
        } else {
            &self.alpha.w
        };
        self.fixed_norm2 = fixed.iter().map(|x| x * x).sum();
    }

    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) {
        bilinear_table(enc, self.l, &self.alpha.w, &self.beta.w, 1.0, None, out);
        add_zero(enc, self.l, self.zero.as_ref(), out);
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let (l, p) = (self.l, self.l + 1);
        let (alpha, beta, g) = (&self.alpha.w, &self.beta.w, &mut self.g);
        if self.update_alpha {
            // g = DeltaPhi beta, indexed like alpha.
            for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
                g.push(k * l + ag, beta[k * p + bg]);
                g.push(k * l + ap, -beta[k * p + bp]);
            });
        } else {
            // g = DeltaPhi^T alpha, indexed like beta.
            for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
                g.push(k * p + bg, alpha[k * l + ag]);
                g.push(k * p + bp, -alpha[k * l + ap]);
            });
        }
        self.g.finish();
        if self.zero.is_some() {
            for i in 0..enc.len() {
                if gold[i] != pred[i] {
                    for &k in enc.at(i) {
                        self.g0.push(k as usize * l + gold[i], 1.0);
                        self.g0.push(k as usize * l + pred[i], -1.0);
                    }
                }
            }
        }
        self.g0.finish();
        let params = if self.update_alpha {
            &self.alpha.w
        } else {
            &self.beta.w
        };
        let mut margin: f64 = self.g.iter().map(|&(j, x)| params[j] * x).sum();
        let mut norm2: f64 = self.g.iter().map(|(_, x)| x * x).sum();
        if let Some(z) = self.zero.as_ref() {
            margin += self
                .g0
                .iter()
                .map(|&(j, x)| z.get(j / l, (j % l) as u32) * x)
                .sum::<f64>();
            norm2 += self.g0.iter().map(|(_, x)| x * x).sum::<f64>();
        }
        // The dual step on the concatenation (params, w) whose regularizer is
        // `lambda/2 ||params||^2 + 1/2 ||w||^2` (lambda = 1 for ours, the fixed factor's
        // squared norm for Algorithm 1): `eta = min(C, (loss - margin) / (||g||^2 / lambda +
        // ||g0||^2))`, `params += eta / lambda g`, `w += eta g0`.
        let (loss, lambda) = match self.solver {
            BcdSolver::Hamming => (
                gold.iter().zip(pred).filter(|(a, b)| a != b).count() as f64,
                1.0,
            ),
            BcdSolver::Algorithm1 => (1.0, self.fixed_norm2),
        };
        let norm2_g: f64 = self.g.iter().map(|(_, x)| x * x).sum();
        let norm2_g0 = norm2 - norm2_g;
        let denominator = norm2_g / lambda + norm2_g0;
        if loss > margin && denominator > 0.0 && lambda > 0.0 {
            let eta = self.c.min((loss - margin) / denominator);
            let target = if self.update_alpha {
                &mut self.alpha
            } else {
                &mut self.beta
            };
            for &(j, x) in self.g.iter() {
                target.add(j, eta / lambda * x);
            }
            if let Some(z) = self.zero.as_mut() {
                for &(j, x) in self.g0.iter() {
                    z.add(j / l, (j % l) as u32, eta * x);
                }
            }
        }
        Ok(())
    }

    fn record(&mut self) {
        self.alpha.record();
        self.beta.record();
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            weights: OnlineWeights::Bilinear {
                alpha: self.alpha.value(),
                beta: self.beta.value(),
            },
            zero_order: self.zero.as_ref().map(SparseRows::snapshot_dense),
        }
    }

    fn into_snapshot(self: Box<Self>) -> Snapshot {
        let Bcd {
            alpha, beta, zero, ..
        } = *self;
        let alpha = alpha.into_value();
        let beta = beta.into_value();
        Snapshot {
            weights: OnlineWeights::Bilinear { alpha, beta },
            zero_order: zero.map(SparseRows::into_snapshot_dense),
        }
    }
}

/// What one epoch did, and the parameters the fit read, for the per-epoch snapshot
/// callback of [`TaggerParams::fit_with_snapshots`](crate::TaggerParams::fit_with_snapshots).
/// The same numbers are in the report's trace (extras `mistakes`, `token_errors`, `tokens`,
/// `train_seconds`).
pub(crate) type EpochCallback<'a> = dyn FnMut(&EpochInfo, &dyn OnlineLearner) -> Result<()> + 'a;

/// Runs the online loop on the engine, one epoch per iteration; `on_epoch` receives each
/// epoch's info and the learner (to snapshot). Its time is not counted in `train_seconds`.
pub(crate) fn run_online(
    learner: &mut dyn OnlineLearner,
    params: &TaggerParams,
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
    n_tags: usize,
    observers: &mut [&mut dyn Observer],
    on_epoch: &mut EpochCallback<'_>,
) -> Result<FitReport> {
    let mut rng = bl_core::random::seeded_rng(params.seed);
    let mut order: Vec<usize> = (0..encoded.len()).collect();
    let mut scores = Vec::new();
    let mut ws = crate::viterbi::ViterbiWorkspace::default();
    let mut pred = Vec::new();
    let mut elapsed = 0.0;
    let passes = learner.passes_per_epoch().max(1);
    let rule = IterationParams::new(params.epochs, 0.0);
    bl_core::engine::run(&rule, observers, |epoch| {
        let started = Instant::now();
        let (mut mistakes, mut token_errors, mut tokens) = (0, 0, 0);
        for pass in 0..passes {
            learner.begin_pass((epoch - 1) * passes + pass);
            if params.shuffle {
                order.shuffle(&mut rng);
            }
            for &s in &order {
                let (enc, y) = (&encoded[s], &gold[s]);
                if enc.is_empty() {
                    continue;
                }
                let expected = crate::viterbi::checked_table_len(Some(s), enc.len(), n_tags)?;
                learner.scores(enc, &mut scores);
                if scores.len() != expected {
                    return Err(OblError::Learner {
                        check: "scores-shape",
                        message: format!(
                            "a sentence of {} tokens got {} scores, expected {expected}",
                            enc.len(),
                            scores.len()
                        ),
                    });
                }
                pred.clear();
                pred.resize(enc.len(), 0);
                crate::viterbi::viterbi_into(&scores, enc.len(), n_tags, &mut ws, &mut pred)?;
                let errors = y.iter().zip(&pred).filter(|(a, b)| a != b).count();
                if pass == 0 {
                    tokens += y.len();
                    token_errors += errors;
                    mistakes += usize::from(errors > 0);
                }
                if errors > 0 {
                    learner.update(enc, y, &pred)?;
                }
                learner.record();
            }
        }
        elapsed += started.elapsed().as_secs_f64();
        let info = EpochInfo {
            epoch,
            mistakes,
            token_errors,
            tokens,
            seconds: elapsed,
        };
        on_epoch(&info, &*learner)?;
        let sentences = encoded.iter().filter(|e| !e.is_empty()).count().max(1);
        Ok(Progress::new(
            token_errors as f64 / tokens.max(1) as f64,
            mistakes as f64 / sentences as f64,
        )
        .with("mistakes", mistakes as f64)
        .with("token_errors", token_errors as f64)
        .with("tokens", tokens as f64)
        .with("train_seconds", elapsed))
    })
}

#[cfg(test)]
mod defect_tests {
    use crate::learner::{BuiltIn, LearnerFactory, LearnerShape};
    use crate::params::TaggerParams;

    /// The CRF learners are not online learners: building one must fail, not silently give
    /// the perceptron.
    #[test]
    fn crf_learner_is_not_built_as_a_perceptron() {
        let shape = LearnerShape {
            n_features: 10,
            n_tags: 3,
            bias_feature: None,
        };
        assert!(BuiltIn.build(shape, &TaggerParams::crf_l2()).is_err());
        assert!(BuiltIn.build(shape, &TaggerParams::crf_l1()).is_err());
        assert!(BuiltIn.build(shape, &TaggerParams::sp()).is_ok());
        // sp with transitions only needs the bias feature's id, in range.
        let transitions = TaggerParams::sp().zero_order(true).transitions_only(true);
        assert!(BuiltIn.build(shape, &transitions).is_err());
        let out_of_range = LearnerShape {
            bias_feature: Some(10),
            ..shape
        };
        assert!(BuiltIn.build(out_of_range, &transitions).is_err());
        let with_bias = LearnerShape {
            bias_feature: Some(9),
            ..shape
        };
        assert!(BuiltIn.build(with_bias, &transitions).is_ok());
    }
}
