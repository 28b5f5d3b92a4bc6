//! Score tables for Viterbi from the parameters of each model family (for a custom
//! [`crate::OnlineLearner`] too): each function clears `out` and writes the
//! [`crate::viterbi::score_index`] table of one sentence.
//!
//! The public functions check their input first: the table size against
//! [`crate::viterbi::score_table_len`] (at most [`crate::viterbi::MAX_SCORE_TABLE`]
//! entries), and every slice they index against the largest feature id of the sentence,
//! so a sentence encoded with another dictionary, or weights of another shape, is a typed
//! error instead of a panic or an abort. The learners of this crate, whose shapes are fixed
//! at construction and whose tables the fit loop checks, call the unchecked `*_table`
//! forms.
//!
//! Layout of parameters (`L` tags, `P = L + 1` previous states including the start state):
//! `alpha[k * L + a]`, `beta[k * P + b]`, the linear matrix-feature weights
//! `w[k * L * P + a * P + b]` (block `k`, row `a` = current tag, column `b` = previous), the
//! 0-order weights `z[k * L + a]`.

use crate::error::{Result, invalid, shape};
use crate::features::EncodedSentence;
use crate::sparse::SparseRows;
use crate::viterbi::{score_index, score_table_len};

/// The number of features a sentence reads: its largest feature id plus one (0 for a
/// sentence without features).
fn features_read(enc: &EncodedSentence) -> usize {
    (0..enc.len())
        .filter_map(|i| enc.at(i).iter().max())
        .max()
        .map_or(0, |&k| k as usize + 1)
}

/// Checks that the table of `enc` over `l` tags fits [`score_table_len`] and that
/// `values` holds `width` values for each of the `n_features` features the sentence reads.
fn check_weights(
    what: &'static str,
    values: &[f64],
    n_features: usize,
    width: usize,
) -> Result<()> {
    match n_features.checked_mul(width) {
        Some(need) if values.len() >= need => Ok(()),
        need => Err(shape(
            what,
            format!(
                "at least {} values ({n_features} features read x {width})",
                need.map_or("more than 2^64".to_string(), |n| n.to_string())
            ),
            values.len(),
        )),
    }
}

/// The checks shared by the public functions: the table size, and `zero` (when given)
/// holding `L` values for each feature read. Returns the number of features read.
/// `l` is refused above [`crate::viterbi::MAX_TAGS`] even for an empty sentence.
fn check_common(enc: &EncodedSentence, l: usize, zero: Option<&[f64]>) -> Result<usize> {
    // At least one token's table: `l` at most MAX_TAGS even for an empty sentence, so
    // `(L + 1) L` and the codes `b L + a` fit.
    score_table_len(enc.len().max(1), l)?;
    let n_features = features_read(enc);
    if let Some(z) = zero {
        check_weights("zero (0-order weights, K x L)", z, n_features, l)?;
    }
    Ok(n_features)
}

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

/// Adds feature `k`'s sparse 0-order weights (codes are tags) to `acc`.
#[inline(always)]
fn add_sparse_zero_row(zero: &SparseRows, k: usize, acc: &mut [f64]) {
    let (codes, values) = zero.row(k);
    for (&a, &x) in codes.iter().zip(values) {
        acc[a as usize] += x;
    }
}

/// [`add_zero_order`] with sparse weights (codes are tags).
pub(crate) fn add_sparse_zero_order(
    enc: &EncodedSentence,
    l: usize,
    zero: &SparseRows,
    out: &mut Vec<f64>,
) {
    add_zero_order(enc, l, |k, acc| add_sparse_zero_row(zero, k, acc), out);
}

/// [`add_zero_order`] with the sparse rows of a fitted model (codes are tags, checked
/// below `L` when the rows were made or loaded; a tag not stored adds nothing, as the
/// zero of a dense array adds nothing to sums that start at `+0`).
pub(crate) fn add_sparse_rows_zero_order(
    enc: &EncodedSentence,
    l: usize,
    rows: &crate::sparse::SparseWeights,
    out: &mut Vec<f64>,
) {
    add_zero_order(
        enc,
        l,
        |k, acc| {
            let (codes, values) = rows.row(k);
            for (&a, &x) in codes.iter().zip(values) {
                acc[a as usize] += x;
            }
        },
        out,
    );
}

/// The 0-order sums `acc[a] = sum_k z[k, a]` of one position's `features`, as
/// [`add_sparse_zero_order`] forms them before adding them to the table (`acc` holds `L`
/// values).
#[inline(always)]
pub(crate) fn sparse_zero_sums(features: &[u32], zero: &SparseRows, acc: &mut [f64]) {
    acc.fill(0.0);
    for &k in features {
        add_sparse_zero_row(zero, k as usize, acc);
    }
}

/// Adds the cells of one sparse row ([`crate::sparse`]) read after the first position
/// (codes below `L L`, `block.len()`) to the `L x L` block of a position, in code order.
#[inline(always)]
pub(crate) fn add_pair_cells(codes: &[u32], values: &[f64], block: &mut [f64]) {
    let len = block.len();
    for (&c, &v) in codes.iter().zip(values) {
        let c = c as usize;
        if c >= len {
            break;
        }
        block[c] += v;
    }
}

/// Adds the cells of one sparse row read at the first position (codes from `start = L L`
/// on, after the start state) to that position's row `first` (`first[a]` the cell of
/// code `start + a`), in code order.
#[inline(always)]
pub(crate) fn add_start_cells(codes: &[u32], values: &[f64], start: u32, first: &mut [f64]) {
    let split = codes.len() - codes.iter().rev().take_while(|&&c| c >= start).count();
    for (&c, &v) in codes[split..].iter().zip(&values[split..]) {
        first[(c - start) as usize] += v;
    }
}

/// Rows of the score table read at position `i`: the start state at 0, the tags after.
#[inline(always)]
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
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the table
/// of `enc` over `l` tags exceeds [`crate::viterbi::MAX_SCORE_TABLE`] entries
/// ([`score_table_len`]; an empty sentence counts as one token, so `l` is at most
/// [`crate::viterbi::MAX_TAGS`]); [`bl_core::BlError::ShapeMismatch`] when `alpha`, `beta` or
/// `zero` hold fewer than `L`, `L + 1` or `L` values for each feature the sentence reads
/// (up to its largest feature id). Nothing is allocated before these checks.
pub fn bilinear_scores(
    enc: &EncodedSentence,
    l: usize,
    alpha: &[f64],
    beta: &[f64],
    factor: f64,
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) -> Result<()> {
    let n_features = check_common(enc, l, zero)?;
    check_weights("alpha (K x L)", alpha, n_features, l)?;
    check_weights("beta (K x (L + 1))", beta, n_features, l + 1)?;
    bilinear_table(enc, l, alpha, beta, factor, zero, out);
    Ok(())
}

/// [`bilinear_scores`] without the checks, for the crate's learners (shapes fixed at
/// construction, tables checked by the fit loop).
pub(crate) fn bilinear_table(
    enc: &EncodedSentence,
    l: usize,
    alpha: &[f64],
    beta: &[f64],
    factor: f64,
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let p = l + 1;
    scaled_bilinear_scores(
        enc,
        l,
        |k| {
            Some((
                &alpha[k * l..(k + 1) * l],
                &beta[k * p..(k + 1) * p],
                factor,
            ))
        },
        out,
    );
    add_dense_zero_order(enc, l, zero, out);
}

/// [`bilinear_scores`] without 0-order weights and with a scale per feature: entry
/// `[i][b][a] = sum_{k in F_i} alpha_k[a] (s_k beta_k[b])`, where `factors(k)` gives
/// `(alpha_k, beta_k, s_k)` (`L` and `L + 1` values), or `None` for a zero block.
///
/// A feature whose `alpha_k` is zero is skipped, and so is each row `b` whose
/// `scale(k) beta[k, b]` is zero (bol's `alpha_k`, `beta_k` are zero outside the rows and
/// columns of `Theta_k`'s stored entries, and zero for a block never updated; bcd's
/// `alpha_k` is zero until an update touches feature `k`); the other rows get `alpha_k`
/// times that value, each cell's terms in the order of the active features. A skipped
/// term is a zero, and adding a zero to a sum that started at `+0` changes no bit, so the
/// table equals the dense sum's bit for bit. The nonzero rows of each feature are listed
/// in `2 (L + 1)` values past the end of the table (kept as capacity, so no allocation
/// once warm).
pub(crate) fn scaled_bilinear_scores<'a>(
    enc: &EncodedSentence,
    l: usize,
    factors: impl Fn(usize) -> Option<(&'a [f64], &'a [f64], f64)>,
    out: &mut Vec<f64>,
) {
    let p = l + 1;
    reset(out, enc, l);
    let len = out.len();
    out.resize(len + 2 * p, 0.0);
    let (table, scratch) = out.split_at_mut(len);
    add_rank_one_blocks(enc, l, &factors, table, scratch);
    out.truncate(len);
}

/// The loop of [`scaled_bilinear_scores`]: `scratch` holds `2 (L + 1)` values.
#[inline]
fn add_rank_one_blocks<'a>(
    enc: &EncodedSentence,
    l: usize,
    factors: &impl Fn(usize) -> Option<(&'a [f64], &'a [f64], f64)>,
    table: &mut [f64],
    scratch: &mut [f64],
) {
    for i in 0..enc.len() {
        let rows = prev_rows(i, l);
        for &k in enc.at(i) {
            let Some((alpha_k, beta_k, s)) = factors(k as usize) else {
                continue;
            };
            if alpha_k.iter().all(|&x| x == 0.0) {
                continue;
            }
            let n_beta = nonzeros(beta_k, rows.clone(), s, scratch);
            for by in scratch[..2 * n_beta].chunks_exact(2) {
                let row = &mut table[score_index(i, by[0].to_bits() as usize, 0, l)..][..l];
                let y = by[1];
                for (o, &x) in row.iter_mut().zip(alpha_k) {
                    *o += x * y;
                }
            }
        }
    }
}

/// Writes the entries `j` of `range` with `s * values[j] != 0` as pairs (the bits of `j`,
/// `s * values[j]`) into `out`; returns their number. (`s = 1` leaves a value unchanged.)
#[inline]
fn nonzeros(values: &[f64], range: std::ops::Range<usize>, s: f64, out: &mut [f64]) -> usize {
    let mut n = 0;
    for j in range {
        let y = s * values[j];
        if y != 0.0 {
            out[2 * n] = f64::from_bits(j as u64);
            out[2 * n + 1] = y;
            n += 1;
        }
    }
    n
}

/// Scores of the linear model on the matrix features: entry `[i][b][a] = sum_{k in F_i}
/// w[k, a, b] (+ sum_k z[k, a])`.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the table
/// of `enc` over `l` tags exceeds [`crate::viterbi::MAX_SCORE_TABLE`] entries
/// ([`score_table_len`]; an empty sentence counts as one token, so `l` is at most
/// [`crate::viterbi::MAX_TAGS`]); [`bl_core::BlError::ShapeMismatch`] when `w` or `zero` hold
/// fewer than `L (L + 1)` or `L` values for each feature the sentence reads.
pub fn linear_scores(
    enc: &EncodedSentence,
    l: usize,
    w: &[f64],
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) -> Result<()> {
    let n_features = check_common(enc, l, zero)?;
    check_weights("w (K x L x (L + 1))", w, n_features, (l + 1) * l)?;
    linear_table(enc, l, w, zero, out);
    Ok(())
}

/// [`linear_scores`] without the checks, for the crate's own weights.
pub(crate) fn linear_table(
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
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the table
/// of `enc` over `l` tags exceeds [`crate::viterbi::MAX_SCORE_TABLE`] entries
/// ([`score_table_len`]; an empty sentence counts as one token, so `l` is at most
/// [`crate::viterbi::MAX_TAGS`]) or a row read has a code `>= (L + 1) L`;
/// [`bl_core::BlError::ShapeMismatch`] when a row read has fewer weights than codes, or
/// `zero` fewer than `L` values for each feature the sentence reads.
pub fn sparse_scores<'w>(
    enc: &EncodedSentence,
    l: usize,
    row: impl Fn(usize) -> (&'w [u32], &'w [f64]),
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) -> Result<()> {
    check_common(enc, l, zero)?;
    let block = (l + 1) * l;
    for i in 0..enc.len() {
        for &k in enc.at(i) {
            let (codes, values) = row(k as usize);
            if values.len() < codes.len() {
                return Err(shape(
                    "sparse_scores: weights of a row",
                    format!("{} values (one per code) for feature {k}", codes.len()),
                    values.len(),
                ));
            }
            if let Some(&c) = codes.iter().find(|&&c| c as usize >= block) {
                return Err(invalid(
                    "sparse_scores: code",
                    format!("{c} in the row of feature {k}"),
                    format!("codes below (L + 1) L = {block}"),
                ));
            }
        }
    }
    sparse_table(enc, l, row, zero, out);
    Ok(())
}

/// [`sparse_scores`] without the checks, for the crate's own weights.
pub(crate) fn sparse_table<'w>(
    enc: &EncodedSentence,
    l: usize,
    row: impl Fn(usize) -> (&'w [u32], &'w [f64]),
    zero: Option<&[f64]>,
    out: &mut Vec<f64>,
) {
    let block = (l + 1) * l;
    let start = (l * l) as u32;
    reset(out, enc, l);
    if block == 0 {
        return;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The skipping loop of [`bilinear_scores`] gives the dense sum of the formula bit for
    /// bit, on factors with zero entries, zero rows and negative values.
    #[test]
    fn bilinear_scores_equal_the_dense_sum_bit_for_bit() {
        let (l, n_features) = (5, 7);
        let p = l + 1;
        // A deterministic spread of values, a third of them zero, feature 3 all zero.
        let value = |j: usize, salt: usize| -> f64 {
            let h = (j * 2654435761 + salt * 40503) % 97;
            if h.is_multiple_of(3) {
                0.0
            } else {
                (h as f64 - 48.0) / 7.0
            }
        };
        let mut alpha: Vec<f64> = (0..n_features * l).map(|j| value(j, 1)).collect();
        let beta: Vec<f64> = (0..n_features * p).map(|j| value(j, 2)).collect();
        alpha[3 * l..4 * l].fill(0.0);
        let enc =
            EncodedSentence::from_parts(vec![0, 3, 5, 9, 10], vec![0, 3, 6, 1, 2, 4, 5, 0, 3, 2]);
        let zero: Vec<f64> = (0..n_features * l).map(|j| value(j, 3)).collect();
        for factor in [1.0, -0.75] {
            let mut out = Vec::new();
            bilinear_scores(&enc, l, &alpha, &beta, factor, Some(&zero), &mut out).unwrap();
            assert_eq!(out.len(), enc.len() * p * l);
            for i in 0..enc.len() {
                for b in 0..p {
                    for a in 0..l {
                        let index = score_index(i, b, a, l);
                        let read = if i == 0 { b == l } else { b < l };
                        let mut want = 0.0;
                        if read {
                            for &k in enc.at(i) {
                                let k = k as usize;
                                want += alpha[k * l + a] * (factor * beta[k * p + b]);
                            }
                            // The 0-order sums are built first, then added.
                            let z: f64 = enc
                                .at(i)
                                .iter()
                                .fold(0.0, |s, &k| s + zero[k as usize * l + a]);
                            want += z;
                        }
                        assert_eq!(out[index].to_bits(), want.to_bits(), "[{i}][{b}][{a}]");
                    }
                }
            }
        }
    }
}
