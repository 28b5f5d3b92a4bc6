//! The conformance suite of the crate's plug-in point, [`QpSolver`]: one function,
//! [`conformance`], returning a [`ConformanceReport`] with every check it ran.
//!
//! ```
//! use boolean_tensor::{ExactQp, MixingQp};
//! use boolean_tensor::conformance::conformance;
//!
//! let report = conformance(&MixingQp::default());
//! assert!(report.passed(), "{report}");
//! assert!(conformance(&ExactQp).passed());
//! ```

use bl_core::ConformanceReport;
use faer::{Mat, MatRef};

use crate::qp::{QpSolver, objective};

/// The brute-force maximum of `||G^T z||^2` over Boolean `z` (for `n <= 16`).
fn brute_force(g: MatRef<'_, f64>) -> f64 {
    let n = g.nrows();
    (0u32..1 << n)
        .map(|bits| {
            let z: Vec<f64> = (0..n).map(|i| f64::from((bits >> i) & 1)).collect();
            objective(g, &z).unwrap_or(f64::NAN)
        })
        .fold(0.0, f64::max)
}

/// Whether `z` is a Boolean vector of length `n`; the detail when it is not.
fn boolean(z: &[f64], n: usize) -> Result<(), String> {
    if z.len() != n {
        return Err(format!("length {} for n = {n}", z.len()));
    }
    match z.iter().find(|&&v| v != 0.0 && v != 1.0) {
        Some(v) => Err(format!("entry {v}")),
        None => Ok(()),
    }
}

/// Runs the checks every [`QpSolver`] must pass and records each one:
///
/// 0. its own [`check`](bl_core::Extension::check) accepts its settings;
/// 1. on seeded Gaussian `G` of sizes `1 x 1` to `12 x 7`: an answer (not an error) of
///    length `n` with entries `0.0` / `1.0`, and the same seed gives the same answer;
/// 2. its value is at least that of the best single row (`max_i ||g_i||^2`), and at
///    least 90% of the brute-force maximum;
/// 3. on a planted rank-1 `G = z* v^T` with Boolean `z*`, the brute-force maximum
///    exactly (to `1e-9` relative): any `z` that contains the support of `z*`;
/// 4. a zero `G` gives a Boolean vector of the right length, not an error;
/// 5. an empty or non-finite `G` is an error, not a panic or an answer.
#[must_use]
pub fn conformance(candidate: &dyn QpSolver) -> ConformanceReport {
    let mut report = ConformanceReport::new(candidate.name());
    report.record_result("0. its own check accepts it", &candidate.check());
    let mut rng = bl_core::random::seeded_rng(20_240_601);
    for (case, (n, m)) in [(1, 1), (3, 2), (5, 4), (8, 3), (10, 6), (12, 7)]
        .into_iter()
        .enumerate()
    {
        let g = match bl_core::random::standard_normal_mat(&mut rng, n, m) {
            Ok(g) => g,
            Err(e) => {
                report.record_result::<(), _>("1. an answer for a finite G", &Err(e));
                continue;
            }
        };
        let seed = case as u64;
        let answer = candidate.maximize(g.as_ref(), seed);
        report.record_result("1. an answer for a finite G", &answer);
        let Ok(z) = answer else { continue };
        let shape = boolean(&z, n);
        report.record_result("1. a Boolean answer of length n", &shape);
        if shape.is_err() {
            continue;
        }
        let again = candidate.maximize(g.as_ref(), seed).ok();
        report.record(
            "1. the same seed gives the same answer",
            again.as_ref() == Some(&z),
            || format!("{n} x {m}, seed {seed}: {again:?} after {z:?}"),
        );
        let value = objective(g.as_ref(), &z).unwrap_or(f64::NAN);
        let best_row = (0..n)
            .map(|i| g.row(i).norm_l2().powi(2))
            .fold(0.0, f64::max);
        report.record(
            "2. at least the value of the best single row",
            value >= best_row * (1.0 - 1e-12),
            || format!("{value} < {best_row} ({n} x {m})"),
        );
        let optimum = brute_force(g.as_ref());
        report.record(
            "2. at least 90% of the maximum",
            value >= 0.9 * optimum,
            || format!("{value} < 0.9 * {optimum} ({n} x {m})"),
        );
    }
    // 3. Planted rank-1 instance.
    let planted = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0];
    let v = [0.7, -1.3, 2.0, 0.4];
    let g = Mat::from_fn(planted.len(), v.len(), |i, j| planted[i] * v[j]);
    let answer = candidate.maximize(g.as_ref(), 7);
    report.record_result("3. an answer for a planted rank-1 G", &answer);
    if let Ok(z) = answer {
        let shape = boolean(&z, planted.len());
        report.record_result("3. a Boolean answer of length n", &shape);
        if shape.is_ok() {
            let value = objective(g.as_ref(), &z).unwrap_or(f64::NAN);
            let optimum = brute_force(g.as_ref());
            report.record(
                "3. the maximum of a planted rank-1 instance",
                (value - optimum).abs() <= 1e-9 * optimum,
                || format!("{value} != {optimum}"),
            );
        }
    }
    // 4. Zero G.
    let zero = Mat::<f64>::zeros(4, 3);
    let answer = candidate.maximize(zero.as_ref(), 0);
    report.record_result("4. an answer for G = 0", &answer);
    if let Ok(z) = answer {
        report.record_result("4. a Boolean answer for G = 0", &boolean(&z, 4));
    }
    // 5. Invalid inputs.
    let mut bad = Mat::<f64>::zeros(3, 2);
    bad[(1, 1)] = f64::NAN;
    let answer = candidate.maximize(bad.as_ref(), 0);
    report.record("5. an error for a non-finite G", answer.is_err(), || {
        format!("an answer {answer:?}")
    });
    let answer = candidate.maximize(Mat::<f64>::zeros(0, 3).as_ref(), 0);
    report.record("5. an error for an empty G", answer.is_err(), || {
        format!("an answer {answer:?}")
    });
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Result, TensorError};
    use crate::qp::{ExactQp, MixingQp};
    use bl_core::Extension;

    #[test]
    fn the_built_in_solvers_pass() {
        for solver in [&MixingQp::default() as &dyn QpSolver, &ExactQp] {
            let report = conformance(solver);
            assert!(report.passed(), "{report}");
            assert!(report.checks().len() >= 30, "{report}");
        }
    }

    /// Answers with the first row only, and accepts a non-finite G.
    #[derive(Debug)]
    struct FirstRow;

    impl Extension for FirstRow {
        fn name(&self) -> &str {
            "first row"
        }
    }

    impl QpSolver for FirstRow {
        fn maximize(&self, g: MatRef<'_, f64>, _seed: u64) -> Result<Vec<f64>> {
            if g.nrows() == 0 {
                return Err(bl_core::BlError::Empty { what: "G" }.into());
            }
            let mut z = vec![0.0; g.nrows()];
            z[0] = 1.0;
            Ok(z)
        }
    }

    #[test]
    fn a_broken_solver_fails_and_the_report_names_the_checks() {
        let report = conformance(&FirstRow);
        assert!(!report.passed());
        let failed: Vec<&str> = report.failures().map(|c| c.name).collect();
        assert!(
            failed.contains(&"2. at least the value of the best single row"),
            "{report}"
        );
        assert!(
            failed.contains(&"5. an error for a non-finite G"),
            "{report}"
        );
        assert!(!failed.contains(&"5. an error for an empty G"), "{report}");
        let err = report.into_result().unwrap_err();
        assert!(err.to_string().contains("first row"), "{err}");
        let _: TensorError = err.into();
    }
}
