//! The error type of `boolean-tensor`.

/// Everything that can go wrong in `boolean-tensor`.
///
/// Every public entry point validates its input and returns one of these instead of
/// panicking. Variants carry the offending value or shapes; the messages say how to fix
/// the input. Errors of the lower crates come in through `#[from]`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TensorError {
    /// A tensor mode of length zero.
    #[error("mode {mode} has length 0 (shape {shape:?}): every mode needs at least one index")]
    EmptyMode {
        /// The empty mode (0, 1 or 2).
        mode: usize,
        /// The shape given.
        shape: [usize; 3],
    },
    /// A data vector, factor or mask whose length does not match the shape.
    #[error("shape mismatch in {what}: expected {expected}, found {found}")]
    ShapeMismatch {
        /// Which input.
        what: &'static str,
        /// The expected length or shape.
        expected: String,
        /// The length or shape given.
        found: String,
    },
    /// A NaN or infinite value in an observed entry.
    #[error(
        "{what} has a non-finite value ({value}) at entry ({i}, {j}, {k}); mark it missing \
         in the mask or replace it"
    )]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Mode-0 index.
        i: usize,
        /// Mode-1 index.
        j: usize,
        /// Mode-2 index.
        k: usize,
        /// The offending value.
        value: f64,
    },
    /// A mask with no observed entry.
    #[error("all {n} entries are missing: the mask must observe at least one entry")]
    AllMissing {
        /// Number of entries.
        n: usize,
    },
    /// A mode index other than 0, 1 or 2.
    #[error("mode {mode} is out of range: a 3-way tensor has modes 0, 1 and 2")]
    InvalidMode {
        /// The offending mode.
        mode: usize,
    },
    /// A hyperparameter outside its valid range.
    #[error("invalid parameter `{name}` = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Given value, formatted.
        value: String,
        /// Description of the valid range.
        expected: &'static str,
    },
    /// A vector that must be Boolean (entries `0.0` or `1.0`) is not.
    #[error("{what}[{index}] = {value}: Boolean factors must have entries 0.0 or 1.0")]
    NotBoolean {
        /// Which vector.
        what: &'static str,
        /// Index of the first offending entry.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A numerical failure (non-finite iterate, failed factorization).
    #[error("numerical failure in {context}: {message}")]
    Numerical {
        /// Which routine.
        context: &'static str,
        /// What happened.
        message: String,
    },
    /// An error of `bl-core`.
    #[error(transparent)]
    Core(#[from] bl_core::BlError),
    /// An error of the Boolean QP solver (`maxcut-sdp`).
    #[error(transparent)]
    Maxcut(#[from] maxcut_sdp::MaxcutError),
}

/// Shorthand for results of this crate.
pub type Result<T, E = TensorError> = std::result::Result<T, E>;

pub(crate) fn invalid(
    name: &'static str,
    value: impl ToString,
    expected: &'static str,
) -> TensorError {
    TensorError::InvalidParameter {
        name,
        value: value.to_string(),
        expected,
    }
}

/// `n >= 1` for a count parameter (`rank`, `max_iter`, ...).
pub(crate) fn check_count(name: &'static str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(invalid(name, 0, ">= 1"));
    }
    Ok(())
}

/// A finite, non-negative tolerance.
pub(crate) fn check_tol(name: &'static str, tol: f64) -> Result<()> {
    if !(tol.is_finite() && tol >= 0.0) {
        return Err(invalid(name, tol, "finite and >= 0"));
    }
    Ok(())
}

/// A non-empty list of valid modes (each in `{0, 1, 2}`).
pub(crate) fn check_modes(name: &'static str, modes: &[usize]) -> Result<()> {
    if modes.is_empty() {
        return Err(invalid(name, "[]", "a non-empty subset of {0, 1, 2}"));
    }
    modes.iter().try_for_each(|&m| crate::tensor::check_mode(m))
}
