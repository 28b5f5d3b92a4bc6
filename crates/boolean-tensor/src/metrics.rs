//! Metrics of Sec. 6 of Chang et al.: RMSE against the ground truth, RMSE on the missing
//! entries (completion), and the Hamming error of Boolean factors after optimal
//! matching.
//!
//! # Hamming error after optimal matching
//!
//! Learned Boolean factors are matched one-to-one to the true ones by a minimum-cost
//! assignment (Hungarian algorithm, `pathfinding::kuhn_munkres_min`). A true factor can
//! only be matched to a learned factor along the same mode; the cost of a pair is the
//! number of differing entries. True factors left without a learned partner (fewer
//! learned factors of that mode) are compared with the all-zero vector, i.e. cost
//! `|z|`; extra learned factors are ignored. The error rate is the total cost divided by
//! the total length of the true factors (`sum_r d_{mode(r)}`).

use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;

use crate::atom::{BooleanFactor, check_boolean};
use crate::error::Result;
use crate::tensor::{Tensor, check_mode};
use bl_core::error::build::{invalid, shape_mismatch};

fn check_same_shape(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.shape() == b.shape() {
        Ok(())
    } else {
        Err(shape_mismatch(
            "metric: tensor shapes",
            format!("{:?}", a.shape()),
            format!("{:?}", b.shape()),
        ))
    }
}

/// RMSE over all entries of two tensors of the same shape (masks ignored).
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch).
pub fn rmse(estimate: &Tensor, truth: &Tensor) -> Result<f64> {
    check_same_shape(estimate, truth)?;
    Ok(bl_core::metrics::rmse(estimate.data(), truth.data())?)
}

/// RMSE over the entries where `mask` is `false` (the missing entries of a completion
/// task).
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) for different shapes or a mask of the wrong length;
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) when no entry is missing.
pub fn completion_rmse(estimate: &Tensor, truth: &Tensor, mask: &[bool]) -> Result<f64> {
    check_same_shape(estimate, truth)?;
    if mask.len() != truth.len() {
        return Err(shape_mismatch(
            "completion_rmse: mask",
            truth.len(),
            mask.len(),
        ));
    }
    let (mut sum, mut count) = (0.0, 0usize);
    for ((e, t), &m) in estimate.data().iter().zip(truth.data()).zip(mask) {
        if !m {
            sum += (e - t) * (e - t);
            count += 1;
        }
    }
    if count == 0 {
        return Err(invalid(
            "mask",
            "no missing entry",
            "at least one missing (false) entry",
        ));
    }
    Ok((sum / count as f64).sqrt())
}

/// The result of [`hamming_error`].
#[derive(Debug, Clone, PartialEq)]
pub struct HammingMatch {
    /// Total number of wrong entries after matching.
    pub errors: usize,
    /// Total number of entries of the true factors.
    pub total: usize,
    /// `errors / total`.
    pub rate: f64,
    /// For each true factor, the index of its learned partner (`None`: unmatched).
    pub assignment: Vec<Option<usize>>,
}

/// The most factors of one mode (true or learned) [`hamming_error`] matches: the
/// assignment costs `O(n^3)` time and an `n x n` cost matrix for `n` factors of a mode
/// (measured: 1.25 s for 2,048; about ten times that for 4,096), so a larger count is
/// refused instead of running for hours.
pub const MAX_MATCHED_FACTORS: usize = 4096;

fn hamming(a: &[f64], b: &[f64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

/// Hamming error of `learned` Boolean factors against `truth` after optimal matching
/// (see the module docs).
///
/// ```
/// use boolean_tensor::{metrics::hamming_error, BooleanFactor};
/// let t = vec![BooleanFactor { mode: 0, z: vec![1.0, 0.0, 1.0] }, BooleanFactor { mode: 0, z: vec![0.0, 1.0, 1.0] }];
/// let l = vec![BooleanFactor { mode: 0, z: vec![0.0, 1.0, 0.0] }, BooleanFactor { mode: 0, z: vec![1.0, 0.0, 1.0] }];
/// let m = hamming_error(&t, &l)?;
/// assert_eq!(m.errors, 1);
/// assert_eq!(m.assignment, vec![Some(1), Some(0)]);
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
///
/// # Errors
/// [`TensorError::InvalidMode`](crate::TensorError::InvalidMode); [`TensorError::NotBoolean`](crate::TensorError::NotBoolean); [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch)
/// when factors of one mode have different lengths; [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
/// for an empty `truth`, or more than [`MAX_MATCHED_FACTORS`] true or learned factors
/// along one mode (checked before any matching).
pub fn hamming_error(truth: &[BooleanFactor], learned: &[BooleanFactor]) -> Result<HammingMatch> {
    if truth.is_empty() {
        return Err(invalid("truth", "[]", "at least one true Boolean factor"));
    }
    let mut lengths = [None; 3];
    let mut counts = [[0usize; 2]; 3];
    for (i, f) in truth.iter().chain(learned).enumerate() {
        check_mode(f.mode)?;
        check_boolean("Boolean factor", &f.z)?;
        match lengths[f.mode] {
            None => lengths[f.mode] = Some(f.z.len()),
            Some(len) if len != f.z.len() => {
                return Err(shape_mismatch(
                    "hamming_error: factors of one mode",
                    len,
                    f.z.len(),
                ));
            }
            Some(_) => {}
        }
        counts[f.mode][usize::from(i >= truth.len())] += 1;
    }
    for (mode, &[t, l]) in counts.iter().enumerate() {
        if t.max(l) > MAX_MATCHED_FACTORS {
            return Err(invalid(
                if t > l { "truth" } else { "learned" },
                format!("{} factors along mode {mode}", t.max(l)),
                format!(
                    "at most {MAX_MATCHED_FACTORS} factors per mode (metrics::MAX_MATCHED_FACTORS)"
                ),
            ));
        }
    }
    let mut assignment = vec![None; truth.len()];
    let mut errors = 0usize;
    for mode in 0..3 {
        let t: Vec<usize> = (0..truth.len())
            .filter(|&i| truth[i].mode == mode)
            .collect();
        if t.is_empty() {
            continue;
        }
        let l: Vec<usize> = (0..learned.len())
            .filter(|&i| learned[i].mode == mode)
            .collect();
        // Square cost matrix: rows = true factors (padded), columns = learned factors
        // (padded with "no factor" = the zero vector). Padded rows cost nothing.
        let n = t.len().max(l.len());
        let weights = Matrix::from_fn(n, n, |(r, c)| {
            if r >= t.len() {
                0i64
            } else {
                let z = &truth[t[r]].z;
                if c < l.len() {
                    hamming(z, &learned[l[c]].z) as i64
                } else {
                    z.iter().filter(|&&v| v != 0.0).count() as i64
                }
            }
        });
        let (cost, cols) = kuhn_munkres_min(&weights);
        errors += usize::try_from(cost).unwrap_or(0);
        for (r, &c) in cols.iter().enumerate().take(t.len()) {
            assignment[t[r]] = (c < l.len()).then(|| l[c]);
        }
    }
    let total: usize = truth.iter().map(|f| f.z.len()).sum();
    Ok(HammingMatch {
        errors,
        total,
        rate: errors as f64 / total as f64,
        assignment,
    })
}

/// The best scaled Boolean approximation of a real vector: the support `S` and scale
/// `c` minimizing `||r - c 1_S||^2`, i.e. maximizing `(sum_S r_i)^2 / |S|` (exact: the
/// best `S` of each size is the top or bottom entries). Returns the 0/1 vector and `c`
/// (`c = 0` and the zero vector for `r = 0`).
pub fn best_boolean_fit(r: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..r.len()).collect();
    order.sort_by(|&a, &b| r[b].total_cmp(&r[a]));
    let (mut best, mut best_k, mut best_top) = (0.0, 0usize, true);
    let mut sum = 0.0;
    for (k, &i) in order.iter().enumerate() {
        sum += r[i];
        let v = sum * sum / (k + 1) as f64;
        if sum > 0.0 && v > best {
            (best, best_k, best_top) = (v, k + 1, true);
        }
    }
    sum = 0.0;
    for (k, &i) in order.iter().rev().enumerate() {
        sum += r[i];
        let v = sum * sum / (k + 1) as f64;
        if sum < 0.0 && v > best {
            (best, best_k, best_top) = (v, k + 1, false);
        }
    }
    let mut z = vec![0.0; r.len()];
    let mut total = 0.0;
    let chosen: Box<dyn Iterator<Item = &usize>> = if best_top {
        Box::new(order.iter().take(best_k))
    } else {
        Box::new(order.iter().rev().take(best_k))
    };
    for &i in chosen {
        z[i] = 1.0;
        total += r[i];
    }
    let c = if best_k > 0 {
        total / best_k as f64
    } else {
        0.0
    };
    (z, c)
}

/// How far a real vector is from a scaled Boolean vector: `min_{S, c} ||r - c 1_S|| /
/// ||r||`, from [`best_boolean_fit`]. `0` for `r = c 1_S` (and for `r = 0`), at most `1`.
/// The experiments use it on CP factor columns to ask whether a tensor has Boolean-factor
/// structure at all.
pub fn boolean_residual(r: &[f64]) -> f64 {
    let norm_sq: f64 = r.iter().map(|v| v * v).sum();
    if norm_sq == 0.0 {
        return 0.0;
    }
    let (z, c) = best_boolean_fit(r);
    let res_sq: f64 = r.iter().zip(&z).map(|(v, zi)| (v - c * zi).powi(2)).sum();
    (res_sq / norm_sq).sqrt().min(1.0)
}
