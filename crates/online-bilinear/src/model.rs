//! Fitting and the fitted tagger.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use bl_core::engine::TerminationReason;
use bl_core::engine::{FitReport, Observer, Progress, StoppingRule, Trace, TraceRecord};
use bl_core::metrics::PrecisionRecallF1;
use bl_core::{Fit, Fitted, ParamGuard};
use serde::{Deserialize, Serialize};

use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};
use crate::features::{EncodedSentence, FeatureDict};
use crate::learner::{
    BuiltIn, LearnerFactory, LearnerShape, OnlineLearner, OnlineWeights, Snapshot,
};
use crate::params::{Learner, TaggerParams};
use crate::scoring::{bilinear_scores, linear_scores};
use crate::train::{EpochInfo, run_online};

mod crf_file;

/// The parameters of a fitted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Weights {
    /// `W = alpha beta^T`: `alpha[k * L + a]`, `beta[k * (L + 1) + b]`.
    Bilinear { alpha: Vec<f64>, beta: Vec<f64> },
    /// Full matrix-feature weights `w[k * L * (L + 1) + a * (L + 1) + b]`.
    Linear { w: Vec<f64> },
    /// A CRFsuite model file.
    Crf { model: Vec<u8> },
}

impl From<OnlineWeights> for Weights {
    fn from(weights: OnlineWeights) -> Self {
        match weights {
            OnlineWeights::Bilinear { alpha, beta } => Weights::Bilinear { alpha, beta },
            OnlineWeights::Linear { w } => Weights::Linear { w },
        }
    }
}

/// Scores of a corpus from [`FittedTagger::evaluate`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evaluation {
    /// Fraction of wrongly tagged tokens.
    pub label_error_rate: f64,
    /// Word precision/recall/F1, when the tag set is `b/m/e/s` (segmentation).
    pub segmentation: Option<PrecisionRecallF1>,
    /// Chunk precision/recall/F1 with conlleval semantics, for any other tag set.
    pub chunks: Option<PrecisionRecallF1>,
}

impl Evaluation {
    /// The task's F1 (words for segmentation, chunks otherwise), as a fraction.
    pub fn f1(&self) -> f64 {
        self.segmentation.or(self.chunks).map_or(f64::NAN, |m| m.f1)
    }
}

/// A fitted sequence tagger: the feature dictionary, the tag set and the learned weights.
///
/// Its [`report`](Fitted::report) has one iteration per epoch of an online learner (trace
/// objective: the epoch's online token error rate; extras `mistakes`, `token_errors`,
/// `tokens`, `train_seconds`), and one iteration for a CRF (objective: the trained CRF's
/// token error rate on the training data).
#[derive(Debug, Clone)]
pub struct FittedTagger {
    params: TaggerParams,
    dict: Arc<FeatureDict>,
    tags: Vec<String>,
    weights: Weights,
    zero_order: Option<Vec<f64>>,
    report: FitReport,
    train_seconds: f64,
}

impl Fitted for FittedTagger {
    fn report(&self) -> &FitReport {
        &self.report
    }
}

#[derive(Serialize)]
struct SavedRef<'a> {
    format: &'static str,
    params: &'a TaggerParams,
    dict: &'a FeatureDict,
    tags: &'a [String],
    weights: &'a Weights,
    zero_order: &'a Option<Vec<f64>>,
    report: &'a FitReport,
    train_seconds: f64,
}

#[derive(Deserialize)]
struct Saved {
    format: String,
    params: TaggerParams,
    dict: FeatureDict,
    tags: Vec<String>,
    weights: Weights,
    zero_order: Option<Vec<f64>>,
    /// The run's report (models saved before reports existed have `history` instead).
    #[serde(default)]
    report: Option<FitReport>,
    /// Per-epoch statistics of models saved before `report`.
    #[serde(default)]
    history: Vec<EpochInfo>,
    train_seconds: f64,
}

/// The report of a model saved with per-epoch `history` only: one iteration per epoch, the
/// objective the epoch's online token error rate, the end reason the epoch budget.
fn report_from_history(history: &[EpochInfo]) -> FitReport {
    let mut trace = Trace::default();
    for info in history {
        trace.push(TraceRecord {
            iteration: info.epoch,
            objective: info.token_errors as f64 / info.tokens.max(1) as f64,
            change: f64::NAN,
            elapsed_s: info.seconds,
            extras: vec![
                ("mistakes".into(), info.mistakes as f64),
                ("token_errors".into(), info.token_errors as f64),
                ("tokens".into(), info.tokens as f64),
                ("train_seconds".into(), info.seconds),
            ],
        });
    }
    FitReport {
        iterations: history.len(),
        termination: TerminationReason::MaxIterations,
        objective: trace.objectives().last().copied().unwrap_or(f64::NAN),
        elapsed: std::time::Duration::try_from_secs_f64(history.last().map_or(0.0, |h| h.seconds))
            .unwrap_or_default(),
        trace,
    }
}

const FORMAT: &str = "online-bilinear/1";

/// ``field `NAME`: DETAIL`` as a load error.
fn bad_field(field: &str, detail: impl std::fmt::Display) -> OblError {
    OblError::Serde(format!("field `{field}`: {detail}"))
}

/// `found == expected` values, where `expected` is the product `dims` described by `what`.
fn check_len(field: &str, dims: &[usize], what: &str, found: usize) -> Result<()> {
    let expected = dims
        .iter()
        .try_fold(1_usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| bad_field(field, format!("the size {what} = {dims:?} overflows")))?;
    if found != expected {
        return Err(bad_field(
            field,
            format!("expected {expected} values ({what} = {dims:?}), found {found}"),
        ));
    }
    Ok(())
}

/// Every value finite.
fn check_finite(field: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(bad_field(
            field,
            format!("expected finite values, found {} at index {i}", values[i]),
        )),
        None => Ok(()),
    }
}

/// `max_j |x_j|` of each row of `width` values.
fn row_max_abs(x: &[f64], width: usize) -> impl Iterator<Item = f64> + '_ {
    x.chunks_exact(width.max(1))
        .map(|row| row.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
}

impl Saved {
    /// The checks of [`FittedTagger::from_json`] (after the format tag).
    fn validate(&self) -> Result<()> {
        self.params
            .check_values()
            .map_err(|e| bad_field("params", e))?;
        for info in &self.history {
            if !(info.seconds.is_finite() && info.seconds >= 0.0) {
                return Err(bad_field(
                    "history",
                    format!("expected finite times >= 0, found {}", info.seconds),
                ));
            }
        }
        let (k, l) = (self.dict.len(), self.tags.len());
        if l == 0 {
            return Err(bad_field("tags", "expected at least one tag, found none"));
        }
        for (i, tag) in self.tags.iter().enumerate() {
            if self.tags[..i].contains(tag) {
                return Err(bad_field("tags", format!("tag `{tag}` appears twice")));
            }
        }
        if !self.dict.ids_are_dense() {
            return Err(bad_field(
                "dict",
                format!("expected feature ids 0..{k} (each once), found others"),
            ));
        }
        let p = l + 1;
        // Bound on |score| of one position: sum over features of the largest weight
        // product a feature contributes (every feature is active at most once).
        let mut bound = 0.0;
        match &self.weights {
            Weights::Bilinear { alpha, beta } => {
                check_len("weights.Bilinear.alpha", &[k, l], "K x L", alpha.len())?;
                check_len("weights.Bilinear.beta", &[k, p], "K x (L + 1)", beta.len())?;
                check_finite("weights.Bilinear.alpha", alpha)?;
                check_finite("weights.Bilinear.beta", beta)?;
                bound += row_max_abs(alpha, l)
                    .zip(row_max_abs(beta, p))
                    .map(|(a, b)| a * b)
                    .sum::<f64>();
            }
            Weights::Linear { w } => {
                check_len("weights.Linear.w", &[k, l, p], "K x L x (L + 1)", w.len())?;
                check_finite("weights.Linear.w", w)?;
                bound += row_max_abs(w, l * p).sum::<f64>();
            }
            Weights::Crf { model } => {
                crf_file::check(model, l).map_err(|e| bad_field("weights.Crf.model", e))?;
            }
        }
        if let Some(z) = &self.zero_order {
            check_len("zero_order", &[k, l], "K x L", z.len())?;
            check_finite("zero_order", z)?;
            bound += row_max_abs(z, l).sum::<f64>();
        }
        if !bound.is_finite() {
            return Err(bad_field(
                "weights",
                "expected weights whose score of one position is finite, found weights \
                 whose bound on it overflows f64",
            ));
        }
        if !(self.train_seconds.is_finite() && self.train_seconds >= 0.0) {
            return Err(bad_field(
                "train_seconds",
                format!("expected a finite value >= 0, found {}", self.train_seconds),
            ));
        }
        Ok(())
    }
}

fn tag_indices(corpus: &Corpus, tags: &[String]) -> Result<Vec<Vec<usize>>> {
    let index: HashMap<&str, usize> = tags
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    corpus
        .sentences()
        .iter()
        .enumerate()
        .map(|(si, s)| {
            s.tags()
                .iter()
                .enumerate()
                .map(|(ti, t)| {
                    index
                        .get(t.as_str())
                        .copied()
                        .ok_or_else(|| OblError::UnknownTag {
                            sentence: si,
                            token: ti,
                            tag: t.clone(),
                            known: tags.to_vec(),
                        })
                })
                .collect()
        })
        .collect()
}

/// The snapshot callback of [`TaggerParams::fit_with_snapshots`].
type SnapshotCallback<'a> = dyn FnMut(&EpochInfo, &FittedTagger) -> Result<()> + 'a;

impl Fit<Corpus> for TaggerParams {
    type Fitted = FittedTagger;
    type Error = OblError;

    /// Checks the parameters, builds the feature dictionary of `corpus`, then trains,
    /// showing every epoch to `observers`. `train_seconds` of the result includes feature
    /// extraction.
    ///
    /// # Errors
    /// Invalid parameters; [`bl_core::BlError::Empty`]; [`OblError::TooFewColumns`] when
    /// a sentence lacks a column a template reads; [`OblError::Learner`] when a custom
    /// learner breaks its contract; CRFsuite failures for the CRF learners.
    fn fit_observed(
        &self,
        corpus: &Corpus,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedTagger> {
        self.check()?;
        let started = Instant::now();
        let prepared = self.prepare(corpus)?;
        let setup_seconds = started.elapsed().as_secs_f64();
        let mut model = self.fit_checked(&prepared, observers, None)?;
        model.train_seconds += setup_seconds;
        Ok(model)
    }
}

impl Fit<PreparedCorpus> for TaggerParams {
    type Fitted = FittedTagger;
    type Error = OblError;

    /// Fits on prepared features ([`TaggerParams::prepare`]), so that several learners
    /// can be fitted on the same features. The parameters' templates and cutoff are not
    /// read again: the prepared dictionary is used as it is. `train_seconds` of the result
    /// excludes feature extraction.
    ///
    /// # Errors
    /// Invalid parameters; [`OblError::Learner`]; CRFsuite failures.
    fn fit_observed(
        &self,
        prepared: &PreparedCorpus,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedTagger> {
        self.check()?;
        self.fit_checked(prepared, observers, None)
    }
}

impl TaggerParams {
    /// Feature extraction alone: builds the feature dictionary of `corpus` with these
    /// parameters' templates and cutoff, and encodes the corpus, so that several learners
    /// can be fitted on the same features (`Fit<PreparedCorpus>`).
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; [`OblError::TooFewColumns`]; invalid `cutoff`.
    pub fn prepare(&self, corpus: &Corpus) -> Result<PreparedCorpus> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "training corpus",
            }));
        }
        let dict = Arc::new(FeatureDict::build(corpus, &self.templates, self.cutoff)?);
        let tags = corpus.tag_set();
        let gold = tag_indices(corpus, &tags)?;
        let encoded = dict.encode_corpus(corpus)?;
        Ok(PreparedCorpus {
            dict,
            tags,
            encoded,
            gold,
        })
    }

    /// As the fit on a [`PreparedCorpus`], and after every epoch of an online learner
    /// calls `on_epoch` with the epoch's statistics and the model as it would be returned
    /// now (e.g. to trace the test error per epoch, the paper's Fig. 2). The time spent in
    /// the callback is not counted as training time. The CRF learners call it once, at the
    /// end.
    ///
    /// # Errors
    /// As the fit, and any error the callback returns.
    pub fn fit_with_snapshots(
        &self,
        prepared: &PreparedCorpus,
        observers: &mut [&mut dyn Observer],
        mut on_epoch: impl FnMut(&EpochInfo, &FittedTagger) -> Result<()>,
    ) -> Result<FittedTagger> {
        self.check()?;
        self.fit_checked(prepared, observers, Some(&mut on_epoch))
    }

    /// The fit after the parameter check, with the learner the parameters name.
    fn fit_checked(
        &self,
        prepared: &PreparedCorpus,
        observers: &mut [&mut dyn Observer],
        on_epoch: Option<&mut SnapshotCallback<'_>>,
    ) -> Result<FittedTagger> {
        match &self.custom {
            Some(custom) => self.fit_with_factory(prepared, &*custom.0, observers, on_epoch),
            None => self.fit_with_factory(prepared, &BuiltIn, observers, on_epoch),
        }
    }

    /// The fit after the parameter check; an online learner is built by `factory`.
    pub(crate) fn fit_with_factory(
        &self,
        prepared: &PreparedCorpus,
        factory: &dyn LearnerFactory,
        observers: &mut [&mut dyn Observer],
        mut on_epoch: Option<&mut SnapshotCallback<'_>>,
    ) -> Result<FittedTagger> {
        let n_tags = prepared.tags.len();
        let mut params = self.clone();
        params.templates = prepared.dict.templates().clone();
        params.cutoff = prepared.dict.cutoff();
        let mut model = FittedTagger {
            params,
            dict: Arc::clone(&prepared.dict),
            tags: prepared.tags.clone(),
            weights: Weights::Linear { w: Vec::new() },
            zero_order: None,
            report: report_from_history(&[]),
            train_seconds: 0.0,
        };
        if !self.learner.is_online() {
            let rule = StoppingRule::new(1, 0.0);
            model.report = bl_core::engine::run(&rule, observers, |_| {
                let started = Instant::now();
                let bytes = crate::crf::train(self, &prepared.encoded, &prepared.gold)?;
                model.train_seconds = started.elapsed().as_secs_f64();
                let paths = crate::crf::tag(&bytes, &prepared.encoded, n_tags)?;
                model.weights = Weights::Crf { model: bytes };
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
                if let Some(callback) = on_epoch.as_mut() {
                    callback(&info, &model)?;
                }
                Ok::<_, OblError>(
                    Progress::new(errors as f64 / tokens.max(1) as f64, 1.0)
                        .with("token_errors", errors as f64)
                        .with("tokens", tokens as f64)
                        .with("train_seconds", model.train_seconds),
                )
            })?;
            return Ok(model);
        }
        let shape = LearnerShape {
            n_features: prepared.dict.len(),
            n_tags,
        };
        let mut learner: Box<dyn OnlineLearner> = factory.build(shape, self)?;
        let take = |model: &mut FittedTagger, snapshot: Snapshot| -> Result<()> {
            crate::learner::check_snapshot(&snapshot, shape)?;
            model.weights = snapshot.weights.into();
            model.zero_order = snapshot.zero_order;
            Ok(())
        };
        let mut train_seconds = 0.0;
        let report = run_online(
            learner.as_mut(),
            self,
            &prepared.encoded,
            &prepared.gold,
            n_tags,
            observers,
            &mut |info, state| {
                train_seconds = info.seconds;
                match on_epoch.as_mut() {
                    Some(callback) => {
                        take(&mut model, state.snapshot())?;
                        model.train_seconds = info.seconds;
                        callback(info, &model)
                    }
                    None => Ok(()),
                }
            },
        )?;
        take(&mut model, learner.snapshot())?;
        model.train_seconds = train_seconds;
        model.report = report;
        Ok(model)
    }
}

/// A training corpus after feature extraction: the dictionary, the tag set, the encoded
/// sentences and their gold tag indices ([`TaggerParams::prepare`]).
#[derive(Debug, Clone)]
pub struct PreparedCorpus {
    dict: Arc<FeatureDict>,
    tags: Vec<String>,
    pub(crate) encoded: Vec<EncodedSentence>,
    pub(crate) gold: Vec<Vec<usize>>,
}

impl PreparedCorpus {
    /// The feature dictionary.
    pub fn features(&self) -> &FeatureDict {
        &self.dict
    }

    /// The tag set (order of first appearance).
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Number of sentences.
    pub fn len(&self) -> usize {
        self.encoded.len()
    }

    /// Whether there is no sentence.
    pub fn is_empty(&self) -> bool {
        self.encoded.is_empty()
    }

    /// Number of tokens.
    pub fn n_tokens(&self) -> usize {
        self.gold.iter().map(Vec::len).sum()
    }

    /// The first `n` sentences (all when `n >= len`), with the same dictionary and tags.
    pub fn head(&self, n: usize) -> PreparedCorpus {
        let n = n.min(self.len());
        PreparedCorpus {
            dict: Arc::clone(&self.dict),
            tags: self.tags.clone(),
            encoded: self.encoded[..n].to_vec(),
            gold: self.gold[..n].to_vec(),
        }
    }
}

impl FittedTagger {
    /// The parameters the model was fitted with.
    pub fn params(&self) -> &TaggerParams {
        &self.params
    }

    /// The learner that fitted the model.
    pub fn learner(&self) -> Learner {
        self.params.learner
    }

    /// The tag set, in the order of the weights' tag indices.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The feature dictionary.
    pub fn features(&self) -> &FeatureDict {
        &self.dict
    }

    /// Number of features `K`.
    pub fn n_features(&self) -> usize {
        self.dict.len()
    }

    /// `alpha` (`K x L`, row-major) of a bilinear model (bol, bcd).
    pub fn alpha(&self) -> Option<&[f64]> {
        match &self.weights {
            Weights::Bilinear { alpha, .. } => Some(alpha),
            _ => None,
        }
    }

    /// `beta` (`K x (L + 1)`, row-major, the last column is the start state) of a bilinear
    /// model.
    pub fn beta(&self) -> Option<&[f64]> {
        match &self.weights {
            Weights::Bilinear { beta, .. } => Some(beta),
            _ => None,
        }
    }

    /// The 0-order weights (`K x L`), when the extension is on.
    pub fn zero_order_weights(&self) -> Option<&[f64]> {
        self.zero_order.as_deref()
    }

    /// Training time in seconds (feature extraction included, callbacks excluded).
    pub fn train_seconds(&self) -> f64 {
        self.train_seconds
    }

    fn decode(&self, encoded: &[EncodedSentence]) -> Result<Vec<Vec<usize>>> {
        let l = self.tags.len();
        let zero = self.zero_order.as_deref();
        let mut scores = Vec::new();
        let mut ws = crate::viterbi::ViterbiWorkspace::default();
        let mut out = Vec::with_capacity(encoded.len());
        for enc in encoded {
            match &self.weights {
                Weights::Bilinear { alpha, beta } => {
                    bilinear_scores(enc, l, alpha, beta, 1.0, zero, &mut scores)
                }
                Weights::Linear { w } => linear_scores(enc, l, w, zero, &mut scores),
                Weights::Crf { model } => {
                    return crate::crf::tag(model, encoded, l);
                }
            }
            // Every path score is a sum of one score per position, so this sum of the
            // largest magnitudes bounds them all: finite means Viterbi cannot overflow.
            let per_position = (l + 1) * l;
            let total: f64 = scores
                .chunks(per_position.max(1))
                .map(|row| row.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
                .sum();
            if !total.is_finite() {
                return Err(OblError::Core(bl_core::BlError::Numerical {
                    context: "FittedTagger::predict",
                    message: format!(
                        "the path scores of sentence {} overflow f64: the model's weights \
                         are too large",
                        out.len()
                    ),
                }));
            }
            let mut path = vec![0; enc.len()];
            crate::viterbi::viterbi_into(&scores, enc.len(), l, &mut ws, &mut path);
            out.push(path);
        }
        Ok(out)
    }

    fn names(&self, paths: Vec<Vec<usize>>) -> Vec<Vec<String>> {
        paths
            .into_iter()
            .map(|p| p.into_iter().map(|t| self.tags[t].clone()).collect())
            .collect()
    }

    /// The predicted tags of one sentence (its gold tags, if any, are ignored).
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] when the sentence lacks a column the templates read;
    /// CRFsuite failures.
    pub fn predict(&self, sentence: &Sentence) -> Result<Vec<String>> {
        let enc = self.dict.encode(sentence)?;
        let paths = self.decode(std::slice::from_ref(&enc))?;
        Ok(self.names(paths).pop().unwrap_or_default())
    }

    /// The predicted tags of every sentence of a corpus.
    ///
    /// # Errors
    /// As [`predict`](Self::predict), with the sentence index.
    pub fn predict_corpus(&self, corpus: &Corpus) -> Result<Vec<Vec<String>>> {
        let encoded = self.dict.encode_corpus(corpus)?;
        Ok(self.names(self.decode(&encoded)?))
    }

    /// Label error rate and the task's precision/recall/F1 on a tagged corpus.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; [`OblError::UnknownTag`] for a gold tag outside the
    /// model's tag set (see [`evaluate_lenient`](Self::evaluate_lenient)); the errors of
    /// [`predict_corpus`](Self::predict_corpus).
    pub fn evaluate(&self, corpus: &Corpus) -> Result<Evaluation> {
        tag_indices(corpus, &self.tags)?;
        self.evaluate_lenient(corpus)
    }

    /// As [`evaluate`](Self::evaluate), but a gold tag the model has never seen (e.g. a
    /// rare chunk type absent from a small training set) is scored as it is: its token
    /// counts as a label error and its chunk as missed.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; the errors of [`predict_corpus`](Self::predict_corpus).
    pub fn evaluate_lenient(&self, corpus: &Corpus) -> Result<Evaluation> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "test corpus",
            }));
        }
        let pred = self.predict_corpus(corpus)?;
        let gold: Vec<Vec<String>> = corpus
            .sentences()
            .iter()
            .map(|s| s.tags().to_vec())
            .collect();
        let label_error_rate = crate::metrics::label_error_rate(&gold, &pred)?;
        let is_segmentation = self
            .tags
            .iter()
            .all(|t| matches!(t.as_str(), "b" | "m" | "e" | "s"));
        let (segmentation, chunks) = if is_segmentation {
            (Some(crate::metrics::segmentation_prf(&gold, &pred)?), None)
        } else {
            (None, Some(crate::metrics::chunk_prf(&gold, &pred)?))
        };
        Ok(Evaluation {
            label_error_rate,
            segmentation,
            chunks,
        })
    }

    /// The model as JSON text.
    ///
    /// # Errors
    /// [`OblError::Serde`] if encoding fails.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(&SavedRef {
            format: FORMAT,
            params: &self.params,
            dict: &self.dict,
            tags: &self.tags,
            weights: &self.weights,
            zero_order: &self.zero_order,
            report: &self.report,
            train_seconds: self.train_seconds,
        })
        .map_err(|e| OblError::Serde(e.to_string()))
    }

    /// A model from the JSON text of [`to_json`](Self::to_json), checked before use: the
    /// format tag; valid parameters; at least one tag, no two equal; feature ids exactly
    /// `0..K`; weights of the sizes the feature count `K` and tag count `L` give (`alpha`
    /// `K L`, `beta` `K (L + 1)`, `w` `K L (L + 1)`, `zero_order` `K L`), finite and with
    /// a finite bound on the score of one position; for a CRF model, CRFsuite bytes whose
    /// every size, offset and index the tagger reads stays inside them (header, feature
    /// table, reference lists, string databases) and whose label count is `L`; a finite,
    /// non-negative training time.
    ///
    /// # Errors
    /// [`OblError::Serde`] for malformed text, another format, or a check above failing;
    /// the message names the field (e.g. ``field `alpha`: expected 480 values (K x L =
    /// 120 x 4), found 481``).
    pub fn from_json(text: &str) -> Result<Self> {
        let saved: Saved =
            serde_json::from_str(text).map_err(|e| OblError::Serde(e.to_string()))?;
        if saved.format != FORMAT {
            return Err(OblError::Serde(format!(
                "format `{}`, expected `{FORMAT}`",
                saved.format
            )));
        }
        saved.validate()?;
        let report = match saved.report {
            Some(report) => report,
            None => report_from_history(&saved.history),
        };
        Ok(Self {
            report,
            params: saved.params,
            dict: Arc::new(saved.dict),
            tags: saved.tags,
            weights: saved.weights,
            zero_order: saved.zero_order,
            train_seconds: saved.train_seconds,
        })
    }

    /// Saves the model as JSON.
    ///
    /// # Errors
    /// [`OblError::Io`], [`OblError::Serde`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_json()?).map_err(|source| OblError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Loads a model saved by [`save`](Self::save).
    ///
    /// # Errors
    /// [`OblError::Io`], [`OblError::Serde`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| OblError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text)
    }
}
