//! The online update rule a learner trains with ([`OnlineLearner`]), and what it predicts
//! with ([`Snapshot`], [`OnlineWeights`]).

use serde::{Deserialize, Serialize};

use super::LearnerShape;
use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::viterbi::ViterbiWorkspace;

/// The weights of an online learner, in the layout the fitted tagger decodes with (`L`
/// tags, `P = L + 1` previous states, the last being the start state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OnlineWeights {
    /// The rank-1 bilinear model `W_k = alpha_k beta_k^T`: `alpha[k * L + a]` (`K L`
    /// values), `beta[k * P + b]` (`K P` values).
    Bilinear {
        /// `alpha`, `K x L` row-major.
        alpha: Vec<f64>,
        /// `beta`, `K x P` row-major.
        beta: Vec<f64>,
    },
    /// Full matrix-feature weights `w[k * L * P + a * P + b]` (`K L P` values).
    Linear {
        /// `w`, `K x L x P` row-major.
        w: Vec<f64>,
    },
    /// Sparse matrix-feature weights: per feature only the stored `(previous, current)`
    /// cells ([`crate::sparse`]), of width `P L`. The built-in sp gives these.
    SparseLinear {
        /// The weights, `K` rows.
        w: crate::sparse::SparseWeights,
    },
}

impl OnlineWeights {
    /// Writes the score table of `sentence` under these weights (and the 0-order weights
    /// `zero`) into `out`, as [`OnlineLearner::scores`] does.
    pub(crate) fn scores(
        &self,
        sentence: &EncodedSentence,
        n_tags: usize,
        zero: Option<&[f64]>,
        out: &mut Vec<f64>,
    ) {
        use crate::scoring::{bilinear_table, linear_table, sparse_table};
        match self {
            OnlineWeights::Bilinear { alpha, beta } => {
                bilinear_table(sentence, n_tags, alpha, beta, 1.0, zero, out)
            }
            OnlineWeights::Linear { w } => linear_table(sentence, n_tags, w, zero, out),
            OnlineWeights::SparseLinear { w } => {
                sparse_table(sentence, n_tags, |k| w.row(k), zero, out)
            }
        }
    }
}

/// What a learner predicts with at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The first-order weights.
    pub weights: OnlineWeights,
    /// The 0-order weights `z[k * L + a]` (`K L` values), when the learner has them.
    pub zero_order: Option<Vec<f64>>,
}

/// An online update rule: the plug-in point of the crate's fit.
///
/// The fit calls, for each epoch `e` (1-based) and each pass `q` of it
/// (`0..passes_per_epoch()`): [`begin_pass`](Self::begin_pass) with the running pass number
/// `(e - 1) * passes_per_epoch() + q`; then, for each non-empty training sentence in the
/// pass's order, [`scores`](Self::scores), Viterbi, [`update`](Self::update) when the
/// prediction differs from the gold tags at some position, and [`record`](Self::record).
/// After every epoch when the caller asks for snapshots
/// ([`PreparedCorpus::with_snapshots`](crate::PreparedCorpus::with_snapshots)) it reads
/// [`snapshot`](Self::snapshot), and at the end it takes the learner's
/// [`into_snapshot`](Self::into_snapshot). The contract [`crate::conformance`] checks:
/// score tables of the right size and finite; a snapshot of the sizes [`LearnerShape`]
/// gives, finite; without averaging, the snapshot scores a sentence as `scores` does;
/// building twice and replaying the same updates gives the same scores; and the fit
/// learns an easy task.
///
/// The fit passes sentences whose feature ids are below `K` and tag paths of
/// `sentence.len()` tags below `L` ([`LearnerShape`]). A caller outside the fit may pass
/// other input (a sentence encoded with another dictionary): the built-in learners check
/// the sentence of every call of [`scores`](Self::scores), [`decode`](Self::decode) and
/// [`update`](Self::update) (and the paths of `update`) before reading their weights, and
/// return an error instead of panicking; an implementation outside the crate should do
/// the same.
pub trait OnlineLearner {
    /// Passes over the training data per epoch (bcd: 2, one for `alpha`, one for `beta`).
    fn passes_per_epoch(&self) -> usize {
        1
    }

    /// Called before each pass with the running pass number (0-based).
    fn begin_pass(&mut self, _pass: usize) {}

    /// Writes the score table of `sentence` into `out` (cleared and resized by the
    /// learner): `n (L + 1) L` values, entry
    /// [`score_index(i, b, a, L)`](crate::viterbi::score_index) the score of tag `a` at
    /// position `i` after previous tag `b` (`b = L` is the start state, read at `i = 0`).
    ///
    /// # Errors
    /// Whatever keeps the learner from scoring `sentence`; the fit ends with it. The
    /// built-in learners ([`Bol`](crate::Bol), [`Bcd`](crate::Bcd), [`Sp`](crate::Sp))
    /// check the sentence first (O(active features), no allocation) and return
    /// `BlError::InvalidParameter` (in [`OblError::Core`]) for a feature id at or above
    /// the `n_features` they were built for (a sentence encoded with another dictionary;
    /// the fit never gives one), leaving `out` as it was.
    fn scores(&self, sentence: &EncodedSentence, out: &mut Vec<f64>) -> Result<()>;

    /// The Viterbi path of `sentence` under [`scores`](Self::scores), into `path`
    /// (`sentence.len()` tags; `n_tags` tags, `scores` and `ws` reusable buffers): what
    /// the fit decodes each training sentence with. The default builds the table with
    /// `scores` and runs [`viterbi_into`](crate::viterbi::viterbi_into). A learner may
    /// override it with a faster computation of the same path (the built-in sp builds
    /// each position's scores as the recursion reads them, without the whole table); the
    /// conformance suite checks that it agrees with the table's path.
    ///
    /// # Errors
    /// The error of [`score_table_len`](crate::viterbi::score_table_len) for a table above
    /// the bound; the errors of [`scores`](Self::scores) (for the built-in learners,
    /// `BlError::InvalidParameter` for a feature id at or above their `n_features`, checked
    /// before anything is scored); [`OblError::Learner`] (check `scores-shape`) for a
    /// table of the wrong size; the errors of
    /// [`viterbi_into`](crate::viterbi::viterbi_into).
    fn decode(
        &self,
        sentence: &EncodedSentence,
        n_tags: usize,
        scores: &mut Vec<f64>,
        ws: &mut ViterbiWorkspace,
        path: &mut [usize],
    ) -> Result<()> {
        let expected = crate::viterbi::score_table_len(sentence.len(), n_tags)?;
        self.scores(sentence, scores)?;
        if scores.len() != expected {
            return Err(OblError::Learner {
                check: "scores-shape",
                message: format!(
                    "a sentence of {} tokens got {} scores, expected {expected}",
                    sentence.len(),
                    scores.len()
                ),
            });
        }
        crate::viterbi::viterbi_into(scores, sentence.len(), n_tags, ws, path)
    }

    /// Updates the parameters on a mistake: `predicted` (the Viterbi path under the current
    /// scores) differs from `gold` at some position. Both have `sentence.len()` tags.
    ///
    /// # Errors
    /// Whatever the learner cannot recover from; the fit ends with it. The built-in
    /// learners check their arguments first: `BlError::ShapeMismatch` (in
    /// [`OblError::Core`]) unless `gold` and `predicted` have one tag per token,
    /// `BlError::InvalidParameter` for a tag at or above `L` or a feature id at or above
    /// their `n_features`.
    fn update(
        &mut self,
        sentence: &EncodedSentence,
        gold: &[usize],
        predicted: &[usize],
    ) -> Result<()>;

    /// Called after every sentence (for averaging over all steps).
    fn record(&mut self) {}

    /// The weights to predict with now (averaged when the learner averages).
    fn snapshot(&self) -> Snapshot;

    /// Hands over the 0-order weights to predict with as sparse rows (feature `k`'s tags
    /// and weights, width `L`; a tag not stored has weight 0), and leaves them out of the
    /// snapshots taken after. The fit calls it once, after the last epoch and before
    /// [`into_snapshot`](Self::into_snapshot), so that a model of many features and tags
    /// never holds the dense `K x L` array (1.46 M features and 44 tags: 514 MB). The
    /// default keeps them in the snapshot (`None`).
    fn take_sparse_zero_order(&mut self) -> Option<crate::sparse::SparseWeights> {
        None
    }

    /// The final [`snapshot`](Self::snapshot), consuming the learner: a learner can build
    /// it from its own buffers (e.g. averages computed in place), so that the fit does not
    /// hold the training state and a copy of the model at once. It must equal
    /// [`snapshot`](Self::snapshot); the default calls it.
    fn into_snapshot(self: Box<Self>) -> Snapshot {
        self.snapshot()
    }
}

/// Checks that a snapshot has the sizes `shape` gives and finite values.
///
/// # Errors
/// [`OblError::Learner`] naming the first wrong field.
pub(crate) fn check_snapshot(snapshot: &Snapshot, shape: LearnerShape) -> Result<()> {
    let (k, l) = (shape.n_features, shape.n_tags);
    let p = l + 1;
    let fields: Vec<(&str, &[f64], usize)> = match &snapshot.weights {
        OnlineWeights::Bilinear { alpha, beta } => {
            vec![("alpha", alpha, k * l), ("beta", beta, k * p)]
        }
        OnlineWeights::Linear { w } => vec![("w", w, k * l * p)],
        OnlineWeights::SparseLinear { w } => {
            w.validate("w", k, p * l).map_err(|e| OblError::Learner {
                check: "snapshot-shape",
                message: e.to_string(),
            })?;
            Vec::new()
        }
    };
    let zero = snapshot
        .zero_order
        .as_deref()
        .map(|z| ("zero_order", z, k * l));
    for (name, values, expected) in fields.into_iter().chain(zero) {
        if values.len() != expected {
            return Err(OblError::Learner {
                check: "snapshot-shape",
                message: format!(
                    "`{name}` has {} values, expected {expected} (K = {k}, L = {l})",
                    values.len()
                ),
            });
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(OblError::Learner {
                check: "snapshot-finite",
                message: format!("`{name}`[{i}] = {}", values[i]),
            });
        }
    }
    Ok(())
}
