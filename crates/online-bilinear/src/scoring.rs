//! Score tables for Viterbi from the parameters of each model family.
//!
//! Layout of parameters (`L` tags, `P = L + 1` previous states including the start state):
//! `alpha[k * L + a]`, `beta[k * P + b]`, the linear matrix-feature weights
//! `w[k * L * P + a * P + b]` (block `k`, row `a` = current tag, column `b` = previous), the
//! 0-order weights `z[k * L + a]`.

use crate::features::EncodedSentence;
use crate::viterbi::score_index;

fn reset(out: &mut Vec<f64>, n: usize, l: usize) {
    out.clear();
    out.resize(n * (l + 1) * l, 0.0);
}

/// Rows of the score table read at position `i`: the start state at 0, the tags after.
#[inline]
fn prev_rows(i: usize, l: usize) -> std::ops::Range<usize> {
    if i == 0 { l..l + 1 } else { 0..l }
}

fn add_zero_order(enc: &EncodedSentence, l: usize, z: &[f64], out: &mut [f64], acc: &mut [f64]) {
    for i in 0..enc.len() {
        acc.fill(0.0);
        for &k in enc.at(i) {
            let zk = &z[k as usize * l..(k as usize + 1) * l];
            for a in 0..l {
                acc[a] += zk[a];
            }
        }
        for b in prev_rows(i, l) {
            for a in 0..l {
                out[score_index(i, b, a, l)] += acc[a];
            }
        }
    }
}

/// Scores of the rank-1 bilinear model: entry `[i][b][a] = factor * sum_{k in F_i}
/// alpha[k, a] beta[k, b] (+ sum_k z[k, a])`.
pub(crate) fn bilinear_scores(
    enc: &EncodedSentence,
    l: usize,
    alpha: &[f64],
    beta: &[f64],
    factor: f64,
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let n = enc.len();
    let p = l + 1;
    reset(out, n, l);
    let mut acc = vec![0.0; l];
    for i in 0..n {
        for &k in enc.at(i) {
            let k = k as usize;
            let ak = &alpha[k * l..(k + 1) * l];
            let bk = &beta[k * p..(k + 1) * p];
            for b in prev_rows(i, l) {
                let fb = factor * bk[b];
                let row = score_index(i, b, 0, l);
                for a in 0..l {
                    out[row + a] += ak[a] * fb;
                }
            }
        }
    }
    if let Some(z) = zero {
        add_zero_order(enc, l, z, out, &mut acc);
    }
}

/// Scores of the linear model on the matrix features: entry `[i][b][a] = sum_{k in F_i}
/// w[k, a, b] (+ sum_k z[k, a])`.
pub(crate) fn linear_scores(
    enc: &EncodedSentence,
    l: usize,
    w: &[f64],
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let n = enc.len();
    let p = l + 1;
    reset(out, n, l);
    let mut acc = vec![0.0; l];
    for i in 0..n {
        for &k in enc.at(i) {
            let wk = &w[k as usize * l * p..(k as usize + 1) * l * p];
            for b in prev_rows(i, l) {
                let row = score_index(i, b, 0, l);
                for a in 0..l {
                    out[row + a] += wk[a * p + b];
                }
            }
        }
    }
    if let Some(z) = zero {
        add_zero_order(enc, l, z, out, &mut acc);
    }
}
