//! Numerically stable logistic functions.
//!
//! All functions are finite and accurate (to a few ulps of the exact value) for arguments
//! of any magnitude, in particular for margins up to `±1e4` where the naive formulas
//! overflow or cancel.
//!
//! Conventions: a *margin* is `m = y f` with `y in {-1, +1}` and `f` the decision value.
//! The logistic loss of a margin is `log(1 + exp(-m))` and its gradient weight
//! (SBLR eq. (12)) is `w = 1 / (1 + exp(m)) = sigmoid(-m)`, so that
//! `d/df log(1 + exp(-y f)) = -y w`.
//!
//! The multinomial model of SBLR (eq. (29)) has `m` explicit classes with scores `f_c` and a
//! reference class with score `0`: `p_c = exp(f_c) / (1 + sum_j exp(f_j))`.

use crate::error::{Result, ensure_len, ensure_nonempty};

/// `log(1 + exp(x))` without overflow or loss of precision.
#[inline]
#[must_use]
pub fn log1p_exp(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// The logistic sigmoid `1 / (1 + exp(-x))`, accurate in both tails.
#[inline]
#[must_use]
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Mean logistic loss `(1/n) sum_i log(1 + exp(-m_i))` of the margins `m_i`.
///
/// # Errors
/// Empty `margins`.
pub fn logistic_loss(margins: &[f64]) -> Result<f64> {
    ensure_nonempty("logistic_loss: margins", margins.len())?;
    let sum: f64 = margins.iter().map(|&m| log1p_exp(-m)).sum();
    Ok(sum / margins.len() as f64)
}

/// Mean logistic loss of the margins, and the gradient weights
/// `weights_i = 1 / (1 + exp(m_i))` (SBLR eq. (12)) written into `weights`.
///
/// # Errors
/// Empty `margins`; `weights` of a different length.
pub fn logistic_loss_and_weights(margins: &[f64], weights: &mut [f64]) -> Result<f64> {
    ensure_nonempty("logistic_loss_and_weights: margins", margins.len())?;
    ensure_len(
        "logistic_loss_and_weights: weights",
        margins.len(),
        weights.len(),
    )?;
    let mut sum = 0.0;
    for (w, &m) in weights.iter_mut().zip(margins) {
        sum += log1p_exp(-m);
        *w = sigmoid(-m);
    }
    Ok(sum / margins.len() as f64)
}

/// `log(sum_i exp(x_i))`, shifted by the maximum so it never overflows.
///
/// # Errors
/// Empty input.
pub fn log_sum_exp(x: &[f64]) -> Result<f64> {
    ensure_nonempty("log_sum_exp: x", x.len())?;
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max.is_infinite() {
        return Ok(max);
    }
    let sum: f64 = x.iter().map(|&v| (v - max).exp()).sum();
    Ok(max + sum.ln())
}

/// `log(1 + sum_c exp(scores_c))`: the log-partition function of the multinomial model with a
/// zero-score reference class (SBLR eq. (29)). An empty `scores` gives `0`.
#[must_use]
pub fn log_sum_exp_with_zero(scores: &[f64]) -> f64 {
    let max = scores.iter().copied().fold(0.0_f64, f64::max);
    if max == f64::INFINITY {
        return max;
    }
    let sum: f64 = (-max).exp() + scores.iter().map(|&v| (v - max).exp()).sum::<f64>();
    max + sum.ln()
}

/// Class probabilities of the multinomial model with a zero-score reference class:
/// `probs_c = exp(scores_c) / (1 + sum_j exp(scores_j))` for the explicit classes. Returns the
/// probability of the reference class, `1 / (1 + sum_j exp(scores_j))`.
///
/// # Errors
/// `probs` of a different length than `scores`.
pub fn softmax_with_zero(scores: &[f64], probs: &mut [f64]) -> Result<f64> {
    ensure_len("softmax_with_zero: probs", scores.len(), probs.len())?;
    let lse = log_sum_exp_with_zero(scores);
    for (p, &s) in probs.iter_mut().zip(scores) {
        *p = (s - lse).exp();
    }
    Ok((-lse).exp())
}
