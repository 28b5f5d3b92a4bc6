//! A block update written outside the crate: proximal gradient (ISTA) with the constant
//! step `1 / L`, `L` the Lipschitz bound `(sum_i ||z_i||^2 + n) / (4 n)` of the block's
//! loss gradient (the loss Hessian is at most `(1/4n) sum_i (z_i, 1)(z_i, 1)^T`, whose
//! largest eigenvalue is at most its trace). It runs through the normal `fit`, passes the
//! public conformance suite, and reaches the objective of the built-in Alg. 1 on the same
//! data. This is the worked example of the `BlockUpdate` plug-in: implement
//! `bl_core::Extension` (a name, a check of the settings) and `BlockUpdate`, pass
//! `sblr::conformance::conformance`, set it with `SblrParams::block_update`.

use sblr::ExactBlockSolve;
use sblr::SavedModel as _;
use sblr::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};
use sblr::conformance::{BlockCase, conformance, conformance_on};
use sblr::synthetic::two_class;
use sblr::{BlockUpdate, Extension, Fit, Fitted, Init, ParamGuard as _, Sblr};
use std::sync::Arc;

/// `steps` ISTA steps per block update.
#[derive(Debug)]
struct Ista {
    steps: usize,
}

impl Extension for Ista {
    fn name(&self) -> &str {
        "ista"
    }

    /// At least one step per update.
    fn check(&self) -> bl_core::Result<()> {
        bl_core::params::at_least("steps", self.steps, 1)
    }
}

impl BlockUpdate for Ista {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        _work: &mut BlockWork,
    ) -> sblr::Result<BlockStepInfo> {
        let (d, n) = (block.dim(), block.n_samples());
        // The features are a matrix on one machine; a fit over a cluster's workers gives
        // an operator (`Features::Operator`), whose entries this update cannot read.
        let z = block.z.as_matrix().ok_or_else(|| {
            sblr::SblrError::from(bl_core::BlError::InvalidParameter {
                name: "features",
                value: "an operator".into(),
                expected: "features in memory".into(),
            })
        })?;
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
        let loss_before = block.loss(state.scores)?;
        for _ in 0..self.steps {
            block.loss_and_dscores(state.scores, &mut c)?;
            block.gradient(&c, &mut g)?;
            block.prox_point(state.x, &g, lipschitz, &mut next)?;
            state.x.copy_from_slice(&next);
            block.scores(state.x, state.scores)?;
        }
        *state.lipschitz = lipschitz;
        Ok(BlockStepInfo {
            lipschitz,
            trials: self.steps,
            inner_iterations: self.steps,
            loss_before,
            loss_after: block.loss(state.scores)?,
        })
    }
}

#[test]
fn ista_passes_the_conformance_suite() {
    let report = conformance(&Ista { steps: 50 });
    assert!(report.passed(), "{report}");
    assert_eq!(report.extension(), "ista");
    let mut cases = Vec::new();
    for seed in 0..4 {
        for (l1, l2) in [(0.0, 0.1), (0.02, 0.0), (0.01, 0.5)] {
            let case = BlockCase {
                dim: 5,
                l1,
                l2,
                seed,
                ..BlockCase::default()
            };
            cases.push(case);
        }
    }
    let report = conformance_on(&Ista { steps: 50 }, &cases);
    assert!(report.passed(), "{report}");
}

#[test]
fn an_invalid_ista_fails_the_suite_and_the_params_check() {
    let report = conformance(&Ista { steps: 0 });
    assert!(!report.passed(), "{report}");
    let err = Sblr::params()
        .block_update(Arc::new(Ista { steps: 0 }))
        .check()
        .unwrap_err();
    assert!(err.to_string().contains("steps"), "{err}");
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
        .block_update(Arc::new(Ista { steps: 2000 }))
        .fit(&data)
        .unwrap();
    let alg1 = base
        .clone()
        .block_update(Arc::new(ExactBlockSolve::default()))
        .fit(&data)
        .unwrap();
    assert_eq!(custom.params().block_update().name(), "ista");
    assert_eq!(custom.u().nrows(), 8);
    assert!(custom.report().iterations >= 1);
    // Both are block coordinate descent with (near-)exact block minimization from the
    // same start: the same objective (4).
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
        .block_update(Arc::new(Ista { steps: 200 }))
        .max_iter(30)
        .fit(&data)
        .unwrap();
    let json = model.to_json().unwrap();
    assert!(json.contains(r#""block_update":"ista""#), "{json}");
    let loaded = sblr::FittedSblr::from_json(&json).unwrap();
    // The update's code is not saved: the loaded parameters hold a stand-in of its name,
    // which is not a built-in, and the model predicts as saved.
    assert_eq!(loaded.params().block_update().name(), "ista");
    assert!(loaded.params().block_update().as_built_in().is_none());
    assert_eq!(
        loaded.decision_function(&data).unwrap(),
        model.decision_function(&data).unwrap()
    );
    // Saved again, it keeps the name.
    let again = loaded.to_json().unwrap();
    assert_eq!(again, json);
    // Fitting with the loaded parameters is refused (the code is missing), not run with
    // another update; with an update set, it fits.
    let params = sblr::SblrParams::from(loaded.params().clone());
    let err = params.clone().fit(&data).unwrap_err();
    assert!(err.to_string().contains("block_update"), "{err}");
    assert!(err.to_string().contains("\"ista\""), "{err}");
    let refit = params
        .block_update(Arc::new(Ista { steps: 200 }))
        .fit(&data)
        .unwrap();
    assert_eq!(
        refit.decision_function(&data).unwrap(),
        model.decision_function(&data).unwrap()
    );
}

#[test]
fn a_saved_model_of_a_built_in_fit_has_no_block_update_field() {
    // The built-ins are named by `solver`; models saved before the field load as before.
    let data = two_class(30, 5, 4, 1.0, 3).unwrap();
    let model = Sblr::params().max_iter(5).fit(&data).unwrap();
    let json = model.to_json().unwrap();
    assert!(!json.contains("block_update"), "{json}");
    let loaded = sblr::FittedSblr::from_json(&json).unwrap();
    assert_eq!(
        loaded.params().block_update().as_built_in(),
        model.params().block_update().as_built_in()
    );
}
