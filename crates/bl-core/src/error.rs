//! The error type of `bl-core`.

use std::path::{Path, PathBuf};

/// Everything that can go wrong in `bl-core`.
///
/// Variants carry the offending value or shapes so the message says how to fix the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BlError {
    /// Two shapes that must agree do not.
    #[error("shape mismatch in {context}: expected {expected}, found {found}")]
    ShapeMismatch {
        /// Where the mismatch was found (function or argument name).
        context: &'static str,
        /// The shape that was expected, e.g. `"3 x 4"`.
        expected: String,
        /// The shape that was given.
        found: String,
    },
    /// An input that must not be empty is empty.
    #[error("{what} is empty: give at least one element")]
    Empty {
        /// What was empty.
        what: &'static str,
    },
    /// A NaN or infinite value where finite numbers are required.
    #[error("{what} contains a non-finite value ({value}) at index {index}")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Flat index of the first offending entry.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A parameter outside its valid range.
    #[error("invalid parameter `{name}` = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Given value, formatted.
        value: String,
        /// Description of the valid range, e.g. `"> 0"`.
        expected: std::borrow::Cow<'static, str>,
    },
    /// A classification data set with fewer than two classes.
    #[error("labels have only {found} distinct class(es): at least 2 are needed")]
    TooFewClasses {
        /// Number of distinct classes found.
        found: usize,
    },
    /// A file could not be read or written.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A malformed text file.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file (or `"<input>"` for in-memory text).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// A malformed or unsupported `.npy` file.
    #[error("{path}: {message}")]
    Npy {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A missing value (`?`, NaN) in a data file that must be complete.
    #[error("{path}:{line}: missing value `{token}` at {location}: impute or drop the case first")]
    MissingValue {
        /// The file (or `"<input>"` for in-memory text).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// Where on the line, e.g. `"dimension 2, value 5"`.
        location: String,
        /// The token read, e.g. `"?"` or `"NaN"`.
        token: String,
    },
    /// A plug-in failed its conformance suite.
    #[error("{failures}")]
    Conformance {
        /// The plug-in's name.
        extension: String,
        /// The report of the failed checks.
        failures: String,
    },
    /// A numerical routine failed (e.g. an SVD did not converge, a matrix is singular).
    #[error("numerical failure in {context}: {message}")]
    Numerical {
        /// Which routine.
        context: &'static str,
        /// What happened.
        message: String,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = BlError> = std::result::Result<T, E>;

/// [`BlError::InvalidParameter`] for `name` = `value`, which must be `expected`.
pub fn invalid(
    name: &'static str,
    value: impl std::fmt::Display,
    expected: impl Into<String>,
) -> BlError {
    BlError::InvalidParameter {
        name,
        value: value.to_string(),
        expected: expected.into().into(),
    }
}

/// The [`BlError::Io`] of a failed read or write of `path`, for `map_err`:
/// `std::fs::read(path).map_err(io_error(path))?`.
pub fn io_error(path: &Path) -> impl Fn(std::io::Error) -> BlError + Copy + '_ {
    move |source| BlError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Returns an error naming the first non-finite entry of `values`, if any.
///
/// # Errors
/// [`BlError::NonFinite`] at the first NaN or infinite entry.
pub fn ensure_finite(what: &'static str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(BlError::NonFinite {
            what,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// Returns an error when `len` (the length of the input named `what`) is 0.
///
/// # Errors
/// [`BlError::Empty`] when `len == 0`.
pub fn ensure_nonempty(what: &'static str, len: usize) -> Result<()> {
    if len == 0 {
        Err(BlError::Empty { what })
    } else {
        Ok(())
    }
}

/// Returns an error when two lengths differ.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when `expected != found`.
pub fn ensure_len(context: &'static str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(BlError::ShapeMismatch {
            context,
            expected: expected.to_string(),
            found: found.to_string(),
        })
    }
}

/// Constructors of the shared variants for any crate error that wraps [`BlError`].
///
/// Every crate of the workspace layers its own error over [`BlError`] (`From<BlError>`), so
/// one set of constructors serves all of them: `Err(error::shape_mismatch(..))` in a
/// function returning `Result<T, SblrError>` builds `SblrError::Core(ShapeMismatch ..)`.
pub mod build {
    use super::BlError;
    use std::fmt::Display;

    /// [`BlError::InvalidParameter`]: `name` = `value` must be `expected`.
    pub fn invalid<E: From<BlError>>(
        name: &'static str,
        value: impl Display,
        expected: impl Into<String>,
    ) -> E {
        super::invalid(name, value, expected).into()
    }

    /// [`BlError::ShapeMismatch`] in `context`.
    pub fn shape_mismatch<E: From<BlError>>(
        context: &'static str,
        expected: impl Display,
        found: impl Display,
    ) -> E {
        BlError::ShapeMismatch {
            context,
            expected: expected.to_string(),
            found: found.to_string(),
        }
        .into()
    }

    /// [`BlError::Numerical`] in `context`.
    pub fn numerical<E: From<BlError>>(context: &'static str, message: impl Into<String>) -> E {
        BlError::Numerical {
            context,
            message: message.into(),
        }
        .into()
    }

    /// [`BlError::NonFinite`]: entry `index` of `what` is `value`.
    pub fn non_finite<E: From<BlError>>(what: &'static str, index: usize, value: f64) -> E {
        BlError::NonFinite { what, index, value }.into()
    }
}

#[cfg(test)]
mod build_tests {
    use super::{BlError, build};

    #[derive(Debug)]
    struct Wrapper(BlError);
    impl From<BlError> for Wrapper {
        fn from(e: BlError) -> Self {
            Wrapper(e)
        }
    }

    #[test]
    fn constructors_wrap_the_shared_variant() {
        let e: Wrapper = build::shape_mismatch("ctx", "3 x 4", "4 x 3");
        assert!(matches!(e.0, BlError::ShapeMismatch { context: "ctx", .. }));
        assert_eq!(
            e.0.to_string(),
            "shape mismatch in ctx: expected 3 x 4, found 4 x 3"
        );
        let e: Wrapper = build::numerical("svd", "did not converge");
        assert!(matches!(e.0, BlError::Numerical { context: "svd", .. }));
        let e: Wrapper = build::invalid("rank", 0, ">= 1");
        assert_eq!(
            e.0.to_string(),
            "invalid parameter `rank` = 0: must be >= 1"
        );
        let e: Wrapper = build::non_finite("x", 2, f64::NAN);
        assert!(matches!(e.0, BlError::NonFinite { index: 2, .. }));
    }
}

/// The text of a caught panic's payload (`panic!` with a literal or a formatted message),
/// or `None` for any other payload. For code that turns a caught panic into an error.
#[must_use]
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

#[cfg(test)]
mod panic_message_tests {
    #[test]
    fn literal_formatted_and_other_payloads() {
        let literal = std::panic::catch_unwind(|| panic!("plain")).unwrap_err();
        assert_eq!(super::panic_message(literal.as_ref()), Some("plain"));
        let formatted = std::panic::catch_unwind(|| panic!("n = {}", 3)).unwrap_err();
        assert_eq!(super::panic_message(formatted.as_ref()), Some("n = 3"));
        let other = std::panic::catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(super::panic_message(other.as_ref()), None);
    }
}
