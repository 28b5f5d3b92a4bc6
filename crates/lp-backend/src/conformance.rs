//! The conformance suite every [`LpSolver`] must pass.
//!
//! A new backend (a faster solver behind a Cargo feature, say) runs [`conformance`] in its
//! tests; the suite covers textbook optima, equality rows and free variables, infeasible
//! and unbounded verdicts, degenerate vertices, seeded random programs checked against an
//! exact vertex enumeration, warm-started extensions against cold solves, malformed models,
//! and the interior-point helper. Every case is one check of the returned
//! [`ConformanceReport`], named as in [`CASES`].
//!
//! ```
//! use lp_backend::{conformance, Microlp};
//! let report = conformance::conformance(&Microlp);
//! assert!(report.passed(), "{report}");
//! // Its own settings check, then one check per case.
//! assert_eq!(report.checks().len(), 1 + conformance::CASES.len());
//! ```

use bl_core::ConformanceReport;
use rand::RngExt;

use crate::error::LpError;
use crate::interior::interior_point;
use crate::model::{Cmp, LinearProgram, Row, Sense, VarId};
use crate::outcome::{LpOutcome, status_of};
use crate::solver::LpSolver;
use crate::status::LpStatus;

/// One named case: `Ok(())` or a message saying what went wrong.
pub type Case = (&'static str, fn(&dyn LpSolver) -> Result<(), String>);

/// Every case of the suite, by name (the check names of the report).
pub const CASES: &[Case] = &[
    ("textbook_maximum", textbook_maximum),
    ("equality_rows_and_free_variables", equality_and_free),
    ("negative_and_fixed_bounds", negative_and_fixed_bounds),
    ("infeasible_is_reported", infeasible),
    ("unbounded_is_reported", unbounded),
    ("degenerate_vertex", degenerate),
    (
        "random_programs_match_vertex_enumeration",
        random_vs_enumeration,
    ),
    ("warm_extensions_match_cold_solves", warm_vs_cold),
    (
        "extensions_of_infeasible_base_are_infeasible",
        warm_infeasible_base,
    ),
    (
        "extensions_of_unbounded_base_are_solved",
        warm_unbounded_base,
    ),
    ("malformed_models_are_rejected", malformed),
    ("interior_point_helper", interior),
];

/// Runs every case of [`CASES`] on `candidate` (first its own
/// [`check`](bl_core::Extension::check)) and records each as one check of the report: a
/// failed check's detail says what went wrong.
#[must_use]
pub fn conformance(candidate: &dyn LpSolver) -> ConformanceReport {
    let mut report = ConformanceReport::new(candidate.name());
    report.record_result("own_settings_check", &candidate.check());
    for &(name, case) in CASES {
        report.record_result(name, &case(candidate));
    }
    report
}

const TOL: f64 = 1e-6;

fn optimal(solver: &dyn LpSolver, lp: &LinearProgram) -> Result<(f64, Vec<f64>), String> {
    match solver.solve(lp) {
        Ok(LpOutcome::Optimal(s)) => {
            if s.values.len() != lp.num_vars() {
                return Err(format!(
                    "{} values returned for {} variables",
                    s.values.len(),
                    lp.num_vars()
                ));
            }
            let viol = lp.max_violation(&s.values);
            if viol > TOL {
                return Err(format!("solution violates the model by {viol:e}"));
            }
            let obj = lp.objective_value(&s.values);
            if (obj - s.objective).abs() > TOL * (1.0 + obj.abs()) {
                return Err(format!(
                    "reported objective {} but c^T x = {obj}",
                    s.objective
                ));
            }
            Ok((s.objective, s.values))
        }
        other => Err(format!("expected an optimum, got {:?}", status_of(&other))),
    }
}

fn close(what: &str, got: f64, want: f64) -> Result<(), String> {
    if (got - want).abs() <= TOL * (1.0 + want.abs()) {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, expected {want}"))
    }
}

/// A variable as `(lower, upper, cost)`; a row as `(terms, cmp, rhs)` over variable
/// indices.
type SmallRow<'a> = (&'a [(usize, f64)], Cmp, f64);

/// The program of `sense` with these variables and rows.
fn small_lp(sense: Sense, vars: &[(f64, f64, f64)], rows: &[SmallRow<'_>]) -> LinearProgram {
    let mut lp = LinearProgram::new(sense);
    for &(lower, upper, cost) in vars {
        lp.add_var(lower, upper, cost);
    }
    for &(terms, cmp, rhs) in rows {
        let terms: Vec<(VarId, f64)> = terms.iter().map(|&(j, a)| (VarId(j), a)).collect();
        lp.add_row(&terms, cmp, rhs);
    }
    lp
}

/// Checks that `lp` has the optimum `objective` with the named entries `(name, index,
/// value)` of the solution.
fn expect_optimum(
    solver: &dyn LpSolver,
    lp: &LinearProgram,
    objective: f64,
    entries: &[(&str, usize, f64)],
) -> Result<(), String> {
    let (obj, v) = optimal(solver, lp)?;
    close("objective", obj, objective)?;
    entries
        .iter()
        .try_for_each(|&(name, j, want)| close(name, v[j], want))
}

/// Checks that the solver reports `expected` for `lp`.
fn expect_status(
    solver: &dyn LpSolver,
    lp: &LinearProgram,
    expected: LpStatus,
) -> Result<(), String> {
    match status_of(&solver.solve(lp)) {
        s if s == expected => Ok(()),
        s => Err(format!("expected {expected:?}, got {s:?}")),
    }
}

const FREE: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);
const NONNEGATIVE: (f64, f64) = (0.0, f64::INFINITY);

fn textbook_maximum(solver: &dyn LpSolver) -> Result<(), String> {
    // max 3x + 5y  s.t. x <= 4, 2y <= 12, 3x + 2y <= 18, x, y >= 0: optimum (2, 6), 36.
    let (lo, hi) = NONNEGATIVE;
    let lp = small_lp(
        Sense::Maximize,
        &[(lo, hi, 3.0), (lo, hi, 5.0)],
        &[
            (&[(0, 1.0)], Cmp::Le, 4.0),
            (&[(1, 2.0)], Cmp::Le, 12.0),
            (&[(0, 3.0), (1, 2.0)], Cmp::Le, 18.0),
        ],
    );
    expect_optimum(solver, &lp, 36.0, &[("x", 0, 2.0), ("y", 1, 6.0)])
}

fn equality_and_free(solver: &dyn LpSolver) -> Result<(), String> {
    // min x + y  s.t. x - y = 1, x + 2y >= 4, x, y free: optimum (2, 1), 3.
    let (lo, hi) = FREE;
    let lp = small_lp(
        Sense::Minimize,
        &[(lo, hi, 1.0), (lo, hi, 1.0)],
        &[
            (&[(0, 1.0), (1, -1.0)], Cmp::Eq, 1.0),
            (&[(0, 1.0), (1, 2.0)], Cmp::Ge, 4.0),
        ],
    );
    expect_optimum(solver, &lp, 3.0, &[("x", 0, 2.0), ("y", 1, 1.0)])
}

fn negative_and_fixed_bounds(solver: &dyn LpSolver) -> Result<(), String> {
    // min x - z  s.t. x in [-3, 5], z fixed at 2, x + z >= -2: optimum x = -3... but
    // x + z >= -2 gives x >= -4, so x = -3 and the objective is -5.
    let lp = small_lp(
        Sense::Minimize,
        &[(-3.0, 5.0, 1.0), (2.0, 2.0, -1.0)],
        &[(&[(0, 1.0), (1, 1.0)], Cmp::Ge, -2.0)],
    );
    expect_optimum(solver, &lp, -5.0, &[("z", 1, 2.0)])
}

fn infeasible(solver: &dyn LpSolver) -> Result<(), String> {
    let (lo, hi) = NONNEGATIVE;
    let lp = small_lp(
        Sense::Minimize,
        &[(lo, hi, 1.0), (lo, hi, 1.0)],
        &[
            (&[(0, 1.0), (1, 1.0)], Cmp::Le, 1.0),
            (&[(0, 1.0), (1, 1.0)], Cmp::Ge, 2.0),
        ],
    );
    expect_status(solver, &lp, LpStatus::Infeasible)
}

fn unbounded(solver: &dyn LpSolver) -> Result<(), String> {
    let (lo, hi) = NONNEGATIVE;
    let lp = small_lp(
        Sense::Maximize,
        &[(lo, hi, 1.0), (lo, hi, 1.0)],
        &[(&[(0, 1.0), (1, -1.0)], Cmp::Le, 1.0)],
    );
    expect_status(solver, &lp, LpStatus::Unbounded)
}

fn degenerate(solver: &dyn LpSolver) -> Result<(), String> {
    // Five rows through the optimal vertex (1, 1) of max x + y.
    let mut lp = LinearProgram::new(Sense::Maximize);
    let x = lp.add_var(0.0, f64::INFINITY, 1.0);
    let y = lp.add_var(0.0, f64::INFINITY, 1.0);
    for (a, b) in [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (2.0, 1.0), (1.0, 2.0)] {
        lp.add_row(&[(x, a), (y, b)], Cmp::Le, a + b);
    }
    let (obj, _) = optimal(solver, &lp)?;
    close("objective", obj, 2.0)
}

/// The most vertex candidates (choices of `n` tight constraints among the `m` rows and
/// bounds, `C(m, n)`) [`vertex_enumeration_optimum`] tries: `2^20`.
pub const MAX_VERTEX_CANDIDATES: u128 = 1 << 20;

/// `C(m, n)` if it is at most `limit`, else `None` (computed without overflow: for
/// `n <= m / 2` the partial products `C(m, i)`, `i <= n`, increase).
fn binomial_at_most(m: usize, n: usize, limit: u128) -> Option<u128> {
    let n = n.min(m.checked_sub(n)?);
    let mut c: u128 = 1;
    for i in 0..n {
        // C(m, i + 1) = C(m, i) (m - i) / (i + 1), exact in this order.
        c = c.checked_mul((m - i) as u128)? / (i as u128 + 1);
        if c > limit {
            return None;
        }
    }
    Some(c)
}

/// Exact optimum of a small LP whose variables all have finite bounds, by enumerating the
/// vertices (every choice of `n` tight constraints among rows and bounds). `None` when
/// infeasible. For tests of backends only: the cost is exponential, so programs with more
/// than [`MAX_VERTEX_CANDIDATES`] candidate vertices are refused before any work.
///
/// # Errors
/// [`LpError::InvalidModel`] when the model is invalid ([`LinearProgram::validate`]), a
/// variable bound is infinite, or the program has more than [`MAX_VERTEX_CANDIDATES`]
/// candidate vertices.
pub fn vertex_enumeration_optimum(lp: &LinearProgram) -> Result<Option<f64>, LpError> {
    lp.validate()?;
    let n = lp.num_vars();
    // Rows plus a lower and an upper bound per variable (no overflow: both are lengths of
    // vectors in memory).
    let m = lp.num_rows().saturating_add(n.saturating_mul(2));
    if binomial_at_most(m, n, MAX_VERTEX_CANDIDATES).is_none() {
        return Err(LpError::InvalidModel {
            message: format!(
                "vertex enumeration of {n} variables and {} rows would try more than \
                 {MAX_VERTEX_CANDIDATES} candidate vertices (C({m}, {n})); it is for small \
                 test programs",
                lp.num_rows()
            ),
        });
    }
    if lp
        .vars()
        .iter()
        .any(|v| !v.lower.is_finite() || !v.upper.is_finite())
    {
        return Err(LpError::InvalidModel {
            message: "vertex enumeration needs finite bounds on every variable".into(),
        });
    }
    // Candidate tight constraints as (a, b): a^T x = b.
    let mut cands: Vec<(Vec<f64>, f64)> = Vec::new();
    for row in lp.rows() {
        let mut a = vec![0.0; n];
        for &(j, c) in &row.coeffs {
            a[j] += c;
        }
        cands.push((a, row.rhs));
    }
    for (j, v) in lp.vars().iter().enumerate() {
        let mut a = vec![0.0; n];
        a[j] = 1.0;
        cands.push((a.clone(), v.lower));
        cands.push((a, v.upper));
    }
    let mut best: Option<f64> = None;
    let mut idx: Vec<usize> = (0..n).collect();
    loop {
        if let Some(x) = solve_square(&idx.iter().map(|&i| &cands[i]).collect::<Vec<_>>())
            && lp.max_violation(&x) <= 1e-9
        {
            let obj = lp.objective_value(&x);
            best = Some(match (best, lp.sense()) {
                (None, _) => obj,
                (Some(b), Sense::Minimize) => b.min(obj),
                (Some(b), Sense::Maximize) => b.max(obj),
            });
        }
        // Next combination of n indices out of cands.len().
        let m = cands.len();
        let mut i = n;
        loop {
            if i == 0 {
                return Ok(best);
            }
            i -= 1;
            if idx[i] < m - n + i {
                idx[i] += 1;
                for k in i + 1..n {
                    idx[k] = idx[k - 1] + 1;
                }
                break;
            }
        }
    }
}

/// Gaussian elimination with partial pivoting; `None` when (nearly) singular.
fn solve_square(rows: &[&(Vec<f64>, f64)]) -> Option<Vec<f64>> {
    let n = rows.len();
    let mut a: Vec<Vec<f64>> = rows
        .iter()
        .map(|(r, b)| {
            let mut v = r.clone();
            v.push(*b);
            v
        })
        .collect();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-10 {
            return None;
        }
        a.swap(col, piv);
        for i in 0..n {
            if i != col {
                let f = a[i][col] / a[col][col];
                for k in col..=n {
                    a[i][k] -= f * a[col][k];
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

fn random_lp(rng: &mut bl_core::random::Rng, n: usize, m: usize) -> LinearProgram {
    let sense = if rng.random_bool(0.5) {
        Sense::Minimize
    } else {
        Sense::Maximize
    };
    let mut lp = LinearProgram::new(sense);
    for _ in 0..n {
        let lo = rng.random_range(-2.0..0.0);
        let hi = rng.random_range(0.0..2.0);
        lp.add_var(lo, hi, rng.random_range(-1.0..1.0));
    }
    for _ in 0..m {
        let coeffs: Vec<(usize, f64)> = (0..n).map(|j| (j, rng.random_range(-1.0..1.0))).collect();
        let cmp = match rng.random_range(0..5) {
            0 => Cmp::Ge,
            1 if n > 2 => Cmp::Eq,
            _ => Cmp::Le,
        };
        // Right-hand sides around zero: some programs are infeasible.
        let rhs = rng.random_range(-0.6..1.0);
        lp.push_row(Row::new(coeffs, cmp, rhs));
    }
    lp
}

fn random_vs_enumeration(solver: &dyn LpSolver) -> Result<(), String> {
    let mut rng = bl_core::random::seeded_rng(20_260_601);
    let mut optimal_seen = 0;
    for case in 0..40 {
        let n = 2 + case % 2;
        let m = 2 + case % 5;
        let lp = random_lp(&mut rng, n, m);
        let reference = vertex_enumeration_optimum(&lp).map_err(|e| e.to_string())?;
        match (solver.solve(&lp), reference) {
            (Ok(LpOutcome::Optimal(s)), Some(best)) => {
                optimal_seen += 1;
                if lp.max_violation(&s.values) > TOL {
                    return Err(format!("case {case}: infeasible point returned"));
                }
                close(&format!("case {case} objective"), s.objective, best)?;
            }
            (Ok(LpOutcome::Infeasible), None) => {}
            (got, want) => {
                return Err(format!(
                    "case {case}: got {:?}, vertex enumeration says {want:?}",
                    status_of(&got)
                ));
            }
        }
    }
    if optimal_seen < 10 {
        return Err(format!(
            "only {optimal_seen} feasible cases: the generator is off"
        ));
    }
    Ok(())
}

fn warm_vs_cold(solver: &dyn LpSolver) -> Result<(), String> {
    let mut rng = bl_core::random::seeded_rng(7);
    for case in 0..8 {
        let mut base = random_lp(&mut rng, 6, 4);
        // Keep the base feasible: the origin satisfies every row after this shift.
        let rows: Vec<Row> = base
            .rows()
            .iter()
            .map(|r| {
                let rhs = match r.cmp {
                    Cmp::Le => r.rhs.abs(),
                    Cmp::Ge => -r.rhs.abs(),
                    Cmp::Eq => 0.0,
                };
                Row::new(r.coeffs.clone(), r.cmp, rhs)
            })
            .collect();
        base = {
            let mut lp = LinearProgram::new(base.sense());
            for v in base.vars() {
                lp.add_var(v.lower, v.upper, v.cost);
            }
            for r in rows {
                lp.push_row(r);
            }
            lp
        };
        let warm = solver.prepare(&base).map_err(|e| e.to_string())?;
        if warm.base_outcome().status() != LpStatus::Optimal {
            return Err(format!("case {case}: feasible bounded base not optimal"));
        }
        for ext in 0..6 {
            let extra: Vec<Row> = (0..1 + ext % 3)
                .map(|_| {
                    Row::new(
                        (0..6).map(|j| (j, rng.random_range(-1.0..1.0))).collect(),
                        if rng.random_bool(0.5) {
                            Cmp::Le
                        } else {
                            Cmp::Ge
                        },
                        rng.random_range(-0.5..0.5),
                    )
                })
                .collect();
            let mut full = base.clone();
            for r in &extra {
                full.push_row(r.clone());
            }
            let cold = solver.solve(&full);
            let hot = warm.solve_with_rows(&extra);
            match (&cold, &hot) {
                (Ok(LpOutcome::Optimal(a)), Ok(LpOutcome::Optimal(b))) => {
                    if full.max_violation(&b.values) > TOL {
                        return Err(format!("case {case}.{ext}: warm point infeasible"));
                    }
                    close(&format!("case {case}.{ext}"), b.objective, a.objective)?;
                }
                (a, b) if status_of(a) == status_of(b) => {}
                (a, b) => {
                    return Err(format!(
                        "case {case}.{ext}: cold {:?} but warm {:?}",
                        status_of(a),
                        status_of(b)
                    ));
                }
            }
        }
        // The base itself is unchanged by extensions.
        if status_of(&warm.solve_with_rows(&[])) != LpStatus::Optimal {
            return Err(format!("case {case}: base changed after extensions"));
        }
    }
    Ok(())
}

fn warm_infeasible_base(solver: &dyn LpSolver) -> Result<(), String> {
    let mut lp = LinearProgram::new(Sense::Minimize);
    let x = lp.add_var(0.0, 1.0, 1.0);
    lp.add_row(&[(x, 1.0)], Cmp::Ge, 2.0);
    let warm = solver.prepare(&lp).map_err(|e| e.to_string())?;
    let ext = warm
        .solve_with_rows(&[Row::new(vec![(0, 1.0)], Cmp::Le, 5.0)])
        .map_err(|e| e.to_string())?;
    match (warm.base_outcome().status(), ext.status()) {
        (LpStatus::Infeasible, LpStatus::Infeasible) => Ok(()),
        other => Err(format!(
            "expected infeasible base and extension, got {other:?}"
        )),
    }
}

fn warm_unbounded_base(solver: &dyn LpSolver) -> Result<(), String> {
    // max x + y  s.t. x - y <= 1, x, y >= 0 is unbounded; with y <= 2 the optimum is
    // (3, 2), 5; with x + y <= 1 it is 1.
    let mut lp = LinearProgram::new(Sense::Maximize);
    let x = lp.add_var(0.0, f64::INFINITY, 1.0);
    let y = lp.add_var(0.0, f64::INFINITY, 1.0);
    lp.add_row(&[(x, 1.0), (y, -1.0)], Cmp::Le, 1.0);
    let warm = solver.prepare(&lp).map_err(|e| e.to_string())?;
    if warm.base_outcome().status() != LpStatus::Unbounded {
        return Err(format!(
            "expected an unbounded base, got {:?}",
            warm.base_outcome().status()
        ));
    }
    for (rows, want) in [
        (vec![Row::new(vec![(1, 1.0)], Cmp::Le, 2.0)], 5.0),
        (vec![Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Le, 1.0)], 1.0),
    ] {
        match warm.solve_with_rows(&rows) {
            Ok(LpOutcome::Optimal(s)) => close("extended objective", s.objective, want)?,
            other => return Err(format!("expected an optimum, got {:?}", status_of(&other))),
        }
    }
    Ok(())
}

fn malformed(solver: &dyn LpSolver) -> Result<(), String> {
    let mut nan = LinearProgram::new(Sense::Minimize);
    let x = nan.add_var(0.0, 1.0, 1.0);
    nan.add_row(&[(x, f64::NAN)], Cmp::Le, 1.0);
    let mut oob = LinearProgram::new(Sense::Minimize);
    oob.add_var(0.0, 1.0, 1.0);
    oob.push_row(Row::new(vec![(3, 1.0)], Cmp::Le, 1.0));
    let mut crossed = LinearProgram::new(Sense::Minimize);
    crossed.add_var(2.0, 1.0, 1.0);
    let mut twice = LinearProgram::new(Sense::Minimize);
    twice.add_var(0.0, 1.0, 1.0);
    twice.push_row(Row::new(vec![(0, 1.0), (0, 2.0)], Cmp::Le, 1.0));
    for (name, lp) in [
        ("NaN coefficient", &nan),
        ("unknown variable", &oob),
        ("crossed bounds", &crossed),
        ("repeated variable", &twice),
    ] {
        match solver.solve(lp) {
            Err(LpError::InvalidModel { .. }) => {}
            other => return Err(format!("{name}: expected InvalidModel, got {other:?}")),
        }
    }
    Ok(())
}

fn interior(solver: &dyn LpSolver) -> Result<(), String> {
    let free = [(f64::NEG_INFINITY, f64::INFINITY); 2];
    // The triangle x >= 0, y >= 0, x + y <= 1 as half-spaces: inradius 1 / (2 + sqrt 2).
    let tri = vec![
        Row::new(vec![(0, 1.0)], Cmp::Ge, 0.0),
        Row::new(vec![(1, 1.0)], Cmp::Ge, 0.0),
        Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Le, 1.0),
    ];
    let p = interior_point(solver, &free, &tri, 10.0, 1e-9)
        .map_err(|e| e.to_string())?
        .ok_or("the triangle has an interior")?;
    close("inradius", p.slack, 1.0 / (2.0 + 2f64.sqrt()))?;
    if tri.iter().any(|r| r.violation(&p.point) > 0.0) {
        return Err("interior point outside the triangle".into());
    }
    // A segment (two opposite half-spaces on one line) has no interior.
    let mut seg = tri.clone();
    seg.push(Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Ge, 1.0));
    if interior_point(solver, &free, &seg, 10.0, 1e-7)
        .map_err(|e| e.to_string())?
        .is_some()
    {
        return Err("a segment was reported to have an interior".into());
    }
    // An empty set.
    let mut empty = tri;
    empty.push(Row::new(vec![(0, 1.0), (1, 1.0)], Cmp::Ge, 2.0));
    if interior_point(solver, &free, &empty, 10.0, 1e-9)
        .map_err(|e| e.to_string())?
        .is_some()
    {
        return Err("an empty set was reported to have an interior".into());
    }
    // The cap bounds the slack of an unbounded set.
    let half = vec![Row::new(vec![(0, 1.0)], Cmp::Ge, 0.0)];
    let p = interior_point(solver, &free, &half, 3.0, 1e-9)
        .map_err(|e| e.to_string())?
        .ok_or("a half-plane has an interior")?;
    close("capped slack", p.slack, 3.0)
}
