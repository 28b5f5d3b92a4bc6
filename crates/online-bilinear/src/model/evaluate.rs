//! Evaluation of a fitted tagger on a tagged corpus.

use std::collections::HashMap;

use bl_core::Predict;

use super::FittedTagger;
use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::metrics::{Evaluation, SentenceCounts, TagScheme};

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

/// The tags of a corpus, sentence by sentence.
type Tags = Vec<Vec<String>>;

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
        let (gold, pred) = self.gold_and_predicted(corpus)?;
        crate::metrics::evaluate_as(TagScheme::detect(&self.tags), &gold, &pred)
    }

    /// The counts behind [`evaluate_lenient`](Self::evaluate_lenient)'s scores, one
    /// [`SentenceCounts`] per sentence of `corpus`, in order (tokens, label errors, and
    /// the correct, predicted and gold words or chunks of the task's F1), scored as
    /// `evaluate_lenient` scores them: their sum's
    /// [`label_error_rate`](SentenceCounts::label_error_rate) and [`prf`](SentenceCounts::prf)
    /// are exactly its label error rate and F1. For resampling the test sentences (e.g.
    /// a bootstrap over them) without predicting again.
    ///
    /// # Errors
    /// As [`evaluate_lenient`](Self::evaluate_lenient).
    pub fn sentence_counts(&self, corpus: &Corpus) -> Result<Vec<SentenceCounts>> {
        let (gold, pred) = self.gold_and_predicted(corpus)?;
        crate::metrics::sentence_counts_as(TagScheme::detect(&self.tags), &gold, &pred)
    }

    /// The gold tags of a non-empty `corpus` and the model's predicted ones, sentence by
    /// sentence: what [`evaluate_lenient`](Self::evaluate_lenient) and
    /// [`sentence_counts`](Self::sentence_counts) score.
    fn gold_and_predicted(&self, corpus: &Corpus) -> Result<(Tags, Tags)> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "test corpus",
            }));
        }
        let pred: Tags = self.predict(corpus)?;
        let gold: Tags = corpus
            .sentences()
            .iter()
            .map(|s| s.tags().to_vec())
            .collect();
        Ok((gold, pred))
    }
}

#[cfg(test)]
mod tests {
    use crate::data::Corpus;
    use crate::metrics::{SentenceCounts, TagScheme};
    use crate::{Fit as _, ParamGuard as _, TaggerParams, synthetic};

    #[test]
    fn sentence_counts_sum_to_the_corpus_scores() {
        // Word F1 (BMES) and chunk F1 (conlleval, BIO): the per-sentence counts of a fitted
        // model, summed, give evaluate_lenient's label error rate and F1 to the last bit.
        // Two epochs leave errors, so the counts are not trivially all right.
        let lexicon = synthetic::lexicon(200, 3).unwrap();
        let (train, test) = lexicon.split_every(5).unwrap();
        // The same words as chunks, BIO: a word of several characters is a chunk NP, a
        // one-character word is outside (O).
        let bio = |c: &Corpus| {
            Corpus::new(
                c.sentences()
                    .iter()
                    .map(|s| {
                        let tags = s
                            .tags()
                            .iter()
                            .map(|t| match t.as_str() {
                                "b" => "B-NP",
                                "s" => "O",
                                _ => "I-NP",
                            })
                            .map(String::from)
                            .collect();
                        s.with_tags(tags).unwrap()
                    })
                    .collect(),
            )
        };
        let (ctrain, ctest) = (bio(&train), bio(&test));
        for (train, test, scheme) in [
            (&train, &test, TagScheme::Bmes),
            (&ctrain, &ctest, TagScheme::Bio),
        ] {
            let params = TaggerParams::bol().max_iter(2).check().unwrap();
            let model = params.fit(&params.prepare(train).unwrap()).unwrap();
            let e = model.evaluate_lenient(test).unwrap();
            assert_eq!(e.scheme, scheme);
            let counts = model.sentence_counts(test).unwrap();
            assert_eq!(counts.len(), test.len());
            let total: SentenceCounts = counts.iter().copied().sum();
            assert_eq!(total.tokens, test.n_tokens());
            assert!(total.errors > 0 && total.errors < total.tokens, "{total:?}");
            assert_eq!(
                total.label_error_rate().to_bits(),
                e.label_error_rate.to_bits()
            );
            let prf = e.prf().unwrap();
            assert_eq!(total.prf(), prf);
            assert_eq!(
                (total.true_positives, total.predicted, total.gold),
                (
                    prf.true_positives,
                    prf.true_positives + prf.false_positives,
                    prf.true_positives + prf.false_negatives
                )
            );
            assert!(
                counts
                    .iter()
                    .all(|c| c.true_positives <= c.predicted.min(c.gold))
            );
        }
    }
}
