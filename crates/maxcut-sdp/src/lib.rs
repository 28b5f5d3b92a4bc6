#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod boolean_qp;
pub mod bqp_fitted;
pub mod bqp_params;
pub mod bqp_solver;
pub mod certificate;
pub mod conformance;
pub(crate) mod cost;
pub mod error;
pub mod exact;
mod input;
pub mod mixing;
pub mod params;
pub mod problem;
pub mod rounding;
pub mod solution;
pub mod sweep_order;
pub mod synthetic;

pub use bl_core::{
    ConformanceReport, Extension, Fit, FitReport, Fitted, IterationParams, Observer, ParamGuard,
    TerminationReason,
};
pub use boolean_qp::{BooleanQp, BqpExactSolution};
pub use bqp_fitted::{BqpOutcome, FittedBqp};
pub use bqp_params::{BqpParams, BqpValidParams};
pub use bqp_solver::{BooleanQpSolver, ExactBqp};
pub use certificate::MAX_DUAL_BOUND_N;
pub use error::{MaxcutError, Result};
pub use exact::{ExactSolution, MAX_EXACT_N};
pub use mixing::{Mixing, SweepForm};
pub use params::{
    LowRankMode, MixingParams, MixingValidParams, SPARSE_FORM_DENSITY, SparseSweep, auto_rank,
};
pub use problem::{CostForm, Problem};
pub use rounding::Rounding;
pub use solution::{FittedMixing, MixingInfo};
pub use sweep_order::{Colored, Cyclic, RandomPermutation, SweepOrder};
