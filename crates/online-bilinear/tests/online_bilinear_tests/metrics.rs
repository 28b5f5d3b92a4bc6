//! conlleval semantics, BIOES spans, word F1, label error, the tag-scheme detection and the
//! evaluation that picks the scheme by itself on hand-computed cases; conlleval against
//! the span reading on random BIO sequences.

use bl_core::metrics::PrecisionRecallF1;
use online_bilinear::OblError;
use online_bilinear::metrics::{
    Evaluation, TagScheme, bioes_prf, bmes_spans, chunk_prf, chunk_spans, evaluate, evaluate_as,
    label_error_rate, segmentation_prf,
};
use proptest::prelude::*;

fn v(tags: &[&str]) -> Vec<String> {
    tags.iter().map(|s| s.to_string()).collect()
}

/// (true positives, false positives, false negatives).
fn counts(m: &PrecisionRecallF1) -> (usize, usize, usize) {
    (m.true_positives, m.false_positives, m.false_negatives)
}

#[test]
fn chunk_f1_counts_exact_spans_and_types() {
    // Gold chunks: [NP 0-1] [VP 2] [NP 3-4] [PP 5]: 4 chunks.
    let gold = vec![v(&["B-NP", "I-NP", "B-VP", "B-NP", "I-NP", "B-PP"])];
    // Predicted: [NP 0-1] (correct), [VP 2-3] (wrong end), [NP 4] (wrong start), O: 3 chunks.
    let pred = vec![v(&["B-NP", "I-NP", "B-VP", "I-VP", "B-NP", "O"])];
    let m = chunk_prf(&gold, &pred).unwrap();
    assert_eq!(counts(&m), (1, 2, 3));
    assert!((m.precision - 1.0 / 3.0).abs() < 1e-12);
    assert!((m.recall - 0.25).abs() < 1e-12);
    assert!((m.f1 - 2.0 * (1.0 / 3.0) * 0.25 / (1.0 / 3.0 + 0.25)).abs() < 1e-12);
}

#[test]
fn conlleval_starts_a_chunk_at_i_after_o_and_at_a_type_change() {
    // conlleval reads IOB1: `I-NP` after `O` starts a chunk; `I-VP` after `I-NP` too.
    let gold = vec![v(&["O", "I-NP", "I-NP", "I-VP", "O"])];
    let pred = vec![v(&["O", "B-NP", "I-NP", "B-VP", "O"])];
    let m = chunk_prf(&gold, &pred).unwrap();
    assert_eq!(counts(&m), (2, 0, 0));
    assert_eq!(m.f1, 1.0);
}

#[test]
fn conlleval_wrong_type_on_same_span_is_an_error_and_sentences_close_chunks() {
    let gold = vec![v(&["B-NP", "I-NP"]), v(&["I-NP"])];
    let pred = vec![v(&["B-VP", "I-VP"]), v(&["B-NP"])];
    let m = chunk_prf(&gold, &pred).unwrap();
    // First sentence: type differs; second: same one-token chunk (closed by the boundary).
    assert_eq!(counts(&m), (1, 1, 1));
}

#[test]
fn bmes_spans_and_word_f1() {
    assert_eq!(
        bmes_spans(&["b", "e", "s", "b", "m", "e"]),
        vec![(0, 2), (2, 3), (3, 6)]
    );
    // Ill-formed tags still segment: `m` after `s` starts a word that runs to the next end.
    assert_eq!(
        bmes_spans(&["s", "m", "e", "b"]),
        vec![(0, 1), (1, 3), (3, 4)]
    );
    // Gold words: [0,2) [2,3) [3,6); predicted: [0,2) [2,4) [4,6): 1 correct of 3 and 3.
    let gold = vec![v(&["b", "e", "s", "b", "m", "e"])];
    let pred = vec![v(&["b", "e", "b", "e", "b", "e"])];
    let m = segmentation_prf(&gold, &pred).unwrap();
    assert_eq!(counts(&m), (1, 2, 2));
    assert!((m.f1 - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn label_error_and_bad_input() {
    let gold = vec![v(&["a", "b"]), v(&["c"])];
    let pred = vec![v(&["a", "c"]), v(&["c"])];
    assert!((label_error_rate(&gold, &pred).unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert!(matches!(
        label_error_rate(&gold, &pred[..1]),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(matches!(
        chunk_prf(&[v(&["O"])], &[v(&["O", "O"])]),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    let empty: Vec<Vec<String>> = vec![vec![]];
    assert!(matches!(
        segmentation_prf(&empty, &empty),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
}

#[test]
fn bioes_spans_and_chunk_f1() {
    let tags = [
        "B-PER", "E-PER", "O", "S-LOC", "B-ORG", "I-ORG", "E-ORG", "S-LOC",
    ];
    let span = |s: usize, e: usize, t: &str| (s, e, t.to_string());
    assert_eq!(
        chunk_spans(&tags),
        vec![
            span(0, 2, "PER"),
            span(3, 4, "LOC"),
            span(4, 7, "ORG"),
            span(7, 8, "LOC")
        ]
    );
    // Lenient reading: `E-X` alone is a chunk, a type change inside starts a new one,
    // and a chunk still open at the end is closed there.
    assert_eq!(
        chunk_spans(&["E-A", "I-A", "I-B", "M-B", "O", "I-C"]),
        vec![
            span(0, 1, "A"),
            span(1, 2, "A"),
            span(2, 4, "B"),
            span(5, 6, "C")
        ]
    );
    let gold = vec![v(&tags)];
    // Predicted: PER right, LOC right, ORG ends early (wrong), last LOC typed PER (wrong).
    let pred = vec![v(&[
        "B-PER", "E-PER", "O", "S-LOC", "B-ORG", "E-ORG", "O", "S-PER",
    ])];
    let m = bioes_prf(&gold, &pred).unwrap();
    assert_eq!(counts(&m), (2, 2, 2));
    assert!((m.f1 - 0.5).abs() < 1e-12);
}

#[test]
fn tag_schemes_are_detected_from_the_tag_set() {
    for (tags, scheme) in [
        (&["b", "m", "e", "s"][..], TagScheme::Bmes),
        (&["B", "E", "S"], TagScheme::Bmes),
        (&["O", "B-NP", "I-NP", "B-VP"], TagScheme::Bio),
        (&["O", "I-NP", "B-NP"], TagScheme::Bio),
        (&["B", "I", "O"], TagScheme::Bio),
        (&["O", "B-PER", "E-PER", "S-LOC", "I-PER"], TagScheme::Bioes),
        (&["B-NR", "M-NR", "E-NR", "S-PU"], TagScheme::Bioes),
        (
            &["DT", "NN", "IN", "VBD", "-LRB-", "PRP$"],
            TagScheme::Plain,
        ),
        (&["NOUN", "VERB", "ADP"], TagScheme::Plain),
        (&["O", "B-NP", "NN"], TagScheme::Plain),
        (&[], TagScheme::Plain),
        // Ambiguous or degenerate sets, by the documented rule.
        (&["O"], TagScheme::Plain),
        (&["O", "O"], TagScheme::Plain),
        (&["O", "B-PER", "B-LOC"], TagScheme::Bio),
        (&["B-PER"], TagScheme::Bio),
        (&["S-PER", "O"], TagScheme::Bioes),
        (&["I-NP", "E-NP", "O"], TagScheme::Bioes),
        (&["B", "M", "E", "S"], TagScheme::Bmes),
        (&["b", "s"], TagScheme::Bmes),
        (&["B", "E", "S", "O"], TagScheme::Bioes),
        (&["B", "O"], TagScheme::Bio),
        (&["b-np", "o"], TagScheme::Plain),
        (&["PER", "LOC", "O"], TagScheme::Plain),
        (&["O", "B-NP", ""], TagScheme::Plain),
    ] {
        assert_eq!(TagScheme::detect(tags), scheme, "{tags:?}");
    }
}

/// Evaluates `pred` against `gold` and checks the evaluation against hand-computed
/// numbers: scheme, token accuracy and the span counts (true positives, false positives,
/// false negatives), or none. Returns the evaluation.
#[track_caller]
fn assert_evaluates(
    (gold, pred): (&[Vec<&str>], &[Vec<&str>]),
    scheme: TagScheme,
    accuracy: f64,
    spans: Option<(usize, usize, usize)>,
) -> Evaluation {
    let e = evaluate(gold, pred).unwrap();
    assert_eq!(e.scheme, scheme, "{e:?}");
    assert!((e.token_accuracy - accuracy).abs() < 1e-12, "{e:?}");
    assert!(
        (e.label_error_rate - (1.0 - accuracy)).abs() < 1e-12,
        "{e:?}"
    );
    assert_eq!(e.prf().as_ref().map(counts), spans, "{e:?}");
    match spans {
        Some((tp, fp, fn_)) => {
            // F1 = 2 tp / (2 tp + fp + fn), computed here from the counts.
            let f1 = 2.0 * tp as f64 / (2 * tp + fp + fn_) as f64;
            assert!((e.f1() - f1).abs() < 1e-12, "{e:?}: F1 {f1}");
        }
        None => assert!(e.f1().is_nan() && e.chunks.is_none() && e.segmentation.is_none()),
    }
    assert_eq!(e.segmentation.is_some(), scheme == TagScheme::Bmes, "{e:?}");
    e
}

#[test]
fn evaluate_picks_word_f1_for_bmes_tags() {
    // Gold words [0,2) [2,3) [3,6); predicted [0,2) [2,4) [4,6): 1 right of 3 and 3.
    // Tokens: b e right, then s/b, b/e, m/b wrong, e right: 3 of 6.
    let gold = vec![vec!["b", "e", "s", "b", "m", "e"]];
    let pred = vec![vec!["b", "e", "b", "e", "b", "e"]];
    let e = assert_evaluates((&gold, &pred), TagScheme::Bmes, 0.5, Some((1, 2, 2)));
    assert!((e.f1() - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn evaluate_picks_conlleval_for_bio_tags() {
    // Gold chunks PER [0,2), LOC [3,4); predicted PER [0,2), ORG [3,4): PER right, ORG
    // wrong (type), LOC missed: P = R = F1 = 1/2. Tokens: 4 of 5 right.
    let gold = vec![vec!["B-PER", "I-PER", "O", "B-LOC", "O"]];
    let pred = vec![vec!["B-PER", "I-PER", "O", "B-ORG", "O"]];
    let e = assert_evaluates((&gold, &pred), TagScheme::Bio, 0.8, Some((1, 1, 1)));
    assert_eq!(e.f1(), 0.5);
}

#[test]
fn evaluate_picks_typed_spans_for_bioes_tags() {
    // Gold PER [0,1), LOC [2,4); predicted PER [0,1), LOC [2,3): 1 right, 1 wrong, 1
    // missed. Tokens: S-PER and O right, the last two wrong: 2 of 4.
    let gold = vec![vec!["S-PER", "O", "B-LOC", "E-LOC"]];
    let pred = vec![vec!["S-PER", "O", "S-LOC", "O"]];
    assert_evaluates((&gold, &pred), TagScheme::Bioes, 0.5, Some((1, 1, 1)));
    // Two sentences pool their counts: the second adds one right chunk (IOE tags).
    let gold2 = vec![gold[0].clone(), vec!["I-NP", "E-NP"]];
    let pred2 = vec![pred[0].clone(), vec!["I-NP", "E-NP"]];
    assert_evaluates(
        (&gold2, &pred2),
        TagScheme::Bioes,
        4.0 / 6.0,
        Some((2, 1, 1)),
    );
}

#[test]
fn evaluate_scores_plain_tags_per_token() {
    let gold = vec![vec!["DT", "NN", "VBD"], vec!["PRP", "VBZ"]];
    let pred = vec![vec!["DT", "NN", "VBN"], vec!["PRP", "VBZ"]];
    assert_evaluates((&gold, &pred), TagScheme::Plain, 0.8, None);
    // Only `O` in both: no span to score, so no F1 (not an F1 of 0).
    assert_evaluates(
        (&[vec!["O", "O"]], &[vec!["O", "O"]]),
        TagScheme::Plain,
        1.0,
        None,
    );
}

#[test]
fn evaluate_on_ambiguous_tag_sets() {
    // Only `O` and `B-` tags: read as BIO, and BIOES's spans count the same. Gold X [0],
    // Y [2], Y [3]; predicted X [0], X [1], Y [3]: 2 right, 1 wrong, 1 missed.
    let gold = vec![vec!["B-X", "O", "B-Y", "B-Y"]];
    let pred = vec![vec!["B-X", "B-X", "O", "B-Y"]];
    let e = assert_evaluates((&gold, &pred), TagScheme::Bio, 0.5, Some((2, 1, 1)));
    assert_eq!(
        evaluate_as(TagScheme::Bioes, &gold, &pred).unwrap().chunks,
        e.chunks
    );
    // The scheme is read from gold and predicted together: a predicted `E-` tag makes
    // BIO-looking gold tags BIOES. Gold X [0,2); predicted X [0,2) closed by E-X: right.
    let gold = vec![vec!["B-X", "I-X", "O"]];
    let pred = vec![vec!["B-X", "E-X", "O"]];
    assert_evaluates((&gold, &pred), TagScheme::Bioes, 2.0 / 3.0, Some((1, 0, 0)));
    // Untyped B/I/O: chunks without a type. Gold [0,2) [3,4); predicted [0,1) [3,4).
    let gold = vec![vec!["B", "I", "O", "B"]];
    let pred = vec![vec!["B", "O", "O", "B"]];
    assert_evaluates((&gold, &pred), TagScheme::Bio, 0.75, Some((1, 1, 1)));
    // Untyped upper-case B/M/E/S is segmentation: words [0,2) [2,3) both right.
    assert_evaluates(
        (&[vec!["B", "E", "S"]], &[vec!["B", "E", "S"]]),
        TagScheme::Bmes,
        1.0,
        Some((2, 0, 0)),
    );
    // A tag outside every scheme (here an empty prediction) makes it plain.
    assert_evaluates(
        (&[vec!["B-X", "O"]], &[vec!["", "O"]]),
        TagScheme::Plain,
        0.5,
        None,
    );
}

#[test]
fn evaluate_checks_its_input() {
    assert!(matches!(
        evaluate(&[vec!["O"]], &[vec!["O", "O"]]),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(matches!(
        evaluate(&[vec!["O"]], &[]),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    let empty: Vec<Vec<&str>> = vec![vec![]];
    assert!(matches!(
        evaluate_as(TagScheme::Plain, &empty, &empty),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
}

fn bio_sequence(len: usize) -> impl Strategy<Value = Vec<String>> {
    let tag = prop::sample::select(vec!["O", "B-NP", "I-NP", "B-VP", "I-VP"]);
    prop::collection::vec(tag.prop_map(String::from), len)
}

fn gold_and_predicted() -> impl Strategy<Value = (Vec<Vec<String>>, Vec<Vec<String>>)> {
    prop::collection::vec(1usize..12, 1..5).prop_flat_map(|lengths| {
        let sentences =
            |lengths: &[usize]| lengths.iter().map(|&n| bio_sequence(n)).collect::<Vec<_>>();
        (sentences(&lengths), sentences(&lengths))
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 500,
        rng_seed: proptest::test_runner::RngSeed::Fixed(41),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// conlleval's state machine and the typed-span reading count the same chunks on any
    /// BIO sequence, well-formed (IOB2) or not (IOB1, stray `I-X`).
    #[test]
    fn conlleval_equals_the_span_reading_on_bio_tags((gold, pred) in gold_and_predicted()) {
        let a = chunk_prf(&gold, &pred).unwrap();
        let b = bioes_prf(&gold, &pred).unwrap();
        prop_assert_eq!(counts(&a), counts(&b));
    }
}
