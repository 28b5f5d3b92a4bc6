#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod data;
pub mod engine;
pub mod error;
pub mod extension;
pub mod fit;
pub mod io;
pub mod iteration;
pub mod limits;
pub mod linalg;
pub mod logistic;
pub mod metrics;
pub mod params;
pub mod predict;
pub mod prox;
pub mod random;
#[doc(hidden)]
pub mod testing;

pub use engine::{FitReport, Observer, TerminationReason};
pub use error::{BlError, Result};
pub use extension::{ConformanceReport, Extension};
pub use fit::{Fit, Fitted};
pub use iteration::IterationParams;
pub use params::ParamGuard;
pub use predict::{Predict, PredictInplace};
