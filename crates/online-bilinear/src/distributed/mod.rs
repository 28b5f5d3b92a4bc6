//! Distributed training of the online learners (sp, bol, bcd) by iterative parameter
//! mixing (McDonald, Hall and Mann 2010, "Distributed training strategies for the
//! structured perceptron", Fig. 3): the training sentences are split into `k` shards; in
//! every epoch each shard runs one epoch of the learner over its own sentences, starting
//! from the current mixed weights, and the `k` resulting weights are averaged, uniformly,
//! into the next mixed weights.
//!
//! # The per-shard API
//!
//! - [`IpmPlan`]: what every shard shares (the checked parameters, the feature dictionary,
//!   the tag set, the number of shards). [`IpmPlan::from_prepared`] builds it from a
//!   [`PreparedCorpus`]; to build the dictionary from parts of a corpus held apart, count
//!   each part ([`FeatureCounts::count`]), merge the counts in part order
//!   ([`FeatureCounts::merge`]) and call [`IpmPlan::from_counts`]: the dictionary, tag
//!   set and so the model are those of the whole corpus. The plan travels as JSON
//!   ([`IpmPlan::to_json`], [`IpmPlan::from_json`]).
//! - [`Shard`]: one shard's sentences, encoded once with the plan's dictionary
//!   ([`Shard::encode`] from a [`Corpus`], [`Shard::from_prepared`] from a range of a
//!   [`PreparedCorpus`], which also covers attribute data through
//!   [`TaggerValidParams::prepare_dataset`]). [`Shard::run_epoch`] runs one epoch from
//!   given weights with a seed ([`IpmPlan::shard_seed`]) and returns the weights to mix.
//! - [`IpmWeights`]: the weights to mix, with a compact binary form
//!   ([`IpmWeights::to_bytes`], [`IpmWeights::from_bytes`]: a version, every field
//!   checked, a checksum). [`IpmPlan::initial_weights`] gives those of epoch 0,
//!   [`IpmPlan::mix`] mixes the shards' weights, [`IpmPlan::stop_after`] says whether to
//!   stop after an epoch, and [`IpmPlan::finish`] builds the [`FittedTagger`] from the
//!   final mixed weights (its report's trace records the change `stop_after` compares with
//!   `tol`). [`fit_ipm`] runs the whole loop in one process
//!   (shards one after the other): with one shard its weights are the ordinary fit's, bit
//!   for bit, and so is its report but for the times, unless the ordinary fit stops at its
//!   time limit (IPM does not read it).
//!
//! # What is mixed
//!
//! Uniform mixing: every value of the next mixed state is the mean of the shards' values
//! (`mu_i = 1 / k`, the uniform case of McDonald et al.'s `sum_i mu_i w_i`), not weighted by
//! the shard's size or update count. Uniform mixing is their main setting, keeps sp's
//! training weights integers (below) and is exact for identical shards; give the shards
//! equal sizes, since a small shard counts as much as a large one. [`fit_ipm`] splits the
//! sentences evenly; the Python estimator takes each of its partitions that has a
//! non-empty sentence as one shard, as given (and warns when their sizes differ by a
//! factor of two or more).
//!
//! Each learner's state is mixed where its updates are additive, which is what makes IPM
//! the perceptron's argument:
//!
//! - **sp**: the weights `W` (first-order and 0-order) are sums of `+-1` updates, so their
//!   mean is IPM exactly. sp decodes with exact integer sums (see
//!   [`crate::learner::Sp`]); the mean of `k` shards' weights is a multiple of `1 / k`.
//!   So the shards train on `k W` with steps of `k` (the same decisions: every score is
//!   multiplied by `k`, exactly), the mean of `k` such states is again an integer
//!   state of the same scale, and [`IpmPlan::finish`] divides the final weights by `k`.
//! - **bol**: the additive state is the dual matrix `Theta` (`Theta += C DeltaPhi` on a
//!   mistake); the model is its rank-one primal blocks `W_k = alpha_k beta_k^T`, which the
//!   learner tracks with `R` warm-started power steps per update. `Theta` is mixed by the
//!   mean; each block's factors are the mean of the shards' primal blocks
//!   `(1/k) sum_i alpha_i beta_i^T`, projected onto rank one (its leading singular pair;
//!   the mean has rank at most `k`, so power steps run on a `k x k` matrix of Gram
//!   products, to a relative change of `1e-14`). This is IPM on the weights the model scores with, kept in bol's model
//!   class; it is insensitive to signs (`(-u, -v)` is the same block). Averaging the
//!   factors themselves is not (two shards holding a block with opposite signs would
//!   cancel), and reading the factors off the mixed `Theta` with power steps (the first
//!   version) loses what the tracker knows: the learner's factors lag `Theta`'s leading
//!   pair, and re-reading them from the mean `Theta` cost 9.3 points on a 44-tag corpus
//!   (`docs/scaling-taggers.md`). A block whose state (`Theta` block and factors) is the
//!   same in every shard keeps it.
//! - **bcd**: its parameters are the factors themselves (`alpha` and `beta` are each
//!   updated by a linear SVM's dual steps, from the same start), so `alpha`, `beta` and the
//!   0-order weights are mixed (the mean). Each shard runs both passes of the epoch (the
//!   `alpha` pass, then the `beta` pass) before mixing.
//!
//! 0-order weights (all three learners) are sums of updates: mixed by the mean.
//!
//! **Averaging.** The averaged model of a learner is the mean of its weights over every
//! sentence visit; it is kept as `x - acc / T` (`T` visits, one accumulator per value).
//! Under IPM it is the mean over every visit of every shard of the weights that visit
//! saw: with `S = T x - acc` the sum over visits, the mixed sum is
//! `S' = S_0 + sum_i (S_i - S_0)` (`S_0` of the weights the shards started from), the
//! mixed count `T' = T_0 + sum_i (T_i - T_0)`, and the mixed accumulator
//! `acc' = T' x' - S'` for the mixed value `x'`. The final model averages as an ordinary
//! fit does ([`FittedTagger`] of [`IpmPlan::finish`]).
//!
//! Mixing one state returns it unchanged, so one shard is the ordinary fit, bit for bit
//! (`tests/online_bilinear_tests/distributed.rs`). The mean of values that are all equal
//! is that value, so `k` identical shards (same sentences, same seed) give the one-shard
//! running weights exactly, and the same averages up to rounding (for sp with `k` a power
//! of two, exactly).
//!
//! # The loop
//!
//! Epoch `e` (1-based) of shard `j`: the sentences in the order an ordinary fit with seed
//! [`IpmPlan::shard_seed(j)`](IpmPlan::shard_seed) visits them in its epoch `e` (the
//! seeded shuffles of the earlier epochs are replayed), decoded, updated on a mistake and
//! recorded as in [`crate::train`]. After mixing, the run stops as an ordinary fit does:
//! after `max_iter` epochs, or (converged) after an epoch in which at most `tol` of the
//! non-empty sentences of all shards caused an update. The time limit is not read.

mod binary;
mod codec;
mod counts;
mod mix;
mod plan;
mod shard;
mod weights;

use crate::error::OblError;
// What the module docs link to.
#[cfg(doc)]
use crate::{data::Corpus, fit::PreparedCorpus, model::FittedTagger, params::TaggerValidParams};

pub use counts::FeatureCounts;
pub use plan::IpmPlan;
pub use shard::{Shard, combine_epoch, fit_ipm};
pub use weights::IpmWeights;

/// The version of [`IpmWeights`]' binary form; [`IpmWeights::from_bytes`] refuses any
/// other.
pub const WEIGHTS_FORMAT_VERSION: u16 = 1;

/// The most shards a plan takes.
pub const MAX_SHARDS: usize = 4096;

const MAGIC: &[u8; 6] = b"OBLIPM";
const PLAN_FORMAT: &str = "online-bilinear-ipm-plan/1";
const COUNTS_FORMAT: &str = "online-bilinear-feature-counts/1";

fn serde_error(what: &str, detail: impl std::fmt::Display) -> OblError {
    OblError::Serde(format!("{what}: {detail}"))
}
