//! Feature templates and the feature dictionary.
//!
//! A [`Template`] reads observation columns around position `i`, possibly through a
//! [`Transform`] or a [`TransformChain`] of them ("the suffix of the lower-cased word").
//! Its value at `i`, prefixed by the template's index in the [`Templates`] list and
//! `\u{1}`, is a feature string: `"3\u{1}的"`; a bigram's two values are joined by
//! `\u{1}` (`"5\u{1}the\u{1}cat"`), and a position outside the sentence reads a padding
//! symbol (`\u{2}<1` one before the start, `\u{2}>1` one after the end). The index keeps
//! the features of different templates apart, and it is stable: a saved model keeps its
//! list, so its feature strings are the same when it is loaded. A template's
//! human-readable name ([`Templates::names`], e.g. `c0[0].lower.suffix3`) is for reading
//! lists; it is not part of the feature strings.
//!
//! The [`FeatureDict`] maps the strings seen at least `cutoff` times in the training
//! corpus to dense ids `0..K`; a sentence is encoded once into [`EncodedSentence`] (the
//! active feature ids of each position, CSR layout), which every epoch of every learner
//! then reuses. The learners' parameters are indexed by these ids, so memory grows with
//! the number of kept features, never with the number of possible strings.
//!
//! Ready-made lists: [`Templates::segmentation`] (characters), [`Templates::chunking`]
//! (words and parts of speech), [`Templates::word_tagging`] (words alone: parts of speech,
//! named entities) and [`Templates::word_only`] (an earlier, smaller word list).

mod dict;
mod extract;
mod presets;
mod template;
mod transform;

pub use dict::{EncodedSentence, FeatureDict};
pub use template::{MAX_TEMPLATE_COLUMN, MAX_TEMPLATE_OFFSET, Template, Templates};
pub use transform::{MAX_AFFIX, MAX_CHAIN, Transform, TransformChain};
