//! Prediction: the memberships of new samples at the fitted `x` (the primal (3)); on the
//! training data they are the fitted `theta`, and bad input is a typed error.

use faer::Mat;
use gop_mmf::{Fit, GopError, GopParams, Predict, PredictInplace};

#[test]
fn predicting_the_training_data_gives_the_fitted_theta() {
    let mut rng = bl_core::random::seeded_rng(5);
    let y = Mat::from_fn(2, 3, |_, _| bl_core::random::standard_normal(&mut rng));
    let fit = GopParams::default()
        .budget(1.5)
        .seed(2)
        .max_iter(12)
        .threads(Some(1))
        .fit(&y.as_ref())
        .unwrap();
    let theta: Mat<f64> = fit.predict(&y.as_ref()).unwrap();
    assert_eq!(theta.shape(), fit.theta().shape());
    for s in 0..3 {
        let sum: f64 = (0..2).map(|a| theta[(a, s)]).sum();
        assert!((sum - 1.0).abs() < 1e-12, "column {s} not on the simplex");
        for a in 0..2 {
            assert!(theta[(a, s)] >= 0.0);
            assert!((theta[(a, s)] - fit.theta()[(a, s)]).abs() < 1e-12);
        }
    }
    // Its residual is PUBD, the objective of the fitted point.
    let fitted = fit.x() * &theta;
    let residual: f64 = (0..2)
        .flat_map(|j| (0..3).map(move |s| (j, s)))
        .map(|(j, s)| (y[(j, s)] - fitted[(j, s)]).powi(2))
        .sum();
    assert!((residual - fit.upper_bound()).abs() <= 1e-10 * (1.0 + residual));
}

#[test]
fn bad_samples_and_targets_are_typed_errors() {
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let fit = GopParams::default()
        .seed(1)
        .threads(Some(1))
        .fit(&y.as_ref())
        .unwrap();
    let rows = fit.predict(&Mat::<f64>::zeros(3, 2).as_ref()).unwrap_err();
    assert!(
        matches!(
            &rows,
            GopError::Core(bl_core::BlError::ShapeMismatch { context, .. })
                if context.starts_with("y")
        ),
        "{rows:?}"
    );
    let mut nan = Mat::<f64>::zeros(1, 2);
    nan[(0, 1)] = f64::NAN;
    assert!(matches!(fit.predict(&nan.as_ref()), Err(GopError::Core(_))));
    let mut wrong = Mat::<f64>::zeros(3, 3);
    let target = fit.predict_inplace(&y.as_ref(), &mut wrong).unwrap_err();
    assert!(target.to_string().contains("theta"), "{target}");
    // No samples: an empty prediction.
    let none: Mat<f64> = fit.predict(&Mat::<f64>::zeros(1, 0).as_ref()).unwrap();
    assert_eq!(none.shape(), (2, 0));
}
