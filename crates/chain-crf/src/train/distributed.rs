//! Training on shards of the data held by other processes or machines: the parts a
//! distributed fit is made of, for a driver (such as the Python package's Dask fit) that
//! moves bytes between a client and its workers.
//!
//! **Encoding.** Each worker reads its sequences into an ordinary [`Dataset`] with its own
//! dictionaries, and sends the client its [`ShardSummary`]: the names it met (in order of
//! first occurrence) and the counts feature generation needs. The client merges the
//! summaries, in shard order, into a [`Plan`]: the shared attribute and label dictionaries
//! (names in order of first occurrence over the shards in order, so the same ids as one
//! pass over the concatenated data), the shared [`FeatureSet`] (CRFsuite's rules on the
//! summed counts, [`FeatureSet::generate`]'s result on the concatenation), and one
//! [`Remap`] per shard. A worker turns its data set and its remap into a [`Shard`] once;
//! the dictionaries are then frozen and never travel again.
//!
//! **`lbfgs`** by a distributed gradient: the client runs the one optimizer of the crate
//! ([`crate::optim`], which adds the penalties `c1 ||w||_1 + c2 ||w||^2`) on a
//! [`GradientSource`]; each evaluation sends `w` to every shard, whose
//! [`Shard::loss_and_gradient`] sums the negative log-likelihood and its gradient over its
//! sequences with the same per-sequence code as a one-machine fit, and the client adds the
//! shards' sums in shard order. The model is the one-machine fit's up to the order of
//! summation ([`fit_lbfgs`]).
//!
//! **`ap`, `pa`, `arow`** by iterative parameter mixing (R. McDonald, K. Hall and G.
//! Mann, *Distributed training strategies for the structured perceptron*, NAACL 2010):
//! every epoch, each worker runs one epoch of the one-machine trainer on its shard from
//! the current mixed [`OnlineState`] ([`Shard::epoch`]: its own order, shuffled every
//! epoch from a seed of its own, [`shard_seed`]), and the client [`mix`]es the results
//! into the state of the next epoch ([`fit_online`]). What is mixed:
//!
//! - the **current weights** `w` (the weights the trainer decodes with and updates), for
//!   all three: `w = sum_i m_i w_i / sum_i m_i`, weighted by `m_i`, the number of
//!   sequences shard `i` was mistaken on (and so updated on) in the epoch. This is the
//!   error-weighted mixture of McDonald et al., whose convergence bound holds for any
//!   mixture and is tightest for this one: a shard that made no mistake returns the
//!   weights it was given and does not pull the others' corrections back towards them
//!   (a uniform mixture would divide every correction by the number of shards). When no
//!   shard made a mistake the weights are unchanged.
//! - for `ap` and for `pa` with `averaging`, the **averaged weights** are not mixed but
//!   accumulated: the model is the mean of every weight vector every shard passed
//!   through (after each of its instances), over all epochs, which is Collins' average
//!   over the union of the shards' trajectories, and with one shard exactly the
//!   one-machine average. The state keeps it in the lazy form of the one-machine
//!   trainer (`w` and `s = sum_t (t - 1) Δ_t`, `T` instances seen), so a shard's epoch
//!   costs what a one-machine epoch costs.
//! - for `arow`, the **covariance** (one variance per feature) is combined through the
//!   precisions: AROW's step adds `v^2 / gamma` to a feature's precision `1 / sigma`,
//!   whatever the weights, so the precision after the epoch is the precision before plus
//!   every shard's increment, `1 / sigma = 1 / sigma_0 + sum_i (1 / sigma_i - 1 /
//!   sigma_0)`: the confidence the model would have after the same updates made on one
//!   machine. (Averaging the variances would undo most of the shrinkage of a feature
//!   seen on one shard only.)
//!
//! With one shard, mixing returns that shard's state unchanged, so a one-shard fit is the
//! one-machine fit bit for bit (same seed, `threads = 1` for `lbfgs`).
//!
//! **Bytes.** Every message has a versioned byte form (`to_bytes` / `from_bytes`), read
//! back with every length and value checked ([`crate::CrfError::Serialized`] otherwise).
//! What travels per `lbfgs` evaluation is `w` to each shard and its gradient back
//! ([`vector_to_bytes`]: 8 bytes per feature plus a small header); per online epoch, the
//! state to each shard and its new state back (8 bytes per feature for `w`, plus 8 for
//! the average's sum, or 8 for AROW's variances).

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::ap::Perceptron;
use super::arow::Step;
use super::online::{
    Decoder, EpochRunner, EpochStats, SparseDelta, Update, Weights, drive, one_epoch,
};
use super::{Algorithm, CrfValidParams, FittedCrf, Job, lbfgs};
use crate::data::Dataset;
use crate::dict::Dictionary;
use crate::error::Result;
use crate::features::{FeatureOptions, FeatureSet};
use crate::model::Model;
use crate::wire::{Kind, Reader, Writer, bad};
use bl_core::engine::Observer;
use bl_core::error::build::{invalid, shape_mismatch as mismatch};

// ---------------------------------------------------------------------------------------
// Encoding.

/// What a shard tells the client before training (module docs): its attribute and label
/// names in id order, every `(attribute, label)` pair it has with the pair's frequency
/// (the sum of the attribute's values on items with that label), its transition counts,
/// whether a value is negative, and its sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardSummary {
    attributes: Vec<String>,
    labels: Vec<String>,
    /// `(attribute, label, frequency)`, sorted, each pair once.
    state: Vec<(u32, u32, f64)>,
    /// `L x L` (previous, next), local label ids.
    transitions: Vec<f64>,
    negative: bool,
    sequences: u64,
    items: u64,
}

impl ShardSummary {
    /// The summary of a shard's data set (built by [`crate::DatasetBuilder::new`]).
    ///
    /// # Errors
    /// [`crate::CrfError::Input`] naming the first item whose label is not in `data`'s
    /// label dictionary ([`Dataset::check_labels`]: the [`crate::UNKNOWN_LABEL`] of a
    /// [`crate::DatasetBuilder::frozen`] data set), checked before any work.
    pub fn of(data: &Dataset) -> Result<Self> {
        let l = data.labels().len();
        // Every seen pair, whatever its frequency (no threshold applies here); this
        // checks the labels first.
        let seen = FeatureSet::generate(
            data,
            &FeatureOptions {
                min_freq: f64::NEG_INFINITY,
                all_possible_states: false,
                all_possible_transitions: false,
            },
        )?;
        let mut freq = vec![0.0; seen.n_state()];
        let mut transitions = vec![0.0; l * l];
        let mut negative = false;
        for x in data.iter() {
            for t in 0..x.items.len() {
                let y = x.labels[t];
                let (ids, vals) = x.items.item(t);
                for (&a, &v) in ids.iter().zip(vals) {
                    if let Some(k) = seen.state_feature(a, y) {
                        freq[k] += v;
                    }
                    negative |= v < 0.0;
                }
                if t > 0 {
                    transitions[x.labels[t - 1] as usize * l + y as usize] += 1.0;
                }
            }
        }
        let state = seen.iter_state().map(|(a, y, k)| (a, y, freq[k])).collect();
        Ok(Self {
            attributes: data.attributes().names().to_vec(),
            labels: data.labels().names().to_vec(),
            state,
            transitions,
            negative,
            sequences: data.len() as u64,
            items: data.n_items() as u64,
        })
    }

    /// Number of sequences of the shard.
    pub fn sequences(&self) -> u64 {
        self.sequences
    }

    /// Number of items of the shard.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::Summary);
        w.strings(&self.attributes);
        w.strings(&self.labels);
        let (a, rest): (Vec<u32>, Vec<(u32, f64)>) =
            self.state.iter().map(|&(a, y, f)| (a, (y, f))).unzip();
        let (y, f): (Vec<u32>, Vec<f64>) = rest.into_iter().unzip();
        w.u32s(&a);
        w.u32s(&y);
        w.f64s(&f);
        w.f64s(&self.transitions);
        w.byte(u8::from(self.negative));
        w.u64(self.sequences);
        w.u64(self.items);
        w.finish()
    }

    /// Reads [`ShardSummary::to_bytes`], checking everything (ids in range, pairs sorted
    /// and distinct, an `L x L` transition table of nonnegative counts).
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::Summary)?;
        let attributes = r.strings("attribute names")?;
        let labels = r.strings("label names")?;
        let a = r.u32s("pair attributes")?;
        let y = r.u32s("pair labels")?;
        let f = r.f64s("pair frequencies")?;
        let transitions = r.f64s("transition counts")?;
        let negative = r.flag("the negative flag")?;
        let sequences = r.u64()?;
        let items = r.u64()?;
        r.finish()?;
        let l = labels.len();
        if a.len() != y.len() || a.len() != f.len() {
            return Err(bad("shard summary: pair arrays of different lengths"));
        }
        if l.checked_mul(l) != Some(transitions.len()) {
            return Err(bad(format!(
                "shard summary: {} transition counts for {l} labels",
                transitions.len()
            )));
        }
        if transitions.iter().any(|&c| c < 0.0) {
            return Err(bad("shard summary: a negative transition count"));
        }
        let state: Vec<(u32, u32, f64)> = (0..a.len()).map(|i| (a[i], y[i], f[i])).collect();
        for (i, p) in state.iter().enumerate() {
            if p.0 as usize >= attributes.len() || p.1 as usize >= l {
                return Err(bad(format!("shard summary: pair {i} is out of range")));
            }
            if i > 0 && (state[i - 1].0, state[i - 1].1) >= (p.0, p.1) {
                return Err(bad(format!("shard summary: pair {i} is out of order")));
            }
        }
        Ok(Self {
            attributes,
            labels,
            state,
            transitions,
            negative,
            sequences,
            items,
        })
    }
}

/// A shard's translation of its own attribute and label ids into the shared ones (module
/// docs), with the sizes of the shared dictionaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    attributes: Vec<u32>,
    labels: Vec<u32>,
    n_attributes: usize,
    n_labels: usize,
}

impl Remap {
    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::Remap);
        w.u32s(&self.attributes);
        w.u32s(&self.labels);
        w.u64(self.n_attributes as u64);
        w.u64(self.n_labels as u64);
        w.finish()
    }

    /// Reads [`Remap::to_bytes`], checking that every id is below the shared sizes.
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::Remap)?;
        let attributes = r.u32s("attribute ids")?;
        let labels = r.u32s("label ids")?;
        let n_attributes = r.count("the attribute count")?;
        let n_labels = r.count("the label count")?;
        r.finish()?;
        if attributes.iter().any(|&a| a as usize >= n_attributes)
            || labels.iter().any(|&y| y as usize >= n_labels)
        {
            return Err(bad("id remapping: an id beyond the shared dictionaries"));
        }
        Ok(Self {
            attributes,
            labels,
            n_attributes,
            n_labels,
        })
    }
}

/// The client's merge of the shards' summaries (module docs): shared dictionaries, the
/// feature set, one [`Remap`] per shard.
#[derive(Debug, Clone)]
pub struct Plan {
    attributes: Dictionary,
    labels: Dictionary,
    features: FeatureSet,
    options: FeatureOptions,
    remaps: Vec<Remap>,
    sequences: usize,
    items: usize,
}

impl Plan {
    /// Merges `summaries` (in shard order) with the feature options of the fit.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] without a shard or without a sequence;
    /// [`bl_core::BlError::InvalidParameter`] for a non-finite `min_freq`; `Input` past
    /// `u32::MAX` attribute or label names.
    pub fn merge(summaries: &[ShardSummary], options: &FeatureOptions) -> Result<Self> {
        bl_core::error::ensure_nonempty("shards", summaries.len())?;
        if !options.min_freq.is_finite() {
            return Err(invalid("min_freq", options.min_freq, "finite"));
        }
        let sequences: u64 = summaries.iter().map(|s| s.sequences).sum();
        bl_core::error::ensure_nonempty("training sequences", sequences as usize)?;
        let mut attributes = Dictionary::new();
        let mut labels = Dictionary::new();
        let mut remaps = Vec::with_capacity(summaries.len());
        let full = |what: &str| crate::error::input(0, 0, format!("more than 2^32 - 1 {what}"));
        for s in summaries {
            let a = s
                .attributes
                .iter()
                .map(|n| {
                    attributes
                        .get_or_insert(n)
                        .ok_or_else(|| full("attributes"))
                })
                .collect::<Result<Vec<u32>>>()?;
            let y = s
                .labels
                .iter()
                .map(|n| labels.get_or_insert(n).ok_or_else(|| full("labels")))
                .collect::<Result<Vec<u32>>>()?;
            remaps.push(Remap {
                attributes: a,
                labels: y,
                n_attributes: 0,
                n_labels: 0,
            });
        }
        let (n_attrs, l) = (attributes.len(), labels.len());
        let mut state = Vec::with_capacity(summaries.iter().map(|s| s.state.len()).sum());
        let mut transitions = vec![0.0; l * l];
        for (s, m) in summaries.iter().zip(&mut remaps) {
            m.n_attributes = n_attrs;
            m.n_labels = l;
            state.extend(
                s.state
                    .iter()
                    .map(|&(a, y, f)| (m.attributes[a as usize], m.labels[y as usize], f)),
            );
            let ls = s.labels.len();
            for (j, &c) in s.transitions.iter().enumerate() {
                let (p, n) = (m.labels[j / ls] as usize, m.labels[j % ls] as usize);
                transitions[p * l + n] += c;
            }
        }
        // A stable sort keeps shard order among equal pairs: their frequencies are added
        // in shard order.
        state.sort_by_key(|p| (p.0, p.1));
        let mut merged: Vec<(u32, u32, f64)> = Vec::with_capacity(state.len());
        for p in state {
            match merged.last_mut() {
                Some(q) if (q.0, q.1) == (p.0, p.1) => q.2 += p.2,
                _ => merged.push(p),
            }
        }
        let negative = summaries.iter().any(|s| s.negative);
        let features =
            FeatureSet::from_counts(n_attrs, l, &merged, &transitions, negative, options);
        Ok(Self {
            attributes,
            labels,
            features,
            options: *options,
            remaps,
            sequences: sequences as usize,
            items: summaries.iter().map(|s| s.items as usize).sum(),
        })
    }

    /// The shared attribute dictionary.
    pub fn attributes(&self) -> &Dictionary {
        &self.attributes
    }

    /// The shared label dictionary.
    pub fn labels(&self) -> &Dictionary {
        &self.labels
    }

    /// The shared feature set.
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The remap of shard `i` (in the order of the summaries), if there is one.
    pub fn remap(&self, i: usize) -> Option<&Remap> {
        self.remaps.get(i)
    }

    /// Number of shards.
    pub fn n_shards(&self) -> usize {
        self.remaps.len()
    }

    /// Number of sequences over all shards.
    pub fn sequences(&self) -> usize {
        self.sequences
    }

    /// Number of items over all shards.
    pub fn items(&self) -> usize {
        self.items
    }
}

/// The seed of shard `index`'s shuffles for a fit seeded with `seed`: `seed` itself for
/// shard 0 (so a one-shard fit shuffles as the one-machine fit), a SplitMix64 mix of both
/// for the others.
pub fn shard_seed(seed: u64, index: usize) -> u64 {
    if index == 0 {
        return seed;
    }
    let mut z = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A worker's sequences with the shared ids and feature set (module docs), and the
/// state of its online epochs (its order, shuffled every epoch, and its generator).
#[derive(Debug)]
pub struct Shard {
    data: Dataset,
    features: FeatureSet,
    order: Vec<usize>,
    rng: StdRng,
}

impl Shard {
    /// Shard `index` (0-based, in the order of the summaries) of a fit seeded with `seed`:
    /// `local` (the data set the summary was made of) translated by `remap`.
    ///
    /// # Errors
    /// `ShapeMismatch` when `remap` does not fit `local`'s dictionaries or `features`'
    /// sizes; `Input` for a label outside `local`'s dictionary.
    pub fn new(
        mut local: Dataset,
        remap: &Remap,
        features: FeatureSet,
        index: usize,
        seed: u64,
    ) -> Result<Self> {
        if (remap.n_attributes, remap.n_labels) != (features.n_attributes(), features.n_labels()) {
            return Err(mismatch(
                "shard: remap and feature set",
                format!(
                    "{} attributes and {} labels",
                    features.n_attributes(),
                    features.n_labels()
                ),
                format!("{} and {}", remap.n_attributes, remap.n_labels),
            ));
        }
        local.remap(&remap.attributes, &remap.labels)?;
        let n = local.len();
        Ok(Self {
            data: local,
            features,
            order: (0..n).collect(),
            rng: StdRng::seed_from_u64(shard_seed(seed, index)),
        })
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the shard has no sequence.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Number of features (the length of a weight vector).
    pub fn n_features(&self) -> usize {
        self.features.len()
    }

    fn check_len(&self, context: &'static str, n: usize) -> Result<()> {
        if n != self.features.len() {
            return Err(mismatch(context, self.features.len(), n));
        }
        Ok(())
    }

    /// The negative log-likelihood of the shard's sequences at `w`, `sum_s (log Z(x_s) -
    /// score(x_s, y_s))` without any penalty, with its gradient written into `grad`: the
    /// one-machine fit's per-sequence code, on one thread.
    ///
    /// # Errors
    /// `ShapeMismatch` when `w` or `grad` does not have one entry per feature.
    pub fn loss_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        self.check_len("shard gradient: weights", w.len())?;
        self.check_len("shard gradient: gradient", grad.len())?;
        Ok(lbfgs::Likelihood::new(&self.data, &self.features, 1).eval(w, grad))
    }

    /// One epoch of `algorithm` (`ap`, `pa` or `arow`) over the shard from `state`: the
    /// one-machine trainer's epoch on these sequences, in this shard's next shuffled
    /// order.
    ///
    /// # Errors
    /// `InvalidParameter` for another algorithm; `ShapeMismatch` when `state` is not a
    /// state of `algorithm` over this feature set.
    pub fn epoch(&mut self, algorithm: &Algorithm, state: &OnlineState) -> Result<EpochResult> {
        state.check_for(algorithm, self.features.len())?;
        let mut weights = state.weights.clone();
        let mut decoder = Decoder::new(&self.features, &weights.w);
        let mut delta = SparseDelta::default();
        let mut pa;
        let mut arow = Step {
            gamma: 1.0,
            cov: Vec::new(),
        };
        let update: &mut dyn Update = match algorithm {
            Algorithm::AveragedPerceptron(_) => &mut Perceptron,
            Algorithm::PassiveAggressive(s) => {
                pa = *s;
                &mut pa
            }
            Algorithm::Arow(s) => {
                arow.gamma = s.gamma;
                arow.cov = state.cov.clone().unwrap_or_default();
                &mut arow
            }
            other => return Err(invalid("algorithm", other.name(), "ap, pa or arow")),
        };
        let stats = one_epoch(
            &self.data,
            &self.features,
            &mut self.order,
            &mut self.rng,
            &mut decoder,
            &mut delta,
            &mut weights,
            update,
        );
        let cov = match algorithm {
            Algorithm::Arow(_) => Some(std::mem::take(&mut arow.cov)),
            _ => None,
        };
        Ok(EpochResult {
            state: OnlineState { weights, cov },
            loss: stats.loss,
            errors: stats.errors as u64,
            mistakes: stats.mistakes as u64,
            instances: self.data.len() as u64,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Vectors.

/// `values` (weights, or a gradient) in the versioned byte form, with one real in front
/// (`head`: the loss of a gradient; anything for weights).
pub fn vector_to_bytes(head: f64, values: &[f64]) -> Vec<u8> {
    let mut w = Writer::new(Kind::Vector);
    w.f64(head);
    w.f64s(values);
    w.finish()
}

/// Reads [`vector_to_bytes`]: `(head, values)`, all finite.
///
/// # Errors
/// [`CrfError::Serialized`](crate::CrfError::Serialized).
pub fn vector_from_bytes(bytes: &[u8]) -> Result<(f64, Vec<f64>)> {
    let mut r = Reader::new(bytes, Kind::Vector)?;
    let head = r.f64("the head")?;
    let values = r.f64s("values")?;
    r.finish()?;
    Ok((head, values))
}

// ---------------------------------------------------------------------------------------
// Online trainers.

/// The state of `ap`, `pa` or `arow` between epochs (module docs): the current weights,
/// the lazy sum of the average when the trainer averages, the instances seen, and AROW's
/// variances.
#[derive(Debug, Clone, PartialEq)]
pub struct OnlineState {
    weights: Weights,
    cov: Option<Vec<f64>>,
}

impl OnlineState {
    /// The state before the first epoch: zero weights (and AROW's initial variance).
    ///
    /// # Errors
    /// `InvalidParameter` for an algorithm other than `ap`, `pa` and `arow`.
    pub fn initial(algorithm: &Algorithm, n_features: usize) -> Result<Self> {
        Ok(match algorithm {
            Algorithm::AveragedPerceptron(_) => Self {
                weights: Weights::new(n_features, true),
                cov: None,
            },
            Algorithm::PassiveAggressive(s) => Self {
                weights: Weights::new(n_features, s.averaging),
                cov: None,
            },
            Algorithm::Arow(s) => Self {
                weights: Weights::new(n_features, false),
                cov: Some(vec![s.variance; n_features]),
            },
            other => return Err(invalid("algorithm", other.name(), "ap, pa or arow")),
        })
    }

    fn check_for(&self, algorithm: &Algorithm, n_features: usize) -> Result<()> {
        let (averaging, arow) = match algorithm {
            Algorithm::AveragedPerceptron(_) => (true, false),
            Algorithm::PassiveAggressive(s) => (s.averaging, false),
            Algorithm::Arow(_) => (false, true),
            other => return Err(invalid("algorithm", other.name(), "ap, pa or arow")),
        };
        if self.weights.w.len() != n_features {
            return Err(mismatch(
                "online state: weights",
                n_features,
                self.weights.w.len(),
            ));
        }
        if self.weights.sum.is_some() != averaging || self.cov.is_some() != arow {
            return Err(mismatch(
                "online state",
                format!("a state of {}", algorithm.name()),
                "the state of another trainer",
            ));
        }
        Ok(())
    }

    /// The current weights (those the trainer decodes with).
    pub fn weights(&self) -> &[f64] {
        &self.weights.w
    }

    /// The model's weights: the average for an averaging trainer, else the current ones.
    pub fn model_weights(&self) -> Vec<f64> {
        self.weights.clone().into_model_weights()
    }

    /// Instances seen so far, over all shards and epochs.
    pub fn instances(&self) -> u64 {
        self.weights.seen
    }

    /// AROW's variances.
    pub fn variances(&self) -> Option<&[f64]> {
        self.cov.as_deref()
    }

    fn write(&self, w: &mut Writer) {
        w.u64(self.weights.seen);
        w.f64s(&self.weights.w);
        w.byte(u8::from(self.weights.sum.is_some()));
        if let Some(s) = &self.weights.sum {
            w.f64s(s);
        }
        w.byte(u8::from(self.cov.is_some()));
        if let Some(c) = &self.cov {
            w.f64s(c);
        }
    }

    fn read(r: &mut Reader<'_>) -> Result<Self> {
        let seen = r.u64()?;
        let w = r.f64s("weights")?;
        let sum = if r.flag("the averaging flag")? {
            Some(r.f64s("the average's sum")?)
        } else {
            None
        };
        let cov = if r.flag("the variance flag")? {
            Some(r.f64s("variances")?)
        } else {
            None
        };
        let n = w.len();
        if sum.as_ref().is_some_and(|s| s.len() != n) || cov.as_ref().is_some_and(|c| c.len() != n)
        {
            return Err(bad("online trainer state: vectors of different lengths"));
        }
        if cov.as_ref().is_some_and(|c| c.iter().any(|&v| v <= 0.0)) {
            return Err(bad("online trainer state: a variance is not positive"));
        }
        Ok(Self {
            weights: Weights { w, sum, seen },
            cov,
        })
    }

    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::OnlineState);
        self.write(&mut w);
        w.finish()
    }

    /// Reads [`OnlineState::to_bytes`] (finite values, equal lengths, positive variances).
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::OnlineState)?;
        let s = Self::read(&mut r)?;
        r.finish()?;
        Ok(s)
    }
}

/// What one shard's epoch returns: its state after the epoch, its summed loss, wrongly
/// labelled items, mistaken sequences (the updates) and sequences.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochResult {
    state: OnlineState,
    loss: f64,
    errors: u64,
    mistakes: u64,
    instances: u64,
}

impl EpochResult {
    /// The shard's state after its epoch.
    pub fn state(&self) -> &OnlineState {
        &self.state
    }

    /// The epoch's summed loss (the trainer's loss of each mistaken sequence).
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// Items labelled wrongly during the epoch.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// Sequences the trainer was mistaken on (and updated on).
    pub fn mistakes(&self) -> u64 {
        self.mistakes
    }

    /// Sequences of the shard (instances of the epoch).
    pub fn instances(&self) -> u64 {
        self.instances
    }

    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::EpochResult);
        self.state.write(&mut w);
        w.f64(self.loss);
        w.u64(self.errors);
        w.u64(self.mistakes);
        w.u64(self.instances);
        w.finish()
    }

    /// Reads [`EpochResult::to_bytes`].
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::EpochResult)?;
        let state = OnlineState::read(&mut r)?;
        let loss = r.f64("the loss")?;
        let errors = r.u64()?;
        let mistakes = r.u64()?;
        let instances = r.u64()?;
        r.finish()?;
        if mistakes > instances {
            return Err(bad("epoch result: more mistaken sequences than sequences"));
        }
        Ok(Self {
            state,
            loss,
            errors,
            mistakes,
            instances,
        })
    }
}

/// Mixes the shards' epochs that started from `previous` into the state of the next
/// epoch (module docs: error-weighted current weights, the accumulated average, AROW's
/// precisions added). One result is returned unchanged.
///
/// # Errors
/// `Empty` without a result; `ShapeMismatch` when a result is not a state of the same
/// trainer and size as `previous`, or its instance count disagrees with its state.
pub fn mix(previous: &OnlineState, results: &[EpochResult]) -> Result<OnlineState> {
    bl_core::error::ensure_nonempty("epoch results", results.len())?;
    let n = previous.weights.w.len();
    let t0 = previous.weights.seen;
    for r in results {
        let s = &r.state;
        if s.weights.w.len() != n
            || s.weights.sum.is_some() != previous.weights.sum.is_some()
            || s.cov.is_some() != previous.cov.is_some()
        {
            return Err(mismatch(
                "mix: a shard's state",
                "the previous state's trainer and size",
                "another",
            ));
        }
        if s.weights.seen.checked_sub(t0) != Some(r.instances) {
            return Err(mismatch(
                "mix: instances seen",
                format!("{t0} + the shard's {}", r.instances),
                s.weights.seen,
            ));
        }
    }
    if results.len() == 1 {
        return Ok(results[0].state.clone());
    }
    let total_mistakes: u64 = results.iter().map(|r| r.mistakes).sum();
    let w: Vec<f64> = if total_mistakes == 0 {
        previous.weights.w.clone()
    } else {
        let m = total_mistakes as f64;
        (0..n)
            .map(|j| {
                results
                    .iter()
                    .map(|r| r.mistakes as f64 * r.state.weights.w[j])
                    .sum::<f64>()
                    / m
            })
            .collect()
    };
    let seen = t0 + results.iter().map(|r| r.instances).sum::<u64>();
    // The average: the sum of every iterate so far is T w - s (lazy form); add each
    // shard's part and return to the lazy form around the mixed w.
    let sum = previous.weights.sum.as_ref().map(|s0| {
        let t0f = t0 as f64;
        let tf = seen as f64;
        (0..n)
            .map(|j| {
                let before = t0f * previous.weights.w[j] - s0[j];
                let mut total = before;
                for r in results {
                    let st = &r.state.weights;
                    let s = st.sum.as_ref().map_or(0.0, |s| s[j]);
                    total += (st.seen as f64 * st.w[j] - s) - before;
                }
                tf * w[j] - total
            })
            .collect()
    });
    let cov = previous.cov.as_ref().map(|c0| {
        (0..n)
            .map(|j| {
                let p0 = 1.0 / c0[j];
                let mut p = p0;
                for r in results {
                    p += 1.0 / r.state.cov.as_ref().map_or(c0[j], |c| c[j]) - p0;
                }
                1.0 / p
            })
            .collect()
    });
    Ok(OnlineState {
        weights: Weights { w, sum, seen },
        cov,
    })
}

// ---------------------------------------------------------------------------------------
// Fits.

/// The negative log-likelihood summed over every shard, with its gradient: what the
/// client's optimizer minimizes (plus the penalties it adds itself).
pub trait GradientSource: Send {
    /// The loss at `w`, its gradient written into `grad` (one entry per feature).
    ///
    /// # Errors
    /// Whatever stops the sum (a lost worker, bad bytes); it ends the fit.
    fn loss_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64>;
}

/// Shards in this process, summed in order.
impl GradientSource for Vec<Shard> {
    fn loss_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        grad.fill(0.0);
        let mut part = vec![0.0; grad.len()];
        let mut loss = 0.0;
        for shard in self.iter() {
            loss += shard.loss_and_gradient(w, &mut part)?;
            for (g, p) in grad.iter_mut().zip(&part) {
                *g += p;
            }
        }
        Ok(loss)
    }
}

/// One epoch on every shard from a mixed state: what [`fit_online`] mixes.
pub trait EpochSource {
    /// Every shard's [`Shard::epoch`] from `state`, in shard order.
    ///
    /// # Errors
    /// Whatever stops the epoch; it ends the fit.
    fn epoch(&mut self, algorithm: &Algorithm, state: &OnlineState) -> Result<Vec<EpochResult>>;
}

/// Shards in this process, one after the other.
impl EpochSource for Vec<Shard> {
    fn epoch(&mut self, algorithm: &Algorithm, state: &OnlineState) -> Result<Vec<EpochResult>> {
        self.iter_mut().map(|s| s.epoch(algorithm, state)).collect()
    }
}

/// The job of a distributed fit: the plan's features, the params' knobs, `holdout`.
fn job<'a>(
    params: &CrfValidParams,
    plan: &'a Plan,
    holdout: Option<&'a Dataset>,
    empty: &'a Dataset,
) -> Result<Job<'a>> {
    if params.features() != &plan.options {
        return Err(mismatch(
            "distributed fit: feature options",
            "the options the plan was merged with",
            "others",
        ));
    }
    if let Some(h) = holdout
        && (h.labels().names() != plan.labels.names()
            || h.attributes().len() != plan.attributes.len())
    {
        return Err(mismatch(
            "held-out data: dictionaries",
            "the plan's (DatasetBuilder::frozen)",
            "others",
        ));
    }
    Ok(Job {
        // The trainers' loops read the training data only through the sources.
        data: empty,
        features: &plan.features,
        iteration: *params.iteration(),
        holdout,
        seed: params.seed(),
        log: Vec::new(),
        start: std::time::Instant::now(),
        pool: params.iteration().pool()?,
    })
}

fn fitted(
    plan: &Plan,
    params: &CrfValidParams,
    weights: Vec<f64>,
    job: Job<'_>,
    report: bl_core::FitReport,
) -> Result<FittedCrf> {
    let model = Model::new(
        plan.attributes.clone(),
        plan.labels.clone(),
        plan.features.clone(),
        weights,
    )?;
    Ok(FittedCrf {
        model,
        report,
        log: job.log,
        algorithm: params.algorithm().name(),
    })
}

/// Fits `lbfgs` on the shards behind `source` (module docs): the optimizer, its stopping
/// rule and log are the one-machine fit's; `holdout` (encoded with the plan's
/// dictionaries) is scored on the client after every iteration.
///
/// # Errors
/// `InvalidParameter` when `params`' algorithm is not `lbfgs`; `ShapeMismatch` when the
/// plan was merged with other feature options or `holdout` has other dictionaries; the
/// first error of `source`; the optimizer's (a non-finite objective).
pub fn fit_lbfgs(
    params: &CrfValidParams,
    plan: &Plan,
    source: &mut dyn GradientSource,
    holdout: Option<&Dataset>,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedCrf> {
    let Algorithm::Lbfgs(s) = params.algorithm() else {
        return Err(invalid("algorithm", params.algorithm().name(), "lbfgs"));
    };
    let empty = Dataset::default();
    let mut job = job(params, plan, holdout, &empty)?;
    let trained = lbfgs::optimize(s, &mut job, observers, &mut |w, g| {
        source.loss_and_gradient(w, g)
    })?;
    fitted(plan, params, trained.weights, job, trained.report)
}

/// Mixes the shards' epochs (module docs) for the one-machine epoch loop.
struct Mixing<'s> {
    source: &'s mut dyn EpochSource,
    algorithm: Algorithm,
    state: OnlineState,
}

impl EpochRunner for Mixing<'_> {
    fn run_epoch(&mut self) -> Result<EpochStats> {
        let results = self.source.epoch(&self.algorithm, &self.state)?;
        let mut stats = EpochStats::default();
        for r in &results {
            stats.loss += r.loss;
            stats.errors += r.errors as usize;
            stats.mistakes += r.mistakes as usize;
        }
        self.state = mix(&self.state, &results)?;
        Ok(stats)
    }

    fn weights(&self) -> &Weights {
        &self.state.weights
    }
}

/// Fits `ap`, `pa` or `arow` by iterative parameter mixing over the shards behind
/// `source` (module docs): the epoch loop, stopping rule (the epoch's loss summed over
/// the shards, divided by all sequences, below `epsilon`) and log are the one-machine
/// fit's.
///
/// # Errors
/// `InvalidParameter` for another algorithm; `ShapeMismatch` as [`fit_lbfgs`]; the first
/// error of `source` or of [`mix`].
pub fn fit_online(
    params: &CrfValidParams,
    plan: &Plan,
    source: &mut dyn EpochSource,
    holdout: Option<&Dataset>,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedCrf> {
    let algorithm = params.algorithm().clone();
    let state = OnlineState::initial(&algorithm, plan.features.len())?;
    let empty = Dataset::default();
    let mut job = job(params, plan, holdout, &empty)?;
    let mut mixing = Mixing {
        source,
        algorithm,
        state,
    };
    let report = drive(&mut job, observers, plan.sequences, &mut mixing)?;
    let weights = mixing.state.weights.into_model_weights();
    fitted(plan, params, weights, job, report)
}

#[cfg(test)]
#[path = "distributed_tests.rs"]
mod tests;
