#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod average;
pub mod crf;
pub mod data;
pub mod error;
pub mod features;
pub mod metrics;
pub mod model;
pub mod params;
pub mod rank_one;
mod scoring;
pub mod spectral;
pub mod train;
pub mod viterbi;

pub use crf::{CrfBackend, CrfWeights};
pub use data::{
    Corpus, Sentence, bmes_to_words, parse_char_tagged, parse_conll, parse_segmented_words,
    read_char_tagged, read_conll, read_segmented_words, synthetic_segmentation, words_to_bmes,
};
pub use error::{OblError, Result};
pub use features::{EncodedSentence, FeatureDict, Template, Templates};
pub use model::{Evaluation, FittedTagger, PreparedCorpus};
pub use params::{BcdSolver, Learner, Reading, TaggerParams};
pub use rank_one::{BlockDiagonal, BlockRankOne, BlockUpdate};
pub use spectral::{SpectralMode, SpectralRankOne};
pub use train::EpochInfo;
pub use viterbi::viterbi;
