#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod atom;
pub mod error;
pub mod metrics;
pub mod synthetic;
pub mod tensor;

pub use atom::{Atom, BooleanFactor, Decomposition, atoms_to_tensor};
pub use error::{Result, TensorError};
pub use synthetic::{SyntheticData, SyntheticParams};
pub use tensor::{Tensor, cp_to_tensor, khatri_rao};
pub mod bmp;
pub mod qp;
pub use bmp::{
    AtomStep, Bmp, BmpParams, BmpValidParams, Candidate, FittedBmp, fully_corrective_coefficients,
    search_atom,
};
pub use qp::{ExactQp, MixingQp, QpSolver};
mod common;
pub mod cp;
pub mod lfm;
pub mod sustain;
pub mod tucker;
pub use bl_core::{Fit, FitReport, Fitted, Observer, ParamGuard};
pub use cp::{CpAls, CpAlsParams, CpAlsValidParams, FittedCp};
pub use lfm::{
    FittedLfm, FittedLfmMix, Lfm, LfmMixParams, LfmMixValidParams, LfmParams, LfmValidParams,
};
pub use sustain::{FittedSustain, Sustain, SustainParams, SustainValidParams};
pub use tucker::{FittedTucker, Tucker, TuckerParams, TuckerValidParams};
