//! Baselines: CP-ALS, Tucker (HOSVD), LFM, LFMmix, SUSTain-style ALS.

use boolean_tensor::{
    CpAls, Decomposition, Fit, Lfm, Sustain, Tensor, TensorError, Tucker, cp_to_tensor, metrics,
};
use faer::Mat;

use crate::common;

fn planted_cp(shape: [usize; 3], rank: usize, seed: u64) -> (Tensor, [Mat<f64>; 3]) {
    let mut rng = bl_core::random::seeded_rng(seed);
    let f =
        [0, 1, 2].map(|m| bl_core::random::standard_normal_mat(&mut rng, shape[m], rank).unwrap());
    (
        cp_to_tensor([f[0].as_ref(), f[1].as_ref(), f[2].as_ref()]).unwrap(),
        f,
    )
}

fn random_mask(n: usize, missing: f64, seed: u64) -> Vec<bool> {
    let mut rng = bl_core::random::seeded_rng(seed);
    (0..n)
        .map(|_| bl_core::random::standard_normal(&mut rng) > missing)
        .collect()
}

#[test]
fn cp_als_recovers_a_planted_cp_tensor() {
    let (x, _) = planted_cp([9, 8, 7], 3, 1);
    let fit = CpAls::params()
        .rank(3)
        .max_iter(500)
        .tol(1e-14)
        .fit(&x)
        .unwrap();
    let err = metrics::rmse(&fit.reconstruct().unwrap(), &x).unwrap();
    assert!(err < 1e-6, "rmse {err}");
    assert!(fit.loss() < 1e-10);
}

#[test]
fn masked_cp_als_completes_a_planted_cp_tensor() {
    let (x, _) = planted_cp([10, 9, 8], 2, 2);
    // Threshold -0.84 on N(0,1): about 20% missing.
    let mask = random_mask(x.len(), -0.84, 3);
    let missing = mask.iter().filter(|m| !**m).count();
    assert!(missing > 0);
    let observed = x.clone().with_mask(mask.clone()).unwrap();
    let fit = CpAls::params()
        .rank(2)
        .max_iter(2000)
        .tol(1e-15)
        .fit(&observed)
        .unwrap();
    let err = metrics::completion_rmse(&fit.reconstruct().unwrap(), &x, &mask).unwrap();
    assert!(err < 1e-4, "completion rmse {err}");
}

#[test]
fn hosvd_is_exact_at_the_multilinear_rank() {
    // X = G x0 A x1 B x2 C with a random 2 x 3 x 2 core: multilinear rank (2, 3, 2).
    let mut rng = bl_core::random::seeded_rng(4);
    let g = Tensor::from_vec(
        [2, 3, 2],
        (0..12)
            .map(|_| bl_core::random::standard_normal(&mut rng))
            .collect(),
    )
    .unwrap();
    let a = bl_core::random::standard_normal_mat(&mut rng, 7, 2).unwrap();
    let b = bl_core::random::standard_normal_mat(&mut rng, 6, 3).unwrap();
    let c = bl_core::random::standard_normal_mat(&mut rng, 5, 2).unwrap();
    let x = g
        .mode_product(0, a.as_ref())
        .unwrap()
        .mode_product(1, b.as_ref())
        .unwrap()
        .mode_product(2, c.as_ref())
        .unwrap();
    let fit = Tucker::params().ranks([2, 3, 2]).fit(&x).unwrap();
    let err = metrics::rmse(&fit.reconstruct().unwrap(), &x).unwrap();
    assert!(err < 1e-10, "rmse {err}");
    assert_eq!(fit.ranks(), [2, 3, 2]);
    // One rank short in mode 1: not exact.
    let short = Tucker::params().ranks([2, 2, 2]).fit(&x).unwrap();
    assert!(metrics::rmse(&short.reconstruct().unwrap(), &x).unwrap() > 1e-3);
    // Ranks above the shape are capped.
    let capped = Tucker::params().for_atoms(50).fit(&x).unwrap();
    assert_eq!(capped.ranks(), [7, 6, 5]);
    assert!(fit.boolean_factors().is_empty());
}

#[test]
fn model_one_tensor_has_multilinear_rank_at_most_k() {
    let data = common::data([12, 11, 10], 4, 0.0, 0.0, 6);
    let fit = Tucker::params().for_atoms(4).fit(data.observed()).unwrap();
    let err = metrics::rmse(&fit.reconstruct().unwrap(), data.clean()).unwrap();
    assert!(err < 1e-9, "rmse {err}");
}

#[test]
fn lfm_recovers_a_boolean_matrix_factorization_of_one_unfolding() {
    // X_(1) = Z S with Z Boolean (8 x 2) and S real. Greedy columns without refitting
    // (as in LFM) need not find Z itself in 2 steps, but the 3 row groups {0, 2, 4},
    // {1, 3}, {5, 7} span the same row patterns: 3 columns reproduce X exactly.
    let shape = [5, 8, 4];
    let z = Mat::from_fn(8, 2, |i, j| {
        f64::from(u8::from(if j == 0 { i < 5 } else { i % 2 == 1 }))
    });
    let mut rng = bl_core::random::seeded_rng(7);
    let s = bl_core::random::standard_normal_mat(&mut rng, 2, 20).unwrap();
    let x1 = &z * &s;
    let x = Tensor::refold(1, x1.as_ref(), shape).unwrap();
    let fit = Lfm::params().max_iter(3).mode(Some(1)).fit(&x).unwrap();
    let err = metrics::rmse(&fit.reconstruct().unwrap(), &x).unwrap();
    assert!(err < 1e-9, "rmse {err}");
    assert_eq!(fit.boolean_factors().len(), 3);
    let best = Lfm::params().max_iter(3).fit(&x).unwrap();
    assert!(best.loss() <= fit.loss() + 1e-12);
}

#[test]
fn lfm_and_lfmmix_losses_do_not_increase_with_atoms() {
    let data = common::data([10, 9, 8], 3, 0.2, 0.0, 8);
    let x = data.observed();
    let mut prev_lfm = f64::INFINITY;
    let mut prev_mix = f64::INFINITY;
    for k in 1..=4 {
        let l = Lfm::params()
            .max_iter(k)
            .mode(Some(0))
            .fit(x)
            .unwrap()
            .loss();
        assert!(
            l <= prev_lfm * (1.0 + 1e-9),
            "LFM k = {k}: {l} > {prev_lfm}"
        );
        prev_lfm = l;
        let m = Lfm::params().max_iter(k).mix().fit(x).unwrap().loss();
        assert!(
            m <= prev_mix * (1.0 + 1e-9),
            "LFMmix k = {k}: {m} > {prev_mix}"
        );
        prev_mix = m;
    }
}

#[test]
fn lfmmix_fits_noiseless_model_one_data() {
    let data = common::data([12, 11, 10], 3, 0.0, 0.0, 9);
    let fit = Lfm::params()
        .max_iter(3)
        .sweeps(10)
        .mix()
        .fit(data.observed())
        .unwrap();
    let err = metrics::rmse(&fit.reconstruct().unwrap(), data.clean()).unwrap();
    let scale = metrics::rmse(&Tensor::zeros([12, 11, 10]).unwrap(), data.clean()).unwrap();
    // Greedy Boolean columns without refitting them need not be exact; the fit must still
    // explain most of the tensor.
    assert!(err < 0.5 * scale, "rmse {err} vs scale {scale}");
    let bf = fit.boolean_factors();
    assert_eq!(bf.len(), 3);
}

#[test]
fn sustain_keeps_its_boolean_factor_binary_and_fits_planted_data() {
    // CP with a Boolean mode-2 factor.
    let shape = [8, 7, 9];
    let mut rng = bl_core::random::seeded_rng(10);
    let a = bl_core::random::standard_normal_mat(&mut rng, 8, 2).unwrap();
    let b = bl_core::random::standard_normal_mat(&mut rng, 7, 2).unwrap();
    let c = Mat::from_fn(9, 2, |i, j| f64::from(u8::from((i + j) % 3 != 0)));
    let x = cp_to_tensor([a.as_ref(), b.as_ref(), c.as_ref()]).unwrap();
    let fit = Sustain::params()
        .rank(2)
        .n_starts(4)
        .max_iter(200)
        .fit(&x)
        .unwrap();
    let f = fit.factors();
    let bm = fit.boolean_mode();
    assert!(
        (0..f[bm].nrows()).all(|i| (0..2).all(|j| f[bm][(i, j)] == 0.0 || f[bm][(i, j)] == 1.0))
    );
    let zero = 0.5 * x.frobenius_norm().powi(2);
    assert!(fit.loss() < 0.05 * zero, "loss {} vs {}", fit.loss(), zero);
    assert_eq!(shape, x.shape());
}

#[test]
fn baselines_are_deterministic_and_reject_bad_parameters() {
    let data = common::data([6, 6, 6], 2, 0.3, 0.0, 12);
    let x = data.observed();
    let a = CpAls::params().rank(2).seed(5).fit(x).unwrap();
    let b = CpAls::params().rank(2).seed(5).fit(x).unwrap();
    assert_eq!(a.reconstruct().unwrap(), b.reconstruct().unwrap());
    let a = Sustain::params().rank(2).seed(5).fit(x).unwrap();
    let b = Sustain::params().rank(2).seed(5).fit(x).unwrap();
    assert_eq!(a.reconstruct().unwrap(), b.reconstruct().unwrap());
    assert!(matches!(
        CpAls::params().rank(0).fit(x),
        Err(TensorError::Core(bl_core::BlError::InvalidParameter { .. }))
    ));
    assert!(CpAls::params().n_starts(0).fit(x).is_err());
    assert!(Tucker::params().ranks([0, 1, 1]).fit(x).is_err());
    assert!(Lfm::params().max_iter(0).mix().fit(x).is_err());
    assert!(matches!(
        Lfm::params().mode(Some(3)).fit(x),
        Err(TensorError::InvalidMode { mode: 3 })
    ));
    assert!(Sustain::params().boolean_modes(&[]).fit(x).is_err());
    assert!(Sustain::params().rank(0).fit(x).is_err());
}
