#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

#[macro_use]
mod shape;

pub mod atom;
pub mod bmp;
mod common;
pub mod conformance;
pub mod cp;
pub mod error;
mod hosvd;
mod kernels;
pub mod lfm;
mod linalg;
pub mod metrics;
mod predict;
pub mod qp;
pub mod sustain;
pub mod synthetic;
pub mod tensor;
pub mod tucker;

pub use atom::{Atom, BooleanFactor, Decomposition, atoms_to_tensor};
pub use bl_core::{
    Extension, Fit, FitReport, Fitted, IterationParams, Observer, ParamGuard, Predict,
    PredictInplace,
};
pub use bmp::{
    AtomStep, Bmp, BmpParams, BmpValidParams, Candidate, FittedBmp, fully_corrective_coefficients,
    search_atom,
};
pub use cp::{CpAls, CpAlsParams, CpAlsValidParams, FittedCp, hosvd_start};
pub use error::{Result, TensorError};
pub use lfm::{
    FittedLfm, FittedLfmMix, Lfm, LfmMixParams, LfmMixValidParams, LfmParams, LfmValidParams,
};
pub use qp::{ExactQp, MixingQp, QpSolver};
pub use sustain::{FittedSustain, Sustain, SustainParams, SustainValidParams};
pub use synthetic::{SyntheticData, SyntheticParams};
pub use tensor::{Tensor, cp_to_tensor, khatri_rao};
pub use tucker::{FittedTucker, Tucker, TuckerParams, TuckerValidParams};
