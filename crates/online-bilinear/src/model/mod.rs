//! The fitted tagger: its accessors, prediction ([`bl_core::PredictInplace`] for a
//! sentence and for a corpus), evaluation and saved form.

use std::sync::{Arc, OnceLock};

use bl_core::engine::FitReport;
use bl_core::{Fitted, IterationParams};

use crate::error::{OblError, Result};
use crate::features::{EncodedSentence, FeatureDict, Templates};
use crate::scoring::{add_sparse_rows_zero_order, bilinear_scores, linear_scores, sparse_scores};
use crate::settings::LearnerSettings;
use crate::sparse::SparseWeights;
use crate::weights::Weights;

mod attributes;
mod evaluate;
mod predict;
mod saved;

pub use crate::metrics::Evaluation;
pub(crate) use evaluate::tag_indices;
pub(crate) use saved::{report_from_history, report_of_epochs};

/// A fitted sequence tagger: the feature dictionary, the tag set and the learned weights.
/// It predicts through [`bl_core::Predict`] (`use online_bilinear::Predict`): the tags of a
/// [`Sentence`](crate::Sentence) (`Vec<String>`) or of every sentence of a
/// [`Corpus`](crate::Corpus) (`Vec<Vec<String>>`). A model fitted on attribute data
/// (`Fit<chain_crf::Dataset>`) tags [`chain_crf::Items`] instead
/// ([`tag_items`](Self::tag_items); label ids of every sequence of a
/// [`chain_crf::Dataset`] through `Predict`).
///
/// Its [`report`](Fitted::report) has one iteration per epoch of an online learner (trace
/// objective: the epoch's online token error rate; extras `mistakes`, `token_errors`,
/// `tokens`, `train_seconds`), and one iteration for a CRF (objective: the trained CRF's
/// token error rate on the training data; extras `token_errors`, `tokens`,
/// `train_seconds`, `optimizer_iterations`; termination: the optimizer's).
#[derive(Debug, Clone)]
pub struct FittedTagger {
    pub(crate) learner: String,
    pub(crate) settings: LearnerSettings,
    pub(crate) iteration: IterationParams,
    pub(crate) shuffle: bool,
    pub(crate) seed: u64,
    pub(crate) dict: Arc<FeatureDict>,
    pub(crate) tags: Vec<String>,
    pub(crate) weights: Weights,
    pub(crate) zero_order: Option<ZeroOrder>,
    /// The dense form of sparse 0-order weights, formed when first asked for
    /// ([`zero_order_weights`](Self::zero_order_weights)).
    pub(crate) zero_dense: OnceLock<Vec<f64>>,
    pub(crate) report: FitReport,
    pub(crate) train_seconds: f64,
}

/// The 0-order weights of a fitted model: dense `K x L` (a custom learner's, and models
/// saved so), or sparse rows of width `L` (the built-in learners'). Both score alike: a
/// weight not stored is 0, and adding a zero to the sums (which start at `+0`) changes
/// no bit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ZeroOrder {
    Dense(Vec<f64>),
    Sparse(SparseWeights),
}

impl Fitted for FittedTagger {
    fn report(&self) -> &FitReport {
        &self.report
    }
}

impl FittedTagger {
    /// The name of the learner that fitted the model (`bol`, `crf-l2`, a user's learner's
    /// [`name`](bl_core::Extension::name)).
    pub fn learner(&self) -> &str {
        &self.learner
    }

    /// The learner settings the model was fitted with.
    pub fn settings(&self) -> &LearnerSettings {
        &self.settings
    }

    /// The iteration knobs the model was fitted with.
    pub fn iteration(&self) -> &IterationParams {
        &self.iteration
    }

    /// Whether the training sentences were shuffled each epoch.
    pub fn shuffle(&self) -> bool {
        self.shuffle
    }

    /// The seed of the shuffles.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The feature templates (those of the dictionary).
    pub fn templates(&self) -> &Templates {
        self.dict.templates()
    }

    /// The feature frequency cutoff (that of the dictionary).
    pub fn cutoff(&self) -> usize {
        self.dict.cutoff()
    }

    /// The tag set, in the order of the weights' tag indices.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The feature dictionary.
    pub fn features(&self) -> &FeatureDict {
        &self.dict
    }

    /// Number of features `K`.
    pub fn n_features(&self) -> usize {
        self.dict.len()
    }

    /// `alpha` (`K x L`, row-major) of a bilinear model (bol, bcd).
    pub fn alpha(&self) -> Option<&[f64]> {
        match &self.weights {
            Weights::Bilinear { alpha, .. } => Some(alpha),
            _ => None,
        }
    }

    /// `beta` (`K x (L + 1)`, row-major, the last column is the start state) of a bilinear
    /// model.
    pub fn beta(&self) -> Option<&[f64]> {
        match &self.weights {
            Weights::Bilinear { beta, .. } => Some(beta),
            _ => None,
        }
    }

    /// The sparse matrix-feature weights of a structured perceptron (sp).
    pub fn sparse_weights(&self) -> Option<&crate::sparse::SparseWeights> {
        match &self.weights {
            Weights::SparseLinear { w } => Some(w),
            _ => None,
        }
    }

    /// The weights of a CRF.
    pub fn crf_weights(&self) -> Option<&crate::crf::CrfWeights> {
        match &self.weights {
            Weights::Crf(crf) => Some(crf),
            _ => None,
        }
    }

    /// The 0-order weights (`K x L`, row-major), when the extension is on. A model of the
    /// built-in learners keeps them as sparse rows
    /// ([`zero_order_rows`](Self::zero_order_rows)): the dense array is formed on the
    /// first call and kept with the model.
    ///
    /// # Errors
    /// As [`SparseWeights::to_dense`], when the dense array is formed: `K x L` values
    /// beyond [`bl_core::limits::MAX_ELEMENTS`] or that cannot be allocated.
    pub fn zero_order_weights(&self) -> Result<Option<&[f64]>> {
        match &self.zero_order {
            None => Ok(None),
            Some(ZeroOrder::Dense(z)) => Ok(Some(z)),
            Some(ZeroOrder::Sparse(rows)) => {
                if let Some(z) = self.zero_dense.get() {
                    return Ok(Some(z));
                }
                let dense = rows.to_dense()?;
                Ok(Some(self.zero_dense.get_or_init(|| dense)))
            }
        }
    }

    /// The 0-order weights as sparse rows (feature `k`'s tags and weights; a tag not
    /// stored has weight 0), when the learner handed them over so
    /// ([`OnlineLearner::take_sparse_zero_order`](crate::OnlineLearner::take_sparse_zero_order):
    /// the built-in learners).
    pub fn zero_order_rows(&self) -> Option<&SparseWeights> {
        match self.zero_order.as_ref()? {
            ZeroOrder::Sparse(rows) => Some(rows),
            ZeroOrder::Dense(_) => None,
        }
    }

    /// Training time in seconds. Fitted from a [`Corpus`](crate::Corpus): feature
    /// extraction (building the dictionary and encoding the corpus) plus the learner's
    /// training. Fitted from a [`PreparedCorpus`](crate::PreparedCorpus): the learner's
    /// training alone (the preparation is not part of the fit). The learner's training is,
    /// for an online learner, building it, the epochs and the final model; for a CRF, the
    /// optimizer's run. The time spent in a snapshot hook
    /// ([`PreparedCorpus::with_snapshots`](crate::PreparedCorpus::with_snapshots)) is
    /// never counted.
    pub fn train_seconds(&self) -> f64 {
        self.train_seconds
    }

    pub(crate) fn decode(&self, encoded: &[EncodedSentence]) -> Result<Vec<Vec<usize>>> {
        let l = self.tags.len();
        let (zero, zero_rows) = match &self.zero_order {
            Some(ZeroOrder::Dense(z)) => (Some(z.as_slice()), None),
            Some(ZeroOrder::Sparse(rows)) => (None, Some(rows)),
            None => (None, None),
        };
        let mut scores = Vec::new();
        let mut row = Vec::new();
        let mut ws = crate::viterbi::ViterbiWorkspace::default();
        // Every table is checked before any is built.
        for (index, enc) in encoded.iter().enumerate() {
            crate::viterbi::checked_table_len(Some(index), enc.len(), l)?;
        }
        let mut out = Vec::with_capacity(encoded.len());
        for enc in encoded {
            match &self.weights {
                Weights::Bilinear { alpha, beta } => {
                    bilinear_scores(enc, l, alpha, beta, 1.0, zero, &mut scores)?
                }
                Weights::Linear { w } => linear_scores(enc, l, w, zero, &mut scores)?,
                Weights::SparseLinear { w } => {
                    sparse_scores(enc, l, |k| w.row(k), zero, &mut scores)?
                }
                Weights::Crf(crf) => crf.scores(enc, l, &mut scores, &mut row),
            }
            if let Some(rows) = zero_rows {
                add_sparse_rows_zero_order(enc, l, rows, &mut scores);
            }
            // Every path score is a sum of one score per position, so this sum of the
            // largest magnitudes bounds them all: finite means Viterbi cannot overflow.
            let per_position = (l + 1) * l;
            let total: f64 = scores
                .chunks(per_position.max(1))
                .map(|row| row.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
                .sum();
            if !total.is_finite() {
                return Err(OblError::Core(bl_core::BlError::Numerical {
                    context: "FittedTagger::predict",
                    message: format!(
                        "the path scores of sentence {} overflow f64: the model's weights \
                         are too large",
                        out.len()
                    ),
                }));
            }
            let mut path = vec![0; enc.len()];
            crate::viterbi::viterbi_into(&scores, enc.len(), l, &mut ws, &mut path)?;
            out.push(path);
        }
        Ok(out)
    }
}
