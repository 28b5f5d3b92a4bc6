//! Evaluation: word precision/recall/F1 for segmentation, chunk precision/recall/F1 with the
//! semantics of the CoNLL-2000 `conlleval` script (BIO tags) or of typed spans (BIOES
//! tags), and the label error rate.
//!
//! [`evaluate`] does it all from the tags alone: it reads the tag set, picks the scheme
//! ([`TagScheme::detect`]: BMES segmentation, BIO/IOB2, BIOES, or plain per-token tags such
//! as parts of speech) and reports token accuracy with the F1 of that scheme
//! ([`Evaluation`]); [`evaluate_as`] takes the scheme from the caller.
//!
//! Every scoring function takes the gold and predicted tag sequences of a whole corpus
//! (one `Vec` per sentence) and pools its counts over the corpus; the span scores come as
//! [`bl_core::metrics::PrecisionRecallF1`] (precision, recall and F1 as fractions in
//! `[0, 1]`, with the counts behind them). [`bmes_spans`] and [`chunk_spans`] read one
//! tag sequence. [`sentence_counts_as`] gives the integer counts behind those scores one
//! sentence at a time ([`SentenceCounts`]), e.g. to resample test sentences; summed over
//! the corpus they give [`evaluate_as`]'s scores exactly.
//!
//! ```
//! use online_bilinear::metrics::{TagScheme, evaluate};
//! let gold = vec![vec!["B-PER", "I-PER", "O", "B-LOC"]];
//! let predicted = vec![vec!["B-PER", "I-PER", "O", "O"]];
//! let e = evaluate(&gold, &predicted)?;
//! assert_eq!(e.scheme, TagScheme::Bio);
//! assert_eq!(e.token_accuracy, 0.75);
//! // 1 of 1 predicted chunk is right, 1 of 2 gold chunks is found: F1 = 2/3.
//! assert!((e.f1() - 2.0 / 3.0).abs() < 1e-12);
//! # Ok::<(), online_bilinear::OblError>(())
//! ```

use std::collections::HashSet;
use std::hash::Hash;

use bl_core::error::build::shape_mismatch;

use bl_core::metrics::PrecisionRecallF1;
use serde::Serialize;

use crate::error::{OblError, Result};

fn check<S>(context: &'static str, gold: &[Vec<S>], predicted: &[Vec<S>]) -> Result<()> {
    if gold.len() != predicted.len() {
        return Err(shape_mismatch(
            context,
            format!("as many predicted sentences as gold ({})", gold.len()),
            predicted.len(),
        ));
    }
    for (i, (g, p)) in gold.iter().zip(predicted).enumerate() {
        if g.len() != p.len() {
            return Err(shape_mismatch(
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

/// Precision, recall and F1 of the spans `spans` finds in each sentence: a predicted span
/// is correct when the gold sentence has the same span.
fn span_prf<S, K: Eq + Hash>(
    context: &'static str,
    gold: &[Vec<S>],
    predicted: &[Vec<S>],
    spans: impl Fn(&[S]) -> Vec<K>,
) -> Result<PrecisionRecallF1> {
    check(context, gold, predicted)?;
    let (mut tp, mut n_pred, mut n_gold) = (0, 0, 0);
    for (g, p) in gold.iter().zip(predicted) {
        let (t, np, ng) = span_counts(g, p, &spans);
        tp += t;
        n_pred += np;
        n_gold += ng;
    }
    Ok(prf(tp, n_pred, n_gold))
}

/// The counts of [`span_prf`] in one sentence: correct, predicted and gold spans.
fn span_counts<S, K: Eq + Hash>(
    gold: &[S],
    predicted: &[S],
    spans: impl Fn(&[S]) -> Vec<K>,
) -> (usize, usize, usize) {
    let gs: HashSet<K> = spans(gold).into_iter().collect();
    let ps = spans(predicted);
    let tp = ps.iter().filter(|s| gs.contains(s)).count();
    (tp, ps.len(), gs.len())
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
    span_prf("segmentation_prf", gold, predicted, |tags| bmes_spans(tags))
}

/// Typed chunk spans `(start, end, type)` (`end` exclusive) of a BIOES tag sequence (`B-X`
/// begin, `I-X` or `M-X` inside, `E-X` end, `S-X` single, `O` outside; the type after the
/// first `-`, possibly empty). Ill-formed sequences are read leniently: `I-X`/`M-X`/`E-X`
/// not continuing a chunk of type `X` start one, and any other tag closes the open chunk.
/// On BIO tags this gives conlleval's chunks.
pub fn chunk_spans<T: AsRef<str>>(tags: &[T]) -> Vec<(usize, usize, String)> {
    let mut spans = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    let close = |open: &mut Option<(usize, &str)>, end: usize, spans: &mut Vec<_>| {
        if let Some((start, ty)) = open.take() {
            spans.push((start, end, ty.to_string()));
        }
    };
    for (i, tag) in tags.iter().enumerate() {
        let (prefix, ty) = split_tag(tag.as_ref());
        match prefix {
            "B" | "S" => {
                close(&mut open, i, &mut spans);
                open = Some((i, ty));
            }
            "I" | "M" | "E" => {
                if open.is_none_or(|(_, t)| t != ty) {
                    close(&mut open, i, &mut spans);
                    open = Some((i, ty));
                }
            }
            _ => close(&mut open, i, &mut spans),
        }
        if matches!(prefix, "E" | "S") {
            close(&mut open, i + 1, &mut spans);
        }
    }
    close(&mut open, tags.len(), &mut spans);
    spans
}

/// Chunk precision, recall and F1 of BIOES (or BMES-typed) tags: a predicted chunk is
/// correct when a gold chunk has the same start, end and type ([`chunk_spans`]). Counts are
/// pooled over all chunk types.
///
/// # Errors
/// As [`label_error_rate`].
pub fn bioes_prf<S: AsRef<str>>(
    gold: &[Vec<S>],
    predicted: &[Vec<S>],
) -> Result<PrecisionRecallF1> {
    span_prf("bioes_prf", gold, predicted, |tags| chunk_spans(tags))
}

/// The tagging scheme of a tag set, which decides the F1 an evaluation reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TagScheme {
    /// Untyped `b`/`m`/`e`/`s` (either case): word segmentation, word F1
    /// ([`segmentation_prf`]).
    Bmes,
    /// `O` and `B-X`/`I-X` (IOB1 or IOB2; the type may be absent): chunk F1 with conlleval
    /// semantics ([`chunk_prf`]).
    Bio,
    /// `O` and `B-X`/`I-X`/`M-X`/`E-X`/`S-X` with at least one `E`, `S` or `M` (BIOES,
    /// IOE, typed BMES): chunk F1 of typed spans ([`bioes_prf`]).
    Bioes,
    /// Anything else (e.g. part-of-speech tags): no F1, token accuracy only.
    Plain,
}

impl TagScheme {
    /// The scheme of a tag set (the distinct tags; order and repeats do not matter). The
    /// rule, first match wins:
    ///
    /// 1. no tag: [`Plain`](Self::Plain);
    /// 2. every tag is one of `b`, `m`, `e`, `s` (either case, no type): [`Bmes`](Self::Bmes)
    ///    (so untyped `B`, `E`, `S` is segmentation);
    /// 3. every tag is `O`: [`Plain`](Self::Plain) (there is no span to score);
    /// 4. every tag is `O` or a chunk tag `P` or `P-TYPE` with the prefix `P` one of `B`,
    ///    `I`, `M`, `E`, `S` (upper case, split at the first `-` as conlleval does): with
    ///    some `M`, `E` or `S` prefix, [`Bioes`](Self::Bioes), otherwise
    ///    [`Bio`](Self::Bio);
    /// 5. anything else (a tag such as `NN`, `-LRB-`, `PER` or `b-np`): [`Plain`](Self::Plain).
    ///
    /// Ambiguous sets are scored the same either way: `O` with `B-` tags only (every
    /// chunk one token long) is [`Bio`](Self::Bio), and [`chunk_prf`] and [`bioes_prf`]
    /// count the same chunks on it; untyped `B`/`M`/`E`/`S` is [`Bmes`](Self::Bmes), whose
    /// word spans are [`bioes_prf`]'s on well-formed tags.
    pub fn detect<S: AsRef<str>>(tags: &[S]) -> Self {
        if tags.is_empty() {
            return TagScheme::Plain;
        }
        let all = |f: fn(&str) -> bool| tags.iter().all(|t| f(t.as_ref()));
        if all(|t| matches!(t, "b" | "m" | "e" | "s" | "B" | "M" | "E" | "S")) {
            return TagScheme::Bmes;
        }
        if all(|t| t == "O") || !all(|t| chunk_prefix(t).is_some()) {
            return TagScheme::Plain;
        }
        if tags.iter().any(|t| chunk_prefix(t.as_ref()) == Some(true)) {
            TagScheme::Bioes
        } else {
            TagScheme::Bio
        }
    }
}

/// Scores of predicted tags against gold tags ([`evaluate`], [`evaluate_as`]): token
/// accuracy always, and the F1 of the tag scheme: word F1 for BMES segmentation tags,
/// chunk F1 for BIO or BIOES tags, none for other tags (e.g. parts of speech).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evaluation {
    /// Fraction of wrongly tagged tokens.
    pub label_error_rate: f64,
    /// Fraction of rightly tagged tokens (`1 - label_error_rate`).
    pub token_accuracy: f64,
    /// The scheme of the tag set, which decides the F1 below.
    pub scheme: TagScheme,
    /// Word precision/recall/F1, when the scheme is [`TagScheme::Bmes`] (segmentation).
    pub segmentation: Option<PrecisionRecallF1>,
    /// Chunk precision/recall/F1 when the scheme is [`TagScheme::Bio`] (conlleval
    /// semantics) or [`TagScheme::Bioes`] (typed spans).
    pub chunks: Option<PrecisionRecallF1>,
}

impl Evaluation {
    /// The task's precision/recall/F1 (words for segmentation, chunks for BIO/BIOES), or
    /// `None` for a tag set without spans.
    pub fn prf(&self) -> Option<PrecisionRecallF1> {
        self.segmentation.or(self.chunks)
    }

    /// The task's F1 as a fraction; NaN (never 0) when the tag set has no spans to score
    /// ([`TagScheme::Plain`]): use [`token_accuracy`](Self::token_accuracy) then.
    pub fn f1(&self) -> f64 {
        self.prf().map_or(f64::NAN, |m| m.f1)
    }
}

/// Evaluates predicted tags against gold tags with the scheme their tags call for: the
/// scheme is [`TagScheme::detect`] of the distinct tags found in `gold` and `predicted`
/// together; then as [`evaluate_as`].
///
/// # Errors
/// As [`label_error_rate`].
pub fn evaluate<S: AsRef<str>>(gold: &[Vec<S>], predicted: &[Vec<S>]) -> Result<Evaluation> {
    let mut seen = HashSet::new();
    let tags: Vec<&str> = gold
        .iter()
        .chain(predicted)
        .flatten()
        .map(AsRef::as_ref)
        .filter(|t| seen.insert(*t))
        .collect();
    evaluate_as(TagScheme::detect(&tags), gold, predicted)
}

/// Evaluates predicted tags against gold tags with a given scheme: the label error rate
/// and token accuracy, and [`segmentation_prf`] for [`TagScheme::Bmes`], [`chunk_prf`]
/// for [`TagScheme::Bio`], [`bioes_prf`] for [`TagScheme::Bioes`], no F1 for
/// [`TagScheme::Plain`].
///
/// # Errors
/// As [`label_error_rate`].
pub fn evaluate_as<S: AsRef<str>>(
    scheme: TagScheme,
    gold: &[Vec<S>],
    predicted: &[Vec<S>],
) -> Result<Evaluation> {
    check("evaluate", gold, predicted)?;
    let (mut wrong, mut total) = (0usize, 0usize);
    for (g, p) in gold.iter().zip(predicted) {
        total += g.len();
        wrong += token_errors(g, p);
    }
    let label_error_rate = wrong as f64 / total as f64;
    let (segmentation, chunks) = match scheme {
        TagScheme::Bmes => (Some(segmentation_prf(gold, predicted)?), None),
        TagScheme::Bio => (None, Some(chunk_prf(gold, predicted)?)),
        TagScheme::Bioes => (None, Some(bioes_prf(gold, predicted)?)),
        TagScheme::Plain => (None, None),
    };
    Ok(Evaluation {
        label_error_rate,
        token_accuracy: 1.0 - label_error_rate,
        scheme,
        segmentation,
        chunks,
    })
}

/// Tokens of one sentence whose predicted tag differs from the gold tag.
fn token_errors<S: AsRef<str>>(gold: &[S], predicted: &[S]) -> usize {
    gold.iter()
        .zip(predicted)
        .filter(|(a, b)| a.as_ref() != b.as_ref())
        .count()
}

/// The integer counts behind [`evaluate_as`]'s scores in one sentence (or, summed, in a
/// set of sentences: `+` and [`Sum`](std::iter::Sum) add them field by field). The span
/// counts are those of the scheme's F1 (words for [`TagScheme::Bmes`], conlleval's chunks
/// for [`TagScheme::Bio`], typed spans for [`TagScheme::Bioes`]) and are 0 under
/// [`TagScheme::Plain`].
///
/// Corpus-level scores are ratios of summed counts, not means of per-sentence scores:
/// [`label_error_rate`](Self::label_error_rate) and [`prf`](Self::prf) of the sum over a
/// corpus's sentences are exactly [`Evaluation::label_error_rate`] and [`Evaluation::prf`]
/// of [`evaluate_as`] on that corpus (for a scheme with spans).
///
/// ```
/// use online_bilinear::metrics::{SentenceCounts, TagScheme, evaluate_as, sentence_counts_as};
/// let gold = vec![vec!["B-NP", "I-NP", "O"], vec!["B-VP"]];
/// let predicted = vec![vec!["B-NP", "I-NP", "B-NP"], vec!["B-NP"]];
/// let counts = sentence_counts_as(TagScheme::Bio, &gold, &predicted)?;
/// assert_eq!((counts[0].true_positives, counts[0].predicted, counts[0].gold), (1, 2, 1));
/// assert_eq!((counts[1].errors, counts[1].tokens), (1, 1));
/// let total: SentenceCounts = counts.iter().copied().sum();
/// let e = evaluate_as(TagScheme::Bio, &gold, &predicted)?;
/// assert_eq!(total.prf(), e.chunks.unwrap());
/// assert_eq!(total.label_error_rate(), e.label_error_rate);
/// # Ok::<(), online_bilinear::OblError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct SentenceCounts {
    /// Tokens.
    pub tokens: usize,
    /// Tokens whose predicted tag differs from the gold tag.
    pub errors: usize,
    /// Predicted spans (words or chunks) that are gold spans.
    pub true_positives: usize,
    /// Predicted spans.
    pub predicted: usize,
    /// Gold spans.
    pub gold: usize,
}

impl SentenceCounts {
    /// `errors / tokens` (NaN for no token).
    pub fn label_error_rate(&self) -> f64 {
        self.errors as f64 / self.tokens as f64
    }

    /// Precision, recall and F1 of the spans (each 0 when its denominator is 0), computed
    /// as [`evaluate_as`] computes them from its pooled counts.
    pub fn prf(&self) -> PrecisionRecallF1 {
        prf(self.true_positives, self.predicted, self.gold)
    }
}

impl std::ops::Add for SentenceCounts {
    type Output = Self;

    fn add(self, o: Self) -> Self {
        Self {
            tokens: self.tokens + o.tokens,
            errors: self.errors + o.errors,
            true_positives: self.true_positives + o.true_positives,
            predicted: self.predicted + o.predicted,
            gold: self.gold + o.gold,
        }
    }
}

impl std::iter::Sum for SentenceCounts {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |a, b| a + b)
    }
}

/// The counts of [`evaluate_as`] for each sentence, in order ([`SentenceCounts`]): the
/// tokens and label errors, and the span counts of the scheme's F1.
///
/// # Errors
/// As [`label_error_rate`].
pub fn sentence_counts_as<S: AsRef<str>>(
    scheme: TagScheme,
    gold: &[Vec<S>],
    predicted: &[Vec<S>],
) -> Result<Vec<SentenceCounts>> {
    check("sentence_counts", gold, predicted)?;
    Ok(gold
        .iter()
        .zip(predicted)
        .map(|(g, p)| {
            let (true_positives, predicted, gold) = match scheme {
                TagScheme::Bmes => span_counts(g, p, |tags| bmes_spans(tags)),
                TagScheme::Bio => conlleval_counts(g, p),
                TagScheme::Bioes => span_counts(g, p, |tags| chunk_spans(tags)),
                TagScheme::Plain => (0, 0, 0),
            };
            SentenceCounts {
                tokens: g.len(),
                errors: token_errors(g, p),
                true_positives,
                predicted,
                gold,
            }
        })
        .collect())
}

/// Whether a tag is a chunk tag (`Some`) and then whether its prefix is one of BIOES's
/// beyond BIO (`M`, `E`, `S`).
fn chunk_prefix(tag: &str) -> Option<bool> {
    match split_tag(tag) {
        ("O", "") => Some(false),
        (p @ ("B" | "I" | "M" | "E" | "S"), _) => Some(matches!(p, "M" | "E" | "S")),
        _ => None,
    }
}

/// Splits a chunk tag as conlleval does: at the first `-`, `B-NP` -> (`B`, `NP`); a tag
/// without `-` has an empty type.
fn split_tag(tag: &str) -> (&str, &str) {
    match tag.find('-') {
        Some(i) => (&tag[..i], &tag[i + 1..]),
        None => (tag, ""),
    }
}

/// conlleval's `endOfChunk` and `startOfChunk`: does a chunk end between the previous
/// token and this one, and does a chunk start at this token?
fn chunk_boundaries(prev_tag: &str, tag: &str, prev_type: &str, ty: &str) -> (bool, bool) {
    let ends = matches!(
        (prev_tag, tag),
        ("B", "B") | ("B", "O") | ("I", "B") | ("I", "O") | ("E", "E") | ("E", "I") | ("E", "O")
    ) || matches!(prev_tag, "]" | "[")
        || (prev_tag != "O" && prev_tag != "." && prev_type != ty);
    let starts = matches!(
        (prev_tag, tag),
        ("B", "B") | ("I", "B") | ("O", "B") | ("O", "I") | ("E", "E") | ("E", "I") | ("O", "E")
    ) || matches!(tag, "[" | "]")
        || (tag != "O" && tag != "." && prev_type != ty);
    (ends, starts)
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
        let (correct, guessed, in_gold) = conlleval_counts(g, p);
        correct_chunks += correct;
        found_guessed += guessed;
        found_gold += in_gold;
    }
    Ok(prf(correct_chunks, found_guessed, found_gold))
}

/// The counts of [`chunk_prf`] in one sentence: conlleval's correct chunks, guessed
/// (predicted) chunks and gold chunks.
fn conlleval_counts<S: AsRef<str>>(g: &[S], p: &[S]) -> (usize, usize, usize) {
    let (mut correct_chunks, mut found_gold, mut found_guessed) = (0, 0, 0);
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
        let (end_c, start_c) = chunk_boundaries(last_c, c, last_ct, ct);
        let (end_g, start_g) = chunk_boundaries(last_g, q, last_gt, qt);
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
    (correct_chunks, found_guessed, found_gold)
}
