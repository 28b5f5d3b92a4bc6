//! Time to a relative tolerance of `1e-3` and `1e-6` (and the full solve with rounding) on the three
//! benchmark instances: dense `n = 1000`, sparse `n = 10000`, and the Boolean tensor atom
//! search `max ||G^T z||^2`, `G` of size `150 x 22500`.
//!
//! Run with `cargo run --release -p maxcut-sdp --example time_to_tol`.

use std::time::Instant;

use faer::Mat;
use maxcut_sdp::{BooleanQp, LowRankMode, Mixing, MixingParams, Problem};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

fn dense_maxcut(n: usize, seed: u64) -> Mat<f64> {
    // C = L / 4 of a weighted G(n, 0.5).
    let mut rng = StdRng::seed_from_u64(seed);
    let mut c = Mat::zeros(n, n);
    for i in 0..n {
        for j in i + 1..n {
            if rng.random_range(0.0..1.0) < 0.5 {
                let w = 0.25 * rng.random_range(0.0..1.0);
                c[(i, j)] = -w;
                c[(j, i)] = -w;
                c[(i, i)] += w;
                c[(j, j)] += w;
            }
        }
    }
    c
}

fn sparse_graph(n: usize, edges: usize, seed: u64) -> Vec<(usize, usize, f64)> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..edges)
        .map(|_| {
            let i = rng.random_range(0..n);
            let mut j = rng.random_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            (i, j, rng.random_range(0.0..1.0))
        })
        .collect()
}

fn report(
    name: &str,
    problem: &Problem,
    params: &MixingParams,
) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let mut mixing = Mixing::new(problem, params)?;
    let setup = start.elapsed();
    let termination = mixing.run()?;
    let to_tol = start.elapsed();
    let start = Instant::now();
    let solution = problem.solve(params)?;
    let total = start.elapsed();
    println!(
        "{name}, tol {:e}: form {:?}, rank {}, setup {:.3} s, to tol {:.3} s ({} sweeps, {:?}, {:.3} ms/sweep), \
         full solve with {} roundings + local search {:.3} s; sdp {:.6e}, rounded {:.6e}",
        params.get_tol(),
        mixing.form(),
        mixing.rank(),
        setup.as_secs_f64(),
        to_tol.as_secs_f64(),
        mixing.sweeps(),
        termination,
        1e3 * (to_tol - setup).as_secs_f64() / mixing.sweeps() as f64,
        params.get_trials(),
        total.as_secs_f64(),
        solution.sdp_value(),
        solution.value(),
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let c = dense_maxcut(1000, 1);
    let dense = Problem::dense(c.as_ref())?;
    let edges = sparse_graph(10_000, 50_000, 2);
    let sparse = Problem::maxcut(10_000, &edges)?;
    let mut rng = StdRng::seed_from_u64(3);
    let g = Mat::from_fn(150, 22_500, |_, _| StandardNormal.sample(&mut rng));
    let qp = BooleanQp::low_rank(g.as_ref())?;
    for tol in [1e-3, 1e-6] {
        let params = MixingParams::default().tol(tol).seed(1).max_sweeps(100_000);
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
