//! `arow`: adaptive regularization of weight vectors (see [`Arow`]); the epoch loop,
//! decoding and difference vector are shared with `ap` and `pa` in `online.rs`.

use bl_core::engine::Observer;
use serde::{Deserialize, Serialize};

use super::online::{Decoded, EpsilonTest, SparseDelta, Update, Weights, epochs};
use super::{Job, Trained, positive};
use crate::error::Result;

/// Settings of `arow`: adaptive regularization of weight vectors (K. Crammer, A. Kulesza,
/// M. Dredze, *Adaptive regularization of weight vectors*, NIPS 2009) with a diagonal
/// covariance, in the structured form of A. Mejer and K. Crammer (*Confidence in
/// structured-prediction using confidence-weighted models*, EMNLP 2010) that CRFsuite's
/// `arow` trainer runs, with CRFsuite's parameter names and defaults.
///
/// The weights are a Gaussian: a mean `μ` (the model's weights) and a diagonal covariance
/// `Σ`, initially `variance` on every feature. Every epoch visits the training sequences
/// in a new shuffled order. A sequence whose Viterbi path `ŷ` under `μ` differs from the
/// gold path `y` in `d > 0` items has the hinge loss with the Hamming distance as margin,
///
/// `ℓ = s(x, ŷ) - s(x, y) + d`,
///
/// and with `Δ = Φ(x, y) - Φ(x, ŷ)` (state features with the attribute's value,
/// transitions with 1) the update is the paper's, with `r = gamma`:
///
/// `α = ℓ / (Δᵀ Σ Δ + gamma)`, `μ_k += α Σ_kk Δ_k`, `1 / Σ_kk += Δ_k^2 / gamma`
///
/// (only the features in `Δ` change). The epoch's loss is the sum of `ℓ` over its
/// mistaken sequences; the returned weights are the last mean (no averaging, as in
/// CRFsuite).
///
/// CRFsuite's `max_iterations` (default 100) and `epsilon` (default 0) are the fit's
/// `max_iter` and `tol` ([`crate::CrfParams::new`] sets these defaults): training stops
/// after an epoch whose summed loss divided by the number of sequences is *at most*
/// `epsilon`, reported as converged, as the CRFsuite bundled in python-crfsuite 0.9.12
/// (the one sklearn-crfsuite 0.5.0 runs) tests it. With the default `epsilon = 0` the fit
/// so stops after the first epoch without a mistake (every later epoch would change
/// nothing: `arow` updates only on mistakes). (`ap` and `pa` test *below* `epsilon`, as
/// that CRFsuite does; some other CRFsuite sources test `arow` with *below* too, which
/// runs every epoch of the budget by default.) The log has one record per epoch: the
/// loss, `errors` (wrong items), the norm and nonzero count of `μ`, the time and the
/// held-out accuracy of `μ`.
///
/// Where this differs from CRFsuite: the order is a Fisher-Yates shuffle drawn from the
/// fit's `seed` (CRFsuite: the C library's `rand()`); features of items where the two
/// paths agree are not touched (CRFsuite adds and subtracts them, equal up to rounding).
///
/// A second core: none is used. Each instance is decoded with the mean its predecessor's
/// update left, so the fit runs on one thread whatever `threads` says.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Arow {
    /// The initial variance of every weight (`variance`, default 1; finite and > 0).
    pub variance: f64,
    /// The trade-off `r` of the paper (`gamma`, default 1; finite and > 0): larger
    /// values make smaller, more cautious updates.
    pub gamma: f64,
}

impl Default for Arow {
    fn default() -> Self {
        Self {
            variance: 1.0,
            gamma: 1.0,
        }
    }
}

impl Arow {
    pub(crate) fn check(&self) -> Result<()> {
        positive("variance", self.variance)?;
        positive("gamma", self.gamma)?;
        Ok(())
    }
}

/// The AROW step with its diagonal covariance.
pub(crate) struct Step {
    pub(crate) gamma: f64,
    pub(crate) cov: Vec<f64>,
}

impl Step {
    /// The update along `delta` for the loss `cost` (struct docs of [`Arow`]).
    fn apply(&mut self, cost: f64, delta: &SparseDelta, weights: &mut Weights) {
        let mut confidence = self.gamma;
        for &(k, v) in delta.entries() {
            confidence += v * v * self.cov[k as usize];
        }
        let alpha = cost / confidence;
        for &(k, v) in delta.entries() {
            let k = k as usize;
            let c = self.cov[k];
            weights.add(k, alpha * c * v);
            self.cov[k] = 1.0 / (1.0 / c + v * v / self.gamma);
        }
    }
}

impl Update for Step {
    fn update(
        &mut self,
        decoded: &Decoded,
        _n_items: usize,
        delta: &SparseDelta,
        weights: &mut Weights,
    ) -> f64 {
        let cost = decoded.viterbi_score - decoded.gold_score + decoded.errors as f64;
        self.apply(cost, delta, weights);
        cost
    }

    fn epsilon_test(&self) -> EpsilonTest {
        EpsilonTest::AtMost
    }
}

/// AROW's initial diagonal covariance: `variance` for each of `dim` features.
///
/// # Errors
/// `BlError::InvalidParameter` naming the weights when `dim` exceeds
/// [`bl_core::limits::MAX_ELEMENTS`] or the buffer cannot be reserved.
pub(crate) fn variances(dim: usize, variance: f64) -> Result<Vec<f64>> {
    Ok(bl_core::limits::try_filled(
        "weights (arow covariance)",
        &[dim],
        variance,
    )?)
}

pub(super) fn train(
    s: &Arow,
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    let dim = job.features.len();
    let mut step = Step {
        gamma: s.gamma,
        cov: variances(dim, s.variance)?,
    };
    epochs(job, observers, Weights::new(dim, false)?, &mut step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::Algorithm;

    #[test]
    fn the_one_machine_and_the_distributed_fit_stop_arow_alike() {
        // The one-machine loop asks the update (`Update::epsilon_test`), the distributed
        // one the algorithm (`EpsilonTest::of`): both say "at most" for arow, and the
        // other online trainers keep the default "below".
        let step = Step {
            gamma: 1.0,
            cov: Vec::new(),
        };
        assert_eq!(step.epsilon_test(), EpsilonTest::AtMost);
        assert_eq!(
            EpsilonTest::of(&Algorithm::Arow(Arow::default())),
            EpsilonTest::AtMost
        );
        for name in ["ap", "pa"] {
            let algorithm = Algorithm::from_name(name).unwrap();
            assert_eq!(EpsilonTest::of(&algorithm), EpsilonTest::Below, "{name}");
        }
    }

    #[test]
    fn two_steps_match_the_hand_computation() {
        // variance 1, gamma 1.
        let mut step = Step {
            gamma: 1.0,
            cov: vec![1.0; 3],
        };
        let mut w = Weights::new(3, false).unwrap();
        // Δ = (1, -2, 0), ℓ = 3: α = 3 / (1 + 1 + 4) = 0.5.
        step.apply(
            3.0,
            &SparseDelta::from_entries(vec![(0, 1.0), (1, -2.0)]),
            &mut w,
        );
        assert_eq!(w.w, [0.5, -1.0, 0.0]);
        assert_eq!(step.cov, [0.5, 0.2, 1.0]);
        // Δ = (0, 1, 3), ℓ = 2: α = 2 / (1 + 0.2 + 9).
        step.apply(
            2.0,
            &SparseDelta::from_entries(vec![(1, 1.0), (2, 3.0)]),
            &mut w,
        );
        let alpha = 2.0 / 10.2;
        let want = [0.5, -1.0 + alpha * 0.2, alpha * 3.0];
        for (g, e) in w.w.iter().zip(want) {
            assert!((g - e).abs() < 1e-15);
        }
        let want_cov = [0.5, 1.0 / 6.0, 0.1];
        for (g, e) in step.cov.iter().zip(want_cov) {
            assert!((g - e).abs() < 1e-15);
        }
    }
}
