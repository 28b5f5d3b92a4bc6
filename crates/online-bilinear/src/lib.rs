#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod average;
pub mod crf;
pub mod data;
pub mod error;
pub mod features;
pub mod learner;
pub mod metrics;
pub mod model;
pub mod params;
pub mod rank_one;
pub mod scoring;
pub mod sparse;
pub mod spectral;
pub mod synthetic;
pub mod train;
pub mod viterbi;

pub use bl_core::{Fit, FitReport, Fitted, Observer, ParamGuard};
pub use crf::{CrfBackend, CrfWeights};
pub use data::{
    ConllFormat, Corpus, LabelColumn, Sentence, bmes_to_words, parse_char_tagged, parse_conll,
    parse_segmented_words, parse_word_tagged, read_char_tagged, read_conll, read_segmented_words,
    read_word_tagged, words_to_bmes,
};
pub use error::{OblError, Result};
pub use features::{EncodedSentence, FeatureDict, Template, Templates, Transform};
pub use learner::{LearnerFactory, LearnerShape, OnlineLearner, OnlineWeights, Snapshot};
pub use metrics::TagScheme;
pub use model::{Evaluation, FittedTagger, PreparedCorpus};
pub use params::{BcdSolver, Learner, Reading, TaggerParams, TaggerValidParams};
pub use rank_one::{BlockDiagonal, BlockRankOne, BlockUpdate};
pub use sparse::SparseWeights;
pub use spectral::{SpectralMode, SpectralRankOne};
pub use train::{Bcd, Bol, EpochInfo, Sp};
pub use viterbi::viterbi;
