//! `pa` (being written).

use bl_core::engine::Observer;
use serde::{Deserialize, Serialize};

use super::{Job, Trained};
use crate::error::Result;

/// Settings of `pa` (being written).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct PassiveAggressive {}

/// Passive-aggressive type (being written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum PaType {
    /// PA.
    #[default]
    Pa,
}

impl PassiveAggressive {
    pub(crate) fn check(&self) -> Result<()> {
        Ok(())
    }
}

pub(super) fn train(
    _s: &PassiveAggressive,
    _job: &mut Job<'_>,
    _observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    Err(crate::CrfError::Model("pa is not written yet".into()))
}
