//! The linear baselines read `f32` samples in place ([`sblr::passes::Samples`]):
//!
//! - the two products (`z^T w`, `z c`) match brute-force sums, for `f32` and `f64` storage
//!   and sizes that exercise every remainder of the kernels' unrolling;
//! - since widening `f32` to `f64` is exact and the kernels' order of operations does not
//!   depend on the storage type, the products and a whole FISTA fit on `f32` samples are
//!   bit-identical to the same computation on an `f64` copy of them (and the fit on `f64`
//!   samples is the same FISTA on faer's products);
//! - the gradient of a block on `Samples` matches central finite differences of its loss;
//! - the `f32` fit agrees with the `f64` fit (faer's products) on the same values, also
//!   through one-vs-all;
//! - `Samples::new` refuses bad shapes with typed errors.

use bl_core::BlError;
use bl_core::data::MatrixDataset;
use bl_core::linalg::LinearOperator;
use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::MatRef;
use sblr::ExactBlockSolve;
use sblr::Predict as _;
use sblr::block::{BlockState, BlockWork, LinearBlock};
use sblr::passes::Samples;
use sblr::synthetic::{three_classes, two_class};
use sblr::{Fit as _, Fitted as _, LogisticRegression, OneVsAll, SblrError};

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

/// Standard normal values rounded to `f32`, in both precisions (the same numbers).
fn values(len: usize, seed: u64) -> (Vec<f64>, Vec<f32>) {
    let mut rng = seeded_rng(seed);
    let mut x = vec![0.0; len];
    fill_standard_normal(&mut rng, &mut x);
    let narrow: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    (narrow.iter().map(|&v| f64::from(v)).collect(), narrow)
}

#[test]
fn products_match_brute_force_and_are_bit_identical_across_storage() {
    // d around the 8-wide unrolling of the dot product, n around the 4-sample groups of
    // the weighted sum.
    for (d, n) in [(1, 1), (7, 3), (8, 4), (17, 5), (33, 9), (64, 12)] {
        let (x64, x32) = values(d * n, (d * 100 + n) as u64);
        let (w, _) = values(d, 7);
        let (c, _) = values(n, 8);
        let wide = Samples::new(&x64, d, n).unwrap();
        let narrow = Samples::new(&x32, d, n).unwrap();
        assert_eq!((narrow.nrows(), narrow.ncols()), (d, n));
        assert_eq!(
            format!("{narrow:?}"),
            format!("Samples {{ d: {d}, n: {n}, storage: \"f32\", threads: None }}")
        );
        let (mut f64_scores, mut f32_scores) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        let (mut f64_sum, mut f32_sum) = (vec![f64::NAN; d], vec![f64::NAN; d]);
        wide.apply_transpose(&w, &mut f64_scores);
        narrow.apply_transpose(&w, &mut f32_scores);
        wide.apply(&c, &mut f64_sum);
        narrow.apply(&c, &mut f32_sum);
        // Bit-identical (NaN-free, so == on the values is == on the bits up to the sign
        // of zero, which the bit comparison also checks).
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&f64_scores), bits(&f32_scores), "d = {d}, n = {n}");
        assert_eq!(bits(&f64_sum), bits(&f32_sum), "d = {d}, n = {n}");
        let entry = |a: usize, i: usize| x64[i * d + a];
        for i in 0..n {
            let want: f64 = (0..d).map(|a| entry(a, i) * w[a]).sum();
            let scale: f64 = (0..d).map(|a| (entry(a, i) * w[a]).abs()).sum();
            assert!(
                (f32_scores[i] - want).abs() <= 1e-14 * (1.0 + scale),
                "z^T w: {} vs {want}",
                f32_scores[i]
            );
        }
        for a in 0..d {
            let want: f64 = (0..n).map(|i| entry(a, i) * c[i]).sum();
            let scale: f64 = (0..n).map(|i| (entry(a, i) * c[i]).abs()).sum();
            assert!(
                (f32_sum[a] - want).abs() <= 1e-14 * (1.0 + scale),
                "z c: {} vs {want}",
                f32_sum[a]
            );
        }
        // faer's products (the fit's path for f64 data) on the same values.
        let matrix = MatRef::from_column_major_slice(&x64, d, n);
        let (mut faer_scores, mut faer_sum) = (vec![0.0; n], vec![0.0; d]);
        matrix.apply_transpose(&w, &mut faer_scores);
        matrix.apply(&c, &mut faer_sum);
        for (a, b) in faer_scores.iter().zip(&f32_scores) {
            assert!((a - b).abs() <= 1e-13 * (1.0 + a.abs()), "{a} vs {b}");
        }
        for (a, b) in faer_sum.iter().zip(&f32_sum) {
            assert!((a - b).abs() <= 1e-13 * (1.0 + a.abs()), "{a} vs {b}");
        }
    }
}

#[test]
fn block_gradient_on_f32_samples_matches_finite_differences() {
    let (d, n) = (13, 9);
    let (_, x32) = values(d * n, 21);
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
        .collect();
    let block = LinearBlock {
        z: Samples::new(&x32, d, n).unwrap(),
        y: &y,
        l1: 0.0,
        l2: 0.0,
    };
    let (mut x, _) = values(d + 1, 22);
    x.iter_mut().for_each(|v| *v *= 0.3);
    let loss_at = |x: &[f64]| {
        let mut f = vec![0.0; n];
        block.scores(x, &mut f).unwrap();
        block.loss(&f).unwrap()
    };
    let mut f = vec![0.0; n];
    let mut c = vec![0.0; n];
    let mut g = vec![0.0; d + 1];
    block.scores(&x, &mut f).unwrap();
    block.loss_and_dscores(&f, &mut c).unwrap();
    block.gradient(&c, &mut g).unwrap();
    let h = 1e-6;
    for j in 0..=d {
        let (mut up, mut down) = (x.clone(), x.clone());
        up[j] += h;
        down[j] -= h;
        let fd = (loss_at(&up) - loss_at(&down)) / (2.0 * h);
        assert!(
            (fd - g[j]).abs() <= 1e-7 * (1.0 + g[j].abs()),
            "entry {j}: finite difference {fd} vs gradient {}",
            g[j]
        );
    }
}

/// FISTA as `LogisticRegression` runs it, from `(w, b) = 0`, on the features `z`.
fn fista<F: LinearOperator>(
    z: F,
    y: &[f64],
    l1: f64,
    l2: f64,
    max_iter: usize,
) -> (Vec<f64>, usize) {
    let (d, n) = (z.nrows(), z.ncols());
    let block = LinearBlock { z, y, l1, l2 };
    let (l_min, eta) = (1e-3, 2.0);
    let (mut x, mut scores, mut lipschitz) = (vec![0.0; d + 1], vec![0.0; n], l_min * eta);
    let solver = ExactBlockSolve {
        l_min,
        eta,
        tol: 1e-6,
        max_iter,
    };
    let (_, report) = solver
        .solve(
            &block,
            &mut BlockState {
                x: &mut x,
                scores: &mut scores,
                lipschitz: &mut lipschitz,
            },
            &mut BlockWork::new(d, n).unwrap(),
            &bl_core::IterationParams::new(max_iter, 1e-6),
            &mut [],
        )
        .unwrap();
    (x, report.iterations)
}

#[test]
fn f32_fit_is_bit_identical_to_the_same_fista_on_a_widened_copy() {
    let narrow = two_class(40, 6, 7, 0.5, 4).unwrap().to_f32().unwrap();
    let widened = narrow.to_f64().unwrap();
    let y: Vec<f64> = narrow
        .labels()
        .iter()
        .map(|&l| if l == 1 { 1.0 } else { -1.0 })
        .collect();
    for (l1, l2) in [(0.0, 1e-2), (0.02, 0.0), (0.01, 0.1)] {
        let params = LogisticRegression::params().l1(l1).l2(l2).max_iter(300);
        let model = params.fit(&narrow).unwrap();
        let (x, iterations) = fista(Samples::of(&widened).unwrap(), &y, l1, l2, 300);
        let d = x.len() - 1;
        let weights: Vec<u64> = model
            .weights()
            .col_iter()
            .flat_map(|col| col.iter().map(|w| w.to_bits()).collect::<Vec<_>>())
            .collect();
        let want: Vec<u64> = x[..d].iter().map(|w| w.to_bits()).collect();
        assert_eq!(weights, want, "l1 = {l1}, l2 = {l2}");
        assert_eq!(model.intercept().to_bits(), x[d].to_bits());
        assert_eq!(model.report().iterations, iterations);
        assert!(iterations > 5, "a real solve: {iterations} iterations");
        // f64 samples of the same values run the same arithmetic: the same bits.
        let wide_model = params.fit(&widened).unwrap();
        let wide_weights: Vec<u64> = wide_model
            .weights()
            .col_iter()
            .flat_map(|col| col.iter().map(|w| w.to_bits()).collect::<Vec<_>>())
            .collect();
        assert_eq!(wide_weights, weights, "f64, l1 = {l1}, l2 = {l2}");
        assert_eq!(
            wide_model.intercept().to_bits(),
            model.intercept().to_bits()
        );
        // Against the same FISTA on faer's products (another summation order).
        let (x, iterations) = fista(widened.vectorized(), &y, l1, l2, 300);
        assert_eq!(wide_model.report().iterations, iterations);
        // Every entry of the s x t weights (column-major, as `x` is), not only column 0.
        let got: Vec<f64> = wide_model
            .weights()
            .col_iter()
            .flat_map(|col| col.iter().copied().collect::<Vec<_>>())
            .collect();
        assert_eq!(got.len(), d);
        for (got, want) in got.iter().zip(&x[..d]) {
            assert!(
                (got - want).abs() <= 1e-10 * (1.0 + want.abs()),
                "{got} vs {want}"
            );
        }
    }
}

#[test]
fn f32_fit_agrees_with_the_f64_fit_on_the_same_values() {
    let narrow = two_class(60, 8, 9, 0.4, 6).unwrap().to_f32().unwrap();
    let wide = narrow.to_f64().unwrap();
    for l1 in [0.0, 0.01] {
        let params = LogisticRegression::params().l1(l1).tol(1e-9);
        let (a, b) = (params.fit(&wide).unwrap(), params.fit(&narrow).unwrap());
        assert!(
            rel(a.objective(), b.objective()) <= 1e-12,
            "{} vs {}",
            a.objective(),
            b.objective()
        );
        for (u, v) in a.weights().col_iter().zip(b.weights().col_iter()) {
            for (p, q) in u.iter().zip(v.iter()) {
                assert!((p - q).abs() <= 1e-6 * (1.0 + p.abs()), "{p} vs {q}");
            }
        }
        assert_eq!(a.predict(&wide).unwrap(), b.predict(&narrow).unwrap());
    }
    // One-vs-all runs the same fit per class.
    let narrow: MatrixDataset<f32> = three_classes(45, 5, 4, 2).unwrap().to_f32().unwrap();
    let wide = narrow.to_f64().unwrap();
    let ova = OneVsAll::new(LogisticRegression::params().l1(0.005).tol(1e-9));
    let (a, b) = (ova.fit(&wide).unwrap(), ova.fit(&narrow).unwrap());
    assert_eq!(a.predict(&wide).unwrap(), b.predict(&narrow).unwrap());
    let (fa, fb) = (
        a.decision_function(&wide).unwrap(),
        b.decision_function(&narrow).unwrap(),
    );
    for (p, q) in fa.iter().flatten().zip(fb.iter().flatten()) {
        assert!((p - q).abs() <= 1e-5 * (1.0 + p.abs()), "{p} vs {q}");
    }
    assert_eq!((fa.len(), fa[0].len()), (45, 3));
}

#[test]
fn samples_refuse_bad_shapes_with_typed_errors() {
    let x = [1.0f32; 12];
    assert!(Samples::new(&x, 3, 4).is_ok());
    assert!(Samples::new(&x, 12, 1).is_ok());
    for (d, n) in [(0, 4), (3, 0)] {
        let err = Samples::new(&x, d, n).unwrap_err();
        assert!(
            matches!(err, SblrError::Core(BlError::InvalidParameter { .. })),
            "{err}"
        );
    }
    for (d, n) in [(5, 2), (4, 4), (usize::MAX, 2)] {
        let err = Samples::new(&x, d, n).unwrap_err();
        assert!(
            matches!(err, SblrError::Core(BlError::ShapeMismatch { .. })),
            "{err}"
        );
    }
}

#[test]
fn products_and_fits_are_bit_identical_for_any_thread_count() {
    // 40 x 2000 = 80 000 values: above the size where the products are split.
    let (d, n) = (2000, 40);
    let (x64, x32) = values(d * n, 31);
    let (w, _) = values(d, 32);
    let (c, _) = values(n, 33);
    let one = Samples::new(&x32, d, n)
        .unwrap()
        .with_threads(Some(1))
        .unwrap();
    let (mut scores, mut sum) = (vec![0.0; n], vec![0.0; d]);
    one.apply_transpose(&w, &mut scores);
    one.apply(&c, &mut sum);
    // Independent check of the split products: brute-force sums.
    for (i, &score) in scores.iter().enumerate() {
        let want: f64 = (0..d).map(|a| x64[i * d + a] * w[a]).sum();
        assert!((score - want).abs() <= 1e-10 * (1.0 + want.abs()));
    }
    for threads in [2, 3] {
        let many = Samples::new(&x32, d, n)
            .unwrap()
            .with_threads(Some(threads))
            .unwrap();
        let (mut s2, mut m2) = (vec![0.0; n], vec![0.0; d]);
        many.apply_transpose(&w, &mut s2);
        many.apply(&c, &mut m2);
        assert_eq!(s2, scores, "{threads} threads");
        assert_eq!(m2, sum, "{threads} threads");
    }
    let data = two_class(40, 40, 50, 0.5, 9).unwrap();
    let fit = |threads| {
        let model = LogisticRegression::params()
            .l1(0.01)
            .max_iter(60)
            .threads(Some(threads))
            .fit(&data)
            .unwrap();
        // Every weight of the 40 x 50 matrix, not only its first column.
        let bits: Vec<u64> = model
            .weights()
            .col_iter()
            .flat_map(|col| col.iter().map(|w| w.to_bits()).collect::<Vec<_>>())
            .collect();
        assert_eq!(bits.len(), 40 * 50);
        (bits, model.intercept().to_bits(), model.report().iterations)
    };
    let first = fit(1);
    assert!(first.2 > 5, "a real solve");
    assert_eq!(fit(2), first);
    assert_eq!(fit(3), first);
}

#[test]
fn bad_thread_counts_are_typed_errors() {
    let data = two_class(10, 3, 4, 0.5, 1).unwrap();
    for threads in [0, 1_000_000] {
        let err = LogisticRegression::params()
            .threads(Some(threads))
            .fit(&data)
            .unwrap_err();
        assert!(err.to_string().contains("threads"), "{err}");
        let (x, _) = values(12, 2);
        assert!(
            Samples::new(&x, 3, 4)
                .unwrap()
                .with_threads(Some(threads))
                .is_err()
        );
    }
}
