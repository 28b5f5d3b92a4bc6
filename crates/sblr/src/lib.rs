#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

/// `Params => Fitted; fn(&self, data, observers) { body }` implements
/// [`bl_core::Fit`] on matrix data sets of any element type for `Params`; the doc lines
/// document `fit_observed`, whose body reads the data set and the observers by the given
/// names.
macro_rules! fit_matrix {
    (
        $(#[$doc:meta])*
        $params:ty => $fitted:ty;
        fn(&$this:ident, $data:ident, $observers:ident) $body:block
    ) => {
        impl<T: bl_core::data::Element> bl_core::Fit<bl_core::data::MatrixDataset<T>> for $params {
            type Fitted = $fitted;
            type Error = $crate::error::SblrError;

            $(#[$doc])*
            fn fit_observed(
                &$this,
                $data: &bl_core::data::MatrixDataset<T>,
                $observers: &mut [&mut dyn bl_core::Observer],
            ) -> $crate::error::Result<$fitted> $body
        }
    };
}

pub mod bilinear;
pub mod block;
pub mod conformance;
pub mod cv;
pub mod data;
pub mod error;
pub mod linear;
pub mod model;
pub mod multinomial;
pub mod ova;
pub mod params;
pub mod passes;
pub(crate) mod saved;
pub mod synthetic;
pub mod update;
#[cfg(feature = "probes")]
pub mod yardstick;

pub use bilinear::{BinarySolver, Penalties, StepReport};
pub use block::LinearBlock;
pub use cv::{CvScores, CvStrategy, GridSearchResult, cross_val_score, grid_search};
pub use error::{Result, SblrError};
pub use linear::{
    FittedLogisticRegression, LogisticParams, LogisticRegression, LogisticValidParams,
};
pub use model::{FittedSblr, Sblr};
pub use multinomial::{
    FittedMultinomialSblr, MultinomialParams, MultinomialSblr, MultinomialValidParams,
};
pub use ova::{BinaryDecision, BinaryEstimator, FittedOneVsAll, OneVsAll, OneVsAllValidParams};
pub use params::{Init, SblrParams, SblrValidParams, StopCriterion};
pub use saved::SavedModel;
pub use update::{BlockUpdate, BuiltInUpdate, ExactBlockSolve, ProxLinearStep};

pub use bl_core::{Extension, Fit, FitReport, Fitted, Observer, ParamGuard, Predict};
