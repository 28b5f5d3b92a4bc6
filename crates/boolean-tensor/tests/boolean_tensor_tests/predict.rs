//! Prediction: every fitted model implements `bl_core::PredictInplace` from a list of
//! entries `[i, j, k]` to its values there, equal to the entries of its reconstruction,
//! with the indices and the target length checked. And the knobs every fit shares:
//! threads, and BMP's report of its power iterations.

use bl_core::{BlError, Fitted, Predict, PredictInplace};
use boolean_tensor::{Bmp, CpAls, Decomposition, Fit, Lfm, Sustain, Tensor, TensorError, Tucker};

use crate::common;

/// Every entry of `x`'s shape, in memory order.
fn all_entries(shape: [usize; 3]) -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    for k in 0..shape[2] {
        for j in 0..shape[1] {
            for i in 0..shape[0] {
                out.push([i, j, k]);
            }
        }
    }
    out
}

/// The model predicts its reconstruction at every entry, refuses an index outside the
/// shape (naming it) and a target of the wrong length.
fn check<M>(what: &str, model: &M, x: &Tensor)
where
    M: Decomposition + PredictInplace<[[usize; 3]], Vec<f64>, Error = TensorError>,
{
    let w = model.reconstruct().unwrap();
    let entries = all_entries(x.shape());
    let predicted = model.predict(&entries[..]).unwrap();
    assert_eq!(predicted.len(), x.len());
    for (p, want) in predicted.iter().zip(w.data()) {
        assert!(
            (p - want).abs() <= 1e-10 * (1.0 + want.abs()),
            "{what}: {p} vs {want}"
        );
    }
    assert!(model.predict(&[][..]).unwrap().is_empty());
    let [d0, d1, d2] = x.shape();
    for bad in [[d0, 0, 0], [0, d1, 0], [0, 0, d2], [usize::MAX, 0, 0]] {
        let err = model.predict(&[[0, 0, 0], bad][..]).unwrap_err();
        assert!(
            matches!(err, TensorError::IndexOutOfBounds { position: 1, index, shape } if index == bad && shape == x.shape()),
            "{what}: {err}"
        );
    }
    let mut short = vec![0.0; 1];
    let err = model
        .predict_inplace(&[[0, 0, 0], [1, 1, 1]][..], &mut short)
        .unwrap_err();
    assert!(
        matches!(err, TensorError::Core(BlError::ShapeMismatch { .. })),
        "{what}: {err}"
    );
}

#[test]
fn every_fitted_model_predicts_its_reconstruction_at_the_entries_asked() {
    let d = common::data([7, 6, 5], 2, 0.1, 0.2, 3);
    let x = d.observed();
    check("BMP", &Bmp::params().max_iter(2).fit(x).unwrap(), x);
    check(
        "CP",
        &CpAls::params().rank(2).max_iter(20).fit(x).unwrap(),
        x,
    );
    check(
        "Tucker",
        &Tucker::params().for_atoms(2).max_iter(3).fit(x).unwrap(),
        x,
    );
    check(
        "LFM",
        &Lfm::params().max_iter(2).mode(Some(2)).fit(x).unwrap(),
        x,
    );
    check(
        "LFMmix",
        &Lfm::params().max_iter(3).mix().fit(x).unwrap(),
        x,
    );
    check(
        "SUSTain",
        &Sustain::params()
            .rank(2)
            .max_iter(10)
            .n_starts(1)
            .fit(x)
            .unwrap(),
        x,
    );
}

#[test]
fn the_completed_entries_are_the_missing_ones_of_a_noiseless_tensor() {
    let d = common::data([9, 8, 7], 2, 0.0, 0.2, 5);
    let x = d.observed();
    let fitted = Bmp::params().max_iter(2).fit(x).unwrap();
    let missing: Vec<[usize; 3]> = all_entries(x.shape())
        .into_iter()
        .enumerate()
        .filter(|&(n, _)| !x.is_observed(n))
        .map(|(_, e)| e)
        .collect();
    assert!(!missing.is_empty());
    let values = fitted.predict(&missing[..]).unwrap();
    let w = fitted.reconstruct().unwrap();
    for (&[i, j, k], v) in missing.iter().zip(&values) {
        assert!((v - w.get(i, j, k)).abs() <= 1e-10 * (1.0 + v.abs()));
        // The refit sweeps stop at a relative loss decrease of 1e-6: close, not exact.
        let want = d.clean().get(i, j, k);
        assert!(
            (v - want).abs() <= 1e-3 * (1.0 + want.abs()),
            "{v} vs {want}"
        );
    }
}

#[test]
fn the_threads_knob_is_checked_and_does_not_change_the_model() {
    let d = common::data([8, 7, 6], 2, 0.1, 0.0, 9);
    let x = d.observed();
    for threads in [Some(0), Some(5000)] {
        let err = Bmp::params().threads(threads).fit(x).unwrap_err();
        common::assert_invalid_parameter(&err, "threads");
        assert!(CpAls::params().threads(threads).fit(x).is_err());
        assert!(Tucker::params().threads(threads).fit(x).is_err());
        assert!(Lfm::params().threads(threads).fit(x).is_err());
        assert!(Sustain::params().threads(threads).fit(x).is_err());
    }
    let one = Bmp::params().max_iter(2).threads(Some(1)).fit(x).unwrap();
    let two = Bmp::params().max_iter(2).threads(Some(2)).fit(x).unwrap();
    let global = Bmp::params().max_iter(2).fit(x).unwrap();
    for other in [&two, &global] {
        assert_eq!(one.atoms(), other.atoms());
        for (a, b) in one.coefficients().iter().zip(other.coefficients()) {
            assert!((a - b).abs() <= 1e-10 * a.abs(), "{a} vs {b}");
        }
    }
}

#[test]
fn bmp_reports_the_power_iterations_that_did_not_converge() {
    // Modes 1 and 2 longer than 32: the mode-0 searches take their leading pair from
    // power iteration. On noiseless planted atoms every pair converges.
    let d = common::data([6, 40, 36], 2, 0.0, 0.0, 4);
    let fitted = Bmp::params()
        .max_iter(2)
        .modes(&[0])
        .fit(d.observed())
        .unwrap();
    let extra: Vec<f64> = fitted
        .report()
        .trace
        .extra("unconverged_power")
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    let steps: Vec<f64> = fitted
        .steps()
        .iter()
        .map(|s| s.unconverged_power as f64)
        .collect();
    assert_eq!(extra.len(), fitted.report().iterations);
    assert_eq!(extra[..steps.len()], steps[..]);
    assert!(steps.iter().all(|&n| n == 0.0), "{steps:?}");

    // Two mode-0 atoms on the same rows, with orthogonal unit factors and weights 1 and
    // 0.999: every slice V the search reads has a nearly repeated leading singular value,
    // and its power iteration runs out of iterations. The count reaches the step and the
    // trace.
    let half = |n: usize, parity: usize| -> Vec<f64> {
        let value = 1.0 / ((n / 2) as f64).sqrt();
        (0..n)
            .map(|i| if i % 2 == parity { value } else { 0.0 })
            .collect()
    };
    let z = vec![1.0, 1.0, 0.0, 1.0, 0.0, 1.0];
    let atoms = [
        boolean_tensor::Atom::new(0, z.clone(), half(40, 0), half(36, 0)).unwrap(),
        boolean_tensor::Atom::new(0, z, half(40, 1), half(36, 1)).unwrap(),
    ];
    let x = boolean_tensor::atoms_to_tensor(&atoms, &[1.0, 0.999]).unwrap();
    let fitted = Bmp::params().max_iter(1).modes(&[0]).fit(&x).unwrap();
    let step = fitted.steps()[0].unconverged_power;
    assert!(step > 0, "no power iteration ran out");
    let extra = fitted.report().trace.extra("unconverged_power");
    assert_eq!(extra.first().map(|&(_, v)| v), Some(step as f64));
}

/// The bits of a fit's three factors.
fn factor_bits(factors: [faer::MatRef<'_, f64>; 3]) -> Vec<u64> {
    factors
        .iter()
        .flat_map(|f| (0..f.ncols()).flat_map(move |j| f.col(j).iter().map(|x| x.to_bits())))
        .collect()
}

#[test]
fn tucker_and_cp_give_the_same_bits_on_any_thread_count_with_a_long_mode() {
    // A mode of 400: faer's own eigensolver splits its sums by thread there (Tucker's
    // factor updates, CP's HOSVD start); the fits run it on one thread.
    let x = common::data([400, 12, 10], 2, 0.1, 0.0, 5);
    let x = x.observed();
    let tucker = |t: usize| {
        Tucker::params()
            .ranks([3, 3, 3])
            .max_iter(3)
            .threads(Some(t))
    };
    let cp = |t: usize| CpAls::params().rank(3).max_iter(3).threads(Some(t));
    let (t1, c1) = (tucker(1).fit(x).unwrap(), cp(1).fit(x).unwrap());
    for threads in [2, 3] {
        let t = tucker(threads).fit(x).unwrap();
        assert_eq!(
            factor_bits(t.factors()),
            factor_bits(t1.factors()),
            "Tucker, {threads}"
        );
        assert_eq!(t.core(), t1.core(), "Tucker core, {threads} threads");
        let c = cp(threads).fit(x).unwrap();
        assert_eq!(
            factor_bits(c.factors()),
            factor_bits(c1.factors()),
            "CP, {threads}"
        );
    }
}
