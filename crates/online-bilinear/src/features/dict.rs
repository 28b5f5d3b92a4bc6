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

    /// Feature ids active at position `i`.
    ///
    /// # Panics
    /// When `i >= len()`, as slice indexing does.
    pub fn at(&self, i: usize) -> &[u32] {
        &self.features[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Total number of active (position, feature) pairs.
    pub fn n_active(&self) -> usize {
        self.features.len()
    }

    /// The largest active feature id (`None` for no active feature): a max reduction over
    /// the ids without early exit, a loop the compiler can vectorize (the learners' check
    /// of a sentence).
    pub(crate) fn max_feature_id(&self) -> Option<u32> {
        (!self.features.is_empty()).then(|| self.features.iter().fold(0, |m, &k| m.max(k)))
    }

    /// Checks that every active feature id is below `n_features` (a sentence encoded by
    /// another dictionary has larger ones): one pass without early exit
    /// ([`max_feature_id`](Self::max_feature_id)), the position of the first bad id
    /// searched only on failure. `bound` names the count in the error (`"n_features"`,
    /// `"n_blocks"`).
    ///
    /// # Errors
    /// `InvalidParameter` named `name` for the first id `>= n_features`, with its position.
    pub(crate) fn check_feature_ids(
        &self,
        name: &'static str,
        bound: &'static str,
        n_features: usize,
    ) -> crate::error::Result<()> {
        if self
            .max_feature_id()
            .is_none_or(|k| (k as usize) < n_features)
        {
            return Ok(());
        }
        for i in 0..self.len() {
            if let Some(&k) = self.at(i).iter().find(|&&k| k as usize >= n_features) {
                return Err(crate::error::invalid(
                    name,
                    format!("{k} at position {i}"),
                    format!("below {bound} = {n_features}"),
                ));
            }
        }
        Ok(())
    }

    /// A sentence from its CSR parts (for unit tests).
    #[cfg(test)]
    pub(crate) fn from_parts(offsets: Vec<u32>, features: Vec<u32>) -> Self {
        Self { offsets, features }
    }
}

/// The feature dictionary: feature strings seen at least `cutoff` times in the training
/// corpus, numbered `0..len()` in order of first appearance.
///
/// Or, built by [`from_attributes`](Self::from_attributes) for attribute data (a
/// [`chain_crf::Dataset`]), the attributes of a dictionary with their own ids `0..A`,
/// then the bias feature (id `A`, the templates being [`Template::Bias`] alone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureDict {
    templates: Templates,
    cutoff: usize,
    /// Written in id order, so that the same dictionary always has the same bytes.
    #[serde(serialize_with = "ids_in_id_order")]
    ids: HashMap<String, u32>,
    /// `A`, the number of attributes, for a dictionary of attribute data (absent for one
    /// built from templates, and in models saved before attribute data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    attributes: Option<usize>,
}

/// Serializes the feature map as a map in the order of the ids (then of the names), not in
/// the hash map's order, which differs from one map to the next.
fn ids_in_id_order<S: serde::Serializer>(
    ids: &HashMap<String, u32>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    let mut pairs: Vec<(&String, &u32)> = ids.iter().collect();
    pairs.sort_unstable_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)));
    serializer.collect_map(pairs)
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
        let counts = Self::count_features(corpus, templates)?;
        Self::from_counts(templates, cutoff, counts)
    }

    /// Every feature string of `corpus` under `templates` with its count, in order of
    /// first appearance (the first half of [`build`](Self::build); counts of several
    /// parts of a corpus merge into those of the whole, for [`crate::distributed`]).
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] when a sentence lacks a column a template reads;
    /// [`OblError::MissingColumn`] as in [`build`](Self::build).
    pub(crate) fn count_features(
        corpus: &Corpus,
        templates: &Templates,
    ) -> Result<Vec<(String, u64)>> {
        check_column_names(templates, corpus)?;
        let mut counts: HashMap<String, usize> = HashMap::new();
        let mut order: Vec<(String, u64)> = Vec::new();
        let mut scratch = Scratch::default();
        for (si, sentence) in corpus.sentences().iter().enumerate() {
            check_columns(templates, sentence, si)?;
            for i in 0..sentence.len() {
                for_each_feature(templates, sentence, i, &mut scratch, |f| {
                    if let Some(&at) = counts.get(f) {
                        order[at].1 += 1;
                    } else {
                        counts.insert(f.to_string(), order.len());
                        order.push((f.to_string(), 1));
                    }
                });
            }
        }
        Ok(order)
    }

    /// The dictionary of the features of `counts` (in order of first appearance, each
    /// once) seen at least `cutoff` times (the second half of [`build`](Self::build)).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for
    /// `cutoff == 0`, or when more than `u32::MAX - 1` features are kept.
    pub(crate) fn from_counts(
        templates: &Templates,
        cutoff: usize,
        counts: Vec<(String, u64)>,
    ) -> Result<Self> {
        if cutoff == 0 {
            return Err(invalid("cutoff", cutoff, ">= 1"));
        }
        let mut ids = HashMap::new();
        for (f, count) in counts {
            if count >= cutoff as u64 {
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
            attributes: None,
        })
    }

    /// The dictionary of attribute data: attribute `j` of `attributes` is feature `j`,
    /// and one more feature, the bias (id `A = attributes.len()`, the feature of the
    /// templates' only template, [`Template::Bias`]), is active at every position; it
    /// carries the label transitions, as the bias template does for a corpus (and as
    /// CRFsuite's transition features, which have no attribute). The cutoff is 1.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) named `attribute
    /// name` when an attribute has the bias feature's name (`"0\u{1}"`), or named
    /// `attributes` for a dictionary holding a name twice or for `u32::MAX` attributes or
    /// more (the bias needs an id).
    pub fn from_attributes(attributes: &chain_crf::Dictionary) -> Result<Self> {
        let templates = Templates::new(vec![Template::Bias])?;
        let n = attributes.len();
        if n >= u32::MAX as usize {
            return Err(invalid(
                "attributes",
                n,
                "fewer than 2^32 - 1 (the bias feature takes one more id)",
            ));
        }
        if attributes.has_duplicates() {
            return Err(invalid(
                "attributes",
                "a dictionary with a name twice",
                "distinct names (a dictionary built by chain_crf::DatasetBuilder)",
            ));
        }
        let mut ids = HashMap::with_capacity(n + 1);
        for (j, name) in attributes.names().iter().enumerate() {
            ids.insert(name.clone(), j as u32);
        }
        let bias = bias_name(0);
        if ids.contains_key(&bias) {
            return Err(invalid(
                "attribute name",
                format!("{bias:?}"),
                "a name other than the bias feature's (\"0\\u{1}\")",
            ));
        }
        ids.insert(bias, n as u32);
        Ok(Self {
            templates,
            cutoff: 1,
            ids,
            attributes: Some(n),
        })
    }

    /// `A`, the number of attributes, for a dictionary of attribute data
    /// ([`from_attributes`](Self::from_attributes)); `None` for one built from templates.
    pub fn n_attributes(&self) -> Option<usize> {
        self.attributes
    }

    /// A dictionary of attribute data is what [`from_attributes`](Self::from_attributes)
    /// builds: the bias template alone, cutoff 1, `A + 1` features, the bias's id `A`
    /// (checked when a saved model is loaded; a dictionary built from templates passes).
    ///
    /// # Errors
    /// What is wrong, for the load error's message.
    pub(crate) fn check_attributes(&self) -> std::result::Result<(), String> {
        let Some(n) = self.attributes else {
            return Ok(());
        };
        if self.templates.as_slice() != [Template::Bias] || self.cutoff != 1 {
            return Err(
                "expected the bias template alone and cutoff 1 for attribute data".to_string(),
            );
        }
        if n.checked_add(1) != Some(self.len()) || self.bias_id() != Some(n as u32) {
            return Err(format!(
                "expected {n} attributes then the bias feature (id {n}), found {} features \
                 and the bias at {:?}",
                self.len(),
                self.bias_id()
            ));
        }
        Ok(())
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
        self.id(&bias_name(t))
    }

    /// The feature strings ordered by id: entry `j` is the name of id `j`, for `j <
    /// len()`. (Only a dictionary deserialized with ids that are not dense, see
    /// [`ids_are_dense`](Self::ids_are_dense), has an id without an entry or an entry
    /// without an id, left empty.)
    pub fn names(&self) -> Vec<String> {
        let mut names = vec![String::new(); self.ids.len()];
        for (name, &id) in &self.ids {
            if let Some(slot) = names.get_mut(id as usize) {
                slot.clone_from(name);
            }
        }
        names
    }

    /// The active feature ids of each position of `sentence` (features outside the
    /// dictionary are dropped).
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] when the sentence lacks a column a template reads;
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) for a dictionary of
    /// attribute data ([`from_attributes`](Self::from_attributes): it encodes
    /// [`chain_crf::Items`], with [`encode_items`](Self::encode_items)).
    pub fn encode(&self, sentence: &Sentence) -> Result<EncodedSentence> {
        self.encode_indexed(sentence, 0)
    }

    pub(crate) fn encode_indexed(
        &self,
        sentence: &Sentence,
        index: usize,
    ) -> Result<EncodedSentence> {
        if self.attributes.is_some() {
            return Err(invalid(
                "sentence",
                "a sentence for features of attribute data",
                "chain_crf::Items (FeatureDict::encode_items, FittedTagger::tag_items): \
                 these features are the attributes of a chain_crf::Dataset, not templates",
            ));
        }
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

/// The feature string of the bias template at index `t` of a template list.
fn bias_name(t: usize) -> String {
    let mut name = String::new();
    push_index(&mut name, t);
    name.push('\u{1}');
    name
}

/// Attribute data: the feature ids of `chain_crf::Items`.
impl FeatureDict {
    /// The active feature ids of each item of `items` (sequence 0 in errors), for a
    /// dictionary of attribute data ([`from_attributes`](Self::from_attributes)): at each
    /// position its attributes in their order (each once: the values of an attribute given
    /// twice are summed first, as CRFsuite's scores sum them), then the bias feature.
    /// Features are binary: an attribute whose value is 1 is active, one whose value is 0
    /// is dropped (it adds nothing to a score), any other value is an error. Attribute ids
    /// `>= A` (not in the dictionary) are dropped.
    ///
    /// # Errors
    /// [`OblError::NonBinaryAttribute`] naming the position and the attribute for a value
    /// other than 0 and 1; [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`])
    /// for a dictionary built from templates, or when the items have more than `2^32 - 1`
    /// active features in all.
    pub fn encode_items(&self, items: chain_crf::Items<'_>) -> Result<EncodedSentence> {
        self.encode_items_indexed(items, 0, &mut Vec::new())
    }

    /// [`encode_items`](Self::encode_items) of sequence `sequence`, with a reused scratch
    /// buffer.
    pub(crate) fn encode_items_indexed(
        &self,
        items: chain_crf::Items<'_>,
        sequence: usize,
        scratch: &mut Vec<(u32, u32)>,
    ) -> Result<EncodedSentence> {
        let Some(n_attributes) = self.attributes else {
            return Err(invalid(
                "items",
                "chain_crf::Items for features built from templates",
                "sentences (Sentence, Corpus): this model's features are templates, not the \
                 attributes of a chain_crf::Dataset",
            ));
        };
        let bias = n_attributes as u32;
        let mut offsets = Vec::with_capacity(items.len() + 1);
        let mut features = Vec::with_capacity(items.n_attributes() + items.len());
        offsets.push(0);
        for t in 0..items.len() {
            let (ids, values) = items.item(t);
            let start = features.len();
            if !has_duplicate(ids, scratch) {
                for (&id, &v) in ids.iter().zip(values) {
                    if id < bias && self.binary(v, id, sequence, t)? {
                        features.push(id);
                    }
                }
            } else {
                // Each attribute once, at its first place, with the sum of its values.
                scratch.clear();
                scratch.extend(ids.iter().enumerate().map(|(j, &id)| (id, j as u32)));
                scratch.sort_unstable();
                let mut first = 0;
                while first < scratch.len() {
                    let id = scratch[first].0;
                    let mut last = first + 1;
                    while last < scratch.len() && scratch[last].0 == id {
                        last += 1;
                    }
                    let total = scratch[first..last]
                        .iter()
                        .fold(0.0, |s, &(_, j)| s + values[j as usize]);
                    if id < bias && self.binary(total, id, sequence, t)? {
                        features.push(scratch[first].1);
                    }
                    first = last;
                }
                // `features[start..]` holds the first places: order them, then map to ids.
                features[start..].sort_unstable();
                for f in &mut features[start..] {
                    *f = ids[*f as usize];
                }
            }
            features.push(bias);
            offsets.push(u32::try_from(features.len()).map_err(|_| -> OblError {
                invalid(
                    "items",
                    format!("sequence {sequence}: more than 2^32 - 1 active features"),
                    "shorter sequences",
                )
            })?);
        }
        Ok(EncodedSentence { offsets, features })
    }

    /// Whether an attribute of total value `v` is active (1) or dropped (0).
    fn binary(&self, v: f64, id: u32, sequence: usize, position: usize) -> Result<bool> {
        if v == 1.0 {
            Ok(true)
        } else if v == 0.0 {
            Ok(false)
        } else {
            let attribute = self
                .ids
                .iter()
                .find(|&(_, &j)| j == id)
                .map_or_else(|| format!("#{id}"), |(name, _)| name.clone());
            Err(OblError::NonBinaryAttribute {
                sequence,
                position,
                attribute,
                value: v,
            })
        }
    }
}

/// Whether `ids` holds an id twice (`scratch` is reused for long lists).
fn has_duplicate(ids: &[u32], scratch: &mut Vec<(u32, u32)>) -> bool {
    if ids.len() <= 16 {
        return ids.iter().enumerate().any(|(j, id)| ids[..j].contains(id));
    }
    scratch.clear();
    scratch.extend(ids.iter().map(|&id| (id, 0)));
    scratch.sort_unstable();
    scratch.windows(2).any(|w| w[0].0 == w[1].0)
}
