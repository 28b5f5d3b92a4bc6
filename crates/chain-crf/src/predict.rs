//! Prediction through `bl_core`'s traits: the most probable label path of every sequence
//! of a data set.

use bl_core::PredictInplace;
use bl_core::error::ensure_len;

use crate::data::Dataset;
use crate::error::{CrfError, Result};
use crate::model::Model;
use crate::train::FittedCrf;

/// The most probable label path (label ids, [`Model::tag`]) of every sequence of `data`;
/// its labels are not read. The data set's attribute ids must be the model's: build it
/// with [`DatasetBuilder::frozen`](crate::DatasetBuilder::frozen) and the model's
/// [`attributes`](Model::attributes) (the training data set has them too). An attribute id
/// the model does not know has no feature, as in [`Model::tag`].
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] for `targets` of another shape than
/// [`default_target`](PredictInplace::default_target) gives (one label per item of every
/// sequence); `targets` is then untouched.
impl PredictInplace<Dataset, Vec<Vec<u32>>> for Model {
    type Error = CrfError;

    fn predict_inplace(&self, data: &Dataset, targets: &mut Vec<Vec<u32>>) -> Result<()> {
        ensure_len("predict: label sequences", data.len(), targets.len())?;
        for (x, out) in data.iter().zip(targets.iter()) {
            ensure_len("predict: labels of a sequence", x.items.len(), out.len())?;
        }
        for (x, out) in data.iter().zip(targets.iter_mut()) {
            *out = self.tag(x.items).0;
        }
        Ok(())
    }

    fn default_target(&self, data: &Dataset) -> Result<Vec<Vec<u32>>> {
        Ok(data.iter().map(|x| vec![0; x.items.len()]).collect())
    }
}

/// The predictions of the fitted [`Model`] (see its implementation).
///
/// # Errors
/// As for [`Model`].
impl PredictInplace<Dataset, Vec<Vec<u32>>> for FittedCrf {
    type Error = CrfError;

    fn predict_inplace(&self, data: &Dataset, targets: &mut Vec<Vec<u32>>) -> Result<()> {
        self.model().predict_inplace(data, targets)
    }

    fn default_target(&self, data: &Dataset) -> Result<Vec<Vec<u32>>> {
        self.model().default_target(data)
    }
}
