#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

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
mod passes;
pub(crate) mod saved;
pub mod synthetic;
pub mod yardstick;

pub use bilinear::{BinarySolver, Penalties, StepReport};
pub use block::{BlockUpdate, ExactBlockSolve, LinearBlock, ProxLinearStep};
pub use cv::{CvScores, CvStrategy, GridSearchResult, cross_val_score, grid_search};
pub use error::{Result, SblrError};
pub use linear::{FittedLogisticRegression, LogisticParams, LogisticRegression};
pub use model::{FittedSblr, Sblr};
pub use multinomial::{FittedMultinomialSblr, MultinomialParams, MultinomialSblr};
pub use ova::{BinaryDecision, BinaryEstimator, FittedOneVsAll, OneVsAll};
pub use params::{Init, SblrParams, SblrValidParams, SharedUpdate, Solver, StopCriterion};
pub use saved::SavedModel;

pub use bl_core::{Fit, FitReport, Fitted, Observer, ParamGuard};
