//! Bad input gives typed errors naming the problem; nothing panics.

use crate::common;

use bl_core::BlError;
use bl_core::data::MatrixDataset;
use faer::Mat;
use sblr::synthetic::two_class;
use sblr::{BlockUpdate, ExactBlockSolve, Init, MultinomialSblr, ProxLinearStep, Sblr, SblrError};
use sblr::{Fit as _, ParamGuard as _, Predict as _};
use std::sync::Arc;

fn toy() -> MatrixDataset {
    two_class(10, 4, 3, 1.0, 0).unwrap()
}

#[test]
fn empty_data_is_rejected() {
    let err = sblr::data::dataset_from_samples::<&str>(&[], &[]).unwrap_err();
    assert!(
        matches!(err, SblrError::Core(BlError::Empty { .. })),
        "{err}"
    );
    let err = MatrixDataset::new(2, 2, vec![], vec![], vec!["a".into(), "b".into()]).unwrap_err();
    assert!(matches!(err, BlError::Empty { .. }));
}

#[test]
fn one_class_is_rejected() {
    // Two class names, but every sample in class 0.
    let data = MatrixDataset::new(
        2,
        2,
        vec![0.5; 12],
        vec![0, 0, 0],
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    let err = Sblr::params().fit(&data).unwrap_err();
    assert!(
        matches!(err, SblrError::MissingClass { ref class } if class == "b"),
        "{err}"
    );
    // Only one distinct label name.
    let one = Mat::<f64>::zeros(2, 2);
    let err =
        sblr::data::dataset_from_samples(&[one.as_ref(), one.as_ref()], &["x", "x"]).unwrap_err();
    assert!(
        matches!(err, SblrError::Core(BlError::TooFewClasses { found: 1 })),
        "{err}"
    );
    // Three classes for a binary model.
    let three = MatrixDataset::new(
        1,
        1,
        vec![0.0, 1.0, 2.0],
        vec![0, 1, 2],
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap();
    let err = Sblr::params().fit(&three).unwrap_err();
    assert!(matches!(err, SblrError::NotBinary { found: 3 }), "{err}");
}

#[test]
fn non_finite_entries_are_rejected() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut x = Mat::<f64>::zeros(2, 2);
        x[(1, 0)] = bad;
        let ok = Mat::<f64>::zeros(2, 2);
        let err =
            sblr::data::dataset_from_samples(&[ok.as_ref(), x.as_ref()], &["a", "b"]).unwrap_err();
        assert!(
            matches!(err, SblrError::Core(BlError::NonFinite { index: 5, .. })),
            "{err}"
        );
        let model = Sblr::params().max_iter(2).fit(&toy()).unwrap();
        let mut sample = Mat::<f64>::zeros(4, 3);
        sample[(0, 0)] = bad;
        assert!(model.decision_function_sample(sample.as_ref()).is_err());
    }
}

#[test]
fn samples_of_different_shapes_are_rejected() {
    let a = Mat::<f64>::zeros(2, 3);
    let b = Mat::<f64>::zeros(3, 2);
    let err = sblr::data::dataset_from_samples(&[a.as_ref(), b.as_ref()], &["p", "q"]).unwrap_err();
    assert!(
        matches!(err, SblrError::Core(bl_core::BlError::ShapeMismatch { ref found, .. }) if found.contains("sample 1")),
        "{err}"
    );
    // Predicting on samples of another shape.
    let model = Sblr::params().max_iter(2).fit(&toy()).unwrap();
    let other = two_class(4, 3, 4, 1.0, 1).unwrap();
    assert!(matches!(
        model.predict(&other),
        Err(SblrError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(matches!(
        model.decision_function_sample(a.as_ref()),
        Err(SblrError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    // A warm start of the wrong shape.
    let err = Sblr::params()
        .init(Init::Warm {
            u: vec![0.0; 3],
            v: vec![0.0; 3],
            intercept: 0.0,
        })
        .fit(&toy())
        .unwrap_err();
    assert!(
        matches!(err, SblrError::Core(bl_core::BlError::ShapeMismatch { .. })),
        "{err}"
    );
}

#[test]
fn rank_out_of_range_is_rejected() {
    let err = Sblr::params().rank(0).fit(&toy()).unwrap_err();
    common::assert_invalid(&err, "rank");
    let err = Sblr::params().rank(4).fit(&toy()).unwrap_err(); // min(4, 3) = 3
    assert!(
        matches!(
            err,
            SblrError::InvalidRank {
                rank: 4,
                s: 4,
                t: 3
            }
        ),
        "{err}"
    );
    assert!(Sblr::params().rank(3).max_iter(2).fit(&toy()).is_ok());
}

#[test]
fn negative_or_non_finite_penalties_are_rejected() {
    for (k, bad) in [(0, -0.1), (1, f64::NAN), (2, -1e-9), (3, f64::INFINITY)] {
        let mut p = [0.1, 0.1, 0.1, 0.1];
        p[k] = bad;
        let err = Sblr::params()
            .penalties(p[0], p[1], p[2], p[3])
            .check()
            .unwrap_err();
        let name = ["mu1", "mu2", "nu1", "nu2"][k];
        common::assert_invalid(&err, name);
        assert!(err.to_string().contains(name));
    }
}

#[test]
fn bad_step_rule_and_stopping_are_rejected() {
    let step =
        |l_min: f64, eta: f64| -> Arc<dyn BlockUpdate> { Arc::new(ProxLinearStep { l_min, eta }) };
    for eta in [1.0, 0.5, f64::NAN] {
        let err = Sblr::params()
            .block_update(step(1e-3, eta))
            .check()
            .unwrap_err();
        common::assert_invalid(&err, "eta");
        let err = MultinomialSblr::params().eta(eta).check().unwrap_err();
        common::assert_invalid(&err, "eta");
    }
    for l_min in [0.0, -1.0, f64::INFINITY] {
        let err = Sblr::params()
            .block_update(step(l_min, 2.0))
            .check()
            .unwrap_err();
        common::assert_invalid(&err, "l_min");
        let err = MultinomialSblr::params().l_min(l_min).check().unwrap_err();
        common::assert_invalid(&err, "l_min");
    }
    let err = Sblr::params().max_iter(0).check().unwrap_err();
    common::assert_invalid(&err, "max_iter");
    let err = Sblr::params().tol(-1.0).check().unwrap_err();
    common::assert_invalid(&err, "tol");
    let exact = |tol: f64, max_iter: usize| -> Arc<dyn BlockUpdate> {
        Arc::new(ExactBlockSolve {
            tol,
            max_iter,
            ..ExactBlockSolve::default()
        })
    };
    let err = Sblr::params()
        .block_update(exact(0.0, 10))
        .check()
        .unwrap_err();
    common::assert_invalid(&err, "inner_tol");
    let err = Sblr::params()
        .block_update(exact(1e-6, 0))
        .check()
        .unwrap_err();
    common::assert_invalid(&err, "inner_max_iter");
    let err = Sblr::params().threads(Some(0)).check().unwrap_err();
    common::assert_invalid(&err, "threads");
    let err = Sblr::params()
        .init(Init::Warm {
            u: vec![f64::NAN],
            v: vec![0.0],
            intercept: 0.0,
        })
        .check()
        .unwrap_err();
    assert!(
        matches!(err, SblrError::Core(BlError::NonFinite { .. })),
        "{err}"
    );
}
