//! The input checks of the probes' entry point `sblr::passes::SamplePasses` (cargo
//! feature `probes`, which the crate's tests turn on). The kernels themselves are checked
//! bit for bit against reference loops by the unit tests of `src/passes/`.

use crate::common;

use sblr::passes::SamplePasses;

#[test]
fn pass_inputs_are_validated() {
    let data = sblr::synthetic::random_dataset(4, 6, 5, 3).unwrap();
    let err = SamplePasses::new(&data, Some(0)).unwrap_err();
    common::assert_invalid(&err, "threads");
    let passes = SamplePasses::new(&data, Some(1)).unwrap();
    let mut zu = vec![0.0; 6 * 2 * 4];
    let mut zv = vec![0.0; 2 * 5 * 4];
    common::assert_invalid(&passes.times_v(&[], 0, &mut []).unwrap_err(), "k");
    common::assert_invalid(&passes.u_times(&[], 0, &mut []).unwrap_err(), "k");
    for err in [
        passes.times_v(&[0.0; 9], 2, &mut zu).unwrap_err(),
        passes.times_v(&[0.0; 10], 2, &mut zu[1..]).unwrap_err(),
        passes.u_times(&[0.0; 11], 2, &mut zv).unwrap_err(),
        passes.u_times(&[0.0; 12], 2, &mut zv[..39]).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                sblr::SblrError::Core(bl_core::BlError::ShapeMismatch { .. })
            ),
            "{err}"
        );
    }
    passes.times_v(&[1.0; 10], 2, &mut zu).unwrap();
    passes.u_times(&[1.0; 12], 2, &mut zv).unwrap();
}
