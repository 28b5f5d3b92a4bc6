#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod conformance;
mod error;
mod good_lp_backend;
mod interior;
mod microlp_backend;
mod model;
mod outcome;
mod solver;
mod status;

pub use bl_core::{ConformanceReport, Extension};
pub use error::LpError;
pub use good_lp_backend::GoodLpMicrolp;
pub use interior::{InteriorPoint, InteriorPointSearch, interior_point};
pub use microlp_backend::Microlp;
pub use model::{Cmp, LinearProgram, Row, Sense, VarId, Variable};
pub use outcome::{LpOutcome, LpSolution, status_of};
pub use solver::{LpSolver, WarmLp};
pub use status::LpStatus;

/// The default backend: [`Microlp`] (pure Rust, warm-started row extensions).
#[must_use]
pub fn default_solver() -> Microlp {
    Microlp
}
