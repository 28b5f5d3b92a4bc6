//! Helpers shared by the integration tests.

// Each test binary compiles this module and uses only some of the helpers.
#![allow(dead_code)]

use sblr::SblrError;

/// `err` is `SblrError::Core(BlError::InvalidParameter)` naming the parameter `name`.
#[track_caller]
pub fn assert_invalid(err: &SblrError, name: &str) {
    assert!(
        matches!(
            err,
            SblrError::Core(bl_core::BlError::InvalidParameter { name: n, .. }) if *n == name
        ),
        "expected an invalid `{name}`, got: {err}"
    );
}

/// The objectives `a` and `b` agree to the relative tolerance `tol` (relative to `a`); the
/// message names the two fits.
#[track_caller]
pub fn assert_same_objective((a_name, a): (&str, f64), (b_name, b): (&str, f64), tol: f64) {
    let rel = (a - b).abs() / a;
    assert!(rel < tol, "{a_name} {a} vs {b_name} {b}");
}

/// The fastest of up to three runs of `f`, stopping at the first that takes less than
/// `limit`. A single run on a busy machine can be held up by the scheduler; a slow loader
/// is slow every time, so a time bound checked this way still catches it.
pub fn fastest_run(limit: std::time::Duration, mut f: impl FnMut()) -> std::time::Duration {
    let mut best = std::time::Duration::MAX;
    for _ in 0..3 {
        let started = std::time::Instant::now();
        f();
        best = best.min(started.elapsed());
        if best < limit {
            break;
        }
    }
    best
}

/// The JSON of an SBLR model fitted on `data` with the default parameters and at most
/// `max_iter` iterations.
pub fn saved_sblr(data: &bl_core::data::MatrixDataset, max_iter: usize) -> String {
    use sblr::{Fit as _, SavedModel as _};
    let model = sblr::Sblr::params().max_iter(max_iter).fit(data).unwrap();
    model.to_json().unwrap()
}

/// Alg. 1's built-in block update with its default settings.
pub fn alg1() -> std::sync::Arc<dyn sblr::BlockUpdate> {
    std::sync::Arc::new(sblr::ExactBlockSolve::default())
}

/// Alg. 2's built-in block update with its default settings.
pub fn alg2() -> std::sync::Arc<dyn sblr::BlockUpdate> {
    std::sync::Arc::new(sblr::ProxLinearStep::default())
}

/// The peak heap `dhat` has counted so far is at most `budget` bytes; prints it beside
/// `reference` (`(what, bytes)`, e.g. the data set's size) and returns it. Only in a test
/// binary whose global allocator is `dhat::Alloc`, while a testing profiler runs.
#[track_caller]
pub fn assert_peak_within(label: &str, budget: usize, (what, bytes): (&str, usize)) -> usize {
    let peak = dhat::HeapStats::get().max_bytes;
    eprintln!(
        "{label}: peak heap {peak} B = {:.3} x {what} ({bytes} B); budget {budget} B",
        peak as f64 / bytes as f64
    );
    assert!(
        peak <= budget,
        "{label}: peak heap {peak} B > budget {budget} B ({what} is {bytes} B)"
    );
    peak
}

/// The peak bound is sensitive: a value of `bytes` bytes or more that `make` allocates
/// now shows in `dhat`'s peak (as for [`assert_peak_within`]).
#[track_caller]
pub fn assert_counted<T>(bytes: usize, make: impl FnOnce() -> T) {
    let value = make();
    let peak = dhat::HeapStats::get().max_bytes;
    assert!(
        peak >= bytes,
        "peak heap {peak} B < {bytes} B just allocated"
    );
    drop(value);
}
