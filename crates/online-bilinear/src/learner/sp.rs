//! sp, the structured perceptron on the full (not rank-1) matrix features:
//! `W += DeltaPhi` (and `w += DeltaPhi_0`), stored sparsely ([`crate::sparse`]).

use super::dense::{add_zero, check_shape, check_update, zero_order_update};
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
    /// The size of an update: 1, or the number of shards for the scaled weights of
    /// [`crate::distributed`] (an integer, so the weights stay integers).
    step: f64,
}

/// Dense copies of the cells read after the first position (codes below `L L`) of the
/// rows of [`Sp`]'s weights that have many cells (at least a quarter of `L L`), with `0`
/// for the cells not stored, kept equal to the sparse rows by the same additions. A
/// position's block adds or subtracts such a row in one vectorized pass instead of a
/// scatter ([`Sp::decode_blocks`]). Only for `L >= 8` (fewer tags have small rows,
/// scattered quickly).
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
            threshold: (l * l).div_ceil(4),
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

impl Sp {
    /// sp for `n_features` features and `l` tags with `settings` (`averaging`,
    /// `zero_order`, `transitions_only`); `bias` is the id of the bias feature, if any.
    ///
    /// # Errors
    /// `transitions_only` without a bias feature in range;
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for
    /// `settings` out of range ([`LearnerSettings::check`]), no tag,
    /// more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, `n_features (l + 1)` above
    /// [`bl_core::limits::MAX_ELEMENTS`], or stores that cannot be allocated.
    pub fn new(
        n_features: usize,
        l: usize,
        settings: &LearnerSettings,
        bias: Option<usize>,
    ) -> Result<Self> {
        settings.check()?;
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
            step: 1.0,
        })
    }

    /// sp as [`new`](Self::new) builds it, holding the weights `w` and `zero` (rows of
    /// width `(l + 1) l` and `l`, averaging as `settings` say) and taking updates of size
    /// `step` (a positive integer): the state [`crate::distributed`] starts a shard from.
    ///
    /// # Errors
    /// As [`new`](Self::new); an invalid-parameter error when the stores do not have
    /// `n_features` rows of those widths, do not average as `settings` say, or `step` is
    /// not a positive integer.
    pub(crate) fn from_parts(
        n_features: usize,
        l: usize,
        settings: &LearnerSettings,
        bias: Option<usize>,
        (w, zero, step): (SparseRows, Option<SparseRows>, f64),
    ) -> Result<Self> {
        let mut sp = Self::new(n_features, l, settings, bias)?;
        let fits = |rows: &SparseRows, width: usize| {
            rows.n_rows() == n_features
                && rows.width() == width
                && rows.averaging() == settings.averaging
        };
        if !fits(&w, (l + 1) * l)
            || zero.is_some() != settings.zero_order
            || zero.as_ref().is_some_and(|z| !fits(z, l))
            || !(step >= 1.0 && step.fract() == 0.0 && step < 9.0e15)
        {
            return Err(bl_core::params::invalid(
                "sp state",
                "weights of other sizes or settings, or a step that is not a positive integer",
                "the sizes and settings of the learner",
            )
            .into());
        }
        for k in 0..n_features {
            let (codes, _) = w.row(k);
            if let Some(&code) = codes.last() {
                sp.dense.follow(&w, k, code, 0.0);
            }
        }
        sp.w = w;
        sp.zero = zero;
        sp.step = step;
        Ok(sp)
    }

    /// The first-order and 0-order stores and the step (what [`from_parts`](Self::from_parts)
    /// takes).
    pub(crate) fn into_parts(self) -> (SparseRows, Option<SparseRows>, f64) {
        (self.w, self.zero, self.step)
    }

    /// Number of stored matrix-feature weights.
    pub fn n_stored(&self) -> usize {
        self.w.nnz()
    }

    /// The table's path without the table: each position's first-order block (`L x L`)
    /// and 0-order sums ([`sparse_zero_sums`]) go to the Viterbi recursion
    /// ([`ViterbiWorkspace::step`]) as the position is reached.
    ///
    /// sp's weights during training are integers (an update adds `+1` or `-1` to a weight,
    /// and the fit decodes with the current weights, not their averages), so every sum of
    /// them is exact, in any order, and the recursion compares the table's exact values:
    /// the path is the table's, bit for bit. So the block is formed incrementally: the
    /// rows with a dense copy ([`DenseRows`]) of the position are kept as a running sum,
    /// from which only the rows that leave are subtracted and to which only those that
    /// come are added (the bias, the flags and shapes stay from one word to the next); the
    /// cells of the other rows are scattered onto a copy of that sum; and a position with
    /// the dense rows of the position before and no scattered row reuses the block (with
    /// `transitions_only`, every position once the bias has a dense copy).
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
        // Whether feature `k` can have cells read after the first position, and has.
        let only = self.pairs_only_for;
        let may_pair = |k: u32| only.is_none_or(|b| b == k as usize);
        let has_pairs = |k: u32| self.w.row(k as usize).0.first().is_some_and(|&c| c < start);
        let is_dense = |k: u32| may_pair(k) && self.dense.row(k as usize).is_some();
        scores.clear();
        scores.resize(2 * l * l + 2 * l, 0.0);
        let (block, rest) = scores.split_at_mut(l * l);
        let (dense_sum, rest) = rest.split_at_mut(l * l);
        let (first, z) = rest.split_at_mut(l);
        // `ids[..kept]`: the dense rows in `dense_sum` (sorted); after them, those of the
        // current position (sorted), then its scattered rows.
        let mut ids = std::mem::take(&mut ws.features);
        ids.clear();
        let mut kept = 0;
        // Whether `block` equals `dense_sum` (both start at 0).
        let mut block_is_sum = true;
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
        let mut touched = 0u32;
        for i in 1..n {
            let features = enc.at(i);
            // Load the rows of the next position now: their cache misses overlap with this
            // position's work instead of stalling the next one.
            if i + 1 < n {
                touched = touched.wrapping_add(self.touch(enc.at(i + 1)));
            }
            ids.truncate(kept);
            ids.extend(features.iter().copied().filter(|&k| is_dense(k)));
            let n_dense = ids.len() - kept;
            ids[kept..].sort_unstable();
            ids.extend(
                features
                    .iter()
                    .copied()
                    .filter(|&k| may_pair(k) && !is_dense(k) && has_pairs(k)),
            );
            let (last, current) = ids.split_at(kept);
            let (dense_rows, scattered) = current.split_at(n_dense);
            let changed = update_dense_sum(&self.dense, last, dense_rows, dense_sum);
            if changed || !scattered.is_empty() || !block_is_sum {
                block.copy_from_slice(dense_sum);
                for &k in scattered {
                    let (codes, values) = self.w.row(k as usize);
                    add_pair_cells(codes, values, block);
                }
                block_is_sum = scattered.is_empty();
            }
            ids.copy_within(kept..kept + n_dense, 0);
            kept = n_dense;
            let zero = self.zero.as_ref().map(|zero| {
                sparse_zero_sums(features, zero, z);
                &*z
            });
            ws.step(i, l, block, zero);
        }
        ws.finish(n, l, path);
        ws.features = ids;
        std::hint::black_box(touched);
    }

    /// Reads the first cell of the rows (first-order and 0-order) of `features`, so that
    /// they are in the cache when they are used; returns a value of them (to keep the reads).
    #[inline(always)]
    fn touch(&self, features: &[u32]) -> u32 {
        let mut out = 0u32;
        for &k in features {
            let k = k as usize;
            let (codes, values) = self.w.row(k);
            out = out.wrapping_add(codes.first().copied().unwrap_or(0));
            out = out.wrapping_add(values.first().map_or(0, |v| v.to_bits() as u32));
            if let Some(zero) = &self.zero {
                let (codes, values) = zero.row(k);
                out = out.wrapping_add(codes.first().copied().unwrap_or(0));
                out = out.wrapping_add(values.first().map_or(0, |v| v.to_bits() as u32));
            }
        }
        out
    }
}

/// Turns `sum`, the sum of the dense copies of the rows `last` (sorted), into that of the
/// rows `next` (sorted): subtracts the rows only in `last`, adds those only in `next`
/// (as multisets); returns whether any changed. Exact for sp's integer weights.
#[inline(always)]
fn update_dense_sum(dense: &DenseRows, last: &[u32], next: &[u32], sum: &mut [f64]) -> bool {
    let (mut p, mut q, mut changed) = (0, 0, false);
    loop {
        let (leave, come) = match (last.get(p), next.get(q)) {
            (None, None) => return changed,
            (Some(a), Some(b)) if a == b => {
                (p, q) = (p + 1, q + 1);
                continue;
            }
            (Some(&a), Some(&b)) if a < b => (Some(a), None),
            (Some(&a), None) => (Some(a), None),
            (_, Some(&b)) => (None, Some(b)),
        };
        changed = true;
        if let Some(k) = leave {
            p += 1;
            if let Some(row) = dense.row(k as usize) {
                for (s, &x) in sum.iter_mut().zip(row) {
                    *s -= x;
                }
            }
        }
        if let Some(k) = come {
            q += 1;
            if let Some(row) = dense.row(k as usize) {
                for (s, &x) in sum.iter_mut().zip(row) {
                    *s += x;
                }
            }
        }
    }
}

impl OnlineLearner for Sp {
    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        enc.check_feature_ids("scores: sentence feature id", "n_features", self.w.n_rows())?;
        sparse_table(enc, self.l, |k| self.w.row(k), None, out);
        add_zero(enc, self.l, self.zero.as_ref(), out);
        Ok(())
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
        enc.check_feature_ids("decode: sentence feature id", "n_features", self.w.n_rows())?;
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
        check_update(enc, gold, pred, self.w.n_rows(), self.l)?;
        let l = self.l;
        let (w, dense) = (&mut self.w, &mut self.dense);
        let code = |a: usize, b: usize| (b * l + a) as u32;
        let (only, step) = (self.pairs_only_for, self.step);
        for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
            if only.is_some_and(|bias| bias != k) {
                return;
            }
            // Integer steps (1, or the shard count of `crate::distributed`): the weights
            // stay integers, which `decode_blocks` relies on.
            for (c, value) in [(code(ag, bg), step), (code(ap, bp), -step)] {
                w.add(k, c, value);
                dense.follow(w, k, c, value);
            }
        });
        zero_order_update(&mut self.zero, enc, gold, pred, step);
        Ok(())
    }

    fn record(&mut self) {
        self.w.record();
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn take_sparse_zero_order(&mut self) -> Option<crate::sparse::SparseWeights> {
        self.zero.take().map(SparseRows::into_snapshot)
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
                        sp.scores(enc, &mut table).unwrap();
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
