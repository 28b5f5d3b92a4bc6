//! The conformance suite of [`BooleanQpSolver`]: fixed small instances solved exactly
//! for reference.

use crate::boolean_qp::BooleanQp;
use crate::bqp_solver::{BooleanQpSolver, BqpOutcome};
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
    // Planted: one column g = +1 on the first half, -1 on the rest; the optimum of
    // ||G^T z||^2 picks the first half.
    let n = 12;
    let g = faer::Mat::from_fn(n, 1, |i, _| if i < n / 2 { 1.0 } else { -1.0 });
    if let Ok(qp) = BooleanQp::low_rank(g.as_ref()) {
        out.push(("planted half support".into(), qp));
    }
    out
}

fn check_one(solver: &dyn BooleanQpSolver, name: &str, qp: &BooleanQp) -> Result<(), String> {
    let fail = |msg: String| Err(format!("{} on `{name}`: {msg}", solver.name()));
    let outcome: BqpOutcome = match solver.solve_bqp(qp) {
        Ok(o) => o,
        Err(e) => return fail(format!("solver error {e}")),
    };
    if outcome.z.len() != qp.n() {
        return fail(format!(
            "z has length {}, expected {}",
            outcome.z.len(),
            qp.n()
        ));
    }
    if outcome.z.iter().any(|&v| v != 0.0 && v != 1.0) {
        return fail("z is not a 0/1 vector".into());
    }
    let value = match qp.value(&outcome.z) {
        Ok(v) => v,
        Err(e) => return fail(format!("cannot evaluate z: {e}")),
    };
    let scale = 1e-9 * (1.0 + value.abs());
    if (value - outcome.value).abs() > scale {
        return fail(format!(
            "reported value {} but z^T A z = {value}",
            outcome.value
        ));
    }
    let exact = match qp.solve_exact() {
        Ok(e) => e.value(),
        Err(e) => return fail(format!("reference failed: {e}")),
    };
    if value > exact + scale {
        return fail(format!("value {value} exceeds the exact optimum {exact}"));
    }
    if value < MIN_RATIO * exact - scale {
        return fail(format!(
            "value {value} is below {MIN_RATIO} x the optimum {exact}"
        ));
    }
    if let Some(bound) = outcome.upper_bound {
        // Approximate bounds may fall short of the optimum by a small relative amount.
        if bound < value - 1e-6 * (1.0 + value.abs()) {
            return fail(format!(
                "upper bound {bound} is below its own value {value}"
            ));
        }
    }
    match solver.solve_bqp(qp) {
        Ok(again) if again == outcome => Ok(()),
        Ok(_) => fail("two solves of the same problem differ".into()),
        Err(e) => fail(format!("second solve failed: {e}")),
    }
}

/// Runs the suite: on every instance of [`instances`] the solver returns a 0/1 vector
/// of the right length whose value it reports correctly, never above the exact
/// optimum and at least [`MIN_RATIO`] of it, an upper bound (if any) not below its
/// value, and the same outcome when called twice.
///
/// # Errors
/// A message naming the solver, the instance and the first property violated.
pub fn check(solver: &dyn BooleanQpSolver) -> Result<(), String> {
    for (name, qp) in instances() {
        check_one(solver, &name, &qp)?;
    }
    Ok(())
}
