//! What the probe examples share (each uses a part of it).
#![allow(dead_code)]

use bl_core::io::NpyArray;
use boolean_tensor::{SyntheticParams, Tensor};

/// Syn2-like data (Chang et al., Sec. 6): a `d^3` tensor of 15 Boolean atoms with N(0, 1)
/// noise, seed 2018; `missing` of the entries hidden.
pub fn syn2(d: usize, missing: f64) -> Result<Tensor, Box<dyn std::error::Error>> {
    let data = SyntheticParams::default()
        .shape([d, d, d])
        .n_atoms(15)
        .noise_std(1.0)
        .missing_fraction(missing)
        .seed(2018)
        .generate()?;
    Ok(data.observed().clone())
}

/// A hyperspectral cube `arr` (`h x w x b`, C order; Indian Pines for `bmp-fig2`)
/// subsampled by the strides `spatial` (both pixel axes) and `band`, scaled to unit RMS.
pub fn strided_unit_rms(
    arr: &NpyArray,
    spatial: usize,
    band: usize,
) -> Result<Tensor, Box<dyn std::error::Error>> {
    let (h, w, b) = (arr.shape[0], arr.shape[1], arr.shape[2]);
    let shape = [h.div_ceil(spatial), w.div_ceil(spatial), b.div_ceil(band)];
    let mut x = Tensor::from_fn(shape, |i, j, k| {
        arr.data[(i * spatial * w + j * spatial) * b + k * band]
    })?;
    let rms = (x.data().iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt();
    x.map_observed(|_, v| v / rms)?;
    Ok(x)
}
