//! The named presets of the parameters: `SblrParams::standardized` against the defaults on
//! standardized data (the Python estimator's defaults come from this preset).

use bl_core::data::MatrixDataset;
use bl_core::random::{fill_standard_normal, seeded_rng};
use sblr::{Fit as _, Init, ParamGuard as _, Predict as _, Sblr, SblrParams};

/// `n` samples of `s x t` standard normals, class 1 shifted by `shift` at entry `(1, 1)`,
/// then every entry centred and scaled to unit variance over the samples (what
/// scikit-learn's `StandardScaler` does to the flattened samples).
fn standardized_data(n: usize, s: usize, t: usize, shift: f64, seed: u64) -> MatrixDataset {
    let d = s * t;
    let mut x = vec![0.0; n * d];
    fill_standard_normal(&mut seeded_rng(seed), &mut x);
    let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
    for (i, &y) in labels.iter().enumerate() {
        if y == 1 {
            x[i * d + s + 1] += shift;
        }
    }
    for e in 0..d {
        let mean = (0..n).map(|i| x[i * d + e]).sum::<f64>() / n as f64;
        let var = (0..n).map(|i| (x[i * d + e] - mean).powi(2)).sum::<f64>() / n as f64;
        for i in 0..n {
            x[i * d + e] = (x[i * d + e] - mean) / var.sqrt();
        }
    }
    MatrixDataset::new(s, t, x, labels, vec!["a".into(), "b".into()]).unwrap()
}

#[test]
fn standardized_preset_is_the_defaults_with_a_weak_ridge_and_the_contrast_start() {
    let preset = SblrParams::standardized().check().unwrap();
    let defaults = Sblr::params().check().unwrap();
    assert_eq!((preset.mu2(), preset.nu2()), (0.01, 0.01));
    assert_eq!(preset.init(), &Init::LabelWeightedSvd);
    assert_eq!(
        (preset.mu1(), preset.nu1()),
        (defaults.mu1(), defaults.nu1())
    );
    assert_eq!(preset.rank(), defaults.rank());
    assert_eq!(preset.iteration(), defaults.iteration());
    assert_eq!(
        preset.block_update().as_built_in(),
        defaults.block_update().as_built_in()
    );
}

/// On standardized data with one informative entry (a shift of 2 standard deviations),
/// Fig. 3's ridge `mu2 = nu2 = 0.5` ends every fit at `U V^T = 0` (from either start), and
/// the preset's ridge `0.01` keeps the signal and separates the classes.
#[test]
fn standardized_preset_keeps_the_signal_the_defaults_shrink() {
    let norm = |m: &sblr::FittedSblr| m.weight_matrix().unwrap().norm_l2();
    for seed in 0..4 {
        let data = standardized_data(60, 6, 5, 2.0, seed);
        for params in [Sblr::params(), Sblr::params().init(Init::LabelWeightedSvd)] {
            let model = params.fit(&data).unwrap();
            assert_eq!(norm(&model), 0.0, "seed {seed}");
        }
        let preset = SblrParams::standardized().fit(&data).unwrap();
        assert!(norm(&preset) > 1.0, "seed {seed}: {}", norm(&preset));
        let predicted: Vec<usize> = preset.predict(&data).unwrap();
        let accuracy = bl_core::metrics::accuracy(data.labels(), &predicted).unwrap();
        assert!(accuracy >= 0.85, "seed {seed}: {accuracy}");
    }
}
