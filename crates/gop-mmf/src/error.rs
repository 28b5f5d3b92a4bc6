//! The error type of `gop-mmf`.

/// Everything that can go wrong in a GOP fit.
///
/// Lower-level errors come in through `#[from]`: input checks of `bl-core` and LP failures
/// of `lp-backend` (the LP's context names the node and cell).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GopError {
    /// An input check failed (non-finite data, empty data, shapes).
    #[error(transparent)]
    Input(#[from] bl_core::BlError),
    /// An LP could not be solved.
    #[error("LP failure: {0}")]
    Lp(#[from] lp_backend::LpError),
    /// A hyperparameter is outside its valid range.
    #[error("invalid parameter `{name}` = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The given value, formatted.
        value: String,
        /// The valid range.
        expected: &'static str,
    },
    /// Two shapes that must agree do not.
    #[error("shape mismatch for {what}: expected {expected}, found {found}")]
    ShapeMismatch {
        /// Which input.
        what: &'static str,
        /// Expected shape, e.g. `"3 x 2"`.
        expected: String,
        /// Given shape.
        found: String,
    },
    /// The exact primal solver found no KKT point (numerically degenerate data).
    #[error(
        "primal of sample {sample} has no KKT point within tolerance (violation {violation:.3e})"
    )]
    Primal {
        /// The sample (column of `y`).
        sample: usize,
        /// Smallest KKT violation found.
        violation: f64,
    },
    /// The worker thread pool could not be built.
    #[error("could not build a thread pool with {threads} threads: {message}")]
    ThreadPool {
        /// Requested threads.
        threads: usize,
        /// The error.
        message: String,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = GopError> = std::result::Result<T, E>;
