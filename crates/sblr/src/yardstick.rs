//! The physical yardstick of this crate's speed measurements: one streaming read of a
//! buffer (the sum of its entries, eight partial sums so the loop runs at memory speed).
//! One Alg. 2 iteration reads the samples exactly twice, so two such reads of the same
//! `f64` data are the floor an iteration is compared with (benches, `sblr-table1`).
//!
//! Behind the non-default cargo feature `probes`: not part of the stable API.

use bl_core::ParamGuard as _;
use bl_core::data::{Element, MatrixDataset};

use crate::bilinear::{BinarySolver, Penalties};
use crate::error::Result;

/// The sum of every entry of `data`, read once in order.
#[must_use]
pub fn streaming_read<T: Element>(data: &[T]) -> f64 {
    let mut acc = [0.0f64; 8];
    let chunks = data.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().map(|v| v.to_f64()).sum();
    for chunk in chunks {
        for (a, v) in acc.iter_mut().zip(chunk) {
            *a += v.to_f64();
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// The state every timing of an Alg. 2 iteration starts from: a rank-1 [`BinarySolver`]
/// on `data` with `penalties` and `threads` threads, past its first three iterations
/// (which search longer for their step parameter than the later ones).
///
/// # Errors
/// Invalid parameters or data, as [`BinarySolver::new`]; a failing step.
pub fn warmed_solver<T: Element>(
    data: &MatrixDataset<T>,
    penalties: Penalties,
    threads: usize,
) -> Result<BinarySolver<'_, T>> {
    let Penalties { mu1, mu2, nu1, nu2 } = penalties;
    let params = crate::SblrParams::default()
        .rank(1)
        .penalties(mu1, mu2, nu1, nu2)
        .threads(Some(threads))
        .check()?;
    let mut solver = BinarySolver::new(data, &params)?;
    for _ in 0..3 {
        solver.step()?;
    }
    Ok(solver)
}

#[cfg(test)]
mod tests {
    #[test]
    fn streaming_read_is_the_sum() {
        let data: Vec<f64> = (0..21).map(f64::from).collect();
        assert_eq!(super::streaming_read(&data), 210.0);
        let narrow: Vec<f32> = (0..21u8).map(f32::from).collect();
        assert_eq!(super::streaming_read(&narrow), 210.0);
    }
}
