//! The shards ([`Shard`]) and the one-process loop ([`fit_ipm`]).

use std::time::Instant;

use bl_core::error::build::invalid;
use rand::seq::SliceRandom;

use super::{IpmPlan, IpmWeights};
use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::fit::PreparedCorpus;
use crate::model::{FittedTagger, tag_indices};
use crate::params::TaggerValidParams;
use crate::train::EpochInfo;

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
    /// [`FeatureDict::encode_corpus`](crate::features::FeatureDict::encode_corpus); a
    /// sentence whose score table is above the bound.
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
/// shard the weights equal the ordinary fit's, bit for bit, and so do the report's
/// iterations, termination and trace objectives, changes and counts (its times aside)
/// when the ordinary fit ends by its tolerance or its `max_iter`: IPM does not read the
/// time limit (`time_limit` of the parameters), so where the ordinary fit stops at the
/// time limit, this one runs on to the tolerance or `max_iter`.
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
            return plan.finish(&weights, &history, sentences, reason);
        }
    }
}
