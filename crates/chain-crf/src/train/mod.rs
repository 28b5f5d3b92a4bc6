//! The trainers (CRFsuite's `algorithm`s) and the fit.
//!
//! | [`Algorithm`] | CRFsuite name | what it minimizes or does | second core |
//! |---|---|---|---|
//! | [`Lbfgs`] | `lbfgs` | negative log-likelihood + `c1 ||w||_1 + c2 ||w||^2` by L-BFGS (OWL-QN when `c1 > 0`) | gradient over sequences |
//! | [`L2sgd`] | `l2sgd` | negative log-likelihood + `c2 ||w||^2` by SGD | see [`L2sgd`] |
//! | [`AveragedPerceptron`] | `ap` | structured perceptron, averaged | see [`AveragedPerceptron`] |
//! | [`PassiveAggressive`] | `pa` | passive-aggressive, types 0/1/2 | see [`PassiveAggressive`] |
//! | [`Arow`] | `arow` | adaptive regularization of weight vectors | see [`Arow`] |
//!
//! Each trainer's settings carry CRFsuite's names and defaults; the iteration budget and
//! tolerance are the fit's [`IterationParams`] (`max_iter` = CRFsuite's
//! `max_iterations`; `tol` = `delta` for `lbfgs` and `l2sgd`, `epsilon` for the online
//! trainers), set to the algorithm's defaults by [`CrfParams::new`].

mod ap;
mod arow;
pub mod distributed;
mod l2sgd;
mod lbfgs;
mod online;
mod pa;

use std::time::{Duration, Instant};

use bl_core::engine::{FitReport, Observer};
use bl_core::{IterationParams, ParamGuard, params};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{CrfError, Result};
use crate::features::{FeatureOptions, FeatureSet};
use crate::model::Model;

pub use ap::AveragedPerceptron;
pub use arow::Arow;
pub use l2sgd::L2sgd;
pub use lbfgs::{Lbfgs, LineSearch};
pub use pa::{PaType, PassiveAggressive};

/// A trainer and its settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Algorithm {
    /// `lbfgs`.
    Lbfgs(Lbfgs),
    /// `l2sgd`.
    L2sgd(L2sgd),
    /// `ap`.
    AveragedPerceptron(AveragedPerceptron),
    /// `pa`.
    PassiveAggressive(PassiveAggressive),
    /// `arow`.
    Arow(Arow),
}

impl Algorithm {
    /// The trainer of a CRFsuite name (`lbfgs`, `l2sgd`, `ap`, `pa`, `arow`) with
    /// CRFsuite's default settings.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] for another name.
    pub fn from_name(name: &str) -> Result<Self> {
        Ok(match name {
            "lbfgs" => Self::Lbfgs(Lbfgs::default()),
            "l2sgd" => Self::L2sgd(L2sgd::default()),
            "ap" => Self::AveragedPerceptron(AveragedPerceptron::default()),
            "pa" => Self::PassiveAggressive(PassiveAggressive::default()),
            "arow" => Self::Arow(Arow::default()),
            _ => {
                return Err(bl_core::BlError::InvalidParameter {
                    name: "algorithm",
                    value: format!("{name:?}"),
                    expected: "one of \"lbfgs\", \"l2sgd\", \"ap\", \"pa\", \"arow\"".into(),
                }
                .into());
            }
        })
    }

    /// CRFsuite's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Lbfgs(_) => "lbfgs",
            Self::L2sgd(_) => "l2sgd",
            Self::AveragedPerceptron(_) => "ap",
            Self::PassiveAggressive(_) => "pa",
            Self::Arow(_) => "arow",
        }
    }

    /// CRFsuite's default `max_iterations` and stopping threshold for this trainer.
    pub fn default_iteration(&self) -> IterationParams {
        match self {
            // CRFsuite: max_iterations = INT_MAX, delta = 1e-5.
            Self::Lbfgs(_) => IterationParams::new(i32::MAX as usize, 1e-5),
            // max_iterations = 1000, delta = 1e-6.
            Self::L2sgd(_) => IterationParams::new(1000, 1e-6),
            // max_iterations = 100, epsilon = 0.
            _ => IterationParams::new(100, 0.0),
        }
    }

    fn check(&self) -> Result<()> {
        match self {
            Self::Lbfgs(s) => s.check(),
            Self::L2sgd(s) => s.check(),
            Self::AveragedPerceptron(s) => s.check(),
            Self::PassiveAggressive(s) => s.check(),
            Self::Arow(s) => s.check(),
        }
    }
}

/// Parameters of a CRF fit: the trainer, the feature generation, the iteration knobs and
/// the seed of the trainers that shuffle.
///
/// ```
/// use chain_crf::{Algorithm, CrfParams, DatasetBuilder, Fit};
/// let mut b = DatasetBuilder::new();
/// for (w, y) in [("the", "DT"), ("cat", "NN"), ("sat", "VB")] {
///     b.attribute(&format!("word={w}"), 1.0)?;
///     b.end_item(y)?;
/// }
/// b.end_sequence()?;
/// let data = b.finish();
/// let fitted = CrfParams::new(Algorithm::from_name("ap")?).fit(&data)?;
/// let x = fitted.model().encode([[("word=cat", 1.0)]])?;
/// assert_eq!(fitted.model().tag_names(x.items()), ["NN"]);
/// # Ok::<(), chain_crf::CrfError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrfParams {
    algorithm: Algorithm,
    features: FeatureOptions,
    iteration: IterationParams,
    seed: u64,
}

impl CrfParams {
    /// `algorithm` with CRFsuite's feature defaults and the algorithm's default iteration
    /// budget and threshold ([`Algorithm::default_iteration`]), trace off; seed 0.
    pub fn new(algorithm: Algorithm) -> Self {
        let iteration = algorithm.default_iteration().untraced();
        Self {
            algorithm,
            features: FeatureOptions::default(),
            iteration,
            seed: 0,
        }
    }
}

/// Checked [`CrfParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct CrfValidParams {
    params: CrfParams,
}

params::knobs! {
    CrfParams => CrfValidParams in params;
    /// The trainer (no default: [`CrfParams::new`] takes it; setting another keeps the
    /// iteration knobs).
    algorithm: &Algorithm;
    /// The feature generation (default CRFsuite's: `min_freq` 0, no
    /// `all_possible_states`, no `all_possible_transitions`; `min_freq` must be finite).
    features: &FeatureOptions;
    /// The seed of the trainers that shuffle or sample (`l2sgd`, and `ap`, `pa` and `arow`,
    /// which shuffle every epoch; default 0).
    seed: u64;
    /// The iteration knobs (default the algorithm's budget and threshold,
    /// [`Algorithm::default_iteration`], trace off).
    ..iteration;
}

impl ParamGuard for CrfParams {
    type Checked = CrfValidParams;
    type Error = CrfError;

    fn check(&self) -> Result<CrfValidParams> {
        self.iteration.check()?;
        self.algorithm.check()?;
        bl_core::params::finite("min_freq", self.features.min_freq)?;
        Ok(CrfValidParams {
            params: self.clone(),
        })
    }
}

/// Accuracy on the held-out data after one iteration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HoldoutScore {
    /// Share of items labelled correctly.
    pub item_accuracy: f64,
    /// Share of sequences labelled entirely correctly.
    pub instance_accuracy: f64,
}

/// One iteration (epoch) of the training log; a field the trainer does not have is
/// `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationLog {
    /// 1-based iteration.
    pub iteration: usize,
    /// The trainer's loss (negative log-likelihood plus penalty for `lbfgs`/`l2sgd`, the
    /// epoch's summed loss for the online trainers).
    pub loss: f64,
    /// `||w||_2`.
    pub feature_norm: f64,
    /// Nonzero weights.
    pub active_features: usize,
    /// Seconds since the start of training: from before feature generation, so it includes
    /// the feature generation and whatever the trainer does before its first iteration
    /// (`lbfgs`: the first evaluation of the objective; `l2sgd`: the calibration of the
    /// learning rate). It runs ahead of the fit report's trace times
    /// ([`bl_core::engine::TraceRecord::elapsed_s`]), which count from the start of the
    /// iterations, by that much (about 15 ms for `lbfgs` on 300 sequences of 8 items,
    /// measured once in a debug build on 2026-11-30).
    pub time: f64,
    /// `||g||_2` (`lbfgs`).
    pub error_norm: Option<f64>,
    /// Line-search trials (`lbfgs`).
    pub linesearch_trials: Option<usize>,
    /// Learning rate (`l2sgd`).
    pub learning_rate: Option<f64>,
    /// Items labelled wrongly in the epoch (online trainers).
    pub errors: Option<usize>,
    /// Held-out accuracy, when the fit has held-out data.
    pub holdout: Option<HoldoutScore>,
}

impl IterationLog {
    /// The entry of `iteration` with the fields every trainer fills: `feature_norm` and
    /// `active_features` from `norm_and_active`; the trainer-specific fields
    /// (`error_norm`, `linesearch_trials`, `learning_rate`, `errors`) are `None`.
    pub(crate) fn new(
        iteration: usize,
        loss: f64,
        (feature_norm, active_features): (f64, usize),
        time: f64,
        holdout: Option<HoldoutScore>,
    ) -> Self {
        Self {
            iteration,
            loss,
            feature_norm,
            active_features,
            time,
            error_norm: None,
            linesearch_trials: None,
            learning_rate: None,
            errors: None,
            holdout,
        }
    }
}

/// Dense transition weights `trans = a w_trans` (0 where there is no feature) and
/// `exp_trans = exp(trans - max)` into the trainers' reused `L x L` buffers; returns the
/// max ([`exp_transitions_into`](crate::lattice::exp_transitions_into)).
fn load_transitions(
    features: &FeatureSet,
    w: &[f64],
    a: f64,
    trans: &mut [f64],
    exp_trans: &mut [f64],
) -> f64 {
    trans.fill(0.0);
    for (prev, next, k) in features.iter_transitions() {
        trans[prev as usize * features.n_labels() + next as usize] = a * w[k];
    }
    crate::lattice::exp_transitions_into(trans, exp_trans)
}

/// Pushes `entry` onto `log` after `reserve` (a test injects a refusal) made room.
fn keep_entry(
    log: &mut Vec<IterationLog>,
    entry: IterationLog,
    max_iter: usize,
    reserve: impl FnOnce(&mut Vec<IterationLog>) -> Result<(), std::collections::TryReserveError>,
) -> Result<()> {
    if reserve(log).is_err() {
        let refused =
            bl_core::limits::record_refused("training log", max_iter, entry.iteration, "");
        return Err(refused.into());
    }
    log.push(entry);
    Ok(())
}

/// What a trainer gets.
pub(crate) struct Job<'a> {
    pub(crate) data: &'a Dataset,
    pub(crate) features: &'a FeatureSet,
    pub(crate) iteration: IterationParams,
    pub(crate) holdout: Option<&'a Dataset>,
    pub(crate) seed: u64,
    pub(crate) log: Vec<IterationLog>,
    pub(crate) start: Instant,
    /// The fit's threads: run parallel work in `pool.install` (observers are not `Send`,
    /// so the loop itself runs outside).
    pub(crate) pool: bl_core::iteration::Pool,
}

impl Job<'_> {
    /// Appends `entry` to the training log, reserving fallibly: a log that no longer
    /// fits in memory ends the fit with an error naming `max_iter` instead of aborting.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` (`max_iter`) when the entry cannot be reserved.
    pub(crate) fn keep(&mut self, entry: IterationLog) -> Result<()> {
        keep_entry(&mut self.log, entry, self.iteration.max_iter, |log| {
            log.try_reserve(1)
        })
    }

    /// Seconds since training started.
    pub(crate) fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Held-out accuracy of the weights `w` (Viterbi), if there is held-out data.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` when the `L x L` transition weights cannot be reserved.
    pub(crate) fn holdout_score(&self, w: &[f64]) -> Result<Option<HoldoutScore>> {
        let Some(data) = self.holdout else {
            return Ok(None);
        };
        let l = self.features.n_labels();
        let trans = self.features.try_transition_weights(w)?;
        let (mut state, mut path, mut back) = (Vec::new(), Vec::new(), Vec::new());
        let (mut items, mut right, mut seqs, mut seqs_right) = (0usize, 0usize, 0usize, 0usize);
        for x in data.iter() {
            self.features.state_scores_unchecked(x.items, w, &mut state);
            crate::viterbi::viterbi_unchecked(&state, l, &trans, &mut path, &mut back);
            let ok = path.iter().zip(x.labels).filter(|(p, y)| p == y).count();
            items += x.labels.len();
            right += ok;
            seqs += 1;
            seqs_right += usize::from(ok == x.labels.len());
        }
        Ok(Some(HoldoutScore {
            item_accuracy: right as f64 / items.max(1) as f64,
            instance_accuracy: seqs_right as f64 / seqs.max(1) as f64,
        }))
    }
}

/// `||w||_2` and the number of nonzero weights.
pub(crate) fn norm_and_active(w: &[f64]) -> (f64, usize) {
    let mut s = 0.0;
    let mut n = 0;
    for &v in w {
        s += v * v;
        n += usize::from(v != 0.0);
    }
    (s.sqrt(), n)
}

/// What a trainer returns.
pub(crate) struct Trained {
    pub(crate) weights: Vec<f64>,
    pub(crate) report: FitReport,
}

/// A fitted CRF: the model, the fit's report and the training log.
#[derive(Debug, Clone)]
pub struct FittedCrf {
    model: Model,
    report: FitReport,
    log: Vec<IterationLog>,
    algorithm: &'static str,
    feature_generation: Option<Duration>,
}

impl FittedCrf {
    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Takes the model out.
    pub fn into_model(self) -> Model {
        self.model
    }

    /// One record per iteration.
    pub fn log(&self) -> &[IterationLog] {
        &self.log
    }

    /// The trainer's CRFsuite name.
    pub fn algorithm(&self) -> &'static str {
        self.algorithm
    }

    /// How long the features of a one-machine fit took to generate (CRFsuite's "Feature
    /// generation ... Seconds required"), before the iterations; the report's `elapsed`
    /// counts the iterations only, so the two intervals do not overlap. `None` for the
    /// distributed fit, whose plan is merged before it starts.
    pub fn feature_generation(&self) -> Option<Duration> {
        self.feature_generation
    }
}

impl bl_core::Fitted for FittedCrf {
    fn report(&self) -> &FitReport {
        &self.report
    }
}

impl bl_core::Fit<Dataset> for CrfValidParams {
    type Fitted = FittedCrf;
    type Error = CrfError;

    fn fit_observed(
        &self,
        data: &Dataset,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedCrf> {
        self.fit_with_holdout(data, None, observers)
    }
}

impl CrfValidParams {
    /// Fits on `data`, scoring `holdout` (encoded with `data`'s dictionaries, e.g. by
    /// [`crate::DatasetBuilder::frozen`]) after every iteration into the log.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for a data set without sequences;
    /// [`CrfError::Input`] for an item whose label is not in `data`'s label dictionary
    /// ([`Dataset::check_labels`]: the [`crate::UNKNOWN_LABEL`] of a
    /// [`crate::DatasetBuilder::frozen`] data set);
    /// [`bl_core::BlError::ShapeMismatch`] for held-out data whose label names or number
    /// of attributes differ from `data`'s; or a trainer's error (a non-finite objective:
    /// [`bl_core::BlError::Numerical`]).
    ///
    /// Memory is quadratic in the number of labels `L` (the dense `L x L` transition
    /// tables, as in CRFsuite: see [`FeatureSet::generate`]) and, for `lbfgs`, linear in
    /// the number of weights: `2 num_memories + 6` vectors (the history, the point, the
    /// gradient and the step's buffers), plus one gradient per worker thread. One of these
    /// buffers above [`bl_core::limits::MAX_ELEMENTS`] values, or one whose memory is
    /// refused, is a [`bl_core::BlError::InvalidParameter`] naming it (the labels, the
    /// weights), checked (and, for the history the optimizer fills as it goes, probed)
    /// before the fit starts, not an abort; so is a training log or trace that no longer
    /// fits (naming `max_iter`). Tagging with the fitted model still forms its `L x L`
    /// table on each call without a check ([`Model::tag`]).
    pub fn fit_with_holdout(
        &self,
        data: &Dataset,
        holdout: Option<&Dataset>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedCrf> {
        bl_core::error::ensure_nonempty("training sequences", data.len())?;
        data.check_labels()?;
        if let Some(h) = holdout
            && (h.labels().names() != data.labels().names()
                || h.attributes().len() != data.attributes().len())
        {
            return Err(bl_core::BlError::ShapeMismatch {
                context: "held-out data: dictionaries",
                expected: "the training data's (DatasetBuilder::frozen)".into(),
                found: "others".into(),
            }
            .into());
        }
        let start = Instant::now();
        let features = FeatureSet::generate(data, &self.params.features)?;
        let feature_generation = start.elapsed();
        let pool = self.params.iteration.pool()?;
        let mut job = Job {
            data,
            features: &features,
            iteration: self.params.iteration,
            holdout,
            seed: self.params.seed,
            log: Vec::new(),
            start,
            pool,
        };
        let trained = match &self.params.algorithm {
            Algorithm::Lbfgs(s) => lbfgs::train(s, &mut job, observers),
            Algorithm::L2sgd(s) => l2sgd::train(s, &mut job, observers),
            Algorithm::AveragedPerceptron(s) => ap::train(s, &mut job, observers),
            Algorithm::PassiveAggressive(s) => pa::train(s, &mut job, observers),
            Algorithm::Arow(s) => arow::train(s, &mut job, observers),
        }?;
        let log = job.log;
        let model = Model::new(
            data.attributes().clone(),
            data.labels().clone(),
            features,
            trained.weights,
        )?;
        Ok(FittedCrf {
            model,
            report: trained.report,
            log,
            algorithm: self.params.algorithm.name(),
            feature_generation: Some(feature_generation),
        })
    }
}

/// Positive, finite `f64` check under the parameter's CRFsuite name.
pub(crate) fn positive(name: &'static str, v: f64) -> Result<()> {
    params::positive(name, v).map_err(Into::into)
}

/// Nonnegative, finite `f64` check under the parameter's CRFsuite name.
pub(crate) fn nonnegative(name: &'static str, v: f64) -> Result<()> {
    params::nonnegative(name, v).map_err(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refused reservation of the training log ends the fit with an error naming
    /// `max_iter` (it used to grow with an infallible push, which aborts when memory is
    /// refused); an accepted one keeps the entry.
    #[test]
    fn a_refused_log_entry_is_an_error_naming_max_iter() {
        let entry = |k| IterationLog::new(k, 1.0, (0.0, 0), 0.0, None);
        let mut log = Vec::new();
        keep_entry(&mut log, entry(1), 10, |log| log.try_reserve(1)).unwrap();
        assert_eq!(log.len(), 1);
        let err = keep_entry(&mut log, entry(2), 1_000_000_000_000_000, |_| {
            Vec::<u8>::new().try_reserve(usize::MAX)
        })
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("max_iter") && text.contains("1000000000000000"),
            "{text}"
        );
        assert!(text.contains("iteration 2"), "{text}");
        assert_eq!(log.len(), 1);
    }
}
