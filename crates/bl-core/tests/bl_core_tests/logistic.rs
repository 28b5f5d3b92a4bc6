//! Stable logistic functions: accuracy against naive formulas where those are exact,
//! finiteness at the extremes, derivatives by finite differences.

use bl_core::logistic::{
    log_sum_exp, log_sum_exp_with_zero, log1p_exp, logistic_loss, logistic_loss_and_weights,
    sigmoid, softmax_with_zero,
};
use proptest::prelude::*;

#[test]
fn extremes_are_finite_and_exact() {
    for &x in &[1e4, 1e3, 745.0, 710.0, -710.0, -745.0, -1e3, -1e4] {
        let l = log1p_exp(x);
        let s = sigmoid(x);
        assert!(l.is_finite() && s.is_finite(), "x = {x}");
        assert!((0.0..=1.0).contains(&s));
    }
    assert_eq!(log1p_exp(1e4), 1e4);
    assert_eq!(log1p_exp(-1e4), 0.0);
    assert_eq!(sigmoid(1e4), 1.0);
    assert_eq!(sigmoid(-1e4), 0.0);
    // Small arguments keep full relative precision: log(1 + e^-40) = e^-40 to 1 ulp.
    let x = -40.0_f64;
    assert!((log1p_exp(x) - x.exp()).abs() <= 2.0 * f64::EPSILON * x.exp());
    // sigmoid(-40) = e^-40 / (1 + e^-40).
    assert!((sigmoid(x) - x.exp() / (1.0 + x.exp())).abs() <= 2.0 * f64::EPSILON * x.exp());
}

#[test]
fn loss_and_weights_at_margins_of_1e4() {
    let margins = [1e4, -1e4, 0.0];
    let mut w = [0.0; 3];
    let loss = logistic_loss_and_weights(&margins, &mut w).unwrap();
    assert!((loss - (0.0 + 1e4 + 2f64.ln()) / 3.0).abs() < 1e-9);
    assert_eq!(w, [0.0, 1.0, 0.5]);
    assert_eq!(logistic_loss(&margins).unwrap(), loss);
}

#[test]
fn multinomial_with_zero_reference_sums_to_one() {
    let scores = [1e4, 3.0, -2.0];
    let mut p = [0.0; 3];
    let p0 = softmax_with_zero(&scores, &mut p).unwrap();
    assert!(p.iter().all(|v| v.is_finite()));
    assert!((p.iter().sum::<f64>() + p0 - 1.0).abs() < 1e-12);
    assert!((p[0] - 1.0).abs() < 1e-12);
    assert_eq!(log_sum_exp_with_zero(&[]), 0.0);
    assert!((log_sum_exp_with_zero(&[-1e4, -1e4])).abs() < 1e-300);
    assert!(log_sum_exp(&[]).is_err());
    assert!(logistic_loss(&[]).is_err());
    assert!(softmax_with_zero(&[1.0], &mut [0.0; 2]).is_err());
}

proptest! {
    #[test]
    fn log1p_exp_matches_naive_in_safe_range(x in -30.0..30.0f64) {
        let naive = (1.0 + x.exp()).ln();
        prop_assert!((log1p_exp(x) - naive).abs() <= 1e-14 * naive.abs().max(1e-300) + 1e-15);
    }

    /// d/dx log(1 + e^x) = sigmoid(x), by central differences.
    #[test]
    fn derivative_of_log1p_exp_is_sigmoid(x in -20.0..20.0f64) {
        let h = 1e-5;
        let fd = (log1p_exp(x + h) - log1p_exp(x - h)) / (2.0 * h);
        prop_assert!((fd - sigmoid(x)).abs() < 1e-8);
    }

    #[test]
    fn sigmoid_symmetry(x in -800.0..800.0f64) {
        prop_assert!((sigmoid(x) + sigmoid(-x) - 1.0).abs() <= 2.0 * f64::EPSILON);
    }

    #[test]
    fn log_sum_exp_with_zero_matches_naive(s in prop::collection::vec(-20.0..20.0f64, 0..6)) {
        let naive = (1.0 + s.iter().map(|v| v.exp()).sum::<f64>()).ln();
        prop_assert!((log_sum_exp_with_zero(&s) - naive).abs() <= 1e-13 * (1.0 + naive.abs()));
        let mut with_zero = s.clone();
        with_zero.push(0.0);
        prop_assert!((log_sum_exp(&with_zero).unwrap() - naive).abs() <= 1e-13 * (1.0 + naive.abs()));
    }

    /// Gradient weights are the derivative of the loss: d/dm log(1+e^-m) = -w.
    #[test]
    fn weights_are_loss_derivatives(m in -30.0..30.0f64) {
        let h = 1e-5;
        let mut w = [0.0];
        logistic_loss_and_weights(&[m], &mut w).unwrap();
        let fd = (logistic_loss(&[m + h]).unwrap() - logistic_loss(&[m - h]).unwrap()) / (2.0 * h);
        prop_assert!((fd + w[0]).abs() < 1e-8);
    }
}
