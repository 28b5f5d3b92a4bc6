//! The replaceable Boolean QP solver: a small trait that `boolean-tensor`'s atom search
//! calls, with the mixing method as the default implementation, exact enumeration as a
//! second one, and a conformance suite that any implementation must pass.
//!
//! To contribute a faster or better solver, implement [`BooleanQpSolver`] and call
//! [`conformance::check`] from a test (see `CONTRIBUTING.md` at the workspace root).

use crate::boolean_qp::BooleanQp;
use crate::error::Result;
use crate::params::MixingParams;

/// A solution of `max z^T A z` over `z in {0, 1}^n`, whatever solver produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct BqpOutcome {
    /// The 0/1 vector (entries exactly `0.0` or `1.0`).
    pub z: Vec<f64>,
    /// `z^T A z`.
    pub value: f64,
    /// An upper bound on the optimum, when the solver has one (approximate for the mixing
    /// method unless it certifies, exact for enumeration).
    pub upper_bound: Option<f64>,
}

/// A solver of Boolean quadratic programs `max z^T A z, z in {0, 1}^n`.
///
/// Implementations must be deterministic (the same problem gives the same outcome) and
/// return a `z` whose reported `value` equals `qp.value(z)`.
pub trait BooleanQpSolver: Send + Sync {
    /// Short name for reports and benches.
    fn name(&self) -> &str;

    /// Solves `qp`.
    ///
    /// # Errors
    /// Whatever stops the solver (invalid parameters, a problem too large for it).
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome>;
}

/// The default solver: the mixing method with rounding and local search.
impl BooleanQpSolver for MixingParams {
    fn name(&self) -> &str {
        "mixing"
    }

    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let solution = qp.solve(self)?;
        Ok(BqpOutcome {
            upper_bound: solution.certified_bound().or(solution.upper_bound()),
            value: solution.value(),
            z: solution.z().to_vec(),
        })
    }
}

/// Exact Gray-code enumeration ([`BooleanQp::solve_exact`]); `n <= 24`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExactBqp;

impl BooleanQpSolver for ExactBqp {
    fn name(&self) -> &str {
        "exact"
    }

    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        let solution = qp.solve_exact()?;
        Ok(BqpOutcome {
            z: solution.z().to_vec(),
            value: solution.value(),
            upper_bound: Some(solution.value()),
        })
    }
}

/// The conformance suite of [`BooleanQpSolver`].
pub mod conformance {
    use faer::Mat;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use rand_distr::{Distribution, StandardNormal};

    use super::{BooleanQpSolver, BqpOutcome};
    use crate::boolean_qp::BooleanQp;

    /// Fraction of the exact optimum a solver must reach on every small instance.
    pub const MIN_RATIO: f64 = 0.95;

    fn gaussian(rows: usize, cols: usize, seed: u64) -> Mat<f64> {
        let mut rng = StdRng::seed_from_u64(seed);
        Mat::from_fn(rows, cols, |_, _| StandardNormal.sample(&mut rng))
    }

    /// The fixed instances of the suite: low-rank `G G^T` (BMP's atom search), dense
    /// indefinite symmetric `A`, and a planted instance whose optimum is a known support.
    pub fn instances() -> Vec<(String, BooleanQp)> {
        let mut out = Vec::new();
        for (k, &(n, m)) in [(8usize, 16usize), (12, 5), (16, 40), (18, 3)]
            .iter()
            .enumerate()
        {
            let g = gaussian(n, m, 100 + k as u64);
            if let Ok(qp) = BooleanQp::low_rank(g.as_ref()) {
                out.push((format!("G G^T, G {n} x {m}"), qp));
            }
        }
        for (k, &n) in [6usize, 10, 14].iter().enumerate() {
            let b = gaussian(n, n, 200 + k as u64);
            let a = Mat::from_fn(n, n, |i, j| b[(i, j)] + b[(j, i)]);
            if let Ok(qp) = BooleanQp::dense(a.as_ref()) {
                out.push((format!("dense indefinite, n = {n}"), qp));
            }
        }
        // Planted: one column g = +1 on the first half, -1 on the rest; the optimum of
        // ||G^T z||^2 picks the first half.
        let n = 12;
        let g = Mat::from_fn(n, 1, |i, _| if i < n / 2 { 1.0 } else { -1.0 });
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
}
