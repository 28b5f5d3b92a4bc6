//! The negative conditional log-likelihood of a linear-chain CRF and its exact gradient, by
//! scaled forward-backward, summed over the sentences in parallel.
//!
//! For a sentence `x` of `n` positions with active feature sets `F_i` and tags `y`, the score
//! is `s(x, y) = sum_i sum_{k in F_i} w[k, y_i] + sum_{i >= 1} t[y_{i-1}, y_i]` (CRFsuite's
//! `crf1d`: state features and tag-bigram transitions, no start transitions), and the loss
//! `log Z(x) - s(x, y)` with `log Z(x) = log sum_y' exp s(x, y')`. Its gradient is the
//! expected feature counts under the model minus the gold counts: `p(y_i = a | x)` for the
//! state weights of `F_i` and `p(y_{i-1} = b, y_i = a | x)` for the transitions.
//!
//! Forward-backward runs on `exp` of the scores shifted by their maximum (per position for
//! the state scores, once for the transitions) with one normalizer per position, so nothing
//! overflows and `log Z` is the sum of the logs of the normalizers plus the shifts.

use chain_crf::optim::{balanced_ranges, sum_in_order};
use rayon::prelude::*;

use crate::error::{OblError, Result};
use crate::features::EncodedSentence;

/// Forward-backward over one sentence: `chain-crf`'s lattice (the same model, `crf1d`)
/// behind this crate's state scores.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lattice {
    inner: chain_crf::lattice::Lattice,
}

pub(crate) use chain_crf::lattice::exp_transitions;

/// An error of `chain-crf`'s lattice as this crate's: its shape and index errors are
/// `bl-core`'s, passed on; it has no other.
fn lattice_error(e: chain_crf::CrfError) -> OblError {
    match e {
        chain_crf::CrfError::Core(e) => OblError::Core(e),
        e => bl_core::error::build::numerical("crf lattice", e.to_string()),
    }
}

/// Which (feature, tag) pairs have a state weight, CSR by feature: the weights of feature
/// `k` are `offsets[k]..offsets[k + 1]`, for the tags `tags[j]`. Like CRFsuite's `crf1d`
/// (without its `possible_states` option), training uses the pairs seen in the training
/// data; a pair never seen keeps the weight 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StateIndex {
    offsets: Vec<usize>,
    tags: Vec<u32>,
}

impl StateIndex {
    /// Every pair: weight `j = k L + a` for `(k, a)`.
    #[cfg(test)]
    pub(crate) fn dense(n_features: usize, l: usize) -> Self {
        Self {
            offsets: (0..=n_features).map(|k| k * l).collect(),
            tags: (0..n_features * l).map(|j| (j % l) as u32).collect(),
        }
    }

    /// The pairs `(k, y_i)` with `k` active at a position `i` of tag `y_i`.
    pub(crate) fn observed(
        encoded: &[EncodedSentence],
        gold: &[Vec<usize>],
        n_features: usize,
        l: usize,
    ) -> Self {
        let mut seen = vec![false; n_features * l];
        for (enc, y) in encoded.iter().zip(gold) {
            for (i, &a) in y.iter().enumerate() {
                for &k in enc.at(i) {
                    seen[k as usize * l + a] = true;
                }
            }
        }
        let mut offsets = Vec::with_capacity(n_features + 1);
        let mut tags = Vec::new();
        offsets.push(0);
        for k in 0..n_features {
            for a in 0..l {
                if seen[k * l + a] {
                    tags.push(a as u32);
                }
            }
            offsets.push(tags.len());
        }
        Self { offsets, tags }
    }

    /// Number of state weights.
    pub(crate) fn len(&self) -> usize {
        self.tags.len()
    }

    /// The dense `K x L` state weights of the indexed weights `w`.
    pub(crate) fn to_dense(&self, w: &[f64], l: usize) -> Vec<f64> {
        let n_features = self.offsets.len() - 1;
        let mut dense = vec![0.0; n_features * l];
        for k in 0..n_features {
            for j in self.offsets[k]..self.offsets[k + 1] {
                dense[k * l + self.tags[j] as usize] = w[j];
            }
        }
        dense
    }

    /// State scores `out[i * L + a] = sum_{k in F_i} w(k, a)` of the indexed weights.
    pub(crate) fn scores(&self, enc: &EncodedSentence, l: usize, w: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.resize(enc.len() * l, 0.0);
        for i in 0..enc.len() {
            let row = &mut out[i * l..(i + 1) * l];
            for &k in enc.at(i) {
                let k = k as usize;
                for j in self.offsets[k]..self.offsets[k + 1] {
                    row[self.tags[j] as usize] += w[j];
                }
            }
        }
    }
}

/// State scores `out[i * L + a] = sum_{k in F_i} state[k * L + a]` of dense weights.
pub(crate) fn state_scores(enc: &EncodedSentence, l: usize, state: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.resize(enc.len() * l, 0.0);
    for i in 0..enc.len() {
        let row = &mut out[i * l..(i + 1) * l];
        for &k in enc.at(i) {
            let w = &state[k as usize * l..(k as usize + 1) * l];
            for a in 0..l {
                row[a] += w[a];
            }
        }
    }
}

impl Lattice {
    /// Runs forward-backward for `enc` with the state weights `state` of `index` and
    /// returns `log Z` and the state part of the score of the path `gold` (0 without one).
    /// Afterwards [`state_marginal`](Self::state_marginal) and
    /// [`edge_marginal`](Self::edge_marginal) read the marginals. `exp_trans`, `mt` come
    /// from [`exp_transitions`].
    ///
    /// # Errors
    /// The shape errors of [`chain_crf::lattice::Lattice::forward_backward`] (`exp_trans`
    /// not `L x L`), as [`OblError::Core`].
    pub(crate) fn forward_backward(
        &mut self,
        enc: &EncodedSentence,
        l: usize,
        index: &StateIndex,
        state: &[f64],
        exp_trans: &[f64],
        mt: f64,
        gold: Option<&[usize]>,
    ) -> Result<(f64, f64)> {
        // The previous sentence's buffer, reused (its marginals are no longer read).
        let mut psi = self.inner.take_buffer();
        index.scores(enc, l, state, &mut psi);
        let gold_state = gold.map_or(0.0, |y| {
            y.iter().enumerate().map(|(i, &a)| psi[i * l + a]).sum()
        });
        let log_z = self
            .inner
            .forward_backward(psi, l, exp_trans, mt)
            .map_err(lattice_error)?;
        Ok((log_z, gold_state))
    }

    /// `p(y_i = a | x)` after [`forward_backward`](Self::forward_backward).
    #[cfg(test)]
    pub(crate) fn state_marginal(&self, i: usize, a: usize, _l: usize) -> Result<f64> {
        self.inner.state_marginal(i, a).map_err(lattice_error)
    }

    /// `p(y_{i-1} = b, y_i = a | x)` for every `(b, a)` (`i >= 1`) into `out[b * L + a]`
    /// (`L x L` entries) after [`forward_backward`](Self::forward_backward); errors for a
    /// position `i` not in `1..len` or tables that are not `L x L`.
    #[inline]
    pub(crate) fn edge_marginals(
        &self,
        i: usize,
        exp_trans: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        self.inner
            .edge_marginals(i, exp_trans, out)
            .map_err(lattice_error)
    }

    /// `p(y_i = a | x)` for every tag `a` into `out` (`L` entries) after
    /// [`forward_backward`](Self::forward_backward); errors for a position `i` not in the
    /// sentence or another length of `out`.
    #[inline]
    pub(crate) fn state_marginals(&self, i: usize, out: &mut [f64]) -> Result<()> {
        self.inner.state_marginals(i, out).map_err(lattice_error)
    }

    /// `p(y_{i-1} = b, y_i = a | x)` (`i >= 1`) after
    /// [`forward_backward`](Self::forward_backward); errors for indices out of range or
    /// an `exp_trans` that is not `L x L`.
    #[cfg(test)]
    pub(crate) fn edge_marginal(
        &self,
        i: usize,
        b: usize,
        a: usize,
        _l: usize,
        exp_trans: &[f64],
    ) -> Result<f64> {
        self.inner
            .edge_marginal(i, b, a, exp_trans)
            .map_err(lattice_error)
    }
}

/// The score `s(x, y)` of a tag path under dense weights.
#[cfg(test)]
pub(crate) fn path_score(
    enc: &EncodedSentence,
    l: usize,
    state: &[f64],
    trans: &[f64],
    y: &[usize],
) -> f64 {
    let mut s = 0.0;
    for (i, &a) in y.iter().enumerate() {
        for &k in enc.at(i) {
            s += state[k as usize * l + a];
        }
        if i > 0 {
            s += trans[y[i - 1] * l + a];
        }
    }
    s
}

/// Adds the gradient of the loss of one sentence (after
/// [`Lattice::forward_backward`]) to `g_state` (the weights of `index`) and `g_trans`
/// (`L x L`).
///
/// # Errors
/// The lattice's errors for a `marg` that does not have `L` entries or an `exp_trans` or
/// `edge` that is not `L x L` (none with the caller's).
fn add_gradient(
    lat: &Lattice,
    index: &StateIndex,
    enc: &EncodedSentence,
    l: usize,
    y: &[usize],
    exp_trans: &[f64],
    g_state: &mut [f64],
    g_trans: &mut [f64],
    marg: &mut [f64],
    edge: &mut [f64],
) -> Result<()> {
    for i in 0..enc.len() {
        lat.state_marginals(i, marg)?;
        marg[y[i]] -= 1.0;
        for &k in enc.at(i) {
            let k = k as usize;
            for j in index.offsets[k]..index.offsets[k + 1] {
                g_state[j] += marg[index.tags[j] as usize];
            }
        }
        if i > 0 {
            // One checked call per position (the values and the order of the additions
            // are those of one `edge_marginal` call per entry).
            lat.edge_marginals(i, exp_trans, edge)?;
            for (g, e) in g_trans.iter_mut().zip(edge.iter()) {
                *g += e;
            }
            g_trans[y[i - 1] * l + y[i]] -= 1.0;
        }
    }
    Ok(())
}

/// One worker's share: a fixed, contiguous range of sentences and its own gradient buffer.
#[derive(Debug, Clone)]
struct Chunk {
    range: std::ops::Range<usize>,
    grad: Vec<f64>,
    lattice: Lattice,
}

/// The unregularized loss `sum_s (log Z(x_s) - s(x_s, y_s))` and its gradient over a corpus,
/// computed by a fixed number of chunks in parallel and reduced in chunk order, so the
/// result is the same bit for bit for a given number of chunks.
#[derive(Debug, Clone)]
pub(crate) struct Objective<'a> {
    encoded: &'a [EncodedSentence],
    gold: &'a [Vec<usize>],
    n_tags: usize,
    index: StateIndex,
    chunks: Vec<Chunk>,
}

impl<'a> Objective<'a> {
    /// An objective over `encoded` / `gold` (equal lengths, tags `< n_tags`, feature ids
    /// `< n_features`: checked by the caller) with the state weights of `index`, split
    /// into `n_chunks >= 1` contiguous chunks of (nearly) equal work (active features plus
    /// tokens).
    pub(crate) fn new(
        encoded: &'a [EncodedSentence],
        gold: &'a [Vec<usize>],
        index: StateIndex,
        n_tags: usize,
        n_chunks: usize,
    ) -> Self {
        let dim = index.len() + n_tags * n_tags;
        let cost = |s: usize| encoded[s].n_active() + encoded[s].len();
        let chunks = balanced_ranges(encoded.len(), n_chunks, cost)
            .into_iter()
            .map(|range| Chunk {
                range,
                grad: vec![0.0; dim],
                lattice: Lattice::default(),
            })
            .collect();
        Self {
            encoded,
            gold,
            n_tags,
            index,
            chunks,
        }
    }

    /// Number of weights: the state weights of the index, then `L L` transitions.
    pub(crate) fn dim(&self) -> usize {
        self.index.len() + self.n_tags * self.n_tags
    }

    /// The index of the state weights.
    pub(crate) fn index(&self) -> &StateIndex {
        &self.index
    }

    /// The loss at `w` (state weights then transitions); writes its gradient into `grad`.
    ///
    /// # Errors
    /// The lattice's shape errors when `w` does not have [`dim`](Self::dim) entries
    /// (its transitions are then not `L x L`); `grad` is then not fully written.
    pub(crate) fn eval(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let l = self.n_tags;
        let split = self.index.len();
        let index = &self.index;
        let (state, trans) = w.split_at(split);
        let (exp_trans, mt) = exp_transitions(trans);
        let (encoded, gold) = (self.encoded, self.gold);
        let losses: Result<Vec<f64>> = self
            .chunks
            .par_iter_mut()
            .map(|chunk| {
                chunk.grad.fill(0.0);
                let (g_state, g_trans) = chunk.grad.split_at_mut(split);
                let mut marg = vec![0.0; l];
                let mut edge = vec![0.0; l * l];
                let mut loss = 0.0;
                for s in chunk.range.clone() {
                    let (enc, y) = (&encoded[s], &gold[s]);
                    if enc.is_empty() {
                        continue;
                    }
                    let (log_z, gold_state) = chunk.lattice.forward_backward(
                        enc,
                        l,
                        index,
                        state,
                        &exp_trans,
                        mt,
                        Some(y),
                    )?;
                    let gold_trans: f64 = y.windows(2).map(|p| trans[p[0] * l + p[1]]).sum();
                    loss += log_z - gold_state - gold_trans;
                    add_gradient(
                        &chunk.lattice,
                        index,
                        enc,
                        l,
                        y,
                        &exp_trans,
                        g_state,
                        g_trans,
                        &mut marg,
                        &mut edge,
                    )?;
                }
                Ok(loss)
            })
            .collect();
        let losses = losses?;
        let grads: Vec<&[f64]> = self.chunks.iter().map(|c| c.grad.as_slice()).collect();
        sum_in_order(&grads, grad);
        Ok(losses.iter().sum())
    }
}
