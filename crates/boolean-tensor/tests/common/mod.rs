//! Helpers shared by the integration tests.

use boolean_tensor::Tensor;

/// `x` with the same observed values and mask, and `garbage(i)` stored at each missing
/// entry `i` (a fit must not read them).
pub fn with_garbage_at_missing(x: &Tensor, garbage: impl Fn(usize) -> f64) -> Tensor {
    let mask = x.mask().expect("a masked tensor").to_vec();
    let data = x
        .data()
        .iter()
        .enumerate()
        .map(|(i, &v)| if mask[i] { v } else { garbage(i) })
        .collect();
    Tensor::from_vec_masked(x.shape(), data, mask).expect("same shape and mask")
}
