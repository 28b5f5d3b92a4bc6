//! Prediction through `bl_core::Predict`: the paths of `Model::tag`, sequence by sequence;
//! targets of the wrong shape are refused and left untouched.

use bl_core::BlError;
use chain_crf::{
    Algorithm, CrfError, CrfParams, DatasetBuilder, Fit, Lbfgs, Model, Predict, PredictInplace,
};

use crate::common::dataset;

fn data() -> chain_crf::Dataset {
    dataset(&[
        vec![
            (vec![("w=the", 1.0)], "D"),
            (vec![("w=cat", 1.0), ("len", 3.0)], "N"),
            (vec![("w=sat", 1.0)], "V"),
        ],
        vec![(vec![("w=a", 1.0)], "D"), (vec![("w=dog", 1.0)], "N")],
        vec![(vec![("w=dog", 1.0)], "N"), (vec![("w=sat", 1.0)], "V")],
    ])
}

fn fitted(data: &chain_crf::Dataset) -> chain_crf::FittedCrf {
    CrfParams::new(Algorithm::Lbfgs(Lbfgs::default()))
        .max_iter(30)
        .fit(data)
        .unwrap()
}

#[test]
fn predictions_are_the_paths_of_tag_sequence_by_sequence() {
    let data = data();
    let fitted = fitted(&data);
    let by_tag: Vec<Vec<u32>> = data.iter().map(|x| fitted.model().tag(x.items).0).collect();
    let from_fitted: Vec<Vec<u32>> = fitted.predict(&data).unwrap();
    let from_model: Vec<Vec<u32>> = fitted.model().predict(&data).unwrap();
    assert_eq!(from_fitted, by_tag);
    assert_eq!(from_model, by_tag);
    // The model learned the training set (a check that the paths are not all zeros).
    let gold: Vec<Vec<u32>> = data.iter().map(|x| x.labels.to_vec()).collect();
    assert_eq!(from_fitted, gold);
}

#[test]
fn a_saved_model_predicts_on_a_frozen_data_set_as_the_fitted_one() {
    let data = data();
    let fitted = fitted(&data);
    let loaded = Model::from_bytes(&fitted.model().to_bytes()).unwrap();
    let mut b = DatasetBuilder::frozen(loaded.attributes().clone(), loaded.labels().clone());
    for word in ["w=a", "w=cat", "w=unseen", "w=sat"] {
        b.attribute(word, 1.0).unwrap();
        b.end_item("D").unwrap();
    }
    b.end_sequence().unwrap();
    let held_out = b.finish();
    let expected: Vec<Vec<u32>> = vec![fitted.model().tag(held_out.instance(0).items).0];
    let predicted: Vec<Vec<u32>> = loaded.predict(&held_out).unwrap();
    assert_eq!(predicted, expected);
    assert_eq!(predicted[0].len(), 4);
}

#[track_caller]
fn assert_shape_mismatch(err: CrfError, context: &str) {
    assert!(
        matches!(&err, CrfError::Core(BlError::ShapeMismatch { context: c, .. }) if *c == context),
        "{err}"
    );
}

#[test]
fn targets_of_the_wrong_shape_are_refused_and_left_untouched() {
    let data = data();
    let fitted = fitted(&data);
    let target = fitted.default_target(&data).unwrap();
    assert_eq!(target.iter().map(Vec::len).collect::<Vec<_>>(), [3, 2, 2]);
    let mut short = vec![vec![7; 3], vec![7; 2]];
    let err = fitted.predict_inplace(&data, &mut short).unwrap_err();
    assert_shape_mismatch(err, "predict: label sequences");
    assert_eq!(short, [vec![7; 3], vec![7; 2]]);
    let mut ragged = vec![vec![7; 3], vec![7; 2], vec![7; 3]];
    let err = fitted.predict_inplace(&data, &mut ragged).unwrap_err();
    assert_shape_mismatch(err, "predict: labels of a sequence");
    assert_eq!(ragged, [vec![7; 3], vec![7; 2], vec![7; 3]]);
}
