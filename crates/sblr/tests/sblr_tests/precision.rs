//! Samples stored as `f32`: every fit accepts them, agrees with the `f64` fit on the same
//! (f32-representable) values, and the data passes give bit-identical results for any
//! number of threads.

use crate::common;
use sblr::Predict as _;

use bl_core::data::MatrixDataset;
use sblr::synthetic::two_class;
use sblr::{
    BinarySolver, Fit as _, Fitted as _, LogisticRegression, MultinomialSblr, OneVsAll,
    ParamGuard as _, Sblr, SblrParams,
};

/// A data set whose values are exactly representable in `f32`, in both precisions, so
/// that the two fits see the same numbers and differ only by the precision of storage.
fn both(data: &MatrixDataset) -> (MatrixDataset, MatrixDataset<f32>) {
    let narrow = data.to_f32().unwrap();
    (narrow.to_f64().unwrap(), narrow)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

fn three_classes() -> MatrixDataset {
    let data = two_class(60, 6, 5, 0.7, 11).unwrap();
    let (s, t, values, _, _) = data.into_parts();
    let labels: Vec<usize> = (0..60).map(|i| i % 3).collect();
    let names = vec!["a".into(), "b".into(), "c".into()];
    MatrixDataset::new(s, t, values, labels, names).unwrap()
}

#[test]
fn binary_fits_agree_within_1e_4_for_both_algorithms() {
    let (wide, narrow) = both(&two_class(80, 9, 7, 0.5, 3).unwrap());
    for solver in [common::alg2(), common::alg1()] {
        let params = Sblr::params()
            .rank(2)
            .block_update(solver.clone())
            .max_iter(60);
        let a = params.fit(&wide).unwrap();
        let b = params.fit(&narrow).unwrap();
        assert!(
            rel(a.objective(), b.objective()) <= 1e-4,
            "{solver:?}: objective {} vs {}",
            a.objective(),
            b.objective()
        );
        assert_eq!(a.report().iterations, b.report().iterations, "{solver:?}");
        assert_eq!(a.predict(&wide).unwrap(), b.predict(&narrow).unwrap());
        let (fa, fb) = (
            a.decision_function(&wide).unwrap(),
            b.decision_function(&narrow).unwrap(),
        );
        for (x, y) in fa.iter().zip(&fb) {
            assert!((x - y).abs() <= 1e-4 * (1.0 + x.abs()), "{x} vs {y}");
        }
    }
}

#[test]
fn multinomial_one_vs_all_and_logistic_take_f32_samples() {
    let (wide, narrow) = both(&three_classes());
    let params = MultinomialSblr::params().max_iter(40);
    let (a, b) = (params.fit(&wide).unwrap(), params.fit(&narrow).unwrap());
    assert!(rel(a.objective(), b.objective()) <= 1e-4);
    assert_eq!(a.predict(&wide).unwrap(), b.predict(&narrow).unwrap());

    let ova = OneVsAll::new(Sblr::params().max_iter(30));
    let (a, b) = (ova.fit(&wide).unwrap(), ova.fit(&narrow).unwrap());
    assert_eq!(a.predict(&wide).unwrap(), b.predict(&narrow).unwrap());

    let (wide2, narrow2) = both(&two_class(50, 4, 4, 0.5, 5).unwrap());
    let logistic = LogisticRegression::params().l1(0.01).max_iter(200);
    let (a, b) = (
        logistic.fit(&wide2).unwrap(),
        logistic.fit(&narrow2).unwrap(),
    );
    assert!(rel(a.objective(), b.objective()) <= 1e-12);
    assert_eq!(a.predict(&wide2).unwrap(), b.predict(&narrow2).unwrap());
    let (pa, pb) = (
        a.predict_proba(&wide2).unwrap(),
        b.predict_proba(&narrow2).unwrap(),
    );
    for (x, y) in pa.iter().zip(&pb) {
        assert!((x - y).abs() <= 1e-12, "{x} vs {y}");
    }
}

/// The iterates after `steps` Alg. 2 iterations with `threads` threads.
fn iterates<T: bl_core::data::Element>(
    data: &MatrixDataset<T>,
    params: SblrParams,
    threads: Option<usize>,
    steps: usize,
) -> (Vec<f64>, Vec<f64>, f64, f64) {
    let params = params.threads(threads).check().unwrap();
    let mut solver = BinarySolver::new(data, &params).unwrap();
    for _ in 0..steps {
        solver.step().unwrap();
    }
    let (u, v) = solver.factors();
    (u, v, solver.intercept(), solver.objective())
}

#[test]
fn fits_are_bit_identical_across_runs_and_thread_counts() {
    let (wide, narrow) = both(&two_class(37, 17, 11, 0.4, 9).unwrap());
    let params = Sblr::params().rank(2);
    let reference = iterates(&wide, params.clone(), Some(1), 8);
    let reference32 = iterates(&narrow, params.clone(), Some(1), 8);
    for threads in [Some(1), Some(2), Some(3), None] {
        assert_eq!(iterates(&wide, params.clone(), threads, 8), reference);
        assert_eq!(iterates(&narrow, params.clone(), threads, 8), reference32);
    }
    // The multinomial model too.
    let (wide, narrow) = both(&three_classes());
    assert_multinomial_thread_independent(&wide);
    assert_multinomial_thread_independent(&narrow);
}

fn assert_multinomial_thread_independent<T: bl_core::data::Element>(data: &MatrixDataset<T>) {
    let fit = |threads| {
        let model = MultinomialSblr::params()
            .max_iter(10)
            .threads(threads)
            .fit(data)
            .unwrap();
        let factors: Vec<Vec<f64>> = (0..2)
            .flat_map(|c| [model.u(c).unwrap(), model.v(c).unwrap()])
            .map(|m| m.col_iter().flat_map(|col| col.iter().copied()).collect())
            .collect();
        (factors, model.intercepts().to_vec(), model.objective())
    };
    let reference = fit(Some(1));
    assert_eq!(fit(Some(2)), reference);
    assert_eq!(fit(None), reference);
}

#[test]
fn zero_threads_is_refused() {
    let err = Sblr::params().threads(Some(0)).check().unwrap_err();
    common::assert_invalid(&err, "threads");
}
