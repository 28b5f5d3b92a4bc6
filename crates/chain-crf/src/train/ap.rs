//! `ap`: the averaged structured perceptron (see [`AveragedPerceptron`]); the epoch
//! loop, decoding, difference vector and lazy average are shared with `pa` and `arow` in
//! `online.rs`.

use bl_core::engine::Observer;
use serde::{Deserialize, Serialize};

use super::online::{Decoded, SparseDelta, Update, Weights, epochs};
use super::{Job, Trained};
use crate::error::Result;

/// Settings of `ap`: the averaged structured perceptron (M. Collins, *Discriminative
/// training methods for hidden Markov models: theory and experiments with perceptron
/// algorithms*, EMNLP 2002), as CRFsuite's `ap` trainer runs it.
///
/// Every epoch visits the training sequences in a new shuffled order. A sequence whose
/// Viterbi path `ŷ` under the current weights differs from the gold path `y` in `d > 0`
/// items gets the update `w += Φ(x, y) - Φ(x, ŷ)` (state features with the attribute's
/// value, transitions with 1); its loss is `d / n`, the share of its `n` items that were
/// wrong (CRFsuite's definition). The returned weights are the average of the weight
/// vectors after every instance over all epochs (Collins' averaging), kept lazily: each
/// update costs only the features of the items where the two paths differ.
///
/// CRFsuite's two parameters are the fit's iteration knobs ([`crate::CrfParams::new`]
/// sets CRFsuite's defaults): `max_iterations` (default 100) is `max_iter`, and `epsilon`
/// (default 0) is `tol`: training stops after an epoch whose summed loss divided by the
/// number of sequences is *below* `epsilon` (so the default runs every epoch), reported
/// as converged. The log has one record per epoch: the loss, `errors` (wrong items), the
/// norm and nonzero count of the averaged weights (as CRFsuite logs), the time and the
/// held-out accuracy of the averaged weights.
///
/// Where this differs from CRFsuite: the order is a Fisher-Yates shuffle of the previous
/// epoch's order drawn from the fit's `seed` (CRFsuite shuffles with the C library's
/// `rand()`); the average is over the weights after instances `1..T` (CRFsuite also counts
/// the initial zero vector, which multiplies its weights by `T / (T + 1)` and changes no
/// prediction); features of items where the two paths agree are not touched (CRFsuite
/// adds and subtracts them, equal up to rounding).
///
/// A second core: none is used. The perceptron is sequential (each instance is decoded
/// with the weights its predecessor's update left), so the fit runs on one thread whatever
/// `threads` says. Iterative parameter mixing over shards, which trains another model, is
/// [`crate::distributed::fit_online`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct AveragedPerceptron {}

impl AveragedPerceptron {
    pub(crate) fn check(&self) -> Result<()> {
        Ok(())
    }
}

/// The perceptron step: `w += delta`, loss `d / n`.
pub(crate) struct Perceptron;

impl Update for Perceptron {
    fn update(
        &mut self,
        decoded: &Decoded,
        n_items: usize,
        delta: &SparseDelta,
        weights: &mut Weights,
    ) -> f64 {
        weights.add_scaled(1.0, delta);
        decoded.errors as f64 / n_items as f64
    }
}

pub(super) fn train(
    _s: &AveragedPerceptron,
    job: &mut Job<'_>,
    observers: &mut [&mut dyn Observer],
) -> Result<Trained> {
    let weights = Weights::new(job.features.len(), true)?;
    epochs(job, observers, weights, &mut Perceptron)
}
