//! Tagging attribute data ([`chain_crf::Items`], [`chain_crf::Dataset`]) with a model
//! fitted on a [`chain_crf::Dataset`], and the model's dictionaries in chain-crf's form.

use bl_core::PredictInplace;
use bl_core::error::ensure_len;
use chain_crf::{Dataset, Dictionary, Items};

use super::FittedTagger;
use crate::error::{OblError, Result};
use crate::features::EncodedSentence;

impl FittedTagger {
    /// `A`, the number of attributes, for a model fitted on attribute data (`Fit<
    /// chain_crf::Dataset>`); `None` for a model of templates.
    pub fn n_attributes(&self) -> Option<usize> {
        self.dict.n_attributes()
    }

    /// The attribute dictionary of a model fitted on attribute data (the training data
    /// set's, ids unchanged; without the bias feature), e.g. to encode held-out data with
    /// [`chain_crf::DatasetBuilder::frozen`]; `None` for a model of templates.
    pub fn attribute_dictionary(&self) -> Option<Dictionary> {
        let n = self.dict.n_attributes()?;
        let mut names = self.dict.names();
        names.truncate(n);
        Some(Dictionary::from(names))
    }

    /// The tags as a label dictionary: tag `y` is label id `y` (for a model fitted on
    /// attribute data, the training data set's label dictionary).
    pub fn label_dictionary(&self) -> Dictionary {
        Dictionary::from(self.tags.clone())
    }

    /// The label ids of the best tag path of `items` (attribute ids of the model's
    /// attribute dictionary; ids `>= A` are not in it and are ignored, values and all),
    /// for a model fitted on attribute data. Values are read as in the fit: 1 active, 0
    /// absent, an attribute given twice counts with the sum of its values.
    ///
    /// # Errors
    /// [`OblError::NonBinaryAttribute`] (sequence 0) for a value other than 0 or 1;
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) for a model of
    /// templates, or a sequence whose score table is above the bound
    /// ([`MAX_SCORE_TABLE`](crate::viterbi::MAX_SCORE_TABLE));
    /// [`bl_core::BlError::Numerical`] when the weights make a path score overflow.
    pub fn tag_items(&self, items: Items<'_>) -> Result<Vec<u32>> {
        let enc = self.dict.encode_items(items)?;
        Ok(to_ids(self.decode(std::slice::from_ref(&enc))?.pop()))
    }

    /// [`tag_items`](Self::tag_items) as label names.
    ///
    /// # Errors
    /// As [`tag_items`](Self::tag_items).
    pub fn tag_items_names(&self, items: Items<'_>) -> Result<Vec<&str>> {
        Ok(self
            .tag_items(items)?
            .into_iter()
            .map(|y| self.tags[y as usize].as_str())
            .collect())
    }

    /// The encoded sequences of `data` (its labels are not read).
    fn encode_dataset(&self, data: &Dataset) -> Result<Vec<EncodedSentence>> {
        let mut scratch = Vec::new();
        data.iter()
            .enumerate()
            .map(|(s, x)| self.dict.encode_items_indexed(x.items, s, &mut scratch))
            .collect()
    }
}

/// A decoded path as label ids (tags are below [`MAX_TAGS`](crate::viterbi::MAX_TAGS)).
fn to_ids(path: Option<Vec<usize>>) -> Vec<u32> {
    path.unwrap_or_default()
        .into_iter()
        .map(|y| y as u32)
        .collect()
}

/// The label ids of every sequence of a data set (its labels are not read), for a model
/// fitted on attribute data whose attribute dictionary the data set's ids follow (a data
/// set built by [`chain_crf::DatasetBuilder::frozen`] with
/// [`attribute_dictionary`](FittedTagger::attribute_dictionary); ids `>= A` are ignored).
///
/// # Errors
/// As [`FittedTagger::tag_items`], with the sequence index; a target of another shape
/// than the data set ([`bl_core::BlError::ShapeMismatch`]).
impl PredictInplace<Dataset, Vec<Vec<u32>>> for FittedTagger {
    type Error = OblError;

    fn predict_inplace(&self, data: &Dataset, targets: &mut Vec<Vec<u32>>) -> Result<()> {
        ensure_len("predict: label sequences", data.len(), targets.len())?;
        for (x, out) in data.iter().zip(targets.iter()) {
            ensure_len("predict: labels of a sequence", x.items.len(), out.len())?;
        }
        let encoded = self.encode_dataset(data)?;
        let paths = self.decode(&encoded)?;
        for (path, out) in paths.into_iter().zip(targets.iter_mut()) {
            *out = to_ids(Some(path));
        }
        Ok(())
    }

    fn default_target(&self, data: &Dataset) -> Result<Vec<Vec<u32>>> {
        Ok(data.iter().map(|x| vec![0; x.items.len()]).collect())
    }
}
