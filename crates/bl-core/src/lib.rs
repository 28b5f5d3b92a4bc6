#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod data;
pub mod engine;
pub mod error;
pub mod io;
pub mod linalg;
pub mod logistic;
pub mod metrics;
pub mod prox;
pub mod random;

pub use error::{BlError, Result};
