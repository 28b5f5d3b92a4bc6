//! Every backend passes the shared conformance suite (each case runs once, and every
//! failing case is named).

use lp_backend::conformance::check_solver;
use lp_backend::{GoodLpMicrolp, LpSolver, Microlp};

fn run_all(solver: &dyn LpSolver) {
    if let Err(failures) = check_solver(solver) {
        panic!("{} failed:\n{}", solver.name(), failures.join("\n"));
    }
}

#[test]
fn microlp_passes_conformance() {
    run_all(&Microlp);
}

#[test]
fn good_lp_microlp_passes_conformance() {
    run_all(&GoodLpMicrolp);
}

#[test]
fn default_solver_is_microlp() {
    assert_eq!(lp_backend::default_solver().name(), "microlp");
}

/// A backend that reports a slightly wrong objective must fail the suite: the suite can fail.
#[derive(Debug)]
struct OffByOne;

impl LpSolver for OffByOne {
    fn name(&self) -> &'static str {
        "off-by-one"
    }
    fn solve(
        &self,
        lp: &lp_backend::LinearProgram,
    ) -> Result<lp_backend::LpOutcome, lp_backend::LpError> {
        let mut outcome = Microlp.solve(lp)?;
        if let lp_backend::LpOutcome::Optimal(s) = &mut outcome {
            s.objective += 1e-3;
        }
        Ok(outcome)
    }
}

/// A backend that calls every infeasible program unbounded.
#[derive(Debug)]
struct WrongVerdict;

impl LpSolver for WrongVerdict {
    fn name(&self) -> &'static str {
        "wrong-verdict"
    }
    fn solve(
        &self,
        lp: &lp_backend::LinearProgram,
    ) -> Result<lp_backend::LpOutcome, lp_backend::LpError> {
        match Microlp.solve(lp)? {
            lp_backend::LpOutcome::Infeasible => Ok(lp_backend::LpOutcome::Unbounded),
            other => Ok(other),
        }
    }
}

#[test]
fn broken_backends_fail_conformance() {
    let failures = check_solver(&OffByOne).expect_err("objective error must be caught");
    assert!(failures.iter().any(|f| f.starts_with("textbook_maximum")));
    let failures = check_solver(&WrongVerdict).expect_err("verdict error must be caught");
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("infeasible_is_reported"))
    );
}

#[test]
fn repeated_variables_are_found_in_any_order() {
    use lp_backend::{Cmp, LinearProgram, Row, Sense};
    // Compared with a brute-force pairwise check on rows with increasing, unsorted and
    // repeated indices (the validation skips its sort when the indices increase).
    let rows: [&[usize]; 7] = [
        &[0, 1, 2, 3],
        &[3, 1, 0, 2],
        &[0, 1, 1, 2],
        &[2, 0, 3, 0],
        &[3, 3],
        &[],
        &[1, 3, 2],
    ];
    for idx in rows {
        let mut lp = LinearProgram::new(Sense::Minimize);
        for _ in 0..4 {
            lp.add_var(0.0, 1.0, 1.0);
        }
        lp.push_row(Row::new(
            idx.iter().map(|&j| (j, 1.0)).collect(),
            Cmp::Le,
            1.0,
        ));
        let repeated = (0..idx.len()).any(|a| (a + 1..idx.len()).any(|b| idx[a] == idx[b]));
        assert_eq!(lp.validate().is_err(), repeated, "{idx:?}");
    }
}

#[test]
fn invalid_interior_point_parameters_are_typed_core_errors() {
    use lp_backend::{LpError, LpStatus, interior_point};
    let bad = [
        (0.0, 0.0),
        (f64::NAN, 0.0),
        (1.0, -1.0),
        (1.0, f64::INFINITY),
    ];
    for (cap, min_slack) in bad {
        let err = interior_point(&Microlp, &[(0.0, 1.0)], &[], cap, min_slack)
            .expect_err("invalid cap or min_slack");
        let name = if cap.is_finite() && cap > 0.0 {
            "min_slack"
        } else {
            "cap"
        };
        assert!(
            matches!(&err, LpError::Core(bl_core::BlError::InvalidParameter { name: n, .. }) if *n == name),
            "{err:?}"
        );
        assert_eq!(err.status(), LpStatus::Failed);
    }
}
