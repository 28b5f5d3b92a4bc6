//! Tensor operations: Kolda–Bader unfolding, refolding, Khatri–Rao, mode products.

use boolean_tensor::{Atom, Tensor, atoms_to_tensor, cp_to_tensor, khatri_rao};
use faer::Mat;
use proptest::prelude::*;

/// The example of Kolda & Bader (2009), Sec. 2.4: X of size 3 x 4 x 2 with frontal
/// slices X1 = [1 4 7 10; 2 5 8 11; 3 6 9 12], X2 = [13 16 19 22; ...; 15 18 21 24].
fn kolda_bader_example() -> Tensor {
    Tensor::from_fn([3, 4, 2], |i, j, k| (1 + i + 3 * j + 12 * k) as f64).unwrap()
}

#[test]
fn unfoldings_match_kolda_bader_paper_example() {
    let x = kolda_bader_example();
    // X_(1) (mode 0 here) = [1 4 7 10 13 16 19 22; 2 5 ...; 3 6 ...].
    let x0 = x.unfold(0).unwrap();
    assert_eq!((x0.nrows(), x0.ncols()), (3, 8));
    let row0: Vec<f64> = (0..8).map(|c| x0[(0, c)]).collect();
    assert_eq!(row0, vec![1., 4., 7., 10., 13., 16., 19., 22.]);
    // X_(2) (mode 1) = [1 2 3 13 14 15; 4 5 6 16 17 18; 7 ...; 10 11 12 22 23 24].
    let x1 = x.unfold(1).unwrap();
    assert_eq!((x1.nrows(), x1.ncols()), (4, 6));
    let row1: Vec<f64> = (0..6).map(|c| x1[(1, c)]).collect();
    assert_eq!(row1, vec![4., 5., 6., 16., 17., 18.]);
    // X_(3) (mode 2) = [1 2 3 ... 12; 13 14 ... 24].
    let x2 = x.unfold(2).unwrap();
    assert_eq!((x2.nrows(), x2.ncols()), (2, 12));
    let row2: Vec<f64> = (0..12).map(|c| x2[(1, c)]).collect();
    assert_eq!(row2, (13..=24).map(f64::from).collect::<Vec<_>>());
}

#[test]
fn khatri_rao_matches_definition() {
    let a = Mat::from_fn(3, 2, |i, j| {
        (i + 1) as f64 * if j == 0 { 1.0 } else { -2.0 }
    });
    let b = Mat::from_fn(4, 2, |i, j| (i * i) as f64 + j as f64);
    let kr = khatri_rao(a.as_ref(), b.as_ref()).unwrap();
    assert_eq!((kr.nrows(), kr.ncols()), (12, 2));
    for r in 0..2 {
        for i in 0..3 {
            for j in 0..4 {
                assert_eq!(kr[(i * 4 + j, r)], a[(i, r)] * b[(j, r)]);
            }
        }
    }
    assert!(khatri_rao(a.as_ref(), Mat::<f64>::zeros(4, 3).as_ref()).is_err());
}

#[test]
fn cp_unfolding_identity_holds() {
    // X_(0) = A (C (.) B)^T for X = sum_r a_r (x) b_r (x) c_r.
    let a = Mat::from_fn(3, 2, |i, j| (i as f64 - 1.0) * (j as f64 + 0.5));
    let b = Mat::from_fn(4, 2, |i, j| ((i + 2 * j) % 3) as f64 - 0.7);
    let c = Mat::from_fn(5, 2, |i, j| (i as f64).sin() + j as f64);
    let x = cp_to_tensor([a.as_ref(), b.as_ref(), c.as_ref()]).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                let want: f64 = (0..2).map(|r| a[(i, r)] * b[(j, r)] * c[(k, r)]).sum();
                assert!((x.get(i, j, k) - want).abs() < 1e-12);
            }
        }
    }
    let kr = khatri_rao(c.as_ref(), b.as_ref()).unwrap();
    let x0 = &a * kr.transpose();
    let direct = x.unfold(0).unwrap();
    assert!((&x0 - &direct).norm_l2() < 1e-12);
    let x1 = &b * khatri_rao(c.as_ref(), a.as_ref()).unwrap().transpose();
    assert!((&x1 - &x.unfold(1).unwrap()).norm_l2() < 1e-12);
    let x2 = &c * khatri_rao(b.as_ref(), a.as_ref()).unwrap().transpose();
    assert!((&x2 - &x.unfold(2).unwrap()).norm_l2() < 1e-12);
}

#[test]
fn atom_tensor_places_the_boolean_factor_on_its_mode() {
    for mode in 0..3 {
        let z = vec![1.0, 0.0, 1.0];
        let u = vec![2.0, -1.0];
        let w = vec![0.5, 3.0, 1.0, -2.0];
        let atom = Atom::new(mode, z.clone(), u.clone(), w.clone()).unwrap();
        let t = atom.to_tensor(1.5).unwrap();
        let shape = t.shape();
        for i in 0..shape[0] {
            for j in 0..shape[1] {
                for k in 0..shape[2] {
                    let idx = [i, j, k];
                    let (a, b) = match mode {
                        0 => (1, 2),
                        1 => (0, 2),
                        _ => (0, 1),
                    };
                    let want = 1.5 * z[idx[mode]] * u[idx[a]] * w[idx[b]];
                    assert_eq!(t.get(i, j, k), want);
                }
            }
        }
        let norm = t.frobenius_norm() / 1.5;
        assert!((norm - atom.norm()).abs() < 1e-12);
    }
    let atoms = [
        Atom::new(0, vec![1.0, 1.0], vec![1.0], vec![1.0]).unwrap(),
        Atom::new(1, vec![1.0], vec![0.0, 1.0], vec![2.0]).unwrap(),
    ];
    let t = atoms_to_tensor(&atoms, &[1.0, 2.0]).unwrap();
    assert_eq!(t.data(), &[1.0, 5.0]);
}

#[test]
fn mode_product_matches_definition() {
    let x = kolda_bader_example();
    let m = Mat::from_fn(2, 4, |i, j| (i as f64 + 1.0) * (j as f64 - 1.5));
    let y = x.mode_product(1, m.as_ref()).unwrap();
    assert_eq!(y.shape(), [3, 2, 2]);
    for i in 0..3 {
        for p in 0..2 {
            for k in 0..2 {
                let want: f64 = (0..4).map(|j| m[(p, j)] * x.get(i, j, k)).sum();
                assert!((y.get(i, p, k) - want).abs() < 1e-12);
            }
        }
    }
    for mode in [0, 2] {
        let d = x.shape()[mode];
        let m = Mat::from_fn(3, d, |i, j| (i * d + j) as f64);
        let y = x.mode_product(mode, m.as_ref()).unwrap();
        let want = &m * x.unfold(mode).unwrap();
        assert!((&y.unfold(mode).unwrap() - &want).norm_l2() < 1e-9);
    }
}

proptest! {
    #[test]
    fn unfold_refold_round_trip(d0 in 1usize..6, d1 in 1usize..6, d2 in 1usize..6, seed in 0u64..1000) {
        let x = Tensor::from_fn([d0, d1, d2], |i, j, k| ((i * 31 + j * 17 + k * 7) as f64 + seed as f64).sin()).unwrap();
        for mode in 0..3 {
            let m = x.unfold(mode).unwrap();
            prop_assert_eq!(m.nrows(), x.shape()[mode]);
            // Kolda–Bader column index of (i, j, k).
            for k in 0..d2 { for j in 0..d1 { for i in 0..d0 {
                let (row, col) = match mode { 0 => (i, j + d1 * k), 1 => (j, i + d0 * k), _ => (k, i + d0 * j) };
                prop_assert_eq!(m[(row, col)], x.get(i, j, k));
            }}}
            let back = Tensor::refold(mode, m.as_ref(), x.shape()).unwrap();
            prop_assert_eq!(&back, &x);
        }
    }
}

/// The fits read missing entries as `0.0`, so no public way of making or changing a tensor
/// may leave anything else there: the constructor drops the values given (NaN included),
/// and `map_observed` neither calls its function for a missing entry nor writes one.
#[test]
fn missing_entries_hold_zero_whatever_is_given_or_mapped() {
    let data = crate::common::data([6, 5, 4], 2, 0.1, 0.3, 3);
    let x = data.observed();
    let mask = x.mask().unwrap().to_vec();
    let garbage = |i: usize| {
        if i.is_multiple_of(2) {
            f64::NAN
        } else {
            1e9 + i as f64
        }
    };
    let mut y = boolean_tensor::synthetic::with_values_at_missing(x, garbage).unwrap();
    assert_eq!(y.data(), x.data());
    assert!(mask.iter().zip(y.data()).all(|(&m, &v)| m || v == 0.0));

    let mut seen = Vec::new();
    y.map_observed(|i, v| {
        seen.push(i);
        2.0 * v + 1.0
    })
    .unwrap();
    let observed: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
    assert_eq!(seen, observed);
    for (i, (&m, (&a, &b))) in mask.iter().zip(y.data().iter().zip(x.data())).enumerate() {
        let want = if m { 2.0 * b + 1.0 } else { 0.0 };
        assert_eq!(a, want, "entry {i}");
    }

    // A non-finite new value is refused at its entry, which keeps its old value.
    let before = y.clone();
    let first = observed[0];
    let err = y.map_observed(|_, _| f64::INFINITY).unwrap_err();
    assert!(err.to_string().contains("non-finite value (inf)"), "{err}");
    assert_eq!(y.data()[first], before.data()[first]);
}
