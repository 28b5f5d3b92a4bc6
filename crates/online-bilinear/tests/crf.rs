//! The CRF baselines through CRFsuite on a small learnable task.
#![cfg(feature = "crf")]

mod common;

use online_bilinear::Fit as _;
use online_bilinear::{Learner, TaggerParams};

#[test]
fn crf_l2_and_l1_learn_a_small_segmentation_task() {
    let train = common::cyclic_corpus(60, 0);
    let test = common::cyclic_corpus(20, 1);
    for params in [TaggerParams::crf_l2().c(0.1), TaggerParams::crf_l1().c(0.1)] {
        let learner = params.get_learner();
        let model = params.crf_max_iterations(50).fit(&train).unwrap();
        assert_eq!(model.learner(), learner);
        let e = model.evaluate(&test).unwrap();
        assert!(
            e.label_error_rate < 0.05,
            "{learner:?}: {}",
            e.label_error_rate
        );
        // Models survive a save/load round trip.
        let back = online_bilinear::FittedTagger::from_json(&model.to_json().unwrap()).unwrap();
        assert_eq!(
            back.predict_corpus(&test).unwrap(),
            model.predict_corpus(&test).unwrap()
        );
    }
    assert!(matches!(
        TaggerParams::crf_l1().get_learner(),
        Learner::CrfL1
    ));
}
