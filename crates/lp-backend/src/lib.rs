#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod conformance;
mod error;
mod good_lp_backend;
mod interior;
mod microlp_backend;
mod model;
mod solver;

pub use error::LpError;
pub use good_lp_backend::GoodLpMicrolp;
pub use interior::{InteriorPoint, InteriorPointSearch, interior_point};
pub use microlp_backend::Microlp;
pub use model::{Cmp, LinearProgram, Row, Sense, VarId, Variable};
pub use solver::{LpOutcome, LpSolution, LpSolver, LpStatus, WarmLp, status_of};

/// The default backend: [`Microlp`] (pure Rust, warm-started row extensions).
#[must_use]
pub fn default_solver() -> Microlp {
    Microlp
}
