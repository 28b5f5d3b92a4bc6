//! Claims of the rustdoc checked on inputs a caller can pass: each test holds a function
//! to the `# Errors` (or `# Panics`) section it documents.

use bl_core::BlError;
use faer::MatRef;
use sblr::SblrError;
use sblr::block::LinearBlock;

/// `LinearBlock::prox_point` returns a shape error, not a panic, for slices that do not
/// have `d + 1` entries.
#[test]
fn prox_point_refuses_slices_of_the_wrong_length() {
    let (d, n) = (2, 3);
    let z = vec![0.5; d * n];
    let y = [1.0, -1.0, 1.0];
    let block: LinearBlock<'_> = LinearBlock {
        z: MatRef::from_column_major_slice(&z, d, n).into(),
        y: &y,
        l1: 0.1,
        l2: 0.1,
    };
    let good = vec![0.1; d + 1];
    let mut out = vec![0.0; d + 1];
    assert!(block.prox_point(&good, &good, 1.0, &mut out).is_ok());
    let short = vec![0.1; d];
    let long = vec![0.1; d + 2];
    let is_shape =
        |r: sblr::Result<()>| matches!(r, Err(SblrError::Core(BlError::ShapeMismatch { .. })));
    assert!(is_shape(block.prox_point(&short, &good, 1.0, &mut out)));
    assert!(is_shape(block.prox_point(&good, &short, 1.0, &mut out)));
    assert!(is_shape(block.prox_point(
        &good,
        &good,
        1.0,
        &mut vec![0.0; d]
    )));
    assert!(is_shape(block.prox_point(&long, &good, 1.0, &mut out)));
    assert!(matches!(
        block.prox_point(&good, &good, 0.0, &mut out),
        Err(SblrError::Core(BlError::InvalidParameter { .. }))
    ));
}

/// `synthetic::random_dataset` refuses only zero sizes: one sample is a valid data set.
#[test]
fn random_dataset_refuses_zero_sizes_only() {
    use sblr::synthetic::random_dataset;
    let one = random_dataset(1, 2, 3, 0).unwrap();
    assert_eq!(one.n_samples(), 1);
    for (n, s, t) in [(0, 2, 3), (2, 0, 3), (2, 3, 0)] {
        assert!(matches!(
            random_dataset(n, s, t, 0),
            Err(SblrError::Core(BlError::InvalidParameter { .. }))
        ));
    }
}

/// `MultinomialParams::check` refuses a non-finite warm start with `BlError::NonFinite`,
/// as `SblrParams::check` does.
#[test]
fn multinomial_check_refuses_a_non_finite_warm_start_as_non_finite() {
    use sblr::{Init, MultinomialSblr, ParamGuard as _};
    let params = MultinomialSblr::params().init(Init::WarmMultinomial {
        u: vec![f64::NAN],
        v: vec![0.0],
        intercepts: vec![0.0],
    });
    assert!(matches!(
        params.check(),
        Err(SblrError::Core(BlError::NonFinite { .. }))
    ));
}
