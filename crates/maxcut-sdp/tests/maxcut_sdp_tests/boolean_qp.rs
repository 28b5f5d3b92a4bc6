//! The {0,1} -> ±1 reduction with a homogenizing variable.

use crate::common;

use common::*;
use faer::Mat;
use maxcut_sdp::{BooleanQp, BqpParams, Fit, FittedBqp, LowRankMode, MixingParams, SweepForm};
use proptest::prelude::*;

fn matrix(n: usize, cols: usize, entries: &[f64]) -> Mat<f64> {
    Mat::from_fn(n, cols, |i, j| entries[i * cols + j])
}

proptest! {
    #![proptest_config(fixed_config(256))]

    /// z^T A z = y~^T C~ y~ / 4 with y~ = (1, 2 z - 1), for any (non-symmetric) A.
    #[test]
    fn reduction_identity_holds_for_dense_a(
        (n, entries, bits) in (1usize..9).prop_flat_map(|n| (
            Just(n),
            prop::collection::vec(-10.0f64..10.0, n * n),
            prop::collection::vec(any::<bool>(), n),
        ))
    ) {
        let a = matrix(n, n, &entries);
        let z: Vec<f64> = bits.iter().map(|&b| f64::from(u8::from(b))).collect();
        let qp = BooleanQp::dense(a.as_ref()).unwrap();
        let direct = naive_quad(&a, &z);
        let signs = BooleanQp::signs_from_binary(&z);
        let reduced = qp.homogenized().value(&signs).unwrap() / 4.0;
        let scale = 1e-12 * (1.0 + abs_sum(&a));
        prop_assert!((direct - reduced).abs() <= scale, "{direct} vs {reduced}");
        prop_assert!((qp.value(&z).unwrap() - direct).abs() <= scale);
        // The map back is two-to-one: y~ and -y~ give z.
        prop_assert_eq!(BooleanQp::binary_from_signs(&signs), z.clone());
        let negated: Vec<f64> = signs.iter().map(|s| -s).collect();
        prop_assert_eq!(BooleanQp::binary_from_signs(&negated), z.clone());
        let reduced_neg = qp.homogenized().value(&negated).unwrap() / 4.0;
        prop_assert!((reduced_neg - direct).abs() <= scale);
    }

    /// The same identity for A = G G^T with the implicit factor G~ = [1^T G; G].
    #[test]
    fn reduction_identity_holds_for_low_rank_a(
        (n, m, entries, bits) in (1usize..9, 1usize..6).prop_flat_map(|(n, m)| (
            Just(n),
            Just(m),
            prop::collection::vec(-3.0f64..3.0, n * m),
            prop::collection::vec(any::<bool>(), n),
        ))
    ) {
        let g = matrix(n, m, &entries);
        let a = gram(&g);
        let z: Vec<f64> = bits.iter().map(|&b| f64::from(u8::from(b))).collect();
        let qp = BooleanQp::low_rank(g.as_ref()).unwrap();
        let direct = naive_quad(&a, &z);
        let reduced = qp.homogenized().value(&BooleanQp::signs_from_binary(&z)).unwrap() / 4.0;
        let scale = 1e-12 * (1.0 + abs_sum(&a));
        prop_assert!((direct - reduced).abs() <= scale, "{direct} vs {reduced}");
        prop_assert!((qp.value(&z).unwrap() - direct).abs() <= scale);
    }
}

#[test]
fn homogenized_matrix_has_the_documented_blocks() {
    let a = random_gaussian(5, 5, 3).unwrap();
    let sym = Mat::from_fn(5, 5, |i, j| 0.5 * (a[(i, j)] + a[(j, i)]));
    let c = BooleanQp::dense(a.as_ref())
        .unwrap()
        .homogenized()
        .to_dense()
        .unwrap();
    let total: f64 = (0..5)
        .flat_map(|i| (0..5).map(move |j| (i, j)))
        .map(|(i, j)| sym[(i, j)])
        .sum();
    assert!((c[(0, 0)] - total).abs() < 1e-12);
    for j in 0..5 {
        let col: f64 = (0..5).map(|i| sym[(i, j)]).sum();
        assert!((c[(0, j + 1)] - col).abs() < 1e-12);
        assert!((c[(j + 1, 0)] - col).abs() < 1e-12);
        for i in 0..5 {
            assert_eq!(c[(i + 1, j + 1)], sym[(i, j)]);
        }
    }
    // Low rank: C~ = G~ G~^T.
    let g = random_gaussian(4, 7, 1).unwrap();
    let ones_g = Mat::from_fn(5, 7, |i, l| {
        if i == 0 {
            (0..4).map(|r| g[(r, l)]).sum()
        } else {
            g[(i - 1, l)]
        }
    });
    let expected = gram(&ones_g);
    let c = BooleanQp::low_rank(g.as_ref())
        .unwrap()
        .homogenized()
        .to_dense()
        .unwrap();
    for j in 0..5 {
        for i in 0..5 {
            assert!((c[(i, j)] - expected[(i, j)]).abs() < 1e-12 * abs_sum(&expected));
        }
    }
}

#[test]
fn low_rank_boolean_qp_forms_agree_and_auto_forms_wide_g() {
    // Wide G (m >= n): Auto forms the homogenized matrix; Implicit never does.
    let g = random_gaussian(10, 40, 6).unwrap();
    let qp = BooleanQp::low_rank(g.as_ref()).unwrap();
    let dense = BooleanQp::dense(gram(&g).as_ref()).unwrap();
    let params = MixingParams::default().seed(4).tol(0.0).max_iter(10);
    let auto = fit_bqp(&params, &qp).unwrap();
    let implicit = fit_bqp(&params.clone().low_rank(LowRankMode::Implicit), &qp).unwrap();
    let reference = fit_bqp(&params, &dense).unwrap();
    let form = |f: &FittedBqp| f.mixing().expect("the mixing method").form;
    assert_eq!(form(&auto), SweepForm::LowRankFormed);
    assert_eq!(form(&implicit), SweepForm::LowRankImplicit);
    assert_eq!(form(&reference), SweepForm::Dense);
    let sdp = |f: &FittedBqp| f.sdp_value().expect("the mixing method");
    for other in [&auto, &implicit] {
        assert!((sdp(other) - sdp(&reference)).abs() < 1e-9 * sdp(&reference));
        assert_eq!(other.z(), reference.z());
        assert!((other.value() - reference.value()).abs() < 1e-9 * reference.value());
    }
    // Tall G (m < n / 2): Auto stays implicit.
    let tall = BooleanQp::low_rank(random_gaussian(30, 4, 1).unwrap().as_ref()).unwrap();
    let solution = BqpParams::default().fit(&tall).unwrap();
    assert_eq!(solution.solver(), "mixing");
    assert_eq!(
        solution.mixing().expect("the mixing method").form,
        SweepForm::LowRankImplicit
    );
}
