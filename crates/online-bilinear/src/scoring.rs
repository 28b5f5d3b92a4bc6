//! Score tables for Viterbi from the parameters of each model family (for a custom
//! [`crate::OnlineLearner`] too): each function clears `out` and writes the
//! [`crate::viterbi::score_index`] table of one sentence.
//!
//! Layout of parameters (`L` tags, `P = L + 1` previous states including the start state):
//! `alpha[k * L + a]`, `beta[k * P + b]`, the linear matrix-feature weights
//! `w[k * L * P + a * P + b]` (block `k`, row `a` = current tag, column `b` = previous), the
//! 0-order weights `z[k * L + a]`.

use crate::features::EncodedSentence;
use crate::sparse::SparseRows;
use crate::viterbi::score_index;

/// Clears `out` to the zero table of `enc`.
fn reset(out: &mut Vec<f64>, enc: &EncodedSentence, l: usize) {
    out.clear();
    out.resize(enc.len() * (l + 1) * l, 0.0);
}

/// Adds the 0-order scores `sum_k z[k, a]` (the same for every previous state) to the
/// table `out` of `enc`; `add_feature(k, acc)` adds feature `k`'s weights `z[k, .]` to
/// `acc`. Each position's sums are built in `L` values past the end of the table (kept as
/// capacity, so no allocation once warm), then added to its rows.
fn add_zero_order(
    enc: &EncodedSentence,
    l: usize,
    add_feature: impl Fn(usize, &mut [f64]),
    out: &mut Vec<f64>,
) {
    let len = out.len();
    out.resize(len + l, 0.0);
    let (table, acc) = out.split_at_mut(len);
    for i in 0..enc.len() {
        acc.fill(0.0);
        for &k in enc.at(i) {
            add_feature(k as usize, acc);
        }
        for b in prev_rows(i, l) {
            let row = score_index(i, b, 0, l);
            for (o, s) in table[row..row + l].iter_mut().zip(acc.iter()) {
                *o += s;
            }
        }
    }
    out.truncate(len);
}

/// [`add_zero_order`] with dense weights `z[k * L + a]`, when given.
fn add_dense_zero_order(enc: &EncodedSentence, l: usize, zero: Option<&[f64]>, out: &mut Vec<f64>) {
    if let Some(z) = zero {
        add_zero_order(
            enc,
            l,
            |k, acc| {
                for (s, x) in acc.iter_mut().zip(&z[k * l..(k + 1) * l]) {
                    *s += x;
                }
            },
            out,
        );
    }
}

/// [`add_zero_order`] with sparse weights (codes are tags).
pub(crate) fn add_sparse_zero_order(
    enc: &EncodedSentence,
    l: usize,
    zero: &SparseRows,
    out: &mut Vec<f64>,
) {
    add_zero_order(
        enc,
        l,
        |k, acc| {
            let (codes, values) = zero.row(k);
            for (&a, &x) in codes.iter().zip(values) {
                acc[a as usize] += x;
            }
        },
        out,
    );
}

/// Rows of the score table read at position `i`: the start state at 0, the tags after.
#[inline]
fn prev_rows(i: usize, l: usize) -> std::ops::Range<usize> {
    if i == 0 { l..l + 1 } else { 0..l }
}

/// Adds `block(k, b, a)` at `[i][b][a]` for every active feature `k` of every position `i`
/// and every previous state `b` read there.
#[inline]
fn add_blocks(
    enc: &EncodedSentence,
    l: usize,
    out: &mut [f64],
    block: impl Fn(usize, usize, usize) -> f64,
) {
    for i in 0..enc.len() {
        for &k in enc.at(i) {
            for b in prev_rows(i, l) {
                let row = score_index(i, b, 0, l);
                for (a, o) in out[row..row + l].iter_mut().enumerate() {
                    *o += block(k as usize, b, a);
                }
            }
        }
    }
}

/// Scores of the rank-1 bilinear model: entry `[i][b][a] = factor * sum_{k in F_i}
/// alpha[k, a] beta[k, b] (+ sum_k z[k, a])`.
pub fn bilinear_scores(
    enc: &EncodedSentence,
    l: usize,
    alpha: &[f64],
    beta: &[f64],
    factor: f64,
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let p = l + 1;
    reset(out, enc, l);
    add_blocks(enc, l, out, |k, b, a| {
        alpha[k * l + a] * (factor * beta[k * p + b])
    });
    add_dense_zero_order(enc, l, zero, out);
}

/// Scores of the linear model on the matrix features: entry `[i][b][a] = sum_{k in F_i}
/// w[k, a, b] (+ sum_k z[k, a])`.
pub fn linear_scores(
    enc: &EncodedSentence,
    l: usize,
    w: &[f64],
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let p = l + 1;
    reset(out, enc, l);
    add_blocks(enc, l, out, |k, b, a| w[(k * l + a) * p + b]);
    add_dense_zero_order(enc, l, zero, out);
}

/// Scores of sparse matrix-feature weights ([`crate::sparse`]): entry `[i][b][a] = sum_{k in
/// F_i} w[k, b L + a] (+ sum_k z[k, a])`, where `row(k)` gives feature `k`'s sorted codes and
/// weights. A code is the cell's offset in one position's block of the table; codes from
/// `L * L` on (start state) are read at the first position only, the others after it.
pub fn sparse_scores<'w>(
    enc: &EncodedSentence,
    l: usize,
    row: impl Fn(usize) -> (&'w [u32], &'w [f64]),
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let block = (l + 1) * l;
    let start = (l * l) as u32;
    reset(out, enc, l);
    for (i, scores) in out.chunks_exact_mut(block).enumerate() {
        for &k in enc.at(i) {
            let (codes, values) = row(k as usize);
            let split = codes.partition_point(|&c| c < start);
            let range = if i == 0 { split..codes.len() } else { 0..split };
            for (&c, &v) in codes[range.clone()].iter().zip(&values[range]) {
                scores[c as usize] += v;
            }
        }
    }
    add_dense_zero_order(enc, l, zero, out);
}
