//! Fitting: `Fit<Corpus>`, `Fit<chain_crf::Dataset>`, `Fit<PreparedCorpus>` and
//! `Fit<WithSnapshots>` on
//! [`TaggerValidParams`] (the builder [`TaggerParams`](crate::TaggerParams) fits through
//! `bl_core`'s blanket implementation, checking first).
//!
//! A fit prepares the features (from a corpus, or from attribute data:
//! [`TaggerValidParams::prepare_dataset`]), starts the learner
//! ([`Learner::start`](crate::Learner::start)) and trains it: an online learner through
//! [`crate::train`], one epoch per iteration of the engine; a CRF as one outer iteration
//! whose optimizer run ([`crate::crf`]) is an inner, untraced run, its termination and
//! iteration count reported by the outer one.

mod attributes;
mod prepared;
mod snapshots;

use std::sync::Arc;
use std::time::Instant;

use bl_core::engine::{IterationParams, Observer, Progress, Stop};
use bl_core::{Fit, TerminationReason};

use crate::crf::CrfJob;
use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::learner::{CrfPenalty, Learner, LearnerShape, OnlineLearner, Snapshot, Training};
use crate::model::{FittedTagger, ZeroOrder, report_from_history};
use crate::params::TaggerValidParams;
use crate::train::{EpochInfo, Examples, run_online};
use crate::weights::Weights;

pub use prepared::{PreparedCorpus, default_templates};
use snapshots::SnapshotHook;
pub use snapshots::WithSnapshots;

/// `impl Fit<$data> for TaggerValidParams`, written once: the doc lines document
/// `fit_observed`, whose receiver, data and observers the closure-like head names.
macro_rules! fit_tagger {
    ($(#[$attr:meta])* $data:ty => |$this:ident, $x:ident, $observers:ident| $body:block) => {
        impl Fit<$data> for TaggerValidParams {
            type Fitted = FittedTagger;
            type Error = OblError;

            $(#[$attr])*
            fn fit_observed(
                &$this,
                $x: &$data,
                $observers: &mut [&mut dyn Observer],
            ) -> Result<FittedTagger> $body
        }
    };
}

fit_tagger! {
    /// Builds the features of `corpus` ([`prepare`](TaggerValidParams::prepare)), then
    /// trains, showing every epoch to `observers`. The model's
    /// [`train_seconds`](FittedTagger::train_seconds) includes the feature extraction.
    ///
    /// # Errors
    /// The errors of [`prepare`](TaggerValidParams::prepare); a score table above the
    /// bound ([`bl_core::BlError::InvalidParameter`] in [`OblError::Core`], naming the
    /// sentence, its length and the tag count: more than
    /// [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, or a sentence too long for the tag
    /// count), before training; the errors the learner returns when it starts or updates
    /// (e.g. [`bl_core::BlError::InvalidParameter`] for sizes beyond its limits);
    /// [`OblError::Learner`] when a learner breaks its contract; CRFsuite failures for the
    /// CRF learners.
    Corpus => |self, corpus, observers| {
        self.prepare_and_train(|| self.prepare(corpus), observers)
    }
}

fit_tagger! {
    /// Fits on attribute data (CRFsuite's input): prepares its features
    /// ([`prepare_dataset`](TaggerValidParams::prepare_dataset): the attributes, then the
    /// bias) and trains as on a [`Corpus`]. The model tags [`chain_crf::Items`] of the same
    /// attribute dictionary ([`FittedTagger::tag_items`]); its tags are the label names in
    /// id order. [`train_seconds`](FittedTagger::train_seconds) includes the encoding.
    ///
    /// # Errors
    /// The errors of [`prepare_dataset`](TaggerValidParams::prepare_dataset) (among them
    /// [`OblError::NonBinaryAttribute`] for a value other than 0 or 1), then those of the
    /// fit on a [`Corpus`] after preparation.
    chain_crf::Dataset => |self, data, observers| {
        self.prepare_and_train(|| self.prepare_dataset(data), observers)
    }
}

fit_tagger! {
    /// Fits on prepared features, so that several learners can be fitted on the same
    /// features. The model's [`train_seconds`](FittedTagger::train_seconds) is the
    /// learner's training alone.
    ///
    /// # Errors
    /// Parameters that set other templates or another cutoff than the prepared ones
    /// ([`bl_core::BlError::InvalidParameter`] named `templates` or `cutoff`), or that set
    /// `transitions_only` for prepared templates without a bias (named
    /// `transitions_only`); the errors of the fit on a [`Corpus`] after preparation.
    PreparedCorpus => |self, prepared, observers| {
        self.check_prepared(prepared)?;
        self.train(self.learner().as_ref(), prepared, observers, None)
    }
}

fit_tagger! {
    /// As the fit on the [`PreparedCorpus`], calling the hook after every epoch.
    ///
    /// # Errors
    /// As the fit on the [`PreparedCorpus`], and any error the hook returns.
    WithSnapshots<'_> => |self, data, observers| {
        self.check_prepared(data.prepared)?;
        let mut hook = data.hook.borrow_mut();
        self.train(
            self.learner().as_ref(),
            data.prepared,
            observers,
            Some(&mut **hook),
        )
    }
}

impl TaggerValidParams {
    /// Prepares the features with `prepare`, then trains the parameters' learner on them;
    /// the model's [`train_seconds`](FittedTagger::train_seconds) includes the preparation.
    fn prepare_and_train(
        &self,
        prepare: impl FnOnce() -> Result<PreparedCorpus>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedTagger> {
        let started = Instant::now();
        let prepared = prepare()?;
        let setup_seconds = started.elapsed().as_secs_f64();
        let mut model = self.train(self.learner().as_ref(), &prepared, observers, None)?;
        model.train_seconds += setup_seconds;
        Ok(model)
    }

    /// Trains `learner` (the parameters' own, or the candidate of the conformance suite)
    /// on prepared features.
    pub(crate) fn train(
        &self,
        learner: &dyn Learner,
        prepared: &PreparedCorpus,
        observers: &mut [&mut dyn Observer],
        on_epoch: Option<&mut SnapshotHook<'_>>,
    ) -> Result<FittedTagger> {
        let n_tags = prepared.tags.len();
        // Training and the final decoding build one score table per sentence: refuse,
        // before any learner is built, a sentence whose table is above the bound.
        crate::viterbi::score_table_len(1, n_tags)?;
        for (index, enc) in prepared.encoded.iter().enumerate() {
            crate::viterbi::checked_table_len(Some(index), enc.len(), n_tags)?;
        }
        let settings = self.learner_settings();
        let mut model = FittedTagger {
            learner: learner.name().to_string(),
            settings,
            iteration: *self.iteration(),
            shuffle: self.shuffle(),
            seed: self.seed(),
            dict: Arc::clone(&prepared.dict),
            tags: prepared.tags.clone(),
            weights: Weights::Linear { w: Vec::new() },
            zero_order: None,
            zero_dense: Default::default(),
            report: report_from_history(&[]),
            train_seconds: 0.0,
        };
        let shape = LearnerShape {
            n_features: prepared.dict.len(),
            n_tags,
            bias_feature: prepared.dict.bias_id().map(|id| id as usize),
        };
        // The learner's training counts from here: starting it, the epochs and the final
        // snapshot (online), or the optimizer's run (CRF); never the hook.
        let started = Instant::now();
        match learner.start(shape, &settings)? {
            Training::Online(learner) => {
                self.train_online(learner, shape, prepared, &mut model, observers, on_epoch)?;
                let hook_seconds = model.train_seconds;
                model.train_seconds = (started.elapsed().as_secs_f64() - hook_seconds).max(0.0);
            }
            Training::Crf(penalty) => {
                self.train_crf(penalty, prepared, &mut model, observers, on_epoch)?;
            }
        }
        Ok(model)
    }

    /// The epochs of an online learner; leaves in `model.train_seconds` the time spent in
    /// the hook.
    fn train_online(
        &self,
        mut learner: Box<dyn OnlineLearner>,
        shape: LearnerShape,
        prepared: &PreparedCorpus,
        model: &mut FittedTagger,
        observers: &mut [&mut dyn Observer],
        mut on_epoch: Option<&mut SnapshotHook<'_>>,
    ) -> Result<()> {
        let take = |model: &mut FittedTagger, snapshot: Snapshot| -> Result<()> {
            crate::learner::check_snapshot(&snapshot, shape)?;
            model.weights = snapshot.weights.into();
            model.zero_order = snapshot.zero_order.map(ZeroOrder::Dense);
            Ok(())
        };
        let mut hook_seconds = 0.0;
        let examples = Examples {
            encoded: &prepared.encoded,
            gold: &prepared.gold,
            n_tags: shape.n_tags,
        };
        let report = run_online(
            learner.as_mut(),
            &examples,
            (self.iteration(), self.shuffle(), self.seed()),
            observers,
            &mut |info, state| match on_epoch.as_mut() {
                Some(hook) => {
                    let at = Instant::now();
                    take(model, state.snapshot())?;
                    model.train_seconds = info.seconds;
                    let result = hook(info, model);
                    hook_seconds += at.elapsed().as_secs_f64();
                    result
                }
                None => Ok(()),
            },
        )?;
        let zero_rows = learner.take_sparse_zero_order();
        take(model, learner.into_snapshot())?;
        if let Some(rows) = zero_rows {
            rows.validate("zero_order", shape.n_features, shape.n_tags)
                .map_err(|e| OblError::Learner {
                    check: "snapshot-shape",
                    message: format!("sparse 0-order weights: {e}"),
                })?;
            model.zero_order = Some(ZeroOrder::Sparse(rows));
        }
        model.report = report;
        model.train_seconds = hook_seconds;
        Ok(())
    }

    /// A CRF: one outer iteration around the optimizer's (inner, untraced) run.
    fn train_crf(
        &self,
        penalty: CrfPenalty,
        prepared: &PreparedCorpus,
        model: &mut FittedTagger,
        observers: &mut [&mut dyn Observer],
        mut on_epoch: Option<&mut SnapshotHook<'_>>,
    ) -> Result<()> {
        let job = CrfJob {
            penalty,
            c: self.c(),
            iteration: *self.iteration(),
        };
        // One outer step; a time limit that stopped the optimizer stops it too.
        let outer = IterationParams {
            trace: self.iteration().trace,
            time_limit: self.iteration().time_limit,
            ..IterationParams::new(1, 0.0)
        };
        let n_tags = prepared.tags.len();
        model.report = bl_core::engine::run(&outer, observers, |_| {
            let started = Instant::now();
            let (weights, run) = crate::crf::fit(
                &job,
                &prepared.encoded,
                &prepared.gold,
                prepared.dict.len(),
                n_tags,
            )?;
            model.train_seconds = started.elapsed().as_secs_f64();
            model.weights = Weights::Crf(weights);
            let paths = model.decode(&prepared.encoded)?;
            let tokens = prepared.n_tokens();
            let errors: usize = paths
                .iter()
                .zip(&prepared.gold)
                .map(|(p, g)| p.iter().zip(g).filter(|(a, b)| a != b).count())
                .sum();
            let info = EpochInfo {
                epoch: 1,
                mistakes: 0,
                token_errors: errors,
                tokens,
                seconds: model.train_seconds,
            };
            if let Some(hook) = on_epoch.as_mut() {
                hook(&info, model)?;
            }
            // The one outer step ends the way the optimizer ended: converged (change 0
            // meets the tolerance 0), solved or out of its budget; at the time limit or
            // out of iterations (change 1 against the budget of 1 step) otherwise.
            let (change, stop) = match run.termination {
                TerminationReason::Converged => (0.0, None),
                TerminationReason::Solved => (1.0, Some(Stop::Solved)),
                TerminationReason::BudgetExhausted => (1.0, Some(Stop::BudgetExhausted)),
                TerminationReason::MaxIterations | TerminationReason::TimeLimit => (1.0, None),
            };
            let progress = Progress::new(errors as f64 / tokens.max(1) as f64, change)
                .stop_if(stop)
                .with("token_errors", errors as f64)
                .with("tokens", tokens as f64)
                .with("train_seconds", model.train_seconds);
            Ok::<_, OblError>(progress.with("optimizer_iterations", run.iterations as f64))
        })?;
        Ok(())
    }
}
