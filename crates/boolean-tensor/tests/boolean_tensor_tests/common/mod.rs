//! Fixtures shared by the integration tests.

use bl_core::BlError;
use boolean_tensor::{SyntheticData, SyntheticParams, TensorError};

/// Model-(1) data (Chang et al., Sec. 6.1) of `shape` with `n_atoms` atoms, Gaussian
/// noise of sd `noise`, a fraction `missing` of the entries missing, seeded.
pub fn data(
    shape: [usize; 3],
    n_atoms: usize,
    noise: f64,
    missing: f64,
    seed: u64,
) -> SyntheticData {
    SyntheticParams::default()
        .shape(shape)
        .n_atoms(n_atoms)
        .noise_std(noise)
        .missing_fraction(missing)
        .seed(seed)
        .generate()
        .expect("valid synthetic parameters")
}

/// Panics unless `err` is [`BlError::InvalidParameter`] naming `name`.
pub fn assert_invalid_parameter(err: &TensorError, name: &str) {
    match err {
        TensorError::Core(BlError::InvalidParameter { name: n, .. }) if *n == name => {}
        other => panic!("expected InvalidParameter for `{name}`, got {other:?}"),
    }
}
