//! Seeded data generators of this crate's tests, examples, benches and experiments.

use bl_core::data::MatrixDataset;
use bl_core::random::{fill_standard_normal, seeded_rng, standard_normal};

use crate::error::Result;
use bl_core::error::build::invalid;

/// The zeroed buffer of `n` samples of `s x t`, refused (a typed error, nothing
/// allocated) above [`bl_core::limits::MAX_ELEMENTS`] values or when the memory is not
/// available.
/// Every size is at least 1 (so `n s t` also bounds the `n` labels: with `s = 0` a
/// product of 0 let `n = 2^33` labels through to a 64 GiB allocation).
fn samples_buffer(what: &'static str, n: usize, s: usize, t: usize) -> Result<Vec<f64>> {
    for (name, value) in [("n", n), ("s", s), ("t", t)] {
        bl_core::params::at_least(name, value, 1)?;
    }
    Ok(bl_core::limits::try_zeroed(what, &[n, s, t])?)
}

/// The two-class synthetic matrices of Table 1 (Sec. 7.2 of Shi, Xu, Baraniuk 2014): `n`
/// samples `X_i = randn(s, t) + y_i * shift` with `y_i = -1` for the first `n / 2` samples
/// (class `"-1"`) and `+1` for the rest (class `"+1"`). With `shift = 1` this is the
/// paper's `randn(s, t) ± 1`.
///
/// # Errors
/// `n < 2`, `s == 0`, `t == 0`, or a non-finite `shift`; `BlError::InvalidParameter`
/// (as `SblrError::Core`) when `n s t` exceeds [`bl_core::limits::MAX_ELEMENTS`] values
/// or cannot be allocated (checked before anything is allocated).
pub fn two_class(n: usize, s: usize, t: usize, shift: f64, seed: u64) -> Result<MatrixDataset> {
    if n < 2 {
        return Err(invalid("n", n, ">= 2 (one sample per class at least)"));
    }
    bl_core::error::ensure_finite("shift", &[shift])?;
    let mut data = samples_buffer("two_class: n x s x t", n, s, t)?;
    let mut rng = seeded_rng(seed);
    fill_standard_normal(&mut rng, &mut data);
    let half = n / 2;
    let labels: Vec<usize> = (0..n).map(|i| usize::from(i >= half)).collect();
    for (sample, &label) in data.chunks_mut((s * t).max(1)).zip(&labels) {
        let offset = if label == 1 { shift } else { -shift };
        sample.iter_mut().for_each(|v| *v += offset);
    }
    Ok(MatrixDataset::new(
        s,
        t,
        data,
        labels,
        vec!["-1".into(), "+1".into()],
    )?)
}

/// A small two-class data set of `n` standard normal `s x t` samples with random labels
/// (no structure: for identities that hold on any data).
///
/// # Errors
/// `BlError::InvalidParameter` (as `SblrError::Core`) for `n`, `s` or `t` zero, or when
/// `n s t` exceeds [`bl_core::limits::MAX_ELEMENTS`] values or cannot be allocated. (One
/// sample is accepted: a data set whose class `"b"` has no sample.)
pub fn random_dataset(n: usize, s: usize, t: usize, seed: u64) -> Result<MatrixDataset> {
    let mut data = samples_buffer("random_dataset: n x s x t", n, s, t)?;
    let mut rng = seeded_rng(seed);
    fill_standard_normal(&mut rng, &mut data);
    let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
    Ok(MatrixDataset::new(
        s,
        t,
        data,
        labels,
        vec!["a".into(), "b".into()],
    )?)
}

/// Planted sparse rank-1 model: `u*` supported on `u_support`, `v*` on `v_support`,
/// `X_i ~ N(0, 1)`, `y_i = sign(u*^T X_i v* + 0.3 noise)`.
///
/// # Errors
/// A support index out of range; as `MatrixDataset::new`; `BlError::InvalidParameter`
/// (as `SblrError::Core`) when `n s t` exceeds [`bl_core::limits::MAX_ELEMENTS`] values
/// or cannot be allocated.
pub fn planted(
    n: usize,
    s: usize,
    t: usize,
    u_support: &[usize],
    v_support: &[usize],
    seed: u64,
) -> Result<MatrixDataset> {
    if let Some(&i) = u_support.iter().find(|&&i| i >= s) {
        return Err(invalid("u_support", i, format!("< s = {s}")));
    }
    if let Some(&j) = v_support.iter().find(|&&j| j >= t) {
        return Err(invalid("v_support", j, format!("< t = {t}")));
    }
    let mut data = samples_buffer("planted: n x s x t", n, s, t)?;
    let mut rng = seeded_rng(seed);
    let mut u = vec![0.0; s];
    let mut v = vec![0.0; t];
    for (k, &i) in u_support.iter().enumerate() {
        u[i] = if k % 2 == 0 { 1.0 } else { -1.0 };
    }
    for (k, &j) in v_support.iter().enumerate() {
        v[j] = if k % 3 == 1 { -1.0 } else { 1.0 };
    }
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
    Ok(MatrixDataset::new(
        s,
        t,
        data,
        labels,
        vec!["neg".into(), "pos".into()],
    )?)
}

/// Three classes of `s x t` standard normal samples with class-dependent means (class `c`
/// adds 3 to entry `(c, c)`; needs `s, t >= 3`).
///
/// # Errors
/// `s < 3` or `t < 3`; `n < 3` (a class without samples); `BlError::InvalidParameter`
/// (as `SblrError::Core`) when `n s t` exceeds [`bl_core::limits::MAX_ELEMENTS`] values
/// or cannot be allocated.
pub fn three_classes(n: usize, s: usize, t: usize, seed: u64) -> Result<MatrixDataset> {
    bl_core::params::at_least("s", s, 3)?;
    bl_core::params::at_least("t", t, 3)?;
    bl_core::params::at_least("n", n, 3)?;
    let mut data = samples_buffer("three_classes: n x s x t", n, s, t)?;
    let mut rng = seeded_rng(seed);
    fill_standard_normal(&mut rng, &mut data);
    let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
    for (i, &c) in labels.iter().enumerate() {
        // Class c shifts entry (c, c) of its samples.
        data[i * s * t + c * s + c] += 3.0;
    }
    Ok(MatrixDataset::new(
        s,
        t,
        data,
        labels,
        vec!["a".into(), "b".into(), "c".into()],
    )?)
}
