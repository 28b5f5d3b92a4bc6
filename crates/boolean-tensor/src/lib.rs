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
pub use bmp::{Bmp, BmpParams, FittedBmp, fully_corrective_coefficients, search_atom};
pub use qp::QpSolver;
