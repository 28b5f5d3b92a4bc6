//! Claims of the rustdoc checked on inputs a caller can pass.

use chain_crf::{CrfError, Sequence};

/// `Sequence::push_item` refuses a non-finite value and leaves the sequence as it was: the
/// attributes of the refused item before the bad value do not leak into the next item.
#[test]
fn a_refused_item_leaves_the_sequence_unchanged() {
    let mut seq = Sequence::new();
    seq.push_item([(7, 1.0)]).unwrap();
    let before = seq.clone();
    let err = seq.push_item([(0, 1.0), (1, f64::NAN)]).unwrap_err();
    assert!(matches!(err, CrfError::Input { position: 1, .. }), "{err}");
    assert_eq!(seq, before);
    seq.push_item([(2, 3.0)]).unwrap();
    let items = seq.items();
    assert_eq!(items.len(), 2);
    assert_eq!(items.n_attributes(), 2);
    assert_eq!(items.item(1), (&[2][..], &[3.0][..]));
}

/// `QuasiNewton::step` and `trials` describe the last iteration: an iteration that takes
/// no step (the gradient is already zero) reports step 0 and no trial, not the previous
/// iteration's.
#[test]
fn an_iteration_without_a_step_reports_step_zero() {
    use chain_crf::optim::{Outcome, QuasiNewton, Settings};
    // (x - 1)^2 from 0: the first step, 1 / ||d||, lands on the minimizer exactly.
    let mut loss = |x: &[f64], g: &mut [f64]| {
        g[0] = 2.0 * (x[0] - 1.0);
        (x[0] - 1.0).powi(2)
    };
    let mut qn = QuasiNewton::new(Settings::default(), vec![0.0], &mut loss).unwrap();
    assert_eq!(qn.iterate(&mut loss), Outcome::GradientSmall);
    assert_eq!(qn.x(), &[1.0]);
    assert!(qn.step() > 0.0 && qn.trials() >= 1);
    assert_eq!(qn.iterate(&mut loss), Outcome::GradientSmall);
    assert_eq!(qn.x(), &[1.0]);
    assert_eq!((qn.step(), qn.trials()), (0.0, 0));
}

/// Training on a data set built with `DatasetBuilder::frozen` whose item has a label the
/// dictionary lacks (`UNKNOWN_LABEL`) is an input error naming the item, not a panic.
#[test]
fn training_on_an_unknown_label_is_an_input_error() {
    use chain_crf::{Algorithm, CrfParams, DatasetBuilder, Dictionary, Fit};
    let mut b = DatasetBuilder::frozen(
        Dictionary::from(vec!["w=a".to_string()]),
        Dictionary::from(vec!["X".to_string(), "Y".to_string()]),
    );
    b.attribute("w=a", 1.0).unwrap();
    b.end_item("X").unwrap();
    b.attribute("w=a", 1.0).unwrap();
    b.end_item("Z").unwrap();
    b.end_sequence().unwrap();
    let data = b.finish();
    for name in ["lbfgs", "ap"] {
        let err = CrfParams::new(Algorithm::from_name(name).unwrap())
            .fit(&data)
            .unwrap_err();
        assert!(
            matches!(
                err,
                CrfError::Input {
                    sequence: 0,
                    position: 1,
                    ..
                }
            ),
            "{name}: {err}"
        );
    }
}

/// The backtracking line searches treat a trial whose directional derivative is not
/// finite as a failed Armijo test (they halve the step), as the optimizer's module docs
/// say: a step to a point with a NaN gradient is never accepted.
#[test]
fn backtracking_refuses_a_trial_with_a_nan_gradient() {
    use chain_crf::optim::{LineSearchMethod, Outcome, QuasiNewton, Settings};
    // (x - 1)^2, whose gradient the caller cannot compute beyond x = 0.5. From 0 the
    // first trial (step 1 / ||d||) lands on 1, the halved one on 0.5.
    let mut loss = |x: &[f64], g: &mut [f64]| {
        g[0] = if x[0] > 0.5 {
            f64::NAN
        } else {
            2.0 * (x[0] - 1.0)
        };
        (x[0] - 1.0).powi(2)
    };
    for line_search in [
        LineSearchMethod::Armijo,
        LineSearchMethod::BacktrackingWolfe,
        LineSearchMethod::BacktrackingStrongWolfe,
    ] {
        let settings = Settings {
            line_search,
            ..Settings::default()
        };
        let mut qn = QuasiNewton::new(settings, vec![0.0], &mut loss).unwrap();
        let outcome = qn.iterate(&mut loss);
        assert_eq!(qn.x(), &[0.5], "{line_search:?}: {outcome:?}");
        assert!(qn.gradient_norm().is_finite(), "{line_search:?}");
        assert_eq!(qn.trials(), 2, "{line_search:?}");
        assert_ne!(outcome, Outcome::LineSearchFailed);
    }
}

/// `Dataset::subset` refuses, before copying anything, a subset past the `u32` offsets of
/// its items (a sequence repeated often enough); the offsets wrapped silently before.
#[test]
fn a_subset_past_u32_offsets_is_refused_before_copying() {
    let mut b = chain_crf::DatasetBuilder::new();
    for t in 0..64_u32 {
        for a in 0..1024 {
            b.attribute(&format!("a{a}"), 1.0).unwrap();
        }
        b.end_item(if t.is_multiple_of(2) { "x" } else { "y" })
            .unwrap();
    }
    b.end_sequence().unwrap();
    let data = b.finish();
    assert_eq!(data.n_pairs(), 1 << 16);
    // 2^16 copies of 2^16 values: 2^32 values, one more than the offsets hold.
    let err = data.subset(&vec![0; 1 << 16]).unwrap_err();
    assert!(err.to_string().contains("2^32 - 1"), "{err}");
    let fine = data.subset(&[0, 0]).unwrap();
    assert_eq!(fine.n_pairs(), 2 << 16);
}

/// `FittedCrf::feature_generation` is measured for a one-machine fit, and it and the
/// report's `elapsed` are two intervals of the fit that do not overlap: their sum is at
/// most the fit's wall time measured around it on the same clock, whatever the machine's
/// load. This is a necessary condition only: double counting shows when it exceeds the
/// fit's time outside both intervals (here feature generation took 0.2 ms, the iterations
/// 13 ms and the fit 27 ms in a debug build), so this fit could not reveal it.
#[test]
fn feature_generation_is_timed_apart_from_the_iterations() {
    use chain_crf::{Algorithm, CrfParams, DatasetBuilder, Fit, Fitted, Lbfgs};
    let mut b = DatasetBuilder::new();
    for s in 0..600_u32 {
        for t in 0..5_u32 {
            for a in 0..40_u32 {
                b.attribute(&format!("a{}", (s * 7 + t * 13 + a) % 997), 1.0)
                    .unwrap();
            }
            b.end_item(["x", "y", "z"][((s + t) % 3) as usize]).unwrap();
        }
        b.end_sequence().unwrap();
    }
    let data = b.finish();
    let params = CrfParams::new(Algorithm::Lbfgs(Lbfgs::default())).max_iter(2);
    let started = std::time::Instant::now();
    let fitted = params.fit(&data).unwrap();
    let wall = started.elapsed();
    let features = fitted.feature_generation().unwrap();
    assert!(features > std::time::Duration::ZERO);
    assert!(
        features + fitted.report().elapsed <= wall,
        "{features:?} + {:?} > {wall:?}",
        fitted.report().elapsed
    );
}
