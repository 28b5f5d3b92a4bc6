//! The corpus readers: CoNLL columns (any label column), `word/TAG` lines, `char/tag` lines
//! and segmented words. Every reader has a `read_*` form (a file) and a `parse_*` form (its
//! text and a name for error messages).

use std::path::Path;

use bl_core::error::build::invalid;
use bl_core::limits::quote;

use super::{Corpus, Sentence, check_names, words_to_bmes};
use crate::error::{OblError, Result};

/// The file as text, without a byte-order mark at its start (an encoding mark of the
/// file, not text: only the `read_*` readers skip it, the `parse_*` readers keep a leading
/// U+FEFF as part of the first token, so that a corpus written by
/// [`Corpus::to_conll_string`] parses back as it was); a byte that is not UTF-8 is a parse
/// error naming its line.
fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(bl_core::error::io_error(path))?;
    match bl_core::io::text::decode_utf8(&bytes) {
        Ok(_) => {
            let mut text = String::from_utf8(bytes).unwrap_or_default();
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            Ok(text)
        }
        Err(e) => Err(parse_error(path, e.line, e.to_string())),
    }
}

/// [`bl_core::BlError::Parse`] at a 1-based line.
fn parse_error(source: &Path, line: usize, message: String) -> OblError {
    OblError::Core(bl_core::BlError::Parse {
        path: source.to_path_buf(),
        line,
        message,
    })
}

/// The non-blank lines ended by `\n`, `\r\n` or a lone `\r`, with their 1-based numbers
/// (blank lines are `None`: they separate CoNLL sentences).
fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, Option<&str>)> {
    bl_core::io::text::lines(text)
        .enumerate()
        .map(|(i, line)| (i + 1, (!line.trim().is_empty()).then_some(line)))
}

/// A corpus of the sentences read, or [`bl_core::BlError::Empty`].
fn non_empty(sentences: Vec<Sentence>) -> Result<Corpus> {
    if sentences.is_empty() {
        return Err(OblError::Core(bl_core::BlError::Empty {
            what: "input corpus",
        }));
    }
    Ok(Corpus::new(sentences))
}

/// Reads a CoNLL-style column file: see [`parse_conll`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8;
/// and those of [`parse_conll`].
pub fn read_conll(path: impl AsRef<Path>) -> Result<Corpus> {
    ConllFormat::new().read(path)
}

/// Parses CoNLL-style column text: one token per line with whitespace-separated columns,
/// observations first and the tag last; blank lines separate sentences. Every token line of
/// the file must have the same number of columns (at least two). Lines whose first column
/// is `-DOCSTART-` are skipped. [`ConllFormat`] reads other layouts (a label column elsewhere,
/// named columns).
///
/// `source` names the input in error messages.
///
/// # Errors
/// [`OblError::MissingColumns`] at the first line whose column count differs from the first
/// token line's, or that has a single column (when every item of that line reads as
/// `word/TAG` or `word_TAG`, its message says to read the file with [`read_word_tagged`]);
/// [`bl_core::BlError::Empty`] when there is no token.
pub fn parse_conll(text: &str, source: impl AsRef<Path>) -> Result<Corpus> {
    ConllFormat::new().parse(text, source)
}

/// Which column of a CoNLL file holds the tag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum LabelColumn {
    /// The last column (the CoNLL-2000 layout).
    #[default]
    Last,
    /// The 0-based column.
    Index(usize),
    /// The column of this name (names from [`ConllFormat::columns`] or a header line).
    Named(String),
}

/// A CoNLL column layout: any number of whitespace-separated columns, one of them the tag
/// and the others observation columns (kept in file order). Columns may be named by the
/// reader ([`columns`](Self::columns)) or by a header line ([`header`](Self::header)); the
/// corpus read then carries the observation columns' names
/// ([`Corpus::column_names`]).
///
/// ```
/// use online_bilinear::{ConllFormat, LabelColumn};
/// let text = "Confidence NN B-NP O\nin IN B-PP O\n";
/// let corpus = ConllFormat::new()
///     .columns(&["word", "pos", "chunk", "ne"])
///     .label(LabelColumn::Named("chunk".into()))
///     .parse(text, "<input>")?;
/// assert_eq!(corpus.column_names(), ["word", "pos", "ne"]);
/// assert_eq!(corpus.sentences()[0].tags(), ["B-NP", "B-PP"]);
/// # Ok::<(), online_bilinear::OblError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConllFormat {
    names: Vec<String>,
    header: bool,
    label: LabelColumn,
}

impl ConllFormat {
    /// The CoNLL-2000 layout: unnamed columns, the tag last, no header.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names every column of a header-less file, the tag column included (e.g.
    /// `["word", "pos", "chunk"]`); every token line must then have that many columns.
    pub fn columns<S: AsRef<str>>(mut self, names: &[S]) -> Self {
        self.names = names.iter().map(|n| n.as_ref().to_string()).collect();
        self
    }

    /// Whether the first token line names the columns (default: no).
    pub fn header(mut self, header: bool) -> Self {
        self.header = header;
        self
    }

    /// The tag column (default: the last).
    pub fn label(mut self, label: LabelColumn) -> Self {
        self.label = label;
        self
    }

    /// Reads a file of this layout: see [`parse`](Self::parse).
    ///
    /// # Errors
    /// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not
    /// UTF-8; and those of [`parse`](Self::parse).
    pub fn read(&self, path: impl AsRef<Path>) -> Result<Corpus> {
        let path = path.as_ref();
        self.parse(&read_text(path)?, path)
    }

    /// Parses text of this layout: one token per line, blank lines between sentences,
    /// lines whose first column is `-DOCSTART-` skipped. `source` names the input in error messages.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for options
    /// that contradict each other (names and a header; a named label without names; a
    /// label name or index outside the names; empty or repeated names);
    /// [`OblError::MissingColumns`] at the first token line whose column count differs
    /// from the names' or the first token line's, or is below two (with a hint to
    /// [`read_word_tagged`] when the line reads as `word/TAG` items);
    /// [`bl_core::BlError::Parse`] at a header line with repeated names, without the
    /// label's name or with no column at the label's index, and at the first token line
    /// when the label's index is beyond its columns; [`bl_core::BlError::Empty`] when
    /// there is no token.
    pub fn parse(&self, text: &str, source: impl AsRef<Path>) -> Result<Corpus> {
        let source = source.as_ref();
        self.check()?;
        let mut names = self.names.clone();
        let mut layout: Option<(usize, usize)> = None; // (width, label index)
        let mut sentences = Vec::new();
        let (mut columns, mut tags): (Vec<Vec<String>>, Vec<String>) = (Vec::new(), Vec::new());
        let mut fields: Vec<&str> = Vec::new();
        for (line_no, line) in numbered_lines(text) {
            let Some(line) = line else {
                if !tags.is_empty() {
                    sentences.push(Sentence {
                        columns: std::mem::take(&mut columns),
                        tags: std::mem::take(&mut tags),
                    });
                }
                continue;
            };
            fields.clear();
            fields.extend(line.split_whitespace());
            if fields[0] == "-DOCSTART-" {
                continue;
            }
            if self.header && names.is_empty() {
                names = fields.iter().map(|f| (*f).to_string()).collect();
                self.label_index(&names, names.len())
                    .and_then(|_| check_names("header", &names))
                    .map_err(|e| parse_error(source, line_no, e.to_string()))?;
                continue;
            }
            let (width, label) = match layout {
                Some(layout) => layout,
                None => {
                    let width = if names.is_empty() {
                        fields.len()
                    } else {
                        names.len()
                    };
                    let label = self.label_index(&names, width).map_err(|_| {
                        parse_error(
                            source,
                            line_no,
                            format!(
                                "the label is column {} but the lines have {width} columns",
                                self.label_quote()
                            ),
                        )
                    })?;
                    *layout.insert((width, label))
                }
            };
            if fields.len() != width || fields.len() < 2 {
                return Err(OblError::MissingColumns {
                    path: source.to_path_buf(),
                    line: line_no,
                    expected: width.max(2),
                    found: fields.len(),
                    hint: word_tagged_hint(&fields),
                });
            }
            if columns.is_empty() {
                columns = vec![Vec::new(); width - 1];
            }
            let observations = fields.iter().enumerate().filter(|&(c, _)| c != label);
            for (column, (_, field)) in columns.iter_mut().zip(observations) {
                column.push((*field).to_string());
            }
            tags.push(fields[label].to_string());
        }
        if !tags.is_empty() {
            sentences.push(Sentence { columns, tags });
        }
        let corpus = non_empty(sentences)?;
        match layout {
            Some((_, label)) if !names.is_empty() => {
                names.remove(label);
                corpus.with_column_names(&names)
            }
            _ => Ok(corpus),
        }
    }

    /// The options alone are consistent.
    fn check(&self) -> Result<()> {
        if self.header && !self.names.is_empty() {
            return Err(invalid(
                "ConllFormat",
                "columns and header",
                "column names from either the reader or a header line, not both",
            ));
        }
        if !self.names.is_empty() {
            check_names("column names", &self.names)?;
            self.label_index(&self.names, self.names.len())?;
        } else if matches!(self.label, LabelColumn::Named(_)) && !self.header {
            return Err(invalid(
                "label",
                self.label_quote(),
                "a named label column needs column names or a header line",
            ));
        }
        Ok(())
    }

    /// The 0-based label column of lines of `width` columns named `names` (or unnamed).
    fn label_index(&self, names: &[String], width: usize) -> Result<usize> {
        let index = match &self.label {
            LabelColumn::Last => width.checked_sub(1),
            LabelColumn::Index(i) => (*i < width).then_some(*i),
            LabelColumn::Named(name) => names.iter().position(|n| n == name),
        };
        index.ok_or_else(|| {
            let columns = if names.is_empty() {
                String::new()
            } else {
                format!(" {}", crate::error::preview(names))
            };
            invalid(
                "label",
                self.label_quote(),
                format!("one of the {width} columns{columns}"),
            )
        })
    }

    /// The label column for a message: a name quoted by [`quote`] (bounded), an index, or
    /// `Last`.
    fn label_quote(&self) -> String {
        match &self.label {
            LabelColumn::Last => "Last".to_string(),
            LabelColumn::Index(i) => format!("Index({i})"),
            LabelColumn::Named(name) => format!("Named({})", quote(name)),
        }
    }
}

/// The separators [`word_tagged_hint`] tries, in order.
const WORD_TAG_SEPARATORS: [char; 2] = ['/', '_'];

/// The hint of a line that breaks the column layout ([`OblError::MissingColumns`]) when it
/// reads as whitespace-separated `word/TAG` items: for `/` or else `_`, every item splits
/// at its last separator into a non-empty word and a non-empty tag. Empty otherwise.
fn word_tagged_hint(fields: &[&str]) -> String {
    let splits = |separator: char| {
        fields.iter().all(|item| {
            item.rfind(separator)
                .is_some_and(|at| at > 0 && at + separator.len_utf8() < item.len())
        })
    };
    match WORD_TAG_SEPARATORS.into_iter().find(|&s| splits(s)) {
        Some(separator) => format!(
            "; the line looks like space-separated word{separator}TAG items (one sentence per \
             line): read the file with read_word_tagged(path, {separator:?})"
        ),
        None => String::new(),
    }
}

/// Parses one sentence per line of whitespace-separated `token<separator>tag` items, the
/// split at the last separator; `tag` checks (and may rewrite) each tag or says what is
/// wrong with it. Blank lines are skipped.
fn parse_tagged_items(
    text: &str,
    separator: char,
    source: &Path,
    tag: impl Fn(&str) -> std::result::Result<String, String>,
) -> Result<Corpus> {
    let mut sentences = Vec::new();
    for (line_no, line) in numbered_lines(text) {
        let Some(line) = line else { continue };
        let (mut tokens, mut tags) = (Vec::new(), Vec::new());
        for (index, item) in line.split_whitespace().enumerate() {
            // Messages quote a bounded prefix of the item ([`quote`]) and its 1-based
            // place on the line, never the whole item.
            let error = |message: String| {
                parse_error(
                    source,
                    line_no,
                    format!("item {} ({}): {message}", index + 1, quote(item)),
                )
            };
            let Some(at) = item.rfind(separator) else {
                return Err(error(format!(
                    "no {separator:?}: write each token as `token{separator}tag`"
                )));
            };
            let (token, item_tag) = (&item[..at], &item[at + separator.len_utf8()..]);
            if token.is_empty() {
                return Err(error(format!("an empty token before {separator:?}")));
            }
            tokens.push(token.to_string());
            tags.push(tag(item_tag).map_err(error)?);
        }
        sentences.push(Sentence {
            columns: vec![tokens],
            tags,
        });
    }
    non_empty(sentences)
}

/// Reads a `word/TAG` corpus: see [`parse_word_tagged`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8;
/// and those of [`parse_word_tagged`].
pub fn read_word_tagged(path: impl AsRef<Path>, separator: char) -> Result<Corpus> {
    let path = path.as_ref();
    parse_word_tagged(&read_text(path)?, separator, path)
}

/// Parses one sentence per line of whitespace-separated `word<separator>TAG` items (e.g.
/// `The/DT` with `'/'`, `The_DT` with `'_'`): the split is at the last separator, so
/// `1/2/CD` is the word `1/2` tagged `CD`. Tags are kept as written. Blank lines are
/// skipped. The corpus has one observation column, the words.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a whitespace
/// separator; [`bl_core::BlError::Parse`] with the line number for an item without the
/// separator, with an empty word or an empty tag; [`bl_core::BlError::Empty`] when there is
/// no sentence.
pub fn parse_word_tagged(text: &str, separator: char, source: impl AsRef<Path>) -> Result<Corpus> {
    if separator.is_whitespace() {
        return Err(invalid(
            "separator",
            format!("{separator:?}"),
            "a character that is not whitespace",
        ));
    }
    parse_tagged_items(text, separator, source.as_ref(), |tag| {
        if tag.is_empty() {
            Err(format!("an empty tag after {separator:?}"))
        } else {
            Ok(tag.to_string())
        }
    })
}

/// Reads a `char/tag` segmented corpus: see [`parse_char_tagged`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8;
/// and those of [`parse_char_tagged`].
pub fn read_char_tagged(path: impl AsRef<Path>) -> Result<Corpus> {
    let path = path.as_ref();
    parse_char_tagged(&read_text(path)?, path)
}

/// Parses one sentence per line of whitespace-separated `token/tag` items with tags
/// `b`, `m`, `e`, `s` (upper case is accepted and lower-cased). The split is at the last
/// `/`, so `//s` is the character `/` tagged `s`. Blank lines are skipped.
///
/// # Errors
/// [`bl_core::BlError::Parse`] with the line number for an item without `/`, with an empty
/// token, or with a tag other than b/m/e/s; [`bl_core::BlError::Empty`] when there is no
/// sentence.
pub fn parse_char_tagged(text: &str, source: impl AsRef<Path>) -> Result<Corpus> {
    parse_tagged_items(text, '/', source.as_ref(), |tag| {
        // Checked before any copy: a wrong tag of any length costs nothing to refuse.
        match tag {
            "b" | "m" | "e" | "s" | "B" | "M" | "E" | "S" => Ok(tag.to_ascii_lowercase()),
            _ => Err(format!(
                "tag {}: segmentation tags are b, m, e, s",
                quote(tag)
            )),
        }
    })
}

/// Reads a word-segmented corpus: see [`parse_segmented_words`].
///
/// # Errors
/// I/O errors; [`bl_core::BlError::Parse`] at the line of the first byte that is not UTF-8;
/// and those of [`parse_segmented_words`].
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
    let sentences = numbered_lines(text)
        .filter_map(|(_, line)| line)
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence {
                columns: vec![chars],
                tags,
            }
        })
        .collect();
    non_empty(sentences)
}
