//! Time to a relative tolerance of `1e-3` and `1e-6` (and the full solve with rounding) on the three
//! benchmark instances: dense `n = 1000`, sparse `n = 10000`, and the Boolean tensor atom
//! search `max ||G^T z||^2`, `G` of size `150 x 22500`.
//!
//! Run with `cargo run --release -p maxcut-sdp --example time_to_tol`.

use std::time::Instant;

use maxcut_sdp::synthetic::{dense_maxcut_cost, gaussian, random_edges};
use maxcut_sdp::{BooleanQp, Fit, Fitted, LowRankMode, Mixing, MixingParams, ParamGuard, Problem};

fn report(
    name: &str,
    problem: &Problem,
    params: &MixingParams,
) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let mixing = Mixing::new(problem, params)?;
    let setup = start.elapsed();
    drop(mixing);
    let start = Instant::now();
    let solution = params.fit(problem)?;
    let total = start.elapsed();
    let run = solution.report();
    let checked = params.check()?;
    println!(
        "{name}, tol {:e}: form {:?}, rank {}, setup {:.3} s, sweeps to tol {:.3} s ({} sweeps, {:?}, {:.3} ms/sweep), \
         full solve with {} roundings + local search {:.3} s; sdp {:.6e}, rounded {:.6e}",
        checked.iteration().tol,
        solution.info().form,
        solution.info().rank,
        setup.as_secs_f64(),
        run.elapsed.as_secs_f64(),
        run.iterations,
        run.termination,
        1e3 * run.elapsed.as_secs_f64() / run.iterations as f64,
        checked.trials(),
        total.as_secs_f64(),
        solution.sdp_value(),
        solution.value(),
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let c = dense_maxcut_cost(1000, 0.5, 1)?;
    let dense = Problem::dense(c.as_ref())?;
    let edges = random_edges(10_000, 50_000, 2)?;
    let sparse = Problem::maxcut(10_000, &edges)?;
    let g = gaussian(150, 22_500, 3)?;
    let qp = BooleanQp::low_rank(g.as_ref())?;
    for tol in [1e-3, 1e-6] {
        let params = MixingParams::default().tol(tol).seed(1).max_iter(100_000);
        report("dense n = 1000", &dense, &params)?;
        report("sparse n = 10000, 50000 edges", &sparse, &params)?;
        for mode in [LowRankMode::Auto, LowRankMode::Implicit] {
            report(
                &format!("BQP G G^T, G 150 x 22500, {mode:?}"),
                qp.homogenized(),
                &params.clone().low_rank(mode),
            )?;
        }
    }
    Ok(())
}
