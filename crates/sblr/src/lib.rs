#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod bilinear;
pub mod block;
pub mod data;
pub mod error;
pub mod model;
pub mod params;

pub use bilinear::{BinarySolver, Penalties, StepReport};
pub use block::{BlockUpdate, ExactBlockSolve, LinearBlock, ProxLinearStep};
pub use error::{Result, SblrError};
pub use model::{FittedSblr, Sblr};
pub use params::{Init, SblrParams, SblrValidParams, Solver, StopCriterion};
