//! A backend that builds the model through good_lp's modelling API and solves it with
//! good_lp's `microlp` solver (cold solves only).
//!
//! It solves the same programs as [`Microlp`](crate::Microlp) through a different front
//! end, so the conformance suite cross-checks the two; it is also the template for adding
//! another good_lp solver (HiGHS, Clarabel, ...) behind a Cargo feature.

use good_lp::{Expression, ProblemVariables, ResolutionError, Solution, SolverModel, variable};

use crate::error::{LpError, guarded};
use crate::model::{Cmp, LinearProgram, Sense};
use crate::outcome::{LpOutcome, LpSolution};
use crate::solver::LpSolver;

const NAME: &str = "good_lp-microlp";

/// good_lp (1.15) with its `microlp` solver. Extensions of a prepared base are solved from
/// scratch (the trait's default).
#[derive(Debug, Clone, Copy, Default)]
pub struct GoodLpMicrolp;

fn solve_inner(lp: &LinearProgram) -> Result<LpOutcome, LpError> {
    let mut pv = ProblemVariables::new();
    let vars: Vec<good_lp::Variable> = lp
        .vars()
        .iter()
        .map(|v| {
            let mut def = variable();
            if v.lower.is_finite() {
                def = def.min(v.lower);
            }
            if v.upper.is_finite() {
                def = def.max(v.upper);
            }
            pv.add(def)
        })
        .collect();
    let mut objective = Expression::from(0.0);
    for (x, v) in vars.iter().zip(lp.vars()) {
        if v.cost != 0.0 {
            objective.add_mul(v.cost, *x);
        }
    }
    let unsolved = match lp.sense() {
        Sense::Minimize => pv.minimise(objective),
        Sense::Maximize => pv.maximise(objective),
    };
    let mut model = unsolved.using(good_lp::microlp);
    for row in lp.rows() {
        let mut e = Expression::from(0.0);
        for &(j, a) in &row.coeffs {
            e.add_mul(a, vars[j]);
        }
        let c = match row.cmp {
            Cmp::Le => e.leq(row.rhs),
            Cmp::Ge => e.geq(row.rhs),
            Cmp::Eq => e.eq(row.rhs),
        };
        model.add_constraint(c);
    }
    match model.solve() {
        Ok(solution) => {
            let values: Vec<f64> = vars.iter().map(|&v| solution.value(v)).collect();
            if values.iter().any(|v| !v.is_finite()) {
                return Err(LpError::failed(
                    NAME,
                    "non-finite value in the returned solution",
                ));
            }
            let objective = lp.objective_value(&values);
            Ok(LpOutcome::Optimal(LpSolution { objective, values }))
        }
        Err(ResolutionError::Infeasible) => Ok(LpOutcome::Infeasible),
        Err(ResolutionError::Unbounded) => Ok(LpOutcome::Unbounded),
        Err(e) => Err(LpError::failed(NAME, e.to_string())),
    }
}

impl bl_core::Extension for GoodLpMicrolp {
    fn name(&self) -> &str {
        NAME
    }
}

impl LpSolver for GoodLpMicrolp {
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError> {
        lp.validate()?;
        guarded(NAME, || solve_inner(lp))
    }
}
