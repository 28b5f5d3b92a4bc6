//! Change measures for stopping rules.

/// The relative change `|new - old| / max(1, |old|)` of a scalar.
#[must_use]
pub fn relative_change(old: f64, new: f64) -> f64 {
    (new - old).abs() / old.abs().max(1.0)
}

/// Iterate-based relative change `||x^k - x^{k-1}||_F / max(1, ||x^{k-1}||_F)` over slices of
/// equal length (of unequal ones, only the entries up to the shorter length are read).
/// Combine several blocks by summing the squared differences and norms of each block,
/// see [`relative_change_blocks`].
///
/// SBLR's stopping quantity `q^k` (Shi, Xu, Baraniuk 2014, eq. (8)) is the larger of an
/// iterate change and an objective change, each with a `1 +` denominator instead of
/// `max(1, .)`; `sblr::StopCriterion` implements it and offers these two as options.
#[must_use]
pub fn relative_change_slices(old: &[f64], new: &[f64]) -> f64 {
    relative_change_blocks(&[(old, new)])
}

/// Iterate-based relative change over several blocks `(old, new)`:
/// `sqrt(sum ||new - old||^2) / max(1, sqrt(sum ||old||^2))` (a block of two unequal
/// lengths is read over the shorter, as in [`relative_change_slices`]).
#[must_use]
pub fn relative_change_blocks(blocks: &[(&[f64], &[f64])]) -> f64 {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (old, new) in blocks {
        for (&o, &n) in old.iter().zip(new.iter()) {
            diff += (n - o) * (n - o);
            norm += o * o;
        }
    }
    diff.sqrt() / norm.sqrt().max(1.0)
}
