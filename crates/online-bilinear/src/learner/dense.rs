//! What the built-in online learners share: a dense averaged weight vector ([`Linear`]),
//! a sparse sum ([`SparseSum`]), the shape check, and the 0-order weights.

use crate::error::Result;
use crate::features::EncodedSentence;
use crate::sparse::SparseRows;

/// A dense weight vector with optional averaging by the lazy-timestamp trick: an update `d`
/// made after `t` recorded steps also adds `t d` to the accumulator, so the average over
/// `T` steps is `w - acc / T` (one extra value per weight).
#[derive(Debug, Clone)]
pub(super) struct Linear {
    pub(super) w: Vec<f64>,
    acc: Option<Vec<f64>>,
    steps: u64,
}

impl Linear {
    pub(super) fn new(w: Vec<f64>, average: bool) -> Result<Self> {
        let acc = match average {
            true => Some(bl_core::limits::try_zeroed("averaged weights", &[w.len()])?),
            false => None,
        };
        Ok(Self { w, acc, steps: 0 })
    }
    #[inline]
    pub(super) fn add(&mut self, j: usize, value: f64) {
        if let Some(acc) = self.acc.as_mut() {
            acc[j] += self.steps as f64 * value;
        }
        self.w[j] += value;
    }
    pub(super) fn record(&mut self) {
        self.steps += 1;
    }
    /// The weights, the accumulators (when averaging) and the recorded steps.
    pub(super) fn into_parts(self) -> (Vec<f64>, Option<Vec<f64>>, u64) {
        (self.w, self.acc, self.steps)
    }
    /// The vector of [`into_parts`](Self::into_parts)'s parts (`acc` of `w`'s length).
    pub(super) fn from_parts(w: Vec<f64>, acc: Option<Vec<f64>>, steps: u64) -> Self {
        Self { w, acc, steps }
    }
    /// [`value`](Self::value) computed in place in the weights (the same arithmetic).
    pub(super) fn into_value(self) -> Vec<f64> {
        let mut w = self.w;
        match self.acc {
            Some(_) if self.steps == 0 => w.fill(0.0),
            Some(acc) => {
                let t = self.steps as f64;
                for (w, a) in w.iter_mut().zip(&acc) {
                    *w -= a / t;
                }
            }
            None => {}
        }
        w
    }
    pub(super) fn value(&self) -> Vec<f64> {
        match &self.acc {
            Some(_) if self.steps == 0 => vec![0.0; self.w.len()],
            Some(acc) => {
                let t = self.steps as f64;
                self.w.iter().zip(acc).map(|(w, a)| w - a / t).collect()
            }
            None => self.w.clone(),
        }
    }
}

/// The sizes of a learner for `n_features` features and `l` tags: `1 <= l <=`
/// [`MAX_TAGS`](crate::viterbi::MAX_TAGS) (a learner for more tags could not score a
/// one-token sentence), and `n_features (l + 1)` weights within
/// [`bl_core::limits::buffer_len`].
pub(super) fn check_shape(n_features: usize, l: usize) -> Result<()> {
    bl_core::params::count_in("n_tags", l, 1, crate::viterbi::MAX_TAGS)?;
    bl_core::limits::buffer_len("n_features x (n_tags + 1)", &[n_features, l + 1])?;
    Ok(())
}

/// The arguments of an online update (O(tokens + active features), no allocation):
/// `gold` and `pred` hold one tag below `l` per position of `enc`, whose feature ids are
/// below `n_features`. The fit always passes such arguments; a caller of
/// [`OnlineLearner::update`](super::OnlineLearner::update) may not.
pub(super) fn check_update(
    enc: &EncodedSentence,
    gold: &[usize],
    pred: &[usize],
    n_features: usize,
    l: usize,
) -> Result<()> {
    bl_core::error::ensure_len("update: gold (one tag per token)", enc.len(), gold.len())?;
    bl_core::error::ensure_len(
        "update: predicted (one tag per token)",
        enc.len(),
        pred.len(),
    )?;
    if let Some(&t) = gold.iter().chain(pred).find(|&&t| t >= l) {
        return Err(crate::error::invalid(
            "update: tag",
            t,
            format!("below n_tags = {l}"),
        ));
    }
    enc.check_feature_ids("update: sentence feature id", "n_features", n_features)
}

/// `n` copies of `value`, reserved with `try_reserve_exact` (`n` checked by
/// [`check_shape`]).
pub(super) fn try_filled(what: &'static str, n: usize, value: f64) -> Result<Vec<f64>> {
    let mut v: Vec<f64> = bl_core::limits::try_zeroed(what, &[n])?;
    v.fill(value);
    Ok(v)
}

/// Adds the 0-order scores of the sparse weights `zero`, when on.
pub(super) fn add_zero(
    enc: &EncodedSentence,
    l: usize,
    zero: Option<&SparseRows>,
    out: &mut Vec<f64>,
) {
    if let Some(z) = zero {
        crate::scoring::add_sparse_zero_order(enc, l, z, out);
    }
}

/// `z += step DeltaPhi_0`: at each wrongly tagged position, `+step` at (feature, gold tag)
/// and `-step` at (feature, predicted tag) of every active feature.
pub(super) fn zero_order_update(
    zero: &mut Option<SparseRows>,
    enc: &EncodedSentence,
    gold: &[usize],
    pred: &[usize],
    step: f64,
) {
    if let Some(z) = zero.as_mut() {
        for i in 0..enc.len() {
            if gold[i] != pred[i] {
                for &k in enc.at(i) {
                    z.add(k as usize, gold[i] as u32, step);
                    z.add(k as usize, pred[i] as u32, -step);
                }
            }
        }
    }
}

/// A sparse vector summed from pushed `(index, value)` terms: after [`finish`](Self::finish),
/// one `(index, sum)` per index in increasing order, each sum taken from 0 in push order.
/// Its buffers are reused, so once warm it allocates nothing.
#[derive(Debug, Default)]
pub(super) struct SparseSum {
    /// `(index, push order, value)`.
    terms: Vec<(usize, u32, f64)>,
    sums: Vec<(usize, f64)>,
}

impl SparseSum {
    #[inline]
    pub(super) fn push(&mut self, index: usize, value: f64) {
        self.terms.push((index, self.terms.len() as u32, value));
    }

    /// Sums the pushed terms by index and clears them.
    pub(super) fn finish(&mut self) {
        self.sums.clear();
        self.terms.sort_unstable_by_key(|&(j, order, _)| (j, order));
        for &(j, _, x) in &self.terms {
            match self.sums.last_mut() {
                Some((last, sum)) if *last == j => *sum += x,
                _ => self.sums.push((j, 0.0 + x)),
            }
        }
        self.terms.clear();
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, (usize, f64)> {
        self.sums.iter()
    }
}
