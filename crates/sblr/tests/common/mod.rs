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
