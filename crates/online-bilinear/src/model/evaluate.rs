//! Evaluation of a fitted tagger on a tagged corpus.

use std::collections::HashMap;

use bl_core::Predict;
use bl_core::metrics::PrecisionRecallF1;
use serde::Serialize;

use super::FittedTagger;
use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::metrics::TagScheme;

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

/// The index in `tags` of every gold tag of `corpus`.
pub(crate) fn tag_indices(corpus: &Corpus, tags: &[String]) -> Result<Vec<Vec<usize>>> {
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

impl FittedTagger {
    /// Label error rate and the task's precision/recall/F1 on a tagged corpus.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; [`OblError::UnknownTag`] for a gold tag outside the
    /// model's tag set (see [`evaluate_lenient`](Self::evaluate_lenient)); the errors of
    /// the prediction of a corpus ([`bl_core::PredictInplace`]).
    pub fn evaluate(&self, corpus: &Corpus) -> Result<Evaluation> {
        tag_indices(corpus, &self.tags)?;
        self.evaluate_lenient(corpus)
    }

    /// As [`evaluate`](Self::evaluate), but a gold tag the model has never seen (e.g. a
    /// rare chunk type absent from a small training set) is scored as it is: its token
    /// counts as a label error and its chunk as missed.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; the errors of the prediction of a corpus ([`bl_core::PredictInplace`]).
    pub fn evaluate_lenient(&self, corpus: &Corpus) -> Result<Evaluation> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "test corpus",
            }));
        }
        let pred: Vec<Vec<String>> = self.predict(corpus)?;
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
