//! `ap` (being written).

use bl_core::engine::Observer;
use serde::{Deserialize, Serialize};

use super::{Job, Trained};
use crate::error::Result;

/// Settings of `ap` (being written).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct AveragedPerceptron {}

impl AveragedPerceptron {
    pub(crate) fn check(&self) -> Result<()> {
        Ok(())
    }
}

pub(super) fn train(
    _s: &AveragedPerceptron,
    _job: &mut Job<'_>,
    _observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    Err(crate::CrfError::Model("ap is not written yet".into()))
}
