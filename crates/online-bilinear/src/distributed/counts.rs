//! The feature counts of a part of a corpus ([`FeatureCounts`]), merged into the
//! dictionary of the whole corpus.

use bl_core::error::build::invalid;
use serde::{Deserialize, Serialize};

use super::{COUNTS_FORMAT, serde_error};
use crate::data::Corpus;
use crate::error::{OblError, Result};
use crate::features::{FeatureDict, Templates};

/// The feature strings of a part of a training corpus with their counts, in order of first
/// appearance, and its tags in order of first appearance: what a worker sends once so that
/// the dictionary of the whole corpus can be built without moving the sentences.
///
/// Deserializing checks the format tag, the templates, and that no feature and no tag is
/// listed twice; the error names the field (`FeatureCounts.counts`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawFeatureCounts")]
pub struct FeatureCounts {
    format: String,
    pub(super) templates: Templates,
    pub(super) counts: Vec<(String, u64)>,
    pub(super) tags: Vec<String>,
    pub(super) n_tokens: usize,
}

/// The serialized form of [`FeatureCounts`], checked by its `TryFrom` on the way in (the
/// templates by their own).
#[derive(Deserialize)]
struct RawFeatureCounts {
    format: String,
    templates: Templates,
    counts: Vec<(String, u64)>,
    tags: Vec<String>,
    n_tokens: usize,
}

impl TryFrom<RawFeatureCounts> for FeatureCounts {
    type Error = OblError;

    fn try_from(raw: RawFeatureCounts) -> Result<Self> {
        use bl_core::limits::{first_duplicate, quote};
        if raw.format != COUNTS_FORMAT {
            return Err(invalid(
                "FeatureCounts.format",
                quote(&raw.format),
                format!("{COUNTS_FORMAT:?}"),
            ));
        }
        if let Some((i, feature)) = first_duplicate(raw.counts.iter().map(|(f, _)| f.as_str())) {
            return Err(invalid(
                "FeatureCounts.counts",
                format!("feature {} again at index {i}", quote(feature)),
                "each feature once",
            ));
        }
        if let Some((i, tag)) = first_duplicate(&raw.tags) {
            return Err(invalid(
                "FeatureCounts.tags",
                format!("tag {} again at index {i}", quote(tag)),
                "each tag once",
            ));
        }
        Ok(Self {
            format: raw.format,
            templates: raw.templates,
            counts: raw.counts,
            tags: raw.tags,
            n_tokens: raw.n_tokens,
        })
    }
}

impl FeatureCounts {
    /// Counts the features of `corpus` under `templates` and lists its tags.
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] or [`OblError::MissingColumn`] as
    /// [`FeatureDict::build`].
    pub fn count(corpus: &Corpus, templates: &Templates) -> Result<Self> {
        Ok(Self {
            format: COUNTS_FORMAT.to_string(),
            templates: templates.clone(),
            counts: FeatureDict::count_features(corpus, templates)?,
            tags: corpus.tag_set(),
            n_tokens: corpus.n_tokens(),
        })
    }

    /// The counts of the concatenation of the parts, in the order given: each feature's
    /// counts summed, features and tags in order of first appearance in the concatenation
    /// (so the dictionary and tag set equal those of the whole corpus). Counts, and token
    /// counts, that would overflow stop at the largest value.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] (in [`OblError::Core`]) for no part;
    /// invalid-parameter errors for parts counted with different templates.
    pub fn merge(parts: &[FeatureCounts]) -> Result<Self> {
        let first = parts
            .first()
            .ok_or(OblError::Core(bl_core::BlError::Empty {
                what: "feature counts to merge",
            }))?;
        if let Some(i) = parts.iter().position(|p| p.templates != first.templates) {
            return Err(invalid(
                "templates",
                format!("part {i} counted with other templates than part 0"),
                "the same templates for every part",
            ));
        }
        let mut at: std::collections::HashMap<&str, usize> = Default::default();
        let mut counts: Vec<(String, u64)> = Vec::new();
        let mut tags: Vec<String> = Vec::new();
        for part in parts {
            for (f, c) in &part.counts {
                match at.get(f.as_str()) {
                    Some(&i) => counts[i].1 = counts[i].1.saturating_add(*c),
                    None => {
                        at.insert(f, counts.len());
                        counts.push((f.clone(), *c));
                    }
                }
            }
            for t in &part.tags {
                if !tags.contains(t) {
                    tags.push(t.clone());
                }
            }
        }
        Ok(Self {
            format: COUNTS_FORMAT.to_string(),
            templates: first.templates.clone(),
            counts,
            tags,
            n_tokens: parts
                .iter()
                .fold(0_usize, |n, p| n.saturating_add(p.n_tokens)),
        })
    }

    /// The templates counted with.
    pub fn templates(&self) -> &Templates {
        &self.templates
    }

    /// The tags, in order of first appearance.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Number of distinct feature strings.
    pub fn n_features(&self) -> usize {
        self.counts.len()
    }

    /// The JSON form.
    ///
    /// # Errors
    /// [`OblError::Serde`] if encoding fails.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| serde_error("feature counts", e))
    }

    /// Counts from [`to_json`](Self::to_json)'s text, checked as they are read (see
    /// [`FeatureCounts`]).
    ///
    /// # Errors
    /// [`OblError::Serde`] naming what is wrong.
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| serde_error("feature counts", e))
    }
}
