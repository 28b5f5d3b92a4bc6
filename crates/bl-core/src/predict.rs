//! The prediction convention of the workspace, in the manner of linfa's `Predict` /
//! `PredictInplace`.
//!
//! A fitted model that predicts implements [`PredictInplace`] for the data it reads and the
//! targets it writes (class labels, decision values, a tag sequence, a reconstruction);
//! [`Predict`] then comes for free. Both check the data first and return the model's typed
//! error: a prediction never panics on a caller's input.
//!
//! ```
//! use bl_core::predict::{Predict, PredictInplace};
//!
//! /// Predicts `slope * x`.
//! struct FittedLine { slope: f64 }
//!
//! impl PredictInplace<[f64], Vec<f64>> for FittedLine {
//!     type Error = bl_core::BlError;
//!     fn predict_inplace(&self, x: &[f64], y: &mut Vec<f64>) -> bl_core::Result<()> {
//!         bl_core::error::ensure_finite("x", x)?;
//!         bl_core::error::ensure_len("predict", x.len(), y.len())?;
//!         for (yi, xi) in y.iter_mut().zip(x) {
//!             *yi = self.slope * xi;
//!         }
//!         Ok(())
//!     }
//!     fn default_target(&self, x: &[f64]) -> bl_core::Result<Vec<f64>> {
//!         Ok(vec![0.0; x.len()])
//!     }
//! }
//!
//! let model = FittedLine { slope: 2.0 };
//! assert_eq!(model.predict(&[1.0, 3.0][..])?, vec![2.0, 6.0]);
//! assert!(model.predict(&[f64::NAN][..]).is_err());
//! # Ok::<(), bl_core::BlError>(())
//! ```

use crate::error::BlError;

/// A model that writes its predictions for `data` into a target of type `T`.
pub trait PredictInplace<D: ?Sized, T> {
    /// The error of a refused prediction; [`BlError`] converts into it.
    type Error: From<BlError>;

    /// Checks `data` and writes the predictions into `targets`, which must have the shape
    /// [`default_target`](Self::default_target) gives.
    ///
    /// # Errors
    /// Data the model cannot read (wrong shape, non-finite values, unknown symbols), or
    /// `targets` of the wrong shape.
    fn predict_inplace(&self, data: &D, targets: &mut T) -> Result<(), Self::Error>;

    /// A target of the right shape for `data`, to be filled by
    /// [`predict_inplace`](Self::predict_inplace).
    ///
    /// # Errors
    /// A target too large to allocate, or data whose shape cannot be read.
    fn default_target(&self, data: &D) -> Result<T, Self::Error>;
}

/// A model that predicts targets of type `T` for `data`; implemented for every
/// [`PredictInplace`] model.
pub trait Predict<D: ?Sized, T> {
    /// The error of a refused prediction.
    type Error: From<BlError>;

    /// Checks `data` and returns the predictions.
    ///
    /// # Errors
    /// Data the model cannot read.
    fn predict(&self, data: &D) -> Result<T, Self::Error>;
}

impl<M, D, T> Predict<D, T> for M
where
    M: PredictInplace<D, T>,
    D: ?Sized,
{
    type Error = M::Error;

    fn predict(&self, data: &D) -> Result<T, Self::Error> {
        let mut targets = self.default_target(data)?;
        self.predict_inplace(data, &mut targets)?;
        Ok(targets)
    }
}
