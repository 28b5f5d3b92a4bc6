//! The step-rule constants are range-checked at their documented boundaries, and
//! cross-validation reports failed folds instead of averaging them away as NaN.

use bl_core::data::MatrixDataset;
use bl_core::engine::TerminationReason;
use sblr::cv::{paper_protocol, penalty_grid, sblr_accuracy};
use sblr::params::{ETA_RANGE, L_MIN_RANGE};
use sblr::synthetic::two_class;
use sblr::{BlockUpdate, ExactBlockSolve, MultinomialSblr, ProxLinearStep};
use sblr::{CvStrategy, LogisticRegression, Sblr, SblrError, cross_val_score, grid_search};
use sblr::{Fit as _, Fitted as _, ParamGuard as _};
use std::sync::Arc;

/// Alg. 2's update with the step rule `(l_min, eta)`.
fn step(l_min: f64, eta: f64) -> Arc<dyn BlockUpdate> {
    Arc::new(ProxLinearStep { l_min, eta })
}

fn is_invalid(err: &SblrError, name: &str) -> bool {
    matches!(err, SblrError::Core(bl_core::BlError::InvalidParameter { name: n, .. }) if *n == name)
}

#[test]
fn step_rule_boundaries() {
    let (lo, hi) = L_MIN_RANGE;
    for l_min in [lo, 1e-3, 0.5, hi] {
        Sblr::params()
            .block_update(step(l_min, 2.0))
            .check()
            .unwrap();
        LogisticRegression::params()
            .l_min(l_min)
            .eta(2.0)
            .check()
            .unwrap();
    }
    for l_min in [
        0.0,
        -1.0,
        lo * 0.99,
        hi * 1.0001,
        1e3,
        1e300,
        f64::MIN_POSITIVE,
        f64::NAN,
        f64::INFINITY,
    ] {
        let err = Sblr::params()
            .block_update(step(l_min, 2.0))
            .check()
            .unwrap_err();
        assert!(is_invalid(&err, "l_min"), "{l_min}: {err}");
        let err = LogisticRegression::params()
            .l_min(l_min)
            .eta(2.0)
            .check()
            .unwrap_err();
        assert!(is_invalid(&err, "l_min"), "{l_min}: {err}");
    }
    let (eta_lo, eta_hi) = ETA_RANGE;
    for eta in [eta_lo, 2.0, eta_hi] {
        Sblr::params()
            .block_update(step(1e-3, eta))
            .check()
            .unwrap();
        LogisticRegression::params()
            .l_min(1e-3)
            .eta(eta)
            .check()
            .unwrap();
    }
    for eta in [
        1.0,
        1.001,
        eta_lo * 0.9999,
        0.5,
        eta_hi * 1.0001,
        1e300,
        f64::NAN,
        f64::INFINITY,
    ] {
        let err = Sblr::params()
            .block_update(step(1e-3, eta))
            .check()
            .unwrap_err();
        assert!(is_invalid(&err, "eta"), "{eta}: {err}");
        let err = LogisticRegression::params()
            .l_min(1e-3)
            .eta(eta)
            .check()
            .unwrap_err();
        assert!(is_invalid(&err, "eta"), "{eta}: {err}");
    }
}

#[test]
fn absurd_step_constants_are_rejected_by_every_fit() {
    let data = two_class(20, 4, 3, 1.0, 2).unwrap();
    for (name, params) in [
        ("l_min", Sblr::params().block_update(step(1e300, 2.0))),
        ("eta", Sblr::params().block_update(step(1e-3, 1e300))),
    ] {
        let err = params.fit(&data).unwrap_err();
        assert!(is_invalid(&err, name), "{err}");
        let err = params.clone().multinomial().fit(&data).unwrap_err();
        assert!(is_invalid(&err, name), "{err}");
    }
    let exact = Sblr::params().block_update(Arc::new(ExactBlockSolve {
        l_min: 1e300,
        ..ExactBlockSolve::default()
    }));
    let err = exact.fit(&data).unwrap_err();
    assert!(is_invalid(&err, "l_min"), "{err}");
    for (name, params) in [
        ("l_min", MultinomialSblr::params().l_min(1e300)),
        ("eta", MultinomialSblr::params().eta(1e300)),
    ] {
        let err = params.fit(&data).unwrap_err();
        assert!(is_invalid(&err, name), "{err}");
    }
    let err = LogisticRegression::params()
        .l_min(1e-3)
        .eta(1e300)
        .fit(&data)
        .unwrap_err();
    assert!(is_invalid(&err, "eta"), "{err}");
}

#[test]
fn fits_at_the_step_rule_boundaries_reach_the_same_optimum() {
    // At each corner of the valid ranges the fit still converges to the optimum that the
    // default constants reach (0.41376 on this data; one iteration gives 0.594).
    let data = two_class(30, 5, 4, 1.0, 3).unwrap();
    let fit = |l_min: f64, eta: f64| {
        Sblr::params()
            .block_update(step(l_min, eta))
            .tol(1e-6)
            .max_iter(300)
            .fit(&data)
            .unwrap()
    };
    let reference = fit(1e-3, 2.0);
    assert_eq!(reference.report().termination, TerminationReason::Converged);
    let (lo, hi) = L_MIN_RANGE;
    let (eta_lo, eta_hi) = ETA_RANGE;
    for (l_min, eta) in [(lo, eta_lo), (lo, eta_hi), (hi, eta_lo), (hi, eta_hi)] {
        let model = fit(l_min, eta);
        assert_eq!(
            model.report().termination,
            TerminationReason::Converged,
            "{l_min}, {eta}"
        );
        assert!(
            model.report().iterations > 2,
            "{l_min}, {eta}: {} iterations",
            model.report().iterations
        );
        let gap = (model.objective() - reference.objective()).abs();
        assert!(
            gap <= 1e-5 * reference.objective(),
            "{l_min}, {eta}: objective {} vs {}",
            model.objective(),
            reference.objective()
        );
    }
}

/// A data set whose training folds fail for a reason the test controls.
fn data() -> MatrixDataset {
    two_class(24, 4, 4, 1.0, 4).unwrap()
}

#[test]
fn cross_val_score_with_every_fold_failing_is_an_error() {
    let strategy = CvStrategy::KFold { k: 4, seed: 1 };
    // Every fit fails (the rank exceeds min(s, t)).
    let err = cross_val_score(&data(), strategy, |train, test| {
        sblr_accuracy(&Sblr::params().rank(9), train, test)
    })
    .unwrap_err();
    match &err {
        SblrError::AllFoldsFailed { fits, first, .. } => {
            assert_eq!(*fits, 4);
            assert!(
                matches!(**first, SblrError::InvalidRank { rank: 9, .. }),
                "{first}"
            );
        }
        other => panic!("expected AllFoldsFailed, got {other}"),
    }
    assert!(err.to_string().contains("rank"), "{err}");
    // A score that is not a number is a failure too.
    let err = cross_val_score(&data(), strategy, |_, _| Ok(f64::NAN)).unwrap_err();
    assert!(
        matches!(err, SblrError::AllFoldsFailed { fits: 4, .. }),
        "{err}"
    );
}

#[test]
fn cross_val_score_reports_each_failed_fold() {
    let data = data();
    // Fail on every training fold that holds sample 0: all but fold 0 of leave-one-out.
    let first = data.sample(0)[(0, 0)];
    let scores = cross_val_score(&data, CvStrategy::LeaveOneOut, |train, _| {
        if (0..train.n_samples()).any(|i| train.sample(i)[(0, 0)] == first) {
            Err(SblrError::Core(bl_core::BlError::Numerical {
                context: "test",
                message: "planted failure".into(),
            }))
        } else {
            Ok(0.75)
        }
    })
    .unwrap();
    assert_eq!(scores.per_fold.len(), 24);
    assert_eq!(scores.per_fold[0], Some(0.75));
    assert!(scores.per_fold[1..].iter().all(Option::is_none));
    assert_eq!(scores.failures.len(), 23);
    assert_eq!(scores.failures[0].fold, 1);
    assert!(scores.failures[0].error.contains("planted failure"));
    assert_eq!(scores.mean, Some(0.75));
    assert!(!scores.is_complete());
    // The scores survive a JSON round trip (no NaN anywhere).
    let json = serde_json::to_string(&scores).unwrap();
    assert_eq!(
        serde_json::from_str::<sblr::CvScores>(&json).unwrap(),
        scores
    );
}

#[test]
fn grid_search_prefers_complete_candidates_and_errs_when_all_fail() {
    let data = data();
    let strategy = CvStrategy::KFold { k: 3, seed: 0 };
    // Candidate 0 fails on the two training folds that hold sample 0 and scores 1.0 on
    // the third; candidate 1 scores 0.5 everywhere: the complete candidate wins although
    // candidate 0's mean over its one fold is larger.
    let key = data.sample(0)[(0, 0)];
    let grid = grid_search(&data, vec![0_usize, 1], strategy, |&c, train, _| {
        let holds_sample_0 = (0..train.n_samples()).any(|i| train.sample(i)[(0, 0)] == key);
        match c {
            0 if holds_sample_0 => Err(SblrError::EmptyGrid { axis: "planted" }),
            0 => Ok(1.0),
            _ => Ok(0.5),
        }
    })
    .unwrap();
    let (zero, one) = (&grid.candidates[0].1, &grid.candidates[1].1);
    assert_eq!(zero.failures.len(), 2, "{zero:?}");
    assert_eq!(zero.mean, Some(1.0));
    assert!(zero.failures.iter().all(|f| f.error.contains("planted")));
    assert!(one.is_complete());
    assert_eq!(one.mean, Some(0.5));
    assert_eq!(grid.best, 1);
    // Every fit of every candidate fails.
    let err = grid_search(&data, vec![9_usize, 10], strategy, |&r, train, test| {
        sblr_accuracy(&Sblr::params().rank(r), train, test)
    })
    .unwrap_err();
    assert!(
        matches!(&err, SblrError::AllFoldsFailed { fits: 6, first, .. }
            if matches!(**first, SblrError::InvalidRank { .. })),
        "{err}"
    );
    // The paper's protocol propagates it.
    let pens = penalty_grid(&[0.0], &[0.1], &[0.0], &[0.1]).unwrap();
    let err = paper_protocol(
        &data,
        &Sblr::params().block_update(step(1e300, 2.0)),
        &[1],
        pens,
        strategy,
    )
    .unwrap_err();
    assert!(matches!(err, SblrError::AllFoldsFailed { .. }), "{err}");
}
