#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod boolean_qp;
pub mod certificate;
pub mod error;
pub mod exact;
pub mod mixing;
pub mod params;
pub mod problem;
pub mod rounding;
pub mod solve;
pub mod solver;

pub use boolean_qp::{BooleanQp, BqpExactSolution, BqpSolution};
pub use certificate::MAX_DUAL_BOUND_N;
pub use error::{MaxcutError, Result};
pub use exact::{ExactSolution, MAX_EXACT_N};
pub use mixing::{Mixing, SweepForm, Termination};
pub use params::{LowRankMode, MixingParams, Order, auto_rank};
pub use problem::{CostForm, Problem};
pub use rounding::Rounding;
pub use solve::{MixingInfo, MixingSolution};
pub use solver::{BooleanQpSolver, BqpOutcome, ExactBqp};
