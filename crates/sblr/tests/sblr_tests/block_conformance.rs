//! The public conformance suite (`sblr::conformance`) applied to the built-in block
//! updates, on random cases.

use proptest::prelude::*;
use sblr::conformance::{BlockCase, check_block_update};
use sblr::{BlockUpdate, ExactBlockSolve, ProxLinearStep};

fn built_ins() -> Vec<(&'static str, Box<dyn BlockUpdate>)> {
    vec![
        (
            "prox-linear (Alg. 2)",
            Box::new(ProxLinearStep {
                l_min: 1e-3,
                eta: 2.0,
            }),
        ),
        (
            "exact FISTA (Alg. 1)",
            Box::new(ExactBlockSolve {
                l_min: 1e-3,
                eta: 2.0,
                tol: 1e-9,
                max_iter: 10_000,
            }),
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn built_in_block_updates_conform(seed in 0u64..500, dim in 1usize..8, l1 in 0.0f64..0.1, l2 in 0.0f64..0.5) {
        let case = BlockCase { dim, samples: 40, l1, l2, seed, updates: 400 };
        for (name, update) in built_ins() {
            let verdict = check_block_update(update.as_ref(), &case);
            prop_assert!(verdict.is_ok(), "{name}: {verdict:?}");
        }
    }
}

/// The suite is not vacuous: an update that moves uphill, and one that leaves stale
/// decision values, are caught.
#[test]
fn the_suite_rejects_broken_updates() {
    use sblr::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};

    /// `Uphill` doubles the iterate (keeping the decision values current); `Stale` moves
    /// one entry and leaves the decision values as they were.
    enum Broken {
        Uphill,
        Stale,
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
                    block.scores(state.x, state.scores);
                }
                Broken::Stale => state.x[0] -= 1e-3,
            }
            Ok(BlockStepInfo {
                loss_after: block.loss(state.scores),
                ..BlockStepInfo::default()
            })
        }
    }
    let case = BlockCase::default();
    for (update, expected) in [
        (Broken::Uphill, "objective rose"),
        (Broken::Stale, "stale decision value"),
    ] {
        let err = check_block_update(&update, &case).unwrap_err();
        assert!(err.contains(expected), "{err}");
    }
}
