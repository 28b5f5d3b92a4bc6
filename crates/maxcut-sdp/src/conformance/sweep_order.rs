//! The conformance suite of [`SweepOrder`].

use bl_core::{Fit, Fitted};
use rand::SeedableRng;
use rand::rngs::StdRng;

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

fn orders(order: &dyn SweepOrder, n: usize, seed: u64) -> Result<Vec<Vec<usize>>, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut current: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(SWEEPS);
    for sweep in 1..=SWEEPS {
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

/// The fit problems of the suite: max-cut of a weighted G(40, 0.3) (sparse) and an
/// indefinite dense `C` (`n = 30`).
pub fn problems() -> Vec<(String, Problem)> {
    let mut out = Vec::new();
    if let Ok(edges) = gnp_weighted(40, 0.3, 11)
        && let Ok(problem) = Problem::maxcut(40, &edges)
    {
        out.push(("max-cut G(40, 0.3)".to_string(), problem));
    }
    if let Ok(c) = random_symmetric(30, 12)
        && let Ok(problem) = Problem::dense(c.as_ref())
    {
        out.push(("dense indefinite, n = 30".to_string(), problem));
    }
    out
}

/// Runs the suite:
/// - on every size of [`SIZES`], [`SWEEPS`] successive calls of
///   [`SweepOrder::arrange`] leave a permutation of `0..n` (the identity if
///   [`SweepOrder::is_identity`] says so), and the same rng seed gives the same orders;
/// - on every problem of [`problems`], a fit with the order (through the normal
///   [`Fit`]) raises the objective monotonically in every sweep (each coordinate update
///   is an exact maximization), converges, reaches the cyclic method's SDP value within
///   [`MAX_GAP`] (relative), and gives the same result twice.
///
/// # Errors
/// A message naming the order, the case and the first property violated.
pub fn check(order: &(impl SweepOrder + Clone + 'static)) -> Result<(), String> {
    let name = order.name().to_string();
    let fail = |msg: String| Err(format!("sweep order `{name}`: {msg}"));
    for n in SIZES {
        let first = orders(order, n, 7);
        let again = orders(order, n, 7);
        match (first, again) {
            (Err(e), _) | (_, Err(e)) => return fail(e),
            (Ok(a), Ok(b)) if a != b => {
                return fail(format!("two runs with the same seed differ at n = {n}"));
            }
            _ => {}
        }
    }
    for (case, problem) in problems() {
        let base = MixingParams::default().tol(1e-9).max_sweeps(5000).seed(3);
        let reference = match base.clone().order(Cyclic).fit(&problem) {
            Ok(s) => s,
            Err(e) => return fail(format!("reference fit on `{case}` failed: {e}")),
        };
        let params = base.order(order.clone());
        let solution = match params.fit(&problem) {
            Ok(s) => s,
            Err(e) => return fail(format!("fit on `{case}` failed: {e}")),
        };
        let trace = &solution.report().trace;
        let objectives = trace.objectives();
        for (t, pair) in objectives.windows(2).enumerate() {
            let slack = 1e-12 * (1.0 + pair[0].abs());
            if pair[1] < pair[0] - slack {
                return fail(format!(
                    "on `{case}` the objective fell in sweep {}: {} -> {}",
                    t + 2,
                    pair[0],
                    pair[1]
                ));
            }
        }
        if !solution.report().converged() {
            return fail(format!(
                "on `{case}` the sweeps did not converge ({:?})",
                solution.report().termination
            ));
        }
        let (got, want) = (solution.sdp_value(), reference.sdp_value());
        if (got - want).abs() > MAX_GAP * (1.0 + want.abs()) {
            return fail(format!(
                "on `{case}` the SDP value {got} is not within {MAX_GAP} of the cyclic {want}"
            ));
        }
        match params.fit(&problem) {
            Ok(again) if again.y() == solution.y() && again.sdp_value() == got => {}
            Ok(_) => return fail(format!("two fits on `{case}` differ")),
            Err(e) => return fail(format!("second fit on `{case}` failed: {e}")),
        }
    }
    Ok(())
}
