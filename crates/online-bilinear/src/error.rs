//! The error type of `online-bilinear`.

use std::path::PathBuf;

/// Everything that can go wrong in `online-bilinear`.
///
/// Variants carry the offending value, file and line, so the message says how to fix the
/// input. Errors of the shared numerical floor come in through [`crate::OblError::Core`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OblError {
    /// An error of `bl-core` (shapes, parameters, numerics, files that cannot be read or
    /// written).
    #[error(transparent)]
    Core(#[from] bl_core::BlError),
    /// A token line of a column file with another number of columns than the layout's
    /// (the column names', else the first token line's), or with fewer than two.
    #[error(
        "{path}:{line}: expected {expected} whitespace-separated columns (observations then the tag), found {found}{hint}"
    )]
    MissingColumns {
        /// The file (or `"<input>"`).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// Number of columns every token line must have: the number of column names
        /// when the reader names them, else that of the first token line; at least 2.
        expected: usize,
        /// Number of columns on this line.
        found: usize,
        /// Empty, or what the line looks like and which reader fits it (starting with
        /// `"; "`), e.g. `"; the line looks like space-separated word/TAG items (one
        /// sentence per line): read the file with read_word_tagged(path, '/')"`.
        hint: String,
    },
    /// A corpus with named columns that lacks, at the place the templates read, a column
    /// the templates name (e.g. `pos` for [`crate::Templates::chunking`]).
    #[error(
        "the templates read observation column {index} as `{name}`, but the corpus's observation columns are {}: name or reorder the columns, or use templates that do not read it",
        preview(.columns)
    )]
    MissingColumn {
        /// The column's name in the templates.
        name: String,
        /// The 0-based observation column the templates read.
        index: usize,
        /// The corpus's observation column names.
        columns: Vec<String>,
    },
    /// A sentence whose tokens have fewer observation columns than the feature templates
    /// read.
    #[error(
        "sentence {sentence}, token {token}: has {found} observation column(s), the templates read column {needed} ({column}): give the corpus that column (e.g. a part-of-speech column for `Templates::chunking`) or use templates that do not read it (e.g. `Templates::word_only`)"
    )]
    TooFewColumns {
        /// The missing column as the templates name it (`` `pos` ``), or `"unnamed"`.
        column: String,
        /// 0-based sentence index.
        sentence: usize,
        /// 0-based token index.
        token: usize,
        /// Number of observation columns the token has.
        found: usize,
        /// The 0-based column a template reads.
        needed: usize,
    },
    /// A gold tag that the fitted model has never seen.
    #[error(
        "sentence {sentence}, token {token}: tag {} is not in the model's tag set {}",
        bl_core::limits::quote(.tag),
        preview(.known)
    )]
    UnknownTag {
        /// 0-based sentence index.
        sentence: usize,
        /// 0-based token index.
        token: usize,
        /// The unknown tag.
        tag: String,
        /// The tags the model knows.
        known: Vec<String>,
    },
    /// An attribute of attribute data (a [`chain_crf::Dataset`] or [`chain_crf::Items`])
    /// whose value is neither 1 nor 0: the tagger's features are binary.
    #[error(
        "sequence {sequence}, position {position}: attribute {} has the value {value}; the tagger's learners (bol, bcd, sp, crf-l2, crf-l1) take binary attributes: value 1 (active) or 0 (absent); use chain-crf's trainers for real values, or make the attribute binary",
        bl_core::limits::quote(.attribute)
    )]
    NonBinaryAttribute {
        /// 0-based sequence index.
        sequence: usize,
        /// 0-based item (position) index.
        position: usize,
        /// The attribute's name.
        attribute: String,
        /// Its value at that position (the sum of its values when given twice).
        value: f64,
    },
    /// A sentence whose observation and tag sequences differ in length.
    #[error("sentence {sentence}: {observations} observation rows but {tags} tags")]
    RaggedSentence {
        /// 0-based sentence index.
        sentence: usize,
        /// Number of tokens in an observation column.
        observations: usize,
        /// Number of tags.
        tags: usize,
    },
    /// A learner broke its contract ([`crate::learner::OnlineLearner`]): the
    /// check of [`crate::conformance`] it fails, or a snapshot of the wrong size
    /// given to a fit.
    #[error("online learner fails check `{check}`: {message}")]
    Learner {
        /// The check's name.
        check: &'static str,
        /// What was found.
        message: String,
    },
    /// A saved model, or the feature counts, plan or weights of [`crate::distributed`],
    /// could not be encoded or decoded (or failed a check when read).
    #[error("model serialization: {0}")]
    Serde(String),
}

/// Shorthand for results of this crate.
pub type Result<T, E = OblError> = std::result::Result<T, E>;

/// How many items of a list an error message quotes ([`preview`]).
const PREVIEW_ITEMS: usize = 4;

/// A list for an error message, bounded whatever its length: its first [`PREVIEW_ITEMS`]
/// items, each quoted by [`bl_core::limits::quote`], then how many there are in all.
pub(crate) fn preview(items: &[String]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(PREVIEW_ITEMS)
        .map(|item| bl_core::limits::quote(item))
        .collect();
    if items.len() <= PREVIEW_ITEMS {
        format!("[{}]", shown.join(", "))
    } else {
        format!("[{}, ...] ({} in all)", shown.join(", "), items.len())
    }
}

/// The shared constructors of [`bl_core::error::build`], under the names this crate's
/// modules use.
pub(crate) use bl_core::error::build::{invalid, shape_mismatch as shape};
