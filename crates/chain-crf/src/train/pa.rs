//! `pa`: passive-aggressive training (see [`PassiveAggressive`]); the epoch loop, decoding,
//! difference vector and lazy average are shared with `ap` and `arow` in `online.rs`.

use bl_core::engine::Observer;
use serde::{Deserialize, Serialize};

use super::online::{Decoded, SparseDelta, Update, Weights, epochs};
use super::{Job, Trained, positive};
use crate::error::Result;

/// Settings of `pa`: passive-aggressive training (K. Crammer, O. Dekel, J. Keshet,
/// S. Shalev-Shwartz, Y. Singer, *Online passive-aggressive algorithms*, JMLR 7, 2006),
/// in the structured, cost-sensitive form CRFsuite's `pa` trainer runs, with CRFsuite's
/// parameter names and defaults.
///
/// Every epoch visits the training sequences in a new shuffled order. A sequence whose
/// Viterbi path `ŷ` under the current weights differs from the gold path `y` in `d > 0`
/// items has the cost
///
/// `ℓ = s(x, ŷ) - s(x, y) + sqrt(d)` (with `error_sensitive`; `+ 1` without),
///
/// where `s` is the model's score of a path: the margin the paper's cost-sensitive
/// (prediction-based) update asks for, with the Hamming distance as the cost `ρ(y, ŷ) = d`.
/// With `Δ = Φ(x, y) - Φ(x, ŷ)` (state features with the attribute's value, transitions
/// with 1), the weights move by `w += τ Δ` with the paper's closed-form step:
///
/// | `pa_type` | CRFsuite `type` | `τ` |
/// |---|---|---|
/// | [`PaType::Pa`] | 0 | `ℓ / ||Δ||^2` |
/// | [`PaType::PaI`] | 1 | `min(c, ℓ / ||Δ||^2)` |
/// | [`PaType::PaII`] | 2 | `ℓ / (||Δ||^2 + 1 / (2c))` |
///
/// The epoch's loss is the sum of `ℓ` over its mistaken sequences. With `averaging` the
/// returned weights are the average of the weight vectors after every instance (as the
/// averaged perceptron, kept lazily); without it, the last weights.
///
/// CRFsuite's `max_iterations` (default 100) and `epsilon` (default 0) are the fit's
/// `max_iter` and `tol` ([`crate::CrfParams::new`] sets these defaults): training stops
/// after an epoch whose summed loss divided by the number of sequences is *below*
/// `epsilon` (so the default runs every epoch), reported as converged. The log has one
/// record per epoch: the loss, `errors` (wrong items), the norm and nonzero count of the
/// returned (averaged or last) weights, the time and their held-out accuracy.
///
/// Where this differs from CRFsuite: the order is a Fisher-Yates shuffle drawn from the
/// fit's `seed` (CRFsuite: the C library's `rand()`); the average is over the weights
/// after instances `1..T` (CRFsuite also counts the initial zero vector, which multiplies
/// its weights by `T / (T + 1)` and changes no prediction); the logged norm is that of
/// the returned weights (CRFsuite logs the norm of the last, unaveraged, weights); a
/// mistaken sequence with `Δ = 0` (the two paths have the same features, possible when
/// `min_freq` dropped some) counts its loss but changes nothing (CRFsuite's step would be
/// infinite for types 0 and 1); features of items where the two paths agree are not
/// touched (CRFsuite adds and subtracts them, equal up to rounding).
///
/// A second core: none is used. Each instance is decoded with the weights its
/// predecessor's update left, so the fit runs on one thread whatever `threads` says.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PassiveAggressive {
    /// The step rule (CRFsuite's `type`, default 1: [`PaType::PaI`]).
    pub pa_type: PaType,
    /// The aggressiveness parameter `C` of PA-I and PA-II (`c`, default 1; must be
    /// finite and > 0, also for PA, which does not read it).
    pub c: f64,
    /// Margin `sqrt(d)` for `d` wrong items instead of 1 (`error_sensitive`, default
    /// true).
    pub error_sensitive: bool,
    /// Return the average of the weights after every instance (`averaging`, default
    /// true).
    pub averaging: bool,
}

impl Default for PassiveAggressive {
    fn default() -> Self {
        Self {
            pa_type: PaType::PaI,
            c: 1.0,
            error_sensitive: true,
            averaging: true,
        }
    }
}

/// The passive-aggressive step rule (CRFsuite's `type`; the table of
/// [`PassiveAggressive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum PaType {
    /// Type 0: PA without slack, `τ = ℓ / ||Δ||^2`.
    Pa,
    /// Type 1 (the default): PA-I, `τ = min(C, ℓ / ||Δ||^2)`.
    #[default]
    PaI,
    /// Type 2: PA-II, `τ = ℓ / (||Δ||^2 + 1 / (2C))`.
    PaII,
}

impl PaType {
    /// CRFsuite's number of the type: 0, 1 or 2.
    pub fn code(self) -> u8 {
        match self {
            Self::Pa => 0,
            Self::PaI => 1,
            Self::PaII => 2,
        }
    }

    /// The type of CRFsuite's number (`pa_type` of sklearn-crfsuite).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] for a number other than 0, 1, 2 (CRFsuite
    /// would run type 0).
    pub fn from_code(code: i64) -> Result<Self> {
        match code {
            0 => Ok(Self::Pa),
            1 => Ok(Self::PaI),
            2 => Ok(Self::PaII),
            _ => Err(bl_core::BlError::InvalidParameter {
                name: "type",
                value: code.to_string(),
                expected: "0 (PA), 1 (PA-I) or 2 (PA-II)".into(),
            }
            .into()),
        }
    }

    /// The step `τ` for the cost `cost`, `||Δ||^2 = norm2 > 0` and `C = c`.
    fn step(self, cost: f64, norm2: f64, c: f64) -> f64 {
        match self {
            Self::Pa => cost / norm2,
            Self::PaI => c.min(cost / norm2),
            Self::PaII => cost / (norm2 + 0.5 / c),
        }
    }
}

impl PassiveAggressive {
    pub(crate) fn check(&self) -> Result<()> {
        positive("c", self.c)?;
        Ok(())
    }
}

impl Update for PassiveAggressive {
    fn update(
        &mut self,
        decoded: &Decoded,
        _n_items: usize,
        delta: &SparseDelta,
        weights: &mut Weights,
    ) -> f64 {
        let margin = if self.error_sensitive {
            (decoded.errors as f64).sqrt()
        } else {
            1.0
        };
        let cost = decoded.viterbi_score - decoded.gold_score + margin;
        let norm2 = delta.norm2();
        if norm2 > 0.0 {
            let tau = self.pa_type.step(cost, norm2, self.c);
            weights.add_scaled(tau, delta);
        }
        cost
    }
}

pub(super) fn train(
    s: &PassiveAggressive,
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    let weights = Weights::new(job.features.len(), s.averaging)?;
    let mut rule = *s;
    epochs(job, observers, weights, &mut rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_steps_are_the_closed_forms() {
        for t in [PaType::Pa, PaType::PaI, PaType::PaII] {
            assert_eq!(PaType::from_code(i64::from(t.code())).unwrap(), t);
        }
        assert!(PaType::from_code(3).is_err());
        assert!(PaType::from_code(-1).is_err());
        // cost 3, ||Δ||^2 = 4, C = 0.5.
        assert_eq!(PaType::Pa.step(3.0, 4.0, 0.5), 0.75);
        assert_eq!(PaType::PaI.step(3.0, 4.0, 0.5), 0.5);
        assert_eq!(PaType::PaII.step(3.0, 4.0, 0.5), 0.6);
    }
}
