//! Integration tests of `bl_core::metrics`.

use bl_core::BlError;
use bl_core::metrics::{accuracy, confusion_matrix, precision_recall_f1, rmse, roc_auc};
use proptest::prelude::*;

/// AUC by counting every (positive, negative) pair: wins count 1, ties 1/2.
fn brute_force_auc(scores: &[f64], positives: &[bool]) -> f64 {
    let mut wins = 0.0;
    let mut pairs = 0.0;
    for (i, &pi) in positives.iter().enumerate() {
        for (j, &pj) in positives.iter().enumerate() {
            if pi && !pj {
                pairs += 1.0;
                if scores[i] > scores[j] {
                    wins += 1.0;
                } else if scores[i] == scores[j] {
                    wins += 0.5;
                }
            }
        }
    }
    wins / pairs
}

#[test]
fn accuracy_counts_matches() {
    assert_eq!(accuracy(&[0, 1, 2, 1], &[0, 1, 1, 1]).unwrap(), 0.75);
    assert_eq!(accuracy(&["a", "b"], &["a", "b"]).unwrap(), 1.0);
    assert!(matches!(
        accuracy(&[0, 1], &[0]),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        accuracy::<usize>(&[], &[]),
        Err(BlError::Empty { .. })
    ));
}

#[test]
fn roc_auc_known_values() {
    // perfect, reversed, and all tied
    let pos = [false, false, true, true];
    assert_eq!(roc_auc(&[0.1, 0.2, 0.8, 0.9], &pos).unwrap(), 1.0);
    assert_eq!(roc_auc(&[0.9, 0.8, 0.2, 0.1], &pos).unwrap(), 0.0);
    assert_eq!(roc_auc(&[0.5; 4], &pos).unwrap(), 0.5);
    // scikit-learn's roc_auc_score example: y = [0, 0, 1, 1], s = [0.1, 0.4, 0.35, 0.8] -> 0.75
    assert_eq!(roc_auc(&[0.1, 0.4, 0.35, 0.8], &pos).unwrap(), 0.75);
}

#[test]
fn roc_auc_rejects_bad_input() {
    assert!(matches!(
        roc_auc(&[0.1, 0.2], &[true]),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(roc_auc(&[], &[]), Err(BlError::Empty { .. })));
    assert!(matches!(
        roc_auc(&[0.1, 0.2], &[true, true]),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    assert!(matches!(
        roc_auc(&[0.1, 0.2], &[false, false]),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    assert!(matches!(
        roc_auc(&[0.1, f64::NAN], &[true, false]),
        Err(BlError::NonFinite { index: 1, .. })
    ));
}

#[test]
fn rmse_known_value_and_bad_input() {
    assert_eq!(rmse(&[1.0, 2.0], &[1.0, 2.0]).unwrap(), 0.0);
    assert!((rmse(&[0.0, 0.0], &[3.0, 4.0]).unwrap() - 12.5f64.sqrt()).abs() < 1e-15);
    assert!(matches!(
        rmse(&[1.0], &[1.0, 2.0]),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(rmse(&[], &[]), Err(BlError::Empty { .. })));
    assert!(matches!(
        rmse(&[1.0], &[f64::INFINITY]),
        Err(BlError::NonFinite { .. })
    ));
}

#[test]
fn precision_recall_f1_counts() {
    let truth = [1, 1, 1, 0, 0, 2];
    let pred = [1, 0, 1, 1, 0, 1];
    let m = precision_recall_f1(&truth, &pred, &1).unwrap();
    assert_eq!(
        (m.true_positives, m.false_positives, m.false_negatives),
        (2, 2, 1)
    );
    assert_eq!(m.precision, 0.5);
    assert!((m.recall - 2.0 / 3.0).abs() < 1e-15);
    assert!((m.f1 - 4.0 / 7.0).abs() < 1e-15);
    // nothing predicted positive and nothing positive: all zero, no NaN
    let none = precision_recall_f1(&[0, 0], &[0, 0], &1).unwrap();
    assert_eq!((none.precision, none.recall, none.f1), (0.0, 0.0, 0.0));
    assert!(matches!(
        precision_recall_f1(&[1], &[1, 0], &1),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        precision_recall_f1::<u8>(&[], &[], &1),
        Err(BlError::Empty { .. })
    ));
}

#[test]
fn confusion_matrix_counts_and_bad_input() {
    let cm = confusion_matrix(&[0, 0, 1, 2, 2, 2], &[0, 1, 1, 2, 0, 2], 3).unwrap();
    assert_eq!(cm.counts(), [vec![1, 1, 0], vec![0, 1, 0], vec![1, 0, 2]]);
    assert_eq!(cm.get(2, 0), 1);
    assert_eq!(cm.get(5, 0), 0);
    assert_eq!(cm.n_classes(), 3);
    assert_eq!(cm.total(), 6);
    assert!((cm.accuracy() - 4.0 / 6.0).abs() < 1e-15);
    assert!(matches!(
        confusion_matrix(&[0, 3], &[0, 1], 3),
        Err(BlError::InvalidParameter { name: "truth", .. })
    ));
    assert!(matches!(
        confusion_matrix(&[0, 1], &[0, 3], 3),
        Err(BlError::InvalidParameter { name: "pred", .. })
    ));
    assert!(matches!(
        confusion_matrix(&[0], &[0], 0),
        Err(BlError::InvalidParameter {
            name: "n_classes",
            ..
        })
    ));
    assert!(matches!(
        confusion_matrix(&[0], &[0, 0], 2),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        confusion_matrix(&[], &[], 2),
        Err(BlError::Empty { .. })
    ));
}

proptest! {
    /// Scores on a coarse grid so that ties are frequent.
    #[test]
    fn roc_auc_matches_pairwise_count(
        cases in prop::collection::vec((0u8..6, any::<bool>()), 2..80)
    ) {
        let scores: Vec<f64> = cases.iter().map(|&(s, _)| f64::from(s) * 0.25).collect();
        let positives: Vec<bool> = cases.iter().map(|&(_, p)| p).collect();
        let both = positives.iter().any(|&p| p) && positives.iter().any(|&p| !p);
        match roc_auc(&scores, &positives) {
            Ok(auc) => {
                prop_assert!(both);
                let want = brute_force_auc(&scores, &positives);
                prop_assert!((auc - want).abs() <= 1e-12 * scores.len() as f64, "{auc} vs {want}");
            }
            Err(e) => {
                prop_assert!(!both);
                prop_assert!(matches!(e, BlError::TooFewClasses { found: 1 }), "{e}");
            }
        }
    }

    #[test]
    fn roc_auc_of_negated_scores_is_complement(
        cases in prop::collection::vec((-1e3f64..1e3, any::<bool>()), 2..40)
    ) {
        let scores: Vec<f64> = cases.iter().map(|&(s, _)| s).collect();
        let negated: Vec<f64> = scores.iter().map(|s| -s).collect();
        let positives: Vec<bool> = cases.iter().map(|&(_, p)| p).collect();
        if let (Ok(a), Ok(b)) = (roc_auc(&scores, &positives), roc_auc(&negated, &positives)) {
            prop_assert!((a + b - 1.0).abs() <= 1e-12 * scores.len() as f64);
        }
    }
}
