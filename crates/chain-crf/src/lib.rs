#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod data;
mod dict;
pub mod error;
mod features;
pub mod lattice;
mod model;
pub mod optim;
mod predict;
#[cfg(test)]
mod test_support;
mod train;
pub mod viterbi;
mod wire;

pub use bl_core::{Fit, FitReport, Fitted, Observer, ParamGuard, Predict, PredictInplace};
pub use data::{Dataset, DatasetBuilder, Instance, Items, Sequence, UNKNOWN_LABEL};
pub use dict::Dictionary;
pub use error::{CrfError, Result};
pub use features::{FeatureOptions, FeatureSet};
pub use model::Model;
pub use train::distributed;
pub use train::{
    Algorithm, Arow, AveragedPerceptron, CrfParams, CrfValidParams, FittedCrf, HoldoutScore,
    IterationLog, L2sgd, Lbfgs, LineSearch, PaType, PassiveAggressive,
};
