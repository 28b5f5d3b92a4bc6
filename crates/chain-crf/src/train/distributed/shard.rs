//! A worker's shard (module docs of [`super`]): its sequences with the shared ids and
//! feature set, its `lbfgs` sums and its online epochs ([`Shard`]), and the seed of its
//! shuffles ([`shard_seed`]).

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::mixing::{EpochResult, OnlineState};
use super::plan::Remap;
use crate::data::Dataset;
use crate::error::Result;
use crate::features::FeatureSet;
use crate::train::ap::Perceptron;
use crate::train::arow::Step;
use crate::train::online::{Decoder, SparseDelta, Update, one_epoch};
use crate::train::{Algorithm, lbfgs};
use bl_core::error::build::{invalid, shape_mismatch as mismatch};

/// The seed of shard `index`'s shuffles for a fit seeded with `seed`: `seed` itself for
/// shard 0 (so a one-shard fit shuffles as the one-machine fit), a SplitMix64 mix of both
/// for the others.
pub fn shard_seed(seed: u64, index: usize) -> u64 {
    if index == 0 {
        return seed;
    }
    let mut z = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A worker's sequences with the shared ids and feature set (module docs), and the
/// state of its online epochs (its order, shuffled every epoch, and its generator).
#[derive(Debug)]
pub struct Shard {
    data: Dataset,
    features: FeatureSet,
    order: Vec<usize>,
    rng: StdRng,
}

impl Shard {
    /// Shard `index` (0-based, in the order of the summaries) of a fit seeded with `seed`:
    /// `local` (the data set the summary was made of) translated by `remap`.
    ///
    /// # Errors
    /// `ShapeMismatch` when `remap` does not fit `local`'s dictionaries or `features`'
    /// sizes; `Input` for a label outside `local`'s dictionary.
    pub fn new(
        mut local: Dataset,
        remap: &Remap,
        features: FeatureSet,
        index: usize,
        seed: u64,
    ) -> Result<Self> {
        if (remap.n_attributes, remap.n_labels) != (features.n_attributes(), features.n_labels()) {
            return Err(mismatch(
                "shard: remap and feature set",
                format!(
                    "{} attributes and {} labels",
                    features.n_attributes(),
                    features.n_labels()
                ),
                format!("{} and {}", remap.n_attributes, remap.n_labels),
            ));
        }
        local.remap(&remap.attributes, &remap.labels)?;
        let n = local.len();
        Ok(Self {
            data: local,
            features,
            order: (0..n).collect(),
            rng: StdRng::seed_from_u64(shard_seed(seed, index)),
        })
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the shard has no sequence.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Number of features (the length of a weight vector).
    pub fn n_features(&self) -> usize {
        self.features.len()
    }

    fn check_len(&self, context: &'static str, n: usize) -> Result<()> {
        if n != self.features.len() {
            return Err(mismatch(context, self.features.len(), n));
        }
        Ok(())
    }

    /// The negative log-likelihood of the shard's sequences at `w`, `sum_s (log Z(x_s) -
    /// score(x_s, y_s))` without any penalty, with its gradient written into `grad`: the
    /// one-machine fit's per-sequence code, on one thread.
    ///
    /// # Errors
    /// `ShapeMismatch` when `w` or `grad` does not have one entry per feature.
    pub fn loss_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        self.check_len("shard gradient: weights", w.len())?;
        self.check_len("shard gradient: gradient", grad.len())?;
        Ok(lbfgs::Likelihood::new(&self.data, &self.features, 1)?.eval(w, grad))
    }

    /// One epoch of `algorithm` (`ap`, `pa` or `arow`) over the shard from `state`: the
    /// one-machine trainer's epoch on these sequences, in this shard's next shuffled
    /// order.
    ///
    /// # Errors
    /// `InvalidParameter` for another algorithm; `ShapeMismatch` when `state` is not a
    /// state of `algorithm` over this feature set.
    pub fn epoch(&mut self, algorithm: &Algorithm, state: &OnlineState) -> Result<EpochResult> {
        state.check_for(algorithm, self.features.len())?;
        let mut weights = state.weights.clone();
        let mut decoder = Decoder::new(&self.features, &weights.w)?;
        let mut delta = SparseDelta::default();
        let mut pa;
        let mut arow = Step {
            gamma: 1.0,
            cov: Vec::new(),
        };
        let update: &mut dyn Update = match algorithm {
            Algorithm::AveragedPerceptron(_) => &mut Perceptron,
            Algorithm::PassiveAggressive(s) => {
                pa = *s;
                &mut pa
            }
            Algorithm::Arow(s) => {
                arow.gamma = s.gamma;
                arow.cov = state.cov.clone().unwrap_or_default();
                &mut arow
            }
            other => return Err(invalid("algorithm", other.name(), "ap, pa or arow")),
        };
        let stats = one_epoch(
            &self.data,
            &self.features,
            &mut self.order,
            &mut self.rng,
            &mut decoder,
            &mut delta,
            &mut weights,
            update,
        );
        let cov = match algorithm {
            Algorithm::Arow(_) => Some(std::mem::take(&mut arow.cov)),
            _ => None,
        };
        Ok(EpochResult {
            state: OnlineState { weights, cov },
            loss: stats.loss,
            errors: stats.errors as u64,
            mistakes: stats.mistakes as u64,
            instances: self.data.len() as u64,
        })
    }
}
