//! Bad input gives typed errors, never a panic.

use bl_core::BlError;
use boolean_tensor::{
    Atom, Bmp, ExactQp, Fit, MixingQp, SyntheticParams, Tensor, TensorError, search_atom,
};

use crate::common;

#[test]
fn zero_size_modes_are_rejected() {
    for shape in [[0, 3, 3], [3, 0, 3], [3, 3, 0]] {
        let err = Tensor::from_vec(shape, vec![]).unwrap_err();
        assert!(matches!(err, TensorError::EmptyMode { .. }), "{err}");
        assert!(Tensor::zeros(shape).is_err());
        assert!(SyntheticParams::default().shape(shape).generate().is_err());
    }
}

#[test]
fn wrong_lengths_and_nan_are_rejected() {
    let err = Tensor::from_vec([2, 2, 2], vec![0.0; 7]).unwrap_err();
    assert!(matches!(
        err,
        TensorError::Core(BlError::ShapeMismatch { .. })
    ));
    let mut data = vec![1.0; 8];
    data[5] = f64::NAN;
    let err = Tensor::from_vec([2, 2, 2], data.clone()).unwrap_err();
    match err {
        // Entry (1, 0, 1) of a 2 x 2 x 2 tensor: flat index 1 + 2 (0 + 2 * 1) = 5.
        TensorError::Core(BlError::NonFinite { index, .. }) => assert_eq!(index, 5),
        other => panic!("{other}"),
    }
    // NaN at a missing entry is fine; at an observed entry it is not.
    let mut mask = vec![true; 8];
    mask[5] = false;
    assert!(Tensor::from_vec_masked([2, 2, 2], data.clone(), mask).is_ok());
    assert!(Tensor::from_vec_masked([2, 2, 2], data, vec![true; 8]).is_err());
}

#[test]
fn masks_of_the_wrong_shape_or_all_missing_are_rejected() {
    let x = Tensor::zeros([2, 3, 4]).unwrap();
    let err = x.clone().with_mask(vec![true; 23]).unwrap_err();
    assert!(
        matches!(err, TensorError::Core(BlError::ShapeMismatch { .. })),
        "{err}"
    );
    let err = x.with_mask(vec![false; 24]).unwrap_err();
    assert!(matches!(err, TensorError::AllMissing { n: 24 }), "{err}");
}

#[test]
fn invalid_parameters_are_rejected() {
    let x = common::data([5, 5, 5], 3, 0.0, 0.0, 0);
    let x = x.observed();
    let err = Bmp::params().max_iter(0).fit(x).unwrap_err();
    common::assert_invalid_parameter(&err, "max_iter");
    assert!(Bmp::params().tol(f64::NAN).fit(x).is_err());
    assert!(Bmp::params().modes(&[]).fit(x).is_err());
    assert!(matches!(
        Bmp::params().modes(&[3]).fit(x).unwrap_err(),
        TensorError::InvalidMode { mode: 3 }
    ));
    let bad_solver = MixingQp::new(maxcut_sdp::MixingParams::default().trials(0));
    let err = Bmp::params()
        .solver(std::sync::Arc::new(bad_solver))
        .fit(x)
        .unwrap_err();
    common::assert_invalid_parameter(&err, "trials");
    assert!(matches!(
        x.unfold(3).unwrap_err(),
        TensorError::InvalidMode { mode: 3 }
    ));
    assert!(search_atom(x, 5, &MixingQp::default(), 1, 0).is_err());
    assert!(SyntheticParams::default().n_atoms(0).generate().is_err());
    assert!(
        SyntheticParams::default()
            .missing_fraction(1.0)
            .generate()
            .is_err()
    );
    assert!(
        SyntheticParams::default()
            .noise_std(-1.0)
            .generate()
            .is_err()
    );
    assert!(Atom::new(0, vec![0.5], vec![1.0], vec![1.0]).is_err());
    assert!(Atom::new(0, vec![], vec![1.0], vec![1.0]).is_err());
    assert!(Atom::new(0, vec![1.0], vec![f64::INFINITY], vec![1.0]).is_err());
    // Exact solver on a mode longer than 24: a typed error from maxcut-sdp.
    let big = SyntheticParams::default()
        .shape([30, 4, 4])
        .generate()
        .unwrap();
    let err = search_atom(big.observed(), 0, &ExactQp, 1, 0).unwrap_err();
    assert!(matches!(err, TensorError::Maxcut(_)), "{err}");
}
