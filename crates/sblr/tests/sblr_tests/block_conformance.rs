//! The public conformance suite (`sblr::conformance`) applied to the built-in block
//! updates, on its own cases and on random ones; and a broken update fails it.

use proptest::prelude::*;
use sblr::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};
use sblr::conformance::{BlockCase, conformance, conformance_on};
use sblr::{BlockUpdate, ExactBlockSolve, Extension, ProxLinearStep};

fn built_ins() -> Vec<Box<dyn BlockUpdate>> {
    vec![
        Box::new(ProxLinearStep::default()),
        Box::new(ExactBlockSolve {
            tol: 1e-9,
            max_iter: 10_000,
            ..ExactBlockSolve::default()
        }),
    ]
}

#[test]
fn every_built_in_passes_the_suite() {
    for update in [
        Box::new(ProxLinearStep::default()) as Box<dyn BlockUpdate>,
        Box::new(ExactBlockSolve::default()),
    ] {
        let report = conformance(update.as_ref());
        assert!(report.passed(), "{report}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn built_in_block_updates_conform(seed in 0u64..500, dim in 1usize..8, l1 in 0.0f64..0.1, l2 in 0.0f64..0.5) {
        let case = BlockCase { dim, samples: 40, l1, l2, seed, updates: 400 };
        for update in built_ins() {
            let report = conformance_on(update.as_ref(), &[case]);
            prop_assert!(report.passed(), "{report}");
        }
    }
}

/// `Uphill` doubles the iterate (keeping the decision values current); `Stale` moves one
/// entry and leaves the decision values as they were; `BadSettings` refuses its own
/// settings in `check()`.
#[derive(Debug)]
enum Broken {
    Uphill,
    Stale,
    BadSettings,
}

impl Extension for Broken {
    fn name(&self) -> &str {
        "broken"
    }

    fn check(&self) -> bl_core::Result<()> {
        match self {
            Broken::BadSettings => Err(bl_core::params::invalid("step", -1.0, "> 0")),
            _ => Ok(()),
        }
    }
}

impl BlockUpdate for Broken {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        _work: &mut BlockWork,
    ) -> sblr::Result<BlockStepInfo> {
        match self {
            Broken::Uphill => {
                state.x.iter_mut().for_each(|v| *v *= 2.0);
                block.scores(state.x, state.scores)?;
            }
            Broken::Stale => state.x[0] -= 1e-3,
            Broken::BadSettings => {}
        }
        Ok(BlockStepInfo {
            loss_after: block.loss(state.scores)?,
            ..BlockStepInfo::default()
        })
    }
}

/// The suite is not vacuous: an update that moves uphill, one that leaves stale decision
/// values and one whose settings fail its check are caught, by name.
#[test]
fn the_suite_rejects_broken_updates() {
    for (update, expected) in [
        (Broken::Uphill, "objective never rises"),
        (Broken::Stale, "decision values current"),
        (Broken::BadSettings, "settings pass check()"),
    ] {
        let report = conformance(&update);
        assert!(!report.passed(), "{update:?} passed: {report}");
        assert!(
            report.failures().any(|c| c.name == expected),
            "{update:?}: {report}"
        );
        let err = report.into_result().unwrap_err();
        assert!(err.to_string().contains("broken"), "{err}");
    }
}
