//! The conformance suite of [`BooleanQpSolver`]: fixed small instances solved exactly
//! for reference.

use bl_core::ConformanceReport;

use crate::boolean_qp::BooleanQp;
use crate::bqp_solver::BooleanQpSolver;
use crate::synthetic::{gaussian, random_symmetric};

/// Fraction of the exact optimum a solver must reach on every small instance.
pub const MIN_RATIO: f64 = 0.95;

/// The fixed instances of the suite: low-rank `G G^T` (BMP's atom search), dense
/// indefinite symmetric `A`, and a planted instance whose optimum is a known support.
pub fn instances() -> Vec<(String, BooleanQp)> {
    let mut out = Vec::new();
    for (k, &(n, m)) in [(8usize, 16usize), (12, 5), (16, 40), (18, 3)]
        .iter()
        .enumerate()
    {
        if let Ok(g) = gaussian(n, m, 100 + k as u64)
            && let Ok(qp) = BooleanQp::low_rank(g.as_ref())
        {
            out.push((format!("G G^T, G {n} x {m}"), qp));
        }
    }
    for (k, &n) in [6usize, 10, 14].iter().enumerate() {
        if let Ok(a) = random_symmetric(n, 200 + k as u64)
            && let Ok(qp) = BooleanQp::dense(a.as_ref())
        {
            out.push((format!("dense indefinite, n = {n}"), qp));
        }
    }
    // Planted: one column g = +1 on the first half, -1 on the rest; ||G^T z||^2 =
    // (first-half sum - second-half sum)^2 is maximal, (n / 2)^2, at either half.
    let n = 12;
    let g = faer::Mat::from_fn(n, 1, |i, _| if i < n / 2 { 1.0 } else { -1.0 });
    if let Ok(qp) = BooleanQp::low_rank(g.as_ref()) {
        out.push(("planted half support".into(), qp));
    }
    out
}

/// The checks of one instance.
fn check_one(
    solver: &dyn BooleanQpSolver,
    name: &str,
    qp: &BooleanQp,
    report: &mut ConformanceReport,
) {
    let outcome = solver.solve_bqp(qp);
    report.record_result("solves every instance", &outcome);
    let Ok(outcome) = outcome else { return };
    let shape_ok = outcome.z.len() == qp.n() && outcome.z.iter().all(|&v| v == 0.0 || v == 1.0);
    report.record("z is a 0/1 vector of length n", shape_ok, || {
        format!(
            "on `{name}`: z has length {} (n = {}) or an entry other than 0 and 1",
            outcome.z.len(),
            qp.n()
        )
    });
    if !shape_ok {
        return;
    }
    let Ok(value) = qp.value(&outcome.z) else {
        return;
    };
    let scale = 1e-9 * (1.0 + value.abs());
    report.record(
        "the reported value is z^T A z",
        (value - outcome.value).abs() <= scale,
        || {
            format!(
                "on `{name}`: reported value {} but z^T A z = {value}",
                outcome.value
            )
        },
    );
    match qp.solve_exact() {
        Ok(exact) => {
            let exact = exact.value();
            report.record(
                "never above the exact optimum",
                value <= exact + scale,
                || format!("on `{name}`: value {value} exceeds the exact optimum {exact}"),
            );
            report.record(
                "at least MIN_RATIO of the exact optimum",
                value >= MIN_RATIO * exact - scale,
                || format!("on `{name}`: value {value} is below {MIN_RATIO} x the optimum {exact}"),
            );
        }
        Err(e) => report.record("the exact reference runs", false, || e.to_string()),
    }
    if let Some(bound) = outcome.upper_bound {
        // Approximate bounds may fall short of the optimum by a small relative amount.
        report.record(
            "an upper bound is not below its own value",
            bound >= value - 1e-6 * (1.0 + value.abs()),
            || format!("on `{name}`: upper bound {bound} is below its own value {value}"),
        );
    }
    let again = solver.solve_bqp(qp);
    report.record(
        "deterministic",
        again.as_ref().is_ok_and(|a| *a == outcome),
        || format!("on `{name}`: two solves of the same problem differ"),
    );
    let observed = solver.solve_bqp_observed(qp, &mut []);
    report.record(
        "the fit's entry gives the same outcome",
        observed.as_ref().is_ok_and(|f| *f.outcome() == outcome),
        || format!("on `{name}`: solve_bqp_observed differs from solve_bqp"),
    );
}

/// Runs the suite and records every check: the solver's own [`Extension::check`](bl_core::Extension::check)
/// accepts its settings; on every instance of [`instances`] the solver returns a 0/1
/// vector of the right length whose value it reports correctly, never above the exact
/// optimum and at least [`MIN_RATIO`] of it, an upper bound (if any) not below its value,
/// the same outcome when called twice, and the same outcome through
/// [`BooleanQpSolver::solve_bqp_observed`] (what the fit calls).
pub fn conformance(candidate: &dyn BooleanQpSolver) -> ConformanceReport {
    let mut report = ConformanceReport::new(candidate.name());
    report.record_result("its own settings are valid", &candidate.check());
    for (name, qp) in instances() {
        check_one(candidate, &name, &qp, &mut report);
    }
    report
}
