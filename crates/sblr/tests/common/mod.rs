//! Helpers shared by the integration tests.

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
