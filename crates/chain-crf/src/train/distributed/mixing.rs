//! The online trainers' state between epochs ([`OnlineState`]), what a shard's epoch
//! returns ([`EpochResult`]) and their mixing into the next epoch's state ([`mix`])
//! (module docs of [`super`]).

use crate::error::Result;
use crate::train::Algorithm;
use crate::train::online::Weights;
use bl_core::error::build::{invalid, shape_mismatch as mismatch};

/// The state of `ap`, `pa` or `arow` between epochs (module docs): the current weights,
/// the lazy sum of the average when the trainer averages, the instances seen, and AROW's
/// variances.
#[derive(Debug, Clone, PartialEq)]
pub struct OnlineState {
    pub(super) weights: Weights,
    pub(super) cov: Option<Vec<f64>>,
}

impl OnlineState {
    /// The state before the first epoch: zero weights (and AROW's initial variance).
    ///
    /// # Errors
    /// `InvalidParameter` for an algorithm other than `ap`, `pa` and `arow`, or naming
    /// the weights when `n_features` exceeds [`bl_core::limits::MAX_ELEMENTS`] or the
    /// weights cannot be reserved (checked before they are allocated).
    pub fn initial(algorithm: &Algorithm, n_features: usize) -> Result<Self> {
        Ok(match algorithm {
            Algorithm::AveragedPerceptron(_) => Self {
                weights: Weights::new(n_features, true)?,
                cov: None,
            },
            Algorithm::PassiveAggressive(s) => Self {
                weights: Weights::new(n_features, s.averaging)?,
                cov: None,
            },
            Algorithm::Arow(s) => Self {
                weights: Weights::new(n_features, false)?,
                cov: Some(crate::train::arow::variances(n_features, s.variance)?),
            },
            other => return Err(invalid("algorithm", other.name(), "ap, pa or arow")),
        })
    }

    pub(super) fn check_for(&self, algorithm: &Algorithm, n_features: usize) -> Result<()> {
        let (averaging, arow) = match algorithm {
            Algorithm::AveragedPerceptron(_) => (true, false),
            Algorithm::PassiveAggressive(s) => (s.averaging, false),
            Algorithm::Arow(_) => (false, true),
            other => return Err(invalid("algorithm", other.name(), "ap, pa or arow")),
        };
        if self.weights.w.len() != n_features {
            return Err(mismatch(
                "online state: weights",
                n_features,
                self.weights.w.len(),
            ));
        }
        if self.weights.sum.is_some() != averaging || self.cov.is_some() != arow {
            return Err(mismatch(
                "online state",
                format!("a state of {}", algorithm.name()),
                "the state of another trainer",
            ));
        }
        Ok(())
    }

    /// The current weights (those the trainer decodes with).
    pub fn weights(&self) -> &[f64] {
        &self.weights.w
    }

    /// The model's weights: the average for an averaging trainer, else the current ones.
    pub fn model_weights(&self) -> Vec<f64> {
        self.weights.clone().into_model_weights()
    }

    /// Instances seen so far, over all shards and epochs.
    pub fn instances(&self) -> u64 {
        self.weights.seen
    }

    /// AROW's variances.
    pub fn variances(&self) -> Option<&[f64]> {
        self.cov.as_deref()
    }
}

/// What one shard's epoch returns: its state after the epoch, its summed loss, wrongly
/// labelled items, mistaken sequences (the updates) and sequences.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochResult {
    pub(super) state: OnlineState,
    pub(super) loss: f64,
    pub(super) errors: u64,
    pub(super) mistakes: u64,
    pub(super) instances: u64,
}

impl EpochResult {
    /// The shard's state after its epoch.
    pub fn state(&self) -> &OnlineState {
        &self.state
    }

    /// The epoch's summed loss (the trainer's loss of each mistaken sequence).
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// Items labelled wrongly during the epoch.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// Sequences the trainer was mistaken on (and updated on).
    pub fn mistakes(&self) -> u64 {
        self.mistakes
    }

    /// Sequences of the shard (instances of the epoch).
    pub fn instances(&self) -> u64 {
        self.instances
    }
}

/// Mixes the shards' epochs that started from `previous` into the state of the next
/// epoch (module docs: error-weighted current weights, the accumulated average, AROW's
/// precisions added). One result is returned unchanged.
///
/// # Errors
/// `Empty` without a result; `ShapeMismatch` when a result is not a state of the same
/// trainer and size as `previous`, or its instance count disagrees with its state.
pub fn mix(previous: &OnlineState, results: &[EpochResult]) -> Result<OnlineState> {
    bl_core::error::ensure_nonempty("epoch results", results.len())?;
    let n = previous.weights.w.len();
    let t0 = previous.weights.seen;
    for r in results {
        let s = &r.state;
        if s.weights.w.len() != n
            || s.weights.sum.is_some() != previous.weights.sum.is_some()
            || s.cov.is_some() != previous.cov.is_some()
        {
            return Err(mismatch(
                "mix: a shard's state",
                "the previous state's trainer and size",
                "another",
            ));
        }
        if s.weights.seen.checked_sub(t0) != Some(r.instances) {
            return Err(mismatch(
                "mix: instances seen",
                format!("{t0} + the shard's {}", r.instances),
                s.weights.seen,
            ));
        }
    }
    if results.len() == 1 {
        return Ok(results[0].state.clone());
    }
    let total_mistakes: u64 = results.iter().map(|r| r.mistakes).sum();
    let w: Vec<f64> = if total_mistakes == 0 {
        previous.weights.w.clone()
    } else {
        let m = total_mistakes as f64;
        (0..n)
            .map(|j| {
                results
                    .iter()
                    .map(|r| r.mistakes as f64 * r.state.weights.w[j])
                    .sum::<f64>()
                    / m
            })
            .collect()
    };
    let seen = t0 + results.iter().map(|r| r.instances).sum::<u64>();
    // The average: the sum of every iterate so far is T w - s (lazy form); add each
    // shard's part and return to the lazy form around the mixed w.
    let sum = previous.weights.sum.as_ref().map(|s0| {
        let t0f = t0 as f64;
        let tf = seen as f64;
        (0..n)
            .map(|j| {
                let before = t0f * previous.weights.w[j] - s0[j];
                let mut total = before;
                for r in results {
                    let st = &r.state.weights;
                    let s = st.sum.as_ref().map_or(0.0, |s| s[j]);
                    total += (st.seen as f64 * st.w[j] - s) - before;
                }
                tf * w[j] - total
            })
            .collect()
    });
    let cov = previous.cov.as_ref().map(|c0| {
        (0..n)
            .map(|j| {
                let p0 = 1.0 / c0[j];
                let mut p = p0;
                for r in results {
                    p += 1.0 / r.state.cov.as_ref().map_or(c0[j], |c| c[j]) - p0;
                }
                1.0 / p
            })
            .collect()
    });
    Ok(OnlineState {
        weights: Weights { w, sum, seen },
        cov,
    })
}
