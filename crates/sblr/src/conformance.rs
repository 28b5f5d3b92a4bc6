//! The conformance suite of [`BlockUpdate`], the one every update passes, built-in or a
//! user's (see [`SblrParams::block_update`](crate::SblrParams::block_update)).
//!
//! [`conformance`] runs the update repeatedly on seeded random elastic-net logistic blocks
//! ([`BlockCase::suite`]) and records, case by case, that
//!
//! 1. its own settings pass its [`check`](bl_core::Extension::check);
//! 2. every update succeeds;
//! 3. the decision values in the state stay those of the variable;
//! 4. the reported `loss_after` is the loss at the returned variable;
//! 5. the block objective `loss + penalty` never increases (Alg. 1 and Alg. 2 are descent
//!    methods; Shi, Xu, Baraniuk 2014, Sec. 3);
//! 6. repeated updates reach the block minimizer: the first-order stationarity residual
//!    ([`LinearBlock::stationarity_residual`]) is at most `1e-5` after the updates.
//!
//! A case stops at its first failed check.

use bl_core::ConformanceReport;
use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::MatRef;

use crate::block::{BlockState, BlockWork, LinearBlock};
use crate::update::BlockUpdate;

/// The shape and penalties of one conformance case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockCase {
    /// Features `d` (raised to 1 when 0).
    pub dim: usize,
    /// Samples `n` (raised to 2 when smaller).
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

impl BlockCase {
    /// The cases of [`conformance`]: three seeds, with ridge only, lasso only and an
    /// elastic net, on blocks of 1, 4 and 7 features.
    #[must_use]
    pub fn suite() -> Vec<Self> {
        let mut cases = Vec::new();
        for (seed, dim) in [(0, 4), (1, 1), (2, 7)] {
            for (l1, l2) in [(0.0, 0.1), (0.02, 0.0), (0.01, 0.5)] {
                cases.push(Self {
                    dim,
                    l1,
                    l2,
                    seed,
                    ..Self::default()
                });
            }
        }
        cases
    }
}

/// The suite of the [module documentation](self) on the cases of [`BlockCase::suite`].
#[must_use]
pub fn conformance(candidate: &dyn BlockUpdate) -> ConformanceReport {
    conformance_on(candidate, &BlockCase::suite())
}

/// The suite on the given cases (e.g. random ones in a property test).
#[must_use]
pub fn conformance_on(candidate: &dyn BlockUpdate, cases: &[BlockCase]) -> ConformanceReport {
    let mut report = ConformanceReport::new(candidate.name());
    report.record_result("settings pass check()", &candidate.check());
    for case in cases {
        run_case(candidate, case, &mut report);
    }
    report
}

/// One case, recorded into `report`; stops at the first failed check. A case whose
/// features (`dim x samples` values) exceed [`bl_core::limits::MAX_ELEMENTS`] or cannot be
/// allocated is recorded as failed before anything is allocated.
fn run_case(update: &dyn BlockUpdate, case: &BlockCase, report: &mut ConformanceReport) {
    let (d, n) = (case.dim.max(1), case.samples.max(2));
    let z = bl_core::limits::try_zeroed::<f64>("BlockCase: dim x samples", &[d, n]);
    report.record_result("case allocated", &z);
    let Ok(mut z) = z else {
        return;
    };
    let work = BlockWork::new(d, n);
    report.record_result("case allocated", &work);
    let Ok(mut work) = work else {
        return;
    };
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
        z: MatRef::from_column_major_slice(&z, d, n).into(),
        y: &y,
        l1: case.l1,
        l2: case.l2,
    };
    let mut x = vec![0.3; d + 1];
    let mut scores = vec![0.0; n];
    block.scores_unchecked(&x, &mut scores);
    let mut lipschitz = update.initial_lipschitz();
    let mut last = block.loss_unchecked(&scores) + block.penalty_unchecked(&x);
    let mut fresh = scores.clone();
    for k in 1..=case.updates {
        let info = update.update(
            &block,
            &mut BlockState::new(&mut x, &mut scores, &mut lipschitz),
            &mut work,
        );
        let info = match info {
            Ok(info) => info,
            Err(e) => {
                report.record("every update succeeds", false, || {
                    format!("{case:?}: update {k} failed: {e}")
                });
                return;
            }
        };
        block.scores_unchecked(&x, &mut fresh);
        let stale = fresh
            .iter()
            .zip(&scores)
            .position(|(a, b)| (a - b).abs() > 1e-10 * (1.0 + a.abs()));
        if let Some(i) = stale {
            report.record("decision values current", false, || {
                format!(
                    "{case:?}: update {k}: stale decision value {i}: state {}, recomputed {}",
                    scores[i], fresh[i]
                )
            });
            return;
        }
        let loss = block.loss_unchecked(&fresh);
        if (info.loss_after - loss).abs() > 1e-12 * (1.0 + loss) {
            report.record("loss_after is the loss at the variable", false, || {
                format!(
                    "{case:?}: update {k}: loss_after {} but the loss at the variable is {loss}",
                    info.loss_after
                )
            });
            return;
        }
        let objective = loss + block.penalty_unchecked(&x);
        if objective > last + 1e-13 * (1.0 + last.abs()) {
            report.record("objective never rises", false, || {
                format!("{case:?}: update {k}: objective rose {last} -> {objective}")
            });
            return;
        }
        last = objective;
    }
    for name in [
        "every update succeeds",
        "decision values current",
        "loss_after is the loss at the variable",
        "objective never rises",
    ] {
        report.record(name, true, String::new);
    }
    let mut c = vec![0.0; n];
    let mut g = vec![0.0; d + 1];
    block.loss_and_dscores_unchecked(&fresh, &mut c);
    block.gradient_unchecked(&c, &mut g);
    let residual = block.stationarity_residual(&x, &g).unwrap_or(f64::NAN);
    report.record(
        "reaches the block minimizer",
        !residual.is_nan() && residual <= 1e-5,
        || {
            format!(
                "{case:?}: stationarity residual {residual} > 1e-5 after {} updates",
                case.updates
            )
        },
    );
}
