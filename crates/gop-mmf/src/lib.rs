#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod arrangement;
pub mod dual;
pub mod error;
pub mod fitted;
pub mod gop;
pub mod lagrangian;
pub mod params;
mod predict;
pub mod primal;
pub mod synthetic;

pub use bl_core::{Fit, FitReport, Fitted, Observer, ParamGuard, Predict, PredictInplace};
pub use error::{GopError, Result};
pub use fitted::{Certificate, FittedGop, IterationRecord, NodeState, Timing, TreeNode};
pub use lagrangian::Linearization;
pub use params::{GopParams, GopValidParams};
pub use synthetic::{Planted, Table1Instance, fig3_instance, table1_instance};
