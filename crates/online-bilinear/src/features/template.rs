//! [`Template`] (what one feature reads around a position) and [`Templates`] (a checked,
//! ordered list of them, with the names of the columns they read).

use std::fmt;

use bl_core::error::build::invalid;
use serde::{Deserialize, Serialize};

use super::transform::{Transform, TransformChain};
use crate::error::{OblError, Result};

/// Largest observation column a template may read.
pub const MAX_TEMPLATE_COLUMN: usize = 1 << 10;
/// Largest distance from the current position a template may read.
pub const MAX_TEMPLATE_OFFSET: isize = 1 << 16;

/// One feature template. Its [name](#impl-Display-for-Template) (`c0[-1]|c0[0]`,
/// `c0[0].lower.suffix3`) says what it reads; its features are told apart from other
/// templates' by its place in the [`Templates`] list (see [`crate::features`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Template {
    /// A constant feature active at every position (it carries the label-transition bias).
    Bias,
    /// The observation of `column` at `i + offset`.
    Unigram {
        /// Observation column (0 = characters or words, 1 = part of speech, ...).
        column: usize,
        /// Relative position.
        offset: isize,
    },
    /// The pair of observations of `column` at `i + first` and `i + second`.
    Bigram {
        /// Observation column.
        column: usize,
        /// First relative position.
        first: isize,
        /// Second relative position.
        second: isize,
    },
    /// A transform of the observation of `column` at `i + offset` (its lower case, a
    /// prefix, its shape, the suffix of its lower case, ...), so that a word-only corpus
    /// needs no preprocessing. Positions outside the sentence read a padding symbol,
    /// untransformed.
    Transformed {
        /// Observation column.
        column: usize,
        /// Relative position.
        offset: isize,
        /// What is read of the observation: one [`Transform`] (`Transform::Lowercase.into()`)
        /// or several in order ([`Transform::then`]).
        transform: TransformChain,
    },
    /// The pair of the same transform of the observations of `column` at `i + first` and
    /// `i + second` (e.g. the lower-cased words at `i - 1` and `i`).
    TransformedBigram {
        /// Observation column.
        column: usize,
        /// First relative position.
        first: isize,
        /// Second relative position.
        second: isize,
        /// What is read of both observations.
        transform: TransformChain,
    },
}

impl Template {
    /// [`Template::Unigram`].
    pub fn unigram(column: usize, offset: isize) -> Self {
        Template::Unigram { column, offset }
    }

    /// [`Template::Bigram`].
    pub fn bigram(column: usize, first: isize, second: isize) -> Self {
        Template::Bigram {
            column,
            first,
            second,
        }
    }

    /// [`Template::Transformed`] of one transform or a chain:
    /// `Template::transformed(0, 0, Transform::Lowercase.then(Transform::Suffix(3)))`.
    pub fn transformed(column: usize, offset: isize, transform: impl Into<TransformChain>) -> Self {
        Template::Transformed {
            column,
            offset,
            transform: transform.into(),
        }
    }

    /// [`Template::TransformedBigram`] of one transform or a chain:
    /// `Template::transformed_bigram(0, -1, 0, Transform::Lowercase)`.
    pub fn transformed_bigram(
        column: usize,
        first: isize,
        second: isize,
        transform: impl Into<TransformChain>,
    ) -> Self {
        Template::TransformedBigram {
            column,
            first,
            second,
            transform: transform.into(),
        }
    }

    /// The column read, if any.
    pub(super) fn column(&self) -> Option<usize> {
        match *self {
            Template::Bias => None,
            Template::Unigram { column, .. }
            | Template::Bigram { column, .. }
            | Template::Transformed { column, .. }
            | Template::TransformedBigram { column, .. } => Some(column),
        }
    }

    /// The relative positions read: the first, and the second of a bigram (the bias
    /// reads none, and has `(0, None)`).
    pub(super) fn positions(&self) -> (isize, Option<isize>) {
        match *self {
            Template::Bias => (0, None),
            Template::Unigram { offset, .. } | Template::Transformed { offset, .. } => {
                (offset, None)
            }
            Template::Bigram { first, second, .. }
            | Template::TransformedBigram { first, second, .. } => (first, Some(second)),
        }
    }

    /// The transform read, if any.
    pub(super) fn transform(&self) -> Option<&TransformChain> {
        match self {
            Template::Transformed { transform, .. }
            | Template::TransformedBigram { transform, .. } => Some(transform),
            _ => None,
        }
    }

    fn check(&self) -> Result<()> {
        if let Some(transform) = self.transform() {
            transform.check()?;
        }
        if let Some(column) = self.column()
            && column > MAX_TEMPLATE_COLUMN
        {
            return Err(invalid("template column", column, "at most 1024"));
        }
        let (first, second) = self.positions();
        if let Some(offset) = [Some(first), second]
            .into_iter()
            .flatten()
            .find(|o| o.unsigned_abs() > MAX_TEMPLATE_OFFSET.unsigned_abs())
        {
            return Err(invalid(
                "template offset",
                offset,
                "within -65536 ..= 65536",
            ));
        }
        Ok(())
    }
}

/// The stable, human-readable name of a template: `bias`; `c{column}[{offset}]` for an
/// observation; a transform's name after a dot (`c0[0].lower.suffix3`); two observations
/// joined by `|` (`c0[-1]|c0[0]`, `c0[-1].lower|c0[0].lower`). Distinct templates have
/// distinct names.
impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(column) = self.column() else {
            return f.write_str("bias");
        };
        let at = |f: &mut fmt::Formatter<'_>, offset| {
            write!(f, "c{column}[{offset}]")?;
            self.transform().map_or(Ok(()), |t| write!(f, ".{t}"))
        };
        let (first, second) = self.positions();
        at(f, first)?;
        if let Some(second) = second {
            f.write_str("|")?;
            at(f, second)?;
        }
        Ok(())
    }
}

/// An ordered list of templates (non-empty, columns at most [`MAX_TEMPLATE_COLUMN`],
/// offsets within `±`[`MAX_TEMPLATE_OFFSET`], transform chains valid; a saved list is
/// checked when read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawTemplates")]
pub struct Templates {
    pub(super) list: Vec<Template>,
    /// What the templates call each observation column (`""`: any column).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) column_names: Vec<String>,
}

/// The serialized form of [`Templates`], checked by [`Templates::new`] on the way in.
#[derive(Deserialize)]
struct RawTemplates {
    list: Vec<Template>,
    #[serde(default)]
    column_names: Vec<String>,
}

impl TryFrom<RawTemplates> for Templates {
    type Error = OblError;

    fn try_from(raw: RawTemplates) -> Result<Self> {
        Templates::new(raw.list)?.with_column_names(&raw.column_names)
    }
}

impl Templates {
    /// Templates from a list.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the list
    /// is empty, a column exceeds [`MAX_TEMPLATE_COLUMN`], an offset lies outside
    /// `±`[`MAX_TEMPLATE_OFFSET`], or a transform chain has more than
    /// [`MAX_CHAIN`](super::MAX_CHAIN) steps or an affix length outside `1 ..=`
    /// [`MAX_AFFIX`](super::MAX_AFFIX).
    pub fn new(list: Vec<Template>) -> Result<Self> {
        if list.is_empty() {
            return Err(invalid("templates", "[]", "at least one template"));
        }
        list.iter().try_for_each(Template::check)?;
        Ok(Self {
            list,
            column_names: Vec::new(),
        })
    }

    /// A preset's list (known valid).
    pub(super) fn preset(list: Vec<Template>, column_names: Vec<String>) -> Self {
        debug_assert!(list.iter().all(|t| t.check().is_ok()));
        Self { list, column_names }
    }

    /// The same templates naming the observation columns they read (`""`: any column),
    /// e.g. `["", "pos"]` for templates whose column 1 must be a part of speech. A corpus
    /// with named columns ([`crate::Corpus::with_column_names`], [`crate::ConllFormat`])
    /// must then have these names at these places (case-insensitive); a corpus without
    /// names must have the columns. Both are checked when features are built or encoded.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when there are
    /// more names than [`columns_needed`](Self::columns_needed) or a name repeats.
    pub fn with_column_names<S: AsRef<str>>(mut self, names: &[S]) -> Result<Self> {
        let names: Vec<String> = names.iter().map(|n| n.as_ref().to_string()).collect();
        if names.len() > self.columns_needed() {
            return Err(invalid(
                "template column names",
                crate::error::preview(&names),
                format!("at most one per column read ({})", self.columns_needed()),
            ));
        }
        let named: Vec<String> = names.iter().filter(|n| !n.is_empty()).cloned().collect();
        crate::data::check_names("template column names", &named)?;
        self.column_names = names;
        Ok(self)
    }

    /// The same templates with [`Template::Bias`] first, unless they have it already (then
    /// unchanged): the feature that carries the label transitions with `transitions_only`
    /// ([`crate::TaggerParams`]). The column names are kept.
    #[must_use]
    pub fn with_bias(mut self) -> Self {
        if !self.list.contains(&Template::Bias) {
            self.list.insert(0, Template::Bias);
        }
        self
    }

    /// What the templates call each observation column (`""` or absent: any column).
    pub fn column_names(&self) -> &[String] {
        &self.column_names
    }

    /// The templates.
    pub fn as_slice(&self) -> &[Template] {
        &self.list
    }

    /// The templates' names ([`Template`'s `Display`](Template#impl-Display-for-Template)),
    /// in order: `["bias", "c0[-2]", ...]`.
    pub fn names(&self) -> Vec<String> {
        self.list.iter().map(Template::to_string).collect()
    }

    /// Number of observation columns a sentence needs (`1 +` the largest column read).
    pub fn columns_needed(&self) -> usize {
        self.list
            .iter()
            .filter_map(Template::column)
            .max()
            .map_or(0, |c| c + 1)
    }

    /// Whether some template is [`Template::Bias`].
    pub fn has_bias(&self) -> bool {
        self.list.contains(&Template::Bias)
    }
}

/// For the presets: a [`Template::Transformed`] of column 0.
pub(super) fn derived(offset: isize, transform: impl Into<TransformChain>) -> Template {
    Template::transformed(0, offset, transform)
}

/// For the presets: the lower case followed by `step`.
pub(super) fn lower_then(step: Transform) -> TransformChain {
    Transform::Lowercase.then(step)
}
