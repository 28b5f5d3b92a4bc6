//! The error type of `boolean-tensor`.

/// Everything that can go wrong in `boolean-tensor`.
///
/// Every public entry point validates its input and returns one of these instead of
/// panicking (the plain accessors [`Tensor::get`](crate::Tensor::get) and
/// [`Tensor::is_observed`](crate::Tensor::is_observed) panic on an index out of range,
/// like slice indexing). Variants carry the offending value or shapes; the messages say how to fix
/// the input. The generic errors (invalid parameters, shape mismatches, non-finite values,
/// numerical failures) are [`bl_core::BlError`]s, carried by [`TensorError::Core`]; the
/// variants here are specific to tensors.
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
    /// An entry index outside the shape of a fitted model.
    #[error(
        "entry {position} is {index:?}, outside the shape {shape:?}: every index must be below its mode's length"
    )]
    IndexOutOfBounds {
        /// Position of the entry in the list given.
        position: usize,
        /// The offending index.
        index: [usize; 3],
        /// The shape of the model.
        shape: [usize; 3],
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
