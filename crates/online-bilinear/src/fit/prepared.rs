//! Feature extraction: a [`PreparedCorpus`], built once by [`TaggerValidParams::prepare`]
//! and fitted by several learners; the default templates of a corpus.

use std::sync::Arc;

use bl_core::params::invalid;

use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::features::{EncodedSentence, FeatureDict, Templates};
use crate::model::tag_indices;
use crate::params::{TaggerValidParams, check_transitions};

/// A training corpus after feature extraction: the dictionary (with its templates and
/// cutoff), the tag set, the encoded sentences and their gold tag indices
/// ([`TaggerValidParams::prepare`]).
#[derive(Debug, Clone)]
pub struct PreparedCorpus {
    pub(crate) dict: Arc<FeatureDict>,
    pub(crate) tags: Vec<String>,
    pub(crate) encoded: Vec<EncodedSentence>,
    pub(crate) gold: Vec<Vec<usize>>,
}

impl PreparedCorpus {
    /// The feature dictionary.
    pub fn features(&self) -> &FeatureDict {
        &self.dict
    }

    /// The templates the features were built with.
    pub fn templates(&self) -> &Templates {
        self.dict.templates()
    }

    /// The cutoff the features were built with.
    pub fn cutoff(&self) -> usize {
        self.dict.cutoff()
    }

    /// The tag set (in order of first appearance in the corpus; for attribute data, the
    /// label names in id order).
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The sentences encoded with [`features`](Self::features), in corpus order.
    pub fn encoded(&self) -> &[EncodedSentence] {
        &self.encoded
    }

    /// The gold tags of every sentence, as indices in [`tags`](Self::tags).
    pub fn gold(&self) -> &[Vec<usize>] {
        &self.gold
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

    /// The sentences of `range` (clamped to `0..len`), with the same dictionary and tags.
    pub fn range(&self, range: std::ops::Range<usize>) -> PreparedCorpus {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        PreparedCorpus {
            dict: Arc::clone(&self.dict),
            tags: self.tags.clone(),
            encoded: self.encoded[start..end].to_vec(),
            gold: self.gold[start..end].to_vec(),
        }
    }

    /// The first `n` sentences (all when `n >= len`), with the same dictionary and tags.
    pub fn head(&self, n: usize) -> PreparedCorpus {
        self.range(0..n)
    }
}

/// The templates a fit uses when none are given: [`Templates::segmentation`] for a corpus
/// of one observation column whose every token is a single character (a segmentation
/// corpus), the word-tagging preset [`Templates::word_tagging`] for one column of words.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) named `templates` for a
/// corpus of several observation columns: which columns the features read is a choice
/// (e.g. [`Templates::chunking`] for words and parts of speech), given with
/// [`TaggerParams::templates`](crate::TaggerParams::templates).
pub fn default_templates(corpus: &Corpus) -> Result<Templates> {
    let columns = corpus
        .sentences()
        .iter()
        .map(crate::Sentence::n_columns)
        .max()
        .unwrap_or(1);
    if columns > 1 {
        return Err(invalid(
            "templates",
            format!("unset for a corpus of {columns} observation columns"),
            "given with .templates(..) (e.g. Templates::chunking() for word and \
             part-of-speech columns, Templates::word_tagging() for the words alone)",
        )
        .into());
    }
    let characters = corpus.sentences().iter().all(|s| {
        s.column(0)
            .is_none_or(|tokens| tokens.iter().all(|t| t.chars().count() == 1))
    });
    Ok(if characters {
        Templates::segmentation()
    } else {
        Templates::word_tagging()
    })
}

impl TaggerValidParams {
    /// Feature extraction alone: builds the feature dictionary of `corpus` with these
    /// parameters' templates (unset: [`default_templates`]) and cutoff (unset: 1), and
    /// encodes the corpus on the parameters' `threads`, so that several learners can be fitted on the same features
    /// (`Fit<PreparedCorpus>`; their parameters leave templates and cutoff unset, or set
    /// these same ones).
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; [`OblError::TooFewColumns`];
    /// [`OblError::MissingColumn`] when the corpus's named columns lack one the templates
    /// name; no templates for a corpus of several columns ([`default_templates`]);
    /// `transitions_only` without a bias template; the others of
    /// [`FeatureDict::build`].
    pub fn prepare(&self, corpus: &Corpus) -> Result<PreparedCorpus> {
        self.iteration().install(|| self.prepare_here(corpus))?
    }

    /// [`prepare`](Self::prepare) on the current rayon pool.
    fn prepare_here(&self, corpus: &Corpus) -> Result<PreparedCorpus> {
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "training corpus",
            }));
        }
        let templates = match self.templates() {
            Some(templates) => templates.clone(),
            None => default_templates(corpus)?,
        };
        check_transitions(&self.learner_settings(), &templates)?;
        let cutoff = self.cutoff().unwrap_or(1);
        let dict = Arc::new(FeatureDict::build(corpus, &templates, cutoff)?);
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

    /// A prepared corpus fits these parameters when they leave templates and cutoff unset
    /// or set the prepared ones.
    pub(crate) fn check_prepared(&self, prepared: &PreparedCorpus) -> Result<()> {
        if self.templates().is_some_and(|t| t != prepared.templates()) {
            return Err(invalid(
                "templates",
                "other templates than the prepared corpus's",
                "unset, or the templates the corpus was prepared with (features are built \
                 once, by prepare)",
            )
            .into());
        }
        if let Some(cutoff) = self.cutoff().filter(|&c| c != prepared.cutoff()) {
            return Err(invalid(
                "cutoff",
                format!(
                    "{cutoff} for a corpus prepared with cutoff {}",
                    prepared.cutoff()
                ),
                "unset, or the cutoff the corpus was prepared with (features are built \
                 once, by prepare)",
            )
            .into());
        }
        check_transitions(&self.learner_settings(), prepared.templates())
    }
}
