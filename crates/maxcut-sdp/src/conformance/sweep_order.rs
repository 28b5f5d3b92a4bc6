//! The conformance suite of [`SweepOrder`].

use std::sync::Arc;

use bl_core::{ConformanceReport, Extension, Fit, Fitted};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::mixing::ORDER_STREAM;
use crate::params::MixingParams;
use crate::problem::Problem;
use crate::sweep_order::{Cyclic, SweepOrder};
use crate::synthetic::{gnp_weighted, random_symmetric};

/// Sizes `n` on which the orders of a few sweeps are checked.
pub const SIZES: [usize; 5] = [1, 2, 7, 33, 100];

/// Sweeps checked per size.
pub const SWEEPS: usize = 6;

/// Relative distance to the cyclic method's SDP value a fit with the order must reach.
pub const MAX_GAP: f64 = 1e-4;

/// Sweep budget and seed of the fits of the suite.
const FIT_SWEEPS: usize = 5000;
const FIT_SEED: u64 = 3;

/// The orders of `sweeps` successive sweeps from `seed`, or the first violation.
fn orders(
    order: &dyn SweepOrder,
    n: usize,
    sweeps: usize,
    seed: u64,
) -> Result<Vec<Vec<usize>>, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut current: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(sweeps);
    for sweep in 1..=sweeps {
        order.arrange(sweep, &mut rng, &mut current);
        let mut sorted = current.clone();
        sorted.sort_unstable();
        if sorted != (0..n).collect::<Vec<_>>() {
            return Err(format!(
                "sweep {sweep} at n = {n} is not a permutation of 0..{n}: {current:?}"
            ));
        }
        if order.is_identity() && current.iter().enumerate().any(|(p, &i)| p != i) {
            return Err(format!(
                "claims to be the identity but sweep {sweep} at n = {n} gives {current:?}"
            ));
        }
        out.push(current.clone());
    }
    Ok(out)
}

/// The candidate's orders, recorded for a fit: they are exactly what the candidate
/// arranges in a fit with the suite's seed (the same seeded stream, the same previous
/// order), played back by an owned order (a fit holds its order in an `Arc`, the suite
/// borrows the candidate).
#[derive(Debug)]
struct Replay {
    name: String,
    orders: Vec<Vec<usize>>,
    identity: bool,
    by_color: bool,
}

impl Extension for Replay {
    fn name(&self) -> &str {
        &self.name
    }
}

impl SweepOrder for Replay {
    fn arrange(&self, sweep: usize, _rng: &mut StdRng, order: &mut [usize]) {
        if let Some(recorded) = self.orders.get(sweep - 1) {
            order.copy_from_slice(recorded);
        }
    }

    fn is_identity(&self) -> bool {
        self.identity
    }

    fn by_color(&self) -> bool {
        self.by_color
    }
}

/// The fit problems of the suite: max-cut of a weighted G(40, 0.3) (stored sparse; at
/// this density the fits' [`crate::LowRankMode::Auto`] forms it densely, so the sweeps
/// are dense: [`crate::SweepForm::SparseFormed`]), max-cut of a weighted G(80, 0.08)
/// (below [`crate::SPARSE_FORM_DENSITY`]: kept sparse, so the sparse sweep runs the
/// order) and an indefinite dense `C` (`n = 30`).
pub fn problems() -> Vec<(String, Problem)> {
    let mut out = Vec::new();
    if let Ok(edges) = gnp_weighted(40, 0.3, 11)
        && let Ok(problem) = Problem::maxcut(40, &edges)
    {
        out.push(("max-cut G(40, 0.3)".to_string(), problem));
    }
    if let Ok(edges) = gnp_weighted(80, 0.08, 13)
        && let Ok(problem) = Problem::maxcut(80, &edges)
    {
        out.push(("max-cut G(80, 0.08), kept sparse".to_string(), problem));
    }
    if let Ok(c) = random_symmetric(30, 12)
        && let Ok(problem) = Problem::dense(c.as_ref())
    {
        out.push(("dense indefinite, n = 30".to_string(), problem));
    }
    out
}

/// Runs the suite and records every check:
/// - the order's own [`Extension::check`] accepts its settings;
/// - on every size of [`SIZES`], [`SWEEPS`] successive calls of
///   [`SweepOrder::arrange`] leave a permutation of `0..n` (the identity if
///   [`SweepOrder::is_identity`] says so), and the same rng seed gives the same orders;
/// - on every problem of [`problems`], a fit with the order's sweeps (through the normal
///   [`Fit`]) raises the objective monotonically in every sweep (each coordinate update
///   is an exact maximization), converges, reaches the cyclic method's SDP value within
///   [`MAX_GAP`] (relative), and gives the same result twice.
pub fn conformance(candidate: &dyn SweepOrder) -> ConformanceReport {
    let mut report = ConformanceReport::new(candidate.name());
    report.record_result("its own settings are valid", &candidate.check());
    for n in SIZES {
        let first = orders(candidate, n, SWEEPS, 7);
        let again = orders(candidate, n, SWEEPS, 7);
        report.record_result("every sweep is a permutation", &first);
        if let (Ok(a), Ok(b)) = (&first, &again) {
            report.record("the same seed gives the same orders", a == b, || {
                format!("two runs with the same seed differ at n = {n}")
            });
        }
    }
    for (case, problem) in problems() {
        fit_checks(candidate, &case, &problem, &mut report);
    }
    report
}

/// The checks of one fit with the candidate's orders on `problem`.
fn fit_checks(
    candidate: &dyn SweepOrder,
    case: &str,
    problem: &Problem,
    report: &mut ConformanceReport,
) {
    let base = MixingParams::default()
        .tol(1e-9)
        .max_iter(FIT_SWEEPS)
        .seed(FIT_SEED);
    let reference = base.clone().order(Arc::new(Cyclic)).fit(problem);
    report.record_result("the cyclic reference fit runs", &reference);
    let recorded = orders(candidate, problem.n(), FIT_SWEEPS, FIT_SEED ^ ORDER_STREAM);
    let Ok(recorded) = recorded else {
        // Already recorded as a failed permutation check above, on other sizes; record it
        // for this problem's size too.
        report.record_result("every sweep is a permutation", &recorded);
        return;
    };
    let replay = Arc::new(Replay {
        name: candidate.name().to_string(),
        orders: recorded,
        identity: candidate.is_identity(),
        by_color: candidate.by_color(),
    });
    let params = base.order(replay);
    let solution = params.fit(problem);
    report.record_result("a fit with the order runs", &solution);
    let (Ok(solution), Ok(reference)) = (solution, reference) else {
        return;
    };
    let objectives = solution.report().trace.objectives();
    let fell = objectives.windows(2).enumerate().find(|(_, pair)| {
        let slack = 1e-12 * (1.0 + pair[0].abs());
        pair[1] < pair[0] - slack
    });
    report.record("the objective never falls", fell.is_none(), || {
        let (t, pair) = fell.unwrap_or((0, &[0.0, 0.0]));
        format!(
            "on `{case}` the objective fell in sweep {}: {} -> {}",
            t + 2,
            pair[0],
            pair[1]
        )
    });
    report.record("the sweeps converge", solution.report().converged(), || {
        format!(
            "on `{case}` the sweeps did not converge ({:?})",
            solution.report().termination
        )
    });
    let (got, want) = (solution.sdp_value(), reference.sdp_value());
    report.record(
        "the SDP value of the cyclic order",
        (got - want).abs() <= MAX_GAP * (1.0 + want.abs()),
        || format!("on `{case}` the SDP value {got} is not within {MAX_GAP} of the cyclic {want}"),
    );
    let again = params.fit(problem);
    report.record(
        "two fits agree",
        again
            .as_ref()
            .is_ok_and(|a| a.y() == solution.y() && a.sdp_value() == got),
        || format!("two fits on `{case}` differ"),
    );
}
