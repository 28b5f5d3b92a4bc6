//! Evaluation of a fitted tagger on a tagged corpus.

use std::collections::HashMap;

use bl_core::Predict;

use super::FittedTagger;
use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::metrics::{Evaluation, TagScheme};

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
        crate::metrics::evaluate_as(TagScheme::detect(&self.tags), &gold, &pred)
    }
}
