//! `l2sgd` (being written).

use bl_core::engine::Observer;
use serde::{Deserialize, Serialize};

use super::{Job, Trained};
use crate::error::Result;

/// Settings of `l2sgd` (being written).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct L2sgd {}

impl L2sgd {
    pub(crate) fn check(&self) -> Result<()> {
        Ok(())
    }
}

pub(super) fn train(
    _s: &L2sgd,
    _job: &mut Job<'_>,
    _observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    Err(crate::CrfError::Model("l2sgd is not written yet".into()))
}
