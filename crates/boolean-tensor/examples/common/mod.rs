//! What the probe examples share.

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
