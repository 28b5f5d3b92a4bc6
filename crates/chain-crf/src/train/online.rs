//! The parts the online trainers (`ap`, `pa`, `arow`) share: decoding one sequence with
//! reused buffers, the sparse difference `Φ(x, y) - Φ(x, ŷ)` of the feature vectors of the
//! gold path `y` and the predicted path `ŷ`, lazy averaging, and the epoch loop.
//!
//! **The epoch loop** ([`epochs`]), as CRFsuite's online trainers: at the start of every
//! epoch the order of the training sequences is shuffled (a Fisher-Yates shuffle of the
//! previous epoch's order, by a generator seeded with the fit's `seed`, so a run is
//! deterministic for a seed; CRFsuite shuffles with the C library's `rand()`, a different
//! order). Each sequence is tagged by Viterbi under the current weights; when the predicted
//! path differs from the gold one in `d > 0` items, the trainer's [`Update`] changes the
//! weights along the difference vector and returns the instance's loss. An epoch's loss is
//! the sum over its sequences, and training stops after the first epoch whose mean loss
//! (loss divided by the number of sequences) passes the trainer's [`EpsilonTest`] against
//! `epsilon` (the fit's `tol`), as in the CRFsuite that python-crfsuite 0.9.12 bundles
//! (what sklearn-crfsuite 0.5.0 runs): `ap` and `pa` stop when the mean loss is *below*
//! `epsilon`, so with the default `epsilon = 0` every epoch of the budget runs; `arow`
//! stops when it is *at most* `epsilon`, so with the default it stops after the first
//! epoch without a mistake (loss 0). The engine's test is `change <= tol`, so for `ap` and
//! `pa` the change reported is the mean loss moved up by one ulp when it equals `tol`
//! exactly, for `arow` the mean loss itself.
//!
//! **The difference vector** is collected only over the items where the two paths differ
//! (state features of both labels, with the attribute's value) and the transitions whose
//! label pair differs (value 1): the features of agreeing items cancel exactly, so they
//! are never touched (CRFsuite adds and subtracts them, which is the same up to rounding).
//! Repeated features are merged, so `||Φ(x, y) - Φ(x, ŷ)||^2` is exact.
//!
//! **Averaging** (`ap`, and `pa` with `averaging`): the returned weights are the mean of
//! the weight vectors after every instance seen so far, over all epochs,
//! `(1/T) sum_{t=1}^{T} w_t`. It is kept lazily: besides `w`, a vector `s` receives
//! `(t - 1) Δ` whenever instance `t` changes `w` by `Δ`, and `(1/T) sum_t w_t = w_T - s/T`;
//! an update costs the features it touches, the mean costs one pass per epoch. CRFsuite
//! averages the `T + 1` vectors `w_0 = 0, w_1, ..., w_T` instead, which is the same vector
//! times `T / (T + 1)`: the same tagging, weights smaller by that factor.
//!
//! **A second core** does nothing for these trainers: each instance is decoded with the
//! weights its predecessor's update left, so the epoch is a sequential chain (the
//! held-out scoring after an epoch is sequential too). Iterative parameter mixing
//! (McDonald, Hall and Mann, NAACL 2010), which trains a different model, is the
//! distributed fit of [`crate::distributed`]: each shard runs this same epoch
//! ([`one_epoch`]) and the client mixes the results through the same loop ([`drive`]). The speed comes from the single thread:
//! no allocation per instance, a max-plus Viterbi whose inner loop runs over contiguous
//! rows of the transition matrix, and updates that touch only the features of the items
//! where the two paths differ.

use bl_core::engine::{FitReport, Observer, Progress, run};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::{Algorithm, IterationLog, Job, Trained};
use crate::data::{Dataset, Instance, Items};
use crate::error::{CrfError, Result};
use crate::features::FeatureSet;

/// Viterbi with reused buffers and its dense transition matrix, kept equal to the weights'
/// transition features.
#[derive(Debug)]
pub(crate) struct Decoder {
    l: usize,
    /// `L x L` (previous, next) transition weights; 0 where there is no feature.
    trans: Vec<f64>,
    /// For transition feature `n_state + j`: its index in `trans`.
    trans_cell: Vec<u32>,
    n_state: usize,
    /// State scores, overwritten by the forward (max-plus) scores: `n x L`.
    score: Vec<f64>,
    /// The best predecessor score of each label at the current position.
    best: Vec<f64>,
    /// The predicted path.
    pub(super) path: Vec<u32>,
}

/// What decoding one training sequence found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Decoded {
    /// Items whose predicted label differs from the gold one (`d`).
    pub(super) errors: usize,
    /// The score of the predicted (Viterbi) path.
    pub(super) viterbi_score: f64,
    /// The score of the gold path.
    pub(super) gold_score: f64,
}

impl Decoder {
    ///
    /// # Errors
    /// `BlError::InvalidParameter` when the `L x L` transition weights cannot be reserved.
    pub(crate) fn new(features: &FeatureSet, w: &[f64]) -> Result<Self> {
        let l = features.n_labels();
        let n_state = features.n_state();
        let mut trans_cell = bl_core::limits::try_zeroed::<u32>(
            "transitions (decoder)",
            &[features.len() - n_state],
        )?;
        for (prev, next, k) in features.iter_transitions() {
            trans_cell[k - n_state] = prev * l as u32 + next;
        }
        Ok(Self {
            l,
            trans: features.try_transition_weights(w)?,
            trans_cell,
            n_state,
            score: Vec::new(),
            best: bl_core::limits::try_zeroed("labels (decoder)", &[l])?,
            path: Vec::new(),
        })
    }

    /// Copies the new weights of the features `changed` that are transitions.
    pub(super) fn refresh(&mut self, w: &[f64], changed: impl Iterator<Item = usize>) {
        for k in changed {
            if k >= self.n_state {
                self.trans[self.trans_cell[k - self.n_state] as usize] = w[k];
            }
        }
    }

    /// Tags `x` under `w` into `self.path` and scores the gold path. The path is
    /// [`crate::viterbi::viterbi`]'s, ties included (the lower label).
    pub(super) fn decode(&mut self, features: &FeatureSet, x: Instance<'_>, w: &[f64]) -> Decoded {
        let l = self.l;
        let n = x.items.len();
        features.state_scores_unchecked(x.items, w, &mut self.score);
        self.path.clear();
        if n == 0 || l == 0 {
            return Decoded {
                errors: 0,
                viterbi_score: 0.0,
                gold_score: 0.0,
            };
        }
        let trans = &self.trans;
        let mut gold_score = 0.0;
        for (t, &y) in x.labels.iter().enumerate() {
            gold_score += self.score[t * l + y as usize];
            if t > 0 {
                gold_score += trans[x.labels[t - 1] as usize * l + y as usize];
            }
        }
        // Forward: score[t][a] += max_b (score[t - 1][b] + trans[b][a]), in place. The
        // inner loop is an elementwise max over a contiguous row (vectorizable); the
        // arg max is recovered while backtracking.
        for t in 1..n {
            let (done, rest) = self.score.split_at_mut(t * l);
            let prev = &done[(t - 1) * l..];
            let best = &mut self.best[..];
            best.fill(f64::NEG_INFINITY);
            for (&p, row) in prev.iter().zip(trans.chunks_exact(l)) {
                for (m, &tr) in best.iter_mut().zip(row) {
                    let v = p + tr;
                    *m = if v > *m { v } else { *m };
                }
            }
            for (s, &m) in rest[..l].iter_mut().zip(best.iter()) {
                *s += m;
            }
        }
        // Backtrack: the lowest label of the best final score, then the lowest best
        // predecessor of each label (the same comparisons as crate::viterbi).
        self.path.resize(n, 0);
        let (mut viterbi_score, mut arg) = (f64::NEG_INFINITY, 0u32);
        for (a, &v) in self.score[(n - 1) * l..].iter().enumerate() {
            if v > viterbi_score {
                viterbi_score = v;
                arg = a as u32;
            }
        }
        self.path[n - 1] = arg;
        for t in (1..n).rev() {
            let a = self.path[t] as usize;
            let prev = &self.score[(t - 1) * l..t * l];
            let (mut best, mut arg) = (f64::NEG_INFINITY, 0u32);
            for (b, &p) in prev.iter().enumerate() {
                let v = p + trans[b * l + a];
                if v > best {
                    best = v;
                    arg = b as u32;
                }
            }
            self.path[t - 1] = arg;
        }
        let errors = self
            .path
            .iter()
            .zip(x.labels)
            .filter(|(p, y)| p != y)
            .count();
        Decoded {
            errors,
            viterbi_score,
            gold_score,
        }
    }
}

/// The sparse vector `Φ(x, y) - Φ(x, ŷ)` (module docs): sorted feature ids with their
/// merged values. Its buffer is reused from instance to instance.
#[derive(Debug, Default)]
pub(crate) struct SparseDelta {
    entries: Vec<(u32, f64)>,
}

impl SparseDelta {
    /// Collects the difference of the gold path `gold` and the predicted path `pred` on
    /// `items`.
    pub(crate) fn collect(
        &mut self,
        features: &FeatureSet,
        items: Items<'_>,
        gold: &[u32],
        pred: &[u32],
    ) {
        let e = &mut self.entries;
        e.clear();
        for t in 0..items.len() {
            let (y, z) = (gold[t], pred[t]);
            if y != z {
                let (ids, vals) = items.item(t);
                for (&a, &v) in ids.iter().zip(vals) {
                    if let Some(k) = features.state_feature(a, y) {
                        e.push((k as u32, v));
                    }
                    if let Some(k) = features.state_feature(a, z) {
                        e.push((k as u32, -v));
                    }
                }
            }
            if t > 0 && (gold[t - 1], y) != (pred[t - 1], z) {
                if let Some(k) = features.transition(gold[t - 1], y) {
                    e.push((k as u32, 1.0));
                }
                if let Some(k) = features.transition(pred[t - 1], z) {
                    e.push((k as u32, -1.0));
                }
            }
        }
        // Merge repeated ids (an unstable sort: deterministic, and it does not allocate).
        e.sort_unstable_by_key(|&(k, _)| k);
        let mut out = 0;
        for i in 0..e.len() {
            if out > 0 && e[out - 1].0 == e[i].0 {
                e[out - 1].1 += e[i].1;
            } else {
                e[out] = e[i];
                out += 1;
            }
        }
        e.truncate(out);
    }

    /// `(feature id, value)` pairs, ids increasing and distinct.
    pub(crate) fn entries(&self) -> &[(u32, f64)] {
        &self.entries
    }

    /// A difference vector of given entries (ids increasing and distinct), for tests.
    #[cfg(test)]
    pub(crate) fn from_entries(entries: Vec<(u32, f64)>) -> Self {
        Self { entries }
    }

    /// `||Φ(x, y) - Φ(x, ŷ)||^2`.
    pub(crate) fn norm2(&self) -> f64 {
        self.entries.iter().map(|&(_, v)| v * v).sum()
    }
}

/// The weights an update changes, with the lazy average (module docs) when the trainer
/// averages.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Weights {
    pub(crate) w: Vec<f64>,
    /// `sum_t (t - 1) Δ_t`, when averaging.
    pub(crate) sum: Option<Vec<f64>>,
    /// Instances seen before the current one (`t - 1`).
    pub(crate) seen: u64,
}

impl Weights {
    /// Zero weights over `dim` features (and their running sum with `averaging`).
    ///
    /// # Errors
    /// `BlError::InvalidParameter` naming the weights when `dim` exceeds
    /// [`bl_core::limits::MAX_ELEMENTS`] or the buffers cannot be reserved.
    pub(crate) fn new(dim: usize, averaging: bool) -> Result<Self> {
        let zeros = || bl_core::limits::try_zeroed("weights (online trainer)", &[dim]);
        Ok(Self {
            w: zeros()?,
            sum: if averaging { Some(zeros()?) } else { None },
            seen: 0,
        })
    }

    /// `w[k] += change` at the current instance.
    #[inline]
    pub(super) fn add(&mut self, k: usize, change: f64) {
        self.w[k] += change;
        if let Some(sum) = &mut self.sum {
            sum[k] += self.seen as f64 * change;
        }
    }

    /// `w += tau * delta`.
    pub(super) fn add_scaled(&mut self, tau: f64, delta: &SparseDelta) {
        for &(k, v) in delta.entries() {
            self.add(k as usize, tau * v);
        }
    }

    /// The current instance is done.
    pub(crate) fn tick(&mut self) {
        self.seen += 1;
    }

    /// The weights the model would have now: the average, or `w`.
    fn model_weight(&self, k: usize) -> f64 {
        match &self.sum {
            Some(sum) if self.seen > 0 => self.w[k] - sum[k] / self.seen as f64,
            _ => self.w[k],
        }
    }

    /// `||.||_2` and the nonzero count of the model's weights, without storing them.
    pub(crate) fn norm_and_active(&self) -> (f64, usize) {
        let (mut s, mut n) = (0.0, 0);
        for k in 0..self.w.len() {
            let v = self.model_weight(k);
            s += v * v;
            n += usize::from(v != 0.0);
        }
        (s.sqrt(), n)
    }

    /// The model's weights into `out` (resized).
    pub(crate) fn model_weights_into(&self, out: &mut Vec<f64>) {
        out.clear();
        out.extend((0..self.w.len()).map(|k| self.model_weight(k)));
    }

    /// The model's weights (the average reuses the sum's memory).
    pub(crate) fn into_model_weights(self) -> Vec<f64> {
        match self.sum {
            Some(mut sum) if self.seen > 0 => {
                let t = self.seen as f64;
                for (s, &w) in sum.iter_mut().zip(&self.w) {
                    *s = w - *s / t;
                }
                sum
            }
            _ => self.w,
        }
    }
}

/// A trainer's step on one mistaken instance.
pub(crate) trait Update {
    /// Updates `weights` along `delta` for an instance decoded as `decoded` (`errors > 0`)
    /// with `n_items` items; returns the instance's loss.
    fn update(
        &mut self,
        decoded: &Decoded,
        n_items: usize,
        delta: &SparseDelta,
        weights: &mut Weights,
    ) -> f64;

    /// How the epoch loop compares the epoch's mean loss with `epsilon`:
    /// [`EpsilonTest::Below`] unless the trainer says otherwise (`arow`).
    fn epsilon_test(&self) -> EpsilonTest {
        EpsilonTest::Below
    }
}

/// What one epoch found: the summed loss, the wrongly labelled items and the instances
/// that were mistaken (decoded with `errors > 0`: those the trainer updated on).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct EpochStats {
    pub(crate) loss: f64,
    pub(crate) errors: usize,
    pub(crate) mistakes: usize,
}

/// One epoch over `data` (module docs): shuffles `order` with `rng`, then decodes and
/// updates sequence after sequence. `decoder` must hold the transitions of `weights.w`;
/// it is kept so. The one-machine loop and a distributed shard both run this.
#[allow(clippy::too_many_arguments)]
pub(crate) fn one_epoch(
    data: &Dataset,
    features: &FeatureSet,
    order: &mut [usize],
    rng: &mut StdRng,
    decoder: &mut Decoder,
    delta: &mut SparseDelta,
    weights: &mut Weights,
    update: &mut dyn Update,
) -> EpochStats {
    order.shuffle(rng);
    let mut stats = EpochStats::default();
    for &s in order.iter() {
        let x = data.instance(s);
        let decoded = decoder.decode(features, x, &weights.w);
        if decoded.errors > 0 {
            delta.collect(features, x.items, x.labels, &decoder.path);
            stats.loss += update.update(&decoded, x.items.len(), delta, weights);
            decoder.refresh(&weights.w, delta.entries().iter().map(|e| e.0 as usize));
            stats.errors += decoded.errors;
            stats.mistakes += 1;
        }
        weights.tick();
    }
    stats
}

/// How the epoch loop compares an epoch's mean loss (summed loss divided by the number
/// of sequences) with `epsilon`, as the CRFsuite bundled in python-crfsuite 0.9.12 does
/// for each online trainer (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EpsilonTest {
    /// Stop when the mean loss is below `epsilon` (`ap`, `pa`).
    Below,
    /// Stop when the mean loss is at most `epsilon` (`arow`).
    AtMost,
}

impl EpsilonTest {
    /// The test of an online trainer: [`EpsilonTest::AtMost`] for `arow`,
    /// [`EpsilonTest::Below`] for the others.
    pub(crate) fn of(algorithm: &Algorithm) -> Self {
        match algorithm {
            Algorithm::Arow(_) => Self::AtMost,
            _ => Self::Below,
        }
    }

    /// The change to report to the engine, whose test is `change <= tol`: the mean loss,
    /// moved up by one ulp for [`EpsilonTest::Below`] when it equals `tol`.
    fn change(self, mean: f64, tol: f64) -> f64 {
        match self {
            Self::AtMost => mean,
            Self::Below if mean < tol => mean,
            Self::Below => mean.max(tol.next_up()),
        }
    }
}

/// What runs the epochs of [`drive`]: one machine, or the mixing of distributed shards.
pub(crate) trait EpochRunner {
    /// Runs one epoch, leaving the new weights in [`EpochRunner::weights`].
    fn run_epoch(&mut self) -> Result<EpochStats>;
    /// The weights after the last epoch.
    fn weights(&self) -> &Weights;
}

/// The engine loop of the online trainers (module docs): runs `runner`'s epochs over a
/// training set of `n` sequences, logs each and stops by `test`, as CRFsuite does.
pub(crate) fn drive(
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
    n: usize,
    runner: &mut dyn EpochRunner,
    test: EpsilonTest,
) -> Result<FitReport> {
    let mut holdout_weights = Vec::new();
    let tol = job.iteration.tol;
    let rule = job.iteration;
    run(&rule, observers, |k| {
        let EpochStats { loss, errors, .. } = runner.run_epoch()?;
        let weights = runner.weights();
        let (norm, active) = weights.norm_and_active();
        let holdout = if job.holdout.is_some() {
            weights.model_weights_into(&mut holdout_weights);
            job.holdout_score(&holdout_weights)?
        } else {
            None
        };
        job.keep(IterationLog {
            errors: Some(errors),
            ..IterationLog::new(k, loss, (norm, active), job.elapsed(), holdout)
        })?;
        let change = test.change(loss / n as f64, tol);
        Ok::<_, CrfError>(
            Progress::new(loss, change)
                .with("errors", errors as f64)
                .with("feature_norm", norm),
        )
    })
}

/// The one-machine runner: the whole training set, one decoder and order for the fit.
struct Local<'a, 'u> {
    data: &'a Dataset,
    features: &'a FeatureSet,
    order: Vec<usize>,
    rng: StdRng,
    decoder: Decoder,
    delta: SparseDelta,
    weights: Weights,
    update: &'u mut dyn Update,
}

impl EpochRunner for Local<'_, '_> {
    fn run_epoch(&mut self) -> Result<EpochStats> {
        Ok(one_epoch(
            self.data,
            self.features,
            &mut self.order,
            &mut self.rng,
            &mut self.decoder,
            &mut self.delta,
            &mut self.weights,
            self.update,
        ))
    }

    fn weights(&self) -> &Weights {
        &self.weights
    }
}

/// Runs the epochs of an online trainer (module docs) from `weights` with `update`,
/// stopping by its [`Update::epsilon_test`].
pub(super) fn epochs(
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
    weights: Weights,
    update: &mut dyn Update,
) -> Result<Trained> {
    let test = update.epsilon_test();
    let data = job.data;
    let features = job.features;
    let n = data.len();
    let mut local = Local {
        data,
        features,
        order: (0..n).collect(),
        rng: StdRng::seed_from_u64(job.seed),
        decoder: Decoder::new(features, &weights.w)?,
        delta: SparseDelta::default(),
        weights,
        update,
    };
    let report = drive(job, observers, n, &mut local, test)?;
    Ok(Trained {
        weights: local.weights.into_model_weights(),
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DatasetBuilder;
    use crate::features::FeatureOptions;
    use crate::test_support::lcg;

    /// A data set of `n_seq` sequences over `l` labels with pseudo-random values.
    fn data(n_seq: usize, l: usize, seed: u64) -> crate::data::Dataset {
        let mut next = lcg(seed);
        let mut b = DatasetBuilder::new();
        for _ in 0..n_seq {
            let len = 1 + next() % 6;
            for _ in 0..len {
                for _ in 0..1 + next() % 3 {
                    let v = (next() % 7) as f64 * 0.5 - 1.0;
                    b.attribute(&format!("a{}", next() % 5), v).unwrap();
                }
                b.end_item(&format!("y{}", next() % l)).unwrap();
            }
            b.end_sequence().unwrap();
        }
        b.finish()
    }

    #[test]
    fn decoder_agrees_with_viterbi_and_scores() {
        for seed in 0..20 {
            let d = data(8, 4, seed);
            let fs = FeatureSet::generate(
                &d,
                &FeatureOptions {
                    all_possible_transitions: seed % 2 == 0,
                    ..FeatureOptions::default()
                },
            )
            .unwrap();
            // Integer-valued weights make ties common: the tie rule must agree too.
            let w: Vec<f64> = (0..fs.len())
                .map(|k| ((k as u64 * 7 + seed) % 5) as f64 - 2.0)
                .collect();
            let mut dec = Decoder::new(&fs, &w).unwrap();
            let trans = fs.transition_weights(&w).unwrap();
            for x in d.iter() {
                let got = dec.decode(&fs, x, &w);
                let (mut state, mut path, mut back) = (Vec::new(), Vec::new(), Vec::new());
                fs.state_scores(x.items, &w, &mut state).unwrap();
                let best =
                    crate::viterbi::viterbi(&state, fs.n_labels(), &trans, &mut path, &mut back)
                        .unwrap();
                assert_eq!(dec.path, path);
                assert_eq!(got.viterbi_score, best);
                let mut gold = 0.0;
                fs.for_each_feature(x.items, x.labels, |k, v| gold += w[k] * v)
                    .unwrap();
                assert!((got.gold_score - gold).abs() < 1e-9);
                assert!(got.viterbi_score >= got.gold_score - 1e-9);
            }
        }
    }

    #[test]
    fn delta_is_the_dense_difference() {
        for seed in 0..20 {
            let d = data(6, 3, seed);
            let fs = FeatureSet::generate(&d, &FeatureOptions::default()).unwrap();
            let mut delta = SparseDelta::default();
            for (s, x) in d.iter().enumerate() {
                let pred: Vec<u32> = (0..x.labels.len())
                    .map(|t| ((t + s + seed as usize) % 3) as u32)
                    .collect();
                let mut dense = vec![0.0; fs.len()];
                fs.for_each_feature(x.items, x.labels, |k, v| dense[k] += v)
                    .unwrap();
                fs.for_each_feature(x.items, &pred, |k, v| dense[k] -= v)
                    .unwrap();
                delta.collect(&fs, x.items, x.labels, &pred);
                let mut sparse = vec![0.0; fs.len()];
                let e = delta.entries();
                assert!(e.windows(2).all(|p| p[0].0 < p[1].0));
                for &(k, v) in e {
                    sparse[k as usize] = v;
                }
                for k in 0..fs.len() {
                    assert!((dense[k] - sparse[k]).abs() < 1e-12, "feature {k}");
                }
                let norm2: f64 = dense.iter().map(|v| v * v).sum();
                assert!((delta.norm2() - norm2).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn lazy_average_is_the_mean_of_the_iterates() {
        let mut w = Weights::new(3, true).unwrap();
        let mut iterates = Vec::new();
        let changes = [(0, 1.0), (2, -0.5), (0, 0.25), (1, 3.0), (2, 2.0)];
        for (i, &(k, c)) in changes.iter().enumerate() {
            if i % 2 == 0 {
                w.add(k, c);
            }
            w.tick();
            iterates.push(w.w.clone());
        }
        let t = iterates.len() as f64;
        for k in 0..3 {
            let mean: f64 = iterates.iter().map(|v| v[k]).sum::<f64>() / t;
            assert!((w.model_weight(k) - mean).abs() < 1e-12);
        }
        let mut out = Vec::new();
        w.model_weights_into(&mut out);
        assert_eq!(out, w.into_model_weights());
    }
}
