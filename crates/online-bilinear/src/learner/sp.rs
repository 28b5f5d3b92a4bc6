//! sp, the structured perceptron on the full (not rank-1) matrix features:
//! `W += DeltaPhi` (and `w += DeltaPhi_0`), stored sparsely ([`crate::sparse`]).

use super::dense::{add_zero, check_shape, zero_order_update};
use super::{OnlineLearner, OnlineWeights, Snapshot};
use crate::delta::for_each_difference;
use crate::error::Result;
use crate::features::EncodedSentence;
use crate::scoring::{add_pair_cells, add_start_cells, sparse_table, sparse_zero_sums};
use crate::settings::LearnerSettings;
use crate::sparse::SparseRows;
use crate::viterbi::ViterbiWorkspace;
use pulp::{Simd, WithSimd};

/// sp: the structured perceptron on the matrix features, stored sparsely
/// ([`crate::sparse`]): only the cells of transitions seen in gold or predicted paths.
#[derive(Debug)]
pub struct Sp {
    l: usize,
    /// With `transitions_only`: the one feature (the bias) that keeps first-order weights.
    pairs_only_for: Option<usize>,
    w: SparseRows,
    zero: Option<SparseRows>,
    /// Dense copies of the rows with many cells, for decoding.
    dense: DenseRows,
}

/// Dense copies of the cells read after the first position (codes below `L L`) of the
/// rows of [`Sp`]'s weights that have many cells (at least an eighth of `L L`), with `0`
/// for the cells not stored, kept equal to the sparse rows by the same additions. A
/// position's block adds such a row with one vectorized pass instead of a scatter, and
/// gets the same sums bit for bit: the block's entries start at `+0` and so are never
/// `-0`, and adding `+0` to anything else changes no bit. Only for `L >= 8` (fewer tags
/// have small rows, scattered quickly).
#[derive(Debug, Default)]
struct DenseRows {
    /// `L L`; 0 when off.
    width: usize,
    /// Cells a row needs (stored, codes of the start state included) for a dense copy.
    threshold: usize,
    /// The slot of each feature's copy in `values`, [`DenseRows::NONE`] without one (empty
    /// when off).
    slot: Vec<u32>,
    values: Vec<f64>,
}

impl DenseRows {
    const NONE: u32 = u32::MAX;

    fn new(n_features: usize, l: usize) -> Result<Self> {
        if l < 8 {
            return Ok(Self::default());
        }
        let mut slot: Vec<u32> =
            bl_core::limits::try_zeroed("n_features (dense slots)", &[n_features])?;
        slot.fill(Self::NONE);
        Ok(Self {
            width: l * l,
            threshold: (l * l).div_ceil(8),
            slot,
            values: Vec::new(),
        })
    }

    /// The dense copy of feature `k`'s cells, if it has one.
    #[inline(always)]
    fn row(&self, k: usize) -> Option<&[f64]> {
        match self.slot.get(k) {
            Some(&s) if s != Self::NONE => {
                let at = s as usize * self.width;
                Some(&self.values[at..at + self.width])
            }
            _ => None,
        }
    }

    /// After `w[k, code] += value` in the sparse rows `w`: the same addition in feature
    /// `k`'s copy, or a copy of its row if it now has enough cells.
    #[inline]
    fn follow(&mut self, w: &SparseRows, k: usize, code: u32, value: f64) {
        let Some(&s) = self.slot.get(k) else {
            return;
        };
        if s != Self::NONE {
            if (code as usize) < self.width {
                self.values[s as usize * self.width + code as usize] += value;
            }
            return;
        }
        let (codes, values) = w.row(k);
        if codes.len() < self.threshold {
            return;
        }
        let at = self.values.len();
        self.slot[k] = (at / self.width) as u32;
        self.values.resize(at + self.width, 0.0);
        let copy = &mut self.values[at..];
        for (&c, &v) in codes.iter().zip(values) {
            if let Some(x) = copy.get_mut(c as usize) {
                *x = v;
            }
        }
    }
}

/// Adds feature `k`'s cells read after the first position to `block` (`L x L`): its
/// dense copy when it has one, else its sparse cells.
#[inline(always)]
fn add_row(w: &SparseRows, dense: &DenseRows, k: usize, block: &mut [f64]) {
    match dense.row(k) {
        Some(row) => {
            for (b, &x) in block.iter_mut().zip(row) {
                *b += x;
            }
        }
        None => {
            let (codes, values) = w.row(k);
            add_pair_cells(codes, values, block);
        }
    }
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
            dense: DenseRows::new(n_features, l)?,
        })
    }

    /// Number of stored matrix-feature weights.
    pub fn n_stored(&self) -> usize {
        self.w.nnz()
    }

    /// The table's path without the table: each position's first-order block and
    /// 0-order sums ([`sparse_zero_sums`]) are formed as the table's entries are, and
    /// handed to the Viterbi recursion ([`ViterbiWorkspace::step`]), which adds them as the
    /// table's entries are added, so the path is the table's. Two savings keep the sums'
    /// order: a position whose features with first-order cells (after the first position)
    /// are those of the position before, in the same order, has the same block, which is
    /// reused (with `transitions_only`, every position after the second: only the bias
    /// has such cells); and the block after the first such feature (`+0` plus its weights:
    /// the bias, at every position, when it comes first in the templates) is formed once
    /// per sentence and copied.
    ///
    /// `enc` has at least one position and `path` its length.
    #[inline(always)]
    fn decode_blocks(
        &self,
        enc: &EncodedSentence,
        scores: &mut Vec<f64>,
        ws: &mut ViterbiWorkspace,
        path: &mut [usize],
    ) {
        let (l, n) = (self.l, enc.len());
        let start = (l * l) as u32;
        // Whether feature `k` has cells read after the first position.
        let has_pairs = |k: u32| self.w.row(k as usize).0.first().is_some_and(|&c| c < start);
        scores.clear();
        scores.resize(2 * l * l + 2 * l, 0.0);
        let (block, rest) = scores.split_at_mut(l * l);
        let (base, rest) = rest.split_at_mut(l * l);
        let (first, z) = rest.split_at_mut(l);
        let mut base_of: Option<u32> = None;
        // The features with cells of the last block formed (`ids[..formed]`), then
        // those of the current position.
        let mut ids = std::mem::take(&mut ws.features);
        ids.clear();
        let mut formed = 0;
        // Position 0: the start-state row.
        for &k in enc.at(0) {
            let (codes, values) = self.w.row(k as usize);
            add_start_cells(codes, values, start, first);
        }
        let zero = self.zero.as_ref().map(|zero| {
            sparse_zero_sums(enc.at(0), zero, z);
            &*z
        });
        ws.start(n, l, first, zero);
        for i in 1..n {
            let features = enc.at(i);
            ids.truncate(formed);
            ids.extend(features.iter().copied().filter(|&k| has_pairs(k)));
            let (last, current) = ids.split_at(formed);
            if i == 1 || current != last {
                match current.first() {
                    None => block.fill(0.0),
                    Some(&k0) => {
                        if base_of != Some(k0) {
                            base.fill(0.0);
                            add_row(&self.w, &self.dense, k0 as usize, base);
                            base_of = Some(k0);
                        }
                        block.copy_from_slice(base);
                        // The features after the first with cells, in order (those
                        // without cells add nothing).
                        for &k in &current[1..] {
                            add_row(&self.w, &self.dense, k as usize, block);
                        }
                    }
                }
                ids.copy_within(formed.., 0);
                formed = ids.len() - formed;
            }
            let zero = self.zero.as_ref().map(|zero| {
                sparse_zero_sums(features, zero, z);
                &*z
            });
            ws.step(i, l, block, zero);
        }
        ws.finish(n, l, path);
        ws.features = ids;
    }
}

impl OnlineLearner for Sp {
    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) {
        sparse_table(enc, self.l, |k| self.w.row(k), None, out);
        add_zero(enc, self.l, self.zero.as_ref(), out);
    }

    /// The table's path without the table (`Sp::decode_blocks`), run in `pulp`'s
    /// widest vector registers (chosen at run time).
    fn decode(
        &self,
        enc: &EncodedSentence,
        n_tags: usize,
        scores: &mut Vec<f64>,
        ws: &mut ViterbiWorkspace,
        path: &mut [usize],
    ) -> Result<()> {
        let (l, n) = (self.l, enc.len());
        if n_tags != l || path.len() != n {
            return Err(crate::error::shape(
                "Sp::decode: tags and path",
                format!("{l} tags, {n} positions"),
                format!("{n_tags} tags, {}", path.len()),
            ));
        }
        if n == 0 {
            return Ok(());
        }
        struct Op<'a> {
            sp: &'a Sp,
            enc: &'a EncodedSentence,
            scores: &'a mut Vec<f64>,
            ws: &'a mut ViterbiWorkspace,
            path: &'a mut [usize],
        }
        impl WithSimd for Op<'_> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: Simd>(self, _simd: S) {
                let Op {
                    sp,
                    enc,
                    scores,
                    ws,
                    path,
                } = self;
                sp.decode_blocks(enc, scores, ws, path);
            }
        }
        pulp::Arch::new().dispatch(Op {
            sp: self,
            enc,
            scores,
            ws,
            path,
        });
        Ok(())
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let l = self.l;
        let (w, dense) = (&mut self.w, &mut self.dense);
        let code = |a: usize, b: usize| (b * l + a) as u32;
        let only = self.pairs_only_for;
        for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
            if only.is_some_and(|bias| bias != k) {
                return;
            }
            for (c, value) in [(code(ag, bg), 1.0), (code(ap, bp), -1.0)] {
                w.add(k, c, value);
                dense.follow(w, k, c, value);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{Template, Templates};
    use crate::params::TaggerParams;
    use bl_core::ParamGuard;

    /// sp's decoding without the table gives the path of Viterbi on the table, bit for
    /// bit the same recursion, with and without 0-order weights and transitions only,
    /// before and through updates (on its own mistakes, so the weights grow as in a fit):
    /// on 4 tags, and on 12, where rows with many cells get dense copies.
    #[test]
    fn decode_gives_the_tables_path() {
        let templates = Templates::new(vec![
            Template::unigram(0, -1),
            Template::unigram(0, 0),
            Template::bigram(0, 0, 1),
            Template::Bias,
        ])
        .unwrap();
        let corpora = [
            crate::synthetic::segmentation(60, 40, 30, 5).unwrap(),
            crate::synthetic::token_function(80, 12, 5).unwrap(),
        ];
        for corpus in corpora {
            let prepared = TaggerParams::sp()
                .templates(templates.clone())
                .check()
                .unwrap()
                .prepare(&corpus)
                .unwrap();
            let (k, l) = (prepared.features().len(), prepared.tags().len());
            let bias = prepared.features().bias_id().map(|b| b as usize);
            for (zero_order, transitions_only) in [(false, false), (true, false), (true, true)] {
                let settings = LearnerSettings {
                    zero_order,
                    transitions_only,
                    averaging: true,
                    ..LearnerSettings::default()
                };
                let mut sp = Sp::new(k, l, &settings, bias).unwrap();
                let (mut scores, mut table, mut ws) = (Vec::new(), Vec::new(), Default::default());
                for _ in 0..3 {
                    for (enc, gold) in prepared.encoded.iter().zip(&prepared.gold) {
                        sp.scores(enc, &mut table);
                        let want = crate::viterbi::viterbi(&table, enc.len(), l).unwrap();
                        let mut got = vec![0; enc.len()];
                        sp.decode(enc, l, &mut scores, &mut ws, &mut got).unwrap();
                        assert_eq!(got, want);
                        if got != *gold {
                            sp.update(enc, gold, &got).unwrap();
                        }
                        sp.record();
                    }
                }
                // The dense copies equal the sparse rows.
                assert_eq!(sp.dense.values.is_empty(), l < 8, "{l} tags");
                for f in 0..k {
                    if let Some(row) = sp.dense.row(f) {
                        for (c, &x) in row.iter().enumerate() {
                            assert_eq!(x.to_bits(), sp.w.get(f, c as u32).to_bits());
                        }
                    }
                }
            }
        }
    }
}
