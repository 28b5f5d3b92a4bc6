//! Checks of statements the rustdoc of `lp-backend` makes, on a plug-in backend that
//! returns optimal solutions without their values.

use lp_backend::conformance::conformance;
use lp_backend::{
    Cmp, Extension, LinearProgram, LpError, LpOutcome, LpSolver, Microlp, Row, interior_point,
};

/// The default backend, with the values of every optimal solution dropped.
#[derive(Debug)]
struct NoValues;

impl Extension for NoValues {
    fn name(&self) -> &str {
        "no-values"
    }
}

impl LpSolver for NoValues {
    fn solve(&self, lp: &LinearProgram) -> Result<LpOutcome, LpError> {
        Ok(match Microlp.solve(lp)? {
            LpOutcome::Optimal(mut s) => {
                s.values.clear();
                LpOutcome::Optimal(s)
            }
            other => other,
        })
    }
}

/// `conformance`: "records each [case] as one check of the report: a failed check's detail
/// says what went wrong" (a report, not a panic of the suite).
#[test]
fn conformance_reports_a_backend_that_returns_no_values() {
    let report = conformance(&NoValues);
    assert!(!report.passed(), "{report}");
    assert!(
        report
            .failures()
            .any(|c| c.name == "textbook_maximum" && c.detail.contains("values")),
        "{report}"
    );
}

/// `interior_point`: a backend's failure is [`LpError::Failed`], not a panic.
#[test]
fn interior_point_refuses_a_solution_without_values() {
    let rows = vec![Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Le, 1.0)];
    let result = interior_point(&NoValues, &[(0.0, f64::INFINITY); 2], &rows, 10.0, 1e-9);
    assert!(matches!(result, Err(LpError::Failed { .. })), "{result:?}");
    let p = interior_point(&Microlp, &[(0.0, f64::INFINITY); 2], &rows, 10.0, 1e-9).unwrap();
    assert!(p.is_some());
}
