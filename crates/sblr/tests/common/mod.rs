//! Seeded test data shared by the integration tests.
#![allow(dead_code)]

use bl_core::data::MatrixDataset;
use bl_core::random::{fill_standard_normal, seeded_rng, standard_normal};

/// A small two-class data set of `n` standard normal `s x t` samples with random labels
/// (no structure: for identities that hold on any data).
pub fn random_dataset(n: usize, s: usize, t: usize, seed: u64) -> MatrixDataset {
    let mut rng = seeded_rng(seed);
    let mut data = vec![0.0; n * s * t];
    fill_standard_normal(&mut rng, &mut data);
    let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
    MatrixDataset::new(s, t, data, labels, vec!["a".into(), "b".into()]).unwrap()
}

/// Planted sparse rank-1 model: `u*` supported on `u_support`, `v*` on `v_support`,
/// `X_i ~ N(0, 1)`, `y_i = sign(u*^T X_i v* + 0.3 noise)`.
pub fn planted(
    n: usize,
    s: usize,
    t: usize,
    u_support: &[usize],
    v_support: &[usize],
    seed: u64,
) -> MatrixDataset {
    let mut rng = seeded_rng(seed);
    let mut u = vec![0.0; s];
    let mut v = vec![0.0; t];
    for (k, &i) in u_support.iter().enumerate() {
        u[i] = if k % 2 == 0 { 1.0 } else { -1.0 };
    }
    for (k, &j) in v_support.iter().enumerate() {
        v[j] = if k % 3 == 1 { -1.0 } else { 1.0 };
    }
    let mut data = vec![0.0; n * s * t];
    fill_standard_normal(&mut rng, &mut data);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let x = &data[i * s * t..(i + 1) * s * t];
        let mut f = 0.0;
        for j in 0..t {
            for a in 0..s {
                f += u[a] * x[j * s + a] * v[j];
            }
        }
        f += 0.3 * standard_normal(&mut rng);
        labels.push(usize::from(f > 0.0));
    }
    MatrixDataset::new(s, t, data, labels, vec!["neg".into(), "pos".into()]).unwrap()
}
