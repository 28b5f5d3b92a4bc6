//! Evaluation: word precision/recall/F1 for segmentation, chunk precision/recall/F1 with the
//! semantics of the CoNLL-2000 `conlleval` script, and the label error rate.
//!
//! Every function takes the gold and predicted tag sequences of a whole corpus (one `Vec`
//! per sentence) and returns counts pooled over the corpus, as
//! [`bl_core::metrics::PrecisionRecallF1`] (precision, recall and F1 as fractions in
//! `[0, 1]`, with the counts behind them).

use std::collections::HashSet;

use bl_core::metrics::PrecisionRecallF1;

use crate::error::{OblError, Result};

fn check<S>(context: &'static str, gold: &[Vec<S>], predicted: &[Vec<S>]) -> Result<()> {
    if gold.len() != predicted.len() {
        return Err(crate::error::shape(
            context,
            format!("as many predicted sentences as gold ({})", gold.len()),
            predicted.len(),
        ));
    }
    for (i, (g, p)) in gold.iter().zip(predicted).enumerate() {
        if g.len() != p.len() {
            return Err(crate::error::shape(
                context,
                format!("sentence {i}: as many predicted tags as gold ({})", g.len()),
                p.len(),
            ));
        }
    }
    if gold.iter().all(Vec::is_empty) {
        return Err(OblError::Core(bl_core::BlError::Empty {
            what: "evaluation corpus",
        }));
    }
    Ok(())
}

fn prf(tp: usize, found_predicted: usize, found_gold: usize) -> PrecisionRecallF1 {
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let precision = ratio(tp, found_predicted);
    let recall = ratio(tp, found_gold);
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    PrecisionRecallF1 {
        precision,
        recall,
        f1,
        true_positives: tp,
        false_positives: found_predicted - tp,
        false_negatives: found_gold - tp,
    }
}

/// Fraction of tokens whose predicted tag differs from the gold tag.
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (in [`crate::OblError::Core`]) when sentence counts or lengths differ;
/// [`bl_core::BlError::Empty`] when there is no token.
pub fn label_error_rate<S: PartialEq>(gold: &[Vec<S>], predicted: &[Vec<S>]) -> Result<f64> {
    check("label_error_rate", gold, predicted)?;
    let (mut wrong, mut total) = (0usize, 0usize);
    for (g, p) in gold.iter().zip(predicted) {
        total += g.len();
        wrong += g.iter().zip(p).filter(|(a, b)| a != b).count();
    }
    Ok(wrong as f64 / total as f64)
}

/// Word spans `[start, end)` of a BMES tag sequence: a word starts at `b` or `s` (any case),
/// or right after `e` or `s`; any other tag continues the current word. Every sequence,
/// well-formed or not, yields a segmentation covering all positions.
pub fn bmes_spans<T: AsRef<str>>(tags: &[T]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for i in 0..tags.len() {
        let tag = tags[i].as_ref();
        let begins = matches!(tag, "b" | "s" | "B" | "S");
        if i > start && begins {
            spans.push((start, i));
            start = i;
        }
        let ends = matches!(tag, "e" | "s" | "E" | "S");
        if ends {
            spans.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < tags.len() {
        spans.push((start, tags.len()));
    }
    spans
}

/// Word precision, recall and F1 of a segmentation given as BMES tags: a predicted word is
/// correct when a gold word has the same span (see [`bmes_spans`]).
///
/// # Errors
/// As [`label_error_rate`].
pub fn segmentation_prf<S: AsRef<str>>(
    gold: &[Vec<S>],
    predicted: &[Vec<S>],
) -> Result<PrecisionRecallF1> {
    check("segmentation_prf", gold, predicted)?;
    let (mut tp, mut n_pred, mut n_gold) = (0, 0, 0);
    for (g, p) in gold.iter().zip(predicted) {
        let gs: HashSet<(usize, usize)> = bmes_spans(g).into_iter().collect();
        let ps = bmes_spans(p);
        n_gold += gs.len();
        n_pred += ps.len();
        tp += ps.iter().filter(|s| gs.contains(s)).count();
    }
    Ok(prf(tp, n_pred, n_gold))
}

/// Splits a chunk tag as conlleval does: at the first `-`, `B-NP` -> (`B`, `NP`); a tag
/// without `-` has an empty type.
fn split_tag(tag: &str) -> (&str, &str) {
    match tag.find('-') {
        Some(i) => (&tag[..i], &tag[i + 1..]),
        None => (tag, ""),
    }
}

/// conlleval's `endOfChunk`: does a chunk end between the previous token and this one?
fn end_of_chunk(prev_tag: &str, tag: &str, prev_type: &str, ty: &str) -> bool {
    matches!(
        (prev_tag, tag),
        ("B", "B") | ("B", "O") | ("I", "B") | ("I", "O") | ("E", "E") | ("E", "I") | ("E", "O")
    ) || matches!(prev_tag, "]" | "[")
        || (prev_tag != "O" && prev_tag != "." && prev_type != ty)
}

/// conlleval's `startOfChunk`: does a chunk start at this token?
fn start_of_chunk(prev_tag: &str, tag: &str, prev_type: &str, ty: &str) -> bool {
    matches!(
        (prev_tag, tag),
        ("B", "B") | ("I", "B") | ("O", "B") | ("O", "I") | ("E", "E") | ("E", "I") | ("O", "E")
    ) || matches!(tag, "[" | "]")
        || (tag != "O" && tag != "." && prev_type != ty)
}

/// Chunk precision, recall and F1 with the semantics of the CoNLL-2000 `conlleval` script
/// (IOB1, IOB2 and IOE tags such as `B-NP`, `I-NP`, `O`; the script's rules, no more): a chunk starts and ends where
/// conlleval's `startOfChunk` / `endOfChunk` say, each sentence is closed by a boundary
/// token `O`, and a predicted chunk is correct when a gold chunk has the same start, end and
/// type. Counts are pooled over all chunk types (conlleval's "overall" line).
///
/// # Errors
/// As [`label_error_rate`].
pub fn chunk_prf<S: AsRef<str>>(
    gold: &[Vec<S>],
    predicted: &[Vec<S>],
) -> Result<PrecisionRecallF1> {
    check("chunk_prf", gold, predicted)?;
    let (mut correct_chunks, mut found_gold, mut found_guessed) = (0, 0, 0);
    for (g, p) in gold.iter().zip(predicted) {
        let mut in_correct = false;
        let (mut last_c, mut last_ct) = ("O", "");
        let (mut last_g, mut last_gt) = ("O", "");
        // The sentence's tokens, then conlleval's boundary token "O".
        for i in 0..=g.len() {
            let (c, ct) = if i < g.len() {
                split_tag(g[i].as_ref())
            } else {
                ("O", "")
            };
            let (q, qt) = if i < p.len() {
                split_tag(p[i].as_ref())
            } else {
                ("O", "")
            };
            let end_c = end_of_chunk(last_c, c, last_ct, ct);
            let end_g = end_of_chunk(last_g, q, last_gt, qt);
            let start_c = start_of_chunk(last_c, c, last_ct, ct);
            let start_g = start_of_chunk(last_g, q, last_gt, qt);
            if in_correct {
                if end_c && end_g && last_gt == last_ct {
                    in_correct = false;
                    correct_chunks += 1;
                } else if end_c != end_g || qt != ct {
                    in_correct = false;
                }
            }
            if start_c && start_g && qt == ct {
                in_correct = true;
            }
            if start_c {
                found_gold += 1;
            }
            if start_g {
                found_guessed += 1;
            }
            (last_c, last_ct, last_g, last_gt) = (c, ct, q, qt);
        }
        if in_correct {
            correct_chunks += 1;
        }
    }
    Ok(prf(correct_chunks, found_guessed, found_gold))
}
