//! Integration tests of `bl_core::data`: the matrix data set, splits and cross-validation.

use bl_core::BlError;
use bl_core::data::{KFold, LeaveOneOut, MatrixDataset, stratified_split};
use proptest::prelude::*;

/// `n` samples of shape `s x t` whose entry `(a, b)` of sample `i` is `100 i + 10 a + b`.
fn coded(s: usize, t: usize, n: usize) -> Vec<f64> {
    let mut data = Vec::new();
    for i in 0..n {
        for b in 0..t {
            for a in 0..s {
                data.push((100 * i + 10 * a + b) as f64);
            }
        }
    }
    data
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn layout_views_agree() {
    let (s, t, n) = (2, 3, 4);
    let ds =
        MatrixDataset::new(s, t, coded(s, t, n), vec![0, 1, 0, 1], names(&["a", "b"])).unwrap();
    assert_eq!(ds.n_samples(), n);
    assert_eq!(ds.shape(), (s, t));
    let stacked = ds.stacked();
    let vectorized = ds.vectorized();
    assert_eq!((stacked.nrows(), stacked.ncols()), (s, t * n));
    assert_eq!((vectorized.nrows(), vectorized.ncols()), (s * t, n));
    for i in 0..n {
        let x = ds.sample(i);
        assert_eq!((x.nrows(), x.ncols()), (s, t));
        for a in 0..s {
            for b in 0..t {
                let want = (100 * i + 10 * a + b) as f64;
                assert_eq!(x[(a, b)], want);
                assert_eq!(stacked[(a, i * t + b)], want);
                assert_eq!(vectorized[(b * s + a, i)], want);
                assert_eq!(ds.as_slice()[i * s * t + b * s + a], want);
            }
        }
    }
    assert!(ds.get_sample(n).is_none());
    assert!(ds.get_sample(usize::MAX).is_none());
}

#[test]
fn class_names_are_sorted_distinct_names() {
    let ds = MatrixDataset::from_label_names(1, 1, vec![1.0, 2.0, 3.0, 4.0], &["z", "a", "m", "a"])
        .unwrap();
    assert_eq!(ds.class_names(), ["a", "m", "z"]);
    assert_eq!(ds.labels(), [2, 0, 1, 0]);
    assert_eq!(ds.n_classes(), 3);
    assert_eq!(ds.class_counts(), [2, 1, 1]);
    assert_eq!(ds.class_index("m"), Some(1));
    assert_eq!(ds.class_index("q"), None);
}

#[test]
fn signs_map_class_one_to_plus_one() {
    let ds =
        MatrixDataset::new(1, 2, coded(1, 2, 3), vec![1, 0, 1], names(&["neg", "pos"])).unwrap();
    assert_eq!(ds.signs().unwrap(), [1.0, -1.0, 1.0]);
    let three =
        MatrixDataset::new(1, 1, vec![0.0; 3], vec![0, 1, 2], names(&["a", "b", "c"])).unwrap();
    assert!(matches!(
        three.signs(),
        Err(BlError::InvalidParameter {
            name: "n_classes",
            ..
        })
    ));
}

#[test]
fn subset_copies_samples_in_order_and_keeps_classes() {
    let (s, t) = (2, 2);
    let ds =
        MatrixDataset::new(s, t, coded(s, t, 3), vec![0, 1, 2], names(&["a", "b", "c"])).unwrap();
    let sub = ds.subset(&[2, 0, 2]).unwrap();
    assert_eq!(sub.n_samples(), 3);
    assert_eq!(sub.labels(), [2, 0, 2]);
    assert_eq!(sub.class_names(), ds.class_names());
    assert_eq!(sub.sample(0), ds.sample(2));
    assert_eq!(sub.sample(1), ds.sample(0));
    assert!(matches!(ds.subset(&[]), Err(BlError::Empty { .. })));
    assert!(matches!(
        ds.subset(&[0, 3]),
        Err(BlError::InvalidParameter {
            name: "indices",
            ..
        })
    ));
}

#[test]
fn restrict_to_classes_relabels_in_the_given_order() {
    let ds = MatrixDataset::from_label_names(
        1,
        1,
        vec![0.0, 1.0, 2.0, 3.0, 4.0],
        &["Walking", "Running", "Badminton", "Walking", "Standing"],
    )
    .unwrap();
    let binary = ds.restrict_to_classes(&["Walking", "Badminton"]).unwrap();
    assert_eq!(binary.class_names(), ["Walking", "Badminton"]);
    assert_eq!(binary.labels(), [0, 1, 0]);
    assert_eq!(binary.as_slice(), [0.0, 2.0, 3.0]);
    assert_eq!(binary.signs().unwrap(), [-1.0, 1.0, -1.0]);

    assert!(matches!(
        ds.restrict_to_classes(&["Walking"]),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    assert!(matches!(
        ds.restrict_to_classes(&["Walking", "Swimming"]),
        Err(BlError::InvalidParameter {
            name: "classes",
            ..
        })
    ));
    assert!(matches!(
        ds.restrict_to_classes(&["Walking", "Walking"]),
        Err(BlError::InvalidParameter {
            name: "classes",
            ..
        })
    ));
}

#[test]
fn constructors_reject_bad_input() {
    let two = || names(&["a", "b"]);
    assert!(matches!(
        MatrixDataset::new(0, 2, vec![], vec![0], two()),
        Err(BlError::InvalidParameter { name: "rows", .. })
    ));
    assert!(matches!(
        MatrixDataset::new(2, 0, vec![], vec![0], two()),
        Err(BlError::InvalidParameter { name: "cols", .. })
    ));
    assert!(matches!(
        MatrixDataset::new(1, 1, vec![], vec![], two()),
        Err(BlError::Empty { .. })
    ));
    assert!(matches!(
        MatrixDataset::new(2, 2, vec![0.0; 7], vec![0, 1], two()),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        MatrixDataset::new(1, 2, vec![0.0, 1.0, f64::NAN, 0.0], vec![0, 1], two()),
        Err(BlError::NonFinite { index: 2, .. })
    ));
    assert!(matches!(
        MatrixDataset::new(1, 1, vec![f64::INFINITY], vec![0], two()),
        Err(BlError::NonFinite { index: 0, .. })
    ));
    assert!(matches!(
        MatrixDataset::new(1, 1, vec![0.0, 1.0], vec![0, 2], two()),
        Err(BlError::InvalidParameter { name: "labels", .. })
    ));
    assert!(matches!(
        MatrixDataset::new(1, 1, vec![0.0], vec![0], names(&["only"])),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    assert!(matches!(
        MatrixDataset::new(1, 1, vec![0.0], vec![0], names(&["x", "x"])),
        Err(BlError::InvalidParameter {
            name: "class_names",
            ..
        })
    ));
    assert!(matches!(
        MatrixDataset::from_label_names(1, 1, vec![0.0, 1.0], &["same", "same"]),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    assert!(matches!(
        MatrixDataset::from_label_names::<&str>(1, 1, vec![], &[]),
        Err(BlError::Empty { .. })
    ));
    assert!(matches!(
        MatrixDataset::new(usize::MAX, 2, vec![0.0], vec![0], two()),
        Err(BlError::InvalidParameter { .. })
    ));
}

#[test]
#[should_panic(expected = "out of range")]
fn sample_out_of_range_panics_like_indexing() {
    let ds = MatrixDataset::new(1, 1, vec![0.0, 1.0], vec![0, 1], names(&["a", "b"])).unwrap();
    let _ = ds.sample(2);
}

/// Labels with 60 / 30 / 10 samples, interleaved.
fn imbalanced_labels() -> Vec<usize> {
    (0..100)
        .map(|i| match i % 10 {
            0..=5 => 0,
            6..=8 => 1,
            _ => 2,
        })
        .collect()
}

#[test]
fn stratified_split_keeps_class_proportions() {
    let labels = imbalanced_labels();
    let (train, test) = stratified_split(&labels, 0.3, 42).unwrap();
    assert_eq!(test.len(), 30);
    assert_eq!(train.len(), 70);
    let count = |idx: &[usize], c: usize| idx.iter().filter(|&&i| labels[i] == c).count();
    assert_eq!(
        [count(&test, 0), count(&test, 1), count(&test, 2)],
        [18, 9, 3]
    );
    assert_eq!(
        [count(&train, 0), count(&train, 1), count(&train, 2)],
        [42, 21, 7]
    );
    // a partition of 0..n, sorted
    let mut all: Vec<usize> = train.iter().chain(&test).copied().collect();
    assert!(train.windows(2).all(|w| w[0] < w[1]));
    assert!(test.windows(2).all(|w| w[0] < w[1]));
    all.sort_unstable();
    assert_eq!(all, (0..100).collect::<Vec<_>>());
}

#[test]
fn stratified_split_is_deterministic_for_a_seed() {
    let labels = imbalanced_labels();
    let a = stratified_split(&labels, 0.25, 7).unwrap();
    let b = stratified_split(&labels, 0.25, 7).unwrap();
    assert_eq!(a, b);
    let c = stratified_split(&labels, 0.25, 8).unwrap();
    assert_ne!(a, c, "different seeds should draw different test sets");
}

#[test]
fn stratified_split_keeps_a_training_sample_of_every_class() {
    // class 1 has 2 samples, class 2 has 1: a large test fraction must still leave one of
    // each class in training.
    let labels = [0, 0, 0, 0, 1, 1, 2];
    let (train, test) = stratified_split(&labels, 0.9, 1).unwrap();
    for c in 0..3 {
        assert!(
            train.iter().any(|&i| labels[i] == c),
            "class {c} not in train"
        );
    }
    assert_eq!(test.len(), 4); // 3 from class 0, 1 from class 1
    // a tiny fraction still gives one test sample
    let (_, test) = stratified_split(&labels, 0.01, 1).unwrap();
    assert_eq!(test.len(), 1);
}

#[test]
fn stratified_split_rejects_bad_input() {
    assert!(matches!(
        stratified_split(&[], 0.5, 0),
        Err(BlError::Empty { .. })
    ));
    for bad in [0.0, 1.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            stratified_split(&[0, 0, 1, 1], bad, 0),
            Err(BlError::InvalidParameter {
                name: "test_fraction",
                ..
            })
        ));
    }
    // every class a singleton: no test sample can be drawn
    assert!(matches!(
        stratified_split(&[0, 1, 2], 0.5, 0),
        Err(BlError::InvalidParameter { name: "labels", .. })
    ));
}

#[test]
fn kfold_partitions_every_index_exactly_once() {
    let labels = imbalanced_labels();
    for k in [2, 3, 7, 10] {
        let folds: Vec<_> = KFold::stratified(&labels, k, 3).unwrap().collect();
        assert_eq!(folds.len(), k);
        let mut seen = vec![0; labels.len()];
        for (train, test) in &folds {
            assert_eq!(train.len() + test.len(), labels.len());
            assert!(train.iter().all(|i| !test.contains(i)));
            for &i in test {
                seen[i] += 1;
            }
            // sizes balanced to within one
            assert!(test.len() == labels.len() / k || test.len() == labels.len() / k + 1);
        }
        assert!(seen.iter().all(|&c| c == 1), "k = {k}: {seen:?}");
    }
}

#[test]
fn stratified_kfold_keeps_class_proportions() {
    let labels = imbalanced_labels();
    for (_, test) in KFold::stratified(&labels, 5, 11).unwrap() {
        let counts: Vec<usize> = (0..3)
            .map(|c| test.iter().filter(|&&i| labels[i] == c).count())
            .collect();
        assert_eq!(counts, [12, 6, 2]);
    }
}

#[test]
fn kfold_is_seeded_and_reports_its_folds() {
    let a = KFold::new(20, 4, 5).unwrap();
    let b = KFold::new(20, 4, 5).unwrap();
    assert_eq!(a.fold_of(), b.fold_of());
    assert_eq!(a.n_splits(), 4);
    assert_eq!(a.len(), 4);
    assert!(a.split(4).is_none());
    let (train, test) = a.split(1).unwrap();
    assert!(test.iter().all(|&i| a.fold_of()[i] == 1));
    assert_eq!(train.len(), 15);
    let c = KFold::new(20, 4, 6).unwrap();
    assert_ne!(a.fold_of(), c.fold_of());
}

#[test]
fn kfold_rejects_bad_input() {
    assert!(matches!(KFold::new(0, 2, 0), Err(BlError::Empty { .. })));
    assert!(matches!(
        KFold::new(5, 1, 0),
        Err(BlError::InvalidParameter { name: "k", .. })
    ));
    assert!(matches!(
        KFold::new(5, 6, 0),
        Err(BlError::InvalidParameter { name: "k", .. })
    ));
    assert!(matches!(
        KFold::stratified(&[0, 1], 3, 0),
        Err(BlError::InvalidParameter { name: "k", .. })
    ));
    assert!(KFold::new(5, 5, 0).is_ok());
}

#[test]
fn leave_one_out_yields_each_index_once() {
    let splits: Vec<_> = LeaveOneOut::new(4).unwrap().collect();
    assert_eq!(splits.len(), 4);
    for (i, (train, test)) in splits.iter().enumerate() {
        assert_eq!(test, &vec![i]);
        assert_eq!(train.len(), 3);
        assert!(!train.contains(&i));
    }
    assert_eq!(LeaveOneOut::new(3).unwrap().len(), 3);
    assert!(matches!(
        LeaveOneOut::new(1),
        Err(BlError::InvalidParameter { .. })
    ));
    assert!(matches!(
        LeaveOneOut::new(0),
        Err(BlError::InvalidParameter { .. })
    ));
}

proptest! {
    #[test]
    fn stratified_split_is_a_partition(
        labels in prop::collection::vec(0usize..4, 2..60),
        fraction in 0.05f64..0.95,
        seed in any::<u64>(),
    ) {
        let mut sizes = [0usize; 4];
        for &l in &labels { sizes[l] += 1; }
        match stratified_split(&labels, fraction, seed) {
            Ok((train, test)) => {
                prop_assert!(!test.is_empty());
                let mut all: Vec<usize> = train.iter().chain(&test).copied().collect();
                all.sort_unstable();
                prop_assert_eq!(all, (0..labels.len()).collect::<Vec<_>>());
                for c in 0..4 {
                    if sizes[c] > 0 {
                        prop_assert!(train.iter().any(|&i| labels[i] == c));
                    }
                }
            }
            Err(_) => prop_assert!(sizes.iter().all(|&s| s <= 1)),
        }
    }

    #[test]
    fn kfold_partition_property(n in 2usize..50, k_seed in 0usize..1000, seed in any::<u64>()) {
        let k = 2 + k_seed % (n - 1);
        let mut seen = vec![0; n];
        for (train, test) in KFold::new(n, k, seed).unwrap() {
            prop_assert_eq!(train.len() + test.len(), n);
            for i in test { seen[i] += 1; }
        }
        prop_assert!(seen.iter().all(|&c| c == 1));
    }
}

/// Sizes given by the caller are checked before anything is allocated from them: typed
/// errors instead of a capacity-overflow panic or an out-of-memory abort.
#[test]
fn absurd_sizes_are_typed_errors() {
    for n in [usize::MAX, usize::MAX / 8, 1 << 60, 1 << 42] {
        assert!(
            matches!(KFold::new(n, 2, 0), Err(BlError::InvalidParameter { .. })),
            "KFold::new({n})"
        );
        assert!(
            matches!(LeaveOneOut::new(n), Err(BlError::InvalidParameter { .. })),
            "LeaveOneOut::new({n})"
        );
    }
    // one 2000 x 2000 sample repeated a million times would be 32 TB
    let s = 2000;
    let ds =
        MatrixDataset::new(s, s, vec![0.0; s * s * 2], vec![0, 1], names(&["a", "b"])).unwrap();
    let indices = vec![0; 1_000_000];
    assert!(matches!(
        ds.subset(&indices),
        Err(BlError::InvalidParameter { .. })
    ));
    // the same constructors with sane sizes
    assert_eq!(KFold::new(10, 3, 0).unwrap().count(), 3);
    assert_eq!(LeaveOneOut::new(4).unwrap().count(), 4);
    assert_eq!(ds.subset(&[1, 0, 1]).unwrap().n_samples(), 3);
}
