//! Every backend passes the shared conformance suite (each case runs once, and every
//! failing case is named in the report), and broken backends fail it.

use lp_backend::conformance::{CASES, conformance};
use lp_backend::{Extension, GoodLpMicrolp, LpSolver, Microlp};

fn passes(solver: &dyn LpSolver) {
    let report = conformance(solver);
    assert!(report.passed(), "{report}");
    assert_eq!(report.extension(), solver.name());
    assert_eq!(report.checks().len(), 1 + CASES.len(), "{report}");
}

#[test]
fn microlp_passes_conformance() {
    passes(&Microlp);
}

#[test]
fn good_lp_microlp_passes_conformance() {
    passes(&GoodLpMicrolp);
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

impl Extension for Tampered {
    fn name(&self) -> &str {
        self.name
    }
}

impl LpSolver for Tampered {
    fn solve(
        &self,
        lp: &lp_backend::LinearProgram,
    ) -> Result<lp_backend::LpOutcome, lp_backend::LpError> {
        Microlp.solve(lp).map(self.tamper)
    }
}

/// A backend whose own settings are invalid: its `check()` refuses, and so does the suite.
#[derive(Debug)]
struct Misconfigured;

impl Extension for Misconfigured {
    fn name(&self) -> &str {
        "misconfigured"
    }
    fn check(&self) -> Result<(), bl_core::BlError> {
        Err(bl_core::params::invalid(
            "pivot_tol",
            -1.0,
            "finite and > 0",
        ))
    }
}

impl LpSolver for Misconfigured {
    fn solve(
        &self,
        lp: &lp_backend::LinearProgram,
    ) -> Result<lp_backend::LpOutcome, lp_backend::LpError> {
        Microlp.solve(lp)
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
        let report = conformance(&solver);
        assert!(!report.passed(), "{report}");
        assert!(
            report.failures().any(|c| c.name == failing_case),
            "{}: {report}",
            solver.name
        );
        // The report names the backend and the failed case, and converts into an error.
        let message = report.into_result().unwrap_err().to_string();
        assert!(
            message.contains(solver.name) && message.contains(failing_case),
            "{message}"
        );
    }
    let report = conformance(&Misconfigured);
    let failed: Vec<&str> = report.failures().map(|c| c.name).collect();
    assert_eq!(failed, ["own_settings_check"], "{report}");
    assert!(report.to_string().contains("pivot_tol"), "{report}");
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
