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

/// The default backend with its answer altered by `tamper`: a broken backend that the
/// suite must reject (so the suite can fail).
#[derive(Debug)]
struct Tampered {
    name: &'static str,
    tamper: fn(lp_backend::LpOutcome) -> lp_backend::LpOutcome,
}

impl LpSolver for Tampered {
    fn name(&self) -> &'static str {
        self.name
    }
    fn solve(
        &self,
        lp: &lp_backend::LinearProgram,
    ) -> Result<lp_backend::LpOutcome, lp_backend::LpError> {
        Microlp.solve(lp).map(self.tamper)
    }
}

#[test]
fn broken_backends_fail_conformance() {
    use lp_backend::LpOutcome;
    let cases = [
        // Reports a slightly wrong objective.
        (
            Tampered {
                name: "off-by-one",
                tamper: |outcome| match outcome {
                    LpOutcome::Optimal(mut s) => {
                        s.objective += 1e-3;
                        LpOutcome::Optimal(s)
                    }
                    other => other,
                },
            },
            "textbook_maximum",
        ),
        // Calls every infeasible program unbounded.
        (
            Tampered {
                name: "wrong-verdict",
                tamper: |outcome| match outcome {
                    LpOutcome::Infeasible => LpOutcome::Unbounded,
                    other => other,
                },
            },
            "infeasible_is_reported",
        ),
    ];
    for (solver, failing_case) in cases {
        let failures = check_solver(&solver).expect_err(solver.name);
        assert!(
            failures.iter().any(|f| f.starts_with(failing_case)),
            "{}: {failures:?}",
            solver.name
        );
    }
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
