//! The default backend: the pure-Rust `microlp` simplex solver, called directly so that a
//! solved base program can be extended by rows with a dual-simplex warm start.

use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome};

use crate::error::{LpError, guarded};
use crate::model::{Cmp, LinearProgram, Row, Sense, validate_row};
use crate::outcome::{LpOutcome, LpSolution};
use crate::solver::{LpSolver, WarmLp};

const NAME: &str = "microlp";

/// Relative feasibility tolerance used to double-check every returned solution.
const CHECK_TOL: f64 = 1e-6;

/// The `microlp` 0.6 simplex solver (the same solver good_lp's `microlp` feature uses),
/// with row extensions of a prepared base: [`LpSolver::prepare`] translates and solves the
/// base program once; an extension by few rows clones the solved state and adds them (dual
/// simplex from the base optimum), an extension by many rows clones the translated base
/// and solves from scratch (microlp re-solves after every added row).
#[derive(Debug, Clone, Copy, Default)]
pub struct Microlp;

fn cmp_op(cmp: Cmp) -> ComparisonOp {
    match cmp {
        Cmp::Le => ComparisonOp::Le,
        Cmp::Ge => ComparisonOp::Ge,
        Cmp::Eq => ComparisonOp::Eq,
    }
}

/// A model translated into microlp, with the variable handles.
#[derive(Clone)]
struct Built {
    problem: Problem,
    vars: Vec<microlp::Variable>,
}

fn build(lp: &LinearProgram) -> Built {
    build_rows(lp, lp.rows().iter(), false)
}

/// `lp` with `rows` for its constraints, each divided by its largest coefficient's
/// magnitude when `equilibrate` (the same feasible set; better conditioned for the
/// simplex when the rows' scales differ).
fn build_rows<'r>(
    lp: &LinearProgram,
    rows: impl Iterator<Item = &'r Row>,
    equilibrate: bool,
) -> Built {
    let direction = match lp.sense() {
        Sense::Minimize => OptimizationDirection::Minimize,
        Sense::Maximize => OptimizationDirection::Maximize,
    };
    let mut problem = Problem::new(direction);
    let vars: Vec<microlp::Variable> = lp
        .vars()
        .iter()
        .map(|v| problem.add_var(v.cost, (v.lower, v.upper)))
        .collect();
    for row in rows {
        let scale = if equilibrate {
            row.coeffs.iter().map(|&(_, a)| a.abs()).fold(0.0, f64::max)
        } else {
            1.0
        };
        let scale = if scale > 0.0 && scale.is_finite() {
            scale
        } else {
            1.0
        };
        problem.add_constraint(expr(row, &vars, scale), cmp_op(row.cmp), row.rhs / scale);
    }
    Built { problem, vars }
}

/// `row`'s left-hand side over `vars`, every coefficient divided by `scale`.
fn expr(row: &Row, vars: &[microlp::Variable], scale: f64) -> microlp::LinearExpr {
    row.coeffs
        .iter()
        .filter(|&&(_, a)| a != 0.0)
        .map(|&(j, a)| (vars[j], a / scale))
        .collect()
}

/// Checks the solution against the model and packages it.
fn extract(
    lp_rows: &[&Row],
    lp: &LinearProgram,
    solution: &microlp::Solution,
    vars: &[microlp::Variable],
) -> Result<LpOutcome, LpError> {
    let values: Vec<f64> = vars.iter().map(|&v| solution.var_value_raw(v)).collect();
    if values.iter().any(|v| !v.is_finite()) {
        return Err(LpError::failed(
            NAME,
            "non-finite value in the returned solution",
        ));
    }
    let mut worst: f64 = 0.0;
    for row in lp.rows().iter().chain(lp_rows.iter().copied()) {
        let scale = 1.0
            + row.rhs.abs()
            + row
                .coeffs
                .iter()
                .map(|&(j, a)| (a * values[j]).abs())
                .sum::<f64>();
        worst = worst.max(row.violation(&values) / scale);
    }
    for (v, &x) in lp.vars().iter().zip(&values) {
        let scale = 1.0 + x.abs();
        worst = worst.max((v.lower - x).max(x - v.upper).max(0.0) / scale);
    }
    if worst > CHECK_TOL {
        return Err(LpError::failed(
            NAME,
            format!("returned point violates the model by {worst:.3e} (relative)"),
        ));
    }
    let objective = lp.objective_value(&values);
    Ok(LpOutcome::Optimal(LpSolution { objective, values }))
}

fn solve_built(built: &Built) -> Result<Result<microlp::Solution, LpOutcome>, LpError> {
    match built.problem.solve() {
        Ok(SolveOutcome::Solution(s)) => Ok(Ok(s)),
        Ok(SolveOutcome::Interrupted(_)) => Err(LpError::failed(NAME, "solve interrupted")),
        Err(microlp::Error::Infeasible) => Ok(Err(LpOutcome::Infeasible)),
        Err(microlp::Error::Unbounded) => Ok(Err(LpOutcome::Unbounded)),
        Err(e) => Err(LpError::failed(NAME, e.to_string())),
    }
}

/// Solves `built` (the translation of `lp` with `extra` rows) and checks the point. When
/// microlp's point fails the check, the program is translated again with every row
/// equilibrated (divided by its largest coefficient's magnitude: the same feasible set)
/// and solved from scratch; that solve's verdict or point is returned, and its failure
/// reported with the first. Returns the outcome and, when optimal, the solution with its
/// state (for warm starts).
fn solve_checked(
    lp: &LinearProgram,
    extra: &[Row],
    built: &Built,
) -> Result<(LpOutcome, Option<microlp::Solution>), LpError> {
    let extra_refs: Vec<&Row> = extra.iter().collect();
    let first = match solve_built(built)? {
        Ok(solution) => match extract(&extra_refs, lp, &solution, &built.vars) {
            Ok(outcome) => return Ok((outcome, Some(solution))),
            Err(e @ LpError::Failed { .. }) => e,
            Err(e) => return Err(e),
        },
        Err(verdict) => return Ok((verdict, None)),
    };
    let scaled = build_rows(lp, lp.rows().iter().chain(extra), true);
    match solve_built(&scaled)? {
        Ok(solution) => {
            let outcome = extract(&extra_refs, lp, &solution, &scaled.vars).map_err(|e| {
                LpError::failed(
                    NAME,
                    format!("{first}; solved again with equilibrated rows: {e}"),
                )
            })?;
            Ok((outcome, Some(solution)))
        }
        Err(verdict) => Ok((verdict, None)),
    }
}

impl bl_core::Extension for Microlp {
    fn name(&self) -> &str {
        NAME
    }
}

impl LpSolver for Microlp {
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError> {
        lp.validate()?;
        guarded(NAME, || Ok(solve_checked(lp, &[], &build(lp))?.0))
    }

    fn prepare<'a>(&'a self, base: &LinearProgram) -> Result<Box<dyn WarmLp + 'a>, LpError> {
        base.validate()?;
        guarded(NAME, || {
            let built = build(base);
            let (outcome, state) = solve_checked(base, &[], &built)?;
            Ok(Box::new(MicrolpWarm {
                base: base.clone(),
                built,
                outcome,
                state,
            }) as Box<dyn WarmLp + 'a>)
        })
    }
}

/// A solved microlp base program, with its translation kept for cold extensions.
struct MicrolpWarm {
    base: LinearProgram,
    built: Built,
    outcome: LpOutcome,
    state: Option<microlp::Solution>,
}

impl MicrolpWarm {
    /// Dual simplex from the base optimum, one added row at a time.
    fn warm(&self, state: &microlp::Solution, rows: &[Row]) -> Result<LpOutcome, LpError> {
        let mut current = state.clone();
        for row in rows {
            match current.add_constraint(expr(row, &self.built.vars, 1.0), cmp_op(row.cmp), row.rhs)
            {
                Ok(SolveOutcome::Solution(s)) => current = s,
                Ok(SolveOutcome::Interrupted(_)) => {
                    return Err(LpError::failed(NAME, "warm-started solve interrupted"));
                }
                Err(microlp::Error::Infeasible) => return Ok(LpOutcome::Infeasible),
                Err(microlp::Error::Unbounded) => return Ok(LpOutcome::Unbounded),
                Err(e) => return Err(LpError::failed(NAME, e.to_string())),
            }
        }
        let extra: Vec<&Row> = rows.iter().collect();
        extract(&extra, &self.base, &current, &self.built.vars)
    }

    /// A copy of the translated base with the rows added, solved from scratch (the base
    /// rows are neither validated nor translated again).
    fn cold(&self, rows: &[Row]) -> Result<LpOutcome, LpError> {
        let mut built = self.built.clone();
        for row in rows {
            built
                .problem
                .add_constraint(expr(row, &built.vars, 1.0), cmp_op(row.cmp), row.rhs);
        }
        Ok(solve_checked(&self.base, rows, &built)?.0)
    }
}

impl WarmLp for MicrolpWarm {
    fn base_outcome(&self) -> &LpOutcome {
        &self.outcome
    }

    /// Warm (dual simplex from the base optimum) when the base has at least four times as
    /// many rows as the extension, falling back to cold when the warm solve fails;
    /// otherwise cold from the stored translation, which is cheaper because microlp
    /// re-solves after every added row (measured by the `gop` bench of
    /// `bilinear-benches`).
    fn solve_with_rows(&self, rows: &[Row]) -> Result<LpOutcome, LpError> {
        for (i, row) in rows.iter().enumerate() {
            validate_row(row, self.base.num_vars(), &format!("extra row {i}"))?;
        }
        match (&self.outcome, &self.state) {
            (LpOutcome::Infeasible, _) => Ok(LpOutcome::Infeasible),
            (LpOutcome::Optimal(_), Some(state)) if self.base.num_rows() >= 4 * rows.len() => {
                // The dual simplex from the base optimum can drift numerically over many
                // added rows: a warm solve that fails (microlp's error, or a point the
                // check refuses) is solved again from scratch, and only that one's
                // failure is reported.
                match guarded(NAME, || self.warm(state, rows)) {
                    Err(LpError::Failed { .. }) => guarded(NAME, || self.cold(rows)),
                    other => other,
                }
            }
            // Small base, unbounded base, or no stored state: cold.
            _ => guarded(NAME, || self.cold(rows)),
        }
    }
}
