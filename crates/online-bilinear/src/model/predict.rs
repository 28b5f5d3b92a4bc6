//! Prediction: [`bl_core::PredictInplace`] for a sentence (its tag sequence) and for a
//! corpus (one tag sequence per sentence).

use bl_core::PredictInplace;
use bl_core::error::ensure_len;

use super::FittedTagger;
use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};

/// Writes the tag names of `paths` into `targets`, which must have their shapes.
fn write_names(tags: &[String], paths: &[Vec<usize>], targets: &mut [Vec<String>]) -> Result<()> {
    ensure_len(
        "predict: tag sequences per sentence",
        paths.len(),
        targets.len(),
    )?;
    for (path, out) in paths.iter().zip(targets.iter_mut()) {
        ensure_len("predict: tags of a sentence", path.len(), out.len())?;
        for (&t, name) in path.iter().zip(out.iter_mut()) {
            name.clone_from(&tags[t]);
        }
    }
    Ok(())
}

/// The tags of one sentence (its gold tags, if any, are ignored).
///
/// # Errors
/// [`OblError::TooFewColumns`] when the sentence lacks a column the templates read;
/// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) naming the sentence
/// length and the tag count when its score table would have more than
/// [`MAX_SCORE_TABLE`](crate::viterbi::MAX_SCORE_TABLE) entries (checked before it is
/// built); [`bl_core::BlError::Numerical`] when the model's weights make a path score
/// overflow; [`bl_core::BlError::ShapeMismatch`] for a target of another length than the
/// sentence; [`bl_core::BlError::InvalidParameter`] for a model fitted on attribute data
/// (it tags [`chain_crf::Items`]: [`FittedTagger::tag_items`]).
impl PredictInplace<Sentence, Vec<String>> for FittedTagger {
    type Error = OblError;

    fn predict_inplace(&self, sentence: &Sentence, targets: &mut Vec<String>) -> Result<()> {
        ensure_len(
            "predict: tags of the sentence",
            sentence.len(),
            targets.len(),
        )?;
        let enc = self.dict.encode(sentence)?;
        let paths = self.decode(std::slice::from_ref(&enc))?;
        write_names(&self.tags, &paths, std::slice::from_mut(targets))
    }

    fn default_target(&self, sentence: &Sentence) -> Result<Vec<String>> {
        Ok(vec![String::new(); sentence.len()])
    }
}

/// The tags of every sentence of a corpus.
///
/// # Errors
/// As for one sentence, with the sentence index; [`OblError::MissingColumn`] when the
/// corpus's named columns lack one the templates name; a target of another shape than
/// the corpus.
impl PredictInplace<Corpus, Vec<Vec<String>>> for FittedTagger {
    type Error = OblError;

    fn predict_inplace(&self, corpus: &Corpus, targets: &mut Vec<Vec<String>>) -> Result<()> {
        ensure_len(
            "predict: tag sequences per sentence",
            corpus.len(),
            targets.len(),
        )?;
        for (s, out) in corpus.sentences().iter().zip(targets.iter()) {
            ensure_len("predict: tags of a sentence", s.len(), out.len())?;
        }
        let encoded = self.dict.encode_corpus(corpus)?;
        let paths = self.decode(&encoded)?;
        write_names(&self.tags, &paths, targets)
    }

    fn default_target(&self, corpus: &Corpus) -> Result<Vec<Vec<String>>> {
        Ok(corpus
            .sentences()
            .iter()
            .map(|s| vec![String::new(); s.len()])
            .collect())
    }
}
