//! conlleval semantics, word F1 and label error on hand-computed cases.

use online_bilinear::OblError;
use online_bilinear::metrics::{bmes_spans, chunk_prf, label_error_rate, segmentation_prf};

fn v(tags: &[&str]) -> Vec<String> {
    tags.iter().map(|s| s.to_string()).collect()
}

#[test]
fn chunk_f1_counts_exact_spans_and_types() {
    // Gold chunks: [NP 0-1] [VP 2] [NP 3-4] [PP 5]: 4 chunks.
    let gold = vec![v(&["B-NP", "I-NP", "B-VP", "B-NP", "I-NP", "B-PP"])];
    // Predicted: [NP 0-1] (correct), [VP 2-3] (wrong end), [NP 4] (wrong start), O: 3 chunks.
    let pred = vec![v(&["B-NP", "I-NP", "B-VP", "I-VP", "B-NP", "O"])];
    let m = chunk_prf(&gold, &pred).unwrap();
    assert_eq!(
        (m.true_positives, m.false_positives, m.false_negatives),
        (1, 2, 3)
    );
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
    assert_eq!(
        (m.true_positives, m.false_positives, m.false_negatives),
        (2, 0, 0)
    );
    assert_eq!(m.f1, 1.0);
}

#[test]
fn conlleval_wrong_type_on_same_span_is_an_error_and_sentences_close_chunks() {
    let gold = vec![v(&["B-NP", "I-NP"]), v(&["I-NP"])];
    let pred = vec![v(&["B-VP", "I-VP"]), v(&["B-NP"])];
    let m = chunk_prf(&gold, &pred).unwrap();
    // First sentence: type differs; second: same one-token chunk (closed by the boundary).
    assert_eq!(
        (m.true_positives, m.false_positives, m.false_negatives),
        (1, 1, 1)
    );
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
    assert_eq!(
        (m.true_positives, m.false_positives, m.false_negatives),
        (1, 2, 2)
    );
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
