//! Fitting and the fitted tagger.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use bl_core::metrics::PrecisionRecallF1;
use serde::{Deserialize, Serialize};

use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};
use crate::features::{EncodedSentence, FeatureDict};
use crate::params::{Learner, TaggerParams};
use crate::scoring::{bilinear_scores, linear_scores};
use crate::train::{EpochInfo, Online, new_online, run_online};

mod crf_file;

/// The parameters of a fitted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Weights {
    /// `W = alpha beta^T`: `alpha[k * L + a]`, `beta[k * (L + 1) + b]`.
    Bilinear { alpha: Vec<f64>, beta: Vec<f64> },
    /// Full matrix-feature weights `w[k * L * (L + 1) + a * (L + 1) + b]`.
    Linear { w: Vec<f64> },
    /// A linear-chain CRF of the Rust backend: dense state and transition weights.
    Crf(crate::crf::CrfWeights),
    /// A CRFsuite model file (the `crfsuite` backend).
    Crfsuite { model: Vec<u8> },
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
#[derive(Debug, Clone)]
pub struct FittedTagger {
    params: TaggerParams,
    dict: Arc<FeatureDict>,
    tags: Vec<String>,
    weights: Weights,
    zero_order: Option<Vec<f64>>,
    history: Vec<EpochInfo>,
    train_seconds: f64,
}

#[derive(Serialize)]
struct SavedRef<'a> {
    format: &'static str,
    params: &'a TaggerParams,
    dict: &'a FeatureDict,
    tags: &'a [String],
    weights: &'a Weights,
    zero_order: &'a Option<Vec<f64>>,
    history: &'a [EpochInfo],
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
    history: Vec<EpochInfo>,
    train_seconds: f64,
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
        self.params.validate().map_err(|e| bad_field("params", e))?;
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
            Weights::Crf(crf) => {
                check_len("weights.Crf.state", &[k, l], "K x L", crf.state.len())?;
                check_len(
                    "weights.Crf.transition",
                    &[l, l],
                    "L x L",
                    crf.transition.len(),
                )?;
                check_finite("weights.Crf.state", &crf.state)?;
                check_finite("weights.Crf.transition", &crf.transition)?;
                bound += crf.position_bound(l);
            }
            Weights::Crfsuite { model } => {
                crf_file::check(model, l).map_err(|e| bad_field("weights.Crfsuite.model", e))?;
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

impl TaggerParams {
    /// Fits a tagger on `corpus` (builds the feature dictionary, then trains).
    ///
    /// # Errors
    /// Invalid parameters; [`OblError::EmptyCorpus`]; [`OblError::TooFewColumns`] when a
    /// sentence lacks a column a template reads; CRFsuite failures for the CRF learners.
    pub fn fit(&self, corpus: &Corpus) -> Result<FittedTagger> {
        self.fit_with_callback(corpus, |_, _| Ok(()))
    }

    /// As [`fit`](Self::fit), calling `on_epoch` after every epoch of an online learner
    /// with the epoch's statistics and a snapshot of the model as it would be returned now
    /// (e.g. to trace the test error per iteration, the paper's Fig. 2). The time spent in
    /// the callback is not counted as training time. The CRF learners call it once, at the
    /// end.
    ///
    /// # Errors
    /// As [`fit`](Self::fit), and any error the callback returns.
    pub fn fit_with_callback(
        &self,
        corpus: &Corpus,
        on_epoch: impl FnMut(&EpochInfo, &FittedTagger) -> Result<()>,
    ) -> Result<FittedTagger> {
        self.validate()?;
        let started = Instant::now();
        let prepared = self.prepare(corpus)?;
        let setup_seconds = started.elapsed().as_secs_f64();
        let mut model = self.fit_prepared_with_callback(&prepared, on_epoch)?;
        model.train_seconds += setup_seconds;
        Ok(model)
    }

    /// Feature extraction alone: builds the feature dictionary of `corpus` with these
    /// parameters' templates and cutoff, and encodes the corpus, so that several learners
    /// can be fitted on the same features ([`fit_prepared`](Self::fit_prepared)).
    ///
    /// # Errors
    /// [`OblError::EmptyCorpus`]; [`OblError::TooFewColumns`]; invalid `cutoff`.
    pub fn prepare(&self, corpus: &Corpus) -> Result<PreparedCorpus> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::EmptyCorpus { what: "training" });
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

    /// Fits on prepared features. The parameters' templates and cutoff are not read again:
    /// the prepared dictionary is used as it is. `train_seconds` of the result excludes
    /// feature extraction.
    ///
    /// # Errors
    /// Invalid parameters; CRFsuite failures.
    pub fn fit_prepared(&self, prepared: &PreparedCorpus) -> Result<FittedTagger> {
        self.fit_prepared_with_callback(prepared, |_, _| Ok(()))
    }

    /// [`fit_prepared`](Self::fit_prepared) with the per-epoch callback of
    /// [`fit_with_callback`](Self::fit_with_callback).
    ///
    /// # Errors
    /// As [`fit_prepared`](Self::fit_prepared), and any error the callback returns.
    pub fn fit_prepared_with_callback(
        &self,
        prepared: &PreparedCorpus,
        mut on_epoch: impl FnMut(&EpochInfo, &FittedTagger) -> Result<()>,
    ) -> Result<FittedTagger> {
        self.validate()?;
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
            history: Vec::new(),
            train_seconds: 0.0,
        };
        if !self.learner.is_online() {
            let started = Instant::now();
            let (weights, seconds) = crate::crf::fit(
                self,
                &prepared.encoded,
                &prepared.gold,
                prepared.dict.len(),
                n_tags,
            )?;
            model.weights = weights;
            model.train_seconds = started.elapsed().as_secs_f64();
            // One entry per optimizer iteration (CRFsuite: one in all).
            model.history = seconds
                .iter()
                .enumerate()
                .map(|(i, &seconds)| EpochInfo {
                    epoch: i + 1,
                    mistakes: 0,
                    token_errors: 0,
                    tokens: prepared.n_tokens(),
                    seconds,
                })
                .collect();
            if let Some(info) = model.history.last().copied() {
                on_epoch(&info, &model)?;
            }
            return Ok(model);
        }
        let mut learner: Box<dyn Online> = new_online(prepared.dict.len(), n_tags, self)?;
        let history = run_online(
            learner.as_mut(),
            self,
            &prepared.encoded,
            &prepared.gold,
            n_tags,
            |info, state| {
                let (weights, zero) = state.snapshot();
                model.weights = weights;
                model.zero_order = zero;
                model.train_seconds = info.seconds;
                model.history.push(*info);
                on_epoch(info, &model)
            },
        )?;
        model.history = history;
        Ok(model)
    }
}

/// A training corpus after feature extraction: the dictionary, the tag set, the encoded
/// sentences and their gold tag indices ([`TaggerParams::prepare`]).
#[derive(Debug, Clone)]
pub struct PreparedCorpus {
    dict: Arc<FeatureDict>,
    tags: Vec<String>,
    encoded: Vec<EncodedSentence>,
    gold: Vec<Vec<usize>>,
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

    /// Per-epoch training statistics; for the CRF learners one entry per optimizer
    /// iteration, with the training time so far (the CRFsuite backend: one entry).
    pub fn history(&self) -> &[EpochInfo] {
        &self.history
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
        let mut out = Vec::with_capacity(encoded.len());
        for enc in encoded {
            match &self.weights {
                Weights::Bilinear { alpha, beta } => {
                    bilinear_scores(enc, l, alpha, beta, 1.0, zero, &mut scores)
                }
                Weights::Linear { w } => linear_scores(enc, l, w, zero, &mut scores),
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
    /// [`OblError::EmptyCorpus`]; [`OblError::UnknownTag`] for a gold tag outside the
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
    /// [`OblError::EmptyCorpus`]; the errors of [`predict_corpus`](Self::predict_corpus).
    pub fn evaluate_lenient(&self, corpus: &Corpus) -> Result<Evaluation> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::EmptyCorpus { what: "test" });
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
            history: &self.history,
            train_seconds: self.train_seconds,
        })
        .map_err(|e| OblError::Serde(e.to_string()))
    }

    /// A model from the JSON text of [`to_json`](Self::to_json), checked before use: the
    /// format tag; valid parameters; at least one tag, no two equal; feature ids exactly
    /// `0..K`; weights of the sizes the feature count `K` and tag count `L` give (`alpha`
    /// `K L`, `beta` `K (L + 1)`, `w` `K L (L + 1)`, `zero_order` `K L`), finite and with
    /// a finite bound on the score of one position; for a CRF model, state weights `K L` and
    /// transitions `L L`, finite, or (CRFsuite backend) CRFsuite bytes whose
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
        Ok(Self {
            params: saved.params,
            dict: Arc::new(saved.dict),
            tags: saved.tags,
            weights: saved.weights,
            zero_order: saved.zero_order,
            history: saved.history,
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
