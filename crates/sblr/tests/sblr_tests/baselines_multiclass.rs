//! Baselines (FISTA logistic regression), one-vs-all, the multinomial model and model
//! selection.

use crate::common;
use sblr::Predict as _;

use bl_core::data::MatrixDataset;
use bl_core::engine::TerminationReason;
use bl_core::random::{fill_standard_normal, seeded_rng};
use proptest::prelude::*;
use sblr::cv::{paper_protocol, penalty_grid, sblr_accuracy};
use sblr::synthetic::two_class;
use sblr::{
    CvStrategy, FittedMultinomialSblr, Init, LogisticRegression, MultinomialSblr, OneVsAll, Sblr,
    SblrError, cross_val_score, grid_search,
};
use sblr::{Fit as _, Fitted as _, ParamGuard as _};

/// The fixed data set of the l1 reference test: 12 samples of 2 x 3, `vec(X_i)[j] =
/// ((7 i + 5 j) mod 11 - 5) / 4` (exact in binary), labels below.
fn reference_data() -> MatrixDataset {
    let (n, d) = (12usize, 6usize);
    let data: Vec<f64> = (0..n)
        .flat_map(|i| (0..d).map(move |j| (((i * 7 + j * 5) % 11) as f64 - 5.0) / 4.0))
        .collect();
    let labels = vec![1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1];
    MatrixDataset::new(2, 3, data, labels, vec!["0".into(), "1".into()]).unwrap()
}

/// l1 logistic regression matches scikit-learn 1.9.1 on the fixed data set.
///
/// Reference produced with (`pip install scikit-learn==1.9.1`, Python 3.11):
///
/// ```text
/// import warnings, numpy as np
/// from sklearn.linear_model import LogisticRegression
/// n, d, lam = 12, 6, 0.05
/// X = np.array([[((i * 7 + j * 5) % 11 - 5) / 4 for j in range(d)] for i in range(n)])
/// y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1])
/// with warnings.catch_warnings():
///     warnings.simplefilter("ignore")
///     clf = LogisticRegression(penalty="l1", C=1.0 / (n * lam), solver="saga",
///                              tol=1e-14, max_iter=1_000_000).fit(X, y)
/// w, b = clf.coef_.ravel(), clf.intercept_[0]
/// s = 2 * y - 1
/// print(np.mean(np.logaddexp(0, -s * (X @ w + b))) + lam * np.abs(w).sum())
/// # 0.5365146839752117, w = [-0.27675, 0.21069, 0, 0, 1.20188, -0.59430], b = -0.11796
/// ```
///
/// (saga does not penalize the intercept; `C = 1 / (n lambda)` turns sklearn's
/// `C sum loss + |w|_1` into our `(1/n) sum loss + lambda |w|_1`.)
#[test]
fn l1_logistic_matches_sklearn_saga() {
    let data = reference_data();
    let model = LogisticRegression::params()
        .l1(0.05)
        .l2(0.0)
        .tol(1e-12)
        .max_iter(100_000)
        .fit(&data)
        .unwrap();
    let reference = 0.536_514_683_975_211_7;
    assert!(
        (model.objective() - reference).abs() <= 1e-9 * reference,
        "objective {} vs sklearn {reference}",
        model.objective()
    );
    let w = model.weights();
    let sk = [
        -0.276_754_903_094_866_3,
        0.210_685_838_440_642_76,
        0.0,
        0.0,
        1.201_881_217_608_344_9,
        -0.594_298_979_347_343_5,
    ];
    for (j, &expected) in sk.iter().enumerate() {
        let ours = w[(j % 2, j / 2)];
        assert!(
            (ours - expected).abs() < 1e-6,
            "w[{j}] = {ours} vs {expected}"
        );
        assert_eq!(ours == 0.0, expected == 0.0, "support differs at {j}");
    }
    assert!((model.intercept() + 0.117_958_568_221_193_54).abs() < 1e-6);
    assert_eq!(model.n_nonzero(), 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// FISTA's elastic-net solution is stationary: dist(0, grad + subdifferential) ~ 0.
    #[test]
    fn elastic_net_logistic_is_stationary(seed in 0u64..300, l1 in 0.0f64..0.1, l2 in 0.0f64..0.2) {
        let data = sblr::synthetic::planted(40, 3, 3, &[0], &[1], seed).unwrap();
        let model = LogisticRegression::params().l1(l1).l2(l2.max(1e-3)).tol(1e-10).fit(&data).unwrap();
        prop_assert!(model.report().converged());
        // Recompute the residual independently.
        let y = data.signs().unwrap();
        let f = model.decision_function(&data).unwrap();
        let n = f.len() as f64;
        let w = model.weights();
        let mut gb = 0.0;
        let mut res2 = 0.0;
        for a in 0..3 {
            for b in 0..3 {
                let mut g = 0.0;
                for i in 0..data.n_samples() {
                    let c = -y[i] * bl_core::logistic::sigmoid(-y[i] * f[i]) / n;
                    g += c * data.sample(i)[(a, b)];
                }
                let r = sblr::block::entry_residual(w[(a, b)], g, l1, l2.max(1e-3));
                res2 += r * r;
            }
        }
        for i in 0..data.n_samples() {
            gb += -y[i] * bl_core::logistic::sigmoid(-y[i] * f[i]) / n;
        }
        res2 += gb * gb;
        prop_assert!(res2.sqrt() < 1e-7, "residual {}", res2.sqrt());
    }
}

/// Three classes, each a different planted rank-1 pattern plus noise.
fn three_class(n_per: usize, seed: u64) -> MatrixDataset {
    let (s, t) = (6, 5);
    let mut rng = seeded_rng(seed);
    let mut data = vec![0.0; 3 * n_per * s * t];
    fill_standard_normal(&mut rng, &mut data);
    let mut labels = Vec::new();
    for (i, x) in data.chunks_mut(s * t).enumerate() {
        let c = i % 3;
        labels.push(c);
        // class c: +2.5 on row c, columns c..c+2
        for j in c..c + 2 {
            x[j * s + c] += 2.5;
        }
    }
    MatrixDataset::new(s, t, data, labels, vec!["a".into(), "b".into(), "c".into()]).unwrap()
}

#[test]
fn multinomial_classifies_three_classes_and_never_increases() {
    let train = three_class(40, 1);
    let test = three_class(40, 2);
    let params = MultinomialSblr::params()
        .rank(1)
        .penalties(0.005, 0.05, 0.005, 0.05)
        .init(Init::LabelWeightedSvd)
        .tol(1e-6)
        .max_iter(2000);
    let model: FittedMultinomialSblr = params.clone().fit(&train).unwrap();
    let objectives = model.report().trace.objectives();
    for w in objectives.windows(2) {
        assert!(
            w[1] <= w[0] + 1e-12 * w[0].abs(),
            "objective rose: {} -> {}",
            w[0],
            w[1]
        );
    }
    let acc = bl_core::metrics::accuracy(test.labels(), &model.predict(&test).unwrap()).unwrap();
    assert!(acc > 0.9, "multinomial accuracy {acc}");
    for p in model.predict_proba(&test).unwrap() {
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    let json = serde_json::to_string(&model).unwrap();
    let back: FittedMultinomialSblr = serde_json::from_str(&json).unwrap();
    assert_eq!(back, model);
    // One-vs-all on the same data, SBLR and LR.
    let ova = OneVsAll::new(
        Sblr::params()
            .rank(1)
            .penalties(0.005, 0.05, 0.005, 0.05)
            .init(Init::LabelWeightedSvd),
    )
    .fit(&train)
    .unwrap();
    let acc = bl_core::metrics::accuracy(test.labels(), &ova.predict(&test).unwrap()).unwrap();
    assert!(acc > 0.9, "one-vs-all SBLR accuracy {acc}");
    assert_eq!(ova.models().len(), 3);
    let lr = OneVsAll::new(LogisticRegression::params().l2(0.01))
        .fit(&train)
        .unwrap();
    let acc_lr = bl_core::metrics::accuracy(test.labels(), &lr.predict(&test).unwrap()).unwrap();
    assert!(acc_lr > 0.9, "one-vs-all LR accuracy {acc_lr}");
}

/// With two classes the multinomial model is the binary one with the sign flipped:
/// both reach the same optimal objective on a well-posed (strongly regularized) problem.
#[test]
fn two_class_multinomial_matches_binary_objective() {
    let data = two_class(30, 5, 4, 0.5, 3).unwrap();
    let base = Sblr::params()
        .rank(1)
        .penalties(0.01, 1.0, 0.01, 1.0)
        .init(Init::LabelWeightedSvd)
        .tol(1e-12)
        .max_iter(20_000);
    let binary = base.fit(&data).unwrap();
    let multi = base.clone().multinomial().fit(&data).unwrap();
    common::assert_same_objective(
        ("binary", binary.objective()),
        ("multinomial", multi.objective()),
        1e-6,
    );
    let pb = binary.predict(&data).unwrap();
    assert_eq!(pb, multi.predict(&data).unwrap());
}

#[test]
fn multinomial_rejects_alg1_and_missing_classes() {
    let data = three_class(5, 0);
    let err = Sblr::params()
        .block_update(common::alg1())
        .multinomial()
        .fit(&data)
        .unwrap_err();
    common::assert_invalid(&err, "block_update");
    let sub = data.subset(&[0, 1, 3, 4]).unwrap(); // no sample of class "c"
    let err = MultinomialSblr::params().fit(&sub).unwrap_err();
    assert!(
        matches!(err, SblrError::MissingClass { ref class } if class == "c"),
        "{err}"
    );
    let err = OneVsAll::new(Sblr::params()).fit(&sub).unwrap_err();
    assert!(matches!(err, SblrError::MissingClass { .. }));
}

#[test]
fn cross_validation_and_grid_search() {
    let data = two_class(24, 4, 4, 1.0, 4).unwrap();
    let fit_score = |train: &MatrixDataset, test: &MatrixDataset| {
        sblr_accuracy(&Sblr::params().max_iter(50), train, test)
    };
    let kfold = cross_val_score(&data, CvStrategy::KFold { k: 4, seed: 1 }, fit_score).unwrap();
    assert_eq!(kfold.per_fold.len(), 4);
    assert!(kfold.is_complete(), "{kfold:?}");
    assert!(kfold.mean.unwrap() > 0.8, "{kfold:?}");
    let loo = cross_val_score(&data, CvStrategy::LeaveOneOut, fit_score).unwrap();
    assert_eq!(loo.per_fold.len(), 24);
    assert!(
        loo.per_fold
            .iter()
            .all(|&a| a == Some(0.0) || a == Some(1.0))
    );
    // A grid whose best candidate is known: a huge l1 penalty kills the model.
    let grid = grid_search(
        &data,
        vec![50.0, 0.01],
        CvStrategy::KFold { k: 3, seed: 0 },
        |&l1, train, test| {
            sblr_accuracy(
                &Sblr::params().penalties(l1, 0.1, l1, 0.1).max_iter(50),
                train,
                test,
            )
        },
    )
    .unwrap();
    assert_eq!(grid.best, 1);
    assert!(grid.candidates[0].1.mean.unwrap() <= 0.6);
    let err = grid_search(
        &data,
        Vec::<f64>::new(),
        CvStrategy::LeaveOneOut,
        |_, _, _| Ok(0.0),
    )
    .unwrap_err();
    assert!(matches!(err, SblrError::EmptyGrid { .. }));
    // The paper's protocol: rank first (unregularized), then penalties.
    let pens = penalty_grid(&[0.0, 0.01], &[0.1], &[0.0, 0.01], &[0.1]).unwrap();
    assert_eq!(pens.len(), 4);
    let result = paper_protocol(
        &data,
        &Sblr::params().max_iter(50),
        &[1, 2],
        pens,
        CvStrategy::KFold { k: 3, seed: 2 },
    )
    .unwrap();
    assert_eq!(result.ranks.candidates.len(), 2);
    assert_eq!(result.penalties.candidates.len(), 4);
    assert!(result.best.check().is_ok());
    assert!(penalty_grid(&[], &[1.0], &[1.0], &[1.0]).is_err());
}

/// A warm start resumes where the fitted model stopped: the first iteration starts at its
/// objective (so the monotone Algorithm 3 can only go down from there), a converged model
/// stays put, and starts of the wrong size or kind are typed errors.
#[test]
fn multinomial_warm_start_resumes_and_is_validated() {
    let data = three_class(20, 5);
    let params = MultinomialSblr::params()
        .rank(1)
        .penalties(0.005, 0.05, 0.005, 0.05)
        .init(Init::LabelWeightedSvd);
    let rough = params.clone().tol(1e-3).fit(&data).unwrap();
    let resumed = (params
        .clone()
        .tol(1e-9)
        .max_iter(5000)
        .init(rough.warm_start()))
    .fit(&data)
    .unwrap();
    let first = resumed.report().trace.objectives()[0];
    assert!(
        first <= rough.objective() + 1e-12,
        "resumed run starts above the rough fit: {first} > {}",
        rough.objective()
    );
    assert!(resumed.objective() < rough.objective());
    // From a converged model the resumed run stops at once and changes nothing material.
    let again = params
        .clone()
        .tol(1e-9)
        .init(resumed.warm_start())
        .fit(&data)
        .unwrap();
    assert_eq!(resumed.report().termination, TerminationReason::Converged);
    assert!(
        again.report().iterations <= 3,
        "{} iterations from a converged start",
        again.report().iterations
    );
    // Each of those iterations moves the objective by at most tol (relative).
    let moved = (again.objective() - resumed.objective()).abs() / resumed.objective();
    assert!(moved <= 3e-9, "objective moved by {moved:e} (relative)");
    // A cold start needs many more iterations to get there.
    assert!(resumed.report().iterations + rough.report().iterations > again.report().iterations);

    // Wrong sizes (a model of other data) and the binary warm start are rejected.
    let Init::WarmMultinomial { u, v, intercepts } = resumed.warm_start() else {
        panic!("warm_start of a multinomial model is WarmMultinomial");
    };
    let short = Init::WarmMultinomial {
        u: u[1..].to_vec(),
        v: v.clone(),
        intercepts: intercepts.clone(),
    };
    let err = params.clone().init(short).fit(&data).unwrap_err();
    assert!(
        matches!(
            err,
            SblrError::Core(bl_core::BlError::ShapeMismatch {
                context: "warm start U",
                ..
            })
        ),
        "{err}"
    );
    let few_b = Init::WarmMultinomial {
        u: u.clone(),
        v: v.clone(),
        intercepts: vec![0.0],
    };
    let err = params.clone().init(few_b).fit(&data).unwrap_err();
    assert!(
        matches!(err, SblrError::Core(bl_core::BlError::ShapeMismatch { .. })),
        "{err}"
    );
    let mut nan_u = u.clone();
    nan_u[0] = f64::NAN;
    let nan = Init::WarmMultinomial {
        u: nan_u,
        v,
        intercepts,
    };
    assert!(params.clone().init(nan.clone()).fit(&data).is_err());
    let binary_start = Init::Warm {
        u: vec![0.0; 6],
        v: vec![0.0; 5],
        intercept: 0.0,
    };
    let err = params.clone().init(binary_start).fit(&data).unwrap_err();
    common::assert_invalid(&err, "init");
    // ... and the binary model rejects the multinomial start.
    let two = two_class(10, 6, 5, 1.0, 1).unwrap();
    let err = Sblr::params()
        .rank(1)
        .init(resumed.warm_start())
        .fit(&two)
        .unwrap_err();
    common::assert_invalid(&err, "init");
}
