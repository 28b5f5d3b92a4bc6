//! The feature dictionary ([`FeatureDict`]) and the encoded sentences it makes
//! ([`EncodedSentence`]).

use std::collections::HashMap;

use bl_core::error::build::invalid;
use serde::{Deserialize, Serialize};

use super::extract::{Scratch, check_column_names, check_columns, for_each_feature, push_index};
use super::template::{Template, Templates};
use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};

/// The active feature ids of each position of one sentence (CSR layout).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncodedSentence {
    offsets: Vec<u32>,
    features: Vec<u32>,
}

impl EncodedSentence {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the sentence is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Feature ids active at position `i` (`i < len()`).
    pub fn at(&self, i: usize) -> &[u32] {
        &self.features[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Total number of active (position, feature) pairs.
    pub fn n_active(&self) -> usize {
        self.features.len()
    }

    /// A sentence from its CSR parts (for unit tests).
    #[cfg(test)]
    pub(crate) fn from_parts(offsets: Vec<u32>, features: Vec<u32>) -> Self {
        Self { offsets, features }
    }
}

/// The feature dictionary: feature strings seen at least `cutoff` times in the training
/// corpus, numbered `0..len()` in order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureDict {
    templates: Templates,
    cutoff: usize,
    ids: HashMap<String, u32>,
}

impl FeatureDict {
    /// Counts the features of `corpus` and keeps those seen at least `cutoff` times.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for `cutoff == 0`;
    /// [`OblError::TooFewColumns`] when a sentence lacks a column a template reads;
    /// [`OblError::MissingColumn`] when the corpus's named columns lack one the templates
    /// name ([`Templates::with_column_names`]);
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when more than `u32::MAX - 1` features are kept.
    pub fn build(corpus: &Corpus, templates: &Templates, cutoff: usize) -> Result<Self> {
        if cutoff == 0 {
            return Err(invalid("cutoff", cutoff, ">= 1"));
        }
        check_column_names(templates, corpus)?;
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "training corpus",
            }));
        }
        let mut counts: HashMap<String, (u32, u32)> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut scratch = Scratch::default();
        for (si, sentence) in corpus.sentences().iter().enumerate() {
            check_columns(templates, sentence, si)?;
            for i in 0..sentence.len() {
                for_each_feature(templates, sentence, i, &mut scratch, |f| {
                    if let Some(entry) = counts.get_mut(f) {
                        entry.1 += 1;
                    } else {
                        counts.insert(f.to_string(), (order.len() as u32, 1));
                        order.push(f.to_string());
                    }
                });
            }
        }
        let mut ids = HashMap::new();
        for f in order {
            let count = counts.get(&f).map_or(0, |c| c.1) as usize;
            if count >= cutoff {
                let id = ids.len();
                if id >= u32::MAX as usize {
                    return Err(invalid(
                        "cutoff",
                        cutoff,
                        "large enough to keep fewer than 2^32 - 1 features",
                    ));
                }
                ids.insert(f, id as u32);
            }
        }
        Ok(Self {
            templates: templates.clone(),
            cutoff,
            ids,
        })
    }

    /// Whether the ids are exactly `0..len()` (true for every dictionary this crate builds;
    /// checked when a saved model is loaded).
    pub fn ids_are_dense(&self) -> bool {
        let mut seen = vec![false; self.ids.len()];
        for &id in self.ids.values() {
            match seen.get_mut(id as usize) {
                Some(s) if !*s => *s = true,
                _ => return false,
            }
        }
        true
    }

    /// Number of kept features `K`.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no feature was kept.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The templates.
    pub fn templates(&self) -> &Templates {
        &self.templates
    }

    /// The frequency cutoff.
    pub fn cutoff(&self) -> usize {
        self.cutoff
    }

    /// The id of a feature string, if kept.
    pub fn id(&self, feature: &str) -> Option<u32> {
        self.ids.get(feature).copied()
    }

    /// The id of the bias feature ([`Template::Bias`], active at every position), if the
    /// templates have one and it was kept.
    pub fn bias_id(&self) -> Option<u32> {
        let t = self
            .templates
            .list
            .iter()
            .position(|&template| template == Template::Bias)?;
        let mut name = String::new();
        push_index(&mut name, t);
        name.push('\u{1}');
        self.id(&name)
    }

    /// The feature strings ordered by id.
    pub fn names(&self) -> Vec<String> {
        let mut names = vec![String::new(); self.ids.len()];
        for (name, &id) in &self.ids {
            names[id as usize] = name.clone();
        }
        names
    }

    /// The active feature ids of each position of `sentence` (features outside the
    /// dictionary are dropped).
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] when the sentence lacks a column a template reads.
    pub fn encode(&self, sentence: &Sentence) -> Result<EncodedSentence> {
        self.encode_indexed(sentence, 0)
    }

    pub(crate) fn encode_indexed(
        &self,
        sentence: &Sentence,
        index: usize,
    ) -> Result<EncodedSentence> {
        check_columns(&self.templates, sentence, index)?;
        let mut offsets = Vec::with_capacity(sentence.len() + 1);
        let mut features = Vec::with_capacity(sentence.len() * self.templates.list.len());
        offsets.push(0);
        let mut scratch = Scratch::default();
        for i in 0..sentence.len() {
            for_each_feature(&self.templates, sentence, i, &mut scratch, |f| {
                if let Some(&id) = self.ids.get(f) {
                    features.push(id);
                }
            });
            offsets.push(features.len() as u32);
        }
        Ok(EncodedSentence { offsets, features })
    }

    /// Encodes every sentence of a corpus.
    ///
    /// The sentences are encoded in parallel on the current rayon pool (install a pool of
    /// `n` threads around the call to choose `n`); the result is the same for any number
    /// of threads, and so is the error: that of the first failing sentence.
    ///
    /// # Errors
    /// As [`encode`](Self::encode), with the sentence index; [`OblError::MissingColumn`]
    /// as in [`build`](Self::build).
    pub fn encode_corpus(&self, corpus: &Corpus) -> Result<Vec<EncodedSentence>> {
        use rayon::prelude::*;
        check_column_names(&self.templates, corpus)?;
        let encoded: Vec<Result<EncodedSentence>> = corpus
            .sentences()
            .par_iter()
            .enumerate()
            .map(|(i, s)| self.encode_indexed(s, i))
            .collect();
        encoded.into_iter().collect()
    }
}
