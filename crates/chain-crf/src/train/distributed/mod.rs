//! Training on shards of the data held by other processes or machines: the parts a
//! distributed fit is made of, for a driver (such as the Python package's Dask fit) that
//! moves bytes between a client and its workers.
//!
//! **Encoding.** Each worker reads its sequences into an ordinary [`Dataset`] with its own
//! dictionaries, and sends the client its [`ShardSummary`]: the names it met (in order of
//! first occurrence) and the counts feature generation needs. The client merges the
//! summaries, in shard order, into a [`Plan`]: the shared attribute and label dictionaries
//! (names in order of first occurrence over the shards in order, so the same ids as one
//! pass over the concatenated data), the shared [`FeatureSet`] (CRFsuite's rules on the
//! summed counts, [`FeatureSet::generate`]'s result on the concatenation), and one
//! [`Remap`] per shard. A worker turns its data set and its remap into a [`Shard`] once;
//! the dictionaries are then frozen and never travel again.
//!
//! **`lbfgs`** by a distributed gradient: the client runs the one optimizer of the crate
//! ([`crate::optim`], which adds the penalties `c1 ||w||_1 + c2 ||w||^2`) on a
//! [`GradientSource`]; each evaluation sends `w` to every shard, whose
//! [`Shard::loss_and_gradient`] sums the negative log-likelihood and its gradient over its
//! sequences with the same per-sequence code as a one-machine fit, and the client adds the
//! shards' sums in shard order. The model is the one-machine fit's up to the order of
//! summation ([`fit_lbfgs`]).
//!
//! **`ap`, `pa`, `arow`** by iterative parameter mixing (R. McDonald, K. Hall and G.
//! Mann, *Distributed training strategies for the structured perceptron*, NAACL 2010):
//! every epoch, each worker runs one epoch of the one-machine trainer on its shard from
//! the current mixed [`OnlineState`] ([`Shard::epoch`]: its own order, shuffled every
//! epoch from a seed of its own, [`shard_seed`]), and the client [`mix`]es the results
//! into the state of the next epoch ([`fit_online`]). What is mixed:
//!
//! - the **current weights** `w` (the weights the trainer decodes with and updates), for
//!   all three: `w = sum_i m_i w_i / sum_i m_i`, weighted by `m_i`, the number of
//!   sequences shard `i` was mistaken on (and so updated on) in the epoch. This is the
//!   error-weighted mixture of McDonald et al., whose convergence bound holds for any
//!   mixture and is tightest for this one: a shard that made no mistake returns the
//!   weights it was given and does not pull the others' corrections back towards them
//!   (a uniform mixture would divide every correction by the number of shards). When no
//!   shard made a mistake the weights are unchanged.
//! - for `ap` and for `pa` with `averaging`, the **averaged weights** are not mixed but
//!   accumulated: the model is the mean of every weight vector every shard passed
//!   through (after each of its instances), over all epochs, which is Collins' average
//!   over the union of the shards' trajectories, and with one shard exactly the
//!   one-machine average. The state keeps it in the lazy form of the one-machine
//!   trainer (`w` and `s = sum_t (t - 1) Δ_t`, `T` instances seen), so a shard's epoch
//!   costs what a one-machine epoch costs.
//! - for `arow`, the **covariance** (one variance per feature) is combined through the
//!   precisions: AROW's step adds `v^2 / gamma` to a feature's precision `1 / sigma`,
//!   whatever the weights, so the precision after the epoch is the precision before plus
//!   every shard's increment, `1 / sigma = 1 / sigma_0 + sum_i (1 / sigma_i - 1 /
//!   sigma_0)`: the confidence the model would have after the same updates made on one
//!   machine. (Averaging the variances would undo most of the shrinkage of a feature
//!   seen on one shard only.)
//!
//! With one shard, mixing returns that shard's state unchanged, so a one-shard fit is the
//! one-machine fit bit for bit (same seed, `threads = 1` for `lbfgs`).
//!
//! **Bytes.** Every message has a versioned byte form (`to_bytes` / `from_bytes`), read
//! back with every length and value checked ([`crate::CrfError::Serialized`] otherwise).
//! What travels per `lbfgs` evaluation is `w` to each shard and its gradient back
//! ([`vector_to_bytes`]: 8 bytes per feature plus a small header); per online epoch, the
//! state to each shard and its new state back (8 bytes per feature for `w`, plus 8 for
//! the average's sum, or 8 for AROW's variances).

mod bytes;
mod fit;
mod mixing;
mod plan;
mod shard;

pub use bytes::{vector_from_bytes, vector_to_bytes};
pub use fit::{EpochSource, GradientSource, fit_lbfgs, fit_online};
pub use mixing::{EpochResult, OnlineState, mix};
pub use plan::{Plan, Remap, ShardSummary};
pub use shard::{Shard, shard_seed};

// What the module docs link to, and what the tests (`use super::*`) name.
#[cfg(any(doc, test))]
use crate::{data::Dataset, features::FeatureSet};
#[cfg(test)]
use {
    super::online::Weights,
    super::{Algorithm, FittedCrf, lbfgs},
    crate::error::Result,
    crate::features::FeatureOptions,
};

#[cfg(test)]
mod tests;
