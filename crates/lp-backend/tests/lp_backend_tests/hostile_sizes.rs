//! Hostile programs for the exponential reference `vertex_enumeration_optimum`: a typed
//! error before any work, never a panic, an abort on a dense expansion or an endless
//! enumeration.

use lp_backend::conformance::{MAX_VERTEX_CANDIDATES, vertex_enumeration_optimum};
use lp_backend::{Cmp, LinearProgram, LpError, Row, Sense};

fn boxed(n: usize) -> LinearProgram {
    let mut lp = LinearProgram::new(Sense::Maximize);
    for _ in 0..n {
        lp.add_var(0.0, 1.0, 1.0);
    }
    lp
}

#[test]
fn vertex_enumeration_refuses_invalid_or_huge_programs_before_any_work() {
    // A row on variable 3 of a 2-variable model used to panic on the dense expansion.
    let mut unknown = boxed(2);
    unknown.push_row(Row::new(vec![(3, 1.0)], Cmp::Le, 1.0));
    // 100,000 variables and rows, one coefficient each (a few MB): the dense expansion
    // asked for 10^10 values (an abort), and C(300000, 100000) candidates would never end.
    let mut sparse = boxed(100_000);
    for j in 0..100_000 {
        sparse.push_row(Row::new(vec![(j, 1.0)], Cmp::Le, 1.0));
    }
    // 40 bounded variables, no rows: C(80, 40) ~ 1e23 candidates.
    let cases = [
        ("unknown variable", unknown, "uses variable 3"),
        ("100,000 sparse rows", sparse, "candidate vertices"),
        ("40 variables", boxed(40), "candidate vertices"),
    ];
    for (case, lp, mention) in cases {
        match vertex_enumeration_optimum(&lp) {
            Err(LpError::InvalidModel { message }) => {
                assert!(message.contains(mention), "{case}: {message}");
                assert!(message.len() < 300, "{case}: {message}");
            }
            other => panic!("{case}: expected InvalidModel, got {other:?}"),
        }
    }
}

#[test]
fn vertex_enumeration_still_solves_programs_within_its_bound() {
    // 10 variables in the unit box, max sum x: C(20, 10) = 184,756 candidates, optimum 10.
    const { assert!(184_756 <= MAX_VERTEX_CANDIDATES) };
    let lp = boxed(10);
    assert_eq!(vertex_enumeration_optimum(&lp).unwrap(), Some(10.0));
    // x + y <= 1 on the unit square.
    let mut lp = boxed(2);
    lp.push_row(Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Le, 1.0));
    let best = vertex_enumeration_optimum(&lp).unwrap().unwrap();
    assert!((best - 1.0).abs() < 1e-12, "{best}");
}
