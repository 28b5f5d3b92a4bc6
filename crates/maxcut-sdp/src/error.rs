//! The error type of `maxcut-sdp`.

/// Everything that can go wrong in `maxcut-sdp`.
///
/// Every public entry point validates its input and returns one of these instead of
/// panicking. Variants carry the offending value or shapes; the messages say how to fix
/// the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MaxcutError {
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
    /// Exact enumeration (up to [`crate::MAX_EXACT_N`] variables) or the dense dual bound
    /// (up to [`crate::MAX_DUAL_BOUND_N`], of [`crate::Problem::dual_bound`] and of a fit
    /// with [`crate::MixingParams::certify`] on) was asked for a problem that is too large.
    #[error(
        "n = {n} is above {max}, the largest n of this exact computation (exact enumeration, or \
         the dense dual bound of `Problem::dual_bound` and `MixingParams::certify`); for larger \
         problems use the mixing method (`MixingParams` for a `Problem`, `BqpParams` for a \
         `BooleanQp`) without `certify`"
    )]
    TooLargeForExact {
        /// Number of variables given.
        n: usize,
        /// The largest supported number of variables.
        max: usize,
    },
    /// A sweep order ([`crate::SweepOrder`]) that did not leave a permutation of
    /// `0..n`.
    #[error(
        "sweep order `{order}` is not a permutation of 0..{n} at sweep {sweep}: entry {index} \
         is {value} (out of range or repeated)"
    )]
    InvalidSweepOrder {
        /// The order's name.
        order: String,
        /// The sweep (1-based, counted from the start of the [`crate::Mixing`]).
        sweep: usize,
        /// The number of coordinates.
        n: usize,
        /// Position of the first offending entry.
        index: usize,
        /// The offending entry.
        value: usize,
    },
    /// An error shared with the rest of the workspace: empty input, non-finite value,
    /// shape mismatch, invalid parameter, numerical failure.
    #[error(transparent)]
    Core(#[from] bl_core::BlError),
}

/// Shorthand for results of this crate.
pub type Result<T, E = MaxcutError> = std::result::Result<T, E>;

/// [`BlError::Empty`](bl_core::BlError::Empty) as a [`MaxcutError`].
pub(crate) fn empty(what: &'static str) -> MaxcutError {
    bl_core::BlError::Empty { what }.into()
}
