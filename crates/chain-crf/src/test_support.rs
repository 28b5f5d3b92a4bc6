//! Helpers shared by the unit tests of several modules.

use crate::data::{Dataset, DatasetBuilder};
use crate::features::{FeatureOptions, FeatureSet};

/// An item: `(attribute, value)` pairs and a label.
pub(crate) type Item<'s> = (&'s [(&'s str, f64)], &'s str);

/// The data set of the sequences `seqs` and all its possible features (every attribute
/// with every label, every transition), so unseen pairs have features too.
pub(crate) fn with_all_features(seqs: &[&[Item<'_>]]) -> (Dataset, FeatureSet) {
    let mut b = DatasetBuilder::new();
    for seq in seqs {
        for (attrs, y) in *seq {
            for (a, v) in *attrs {
                b.attribute(a, *v).unwrap();
            }
            b.end_item(y).unwrap();
        }
        b.end_sequence().unwrap();
    }
    let data = b.finish();
    let features = FeatureSet::generate(
        &data,
        &FeatureOptions {
            all_possible_states: true,
            all_possible_transitions: true,
            ..FeatureOptions::default()
        },
    )
    .unwrap();
    (data, features)
}

/// `n` weights of both signs, `(j 37 mod 11 - 5) / 7` for feature `j`.
pub(crate) fn spread_weights(n: usize) -> Vec<f64> {
    (0..n).map(|j| ((j * 37 % 11) as f64 - 5.0) / 7.0).collect()
}

/// A small deterministic generator (linear congruential, no dependency on `rand`'s
/// streams): each call gives the next pseudo-random value.
pub(crate) fn lcg(seed: u64) -> impl FnMut() -> usize {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    }
}
