//! Every public fit of the crate run through `fit_observed` with an observer attached: the
//! observer sees exactly the report's trace, the report's iteration count matches, and a
//! property the theory gives holds along the trace.

use bl_core::engine::{Trace, TraceRecord};
use bl_core::{FitReport, TerminationReason};
use boolean_tensor::{
    Bmp, CpAls, Decomposition, Fit, Fitted, Lfm, Sustain, Tensor, Tucker, metrics,
};

use crate::common;

fn data(noise: f64, missing: f64) -> boolean_tensor::SyntheticData {
    common::data([10, 9, 8], 3, noise, missing, 11)
}

/// Fits with an observer attached and checks that its records equal the report's trace
/// and iteration count.
fn observed<P>(params: &P, x: &Tensor) -> P::Fitted
where
    P: Fit<Tensor, Error = boolean_tensor::TensorError>,
    P::Fitted: Fitted,
{
    let mut seen = Trace::default();
    let fitted = params.fit_observed(x, &mut [&mut seen]).unwrap();
    let report = fitted.report();
    assert_eq!(seen.records(), report.trace.records());
    assert_eq!(report.iterations, report.trace.len());
    assert!(report.iterations >= 1);
    fitted
}

/// `1/2 ||P_Omega(X - W)||^2`, computed independently of the crate.
fn observed_loss(x: &Tensor, w: &Tensor) -> f64 {
    (0..x.len())
        .filter(|&i| x.is_observed(i))
        .map(|i| (x.data()[i] - w.data()[i]).powi(2))
        .sum::<f64>()
        * 0.5
}

/// Asserts that `loss` is the observed loss of `fitted`'s reconstruction on `x`, up to
/// `slack`.
fn assert_reconstruction_loss(loss: f64, x: &Tensor, fitted: &impl Decomposition, slack: f64) {
    let direct = observed_loss(x, &fitted.reconstruct().unwrap());
    assert!((loss - direct).abs() <= slack, "{loss} vs {direct}");
}

/// The final objective of every run and the lowest of them.
fn finals_and_lowest(runs: &[Vec<&TraceRecord>]) -> (Vec<f64>, f64) {
    let finals: Vec<f64> = runs.iter().map(|r| r[r.len() - 1].objective).collect();
    let lowest = finals.iter().copied().fold(f64::INFINITY, f64::min);
    (finals, lowest)
}

/// The `n_runs` runs of `report`'s trace (split where `extra` changes value), each
/// checked to never raise the objective by more than `slack`.
fn monotone_runs<'a>(
    report: &'a FitReport,
    extra: &str,
    n_runs: usize,
    slack: f64,
    what: &str,
) -> Vec<Vec<&'a TraceRecord>> {
    let runs = segments(report.trace.records(), extra);
    assert_eq!(runs.len(), n_runs, "{what}");
    for run in &runs {
        non_increasing(run.iter().map(|r| r.objective), slack, what);
    }
    runs
}

/// The runs of a trace, split where `extra` changes value.
fn segments<'a>(records: &'a [TraceRecord], extra: &str) -> Vec<Vec<&'a TraceRecord>> {
    let tag = |r: &TraceRecord| {
        r.extras
            .iter()
            .find(|(n, _)| n == extra)
            .map(|&(_, v)| v)
            .unwrap_or(f64::NAN)
    };
    let mut out: Vec<Vec<&TraceRecord>> = Vec::new();
    for r in records {
        match out.last_mut() {
            Some(seg) if tag(seg[0]).to_bits() == tag(r).to_bits() && r.iteration > 1 => {
                seg.push(r)
            }
            _ => out.push(vec![r]),
        }
    }
    out
}

fn non_increasing(objectives: impl IntoIterator<Item = f64>, slack: f64, what: &str) {
    let v: Vec<f64> = objectives.into_iter().collect();
    for (t, p) in v.windows(2).enumerate() {
        assert!(
            p[1] <= p[0] + slack,
            "{what}: step {}: {} > {}",
            t + 2,
            p[1],
            p[0]
        );
    }
}

#[test]
fn bmp_observed_loss_never_increases_and_rmse_matches_it() {
    for missing in [0.0, 0.2] {
        let d = data(0.2, missing);
        let x = d.observed();
        let fitted = observed(&Bmp::params().max_iter(5).tol(0.0), x);
        let objectives = fitted.report().trace.objectives();
        non_increasing(
            std::iter::once(fitted.initial_loss()).chain(objectives.iter().copied()),
            1e-10 * fitted.initial_loss(),
            "BMP",
        );
        // The objective is the observed loss of the model after each step.
        for (k, &f) in objectives.iter().enumerate() {
            let w = fitted.reconstruct_first(k + 1).unwrap();
            let direct = observed_loss(x, &w);
            assert!(
                (f - direct).abs() <= 1e-8 * (1.0 + direct),
                "{f} vs {direct}"
            );
        }
        let n_obs = x.n_observed() as f64;
        let rmse = fitted.report().trace.extra("rmse");
        assert_eq!(rmse.len(), objectives.len(), "an rmse per step");
        for ((_, r), f) in rmse.iter().zip(&objectives) {
            assert!((r - (2.0 * f / n_obs).sqrt()).abs() < 1e-12);
        }
    }
}

#[test]
fn cp_als_sweeps_never_increase_the_loss_and_the_best_start_is_kept() {
    for missing in [0.0, 0.2] {
        let d = data(0.3, missing);
        let x = d.observed();
        let fitted = observed(&CpAls::params().rank(3).n_starts(3).max_iter(60), x);
        let norm_sq = x.frobenius_norm().powi(2);
        let runs = monotone_runs(fitted.report(), "start", 3, 1e-9 * norm_sq, "CP-ALS");
        // The kept loss is the lowest final loss over the starts, and it is the loss of the
        // reconstruction.
        let (finals, lowest) = finals_and_lowest(&runs);
        assert!(
            (fitted.loss() - lowest).abs() <= 1e-8 * norm_sq,
            "{finals:?}"
        );
        assert_reconstruction_loss(fitted.loss(), x, &fitted, 1e-8 * norm_sq);
    }
}

#[test]
fn sustain_sweeps_never_increase_the_loss_on_a_fully_observed_tensor() {
    let d = data(0.2, 0.0);
    let x = d.observed();
    let fitted = observed(&Sustain::params().rank(3).n_starts(2).max_iter(40), x);
    let norm_sq = x.frobenius_norm().powi(2);
    // 3 Boolean modes x 2 starts. Every block update is an exact minimizer (least squares
    // for the real factors, the exact Boolean minimizer per entry for the Boolean one): the
    // loss never rises.
    monotone_runs(fitted.report(), "start", 6, 1e-9 * norm_sq, "SUSTain");
    let lowest = fitted
        .report()
        .trace
        .objectives()
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    assert!((fitted.loss() - lowest).abs() <= 1e-9 * norm_sq);
    // Without missing entries the loss comes from the last MTTKRP; check it against the
    // loss of the reconstruction, computed over every entry.
    assert_reconstruction_loss(fitted.loss(), x, &fitted, 1e-8 * norm_sq);
}

#[test]
fn lfm_columns_never_increase_the_loss_on_a_fully_observed_tensor() {
    let d = data(0.2, 0.0);
    let x = d.observed();
    let half_sq = 0.5 * x.frobenius_norm().powi(2);
    // One mode, every mode (observed: in turn), and LFMmix.
    let one = observed(&Lfm::params().max_iter(4).mode(Some(1)), x);
    assert_eq!(one.report().iterations, 4);
    let best = observed(&Lfm::params().max_iter(4), x);
    // A new Boolean column with least-squares weights cannot do worse than the old
    // weights with a zero row for it.
    let runs = monotone_runs(best.report(), "mode", 3, 1e-9 * half_sq, "LFM");
    let (_, lowest) = finals_and_lowest(&runs);
    assert_eq!(best.loss(), lowest);
    // Observed in turn or run in parallel without observers: the same model.
    let unobserved = Lfm::params().max_iter(4).fit(x).unwrap();
    assert_eq!(unobserved.loss(), best.loss());
    assert_eq!(unobserved.mode(), best.mode());
    let mix = observed(&Lfm::params().max_iter(4).mix(), x);
    non_increasing(
        std::iter::once(half_sq).chain(mix.report().trace.objectives()),
        1e-9 * half_sq,
        "LFMmix",
    );
    assert_reconstruction_loss(mix.loss(), x, &mix, 1e-9 * half_sq);
}

#[test]
fn tucker_is_one_single_shot_hosvd_without_a_mask_and_em_rounds_with_one() {
    let d = data(0.2, 0.0);
    let x = d.observed();
    // One HOSVD: a single-shot fit, which shows no iteration to observers.
    let mut seen = Trace::default();
    let fitted = Tucker::params()
        .for_atoms(3)
        .fit_observed(x, &mut [&mut seen])
        .unwrap();
    assert!(seen.is_empty());
    assert!(fitted.report().trace.is_empty());
    assert_eq!(fitted.report().iterations, 1);
    assert_eq!(fitted.report().termination, TerminationReason::Solved);
    let direct = observed_loss(x, &fitted.reconstruct().unwrap());
    assert!((fitted.report().objective - direct).abs() <= 1e-9 * (1.0 + direct));
    // Full multilinear rank reproduces the tensor (closed form: the HOSVD is exact).
    let full = Tucker::params().ranks([10, 9, 8]).fit(x).unwrap();
    assert!(full.report().objective <= 1e-18 * x.frobenius_norm().powi(2));

    let d = data(0.2, 0.2);
    let x = d.observed();
    let fitted = observed(&Tucker::params().for_atoms(3).max_iter(8), x);
    assert!(fitted.report().iterations > 1);
    // EM rounds report their real change: the loss decrease, never 0 by decree.
    let records = fitted.report().trace.records();
    assert!(records[0].change.is_infinite());
    for pair in records.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let want = (before.objective - after.objective) / before.objective;
        let got = after.change;
        assert!(
            (got - want).abs() <= 1e-12,
            "round {}: {got} vs {want}",
            after.iteration
        );
    }
    let rmse = metrics::rmse(&fitted.reconstruct().unwrap(), d.clean()).unwrap();
    assert!(rmse.is_finite());
}
