//! What the fits' reports say: the stopping quantities as documented, the objective of
//! the returned model, the wall-clock time of the whole fit, and the iterations of a fit
//! that ends on a zero residual.

use std::time::{Duration, Instant};

use bl_core::TerminationReason;
use bl_core::engine::{FitReport, relative_change};
use boolean_tensor::{
    Bmp, CpAls, Decomposition, Fit, Fitted, Lfm, Sustain, Tensor, Tucker, cp_to_tensor,
};

/// The uniform draws of the audit's reproducer (a 64-bit LCG, top 53 bits), so that its
/// instances can be rebuilt here.
fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64) / ((1u64 << 53) as f64)
    }
}

/// `1/2 ||P_Omega(X - W)||^2` computed entry by entry.
fn observed_loss(x: &Tensor, w: &Tensor) -> f64 {
    (0..x.len())
        .filter(|&i| x.is_observed(i))
        .map(|i| 0.5 * (x.data()[i] - w.data()[i]).powi(2))
        .sum()
}

#[test]
fn lfm_stops_on_the_engines_relative_change_an_absolute_change_below_one() {
    // Entries of order 0.01: the loss stays far below 1, where `relative_change` is the
    // absolute change |F_prev - F|, not a fraction of F_prev.
    let mut g = lcg(7);
    let data: Vec<f64> = (0..120).map(|_| 0.01 * g()).collect();
    let x = Tensor::from_vec([6, 5, 4], data).unwrap();
    let tol = 1e-3;
    for fit in [
        Lfm::params()
            .mode(Some(0))
            .max_iter(6)
            .tol(tol)
            .fit(&x)
            .unwrap()
            .report()
            .clone(),
        Lfm::params()
            .max_iter(6)
            .tol(tol)
            .mix()
            .fit(&x)
            .unwrap()
            .report()
            .clone(),
    ] {
        let mut prev = 0.5 * x.frobenius_norm().powi(2);
        assert!(prev < 1.0);
        for (i, r) in fit.trace.records().iter().enumerate() {
            let want = relative_change(prev, r.objective);
            assert_eq!(want, (prev - r.objective).abs());
            if i == 0 {
                // F(0) summed in another order than the fit's.
                assert!(
                    (r.change - want).abs() <= 1e-12 * prev,
                    "{} {want}",
                    r.change
                );
            } else {
                assert_eq!(r.change, want);
            }
            prev = r.objective;
        }
        // It stopped on the tolerance although the last column still removed far more than
        // a fraction `tol` of the loss: `tol` is not a fraction below a loss of 1.
        assert_eq!(fit.termination, TerminationReason::Converged);
        let f = fit.trace.objectives();
        let k = f.len();
        let before = if k >= 2 {
            f[k - 2]
        } else {
            0.5 * x.frobenius_norm().powi(2)
        };
        assert!((before - f[k - 1]) / before > 100.0 * tol, "{f:?}");
    }
}

#[test]
fn a_masked_tucker_fit_whose_last_em_round_raised_the_loss_is_converged_on_that_model() {
    // The audit's instance of seed 0: its 13th EM round raises the observed loss, which
    // ends the fit `Converged` (a signed decrease below `tol`) on that round's model.
    let mut g = lcg(0);
    let data: Vec<f64> = (0..80).map(|_| g() - 0.5).collect();
    let mask: Vec<bool> = (0..80).map(|_| g() < 0.7).collect();
    let x = Tensor::from_vec_masked([5, 4, 4], data, mask).unwrap();
    let fit = Tucker::params()
        .ranks([2, 2, 2])
        .max_iter(30)
        .fit(&x)
        .unwrap();
    let report = fit.report();
    assert_eq!(report.termination, TerminationReason::Converged);
    assert!(report.iterations < 30);
    let f = report.trace.objectives();
    let k = f.len();
    assert_eq!(k, report.iterations);
    // The last round raised the loss: a negative change, at or below `tol`.
    assert!(f[k - 1] > f[k - 2], "{f:?}");
    let change = *report.trace.changes().last().unwrap();
    assert!(change < 0.0);
    assert_eq!(change, (f[k - 2] - f[k - 1]) / f[k - 2]);
    // The model returned is the last one: its loss is the last objective, above the
    // smallest loss of the run.
    assert_eq!(fit.loss(), f[k - 1]);
    assert_eq!(report.objective, fit.loss());
    let w = fit.reconstruct().unwrap();
    assert!((observed_loss(&x, &w) - fit.loss()).abs() <= 1e-12 * fit.loss());
    let smallest = f.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(fit.loss() > smallest);
}

#[test]
fn cp_als_reports_the_exact_loss_of_the_returned_model() {
    // The exact rank-2 tensor of the CP-ALS doctest at scale 1e3: the sweeps' closed-form
    // loss cancels to rounding of ||X||^2 (about 1e-9 here), the exact one does not.
    let a = faer::mat![[1.0, 0.5], [0.0, 1.0], [2.0, -1.0]];
    let b = faer::mat![[1.0, 1.0], [-1.0, 0.0]];
    let c = faer::mat![[0.5, 2.0], [1.0, 1.0], [0.0, 3.0], [1.0, -1.0]];
    let x = cp_to_tensor([a.as_ref(), b.as_ref(), c.as_ref()]).unwrap();
    for scale in [1.0, 1e3] {
        let data = x.data().iter().map(|v| v * scale).collect();
        let xs = Tensor::from_vec(x.shape(), data).unwrap();
        let fit = CpAls::params().rank(2).fit(&xs).unwrap();
        assert_eq!(fit.report().objective, fit.loss(), "scale {scale}");
        let w = fit.reconstruct().unwrap();
        let exact = observed_loss(&xs, &w);
        assert!(
            (exact - fit.loss()).abs() <= 1e-9 * (1.0 + exact),
            "scale {scale}"
        );
    }
}

/// `elapsed` lies between the last trace record's time (every record's time is measured
/// inside the fit, from the start of its own run) and the wall-clock time the caller
/// measured around the call.
fn assert_elapsed_is_the_fits_wall_clock(name: &str, fit: impl FnOnce() -> FitReport) {
    let t0 = Instant::now();
    let report = fit();
    let wall = t0.elapsed();
    assert!(
        report.elapsed <= wall,
        "{name}: elapsed {:?} > wall-clock {wall:?}",
        report.elapsed
    );
    let latest = report
        .trace
        .records()
        .iter()
        .map(|r| r.elapsed_s)
        .fold(0.0, f64::max);
    // `elapsed_s` is the f64 of a Duration: compare in Durations, rounded down by 1 ns.
    let latest = Duration::from_secs_f64(latest).saturating_sub(Duration::from_nanos(1));
    assert!(
        report.elapsed >= latest,
        "{name}: elapsed {:?} < a trace record's {latest:?}",
        report.elapsed
    );
}

#[test]
fn reports_time_the_whole_fit_once() {
    // LFM fits its three modes in parallel: their times overlap and may not be added up.
    let mut g = lcg(3);
    let data: Vec<f64> = (0..27000)
        .map(|_| if g() < 0.2 { 1.0 } else { 0.0 })
        .collect();
    let x = Tensor::from_vec([30, 30, 30], data).unwrap();
    assert_elapsed_is_the_fits_wall_clock("LFM", || {
        let fit = Lfm::params().max_iter(8).threads(Some(2)).fit(&x).unwrap();
        fit.report().clone()
    });
    assert_elapsed_is_the_fits_wall_clock("LFMmix", || {
        let fit = Lfm::params().max_iter(4).mix().fit(&x).unwrap();
        fit.report().clone()
    });
    assert_elapsed_is_the_fits_wall_clock("CP-ALS", || {
        let fit = CpAls::params().rank(3).max_iter(20).fit(&x).unwrap();
        fit.report().clone()
    });
    assert_elapsed_is_the_fits_wall_clock("SUSTain", || {
        let fit = Sustain::params().rank(3).max_iter(10).fit(&x).unwrap();
        fit.report().clone()
    });
    assert_elapsed_is_the_fits_wall_clock("BMP", || {
        let fit = Bmp::params().max_iter(3).fit(&x).unwrap();
        fit.report().clone()
    });
    assert_elapsed_is_the_fits_wall_clock("Tucker", || {
        let fit = Tucker::params().for_atoms(3).fit(&x).unwrap();
        fit.report().clone()
    });
    let mask: Vec<bool> = (0..27000).map(|_| g() < 0.7).collect();
    let xm = Tensor::from_vec_masked([30, 30, 30], x.data().to_vec(), mask).unwrap();
    assert_elapsed_is_the_fits_wall_clock("Tucker, masked", || {
        let fit = Tucker::params().for_atoms(3).max_iter(5).fit(&xm).unwrap();
        fit.report().clone()
    });
}

#[test]
fn bmp_on_a_zero_residual_ends_with_an_iteration_that_adds_no_atom() {
    let z = Tensor::zeros([4, 3, 2]).unwrap();
    let fit = Bmp::params().max_iter(3).fit(&z).unwrap();
    assert_eq!(fit.n_atoms(), 0);
    assert_eq!(fit.report().iterations, 1);
    assert_eq!(fit.report().termination, TerminationReason::Solved);
    assert_eq!(fit.rmse_path(), vec![0.0]);
    assert!(fit.report().trace.extra("mode").is_empty());
}

#[test]
fn lfm_mix_on_a_zero_tensor_ends_with_an_iteration_that_adds_no_column() {
    // LFMmix: one iteration, no column in any mode, `Solved`, no `mode` extra.
    let z = Tensor::zeros([4, 3, 2]).unwrap();
    let mix = Lfm::params().max_iter(3).mix().fit(&z).unwrap();
    assert!((0..3).all(|n| mix.z(n).is_some_and(|m| m.ncols() == 0)));
    assert_eq!(mix.report().iterations, 1);
    assert_eq!(mix.report().termination, TerminationReason::Solved);
    assert!(mix.report().trace.extra("mode").is_empty());
    // LFM on one mode refuses data that are zero (its documented error), rather than
    // return a model without a column.
    let err = Lfm::params().mode(Some(0)).max_iter(3).fit(&z).unwrap_err();
    assert!(err.to_string().contains("the data are zero"), "{err}");
}

#[test]
fn lfm_whose_residual_reaches_zero_ends_with_an_iteration_that_adds_no_column() {
    // Only row 0 of the mode-0 unfolding is nonzero, with small integers: the Boolean
    // column e_0 and its least-squares weights (the row itself, b^T b = 1) explain it to
    // the last bit, so the next iteration finds no column scoring above 0 and ends the
    // run `Solved`, with one iteration more than columns.
    let x = Tensor::from_fn(
        [4, 3, 2],
        |i, j, k| {
            if i == 0 { (1 + j + 2 * k) as f64 } else { 0.0 }
        },
    )
    .unwrap();
    let fit = Lfm::params().mode(Some(0)).max_iter(3).fit(&x).unwrap();
    assert_eq!(fit.z().ncols(), 1);
    assert_eq!(fit.loss(), 0.0);
    assert_eq!(fit.report().iterations, 2);
    assert_eq!(fit.report().termination, TerminationReason::Solved);
}
