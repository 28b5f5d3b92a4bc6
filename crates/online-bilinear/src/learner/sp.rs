//! sp, the structured perceptron on the full (not rank-1) matrix features:
//! `W += DeltaPhi` (and `w += DeltaPhi_0`), stored sparsely ([`crate::sparse`]).

use super::dense::{add_zero, check_shape, zero_order_update};
use super::{OnlineLearner, OnlineWeights, Snapshot};
use crate::delta::for_each_difference;
use crate::error::Result;
use crate::features::EncodedSentence;
use crate::scoring::sparse_table;
use crate::settings::LearnerSettings;
use crate::sparse::SparseRows;

/// sp: the structured perceptron on the matrix features, stored sparsely
/// ([`crate::sparse`]): only the cells of transitions seen in gold or predicted paths.
#[derive(Debug)]
pub struct Sp {
    l: usize,
    /// With `transitions_only`: the one feature (the bias) that keeps first-order weights.
    pairs_only_for: Option<usize>,
    w: SparseRows,
    zero: Option<SparseRows>,
}

impl Sp {
    /// sp for `n_features` features and `l` tags with `settings` (`averaging`,
    /// `zero_order`, `transitions_only`); `bias` is the id of the bias feature, if any.
    ///
    /// # Errors
    /// `transitions_only` without a bias feature in range;
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for no tag,
    /// more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, or `n_features (l + 1)` above
    /// [`bl_core::limits::MAX_ELEMENTS`].
    pub fn new(
        n_features: usize,
        l: usize,
        settings: &LearnerSettings,
        bias: Option<usize>,
    ) -> Result<Self> {
        check_shape(n_features, l)?;
        let pairs_only_for = match (settings.transitions_only, bias) {
            (false, _) => None,
            (true, Some(b)) if b < n_features => Some(b),
            (true, _) => {
                return Err(bl_core::params::invalid(
                    "transitions_only",
                    "true without a bias feature in the dictionary",
                    "a Template::Bias in the templates",
                )
                .into());
            }
        };
        Ok(Self {
            l,
            pairs_only_for,
            w: SparseRows::new(n_features, (l + 1) * l, settings.averaging)?,
            zero: settings
                .zero_order
                .then(|| SparseRows::new(n_features, l, settings.averaging))
                .transpose()?,
        })
    }

    /// Number of stored matrix-feature weights.
    pub fn n_stored(&self) -> usize {
        self.w.nnz()
    }
}

impl OnlineLearner for Sp {
    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) {
        sparse_table(enc, self.l, |k| self.w.row(k), None, out);
        add_zero(enc, self.l, self.zero.as_ref(), out);
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let l = self.l;
        let w = &mut self.w;
        let code = |a: usize, b: usize| (b * l + a) as u32;
        let only = self.pairs_only_for;
        for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
            if only.is_some_and(|bias| bias != k) {
                return;
            }
            w.add(k, code(ag, bg), 1.0);
            w.add(k, code(ap, bp), -1.0);
        });
        zero_order_update(&mut self.zero, enc, gold, pred, 1.0);
        Ok(())
    }

    fn record(&mut self) {
        self.w.record();
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            weights: OnlineWeights::SparseLinear {
                w: self.w.snapshot(),
            },
            zero_order: self.zero.as_ref().map(SparseRows::snapshot_dense),
        }
    }

    fn into_snapshot(self: Box<Self>) -> Snapshot {
        let Sp { w, zero, .. } = *self;
        let w = w.into_snapshot();
        Snapshot {
            weights: OnlineWeights::SparseLinear { w },
            zero_order: zero.map(SparseRows::into_snapshot_dense),
        }
    }
}
