//! Sizes, counts, ranks and thread counts from callers and saved models are checked before
//! anything is allocated from them, and lists of names are compared in linear time: a
//! hostile value is a typed error with a bounded message, never an abort, a panic or a
//! quadratic scan. None of these tests allocates more than a few tens of megabytes.

use bl_core::BlError;
use bl_core::data::MatrixDataset;
use faer::Mat;
use sblr::Predict as _;
use sblr::block::BlockWork;
use sblr::conformance::{BlockCase, conformance_on};
use sblr::cv::{CvStrategy, Folds, grid_search, penalty_grid};
use sblr::synthetic::{planted, random_dataset, three_classes, two_class};
use sblr::{Fit as _, ParamGuard as _};
use sblr::{
    FittedMultinomialSblr, FittedOneVsAll, FittedSblr, Init, MultinomialSblr, ProxLinearStep, Sblr,
    SblrError,
};
use sblr::{LogisticRegression, SavedModel as _};
use serde_json::{Value, json};

/// The longest message a hostile input may produce.
const MESSAGE_LIMIT: usize = 600;

/// `result` is `BlError::InvalidParameter` (as `SblrError::Core`) with a bounded message.
fn assert_refused<T: std::fmt::Debug>(case: &str, result: sblr::Result<T>) {
    match result {
        Err(SblrError::Core(BlError::InvalidParameter { .. })) => {
            let message = result.unwrap_err().to_string();
            assert!(message.len() < MESSAGE_LIMIT, "{case}: {message}");
        }
        other => panic!("{case}: expected InvalidParameter, got {other:?}"),
    }
}

fn edited(json: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(json).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap()
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("class{i}")).collect()
}

/// A multinomial model on 3 x 3 samples (rank 1, three classes), as JSON.
fn multinomial_json() -> String {
    let data = three_classes(30, 3, 3, 2).unwrap();
    MultinomialSblr::params()
        .rank(1)
        .max_iter(5)
        .fit(&data)
        .unwrap()
        .to_json()
        .unwrap()
}

/// Loading `text` (refused or not) takes well under a second: the 2e10 comparisons of a
/// pairwise check of 200,000 names would take tens of seconds.
fn assert_loads_at_once(text: &str) {
    let limit = std::time::Duration::from_secs(2);
    let elapsed = crate::common::fastest_run(limit, || {
        let _ = FittedMultinomialSblr::from_json(text);
    });
    assert!(elapsed < limit, "loading took {elapsed:?}");
}

/// The loaders' duplicate check of class names is one hashed pass: 200,000 names (2e10
/// comparisons for the former pairwise check, minutes) load at once, and the messages
/// quote at most one name, bounded, never the whole list.
#[test]
fn class_names_are_checked_in_linear_time_with_bounded_messages() {
    let json = multinomial_json();
    let many = 200_000;
    // 200,000 distinct names: the names pass, the factors (sized for 3 classes) do not.
    let text = edited(&json, |v| {
        v["m"] = json!(many - 1);
        v["class_names"] = json!(names(many));
    });
    let err = FittedMultinomialSblr::from_json(&text).unwrap_err();
    assert!(
        matches!(err, SblrError::InvalidModel { field: "u", .. }),
        "{err}"
    );
    assert_loads_at_once(&text);
    // The same names with the last one repeating the first.
    let mut repeated = names(many);
    repeated[many - 1] = repeated[0].clone();
    let text = edited(&json, |v| {
        v["m"] = json!(many - 1);
        v["class_names"] = json!(repeated);
    });
    let err = FittedMultinomialSblr::from_json(&text).unwrap_err();
    assert!(
        matches!(
            err,
            SblrError::InvalidModel {
                field: "class_names",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("\"class0\""), "{err}");
    assert!(err.to_string().contains(&format!("{}", many - 1)), "{err}");
    assert_loads_at_once(&text);

    // Messages: a 1 MiB name repeated, 200,000 names for a binary model, one 1 MiB name.
    let long = "x".repeat(1 << 20);
    let binary = {
        let data = two_class(20, 3, 3, 1.0, 0).unwrap();
        Sblr::params()
            .max_iter(3)
            .fit(&data)
            .unwrap()
            .to_json()
            .unwrap()
    };
    let ova = {
        let data = three_classes(30, 3, 3, 2).unwrap();
        sblr::OneVsAll::new(LogisticRegression::params())
            .fit(&data)
            .unwrap()
    };
    let ova_json = serde_json::to_string(&ova).unwrap();
    let cases: Vec<(&str, sblr::Result<()>)> = vec![
        (
            "multinomial, a long name twice",
            FittedMultinomialSblr::from_json(&edited(&json, |v| {
                v["class_names"] = json!([long, "b", long]);
            }))
            .map(drop),
        ),
        (
            "binary, 200,000 names",
            FittedSblr::from_json(&edited(&binary, |v| v["class_names"] = json!(names(many))))
                .map(drop),
        ),
        (
            "binary, one long name",
            FittedSblr::from_json(&edited(&binary, |v| v["class_names"] = json!([long]))).map(drop),
        ),
        (
            "one-vs-all, one long name",
            serde_json::from_str::<FittedOneVsAll<sblr::FittedLogisticRegression>>(&edited(
                &ova_json,
                |v| v["class_names"] = json!([long]),
            ))
            .map(drop)
            .map_err(|e| SblrError::ModelFormat {
                model: "FittedOneVsAll",
                message: e.to_string(),
            }),
        ),
    ];
    for (case, result) in cases {
        let err = result.expect_err(case);
        let message = err.to_string();
        assert!(message.contains("class_names"), "{case}: {message}");
        assert!(
            message.len() < MESSAGE_LIMIT,
            "{case}: a message of {} bytes",
            message.len()
        );
    }
}

/// Every generator checks `n s t` before allocating (2^40 values, 8 TiB, aborted; a
/// product past `usize::MAX` overflowed).
#[test]
fn synthetic_generators_refuse_huge_sizes_before_allocating() {
    let huge = (1usize << 20, 1usize << 10, 1usize << 10);
    let cases: Vec<(&str, sblr::Result<MatrixDataset>)> = vec![
        ("two_class 2^40", two_class(huge.0, huge.1, huge.2, 1.0, 0)),
        ("two_class overflow", two_class(usize::MAX, 2, 2, 1.0, 0)),
        (
            "random_dataset 2^40",
            random_dataset(huge.0, huge.1, huge.2, 0),
        ),
        (
            "random_dataset overflow",
            random_dataset(2, usize::MAX, 2, 0),
        ),
        (
            "planted 2^40",
            planted(huge.0, huge.1, huge.2, &[0], &[0], 0),
        ),
        ("planted overflow", planted(usize::MAX, 2, 2, &[0], &[0], 0)),
        (
            "three_classes 2^40",
            three_classes(huge.0, huge.1, huge.2, 0),
        ),
        ("three_classes overflow", three_classes(3, usize::MAX, 3, 0)),
        // A zero dimension made `n s t` zero and let 2^33 labels through (found by the
        // `sizes` fuzz target: a 64 GiB allocation).
        ("two_class 2^33 x 2 x 0", two_class(1 << 33, 2, 0, 1.0, 0)),
        (
            "random_dataset 2^33 x 0 x 2",
            random_dataset(1 << 33, 0, 2, 0),
        ),
        (
            "planted 2^33 x 2 x 0",
            planted(1 << 33, 2, 0, &[0], &[0], 0),
        ),
        (
            "three_classes 2^33 x 0 x 3",
            three_classes(1 << 33, 0, 3, 0),
        ),
    ];
    for (case, result) in cases {
        assert_refused(case, result);
    }
    // Sizes within the limit still work.
    assert_eq!(two_class(4, 2, 3, 1.0, 0).unwrap().n_samples(), 4);
}

/// One 1000 x 1000 matrix given 5,000 times asks for a copy of 5e9 values (40 GB): refused
/// before reserving it.
#[test]
fn dataset_from_samples_refuses_a_copy_larger_than_the_limit() {
    let x = Mat::<f64>::zeros(1000, 1000);
    let samples = vec![x.as_ref(); 5000];
    let labels: Vec<&str> = (0..5000)
        .map(|i| if i % 2 == 0 { "a" } else { "b" })
        .collect();
    assert_refused(
        "dataset_from_samples",
        sblr::data::dataset_from_samples(&samples, &labels),
    );
}

/// Block work buffers and conformance cases are sized by the caller: checked first.
#[test]
fn block_buffers_and_conformance_cases_refuse_huge_sizes() {
    for (case, (dim, n)) in [
        ("max_dim usize::MAX", (usize::MAX, 1)),
        ("max_dim 2^40", (1 << 40, 1)),
        ("n 2^40", (1, 1 << 40)),
    ] {
        assert_refused(case, BlockWork::new(dim, n));
    }
    assert!(BlockWork::new(3, 5).is_ok());
    for (dim, samples) in [
        (1usize << 40, 1usize << 10),
        (usize::MAX, 2),
        (2, usize::MAX),
    ] {
        let case = BlockCase {
            dim,
            samples,
            ..BlockCase::default()
        };
        let report = conformance_on(&ProxLinearStep::default(), &[case]);
        assert!(!report.passed(), "{report}");
        assert!(
            report.failures().any(|c| c.name == "case allocated"),
            "{report}"
        );
        assert!(report.to_string().len() < MESSAGE_LIMIT, "{report}");
    }
}

/// A penalty grid of `2^64` (overflow) or `2^36` tuples is refused before it is reserved.
#[test]
fn penalty_grids_past_the_limit_are_refused() {
    let axis16 = vec![0.1; 1 << 16];
    let axis9 = vec![0.1; 1 << 9];
    assert_refused(
        "2^64 tuples",
        penalty_grid(&axis16, &axis16, &axis16, &axis16),
    );
    assert_refused("2^36 tuples", penalty_grid(&axis9, &axis9, &axis9, &axis9));
    assert_eq!(
        penalty_grid(&[0.0, 1.0], &[0.5], &[0.1, 0.2], &[0.3])
            .unwrap()
            .len(),
        4
    );
}

/// Leave-one-out on 70,000 samples would hold 4.9e9 values in its folds (and as many
/// indices): refused before any fold is made. A grid of `usize::MAX` (empty) candidates
/// overflowed `candidates x folds`.
#[test]
fn cross_validation_refuses_folds_and_grids_past_the_limit() {
    let n = 70_000;
    let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
    let data =
        MatrixDataset::new(1, 1, vec![0.5; n], labels, vec!["a".into(), "b".into()]).unwrap();
    assert_refused(
        "leave-one-out, 70,000 samples",
        Folds::new(&data, CvStrategy::LeaveOneOut).map(drop),
    );
    let small = two_class(8, 2, 2, 1.0, 0).unwrap();
    assert_refused(
        "usize::MAX candidates",
        grid_search(
            &small,
            vec![(); usize::MAX],
            CvStrategy::KFold { k: 2, seed: 0 },
            |(), _, _| Ok(1.0),
        )
        .map(drop),
    );
    assert_eq!(
        Folds::new(&small, CvStrategy::LeaveOneOut)
            .unwrap()
            .pairs()
            .len(),
        8
    );
}

/// Decision values of a point with no factor column are the intercept (the product loop
/// panicked on a chunk size of zero).
#[test]
fn decision_values_of_empty_factors_are_the_intercept() {
    let data = two_class(6, 3, 2, 1.0, 0).unwrap();
    let (u, v) = (Mat::<f64>::zeros(3, 0), Mat::<f64>::zeros(2, 0));
    let values = sblr::bilinear::decision_values(
        &data,
        sblr::bilinear::Point::new(u.as_ref(), v.as_ref(), 0.25),
    )
    .unwrap();
    assert_eq!(values, vec![0.25; 6]);
}

/// `initial_point` checks the rank against the sample shape before it sizes anything from
/// it (a random start of rank 2^40 aborted).
#[test]
fn initial_points_refuse_ranks_outside_the_sample_shape() {
    let data = two_class(6, 3, 2, 1.0, 0).unwrap();
    let y = sblr::bilinear::binary_signs(&data).unwrap();
    for rank in [0, 3, 1 << 40, usize::MAX] {
        for init in [Init::Random, Init::MeanSvd] {
            let err = sblr::bilinear::initial_point(&init, data.stacked(), 3, 2, &y, rank, 0)
                .unwrap_err();
            assert!(
                matches!(err, SblrError::InvalidRank { .. }),
                "{rank}: {err}"
            );
        }
    }
}

/// A multinomial fit with 100,000 classes of one 1 x 1 sample each needs `s (classes - 1)
/// rank n` = 1e10 values for its reduced features (80 GB): refused before allocating.
#[test]
fn multinomial_fits_refuse_reduced_features_past_the_limit() {
    let n = 100_000;
    let data = MatrixDataset::new(1, 1, vec![0.5; n], (0..n).collect(), names(n)).unwrap();
    assert_refused(
        "100,000 classes",
        MultinomialSblr::params()
            .rank(1)
            .max_iter(1)
            .init(Init::Random)
            .fit(&data),
    );
}

/// A loaded multinomial model with 65,536 classes scoring 2^17 samples would fill
/// `n x classes` = 2^33 scores: refused before allocating.
#[test]
fn multinomial_scores_past_the_limit_are_refused() {
    let m = (1usize << 16) - 1;
    let text = edited(&multinomial_json(), |v| {
        v["m"] = json!(m);
        v["class_names"] = json!(names(m + 1));
        v["u"] = json!(vec![0.0; 3 * m]);
        v["v"] = json!(vec![0.0; 3 * m]);
        v["intercepts"] = json!(vec![0.0; m]);
    });
    let model = FittedMultinomialSblr::from_json(&text).unwrap();
    let n = 1 << 17;
    let data = MatrixDataset::new(
        3,
        3,
        vec![0.5; 9 * n],
        (0..n).map(|i| i % 2).collect(),
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    assert_refused("decision_function", model.decision_function(&data));
    assert_refused("predict", model.predict(&data));
    // A sample count within the limit still scores.
    let few = three_classes(6, 3, 3, 0).unwrap();
    assert_eq!(model.decision_function(&few).unwrap()[0].len(), m + 1);
}

/// One thread bound for every knob of the crate: the workspace's.
#[test]
fn thread_counts_share_the_workspace_bound() {
    assert_eq!(sblr::passes::MAX_THREADS, bl_core::limits::MAX_THREADS);
    let data = two_class(8, 3, 2, 1.0, 0).unwrap();
    for threads in [0, bl_core::limits::MAX_THREADS + 1, usize::MAX] {
        assert_refused(
            "SblrParams",
            Sblr::params().threads(Some(threads)).check().map(drop),
        );
        assert_refused(
            "LogisticParams",
            LogisticRegression::params()
                .threads(Some(threads))
                .check()
                .map(drop),
        );
        assert_refused(
            "MultinomialParams",
            MultinomialSblr::params()
                .threads(Some(threads))
                .check()
                .map(drop),
        );
        assert_refused(
            "Samples",
            sblr::passes::Samples::of(&data)
                .and_then(|s| s.with_threads(Some(threads)))
                .map(drop),
        );
        assert_refused(
            "SamplePasses",
            sblr::passes::SamplePasses::new(&data, Some(threads)).map(drop),
        );
        assert_refused(
            "warmed_solver",
            sblr::yardstick::warmed_solver(&data, sblr::Penalties::default(), threads).map(drop),
        );
    }
    assert!(Sblr::params().threads(Some(2)).check().is_ok());
}

/// A loaded binary model of 2^17 x 2^17 samples (factors of 2^17 values each) asks
/// `weight_matrix` for 2^34 values (128 GiB, aborted): refused.
#[test]
fn weight_matrices_past_the_limit_are_refused() {
    let data = two_class(20, 3, 3, 1.0, 0).unwrap();
    let model = Sblr::params().max_iter(3).fit(&data).unwrap();
    assert_eq!(model.weight_matrix().unwrap().shape(), (3, 3));
    let side = 1usize << 17;
    let text = edited(&model.to_json().unwrap(), |v| {
        v["s"] = json!(side);
        v["t"] = json!(side);
        v["u"] = json!(vec![0.0; side]);
        v["v"] = json!(vec![0.0; side]);
    });
    let big = FittedSblr::from_json(&text).unwrap();
    assert_refused("weight_matrix", big.weight_matrix());
}

/// One-vs-all scores hold `n x classes` values: 8,192 loaded models on 2^20 samples
/// would fill 2^33 scores (64 GiB): refused before scoring.
#[test]
fn one_vs_all_scores_past_the_limit_are_refused() {
    let data = MatrixDataset::new(
        1,
        1,
        vec![0.0, 1.0, 2.0, 0.5, 1.5, 2.5],
        vec![0, 1, 2, 0, 1, 2],
        names(3),
    )
    .unwrap();
    let ova = sblr::OneVsAll::new(LogisticRegression::params().max_iter(3))
        .fit(&data)
        .unwrap();
    let classes = 1usize << 13;
    let text = edited(&serde_json::to_string(&ova).unwrap(), |v| {
        let model = v["models"][0].clone();
        v["models"] = Value::Array(vec![model; classes]);
        v["class_names"] = json!(names(classes));
        // The saved report sums the three fitted classes; rebuilt from the copies instead.
        v.as_object_mut().unwrap().remove("report");
    });
    let big: FittedOneVsAll<sblr::FittedLogisticRegression> = serde_json::from_str(&text).unwrap();
    let n = 1usize << 20;
    let samples = MatrixDataset::new(
        1,
        1,
        vec![0.5; n],
        (0..n).map(|i| i % 2).collect(),
        names(2),
    )
    .unwrap();
    assert_refused("decision_function", big.decision_function(&samples));
    assert_refused("predict", big.predict(&samples));
    assert_eq!(big.decision_function(&data).unwrap()[0].len(), classes);
}
