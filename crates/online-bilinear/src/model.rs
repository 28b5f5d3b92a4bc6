//! Fitting and the fitted tagger.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use bl_core::engine::{FitReport, IterationParams, Observer, Progress};
use bl_core::metrics::PrecisionRecallF1;
use bl_core::{Fit, Fitted, ParamGuard, TerminationReason};
use serde::{Deserialize, Serialize};

use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};
use crate::features::{EncodedSentence, FeatureDict};
use crate::learner::{
    BuiltIn, LearnerFactory, LearnerShape, OnlineLearner, OnlineWeights, Snapshot,
};
use crate::metrics::TagScheme;
use crate::params::{Learner, TaggerParams};
use crate::scoring::{bilinear_scores, linear_scores, sparse_scores};
use crate::train::{EpochInfo, run_online};

mod crf_file;
mod saved;

use saved::report_from_history;

/// The parameters of a fitted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Weights {
    /// `W = alpha beta^T`: `alpha[k * L + a]`, `beta[k * (L + 1) + b]`.
    Bilinear { alpha: Vec<f64>, beta: Vec<f64> },
    /// Full matrix-feature weights `w[k * L * (L + 1) + a * (L + 1) + b]`.
    Linear { w: Vec<f64> },
    /// Sparse matrix-feature weights ([`crate::sparse`]).
    SparseLinear { w: crate::sparse::SparseWeights },
    /// A CRFsuite model file.
    Crf(crate::crf::CrfWeights),
    /// A CRFsuite model file (the `crfsuite` backend).
    Crfsuite { model: Vec<u8> },
}

impl From<OnlineWeights> for Weights {
    fn from(weights: OnlineWeights) -> Self {
        match weights {
            OnlineWeights::Bilinear { alpha, beta } => Weights::Bilinear { alpha, beta },
            OnlineWeights::Linear { w } => Weights::Linear { w },
            OnlineWeights::SparseLinear { w } => Weights::SparseLinear { w },
        }
    }
}

/// Scores of a corpus from [`FittedTagger::evaluate`]: token accuracy always, and the
/// F1 that fits the model's tag set ([`TagScheme::detect`]): word F1 for BMES
/// segmentation tags, chunk F1 for BIO or BIOES tags, none for other tags (e.g. parts of
/// speech).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evaluation {
    /// Fraction of wrongly tagged tokens.
    pub label_error_rate: f64,
    /// Fraction of rightly tagged tokens (`1 - label_error_rate`).
    pub token_accuracy: f64,
    /// The scheme of the model's tag set, which decides the F1 below.
    pub scheme: TagScheme,
    /// Word precision/recall/F1, when the scheme is [`TagScheme::Bmes`] (segmentation).
    pub segmentation: Option<PrecisionRecallF1>,
    /// Chunk precision/recall/F1 when the scheme is [`TagScheme::Bio`] (conlleval
    /// semantics) or [`TagScheme::Bioes`] (typed spans).
    pub chunks: Option<PrecisionRecallF1>,
}

impl Evaluation {
    /// The task's precision/recall/F1 (words for segmentation, chunks for BIO/BIOES), or
    /// `None` for a tag set without spans.
    pub fn prf(&self) -> Option<PrecisionRecallF1> {
        self.segmentation.or(self.chunks)
    }

    /// The task's F1 as a fraction; NaN (never 0) when the tag set has no spans to score
    /// ([`TagScheme::Plain`]): use [`token_accuracy`](Self::token_accuracy) then.
    pub fn f1(&self) -> f64 {
        self.prf().map_or(f64::NAN, |m| m.f1)
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
    /// a sentence lacks a column a template reads; [`bl_core::BlError::InvalidParameter`]
    /// (in [`OblError::Core`]) naming the sentence, its length and the tag count when a
    /// sentence's score table would be above
    /// [`MAX_SCORE_TABLE`](crate::viterbi::MAX_SCORE_TABLE) entries (more than
    /// [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, or a sentence too long for the tag
    /// count), before training; [`OblError::Learner`] when a custom learner breaks its
    /// contract; CRFsuite failures for the CRF learners.
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
    /// Invalid parameters; a score table above the bound, as for the fit on a
    /// [`Corpus`]; [`OblError::Learner`]; CRFsuite failures.
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
        // Training and the final decoding build one score table per sentence: refuse,
        // before any learner is built, a sentence whose table is above the bound.
        crate::viterbi::score_table_len(1, n_tags)?;
        for (index, enc) in prepared.encoded.iter().enumerate() {
            crate::viterbi::checked_table_len(Some(index), enc.len(), n_tags)?;
        }
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
            let rule = IterationParams::new(1, 0.0);
            model.report = bl_core::engine::run(&rule, observers, |_| {
                let started = Instant::now();
                let (weights, iteration_seconds, optimizer) = crate::crf::fit(
                    self,
                    &prepared.encoded,
                    &prepared.gold,
                    prepared.dict.len(),
                    n_tags,
                )?;
                model.train_seconds = started.elapsed().as_secs_f64();
                model.weights = weights;
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
                if let Some(callback) = on_epoch.as_mut() {
                    callback(&info, &model)?;
                }
                // The one outer step ends the way the optimizer ended: converged (change
                // 0 meets the tolerance 0), solved, out of budget or numerically failed;
                // out of iterations (change 1 against the budget of 1 step) otherwise,
                // and for the CRFsuite backend, which does not tell.
                use bl_core::engine::Stop;
                let (change, stop) = match optimizer {
                    Some(TerminationReason::Converged) => (0.0, None),
                    Some(TerminationReason::Solved) => (1.0, Some(Stop::Solved)),
                    Some(TerminationReason::BudgetExhausted) => (1.0, Some(Stop::BudgetExhausted)),
                    _ => (1.0, None),
                };
                Ok::<_, OblError>(
                    Progress::new(errors as f64 / tokens.max(1) as f64, change)
                        .stop_if(stop)
                        .with("token_errors", errors as f64)
                        .with("tokens", tokens as f64)
                        .with("train_seconds", model.train_seconds)
                        .with("optimizer_iterations", iteration_seconds.len() as f64),
                )
            })?;
            return Ok(model);
        }
        let shape = LearnerShape {
            n_features: prepared.dict.len(),
            n_tags,
            bias_feature: prepared.dict.bias_id().map(|id| id as usize),
        };
        // The whole fit counts as training time (building the learner, the epochs and the
        // final snapshot), except the time spent in the caller's callback.
        let started = Instant::now();
        let mut learner: Box<dyn OnlineLearner> = factory.build(shape, self)?;
        let take = |model: &mut FittedTagger, snapshot: Snapshot| -> Result<()> {
            crate::learner::check_snapshot(&snapshot, shape)?;
            model.weights = snapshot.weights.into();
            model.zero_order = snapshot.zero_order;
            Ok(())
        };
        let mut callback_seconds = 0.0;
        let report = run_online(
            learner.as_mut(),
            self,
            &prepared.encoded,
            &prepared.gold,
            n_tags,
            observers,
            &mut |info, state| match on_epoch.as_mut() {
                Some(callback) => {
                    let at = Instant::now();
                    take(&mut model, state.snapshot())?;
                    model.train_seconds = info.seconds;
                    let result = callback(info, &model);
                    callback_seconds += at.elapsed().as_secs_f64();
                    result
                }
                None => Ok(()),
            },
        )?;
        take(&mut model, learner.into_snapshot())?;
        model.train_seconds = (started.elapsed().as_secs_f64() - callback_seconds).max(0.0);
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

    /// The sparse matrix-feature weights of a structured perceptron (sp).
    pub fn sparse_weights(&self) -> Option<&crate::sparse::SparseWeights> {
        match &self.weights {
            Weights::SparseLinear { w } => Some(w),
            _ => None,
        }
    }

    /// The weights of a CRF fitted by the Rust backend ([`crate::crf::CrfBackend::Rust`]).
    pub fn crf_weights(&self) -> Option<&crate::crf::CrfWeights> {
        match &self.weights {
            Weights::Crf(crf) => Some(crf),
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
        let mut row = Vec::new();
        let mut ws = crate::viterbi::ViterbiWorkspace::default();
        // Every table is checked before any is built (the CRFsuite backend tags the whole
        // batch at once).
        for (index, enc) in encoded.iter().enumerate() {
            crate::viterbi::checked_table_len(Some(index), enc.len(), l)?;
        }
        let mut out = Vec::with_capacity(encoded.len());
        for enc in encoded {
            match &self.weights {
                Weights::Bilinear { alpha, beta } => {
                    bilinear_scores(enc, l, alpha, beta, 1.0, zero, &mut scores)?
                }
                Weights::Linear { w } => linear_scores(enc, l, w, zero, &mut scores)?,
                Weights::SparseLinear { w } => {
                    sparse_scores(enc, l, |k| w.row(k), zero, &mut scores)?
                }
                Weights::Crf(crf) => crf.scores(enc, l, &mut scores, &mut row),
                Weights::Crfsuite { model } => {
                    return crate::crf::tag_crfsuite(model, encoded, l);
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
            crate::viterbi::viterbi_into(&scores, enc.len(), l, &mut ws, &mut path)?;
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
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) naming the sentence
    /// length and the tag count when its score table would have more than
    /// [`MAX_SCORE_TABLE`](crate::viterbi::MAX_SCORE_TABLE) entries (checked before it
    /// is built); [`bl_core::BlError::Numerical`] when the model's weights make a path
    /// score overflow; CRFsuite failures.
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
        let scheme = TagScheme::detect(&self.tags);
        let (segmentation, chunks) = match scheme {
            TagScheme::Bmes => (Some(crate::metrics::segmentation_prf(&gold, &pred)?), None),
            TagScheme::Bio => (None, Some(crate::metrics::chunk_prf(&gold, &pred)?)),
            TagScheme::Bioes => (None, Some(crate::metrics::bioes_prf(&gold, &pred)?)),
            TagScheme::Plain => (None, None),
        };
        Ok(Evaluation {
            label_error_rate,
            token_accuracy: 1.0 - label_error_rate,
            scheme,
            segmentation,
            chunks,
        })
    }
}
