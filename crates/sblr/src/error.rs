//! The error type of `sblr`.

use bl_core::BlError;

/// Everything that can go wrong when fitting or using an `sblr` model.
///
/// Variants carry the offending value or shapes, and the message says how to fix the
/// input. Errors from `bl-core` (data sets, file readers, numerical kernels) come in
/// through [`SblrError::Core`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SblrError {
    /// An error from `bl-core` (bad data set, unreadable file, numerical kernel).
    #[error(transparent)]
    Core(#[from] BlError),
    /// A rank outside `1..=min(s, t)`.
    #[error(
        "invalid rank {rank} for samples of shape {s} x {t}: the rank must be in 1..=min(s, t)"
    )]
    InvalidRank {
        /// The rank asked for.
        rank: usize,
        /// Rows of each sample.
        s: usize,
        /// Columns of each sample.
        t: usize,
    },
    /// A class with no training sample (e.g. a binary problem whose samples all share
    /// one label).
    #[error(
        "class {class:?} has no training sample: every class needs at least one sample \
         (drop the class with restrict_to_classes, or add samples)"
    )]
    MissingClass {
        /// Name of the class without samples.
        class: String,
    },
    /// A binary model asked to fit a data set that does not have exactly two classes.
    #[error(
        "expected exactly 2 classes, found {found}: use MultinomialSblr or OneVsAll for more, \
         or MatrixDataset::restrict_to_classes"
    )]
    NotBinary {
        /// Number of classes of the data set.
        found: usize,
    },
    /// A saved model whose fields do not fit together (a factor one entry too long, a rank
    /// that does not match the factors, a non-finite or overflowing weight, fewer than two
    /// class names, ...). Returned by `from_json` and `load` ([`crate::SavedModel`]); the
    /// same checks run when a model is deserialized by any other serde path, whose error
    /// then carries this error's message.
    #[error("invalid saved model {model}: field `{field}`: expected {expected}, found {found}")]
    InvalidModel {
        /// The model type, e.g. `"FittedSblr"`.
        model: &'static str,
        /// The offending field, e.g. `"u"` or `"class_names"`.
        field: &'static str,
        /// What the field must be, e.g. `"8 values (s x rank = 8 x 1)"`.
        expected: String,
        /// What the field is.
        found: String,
    },
    /// A saved model that is not valid JSON of the model's layout (syntax error, missing
    /// or mistyped field, invalid parameters), or a model that cannot be encoded as JSON.
    /// (A file that cannot be read or written is [`SblrError::Core`] with `BlError::Io`.)
    #[error("cannot load {model}: {message}")]
    ModelFormat {
        /// The model type.
        model: &'static str,
        /// What went wrong (the JSON parser's message, with line and column).
        message: String,
    },
    /// Cross-validation (or a grid search) in which every fit failed; carries the first
    /// error.
    #[error("all {fits} cross-validation fits failed; the first (fit {fold}): {first}")]
    AllFoldsFailed {
        /// Number of fits (folds, times candidates for a grid search).
        fits: usize,
        /// Index of the fit whose error is carried (`candidate * folds + fold` for a grid
        /// search).
        fold: usize,
        /// That fit's error.
        first: Box<SblrError>,
    },
    /// A memory budget of a streamed fit below what one block of one sample needs.
    #[error(
        "memory_budget of {budget} bytes is below the {needed} bytes one sample needs \
         ({sample} bytes of samples plus {staging} bytes of read buffer): raise memory_budget"
    )]
    BudgetTooSmall {
        /// The budget given, in bytes.
        budget: usize,
        /// The smallest budget that works: `sample + staging`.
        needed: usize,
        /// Bytes of one sample in memory.
        sample: usize,
        /// Bytes of the file's read buffer.
        staging: usize,
    },
    /// A NaN or infinite entry in a sample read from a file or a chunk.
    #[error("sample {sample} has the non-finite entry {value} at row {row}, column {col}{origin}")]
    NonFiniteSample {
        /// Index of the sample among all samples of the data.
        sample: usize,
        /// Row of the entry in the sample (`0..s`).
        row: usize,
        /// Column of the entry in the sample (`0..t`).
        col: usize,
        /// The entry.
        value: f64,
        /// Where the sample comes from (` of <path>`, ` in chunk <k>`), or empty.
        origin: String,
    },
    /// A grid search with no candidate, or a grid axis with no value.
    #[error("empty grid `{axis}`: give at least one value")]
    EmptyGrid {
        /// The empty axis.
        axis: &'static str,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = SblrError> = std::result::Result<T, E>;

/// `Ok` when a sample shape `found` is `expected`, else a `ShapeMismatch` in `context`
/// showing both as `s x t`.
pub(crate) fn ensure_shape(
    context: &'static str,
    expected: (usize, usize),
    found: (usize, usize),
) -> Result<()> {
    if expected == found {
        return Ok(());
    }
    Err(bl_core::error::build::shape_mismatch(
        context,
        format!("{} x {}", expected.0, expected.1),
        format!("{} x {}", found.0, found.1),
    ))
}

/// `Ok` for a rank in `1..=min(s, t)`, else [`SblrError::InvalidRank`].
pub(crate) fn check_rank(rank: usize, s: usize, t: usize) -> Result<()> {
    if rank == 0 || rank > s.min(t) {
        return Err(SblrError::InvalidRank { rank, s, t });
    }
    Ok(())
}
