//! A block update written outside the crate: proximal gradient (ISTA) with the constant
//! step `1 / L`, `L` the Lipschitz bound `(sum_i ||z_i||^2 + n) / (4 n)` of the block's
//! loss gradient (the loss Hessian is at most `(1/4n) sum_i (z_i, 1)(z_i, 1)^T`, whose
//! largest eigenvalue is at most its trace). It runs through the normal `fit`, passes the
//! public conformance suite, and reaches the objective of the built-in Alg. 1 on the same
//! data.

use sblr::SavedModel as _;
use sblr::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};
use sblr::conformance::{BlockCase, check_block_update};
use sblr::synthetic::two_class;
use sblr::{BlockUpdate, Fit, Fitted, Init, Sblr, Solver};

/// `steps` ISTA steps per block update.
struct Ista {
    steps: usize,
}

impl BlockUpdate for Ista {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        _work: &mut BlockWork,
    ) -> sblr::Result<BlockStepInfo> {
        let (d, n) = (block.dim(), block.n_samples());
        let z = block.z;
        let mut trace = n as f64;
        for i in 0..n {
            for j in 0..d {
                trace += z[(j, i)] * z[(j, i)];
            }
        }
        let lipschitz = trace / (4.0 * n as f64);
        let mut c = vec![0.0; n];
        let mut g = vec![0.0; d + 1];
        let mut next = vec![0.0; d + 1];
        let loss_before = block.loss(state.scores);
        for _ in 0..self.steps {
            block.loss_and_dscores(state.scores, &mut c);
            block.gradient(&c, &mut g);
            block.prox_point(state.x, &g, lipschitz, &mut next)?;
            state.x.copy_from_slice(&next);
            block.scores(state.x, state.scores);
        }
        *state.lipschitz = lipschitz;
        Ok(BlockStepInfo {
            lipschitz,
            trials: self.steps,
            inner_iterations: self.steps,
            loss_before,
            loss_after: block.loss(state.scores),
        })
    }
}

#[test]
fn ista_passes_the_conformance_suite() {
    for seed in 0..4 {
        for (l1, l2) in [(0.0, 0.1), (0.02, 0.0), (0.01, 0.5)] {
            let case = BlockCase {
                dim: 5,
                l1,
                l2,
                seed,
                ..BlockCase::default()
            };
            check_block_update(&Ista { steps: 50 }, &case).unwrap();
        }
    }
}

#[test]
fn ista_fits_through_the_normal_fit_and_matches_alg1() {
    let data = two_class(40, 8, 6, 1.0, 7).unwrap();
    let base = Sblr::params()
        .rank(1)
        .init(Init::LabelWeightedSvd)
        .tol(1e-9)
        .max_iter(300);
    let custom = base
        .clone()
        .block_update(Ista { steps: 2000 })
        .fit(&data)
        .unwrap();
    let alg1 = base.clone().solver(Solver::Alg1).fit(&data).unwrap();
    assert!(custom.params().has_custom_update());
    assert_eq!(custom.u().nrows(), 8);
    assert!(custom.report().iterations >= 1);
    // Both are block coordinate descent with (near-)exact block minimization from the
    // same start: the same objective (5).
    let (a, b) = (custom.objective(), alg1.objective());
    assert!((a - b).abs() <= 1e-4 * (1.0 + b), "ISTA {a} vs Alg. 1 {b}");
    let trace = custom.report().trace.objectives();
    for pair in trace.windows(2) {
        assert!(pair[1] <= pair[0] + 1e-12, "objective rose: {pair:?}");
    }
}

#[test]
fn a_saved_model_of_a_custom_fit_loads_and_predicts_alike() {
    let data = two_class(30, 5, 4, 1.0, 3).unwrap();
    let model = Sblr::params()
        .block_update(Ista { steps: 200 })
        .max_iter(30)
        .fit(&data)
        .unwrap();
    let loaded = sblr::FittedSblr::from_json(&model.to_json().unwrap()).unwrap();
    assert!(!loaded.params().has_custom_update());
    assert_eq!(
        loaded.decision_function(&data).unwrap(),
        model.decision_function(&data).unwrap()
    );
}
