//! Distributed training of the online learners (sp, bol, bcd) by iterative parameter
//! mixing (McDonald, Hall and Mann 2010, "Distributed training strategies for the
//! structured perceptron", Fig. 3): the training sentences are split into `k` shards; in
//! every epoch each shard runs one epoch of the learner over its own sentences, starting
//! from the current mixed weights, and the `k` resulting weights are averaged, uniformly,
//! into the next mixed weights.
//!
//! # The per-shard API
//!
//! - [`IpmPlan`]: what every shard shares (the checked parameters, the feature dictionary,
//!   the tag set, the number of shards). [`IpmPlan::from_prepared`] builds it from a
//!   [`PreparedCorpus`]; to build the dictionary from parts of a corpus held apart, count
//!   each part ([`FeatureCounts::count`]), merge the counts in part order
//!   ([`FeatureCounts::merge`]) and call [`IpmPlan::from_counts`]: the dictionary, tag
//!   set and so the model are those of the whole corpus. The plan travels as JSON
//!   ([`IpmPlan::to_json`], [`IpmPlan::from_json`]).
//! - [`Shard`]: one shard's sentences, encoded once with the plan's dictionary
//!   ([`Shard::encode`] from a [`Corpus`], [`Shard::from_prepared`] from a range of a
//!   [`PreparedCorpus`], which also covers attribute data through
//!   [`TaggerValidParams::prepare_dataset`]). [`Shard::run_epoch`] runs one epoch from
//!   given weights with a seed ([`IpmPlan::shard_seed`]) and returns the weights to mix.
//! - [`IpmWeights`]: the weights to mix, with a compact binary form
//!   ([`IpmWeights::to_bytes`], [`IpmWeights::from_bytes`]: a version, every field
//!   checked, a checksum). [`IpmPlan::initial_weights`] gives those of epoch 0,
//!   [`IpmPlan::mix`] mixes the shards' weights, [`IpmPlan::stop_after`] says whether to
//!   stop after an epoch, and [`IpmPlan::finish`] builds the [`FittedTagger`] from the final
//!   mixed weights. [`fit_ipm`] runs the whole loop in one process (shards one after the
//!   other): with one shard it is the ordinary fit, bit for bit.
//!
//! # What is mixed
//!
//! Uniform mixing: every value of the next mixed state is the mean of the shards' values
//! (`mu_i = 1 / k`, the uniform case of McDonald et al.'s `sum_i mu_i w_i`), not weighted by
//! the shard's size or update count. Uniform mixing is their main setting, keeps sp's
//! training weights integers (below) and is exact for identical shards; give the shards
//! equal sizes (the Python estimator and [`fit_ipm`] split the sentences evenly).
//!
//! Each learner's state is mixed where its updates are additive, which is what makes IPM
//! the perceptron's argument:
//!
//! - **sp**: the weights `W` (first-order and 0-order) are sums of `+-1` updates, so their
//!   mean is IPM exactly. sp decodes with exact integer sums (see
//!   [`crate::learner::Sp`]); the mean of `k` shards' weights is a multiple of `1 / k`.
//!   So the shards train on `k W` with steps of `k` (the same decisions: every score is
//!   multiplied by `k`, exactly), the mean of `k` such states is again an integer
//!   state of the same scale, and [`IpmPlan::finish`] divides the final weights by `k`.
//! - **bol**: the additive state is the dual matrix `Theta` (`Theta += C DeltaPhi` on a
//!   mistake); the model is its rank-one primal blocks `W_k = alpha_k beta_k^T`, which the
//!   learner tracks with `R` warm-started power steps per update. `Theta` is mixed by the
//!   mean; each block's factors are the mean of the shards' primal blocks
//!   `(1/k) sum_i alpha_i beta_i^T`, projected onto rank one (its leading singular pair;
//!   the mean has rank at most `k`, so power steps run on a `k x k` matrix of Gram
//!   products, to a relative change of `1e-14`). This is IPM on the weights the model scores with, kept in bol's model
//!   class; it is insensitive to signs (`(-u, -v)` is the same block). Averaging the
//!   factors themselves is not (two shards holding a block with opposite signs would
//!   cancel), and reading the factors off the mixed `Theta` with power steps (the first
//!   version) loses what the tracker knows: the learner's factors lag `Theta`'s leading
//!   pair, and re-reading them from the mean `Theta` cost 9.3 points on a 44-tag corpus
//!   (`docs/scaling-taggers.md`). A block whose state (`Theta` block and factors) is the
//!   same in every shard keeps it.
//! - **bcd**: its parameters are the factors themselves (`alpha` and `beta` are each
//!   updated by a linear SVM's dual steps, from the same start), so `alpha`, `beta` and the
//!   0-order weights are mixed (the mean). Each shard runs both passes of the epoch (the
//!   `alpha` pass, then the `beta` pass) before mixing.
//!
//! 0-order weights (all three learners) are sums of updates: mixed by the mean.
//!
//! **Averaging.** The averaged model of a learner is the mean of its weights over every
//! sentence visit; it is kept as `x - acc / T` (`T` visits, one accumulator per value).
//! Under IPM it is the mean over every visit of every shard of the weights that visit
//! saw: with `S = T x - acc` the sum over visits, the mixed sum is
//! `S' = S_0 + sum_i (S_i - S_0)` (`S_0` of the weights the shards started from), the
//! mixed count `T' = T_0 + sum_i (T_i - T_0)`, and the mixed accumulator
//! `acc' = T' x' - S'` for the mixed value `x'`. The final model averages as an ordinary
//! fit does ([`FittedTagger`] of [`IpmPlan::finish`]).
//!
//! Mixing one state returns it unchanged, so one shard is the ordinary fit, bit for bit
//! (`tests/online_bilinear_tests/distributed.rs`). The mean of values that are all equal
//! is that value, so `k` identical shards (same sentences, same seed) give the one-shard
//! running weights exactly, and the same averages up to rounding (for sp with `k` a power
//! of two, exactly).
//!
//! # The loop
//!
//! Epoch `e` (1-based) of shard `j`: the sentences in the order an ordinary fit with seed
//! [`IpmPlan::shard_seed(j)`](IpmPlan::shard_seed) visits them in its epoch `e` (the
//! seeded shuffles of the earlier epochs are replayed), decoded, updated on a mistake and
//! recorded as in [`crate::train`]. After mixing, the run stops as an ordinary fit does:
//! after `max_iter` epochs, or (converged) after an epoch in which at most `tol` of the
//! non-empty sentences of all shards caused an update. The time limit is not read.

use std::sync::Arc;
use std::time::Instant;

use bl_core::engine::{FitReport, IterationParams, TerminationReason};
use bl_core::error::build::invalid;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::features::{EncodedSentence, FeatureDict, Templates};
use crate::fit::PreparedCorpus;
use crate::learner::{Bcd, Bol, BuiltIn, DenseParts, LearnerShape, OnlineLearner, Sp};
use crate::model::{FittedTagger, ZeroOrder, report_from_history, tag_indices};
use crate::params::{TaggerValidParams, check_transitions};
use crate::rank_one::RankOneParts;
use crate::settings::{LearnerSettings, Reading};
use crate::sparse::SparseRows;
use crate::train::EpochInfo;
use crate::weights::Weights;

/// The version of [`IpmWeights`]' binary form; [`IpmWeights::from_bytes`] refuses any
/// other.
pub const WEIGHTS_FORMAT_VERSION: u16 = 1;

/// The most shards a plan takes.
pub const MAX_SHARDS: usize = 4096;

const MAGIC: &[u8; 6] = b"OBLIPM";
const PLAN_FORMAT: &str = "online-bilinear-ipm-plan/1";
const COUNTS_FORMAT: &str = "online-bilinear-feature-counts/1";

fn serde_error(what: &str, detail: impl std::fmt::Display) -> OblError {
    OblError::Serde(format!("{what}: {detail}"))
}

// ---------------------------------------------------------------------------------------
// Feature counts and the plan.

/// The feature strings of a part of a training corpus with their counts, in order of first
/// appearance, and its tags in order of first appearance: what a worker sends once so that
/// the dictionary of the whole corpus can be built without moving the sentences.
///
/// Deserializing checks the format tag, the templates, and that no feature and no tag is
/// listed twice; the error names the field (`FeatureCounts.counts`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawFeatureCounts")]
pub struct FeatureCounts {
    format: String,
    templates: Templates,
    counts: Vec<(String, u64)>,
    tags: Vec<String>,
    n_tokens: usize,
}

/// The serialized form of [`FeatureCounts`], checked by its `TryFrom` on the way in (the
/// templates by their own).
#[derive(Deserialize)]
struct RawFeatureCounts {
    format: String,
    templates: Templates,
    counts: Vec<(String, u64)>,
    tags: Vec<String>,
    n_tokens: usize,
}

impl TryFrom<RawFeatureCounts> for FeatureCounts {
    type Error = OblError;

    fn try_from(raw: RawFeatureCounts) -> Result<Self> {
        use bl_core::limits::{first_duplicate, quote};
        if raw.format != COUNTS_FORMAT {
            return Err(invalid(
                "FeatureCounts.format",
                quote(&raw.format),
                format!("{COUNTS_FORMAT:?}"),
            ));
        }
        if let Some((i, feature)) = first_duplicate(raw.counts.iter().map(|(f, _)| f.as_str())) {
            return Err(invalid(
                "FeatureCounts.counts",
                format!("feature {} again at index {i}", quote(feature)),
                "each feature once",
            ));
        }
        if let Some((i, tag)) = first_duplicate(&raw.tags) {
            return Err(invalid(
                "FeatureCounts.tags",
                format!("tag {} again at index {i}", quote(tag)),
                "each tag once",
            ));
        }
        Ok(Self {
            format: raw.format,
            templates: raw.templates,
            counts: raw.counts,
            tags: raw.tags,
            n_tokens: raw.n_tokens,
        })
    }
}

impl FeatureCounts {
    /// Counts the features of `corpus` under `templates` and lists its tags.
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] or [`OblError::MissingColumn`] as
    /// [`FeatureDict::build`].
    pub fn count(corpus: &Corpus, templates: &Templates) -> Result<Self> {
        Ok(Self {
            format: COUNTS_FORMAT.to_string(),
            templates: templates.clone(),
            counts: FeatureDict::count_features(corpus, templates)?,
            tags: corpus.tag_set(),
            n_tokens: corpus.n_tokens(),
        })
    }

    /// The counts of the concatenation of the parts, in the order given: each feature's
    /// counts summed, features and tags in order of first appearance in the concatenation
    /// (so the dictionary and tag set equal those of the whole corpus). Counts, and token
    /// counts, that would overflow stop at the largest value.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] (in [`OblError::Core`]) for no part;
    /// invalid-parameter errors for parts counted with different templates.
    pub fn merge(parts: &[FeatureCounts]) -> Result<Self> {
        let first = parts
            .first()
            .ok_or(OblError::Core(bl_core::BlError::Empty {
                what: "feature counts to merge",
            }))?;
        if let Some(i) = parts.iter().position(|p| p.templates != first.templates) {
            return Err(invalid(
                "templates",
                format!("part {i} counted with other templates than part 0"),
                "the same templates for every part",
            ));
        }
        let mut at: std::collections::HashMap<&str, usize> = Default::default();
        let mut counts: Vec<(String, u64)> = Vec::new();
        let mut tags: Vec<String> = Vec::new();
        for part in parts {
            for (f, c) in &part.counts {
                match at.get(f.as_str()) {
                    Some(&i) => counts[i].1 = counts[i].1.saturating_add(*c),
                    None => {
                        at.insert(f, counts.len());
                        counts.push((f.clone(), *c));
                    }
                }
            }
            for t in &part.tags {
                if !tags.contains(t) {
                    tags.push(t.clone());
                }
            }
        }
        Ok(Self {
            format: COUNTS_FORMAT.to_string(),
            templates: first.templates.clone(),
            counts,
            tags,
            n_tokens: parts
                .iter()
                .fold(0_usize, |n, p| n.saturating_add(p.n_tokens)),
        })
    }

    /// The templates counted with.
    pub fn templates(&self) -> &Templates {
        &self.templates
    }

    /// The tags, in order of first appearance.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Number of distinct feature strings.
    pub fn n_features(&self) -> usize {
        self.counts.len()
    }

    /// The JSON form.
    ///
    /// # Errors
    /// [`OblError::Serde`] if encoding fails.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| serde_error("feature counts", e))
    }

    /// Counts from [`to_json`](Self::to_json)'s text, checked as they are read (see
    /// [`FeatureCounts`]).
    ///
    /// # Errors
    /// [`OblError::Serde`] naming what is wrong.
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| serde_error("feature counts", e))
    }
}

/// What every shard of an IPM fit shares: the learner and its settings, the iteration
/// knobs, the shuffling, the feature dictionary, the tag set and the number of shards
/// (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct IpmPlan {
    learner: BuiltIn,
    settings: LearnerSettings,
    iteration: IterationParams,
    shuffle: bool,
    seed: u64,
    dict: Arc<FeatureDict>,
    tags: Vec<String>,
    n_shards: usize,
    /// A hash of everything above, written into every [`IpmWeights`].
    fingerprint: u64,
}

/// The plan's JSON form.
#[derive(Serialize, Deserialize)]
struct PlanFile {
    format: String,
    learner: BuiltIn,
    settings: LearnerSettings,
    iteration: IterationParams,
    shuffle: bool,
    seed: u64,
    dict: FeatureDict,
    tags: Vec<String>,
    n_shards: usize,
}

impl IpmPlan {
    /// A plan for `params` on the features of `prepared` and `n_shards` shards.
    ///
    /// # Errors
    /// Invalid-parameter errors (in [`OblError::Core`]) for a learner other than sp, bol
    /// and bcd, bol under another reading than [`Reading::PerBlock`], `n_shards` outside
    /// `1..=`[`MAX_SHARDS`], settings the templates do not allow (`transitions_only`
    /// without a bias), or learner sizes beyond the limits; the parameters' templates or
    /// cutoff other than the
    /// prepared ones (as the fit on a [`PreparedCorpus`]).
    pub fn from_prepared(
        params: &TaggerValidParams,
        prepared: &PreparedCorpus,
        n_shards: usize,
    ) -> Result<Self> {
        params.check_prepared(prepared)?;
        Self::new_checked(
            params,
            Arc::clone(&prepared.dict),
            prepared.tags.clone(),
            n_shards,
        )
    }

    /// A plan for `params` on the dictionary of the merged `counts` (the parameters'
    /// cutoff, unset: 1) and `n_shards` shards.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for counts of no token; the parameters' templates other
    /// than the counted ones; as [`from_prepared`](Self::from_prepared).
    pub fn from_counts(
        params: &TaggerValidParams,
        counts: FeatureCounts,
        n_shards: usize,
    ) -> Result<Self> {
        if counts.n_tokens == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "training corpus",
            }));
        }
        if params.templates().is_some_and(|t| t != &counts.templates) {
            return Err(invalid(
                "templates",
                "other templates than the counted ones",
                "unset, or the templates the parts were counted with",
            ));
        }
        let cutoff = params.cutoff().unwrap_or(1);
        let dict = FeatureDict::from_counts(&counts.templates, cutoff, counts.counts)?;
        Self::new_checked(params, Arc::new(dict), counts.tags, n_shards)
    }

    /// The checks every plan passes: an online built-in learner (by name: sp, bol, bcd),
    /// bol under [`Reading::PerBlock`], `1 <= n_shards <=` [`MAX_SHARDS`], at least one
    /// tag, distinct tags, the transitions setting allowed by the templates, and learner
    /// sizes within the limits.
    fn new_checked(
        params: &TaggerValidParams,
        dict: Arc<FeatureDict>,
        tags: Vec<String>,
        n_shards: usize,
    ) -> Result<Self> {
        let name = params.learner().name();
        let learner = params
            .learner()
            .built_in()
            .filter(|b| b.is_online())
            .ok_or_else(|| {
                invalid::<OblError>("learner", name, "sp, bol or bcd (an online built-in)")
            })?;
        Self::assemble(
            learner,
            params.learner_settings(),
            *params.iteration(),
            (params.shuffle(), params.seed()),
            dict,
            tags,
            n_shards,
        )
    }

    fn assemble(
        learner: BuiltIn,
        settings: LearnerSettings,
        iteration: IterationParams,
        (shuffle, seed): (bool, u64),
        dict: Arc<FeatureDict>,
        tags: Vec<String>,
        n_shards: usize,
    ) -> Result<Self> {
        if learner == BuiltIn::Bol && settings.reading != Reading::PerBlock {
            return Err(invalid(
                "reading",
                settings.reading.name(),
                "per-block (the only reading distributed training runs)",
            ));
        }
        bl_core::params::count_in("n_shards", n_shards, 1, MAX_SHARDS)?;
        bl_core::params::count_in("n_tags", tags.len(), 1, crate::viterbi::MAX_TAGS)?;
        let mut seen = std::collections::HashSet::new();
        if !tags.iter().all(|t| seen.insert(t.as_str())) {
            return Err(invalid("tags", "a tag listed twice", "distinct tags"));
        }
        bl_core::params::at_least("max_iter", iteration.max_iter, 1)?;
        bl_core::params::nonnegative("tol", iteration.tol)?;
        check_transitions(&settings, dict.templates())?;
        if !dict.ids_are_dense() {
            return Err(invalid(
                "dictionary",
                "feature ids not 0..len",
                "a dictionary built by the crate",
            ));
        }
        let mut plan = Self {
            learner,
            settings,
            iteration,
            shuffle,
            seed,
            dict,
            tags,
            n_shards,
            fingerprint: 0,
        };
        plan.fingerprint = plan.compute_fingerprint();
        // The learner's own size checks, before any shard runs.
        plan.initial_weights()?;
        Ok(plan)
    }

    fn compute_fingerprint(&self) -> u64 {
        let mut h = Fnv::default();
        h.write(self.learner.name().as_bytes());
        h.write(format!("{:?}", self.settings).as_bytes());
        h.write(&(self.n_shards as u64).to_le_bytes());
        h.write(format!("{:?}", self.dict.templates()).as_bytes());
        h.write(&(self.dict.cutoff() as u64).to_le_bytes());
        for name in self.dict.names() {
            h.write(&(name.len() as u64).to_le_bytes());
            h.write(name.as_bytes());
        }
        for t in &self.tags {
            h.write(&(t.len() as u64).to_le_bytes());
            h.write(t.as_bytes());
        }
        h.finish()
    }

    /// The learner.
    pub fn learner(&self) -> BuiltIn {
        self.learner
    }

    /// The number of shards.
    pub fn n_shards(&self) -> usize {
        self.n_shards
    }

    /// The feature dictionary.
    pub fn features(&self) -> &FeatureDict {
        &self.dict
    }

    /// The tag set.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The iteration knobs (`max_iter` epochs, `tol`).
    pub fn iteration(&self) -> &IterationParams {
        &self.iteration
    }

    /// The seed of shard `j`'s shuffles: the parameters' seed for shard 0 (so one shard
    /// is the ordinary fit), `seed + j` (wrapping) for shard `j`.
    pub fn shard_seed(&self, j: usize) -> u64 {
        self.seed.wrapping_add(j as u64)
    }

    fn shape(&self) -> LearnerShape {
        LearnerShape {
            n_features: self.dict.len(),
            n_tags: self.tags.len(),
            bias_feature: self.dict.bias_id().map(|b| b as usize),
        }
    }

    fn header(&self, epoch: u64, steps: u64) -> Header {
        Header {
            learner: self.learner,
            averaging: self.settings.averaging,
            zero_order: self.settings.zero_order,
            n_features: self.dict.len() as u64,
            n_tags: self.tags.len() as u64,
            n_shards: self.n_shards as u64,
            fingerprint: self.fingerprint,
            epoch,
            steps,
        }
    }

    /// The weights of epoch 0 (those a fresh learner starts from).
    ///
    /// # Errors
    /// The learner's size errors (too many features or tags).
    pub fn initial_weights(&self) -> Result<IpmWeights> {
        let (k, l, s) = (self.dict.len(), self.tags.len(), &self.settings);
        let body = match self.learner {
            BuiltIn::Sp => {
                let (w, zero, _) = Sp::new(k, l, s, self.shape().bias_feature)?.into_parts();
                Body::Sp { w, zero }
            }
            BuiltIn::Bol => {
                let (rank_one, zero) = Bol::new(k, l, s)?
                    .into_parts()
                    .ok_or_else(|| invalid::<OblError>("reading", s.reading.name(), "per-block"))?;
                Body::Bol { rank_one, zero }
            }
            _ => {
                let (alpha, beta, zero, _) = Bcd::new(k, l, s)?.into_parts();
                Body::Bcd { alpha, beta, zero }
            }
        };
        Ok(IpmWeights {
            header: self.header(0, 0),
            body,
        })
    }

    /// Checks that `w` belongs to this plan (same learner, settings, dictionary, tags and
    /// shard count).
    fn check_weights(&self, w: &IpmWeights, what: &str) -> Result<()> {
        let want = self.header(w.header.epoch, w.header.steps);
        if w.header != want {
            return Err(invalid(
                "weights",
                format!("{what} of another plan (learner, settings, features, tags or shards)"),
                "weights of this plan",
            ));
        }
        Ok(())
    }

    /// The learner holding `w`'s state.
    fn learner_from(&self, w: &IpmWeights) -> Result<Live> {
        let (k, l, s) = (self.dict.len(), self.tags.len(), &self.settings);
        Ok(match w.body.clone() {
            Body::Sp { w, zero } => Live::Sp(Box::new(Sp::from_parts(
                k,
                l,
                s,
                self.shape().bias_feature,
                (w, zero, self.n_shards as f64),
            )?)),
            Body::Bol { rank_one, zero } => {
                Live::Bol(Box::new(Bol::from_parts(k, l, s, (rank_one, zero))?))
            }
            Body::Bcd { alpha, beta, zero } => Live::Bcd(Box::new(Bcd::from_parts(
                k,
                l,
                s,
                (alpha, beta, zero, w.header.steps),
            )?)),
        })
    }

    /// The mixed weights of an epoch: `start` are the weights every shard started the
    /// epoch from, `shards` what each returned ([`Shard::run_epoch`]), one per shard in
    /// shard order. Uniform mixing, as the [module docs](self) say; mixing one state
    /// returns it unchanged.
    ///
    /// # Errors
    /// Invalid-parameter errors for a number of weights other than the plan's shard count,
    /// weights of another plan, or shards that did not run the epoch after `start`;
    /// [`bl_core::BlError::Numerical`] (in [`OblError::Core`]) when sp's scaled weights
    /// leave the integers exactly representable (`2^53`).
    pub fn mix(&self, start: &IpmWeights, shards: &[IpmWeights]) -> Result<IpmWeights> {
        self.check_weights(start, "start")?;
        if shards.len() != self.n_shards {
            return Err(invalid(
                "shards",
                format!("{} weights", shards.len()),
                format!("one per shard ({})", self.n_shards),
            ));
        }
        for (i, s) in shards.iter().enumerate() {
            self.check_weights(s, "shard weights")?;
            if s.header.epoch != start.header.epoch + 1 || s.header.steps < start.header.steps {
                return Err(invalid(
                    "shards",
                    format!(
                        "shard {i}'s weights of epoch {} (steps {}) after a start of epoch {} (steps {})",
                        s.header.epoch, s.header.steps, start.header.epoch, start.header.steps
                    ),
                    "the weights of the epoch after the start",
                ));
            }
        }
        if let [only] = shards {
            return Ok(only.clone());
        }
        let t0 = start.header.steps;
        let mut t_new = t0;
        for s in shards {
            t_new = t_new
                .checked_add(s.header.steps - t0)
                .ok_or_else(|| invalid::<OblError>("steps", "beyond u64", "fewer steps"))?;
        }
        let steps = Steps {
            t0: t0 as f64,
            t: shards.iter().map(|s| s.header.steps as f64).collect(),
            t_new: t_new as f64,
        };
        let zeros = |f: &dyn Fn(&Body) -> Option<&SparseRows>| -> Result<Option<SparseRows>> {
            let Some(z0) = f(&start.body) else {
                return Ok(None);
            };
            let parts: Vec<&SparseRows> = shards.iter().filter_map(|s| f(&s.body)).collect();
            mix_rows(z0, &parts, &steps, t_new).map(Some)
        };
        let body = match &start.body {
            Body::Sp { w: w0, .. } => {
                let parts: Vec<&SparseRows> = shards
                    .iter()
                    .filter_map(|s| match &s.body {
                        Body::Sp { w, .. } => Some(w),
                        _ => None,
                    })
                    .collect();
                let w = mix_rows(w0, &parts, &steps, t_new)?;
                let zero = zeros(&|b| match b {
                    Body::Sp { zero, .. } => zero.as_ref(),
                    _ => None,
                })?;
                check_integral(&w)?;
                if let Some(z) = &zero {
                    check_integral(z)?;
                }
                Body::Sp { w, zero }
            }
            Body::Bol { rank_one: r0, .. } => {
                let parts: Vec<&RankOneParts> = shards
                    .iter()
                    .filter_map(|s| match &s.body {
                        Body::Bol { rank_one, .. } => Some(rank_one),
                        _ => None,
                    })
                    .collect();
                let rank_one = self.mix_rank_one(r0, &parts, &steps, t_new)?;
                let zero = zeros(&|b| match b {
                    Body::Bol { zero, .. } => zero.as_ref(),
                    _ => None,
                })?;
                Body::Bol { rank_one, zero }
            }
            Body::Bcd {
                alpha: a0,
                beta: b0,
                ..
            } => {
                let pick = |f: &dyn Fn(&Body) -> Option<&DenseParts>| -> Vec<&DenseParts> {
                    shards.iter().filter_map(|s| f(&s.body)).collect()
                };
                let alphas = pick(&|b| match b {
                    Body::Bcd { alpha, .. } => Some(alpha),
                    _ => None,
                });
                let betas = pick(&|b| match b {
                    Body::Bcd { beta, .. } => Some(beta),
                    _ => None,
                });
                let zero = zeros(&|b| match b {
                    Body::Bcd { zero, .. } => zero.as_ref(),
                    _ => None,
                })?;
                Body::Bcd {
                    alpha: mix_dense(a0, &alphas, &steps),
                    beta: mix_dense(b0, &betas, &steps),
                    zero,
                }
            }
        };
        Ok(IpmWeights {
            header: self.header(start.header.epoch + 1, t_new),
            body,
        })
    }

    /// bol's mixed state: `Theta` the mean, each block's factors the rank-one projection of
    /// the mean of the shards' primal blocks (see the module docs), the averages of the
    /// factors as every averaged value.
    fn mix_rank_one(
        &self,
        start: &RankOneParts,
        shards: &[&RankOneParts],
        steps: &Steps,
        t_new: u64,
    ) -> Result<RankOneParts> {
        let (l, p) = (self.tags.len(), self.tags.len() + 1);
        let thetas: Vec<&SparseRows> = shards.iter().map(|s| &s.theta).collect();
        let theta = mix_rows(&start.theta, &thetas, steps, 0)?;
        let mut blocks: Vec<u32> = shards
            .iter()
            .flat_map(|s| s.blocks.iter().copied())
            .collect();
        blocks.sort_unstable();
        blocks.dedup();
        let n = blocks.len();
        let averaging = start.averages.is_some();
        let mut out = RankOneParts {
            theta,
            blocks: Vec::with_capacity(n),
            sigma: Vec::with_capacity(n),
            v: Vec::with_capacity(n * p),
            alpha: Vec::with_capacity(n * l),
            averages: averaging.then(|| (Vec::with_capacity(n * l), Vec::with_capacity(n * p))),
            steps: t_new,
        };
        let uniform = 1.0 / (p as f64).sqrt();
        let slot = |r: &RankOneParts, k: u32| r.blocks.binary_search(&k).ok();
        let (mut u, mut v) = (vec![0.0; l], vec![0.0; p]);
        let mut xs = vec![0.0; shards.len()];
        let mut accs = vec![0.0; shards.len()];
        // Reused for every block: a mix touches millions of blocks on a tagging corpus.
        let mut slots: Vec<Option<usize>> = Vec::with_capacity(shards.len());
        let mut held: Vec<PrimalBlock<'_>> = Vec::with_capacity(shards.len());
        let mut scratch = MeanRankOne::default();
        for &k in &blocks {
            slots.clear();
            slots.extend(shards.iter().map(|s| slot(s, k)));
            let same = slots.iter().all(Option::is_some)
                && shards.windows(2).zip(slots.windows(2)).all(|(r, s)| {
                    let (a, b, sa, sb) = (r[0], r[1], s[0].unwrap_or(0), s[1].unwrap_or(0));
                    fn row(x: &RankOneParts, k: u32) -> (&[u32], &[f64]) {
                        x.theta.row(k as usize)
                    }
                    bits_eq(row(a, k).1, row(b, k).1)
                        && row(a, k).0 == row(b, k).0
                        && a.sigma[sa].to_bits() == b.sigma[sb].to_bits()
                        && bits_eq(&a.v[sa * p..(sa + 1) * p], &b.v[sb * p..(sb + 1) * p])
                        && bits_eq(
                            &a.alpha[sa * l..(sa + 1) * l],
                            &b.alpha[sb * l..(sb + 1) * l],
                        )
                });
            let sigma = if same {
                let s0 = slots[0].unwrap_or(0);
                v.copy_from_slice(&shards[0].v[s0 * p..(s0 + 1) * p]);
                u.copy_from_slice(&shards[0].alpha[s0 * l..(s0 + 1) * l]);
                shards[0].sigma[s0]
            } else {
                // The sign reference of the warm start: the block's v_k at the start of the
                // epoch, else the first shard's that holds the block.
                let reference = match slot(start, k) {
                    Some(j) => &start.v[j * p..(j + 1) * p],
                    None => shards
                        .iter()
                        .zip(&slots)
                        .find_map(|(s, sl)| sl.map(|j| &s.v[j * p..(j + 1) * p]))
                        .unwrap_or(&[]),
                };
                held.clear();
                held.extend(shards.iter().zip(&slots).filter_map(|(s, sl)| {
                    let j = (*sl)?;
                    let root_sigma = s.sigma[j].sqrt();
                    // Blocks with beta_i = 0 add nothing to W.
                    (root_sigma > 0.0 && root_sigma.is_finite()).then(|| PrimalBlock {
                        alpha: &s.alpha[j * l..(j + 1) * l],
                        root_sigma,
                        v: &s.v[j * p..(j + 1) * p],
                    })
                }));
                let sigma = scratch.solve(&held, shards.len(), reference, &mut u, &mut v);
                if sigma == 0.0 {
                    v.fill(uniform);
                }
                sigma
            };
            // `u` now holds alpha_k, `v` the unit v_k.
            let s0 = slot(start, k);
            if let Some((acc_alpha, acc_beta)) = out.averages.as_mut() {
                let (start_alpha, start_beta) = start
                    .averages
                    .as_ref()
                    .map_or((&[][..], &[][..]), |(a, b)| (a, b));
                for a in 0..l {
                    let x0 = s0.map_or(0.0, |j| start.alpha[j * l + a]);
                    let a0 = s0.map_or(0.0, |j| start_alpha[j * l + a]);
                    for (i, (s, sl)) in shards.iter().zip(&slots).enumerate() {
                        let acc = s.averages.as_ref().map_or(&[][..], |(a, _)| a);
                        (xs[i], accs[i]) =
                            sl.map_or((x0, a0), |j| (s.alpha[j * l + a], acc[j * l + a]));
                    }
                    acc_alpha.push(mixed_acc(x0, a0, &xs, &accs, u[a], steps));
                }
                let beta_of =
                    |r: &RankOneParts, j: usize, b: usize| r.sigma[j].sqrt() * r.v[j * p + b];
                for b in 0..p {
                    let x0 = s0.map_or(0.0, |j| beta_of(start, j, b));
                    let a0 = s0.map_or(0.0, |j| start_beta[j * p + b]);
                    for (i, (s, sl)) in shards.iter().zip(&slots).enumerate() {
                        let acc = s.averages.as_ref().map_or(&[][..], |(_, b)| b);
                        (xs[i], accs[i]) =
                            sl.map_or((x0, a0), |j| (beta_of(s, j, b), acc[j * p + b]));
                    }
                    acc_beta.push(mixed_acc(x0, a0, &xs, &accs, sigma.sqrt() * v[b], steps));
                }
            }
            out.blocks.push(k);
            out.sigma.push(sigma);
            out.v.extend_from_slice(&v);
            out.alpha.extend_from_slice(&u);
        }
        Ok(out)
    }

    /// Whether to stop after an epoch whose totals over all shards are `info` (mistakes)
    /// and `sentences` non-empty sentences, and why: converged when
    /// `mistakes / sentences <= tol`, out of iterations after `max_iter` epochs (the
    /// ordinary fit's rule).
    pub fn stop_after(&self, info: &EpochInfo, sentences: usize) -> Option<TerminationReason> {
        let change = info.mistakes as f64 / sentences.max(1) as f64;
        if change <= self.iteration.tol {
            Some(TerminationReason::Converged)
        } else if info.epoch >= self.iteration.max_iter {
            Some(TerminationReason::MaxIterations)
        } else {
            None
        }
    }

    /// The fitted tagger of the final mixed weights: the learner's model built as an
    /// ordinary fit builds it (averaged when averaging), sp's divided by the shard count;
    /// the report of `history` (one [`EpochInfo`] per epoch, summed over the shards) ending
    /// with `termination`.
    ///
    /// # Errors
    /// Weights of another plan; [`OblError::Learner`] for a model of the wrong sizes or
    /// with non-finite values.
    pub fn finish(
        &self,
        weights: &IpmWeights,
        history: &[EpochInfo],
        termination: TerminationReason,
    ) -> Result<FittedTagger> {
        self.check_weights(weights, "final weights")?;
        let shape = self.shape();
        let mut learner = self.learner_from(weights)?;
        let zero_rows = learner.as_online().take_sparse_zero_order();
        let snapshot = learner.into_online().into_snapshot();
        crate::learner::check_snapshot(&snapshot, shape)?;
        let divisor = self.n_shards as f64;
        let scaled = self.learner == BuiltIn::Sp && self.n_shards > 1;
        let mut weights_out: Weights = snapshot.weights.into();
        if let (Weights::SparseLinear { w }, true) = (&mut weights_out, scaled) {
            w.divide_values(divisor);
        }
        let mut zero_order = snapshot.zero_order.map(ZeroOrder::Dense);
        if let Some(mut rows) = zero_rows {
            rows.validate("zero_order", shape.n_features, shape.n_tags)
                .map_err(|e| OblError::Learner {
                    check: "snapshot-shape",
                    message: format!("sparse 0-order weights: {e}"),
                })?;
            if scaled {
                rows.divide_values(divisor);
            }
            zero_order = Some(ZeroOrder::Sparse(rows));
        }
        let mut report: FitReport = report_from_history(history);
        report.termination = termination;
        Ok(FittedTagger {
            learner: self.learner.name().to_string(),
            settings: self.settings,
            iteration: self.iteration,
            shuffle: self.shuffle,
            seed: self.seed,
            dict: Arc::clone(&self.dict),
            tags: self.tags.clone(),
            weights: weights_out,
            zero_order,
            zero_dense: Default::default(),
            train_seconds: history.last().map_or(0.0, |h| h.seconds),
            report,
        })
    }

    /// The JSON form of the plan (sent once to every worker).
    ///
    /// # Errors
    /// [`OblError::Serde`] if encoding fails.
    pub fn to_json(&self) -> Result<String> {
        let file = PlanFile {
            format: PLAN_FORMAT.to_string(),
            learner: self.learner,
            settings: self.settings,
            iteration: self.iteration,
            shuffle: self.shuffle,
            seed: self.seed,
            dict: (*self.dict).clone(),
            tags: self.tags.clone(),
            n_shards: self.n_shards,
        };
        serde_json::to_string(&file).map_err(|e| serde_error("plan", e))
    }

    /// A plan from [`to_json`](Self::to_json)'s text, checked as a new plan is.
    ///
    /// # Errors
    /// [`OblError::Serde`] for text that is not a plan of this version; the errors of a
    /// new plan for values out of range.
    pub fn from_json(text: &str) -> Result<Self> {
        let file: PlanFile = serde_json::from_str(text).map_err(|e| serde_error("plan", e))?;
        if file.format != PLAN_FORMAT {
            return Err(serde_error(
                "plan",
                format!("format {:?}, expected {PLAN_FORMAT:?}", file.format),
            ));
        }
        if !file.learner.is_online() {
            return Err(serde_error("plan", "not an online learner"));
        }
        file.settings.check()?;
        Templates::new(file.dict.templates().as_slice().to_vec())
            .map_err(|e| serde_error("plan: templates", e))?;
        Self::assemble(
            file.learner,
            file.settings,
            file.iteration,
            (file.shuffle, file.seed),
            Arc::new(file.dict),
            file.tags,
            file.n_shards,
        )
    }
}

// ---------------------------------------------------------------------------------------
// Shards.

/// One shard's sentences, encoded with a plan's dictionary, and their gold tag indices.
#[derive(Debug, Clone)]
pub struct Shard {
    encoded: Vec<EncodedSentence>,
    gold: Vec<Vec<usize>>,
    n_features: usize,
    n_tags: usize,
}

impl Shard {
    /// Encodes `corpus` (a part of the training sentences) with `plan`'s dictionary and
    /// tags.
    ///
    /// # Errors
    /// [`OblError::UnknownTag`] for a tag not in the plan's tag set; the errors of
    /// [`FeatureDict::encode_corpus`]; a sentence whose score table is above the bound.
    pub fn encode(plan: &IpmPlan, corpus: &Corpus) -> Result<Self> {
        let gold = tag_indices(corpus, &plan.tags)?;
        let encoded = plan.dict.encode_corpus(corpus)?;
        Self::checked(plan, encoded, gold)
    }

    /// The sentences `range` of `prepared`, which must have the plan's dictionary and tags.
    ///
    /// # Errors
    /// Invalid-parameter errors for a range out of bounds or another dictionary or tag set,
    /// or a sentence whose score table is above the bound.
    pub fn from_prepared(
        plan: &IpmPlan,
        prepared: &PreparedCorpus,
        range: std::ops::Range<usize>,
    ) -> Result<Self> {
        if range.start > range.end || range.end > prepared.len() {
            return Err(invalid(
                "range",
                format!("{range:?}"),
                format!("within 0..{}", prepared.len()),
            ));
        }
        if prepared.tags != plan.tags || *prepared.dict != *plan.dict {
            return Err(invalid(
                "prepared",
                "a corpus prepared with another dictionary or tag set",
                "the plan's dictionary and tags",
            ));
        }
        Self::checked(
            plan,
            prepared.encoded[range.clone()].to_vec(),
            prepared.gold[range].to_vec(),
        )
    }

    fn checked(
        plan: &IpmPlan,
        encoded: Vec<EncodedSentence>,
        gold: Vec<Vec<usize>>,
    ) -> Result<Self> {
        let n_tags = plan.tags.len();
        for (index, enc) in encoded.iter().enumerate() {
            crate::viterbi::checked_table_len(Some(index), enc.len(), n_tags)?;
        }
        Ok(Self {
            encoded,
            gold,
            n_features: plan.dict.len(),
            n_tags,
        })
    }

    /// Number of sentences.
    pub fn len(&self) -> usize {
        self.encoded.len()
    }

    /// Whether the shard has no sentence.
    pub fn is_empty(&self) -> bool {
        self.encoded.is_empty()
    }

    /// Number of non-empty sentences (what the stopping rule counts).
    pub fn n_nonempty(&self) -> usize {
        self.encoded.iter().filter(|e| !e.is_empty()).count()
    }

    /// Number of tokens.
    pub fn n_tokens(&self) -> usize {
        self.gold.iter().map(Vec::len).sum()
    }

    /// Runs epoch `start.epoch() + 1` of the plan's learner over this shard from `start`,
    /// visiting the sentences in the order of an ordinary fit with seed `seed` (give
    /// [`IpmPlan::shard_seed`]); returns the weights to mix and the epoch's counts (the
    /// epoch number, sentences updated, token errors and tokens of the first pass, seconds).
    ///
    /// # Errors
    /// Weights of another plan, a shard encoded for another plan; the learner's errors.
    pub fn run_epoch(
        &self,
        plan: &IpmPlan,
        start: &IpmWeights,
        seed: u64,
    ) -> Result<(IpmWeights, EpochInfo)> {
        plan.check_weights(start, "start")?;
        if self.n_features != plan.dict.len() || self.n_tags != plan.tags.len() {
            return Err(invalid(
                "shard",
                "encoded for another plan",
                "a shard of this plan",
            ));
        }
        let started = Instant::now();
        let epoch = usize::try_from(start.header.epoch + 1)
            .map_err(|_| invalid::<OblError>("epoch", start.header.epoch, "below usize::MAX"))?;
        let mut live = plan.learner_from(start)?;
        let learner = live.as_online();
        let passes = learner.passes_per_epoch().max(1);
        let mut visit = crate::train::Visit {
            order: (0..self.encoded.len()).collect(),
            rng: bl_core::random::seeded_rng(seed),
            shuffle: plan.shuffle,
        };
        // The order the one-machine loop would visit in at this epoch.
        if plan.shuffle {
            for _ in 0..(epoch - 1) * passes {
                visit.order.shuffle(&mut visit.rng);
            }
        }
        let data = crate::train::Examples {
            encoded: &self.encoded,
            gold: &self.gold,
            n_tags: self.n_tags,
        };
        let (mistakes, token_errors, tokens) = crate::train::run_epoch(
            learner,
            &data,
            epoch,
            &mut visit,
            &mut crate::train::Buffers::default(),
        )?;
        let (body, steps) = live.into_body()?;
        let info = EpochInfo {
            epoch,
            mistakes,
            token_errors,
            tokens,
            seconds: started.elapsed().as_secs_f64(),
        };
        Ok((
            IpmWeights {
                header: plan.header(start.header.epoch + 1, steps),
                body,
            },
            info,
        ))
    }
}

/// The counts of one epoch summed over the shards' [`EpochInfo`]s (all of the same
/// epoch), with `seconds` the caller's measure of the epoch's time so far.
pub fn combine_epoch(infos: &[EpochInfo], seconds: f64) -> EpochInfo {
    EpochInfo {
        epoch: infos.first().map_or(0, |i| i.epoch),
        mistakes: infos.iter().map(|i| i.mistakes).sum(),
        token_errors: infos.iter().map(|i| i.token_errors).sum(),
        tokens: infos.iter().map(|i| i.tokens).sum(),
        seconds,
    }
}

/// Fits `params` on `prepared` by iterative parameter mixing over `n_shards` shards run
/// one after the other in this process: shard `j` holds the `j`-th of `n_shards`
/// contiguous ranges of near-equal size (sizes differ by at most one sentence). With one
/// shard the model equals the ordinary fit's, bit for bit (the report's times aside).
///
/// # Errors
/// As [`IpmPlan::from_prepared`], [`Shard::run_epoch`], [`IpmPlan::mix`].
pub fn fit_ipm(
    params: &TaggerValidParams,
    prepared: &PreparedCorpus,
    n_shards: usize,
) -> Result<FittedTagger> {
    let plan = IpmPlan::from_prepared(params, prepared, n_shards)?;
    let n = prepared.len();
    let shards: Vec<Shard> = (0..n_shards)
        .map(|j| Shard::from_prepared(&plan, prepared, j * n / n_shards..(j + 1) * n / n_shards))
        .collect::<Result<_>>()?;
    let sentences: usize = shards.iter().map(Shard::n_nonempty).sum();
    let started = Instant::now();
    let mut weights = plan.initial_weights()?;
    let mut history = Vec::new();
    loop {
        let mut outs = Vec::with_capacity(n_shards);
        let mut infos = Vec::with_capacity(n_shards);
        for (j, shard) in shards.iter().enumerate() {
            let (w, info) = shard.run_epoch(&plan, &weights, plan.shard_seed(j))?;
            outs.push(w);
            infos.push(info);
        }
        weights = plan.mix(&weights, &outs)?;
        let info = combine_epoch(&infos, started.elapsed().as_secs_f64());
        history.push(info);
        if let Some(reason) = plan.stop_after(&info, sentences) {
            return plan.finish(&weights, &history, reason);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The weights.

/// What identifies the weights of a plan, and where in the run they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    learner: BuiltIn,
    averaging: bool,
    zero_order: bool,
    n_features: u64,
    n_tags: u64,
    n_shards: u64,
    fingerprint: u64,
    /// Epochs run.
    epoch: u64,
    /// Recorded steps `T` (sentence visits counted by the averages).
    steps: u64,
}

/// The learner's state.
#[derive(Debug, Clone)]
enum Body {
    /// sp's weights (multiplied by the shard count) and 0-order weights.
    Sp {
        w: SparseRows,
        zero: Option<SparseRows>,
    },
    /// bol's `Theta`, factors and 0-order weights.
    Bol {
        rank_one: RankOneParts,
        zero: Option<SparseRows>,
    },
    /// bcd's factors and 0-order weights.
    Bcd {
        alpha: DenseParts,
        beta: DenseParts,
        zero: Option<SparseRows>,
    },
}

/// The weights to mix: the full training state of a learner after an epoch of a shard,
/// or mixed ([`IpmPlan::mix`]): sp's sparse weights, bol's `Theta` (sparse) and factors
/// of its touched blocks, bcd's dense factors, the 0-order weights (sparse), and, when
/// averaging, the accumulators of each (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct IpmWeights {
    header: Header,
    body: Body,
}

/// A learner of one of the three kinds.
enum Live {
    Sp(Box<Sp>),
    Bol(Box<Bol>),
    Bcd(Box<Bcd>),
}

impl Live {
    fn as_online(&mut self) -> &mut dyn OnlineLearner {
        match self {
            Live::Sp(x) => &mut **x,
            Live::Bol(x) => &mut **x,
            Live::Bcd(x) => &mut **x,
        }
    }

    fn into_online(self) -> Box<dyn OnlineLearner> {
        match self {
            Live::Sp(x) => x,
            Live::Bol(x) => x,
            Live::Bcd(x) => x,
        }
    }

    /// The state and its recorded steps.
    fn into_body(self) -> Result<(Body, u64)> {
        Ok(match self {
            Live::Sp(x) => {
                let (w, zero, _) = x.into_parts();
                let steps = w.steps();
                (Body::Sp { w, zero }, steps)
            }
            Live::Bol(x) => {
                // Plans run bol under the per-block reading only.
                let (rank_one, zero) = x
                    .into_parts()
                    .ok_or_else(|| invalid::<OblError>("reading", "not per-block", "per-block"))?;
                let steps = rank_one.steps;
                (Body::Bol { rank_one, zero }, steps)
            }
            Live::Bcd(x) => {
                let (alpha, beta, zero, steps) = x.into_parts();
                (Body::Bcd { alpha, beta, zero }, steps)
            }
        })
    }
}

impl IpmWeights {
    /// The epochs run (0 for [`IpmPlan::initial_weights`]).
    pub fn epoch(&self) -> u64 {
        self.header.epoch
    }

    /// The learner.
    pub fn learner(&self) -> BuiltIn {
        self.header.learner
    }

    /// The recorded steps `T` (sentence visits the averages count).
    pub fn steps(&self) -> u64 {
        self.header.steps
    }

    /// Every part of the state as a named dense array, for inspection and tests on small
    /// models: sp `w` (`K x P L`, by code), bol `theta` (`K x L P`, row-major blocks),
    /// `sigma` (`K`), `v` (`K x P`; the uniform start vector for an untouched block) and
    /// `alpha` (`K x L`), bcd `alpha` (`K x L`) and `beta` (`K x P`); `zero` (`K x L`) with
    /// 0-order weights; and with averaging the accumulator of each averaged part (`w_acc`,
    /// `alpha_acc`, `beta_acc`, `zero_acc`). sp's values are those of the scaled weights
    /// (multiplied by the shard count).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) for arrays beyond
    /// [`bl_core::limits::MAX_ELEMENTS`] or that cannot be allocated.
    pub fn to_dense(&self) -> Result<Vec<(&'static str, Vec<f64>)>> {
        let (k, l) = (self.header.n_features as usize, self.header.n_tags as usize);
        let p = l + 1;
        let rows =
            |name: &'static str, r: &SparseRows, acc: bool| -> Result<(&'static str, Vec<f64>)> {
                let mut out: Vec<f64> =
                    bl_core::limits::try_zeroed(name, &[r.n_rows(), r.width()])?;
                for row in 0..r.n_rows() {
                    let (codes, values) = r.row(row);
                    let values = if acc { r.row_acc(row) } else { values };
                    for (&c, &x) in codes.iter().zip(values) {
                        out[row * r.width() + c as usize] = x;
                    }
                }
                Ok((name, out))
            };
        let mut out = Vec::new();
        let zero = match &self.body {
            Body::Sp { w, zero } => {
                out.push(rows("w", w, false)?);
                if w.averaging() {
                    out.push(rows("w_acc", w, true)?);
                }
                zero
            }
            Body::Bol { rank_one: r, zero } => {
                out.push(rows("theta", &r.theta, false)?);
                let mut sigma: Vec<f64> = bl_core::limits::try_zeroed("sigma", &[k])?;
                let mut v: Vec<f64> = bl_core::limits::try_zeroed("v", &[k, p])?;
                v.fill(1.0 / (p as f64).sqrt());
                let mut alpha: Vec<f64> = bl_core::limits::try_zeroed("alpha", &[k, l])?;
                let mut acc_a: Vec<f64> = bl_core::limits::try_zeroed("alpha_acc", &[k, l])?;
                let mut acc_b: Vec<f64> = bl_core::limits::try_zeroed("beta_acc", &[k, p])?;
                for (j, &b) in r.blocks.iter().enumerate() {
                    let b = b as usize;
                    sigma[b] = r.sigma[j];
                    v[b * p..(b + 1) * p].copy_from_slice(&r.v[j * p..(j + 1) * p]);
                    alpha[b * l..(b + 1) * l].copy_from_slice(&r.alpha[j * l..(j + 1) * l]);
                    if let Some((a, bb)) = &r.averages {
                        acc_a[b * l..(b + 1) * l].copy_from_slice(&a[j * l..(j + 1) * l]);
                        acc_b[b * p..(b + 1) * p].copy_from_slice(&bb[j * p..(j + 1) * p]);
                    }
                }
                out.extend([("sigma", sigma), ("v", v), ("alpha", alpha)]);
                if r.averages.is_some() {
                    out.extend([("alpha_acc", acc_a), ("beta_acc", acc_b)]);
                }
                zero
            }
            Body::Bcd { alpha, beta, zero } => {
                for ((name, acc_name), (x, acc)) in [
                    (("alpha", "alpha_acc"), alpha),
                    (("beta", "beta_acc"), beta),
                ] {
                    out.push((name, x.clone()));
                    if let Some(acc) = acc {
                        out.push((acc_name, acc.clone()));
                    }
                }
                zero
            }
        };
        if let Some(z) = zero {
            out.push(rows("zero", z, false)?);
            if z.averaging() {
                out.push(rows("zero_acc", z, true)?);
            }
        }
        Ok(out)
    }

    /// The binary form: the magic `OBLIPM`, [`WEIGHTS_FORMAT_VERSION`], the header (learner,
    /// settings flags, sizes, shard count, the plan's fingerprint, epoch, steps), the state
    /// (sparse rows as row ids, lengths, codes, values and accumulators; bcd's dense
    /// vectors as their values, or as a fill value (0, the first or the last value,
    /// whichever occurs most) and the positions and values differing from it when that is
    /// shorter), and a 64-bit FNV-1a checksum of all that, all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(MAGIC);
        w.u16(WEIGHTS_FORMAT_VERSION);
        let h = &self.header;
        w.u8(match h.learner {
            BuiltIn::Sp => 0,
            BuiltIn::Bol => 1,
            _ => 2,
        });
        w.u8(u8::from(h.averaging) | (u8::from(h.zero_order) << 1));
        for x in [
            h.n_features,
            h.n_tags,
            h.n_shards,
            h.fingerprint,
            h.epoch,
            h.steps,
        ] {
            w.u64(x);
        }
        let zero = match &self.body {
            Body::Sp { w: rows, zero } => {
                w.rows(rows);
                zero
            }
            Body::Bol { rank_one, zero } => {
                w.rows(&rank_one.theta);
                w.u64(rank_one.blocks.len() as u64);
                w.u32s(&rank_one.blocks);
                w.f64s(&rank_one.sigma);
                w.f64s(&rank_one.v);
                w.f64s(&rank_one.alpha);
                if let Some((a, b)) = &rank_one.averages {
                    w.f64s(a);
                    w.f64s(b);
                }
                zero
            }
            Body::Bcd { alpha, beta, zero } => {
                for (x, acc) in [alpha, beta] {
                    w.dense(x);
                    if let Some(acc) = acc {
                        w.dense(acc);
                    }
                }
                zero
            }
        };
        if let Some(z) = zero {
            w.rows(z);
        }
        let sum = fnv(&w.out);
        w.u64(sum);
        w.out
    }

    /// Weights of `plan` from [`to_bytes`](Self::to_bytes)'s form, checked in full: the
    /// magic, the version, the checksum, the header against the plan's (learner, settings,
    /// sizes, shard count, fingerprint) before anything is allocated, every count against
    /// the bytes left, sorted and in-range row ids, codes and block ids, finite values, and
    /// no byte left over.
    ///
    /// # Errors
    /// [`OblError::Serde`] naming the first fault.
    pub fn from_bytes(plan: &IpmPlan, bytes: &[u8]) -> Result<Self> {
        let bad = |detail: String| serde_error("distributed weights", detail);
        if bytes.len() < MAGIC.len() + 2 + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(
                "not the binary form of IpmWeights (no OBLIPM magic)".into()
            ));
        }
        let version = u16::from_le_bytes([bytes[6], bytes[7]]);
        if version != WEIGHTS_FORMAT_VERSION {
            return Err(bad(format!(
                "format version {version}, this build reads version {WEIGHTS_FORMAT_VERSION}"
            )));
        }
        let (payload, sum) = bytes.split_at(bytes.len() - 8);
        let want = u64::from_le_bytes(sum.try_into().unwrap_or([0; 8]));
        if fnv(payload) != want {
            return Err(bad("checksum mismatch (damaged or truncated bytes)".into()));
        }
        let mut r = Reader {
            bytes: payload,
            at: MAGIC.len() + 2,
        };
        let learner = match r.u8()? {
            0 => BuiltIn::Sp,
            1 => BuiltIn::Bol,
            2 => BuiltIn::Bcd,
            x => return Err(bad(format!("learner code {x}"))),
        };
        let flags = r.u8()?;
        if flags > 3 {
            return Err(bad(format!("flags {flags}")));
        }
        let mut next = || r.u64();
        let header = Header {
            learner,
            averaging: flags & 1 == 1,
            zero_order: flags & 2 == 2,
            n_features: next()?,
            n_tags: next()?,
            n_shards: next()?,
            fingerprint: next()?,
            epoch: next()?,
            steps: next()?,
        };
        if header != plan.header(header.epoch, header.steps) {
            return Err(bad(format!(
                "weights of another plan: {} with {} features, {} tags, {} shards (plan: {} \
                 with {} features, {} tags, {} shards; or other settings, features or tags)",
                header.learner.name(),
                header.n_features,
                header.n_tags,
                header.n_shards,
                plan.learner.name(),
                plan.dict.len(),
                plan.tags.len(),
                plan.n_shards
            )));
        }
        let (k, l) = (plan.dict.len(), plan.tags.len());
        let p = l + 1;
        let averaging = header.averaging;
        let steps = header.steps;
        let body = match learner {
            BuiltIn::Sp => Body::Sp {
                w: r.rows(k, p * l, averaging, steps)?,
                zero: None,
            },
            BuiltIn::Bol => {
                let theta = r.rows(k, l * p, false, 0)?;
                let n = r.len(4)?;
                let blocks = r.u32s(n)?;
                if blocks.windows(2).any(|w| w[0] >= w[1])
                    || blocks.last().is_some_and(|&b| b as usize >= k)
                {
                    return Err(bad("bol blocks not increasing below n_features".into()));
                }
                for b in 0..k {
                    if !theta.row(b).0.is_empty() && blocks.binary_search(&(b as u32)).is_err() {
                        return Err(bad(format!("Theta block {b} stored but not touched")));
                    }
                }
                let sigma = r.f64s_exact(n)?;
                if sigma.iter().any(|&s| s < 0.0) {
                    return Err(bad("a negative sigma".into()));
                }
                let v = r.f64s_exact(n * p)?;
                let alpha = r.f64s_exact(n * l)?;
                let averages = if averaging {
                    Some((r.f64s_exact(n * l)?, r.f64s_exact(n * p)?))
                } else {
                    None
                };
                Body::Bol {
                    rank_one: RankOneParts {
                        theta,
                        blocks,
                        sigma,
                        v,
                        alpha,
                        averages,
                        steps,
                    },
                    zero: None,
                }
            }
            _ => {
                let mut factor = |n: usize| -> Result<DenseParts> {
                    let x = r.dense(n)?;
                    let acc = if averaging { Some(r.dense(n)?) } else { None };
                    Ok((x, acc))
                };
                let alpha = factor(k * l)?;
                let beta = factor(k * p)?;
                Body::Bcd {
                    alpha,
                    beta,
                    zero: None,
                }
            }
        };
        let mut out = Self { header, body };
        if header.zero_order {
            let z = Some(r.rows(k, l, averaging, steps)?);
            match &mut out.body {
                Body::Sp { zero, .. } | Body::Bol { zero, .. } | Body::Bcd { zero, .. } => {
                    *zero = z
                }
            }
        }
        if r.at != payload.len() {
            return Err(bad(format!("{} bytes left over", payload.len() - r.at)));
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------
// Mixing arithmetic.

/// The recorded steps of a mix: of the start, of each shard, and of the mixed state.
struct Steps {
    t0: f64,
    t: Vec<f64>,
    t_new: f64,
}

/// One shard's primal block `alpha_k beta_k^T` with `beta_k = sqrt(sigma_k) v_k`.
struct PrimalBlock<'a> {
    alpha: &'a [f64],
    root_sigma: f64,
    v: &'a [f64],
}

/// The workspace of the mean primal block's leading pair, reused across the blocks of a
/// mix so that the mix allocates nothing per block.
#[derive(Default)]
struct MeanRankOne {
    /// Gram matrix of `A` (columns `alpha_i`), `m x m` row-major.
    ga: Vec<f64>,
    /// Gram matrix of `B` (columns `beta_i`).
    gb: Vec<f64>,
    /// The coordinates `c` of `v = B c`.
    c: Vec<f64>,
    t: Vec<f64>,
    next: Vec<f64>,
}

impl MeanRankOne {
    /// The leading singular pair of the mean primal block
    /// `W = (1/k) sum_i alpha_i beta_i^T` over `k` shards, of which `held` hold the block
    /// with `beta_i != 0` (the others count 0): bol's mixed factors. Leaves
    /// `alpha = sqrt(sigma) u` in `u` and the unit `v` in `v`; returns `sigma` (0 when
    /// `W = 0`, with `u` zero and `v` unspecified).
    ///
    /// `W = A B^T / k` has rank at most `m = held.len()`, so the pair is found in the
    /// coordinates `c` of `v = B c`: `W^T W v = B (A^T A)(B^T B) c / k^2`, power steps on
    /// the `m x m` matrix `(A^T A)(B^T B)` (`O(m^2 (L + P))` for the two Gram matrices,
    /// `O(m^2)` a step), warm-started at the mean of the shards' `v_i`, each turned to the
    /// side of `reference` (`(u, v)` and `(-u, -v)` are the same block).
    fn solve(
        &mut self,
        held: &[PrimalBlock<'_>],
        k: usize,
        reference: &[f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> f64 {
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let m = held.len();
        u.fill(0.0);
        if m == 0 {
            return 0.0;
        }
        let Self { ga, gb, c, t, next } = self;
        for x in [&mut *ga, &mut *gb] {
            x.clear();
            x.resize(m * m, 0.0);
        }
        for x in [&mut *t, &mut *next] {
            x.clear();
            x.resize(m, 0.0);
        }
        for i in 0..m {
            for j in 0..=i {
                let a = dot(held[i].alpha, held[j].alpha);
                let b = held[i].root_sigma * held[j].root_sigma * dot(held[i].v, held[j].v);
                (ga[i * m + j], ga[j * m + i]) = (a, a);
                (gb[i * m + j], gb[j * m + i]) = (b, b);
            }
        }
        // Warm start: v = sum_i s_i v_i = B c with c_i = s_i / sqrt(sigma_i).
        c.clear();
        c.extend(held.iter().map(|b| {
            let side = if dot(b.v, reference) < 0.0 { -1.0 } else { 1.0 };
            side / b.root_sigma
        }));
        let gb = &*gb;
        let norm_v = |c: &[f64]| {
            let mut q = 0.0;
            for i in 0..m {
                q += c[i] * dot(&gb[i * m..(i + 1) * m], c);
            }
            q.max(0.0).sqrt()
        };
        for _ in 0..MEAN_RANK_ONE_STEPS {
            let n = norm_v(c);
            if n == 0.0 || !n.is_finite() {
                break;
            }
            c.iter_mut().for_each(|x| *x /= n);
            for i in 0..m {
                t[i] = dot(&gb[i * m..(i + 1) * m], c);
            }
            for i in 0..m {
                next[i] = dot(&ga[i * m..(i + 1) * m], t);
            }
            // Converged when the direction of v no longer moves: compare the normalized
            // coordinates.
            let n_next = norm_v(next);
            if n_next == 0.0 || !n_next.is_finite() {
                break;
            }
            let moved = c
                .iter()
                .zip(next.iter())
                .map(|(a, b)| (a - b / n_next).abs())
                .fold(0.0, f64::max);
            c.iter_mut()
                .zip(next.iter())
                .for_each(|(a, b)| *a = b / n_next);
            if moved <= 1e-14 * c.iter().fold(0.0_f64, |m, x| m.max(x.abs())) {
                break;
            }
        }
        let n = norm_v(c);
        if n == 0.0 || !n.is_finite() {
            return 0.0;
        }
        // v = B c / |B c|; z = W v = A (B^T v) / k; sigma = |z|.
        v.fill(0.0);
        for (b, &ci) in held.iter().zip(c.iter()) {
            let w = ci * b.root_sigma / n;
            v.iter_mut().zip(b.v).for_each(|(x, y)| *x += w * y);
        }
        for b in held {
            let w = b.root_sigma * dot(b.v, v) / k as f64;
            u.iter_mut().zip(b.alpha).for_each(|(x, y)| *x += w * y);
        }
        let sigma = dot(u, u).sqrt();
        if sigma == 0.0 || !sigma.is_finite() {
            u.fill(0.0);
            return 0.0;
        }
        // alpha = sqrt(sigma) u_unit = z / sqrt(sigma).
        let root = sigma.sqrt();
        u.iter_mut().for_each(|x| *x /= root);
        sigma
    }
}

/// Power steps of [`MeanRankOne::solve`] at most (each `O(m^2)` for `m` shards).
const MEAN_RANK_ONE_STEPS: usize = 200;

fn bits_eq(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The mean of `xs`: the value itself when all are equal (bit for bit), else their sum in
/// order divided by their count.
fn mean(xs: &[f64]) -> f64 {
    let first = xs[0];
    if xs.iter().all(|x| x.to_bits() == first.to_bits()) {
        return first;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// The mixed accumulator of a value that was `x0` (accumulator `a0`) at the start, `xs[i]`
/// (`accs[i]`) in shard `i`, and is `x` mixed: `T' x - (S_0 + sum_i (S_i - S_0))` with
/// `S = T x - acc` (module docs).
fn mixed_acc(x0: f64, a0: f64, xs: &[f64], accs: &[f64], x: f64, steps: &Steps) -> f64 {
    let s0 = steps.t0 * x0 - a0;
    let mut s = s0;
    for ((&xi, &ai), &ti) in xs.iter().zip(accs).zip(&steps.t) {
        s += (ti * xi - ai) - s0;
    }
    steps.t_new * x - s
}

/// The mixed sparse store: per cell the mean of the shards' values (0 where a shard has
/// no cell) and, when averaging, the mixed accumulator; `t_new` recorded steps.
fn mix_rows(
    start: &SparseRows,
    shards: &[&SparseRows],
    steps: &Steps,
    t_new: u64,
) -> Result<SparseRows> {
    let n_rows = start.n_rows();
    let averaging = start.averaging();
    let k = shards.len();
    let (mut ids, mut lens, mut codes, mut w, mut acc) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut cells: Vec<(u32, usize, f64, f64)> = Vec::new();
    let (mut xs, mut accs) = (vec![0.0; k], vec![0.0; k]);
    for row in 0..n_rows {
        cells.clear();
        for (i, s) in shards.iter().enumerate() {
            let (c, v) = s.row(row);
            let a = s.row_acc(row);
            for (j, (&c, &v)) in c.iter().zip(v).enumerate() {
                cells.push((c, i, v, a.get(j).copied().unwrap_or(0.0)));
            }
        }
        if cells.is_empty() {
            continue;
        }
        cells.sort_unstable_by_key(|&(c, i, _, _)| (c, i));
        let (c0, v0) = start.row(row);
        let a0s = start.row_acc(row);
        let before = codes.len();
        let mut at = 0;
        while at < cells.len() {
            let code = cells[at].0;
            xs.fill(0.0);
            accs.fill(0.0);
            while at < cells.len() && cells[at].0 == code {
                let (_, i, v, a) = cells[at];
                (xs[i], accs[i]) = (v, a);
                at += 1;
            }
            let x = mean(&xs);
            codes.push(code);
            w.push(x);
            if averaging {
                let (x0, a0) = c0
                    .binary_search(&code)
                    .map_or((0.0, 0.0), |j| (v0[j], a0s.get(j).copied().unwrap_or(0.0)));
                acc.push(mixed_acc(x0, a0, &xs, &accs, x, steps));
            }
        }
        ids.push(row);
        lens.push(codes.len() - before);
    }
    let width = start.width();
    SparseRows::from_rows(n_rows, width, averaging, t_new, |add| {
        let mut at = 0;
        for (&row, &n) in ids.iter().zip(&lens) {
            let a = if averaging { &acc[at..at + n] } else { &[][..] };
            add(row, &codes[at..at + n], &w[at..at + n], a);
            at += n;
        }
    })
}

/// The mixed dense factor of bcd: per entry the mean and, when averaging, the mixed
/// accumulator.
fn mix_dense(start: &DenseParts, shards: &[&DenseParts], steps: &Steps) -> DenseParts {
    let n = start.0.len();
    let mut xs = vec![0.0; shards.len()];
    let mut accs = vec![0.0; shards.len()];
    let mut x = Vec::with_capacity(n);
    let mut acc = start.1.as_ref().map(|_| Vec::with_capacity(n));
    for j in 0..n {
        for (i, s) in shards.iter().enumerate() {
            xs[i] = s.0[j];
            accs[i] = s.1.as_ref().map_or(0.0, |a| a[j]);
        }
        let m = mean(&xs);
        x.push(m);
        if let (Some(out), Some(a0)) = (acc.as_mut(), start.1.as_ref()) {
            out.push(mixed_acc(start.0[j], a0[j], &xs, &accs, m, steps));
        }
    }
    (x, acc)
}

/// sp's scaled weights must stay integers below `2^53` (exact in `f64`).
fn check_integral(rows: &SparseRows) -> Result<()> {
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    for k in 0..rows.n_rows() {
        let (_, w) = rows.row(k);
        for &x in w.iter().chain(rows.row_acc(k)) {
            if x.fract() != 0.0 || x.abs() >= LIMIT {
                return Err(OblError::Core(bl_core::BlError::Numerical {
                    context: "distributed sp",
                    message: format!(
                        "a scaled weight or accumulator {x} is not an integer below 2^53"
                    ),
                }));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The binary form.

/// 64-bit FNV-1a.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(self) -> u64 {
        self.0
    }
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h = Fnv::default();
    h.write(bytes);
    h.finish()
}

#[derive(Default)]
struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }
    fn u8(&mut self, x: u8) {
        self.out.push(x);
    }
    fn u16(&mut self, x: u16) {
        self.bytes(&x.to_le_bytes());
    }
    fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
    fn u32s(&mut self, xs: &[u32]) {
        self.out.reserve(xs.len() * 4);
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }
    fn f64s(&mut self, xs: &[f64]) {
        self.out.reserve(xs.len() * 8);
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }
    /// A sparse store: width, averaging, steps, row count, then the non-empty rows' ids
    /// and lengths, their codes, values and (averaging) accumulators.
    fn rows(&mut self, rows: &SparseRows) {
        let n_rows = rows.n_rows();
        let ids: Vec<u32> = (0..n_rows as u32)
            .filter(|&k| !rows.row(k as usize).0.is_empty())
            .collect();
        self.u64(rows.width() as u64);
        self.u8(u8::from(rows.averaging()));
        self.u64(rows.steps());
        self.u64(n_rows as u64);
        self.u64(ids.len() as u64);
        self.u32s(&ids);
        let lens: Vec<u32> = ids
            .iter()
            .map(|&k| rows.row(k as usize).0.len() as u32)
            .collect();
        self.u32s(&lens);
        for &k in &ids {
            self.u32s(rows.row(k as usize).0);
        }
        for &k in &ids {
            self.f64s(rows.row(k as usize).1);
        }
        if rows.averaging() {
            for &k in &ids {
                self.f64s(rows.row_acc(k as usize));
            }
        }
    }
    /// A dense vector: its length, then `0` and the values, or `1`, a fill value, and the
    /// increasing positions (`u64`) and values of the entries that differ from it.
    fn dense(&mut self, xs: &[f64]) {
        self.u64(xs.len() as u64);
        let candidates = [
            0.0,
            xs.first().copied().unwrap_or(0.0),
            xs.last().copied().unwrap_or(0.0),
        ];
        let (fill, same) = candidates
            .iter()
            .map(|&c| (c, xs.iter().filter(|x| x.to_bits() == c.to_bits()).count()))
            .max_by_key(|&(_, n)| n)
            .unwrap_or((0.0, 0));
        let differ = xs.len() - same;
        if differ * 16 + 16 < xs.len() * 8 {
            self.u8(1);
            self.f64s(&[fill]);
            self.u64(differ as u64);
            for (j, x) in xs.iter().enumerate() {
                if x.to_bits() != fill.to_bits() {
                    self.u64(j as u64);
                }
            }
            for x in xs {
                if x.to_bits() != fill.to_bits() {
                    self.f64s(&[*x]);
                }
            }
        } else {
            self.u8(0);
            self.f64s(xs);
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn bad(&self, detail: impl std::fmt::Display) -> OblError {
        serde_error(
            "distributed weights",
            format!("at byte {}: {detail}", self.at),
        )
    }
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        match self.at.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let out = &self.bytes[self.at..end];
                self.at = end;
                Ok(out)
            }
            _ => Err(self.bad(format!("{n} more bytes expected, the data ends"))),
        }
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    }
    /// A count of items of `item` bytes each, which the remaining bytes must be able to
    /// hold (so nothing is reserved beyond the data).
    fn len(&mut self, item: usize) -> Result<usize> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n.checked_mul(item as u64).is_none_or(|b| b > left) {
            return Err(self.bad(format!("a count of {n} items beyond the data")));
        }
        Ok(n as usize)
    }
    fn u32s(&mut self, n: usize) -> Result<Vec<u32>> {
        let b = self.take(n.checked_mul(4).ok_or_else(|| self.bad("count"))?)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
    /// `n` finite values.
    fn f64s_exact(&mut self, n: usize) -> Result<Vec<f64>> {
        let b = self.take(n.checked_mul(8).ok_or_else(|| self.bad("count"))?)?;
        let out: Vec<f64> = b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        if let Some(x) = out.iter().find(|x| !x.is_finite()) {
            return Err(self.bad(format!("a non-finite value {x}")));
        }
        Ok(out)
    }
    fn rows(
        &mut self,
        n_rows: usize,
        width: usize,
        averaging: bool,
        steps: u64,
    ) -> Result<SparseRows> {
        let found_width = self.u64()?;
        let found_averaging = self.u8()?;
        let found_steps = self.u64()?;
        let found_rows = self.u64()?;
        if found_width != width as u64
            || found_averaging != u8::from(averaging)
            || found_rows != n_rows as u64
            || (averaging && found_steps != steps)
        {
            return Err(self.bad(format!(
                "a sparse store of {found_rows} rows of width {found_width} (averaging {found_averaging}, steps {found_steps}), expected {n_rows} rows of width {width} (averaging {averaging}, steps {steps})"
            )));
        }
        let n = self.len(8)?;
        let ids = self.u32s(n)?;
        let lens = self.u32s(n)?;
        if ids.windows(2).any(|w| w[0] >= w[1]) || ids.last().is_some_and(|&k| k as usize >= n_rows)
        {
            return Err(self.bad("row ids not increasing below the row count"));
        }
        let total = lens.iter().try_fold(0usize, |s, &x| {
            (x > 0 && x as usize <= width)
                .then(|| s.checked_add(x as usize))
                .flatten()
        });
        let total = total.ok_or_else(|| self.bad("row lengths out of range"))?;
        let codes = self.u32s(total)?;
        let values = self.f64s_exact(total)?;
        let acc = if averaging {
            self.f64s_exact(total)?
        } else {
            Vec::new()
        };
        let mut at = 0;
        for &len in &lens {
            let row = &codes[at..at + len as usize];
            if row.windows(2).any(|w| w[0] >= w[1])
                || row.last().is_some_and(|&c| c as usize >= width)
            {
                return Err(self.bad("codes of a row not increasing below the width"));
            }
            at += len as usize;
        }
        SparseRows::from_rows(n_rows, width, averaging, found_steps, |add| {
            let mut at = 0;
            for (&k, &len) in ids.iter().zip(&lens) {
                let r = at..at + len as usize;
                let a = if averaging { &acc[r.clone()] } else { &[][..] };
                add(k as usize, &codes[r.clone()], &values[r], a);
                at += len as usize;
            }
        })
    }
    /// A dense vector of `n` finite values.
    fn dense(&mut self, n: usize) -> Result<Vec<f64>> {
        let found = self.u64()?;
        if found != n as u64 {
            return Err(self.bad(format!("a vector of {found} values, expected {n}")));
        }
        match self.u8()? {
            0 => self.f64s_exact(n),
            1 => {
                let fill = self.f64s_exact(1)?[0];
                let m = self.len(16)?;
                let at = self.u32s(m.checked_mul(2).ok_or_else(|| self.bad("count"))?)?;
                let positions: Vec<u64> = at
                    .chunks_exact(2)
                    .map(|c| u64::from(c[0]) | (u64::from(c[1]) << 32))
                    .collect();
                if positions.windows(2).any(|w| w[0] >= w[1])
                    || positions.last().is_some_and(|&j| j >= n as u64)
                {
                    return Err(self.bad("positions not increasing below the length"));
                }
                let values = self.f64s_exact(m)?;
                let mut out: Vec<f64> = bl_core::limits::try_zeroed("dense vector", &[n])?;
                out.fill(fill);
                for (&j, &x) in positions.iter().zip(&values) {
                    out[j as usize] = x;
                }
                Ok(out)
            }
            x => Err(self.bad(format!("dense vector mode {x}"))),
        }
    }
}
