//! What a template reads of a word: one [`Transform`] (lower case, an affix, the shape, a
//! flag) or a [`TransformChain`] of them applied in order ("the suffix of the lower-cased
//! word").

use std::fmt;

use bl_core::error::build::invalid;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Longest prefix or suffix a [`Transform`] may read.
pub const MAX_AFFIX: u8 = 16;

/// Most steps a [`TransformChain`] may have.
pub const MAX_CHAIN: usize = 4;

/// One step of what a [`Template::Transformed`](super::Template::Transformed) reads of an
/// observation (a word). Character classes are Unicode's (`char::is_uppercase`,
/// `is_lowercase`, `is_numeric`). Steps compose with [`then`](Self::then).
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
    /// Appends the transform of `word` to `out` (no allocation once `out` has room).
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

    /// This step, then `next` on its output: `Transform::Lowercase.then(Transform::Suffix(3))`
    /// reads the last three characters of the lower-cased word (`WALKING` -> `ing`).
    pub fn then(self, next: Transform) -> TransformChain {
        TransformChain::from(self).then(next)
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

/// The stable name of a step, as template names show it: `lower`, `prefix3`, `suffix3`,
/// `shape`, `short_shape`, `is_digit`, `is_upper`, `is_title`, `has_hyphen`.
impl fmt::Display for Transform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transform::Lowercase => f.write_str("lower"),
            Transform::Prefix(k) => write!(f, "prefix{k}"),
            Transform::Suffix(k) => write!(f, "suffix{k}"),
            Transform::Shape => f.write_str("shape"),
            Transform::ShortShape => f.write_str("short_shape"),
            Transform::IsDigit => f.write_str("is_digit"),
            Transform::IsUpper => f.write_str("is_upper"),
            Transform::IsTitle => f.write_str("is_title"),
            Transform::HasHyphen => f.write_str("has_hyphen"),
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

/// [`Transform`]s applied in order, each to the previous one's output: 1 to [`MAX_CHAIN`]
/// steps, each valid (affix lengths in `1 ..=` [`MAX_AFFIX`]); both are checked by
/// [`Templates::new`](super::Templates::new), so a chain built by
/// [`then`](Self::then) never fails on the spot.
///
/// A chain is built from a single step by `From` (`Transform::Lowercase.into()`) or with
/// [`Transform::then`]. It is saved as its step alone when it has one (the form templates
/// had before chains, so older saved models load) and as a list of steps otherwise.
///
/// ```
/// use online_bilinear::features::{Transform, TransformChain};
/// let chain = Transform::Lowercase.then(Transform::Suffix(3));
/// assert_eq!(chain.steps(), [Transform::Lowercase, Transform::Suffix(3)]);
/// assert_eq!(chain.apply("WALKING"), "ing");
/// assert_eq!(chain.to_string(), "lower.suffix3");
/// assert_eq!(TransformChain::from(Transform::Shape).apply("Ab1"), "Xxd");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "RawChain", try_from = "RawChain")]
pub struct TransformChain {
    /// The steps, `steps[..len]`; the rest is `Lowercase` (a canonical filler, so the
    /// derived comparisons compare the steps alone).
    steps: [Transform; MAX_CHAIN],
    len: u8,
    /// Steps asked for beyond [`MAX_CHAIN`] (dropped; a chain with any is refused by
    /// [`check`](Self::check)).
    dropped: u8,
}

impl From<Transform> for TransformChain {
    fn from(step: Transform) -> Self {
        let mut steps = [Transform::Lowercase; MAX_CHAIN];
        steps[0] = step;
        Self {
            steps,
            len: 1,
            dropped: 0,
        }
    }
}

impl TransformChain {
    /// A chain of the given steps.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when there is
    /// no step, more than [`MAX_CHAIN`], or an affix length outside `1 ..=` [`MAX_AFFIX`].
    pub fn new(steps: &[Transform]) -> Result<Self> {
        let Some((&first, rest)) = steps.split_first() else {
            return Err(invalid(
                "transform chain",
                "[]",
                "at least one transform (a template without one is a Unigram or a Bigram)",
            ));
        };
        let chain = rest
            .iter()
            .fold(Self::from(first), |chain, &step| chain.then(step));
        chain.check()?;
        Ok(chain)
    }

    /// The chain followed by `next` (a step beyond [`MAX_CHAIN`] makes the chain invalid:
    /// [`Templates::new`](super::Templates::new) refuses it).
    pub fn then(mut self, next: Transform) -> Self {
        match self.steps.get_mut(usize::from(self.len)) {
            Some(slot) if self.dropped == 0 => {
                *slot = next;
                self.len += 1;
            }
            _ => self.dropped = self.dropped.saturating_add(1),
        }
        self
    }

    /// The steps, in the order they apply.
    pub fn steps(&self) -> &[Transform] {
        &self.steps[..usize::from(self.len)]
    }

    /// The chain's output for `word`, as a new string (see [`write`](Self::write)).
    pub fn apply(&self, word: &str) -> String {
        let mut out = String::new();
        self.write(word, &mut out);
        out
    }

    /// Appends the chain's output for `word` to `out`: the first step reads `word`, each
    /// next step the previous one's output.
    pub fn write(&self, word: &str, out: &mut String) {
        self.write_with(word, out, &mut String::new());
    }

    /// As [`write`](Self::write), with a scratch string for the intermediate outputs (no
    /// allocation once `out` and `scratch` have room).
    pub(super) fn write_with(&self, word: &str, out: &mut String, scratch: &mut String) {
        let start = out.len();
        let (first, rest) = self
            .steps()
            .split_first()
            .unwrap_or((&Transform::Lowercase, &[]));
        first.write(word, out);
        for step in rest {
            scratch.clear();
            step.write(&out[start..], scratch);
            out.truncate(start);
            out.push_str(scratch);
        }
    }

    /// Every step is valid and there are at most [`MAX_CHAIN`].
    pub(super) fn check(&self) -> Result<()> {
        if self.dropped > 0 {
            return Err(invalid(
                "transform chain",
                format!(
                    "{} steps",
                    usize::from(self.len) + usize::from(self.dropped)
                ),
                format!("at most {MAX_CHAIN} (MAX_CHAIN)"),
            ));
        }
        self.steps().iter().try_for_each(|step| step.check())
    }
}

/// The stable name of a chain: its steps' names joined by `.` (`lower.suffix3`).
impl fmt::Display for TransformChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps().iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

/// The saved form of a [`TransformChain`]: one step as the step itself (the form of
/// templates saved before chains), several as a list.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum RawChain {
    One(Transform),
    Many(Vec<Transform>),
}

impl From<TransformChain> for RawChain {
    fn from(chain: TransformChain) -> Self {
        match chain.steps() {
            [one] => RawChain::One(*one),
            steps => RawChain::Many(steps.to_vec()),
        }
    }
}

impl TryFrom<RawChain> for TransformChain {
    type Error = crate::error::OblError;

    fn try_from(raw: RawChain) -> Result<Self> {
        match raw {
            RawChain::One(step) => TransformChain::new(&[step]),
            RawChain::Many(steps) => TransformChain::new(&steps),
        }
    }
}
