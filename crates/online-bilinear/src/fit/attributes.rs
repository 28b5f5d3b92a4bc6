//! Attribute data: a [`chain_crf::Dataset`] prepared for the learners
//! ([`TaggerValidParams::prepare_dataset`]), so that every learner trains on it through
//! the fit of a [`PreparedCorpus`].

use std::sync::Arc;

use bl_core::params::invalid;
use chain_crf::Dataset;

use super::PreparedCorpus;
use crate::error::{OblError, Result};
use crate::features::{FeatureDict, Template};
use crate::params::TaggerValidParams;

impl TaggerValidParams {
    /// Feature extraction of attribute data (CRFsuite's input: each item a list of
    /// `(attribute, value)` pairs, each position a label): attribute `j` of the data set's
    /// dictionary is feature `j`, one more feature, the bias (id `A`, the number of
    /// attributes), is active at every position and carries the label transitions
    /// ([`FeatureDict::from_attributes`]), and label `y` of the label dictionary is tag
    /// `y` (the model's tags are the label names in id order). The result is fitted like
    /// the features of a corpus (`Fit<PreparedCorpus>`; `Fit<chain_crf::Dataset>`
    /// prepares, then fits), by any learner, so `transitions_only` (first-order weights
    /// for the bias alone with 0-order weights for the attributes) is CRFsuite's feature
    /// set (state features per attribute and label, transitions per label pair) plus the
    /// bias's own weights: its 0-order weights (one per label) and its first-order weights
    /// from the start state (the first position's label), which CRFsuite's `crf1d` does
    /// not have.
    ///
    /// Features are binary: an attribute of value 1 is active, one of value 0 is dropped
    /// (it adds nothing to a score), an attribute given twice at a position counts with
    /// the sum of its values, and any other value is an error.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] for a data set without items;
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) named `templates`
    /// when the parameters set templates other than `[Template::Bias]` (the attributes
    /// are the features), `cutoff` for a cutoff other than 1 (filter attributes when the
    /// data set is built), `attribute name` for an attribute named as the bias feature,
    /// or `attributes` for a dictionary holding a name twice or of `u32::MAX` attributes
    /// or more ([`FeatureDict::from_attributes`]); [`OblError::NonBinaryAttribute`] naming the sequence, position and
    /// attribute of a value other than 0 or 1; [`OblError::UnknownTag`] for an item whose
    /// label is not in the label dictionary ([`chain_crf::UNKNOWN_LABEL`] of a frozen
    /// builder).
    pub fn prepare_dataset(&self, data: &Dataset) -> Result<PreparedCorpus> {
        self.iteration()
            .install(|| self.prepare_dataset_here(data))?
    }

    /// [`prepare_dataset`](Self::prepare_dataset) on the current rayon pool (the encoding
    /// runs in parallel over the sequences).
    fn prepare_dataset_here(&self, data: &Dataset) -> Result<PreparedCorpus> {
        use rayon::prelude::*;
        if data.n_items() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "training data set",
            }));
        }
        if self
            .templates()
            .is_some_and(|t| t.as_slice() != [Template::Bias])
        {
            return Err(invalid(
                "templates",
                "templates that read columns, for attribute data",
                "unset (or [Template::Bias]): the features of a chain_crf::Dataset are its \
                 attributes and the bias",
            )
            .into());
        }
        if let Some(cutoff) = self.cutoff().filter(|&c| c != 1) {
            return Err(invalid(
                "cutoff",
                format!("{cutoff} for attribute data"),
                "unset or 1: the features of a chain_crf::Dataset are all its attributes \
                 (drop rare ones when building it)",
            )
            .into());
        }
        let dict = Arc::new(FeatureDict::from_attributes(data.attributes())?);
        crate::params::check_transitions(&self.learner_settings(), dict.templates())?;
        let tags = data.labels().names().to_vec();
        let n_tags = tags.len();
        let encoded: Vec<Result<_>> = (0..data.len())
            .into_par_iter()
            .map_init(Vec::new, |scratch, s| {
                dict.encode_items_indexed(data.instance(s).items, s, scratch)
            })
            .collect();
        let encoded = encoded.into_iter().collect::<Result<Vec<_>>>()?;
        let gold = data
            .iter()
            .enumerate()
            .map(|(s, x)| {
                x.labels
                    .iter()
                    .enumerate()
                    .map(|(t, &y)| match y as usize {
                        y if y < n_tags => Ok(y),
                        _ => Err(OblError::UnknownTag {
                            sentence: s,
                            token: t,
                            tag: "<a label outside the data set's label dictionary>".into(),
                            known: tags.clone(),
                        }),
                    })
                    .collect()
            })
            .collect::<Result<Vec<Vec<usize>>>>()?;
        Ok(PreparedCorpus {
            dict,
            tags,
            encoded,
            gold,
        })
    }
}
