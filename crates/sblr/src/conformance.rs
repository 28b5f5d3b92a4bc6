//! The checks every [`BlockUpdate`] must pass, built-in or a user's (see
//! [`SblrParams::block_update`](crate::SblrParams::block_update)).
//!
//! [`check_block_update`] runs an update repeatedly on seeded random elastic-net logistic
//! blocks and checks that
//!
//! 1. the block objective `loss + penalty` never increases (Alg. 1 and Alg. 2 are descent
//!    methods; Shi, Xu, Baraniuk 2014, Sec. 3);
//! 2. the reported `loss_after` is the loss at the returned variable;
//! 3. the decision values in the state stay those of the variable;
//! 4. repeated updates reach the block minimizer: the first-order stationarity residual
//!    ([`LinearBlock::stationarity_residual`]) is at most `1e-5` after the updates.

use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::MatRef;

use crate::block::{BlockState, BlockUpdate, BlockWork, LinearBlock};

/// The shape and penalties of one conformance case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockCase {
    /// Features `d`.
    pub dim: usize,
    /// Samples `n`.
    pub samples: usize,
    /// l1 weight.
    pub l1: f64,
    /// Squared-l2 weight.
    pub l2: f64,
    /// Seed of the features and the labels.
    pub seed: u64,
    /// Updates before the stationarity check.
    pub updates: usize,
}

impl Default for BlockCase {
    fn default() -> Self {
        Self {
            dim: 4,
            samples: 40,
            l1: 0.01,
            l2: 0.1,
            seed: 0,
            updates: 400,
        }
    }
}

/// Runs the checks of the [module documentation](self) on one case; `Err` names the first
/// check that fails.
///
/// # Errors
/// A message naming the failed check and the values involved (also when `update` itself
/// returns an error); a case whose features (`dim x samples` values) exceed
/// [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated is refused with a message
/// before anything is allocated.
pub fn check_block_update(update: &dyn BlockUpdate, case: &BlockCase) -> Result<(), String> {
    let (d, n) = (case.dim.max(1), case.samples.max(2));
    let mut z = bl_core::limits::try_zeroed::<f64>("BlockCase: dim x samples", &[d, n])
        .map_err(|e| format!("case refused: {e}"))?;
    let mut work = BlockWork::new(d, n).map_err(|e| format!("case refused: {e}"))?;
    let mut rng = seeded_rng(case.seed);
    fill_standard_normal(&mut rng, &mut z);
    let y: Vec<f64> = (0..n)
        .map(|i| {
            if z[i * d] + 0.5 * z[(i * d + 1) % (d * n)] > 0.2 {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    let block = LinearBlock {
        z: MatRef::from_column_major_slice(&z, d, n),
        y: &y,
        l1: case.l1,
        l2: case.l2,
    };
    let mut x = vec![0.3; d + 1];
    let mut scores = vec![0.0; n];
    block.scores(&x, &mut scores);
    let mut lipschitz = 1.0;
    let mut last = block.loss(&scores) + block.penalty(&x);
    let mut fresh = vec![0.0; n];
    for k in 1..=case.updates {
        let info = update
            .update(
                &block,
                &mut BlockState::new(&mut x, &mut scores, &mut lipschitz),
                &mut work,
            )
            .map_err(|e| format!("update {k} failed: {e}"))?;
        block.scores(&x, &mut fresh);
        for (i, (a, b)) in fresh.iter().zip(&scores).enumerate() {
            if (a - b).abs() > 1e-10 * (1.0 + a.abs()) {
                return Err(format!(
                    "update {k}: stale decision value {i}: state {b}, recomputed {a}"
                ));
            }
        }
        let loss = block.loss(&fresh);
        if (info.loss_after - loss).abs() > 1e-12 * (1.0 + loss) {
            return Err(format!(
                "update {k}: loss_after {} but the loss at the variable is {loss}",
                info.loss_after
            ));
        }
        let objective = loss + block.penalty(&x);
        if objective > last + 1e-13 * (1.0 + last.abs()) {
            return Err(format!("update {k}: objective rose {last} -> {objective}"));
        }
        last = objective;
    }
    let mut c = vec![0.0; n];
    let mut g = vec![0.0; d + 1];
    block.loss_and_dscores(&fresh, &mut c);
    block.gradient(&c, &mut g);
    let residual = block.stationarity_residual(&x, &g);
    if residual.is_nan() || residual > 1e-5 {
        return Err(format!(
            "stationarity residual {residual} > 1e-5 after {} updates",
            case.updates
        ));
    }
    Ok(())
}
