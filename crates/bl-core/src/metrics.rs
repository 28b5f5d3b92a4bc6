//! Evaluation metrics: accuracy, ROC AUC, RMSE, precision/recall/F1, confusion matrices.
//!
//! Every function checks that its inputs are non-empty and of equal length and returns a
//! typed error otherwise; none panics on user input.

use serde::Serialize;

use crate::error::{BlError, Result, ensure_finite, ensure_len, ensure_nonempty};

/// Checks the two inputs of a metric: equal lengths, not empty.
fn check_pair(context: &'static str, truth_len: usize, pred_len: usize) -> Result<()> {
    ensure_len(context, truth_len, pred_len)?;
    ensure_nonempty(context, truth_len)
}

/// Fraction of positions where `pred` equals `truth`, in `[0, 1]`.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the lengths differ; [`BlError::Empty`] when empty.
pub fn accuracy<T: PartialEq>(truth: &[T], pred: &[T]) -> Result<f64> {
    check_pair("accuracy", truth.len(), pred.len())?;
    let hits = truth.iter().zip(pred).filter(|(a, b)| a == b).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// Area under the ROC curve of `scores` for the binary truth `positives`.
///
/// Computed as the Mann–Whitney statistic with average ranks for tied scores:
/// `AUC = (R_+ - P (P + 1) / 2) / (P N)`, where `R_+` is the rank sum of the `P` positive
/// samples and `N` the number of negatives. This equals the probability that a random
/// positive scores above a random negative, ties counting one half. `O(n log n)`.
///
/// # Errors
/// - [`BlError::ShapeMismatch`] when the lengths differ, [`BlError::Empty`] when empty;
/// - [`BlError::NonFinite`] when a score is NaN or infinite;
/// - [`BlError::TooFewClasses`] when all samples are positive or all negative.
pub fn roc_auc(scores: &[f64], positives: &[bool]) -> Result<f64> {
    check_pair("roc_auc", positives.len(), scores.len())?;
    ensure_finite("roc_auc scores", scores)?;
    let n = scores.len();
    let n_pos = positives.iter().filter(|&&p| p).count();
    let n_neg = n - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return Err(BlError::TooFewClasses { found: 1 });
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    // Sum of (1-based) ranks of the positives, ties sharing their average rank.
    let mut rank_sum = 0.0;
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && scores[order[end]] == scores[order[start]] {
            end += 1;
        }
        let average_rank = (start + 1 + end) as f64 / 2.0;
        let pos_in_group = order[start..end].iter().filter(|&&i| positives[i]).count();
        rank_sum += average_rank * pos_in_group as f64;
        start = end;
    }
    let p = n_pos as f64;
    Ok((rank_sum - p * (p + 1.0) / 2.0) / (p * n_neg as f64))
}

/// Root mean squared difference `sqrt(mean((a_i - b_i)^2))`.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the lengths differ; [`BlError::Empty`] when empty;
/// [`BlError::NonFinite`] when a value is NaN or infinite.
pub fn rmse(a: &[f64], b: &[f64]) -> Result<f64> {
    check_pair("rmse", a.len(), b.len())?;
    ensure_finite("rmse first argument", a)?;
    ensure_finite("rmse second argument", b)?;
    let sum: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    Ok((sum / a.len() as f64).sqrt())
}

/// Precision, recall and F1 of one positive class, with the counts behind them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PrecisionRecallF1 {
    /// `tp / (tp + fp)`, or 0 when nothing was predicted positive.
    pub precision: f64,
    /// `tp / (tp + fn)`, or 0 when nothing is truly positive.
    pub recall: f64,
    /// Harmonic mean `2 p r / (p + r)`, or 0 when `p + r = 0`.
    pub f1: f64,
    /// Predicted positive and truly positive.
    pub true_positives: usize,
    /// Predicted positive but truly negative.
    pub false_positives: usize,
    /// Predicted negative but truly positive.
    pub false_negatives: usize,
}

/// Precision, recall and F1 of the class `positive`, every other value being negative.
///
/// Undefined ratios (`0 / 0`) are reported as 0, as scikit-learn does by default.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the lengths differ; [`BlError::Empty`] when empty.
pub fn precision_recall_f1<T: PartialEq>(
    truth: &[T],
    pred: &[T],
    positive: &T,
) -> Result<PrecisionRecallF1> {
    check_pair("precision_recall_f1", truth.len(), pred.len())?;
    let (mut tp, mut fp, mut fn_) = (0, 0, 0);
    for (t, p) in truth.iter().zip(pred) {
        match (t == positive, p == positive) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fn_ += 1,
            (false, false) => {}
        }
    }
    let ratio = |num: usize, den: usize| {
        if den == 0 {
            0.0
        } else {
            num as f64 / den as f64
        }
    };
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fn_);
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Ok(PrecisionRecallF1 {
        precision,
        recall,
        f1,
        true_positives: tp,
        false_positives: fp,
        false_negatives: fn_,
    })
}

/// Counts of (true class, predicted class) pairs.
///
/// `counts()[a][b]` is the number of samples of true class `a` predicted as `b`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfusionMatrix {
    counts: Vec<Vec<usize>>,
}

impl ConfusionMatrix {
    /// The table: row = true class, column = predicted class.
    pub fn counts(&self) -> &[Vec<usize>] {
        &self.counts
    }

    /// Number of samples of true class `truth` predicted as `pred` (0 when out of range).
    pub fn get(&self, truth: usize, pred: usize) -> usize {
        self.counts
            .get(truth)
            .and_then(|row| row.get(pred))
            .copied()
            .unwrap_or(0)
    }

    /// Number of classes (rows and columns).
    pub fn n_classes(&self) -> usize {
        self.counts.len()
    }

    /// Total number of samples counted.
    pub fn total(&self) -> usize {
        self.counts.iter().flatten().sum()
    }

    /// Fraction of samples on the diagonal.
    pub fn accuracy(&self) -> f64 {
        let diagonal: usize = (0..self.n_classes()).map(|k| self.counts[k][k]).sum();
        diagonal as f64 / self.total().max(1) as f64
    }
}

/// Confusion matrix of class indices in `0..n_classes`.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the lengths differ; [`BlError::Empty`] when empty;
/// [`BlError::InvalidParameter`] when `n_classes == 0`, a label is `>= n_classes`, or the
/// `n_classes x n_classes` table exceeds [`MAX_ELEMENTS`](crate::limits::MAX_ELEMENTS)
/// counts or cannot be reserved.
pub fn confusion_matrix(
    truth: &[usize],
    pred: &[usize],
    n_classes: usize,
) -> Result<ConfusionMatrix> {
    check_pair("confusion_matrix", truth.len(), pred.len())?;
    if n_classes == 0 {
        return Err(BlError::InvalidParameter {
            name: "n_classes",
            value: "0".into(),
            expected: ">= 1".into(),
        });
    }
    for (name, labels) in [("truth", truth), ("pred", pred)] {
        if let Some((i, &l)) = labels.iter().enumerate().find(|&(_, &l)| l >= n_classes) {
            return Err(BlError::InvalidParameter {
                name,
                value: format!("{l} at index {i}"),
                expected: "class indices below n_classes".into(),
            });
        }
    }
    // The table is sized by a caller's number: checked and reserved, never an abort.
    crate::limits::buffer_len("n_classes", &[n_classes, n_classes])?;
    let mut counts: Vec<Vec<usize>> = crate::limits::try_with_capacity("n_classes", &[n_classes])?;
    for _ in 0..n_classes {
        counts.push(crate::limits::try_zeroed("n_classes", &[n_classes])?);
    }
    for (&t, &p) in truth.iter().zip(pred) {
        counts[t][p] += 1;
    }
    Ok(ConfusionMatrix { counts })
}
