//! Hostile parameters and sizes: every one is a typed error before anything is allocated
//! or a thread pool is built (issue 23).

use faer::Mat;
use gop_mmf::{Fit, GopParams, ParamGuard};

/// The Sec. 5.1 data (`y = [0, -1, -0.5]`).
fn example_y() -> Mat<f64> {
    Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n])
}

#[test]
fn thread_counts_above_the_workspace_bound_are_refused_at_check() {
    let max = bl_core::limits::MAX_THREADS;
    for threads in [max + 1, 4096, 1 << 40, usize::MAX] {
        let params = GopParams::default().threads(threads);
        let err = params.check().unwrap_err();
        assert_eq!(err.invalid_parameter(), Some("threads"), "{threads}: {err}");
        // The fit checks first, so it never builds the pool (usize::MAX used to hang).
        let err = params.fit(&example_y().as_ref()).unwrap_err();
        assert_eq!(err.invalid_parameter(), Some("threads"), "{threads}: {err}");
    }
}

#[test]
fn zero_threads_still_means_one_per_core_and_the_bound_itself_is_accepted() {
    for threads in [0, 1, 2, bl_core::limits::MAX_THREADS] {
        assert!(
            GopParams::default().threads(threads).check().is_ok(),
            "{threads}"
        );
    }
}
