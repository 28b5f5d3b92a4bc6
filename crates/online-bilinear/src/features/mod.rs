//! Feature templates and the feature dictionary.
//!
//! A [`Template`] reads observation columns around position `i`; its value at `i`, prefixed
//! by the template's index, is a feature string such as `"3\u{1}的"`. The
//! [`FeatureDict`] maps the strings seen at least `cutoff` times in the training corpus to
//! dense ids `0..K`; a sentence is encoded once into [`EncodedSentence`] (the active feature
//! ids of each position, CSR layout), which every epoch of every learner then reuses. The
//! learners' parameters are indexed by these ids, so memory grows with the number of kept
//! features, never with the number of possible strings.

use std::collections::HashMap;
use std::fmt::Write as _;

use bl_core::error::build::invalid;
use serde::{Deserialize, Serialize};

use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};

/// One feature template.
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
    /// prefix, its shape, ...), so that a word-only corpus needs no preprocessing.
    Transformed {
        /// Observation column.
        column: usize,
        /// Relative position.
        offset: isize,
        /// What is read of the observation.
        transform: Transform,
    },
}

impl Template {
    fn max_column(&self) -> Option<usize> {
        match *self {
            Template::Bias => None,
            Template::Unigram { column, .. }
            | Template::Bigram { column, .. }
            | Template::Transformed { column, .. } => Some(column),
        }
    }
}

/// Longest prefix or suffix a [`Transform`] may read.
pub const MAX_AFFIX: u8 = 16;

/// What a [`Template::Transformed`] reads of an observation (a word). Character classes
/// are Unicode's (`char::is_uppercase`, `is_lowercase`, `is_numeric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Transform {
    /// The word in lower case (`The` -> `the`).
    Lowercase,
    /// Its first `k` characters (the whole word when it is shorter), `1 <= k <=`
    /// [`MAX_AFFIX`].
    Prefix(u8),
    /// Its last `k` characters (the whole word when it is shorter), `1 <= k <=`
    /// [`MAX_AFFIX`].
    Suffix(u8),
    /// Its shape: upper-case letters as `X`, other letters as `x`, digits as `d`, other
    /// characters as they are (`McDonald's` -> `XxXxxxxx'x`, `1,200` -> `d,ddd`).
    Shape,
    /// Its shape with runs of one symbol collapsed (`McDonald's` -> `XxXx'x`, `1,200` ->
    /// `d,d`).
    ShortShape,
    /// `1` when every character is a digit (`1984`), else `0`.
    IsDigit,
    /// `1` when it has an upper-case letter and no lower-case one (`NASA`, `U.S.`), else
    /// `0` (also for letters without case, such as CJK characters).
    IsUpper,
    /// `1` when it starts with an upper-case letter and has no other upper-case letter
    /// (`London`), else `0`.
    IsTitle,
    /// `1` when it contains `-` (`well-known`), else `0`.
    HasHyphen,
}

impl Transform {
    /// Writes the transform of `word` into `out` (no allocation once `out` has room).
    pub fn write(self, word: &str, out: &mut String) {
        let flag = |out: &mut String, yes: bool| out.push(if yes { '1' } else { '0' });
        match self {
            Transform::Lowercase => out.extend(word.chars().flat_map(char::to_lowercase)),
            Transform::Prefix(k) => out.extend(word.chars().take(usize::from(k))),
            Transform::Suffix(k) => {
                let start = match usize::from(k).checked_sub(1) {
                    Some(back) => word.char_indices().rev().nth(back).map_or(0, |(i, _)| i),
                    None => word.len(),
                };
                out.push_str(&word[start..]);
            }
            Transform::Shape | Transform::ShortShape => {
                let mut last = None;
                for c in word.chars().map(shape_of) {
                    if self == Transform::Shape || last != Some(c) {
                        out.push(c);
                    }
                    last = Some(c);
                }
            }
            Transform::IsDigit => {
                flag(out, !word.is_empty() && word.chars().all(char::is_numeric));
            }
            Transform::IsUpper => flag(
                out,
                word.chars().any(char::is_uppercase) && !word.chars().any(char::is_lowercase),
            ),
            Transform::IsTitle => {
                let mut chars = word.chars();
                let first_upper = chars.next().is_some_and(char::is_uppercase);
                flag(out, first_upper && !chars.any(char::is_uppercase));
            }
            Transform::HasHyphen => flag(out, word.contains('-')),
        }
    }

    fn check(self) -> Result<()> {
        match self {
            Transform::Prefix(k) | Transform::Suffix(k) if k == 0 || k > MAX_AFFIX => {
                Err(invalid("affix length", k, "in 1 ..= 16 (MAX_AFFIX)"))
            }
            _ => Ok(()),
        }
    }
}

/// The shape symbol of one character.
fn shape_of(c: char) -> char {
    if c.is_uppercase() {
        'X'
    } else if c.is_alphabetic() {
        'x'
    } else if c.is_numeric() {
        'd'
    } else {
        c
    }
}

/// Largest observation column a template may read.
pub const MAX_TEMPLATE_COLUMN: usize = 1 << 10;
/// Largest distance from the current position a template may read.
pub const MAX_TEMPLATE_OFFSET: isize = 1 << 16;

/// An ordered list of templates (non-empty, columns at most [`MAX_TEMPLATE_COLUMN`],
/// offsets within `±`[`MAX_TEMPLATE_OFFSET`]; a saved list is checked when read).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawTemplates")]
pub struct Templates {
    list: Vec<Template>,
    /// What the templates call each observation column (`""`: any column).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    column_names: Vec<String>,
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

fn uni(column: usize, offset: isize) -> Template {
    Template::Unigram { column, offset }
}

fn bi(column: usize, first: isize, second: isize) -> Template {
    Template::Bigram {
        column,
        first,
        second,
    }
}

impl Templates {
    /// Templates from a list.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the list is empty, a column exceeds
    /// [`MAX_TEMPLATE_COLUMN`] or an offset lies outside `±`[`MAX_TEMPLATE_OFFSET`].
    pub fn new(list: Vec<Template>) -> Result<Self> {
        if list.is_empty() {
            return Err(invalid("templates", "[]", "at least one template"));
        }
        for template in &list {
            let (column, offsets) = match *template {
                Template::Bias => continue,
                Template::Unigram { column, offset } => (column, [offset, offset]),
                Template::Transformed {
                    column,
                    offset,
                    transform,
                } => {
                    transform.check()?;
                    (column, [offset, offset])
                }
                Template::Bigram {
                    column,
                    first,
                    second,
                } => (column, [first, second]),
            };
            if column > MAX_TEMPLATE_COLUMN {
                return Err(invalid("template column", column, "at most 1024"));
            }
            if let Some(&offset) = offsets
                .iter()
                .find(|o| o.unsigned_abs() > MAX_TEMPLATE_OFFSET.unsigned_abs())
            {
                return Err(invalid(
                    "template offset",
                    offset,
                    "within -65536 ..= 65536",
                ));
            }
        }
        Ok(Self {
            list,
            column_names: Vec::new(),
        })
    }

    /// The same templates naming the observation columns they read (`""`: any column),
    /// e.g. `["", "pos"]` for templates whose column 1 must be a part of speech. A corpus
    /// with named columns ([`Corpus::with_column_names`], [`crate::ConllFormat`]) must
    /// then have these names at these places (case-insensitive); a corpus without names
    /// must have the columns. Both are checked when features are built or encoded.
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

    /// What the templates call each observation column (`""` or absent: any column).
    pub fn column_names(&self) -> &[String] {
        &self.column_names
    }

    /// The paper's segmentation templates (Sec. 6.1: "words at i-2, i-1, i, i+1, i+2 and
    /// bigrams of them", the words being the characters of the input): characters
    /// `C-2 .. C2` and the bigrams `C-2C-1`, `C-1C0`, `C0C1`, `C1C2`, `C-1C1`. Like the
    /// paper's list it has no bias feature (add [`Template::Bias`] with [`Templates::new`]).
    pub fn segmentation() -> Self {
        let mut list: Vec<Template> = (-2..=2).map(|o| uni(0, o)).collect();
        list.extend([
            bi(0, -2, -1),
            bi(0, -1, 0),
            bi(0, 0, 1),
            bi(0, 1, 2),
            bi(0, -1, 1),
        ]);
        Self {
            list,
            column_names: Vec::new(),
        }
    }

    /// Chunking templates over (word, part of speech) columns (the paper lists none for
    /// chunking): words `W-2 .. W2`, word bigrams `W-1W0`, `W0W1`, tags `P-2 .. P2`, tag
    /// bigrams `P-2P-1`, `P-1P0`, `P0P1`, `P1P2`; no bias feature, as in
    /// [`Templates::segmentation`].
    ///
    /// Column 1 is named `pos` ([`Templates::with_column_names`]): a corpus without a
    /// second column is refused with [`OblError::TooFewColumns`] naming it, and one whose
    /// named columns put no `pos` there with [`OblError::MissingColumn`].
    pub fn chunking() -> Self {
        let mut list: Vec<Template> = (-2..=2).map(|o| uni(0, o)).collect();
        list.extend([bi(0, -1, 0), bi(0, 0, 1)]);
        list.extend((-2..=2).map(|o| uni(1, o)));
        list.extend([bi(1, -2, -1), bi(1, -1, 0), bi(1, 0, 1), bi(1, 1, 2)]);
        Self {
            list,
            column_names: vec![String::new(), "pos".to_string()],
        }
    }

    /// Templates for a corpus of words alone (part-of-speech tagging, named entities), the
    /// usual hand-built features of feature-based taggers: a bias; words `W-2 .. W2`;
    /// lower-cased `W-1`, `W0`, `W1`; prefixes and suffixes of 1 to 3 characters of `W0`;
    /// the shape of `W0` and the collapsed shapes of `W-1`, `W0`, `W1`; is-digit,
    /// is-upper, is-title and has-hyphen of `W0`; word bigrams `W-1W0`, `W0W1`. They read
    /// column 0 only.
    pub fn word_only() -> Self {
        let derived = |offset: isize, transform: Transform| Template::Transformed {
            column: 0,
            offset,
            transform,
        };
        let mut list = vec![Template::Bias];
        list.extend((-2..=2).map(|o| uni(0, o)));
        list.extend((-1..=1).map(|o| derived(o, Transform::Lowercase)));
        list.extend((1..=3).map(|k| derived(0, Transform::Prefix(k))));
        list.extend((1..=3).map(|k| derived(0, Transform::Suffix(k))));
        list.push(derived(0, Transform::Shape));
        list.extend((-1..=1).map(|o| derived(o, Transform::ShortShape)));
        list.extend(
            [
                Transform::IsDigit,
                Transform::IsUpper,
                Transform::IsTitle,
                Transform::HasHyphen,
            ]
            .map(|t| derived(0, t)),
        );
        list.extend([bi(0, -1, 0), bi(0, 0, 1)]);
        Self {
            list,
            column_names: Vec::new(),
        }
    }

    /// The templates.
    pub fn as_slice(&self) -> &[Template] {
        &self.list
    }

    /// Number of observation columns a sentence needs (`1 +` the largest column read).
    pub fn columns_needed(&self) -> usize {
        self.list
            .iter()
            .filter_map(Template::max_column)
            .max()
            .map_or(0, |c| c + 1)
    }
}

/// Writes the observation at `i + offset`, transformed (or a padding symbol), into `out`.
fn push_observation(
    out: &mut String,
    column: &[String],
    i: usize,
    offset: isize,
    transform: Option<Transform>,
) {
    let j = i as isize + offset;
    if j < 0 {
        let _ = write!(out, "\u{2}<{}", -j);
    } else if j as usize >= column.len() {
        let _ = write!(out, "\u{2}>{}", j as usize - column.len() + 1);
    } else if let Some(transform) = transform {
        transform.write(&column[j as usize], out);
    } else {
        out.push_str(&column[j as usize]);
    }
}

/// Writes a template index in decimal without the formatting machinery.
fn push_index(out: &mut String, mut t: usize) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (t % 10) as u8;
        n += 1;
        t /= 10;
        if t == 0 {
            break;
        }
    }
    for &d in digits[..n].iter().rev() {
        out.push(d as char);
    }
}

/// Calls `f` with each feature string of position `i`.
fn for_each_feature(
    templates: &Templates,
    sentence: &Sentence,
    i: usize,
    buffer: &mut String,
    mut f: impl FnMut(&str),
) {
    for (t, template) in templates.list.iter().enumerate() {
        buffer.clear();
        push_index(buffer, t);
        buffer.push('\u{1}');
        match *template {
            Template::Bias => {}
            Template::Unigram { column, offset } => {
                push_observation(buffer, &sentence.columns()[column], i, offset, None);
            }
            Template::Transformed {
                column,
                offset,
                transform,
            } => {
                let col = &sentence.columns()[column];
                push_observation(buffer, col, i, offset, Some(transform));
            }
            Template::Bigram {
                column,
                first,
                second,
            } => {
                let col = &sentence.columns()[column];
                push_observation(buffer, col, i, first, None);
                buffer.push('\u{1}');
                push_observation(buffer, col, i, second, None);
            }
        }
        f(buffer);
    }
}

fn check_columns(templates: &Templates, sentence: &Sentence, index: usize) -> Result<()> {
    let needed = templates.columns_needed();
    if sentence.n_columns() < needed && !sentence.is_empty() {
        let column = match templates.column_names.get(needed - 1) {
            Some(name) if !name.is_empty() => format!("`{name}`"),
            _ => "unnamed".to_string(),
        };
        return Err(OblError::TooFewColumns {
            column,
            sentence: index,
            token: 0,
            found: sentence.n_columns(),
            needed: needed - 1,
        });
    }
    Ok(())
}

/// A corpus with named columns has the columns the templates name, at their places.
fn check_column_names(templates: &Templates, corpus: &Corpus) -> Result<()> {
    let have = corpus.column_names();
    if have.is_empty() {
        return Ok(());
    }
    for (c, want) in templates.column_names.iter().enumerate() {
        let found = have.get(c).map_or("", String::as_str);
        if !want.is_empty() && !found.eq_ignore_ascii_case(want) {
            return Err(OblError::MissingColumn {
                name: want.clone(),
                index: c,
                columns: have.to_vec(),
            });
        }
    }
    Ok(())
}

/// The active feature ids of each position of one sentence (CSR layout).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncodedSentence {
    offsets: Vec<u32>,
    features: Vec<u32>,
}

impl EncodedSentence {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the sentence is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Feature ids active at position `i` (`i < len()`).
    pub fn at(&self, i: usize) -> &[u32] {
        &self.features[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Total number of active (position, feature) pairs.
    pub fn n_active(&self) -> usize {
        self.features.len()
    }

    /// A sentence from its CSR parts (for unit tests).
    #[cfg(test)]
    pub(crate) fn from_parts(offsets: Vec<u32>, features: Vec<u32>) -> Self {
        Self { offsets, features }
    }
}

/// The feature dictionary: feature strings seen at least `cutoff` times in the training
/// corpus, numbered `0..len()` in order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureDict {
    templates: Templates,
    cutoff: usize,
    ids: HashMap<String, u32>,
}

impl FeatureDict {
    /// Counts the features of `corpus` and keeps those seen at least `cutoff` times.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`]; [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for `cutoff == 0`;
    /// [`OblError::TooFewColumns`] when a sentence lacks a column a template reads;
    /// [`OblError::MissingColumn`] when the corpus's named columns lack one the templates
    /// name ([`Templates::with_column_names`]);
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when more than `u32::MAX - 1` features are kept.
    pub fn build(corpus: &Corpus, templates: &Templates, cutoff: usize) -> Result<Self> {
        if cutoff == 0 {
            return Err(invalid("cutoff", cutoff, ">= 1"));
        }
        check_column_names(templates, corpus)?;
        if corpus.n_tokens() == 0 {
            return Err(OblError::Core(bl_core::BlError::Empty {
                what: "training corpus",
            }));
        }
        let mut counts: HashMap<String, (u32, u32)> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut buffer = String::new();
        for (si, sentence) in corpus.sentences().iter().enumerate() {
            check_columns(templates, sentence, si)?;
            for i in 0..sentence.len() {
                for_each_feature(templates, sentence, i, &mut buffer, |f| {
                    if let Some(entry) = counts.get_mut(f) {
                        entry.1 += 1;
                    } else {
                        counts.insert(f.to_string(), (order.len() as u32, 1));
                        order.push(f.to_string());
                    }
                });
            }
        }
        let mut ids = HashMap::new();
        for f in order {
            let count = counts.get(&f).map_or(0, |c| c.1) as usize;
            if count >= cutoff {
                let id = ids.len();
                if id >= u32::MAX as usize {
                    return Err(invalid(
                        "cutoff",
                        cutoff,
                        "large enough to keep fewer than 2^32 - 1 features",
                    ));
                }
                ids.insert(f, id as u32);
            }
        }
        Ok(Self {
            templates: templates.clone(),
            cutoff,
            ids,
        })
    }

    /// Whether the ids are exactly `0..len()` (true for every dictionary this crate builds;
    /// checked when a saved model is loaded).
    pub fn ids_are_dense(&self) -> bool {
        let mut seen = vec![false; self.ids.len()];
        for &id in self.ids.values() {
            match seen.get_mut(id as usize) {
                Some(s) if !*s => *s = true,
                _ => return false,
            }
        }
        true
    }

    /// Number of kept features `K`.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no feature was kept.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The templates.
    pub fn templates(&self) -> &Templates {
        &self.templates
    }

    /// The frequency cutoff.
    pub fn cutoff(&self) -> usize {
        self.cutoff
    }

    /// The id of a feature string, if kept.
    pub fn id(&self, feature: &str) -> Option<u32> {
        self.ids.get(feature).copied()
    }

    /// The id of the bias feature ([`Template::Bias`], active at every position), if the
    /// templates have one and it was kept.
    pub fn bias_id(&self) -> Option<u32> {
        let t = self
            .templates
            .list
            .iter()
            .position(|&template| template == Template::Bias)?;
        let mut name = String::new();
        push_index(&mut name, t);
        name.push('\u{1}');
        self.id(&name)
    }

    /// The feature strings ordered by id.
    pub fn names(&self) -> Vec<String> {
        let mut names = vec![String::new(); self.ids.len()];
        for (name, &id) in &self.ids {
            names[id as usize] = name.clone();
        }
        names
    }

    /// The active feature ids of each position of `sentence` (features outside the
    /// dictionary are dropped).
    ///
    /// # Errors
    /// [`OblError::TooFewColumns`] when the sentence lacks a column a template reads.
    pub fn encode(&self, sentence: &Sentence) -> Result<EncodedSentence> {
        self.encode_indexed(sentence, 0)
    }

    pub(crate) fn encode_indexed(
        &self,
        sentence: &Sentence,
        index: usize,
    ) -> Result<EncodedSentence> {
        check_columns(&self.templates, sentence, index)?;
        let mut offsets = Vec::with_capacity(sentence.len() + 1);
        let mut features = Vec::with_capacity(sentence.len() * self.templates.list.len());
        offsets.push(0);
        let mut buffer = String::new();
        for i in 0..sentence.len() {
            for_each_feature(&self.templates, sentence, i, &mut buffer, |f| {
                if let Some(&id) = self.ids.get(f) {
                    features.push(id);
                }
            });
            offsets.push(features.len() as u32);
        }
        Ok(EncodedSentence { offsets, features })
    }

    /// Encodes every sentence of a corpus.
    ///
    /// The sentences are encoded in parallel on the current rayon pool (install a pool of
    /// `n` threads around the call to choose `n`); the result is the same for any number
    /// of threads, and so is the error: that of the first failing sentence.
    ///
    /// # Errors
    /// As [`encode`](Self::encode), with the sentence index; [`OblError::MissingColumn`]
    /// as in [`build`](Self::build).
    pub fn encode_corpus(&self, corpus: &Corpus) -> Result<Vec<EncodedSentence>> {
        use rayon::prelude::*;
        check_column_names(&self.templates, corpus)?;
        let encoded: Vec<Result<EncodedSentence>> = corpus
            .sentences()
            .par_iter()
            .enumerate()
            .map(|(i, s)| self.encode_indexed(s, i))
            .collect();
        encoded.into_iter().collect()
    }
}
