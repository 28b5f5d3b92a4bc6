#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod average;
pub mod conformance;
pub mod crf;
pub mod data;
mod delta;
pub mod distributed;
pub mod error;
pub mod features;
mod fit;
pub mod learner;
pub mod metrics;
pub mod model;
pub mod params;
pub mod rank_one;
pub mod scoring;
pub mod settings;
pub mod sparse;
pub mod spectral;
pub mod synthetic;
pub mod train;
pub mod viterbi;
mod weights;

pub use bl_core::{
    Extension, Fit, FitReport, Fitted, Observer, ParamGuard, Predict, PredictInplace,
};
pub use crf::CrfWeights;
pub use data::{
    ConllFormat, Corpus, LabelColumn, Sentence, bmes_to_words, parse_char_tagged, parse_conll,
    parse_segmented_words, parse_word_tagged, read_char_tagged, read_conll, read_segmented_words,
    read_word_tagged, words_to_bmes,
};
pub use error::{OblError, Result};
pub use features::{EncodedSentence, FeatureDict, Template, Templates, Transform, TransformChain};
pub use fit::{PreparedCorpus, WithSnapshots, default_templates};
pub use learner::{
    Bcd, Bol, BuiltIn, Learner, LearnerShape, OnlineLearner, OnlineWeights, Snapshot, Sp, Training,
};
pub use metrics::{Evaluation, TagScheme};
pub use model::FittedTagger;
pub use params::{TaggerParams, TaggerValidParams};
pub use rank_one::{BlockDiagonal, BlockRankOne, BlockUpdate};
pub use settings::{BcdSolver, CrfPenalty, LearnerSettings, Reading, Setting};
pub use sparse::SparseWeights;
pub use spectral::{SpectralMode, SpectralRankOne};
pub use train::EpochInfo;
pub use viterbi::viterbi;
