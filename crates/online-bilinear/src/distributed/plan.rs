//! The plan every shard shares ([`IpmPlan`]): its checks, the weights of epoch 0, the
//! fitted tagger of the final weights, and its JSON form.

use std::sync::Arc;

use bl_core::engine::{FitReport, IterationParams, TerminationReason};
use bl_core::error::build::invalid;
use serde::{Deserialize, Serialize};

use super::codec::Fnv;
use super::weights::{Body, Header, Live};
use super::{FeatureCounts, IpmWeights, MAX_SHARDS, PLAN_FORMAT, serde_error};
use crate::error::{OblError, Result};
use crate::features::{FeatureDict, Templates};
use crate::fit::PreparedCorpus;
use crate::learner::{Bcd, Bol, BuiltIn, LearnerShape, Sp};
use crate::model::{FittedTagger, ZeroOrder, report_of_epochs};
use crate::params::{TaggerValidParams, check_transitions};
use crate::settings::{LearnerSettings, Reading};
use crate::train::EpochInfo;
use crate::weights::Weights;

/// What every shard of an IPM fit shares: the learner and its settings, the iteration
/// knobs, the shuffling, the feature dictionary, the tag set and the number of shards
/// (see the [module docs](super)).
#[derive(Debug, Clone)]
pub struct IpmPlan {
    pub(super) learner: BuiltIn,
    settings: LearnerSettings,
    iteration: IterationParams,
    pub(super) shuffle: bool,
    seed: u64,
    pub(super) dict: Arc<FeatureDict>,
    pub(super) tags: Vec<String>,
    pub(super) n_shards: usize,
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

    pub(super) fn header(&self, epoch: u64, steps: u64) -> Header {
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
    pub(super) fn check_weights(&self, w: &IpmWeights, what: &str) -> Result<()> {
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
    pub(super) fn learner_from(&self, w: &IpmWeights) -> Result<Live> {
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
    /// with `termination`. Each epoch's change in the report's trace is the measure
    /// [`stop_after`](Self::stop_after) compares with `tol`, `mistakes / sentences`
    /// (`sentences`: the non-empty sentences of all shards, as given to `stop_after`), as
    /// in an ordinary fit's trace.
    ///
    /// # Errors
    /// Weights of another plan; [`OblError::Learner`] for a model of the wrong sizes or
    /// with non-finite values.
    pub fn finish(
        &self,
        weights: &IpmWeights,
        history: &[EpochInfo],
        sentences: usize,
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
        let mut report: FitReport = report_of_epochs(history, Some(sentences));
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
