//! The parameters of a fitted model, whatever learner fitted it.

use serde::{Deserialize, Serialize};

use crate::crf::CrfWeights;
use crate::learner::OnlineWeights;

/// The parameters of a fitted model (saved as the `weights` field of the model's JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Weights {
    /// `W = alpha beta^T`: `alpha[k * L + a]`, `beta[k * (L + 1) + b]`.
    Bilinear { alpha: Vec<f64>, beta: Vec<f64> },
    /// Full matrix-feature weights `w[k * L * (L + 1) + a * (L + 1) + b]`.
    Linear { w: Vec<f64> },
    /// Sparse matrix-feature weights ([`crate::sparse`]).
    SparseLinear { w: crate::sparse::SparseWeights },
    /// The weights of a CRF.
    Crf(CrfWeights),
}

impl From<OnlineWeights> for Weights {
    fn from(weights: OnlineWeights) -> Self {
        match weights {
            OnlineWeights::Bilinear { alpha, beta } => Weights::Bilinear { alpha, beta },
            OnlineWeights::Linear { w } => Weights::Linear { w },
            OnlineWeights::SparseLinear { w } => Weights::SparseLinear { w },
        }
    }
}
