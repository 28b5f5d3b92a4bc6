//! The error type of `maxcut-sdp`.

/// Everything that can go wrong in `maxcut-sdp`.
///
/// Every public entry point validates its input and returns one of these instead of
/// panicking. Variants carry the offending value or shapes; the messages say how to fix
/// the input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MaxcutError {
    /// An input that must have at least one variable has none.
    #[error("{what} is empty: the problem needs at least one variable (n >= 1)")]
    Empty {
        /// What was empty.
        what: &'static str,
    },
    /// A matrix that must be square is not.
    #[error("{what} must be square, found {rows} x {cols}")]
    NotSquare {
        /// Which matrix.
        what: &'static str,
        /// Number of rows given.
        rows: usize,
        /// Number of columns given.
        cols: usize,
    },
    /// A matrix that must be symmetric is not (beyond a relative tolerance of `1e-10`).
    #[error(
        "{what} must be symmetric: entry ({row}, {col}) = {upper} but ({col}, {row}) = {lower}; \
         symmetrize it, e.g. (C + C^T) / 2"
    )]
    NotSymmetric {
        /// Which matrix.
        what: &'static str,
        /// Row of the first offending entry.
        row: usize,
        /// Column of the first offending entry.
        col: usize,
        /// The value at `(row, col)`.
        upper: f64,
        /// The value at `(col, row)`.
        lower: f64,
    },
    /// A NaN or infinite value where finite numbers are required.
    #[error("{what} contains a non-finite value ({value}) at ({row}, {col})")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Row (or index, for vectors and edge lists) of the first offending entry.
        row: usize,
        /// Column of the first offending entry (0 for vectors and edge lists).
        col: usize,
        /// The offending value.
        value: f64,
    },
    /// A vertex or column index outside `0..n`.
    #[error("{what}: index {index} is out of range for n = {n} (valid: 0..{n})")]
    IndexOutOfBounds {
        /// Which input.
        what: &'static str,
        /// The offending index.
        index: usize,
        /// The number of variables.
        n: usize,
    },
    /// Two shapes that must agree do not.
    #[error("shape mismatch in {what}: expected {expected}, found {found}")]
    ShapeMismatch {
        /// Which input.
        what: &'static str,
        /// The shape or length that was expected, e.g. `"18 x 150"`.
        expected: String,
        /// The shape or length that was given.
        found: String,
    },
    /// A compressed-sparse-row structure that is not well formed.
    #[error("invalid CSR matrix: {message}")]
    InvalidCsr {
        /// What was wrong.
        message: String,
    },
    /// A vector entry that must be `-1` or `+1` (or `0` or `1`) is not.
    #[error("{what}[{index}] = {value}: entries must be {expected}")]
    NotDiscrete {
        /// Which vector.
        what: &'static str,
        /// Index of the first offending entry.
        index: usize,
        /// The offending value.
        value: f64,
        /// The allowed values, e.g. `"-1 or +1"`.
        expected: &'static str,
    },
    /// A parameter outside its valid range.
    #[error("invalid parameter `{name}` = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Given value, formatted.
        value: String,
        /// Description of the valid range, e.g. `">= 1"`.
        expected: &'static str,
    },
    /// Exact enumeration was asked for a problem that is too large.
    #[error(
        "exact enumeration supports n <= {max} variables, found n = {n}; use the mixing method \
         (`solve`) for larger problems"
    )]
    TooLargeForExact {
        /// Number of variables given.
        n: usize,
        /// The largest supported number of variables.
        max: usize,
    },
    /// A computation produced a non-finite value (the input is finite but too large in
    /// magnitude, so products overflow).
    #[error("numerical failure in {context}: {message}; rescale the input")]
    Numerical {
        /// Which routine.
        context: &'static str,
        /// What happened.
        message: String,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = MaxcutError> = std::result::Result<T, E>;
