//! The ready-made template lists: character segmentation, chunking over (word, part of
//! speech), and two lists for corpora of words alone.

use super::template::{Template, Templates, derived, lower_then};
use super::transform::Transform;

fn uni(column: usize, offset: isize) -> Template {
    Template::unigram(column, offset)
}

fn bi(column: usize, first: isize, second: isize) -> Template {
    Template::bigram(column, first, second)
}

/// The four yes/no flags of `W0`: is-digit, is-upper, is-title, has-hyphen.
fn flags() -> [Template; 4] {
    [
        Transform::IsDigit,
        Transform::IsUpper,
        Transform::IsTitle,
        Transform::HasHyphen,
    ]
    .map(|t| derived(0, t))
}

impl Templates {
    /// The paper's segmentation templates (Sec. 6.1: "words at i-2, i-1, i, i+1, i+2 and
    /// bigrams of them", the words being the characters of the input): characters
    /// `C-2 .. C2` and the bigrams `C-2C-1`, `C-1C0`, `C0C1`, `C1C2`, `C-1C1`. Like the
    /// paper's list it has no bias feature (add [`Template::Bias`] with [`Templates::with_bias`]).
    pub fn segmentation() -> Self {
        let mut list: Vec<Template> = (-2..=2).map(|o| uni(0, o)).collect();
        list.extend([
            bi(0, -2, -1),
            bi(0, -1, 0),
            bi(0, 0, 1),
            bi(0, 1, 2),
            bi(0, -1, 1),
        ]);
        Self::preset(list, Vec::new())
    }

    /// Chunking templates over (word, part of speech) columns (the paper lists none for
    /// chunking): words `W-2 .. W2`, word bigrams `W-1W0`, `W0W1`, tags `P-2 .. P2`, tag
    /// bigrams `P-2P-1`, `P-1P0`, `P0P1`, `P1P2`; no bias feature, as in
    /// [`Templates::segmentation`].
    ///
    /// Column 1 is named `pos` ([`Templates::with_column_names`]): a corpus without a
    /// second column is refused with [`crate::OblError::TooFewColumns`] naming it, and one
    /// whose named columns put no `pos` there with [`crate::OblError::MissingColumn`].
    pub fn chunking() -> Self {
        let mut list: Vec<Template> = (-2..=2).map(|o| uni(0, o)).collect();
        list.extend([bi(0, -1, 0), bi(0, 0, 1)]);
        list.extend((-2..=2).map(|o| uni(1, o)));
        list.extend([bi(1, -2, -1), bi(1, -1, 0), bi(1, 0, 1), bi(1, 1, 2)]);
        Self::preset(list, vec![String::new(), "pos".to_string()])
    }

    /// The templates for tagging a corpus of words alone (parts of speech, named entities;
    /// e.g. a `word/TAG` file read by [`crate::read_word_tagged`]): the usual hand-built
    /// features of feature-based word taggers, with the affixes read of the lower-cased
    /// word so that `Walking` and `walking` share them. They read column 0 only. In order
    /// (27 templates; [`names`](Self::names) lists them):
    ///
    /// | templates | names |
    /// |---|---|
    /// | a bias (it also carries the label transitions) | `bias` |
    /// | the words `W-2 .. W2` | `c0[-2]` .. `c0[2]` |
    /// | the lower-cased words `L-1`, `L0`, `L1` | `c0[-1].lower` .. `c0[1].lower` |
    /// | prefixes of 1 to 3 characters of `L0` | `c0[0].lower.prefix1` .. `c0[0].lower.prefix3` |
    /// | suffixes of 1 to 3 characters of `L0` | `c0[0].lower.suffix1` .. `c0[0].lower.suffix3` |
    /// | the shape of `W0` and the collapsed shapes of `W-1`, `W0`, `W1` | `c0[0].shape`, `c0[-1].short_shape` .. `c0[1].short_shape` |
    /// | is-digit, is-upper, is-title, has-hyphen of `W0` | `c0[0].is_digit`, `c0[0].is_upper`, `c0[0].is_title`, `c0[0].has_hyphen` |
    /// | lower-cased word bigrams `L-1L0`, `L0L1` | `c0[-1].lower\|c0[0].lower`, `c0[0].lower\|c0[1].lower` |
    /// | collapsed-shape bigrams of `W-1W0`, `W0W1` | `c0[-1].short_shape\|c0[0].short_shape`, `c0[0].short_shape\|c0[1].short_shape` |
    ///
    /// ([`Transform`] says what each transform reads.)
    pub fn word_tagging() -> Self {
        let mut list = vec![Template::Bias];
        list.extend((-2..=2).map(|o| uni(0, o)));
        list.extend((-1..=1).map(|o| derived(o, Transform::Lowercase)));
        list.extend((1..=3).map(|k| derived(0, lower_then(Transform::Prefix(k)))));
        list.extend((1..=3).map(|k| derived(0, lower_then(Transform::Suffix(k)))));
        list.push(derived(0, Transform::Shape));
        list.extend((-1..=1).map(|o| derived(o, Transform::ShortShape)));
        list.extend(flags());
        for transform in [Transform::Lowercase, Transform::ShortShape] {
            list.extend([
                Template::transformed_bigram(0, -1, 0, transform),
                Template::transformed_bigram(0, 0, 1, transform),
            ]);
        }
        Self::preset(list, Vec::new())
    }

    /// An earlier, smaller list for a corpus of words alone, kept unchanged so that
    /// models and experiments built on it reproduce; prefer
    /// [`word_tagging`](Self::word_tagging), which reads the affixes of the lower-cased
    /// word and adds bigrams of transforms. In order (25 templates): a bias; words
    /// `W-2 .. W2`; lower-cased `W-1`, `W0`, `W1`; prefixes and suffixes of 1 to 3
    /// characters of `W0` (as written); the shape of `W0` and the collapsed shapes of
    /// `W-1`, `W0`, `W1`; is-digit, is-upper, is-title and has-hyphen of `W0`; word
    /// bigrams `W-1W0`, `W0W1`. They read column 0 only.
    pub fn word_only() -> Self {
        let mut list = vec![Template::Bias];
        list.extend((-2..=2).map(|o| uni(0, o)));
        list.extend((-1..=1).map(|o| derived(o, Transform::Lowercase)));
        list.extend((1..=3).map(|k| derived(0, Transform::Prefix(k))));
        list.extend((1..=3).map(|k| derived(0, Transform::Suffix(k))));
        list.push(derived(0, Transform::Shape));
        list.extend((-1..=1).map(|o| derived(o, Transform::ShortShape)));
        list.extend(flags());
        list.extend([bi(0, -1, 0), bi(0, 0, 1)]);
        Self::preset(list, Vec::new())
    }
}
