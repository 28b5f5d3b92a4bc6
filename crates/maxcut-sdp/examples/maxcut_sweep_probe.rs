//! Probe: the sparse sweep against the first sparse kernel (`Mixing::sweep_reference`,
//! the yardstick) on the same graph, interleaved sweep by sweep so that both see the same
//! machine load; on dense graphs also the sweep `LowRankMode::Auto` runs (the dense one).
//!
//! The colored order ([`maxcut_sdp::Colored`]) is measured too: a different (parallel)
//! order, so its iterates differ; its time per sweep and its sweeps to the stop rule.
//!
//! Part 1, per sweep: for each graph and for thread pools of 1 and 2 threads, `ROUNDS`
//! rounds of one sweep of each kernel (the runs advance in lockstep through the same
//! iterates); prints the median time per sweep and the median over rounds of the ratio
//! reference / new.
//!
//! Part 2, to the stop rule: the two graphs of the mixing-method paper's comparison
//! (G(1000, 0.5) with `k = 45`; `n = 10^4` with `5 x 10^4` edges, `k = 142`), each kernel
//! until one sweep gains at most `tol |f|` (`tol = 1e-3 / 4`): sweeps, time per sweep and
//! the SDP value reached.
//!
//! `cargo run --release -p maxcut-sdp --example maxcut_sweep_probe -- [ROUNDS]`

use std::time::Instant;

use maxcut_sdp::synthetic::{gnp_weighted, random_edges};
use maxcut_sdp::{Colored, LowRankMode, Mixing, MixingParams, Problem, SweepForm};

const SEED: u64 = 20_170_901;

type Edge = (usize, usize, f64);

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

fn per_sweep(
    name: &str,
    n: usize,
    edges: &[Edge],
    rounds: usize,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let problem = Problem::maxcut(n, edges)?;
    let sparse = MixingParams::default()
        .seed(SEED)
        .low_rank(LowRankMode::Implicit);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        pool.install(|| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
            let mut new = Mixing::new(&problem, &sparse)?;
            let mut reference = Mixing::new(&problem, &sparse)?;
            let mut auto = Mixing::new(&problem, &MixingParams::default().seed(SEED))?;
            let mut colored = Mixing::new(&problem, &sparse.clone().order(Colored))?;
            let dense = auto.form() != SweepForm::Sparse;
            for _ in 0..2 {
                new.sweep()?;
                reference.sweep_reference()?;
                auto.sweep()?;
                colored.sweep()?;
            }
            let (mut t_new, mut t_ref, mut t_auto, mut ratio, mut ratio_auto) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let (mut t_colored, mut ratio_colored) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                let a = seconds(|| {
                    new.sweep().ok();
                });
                let b = seconds(|| {
                    reference.sweep_reference().ok();
                });
                let c = if dense {
                    seconds(|| {
                        auto.sweep().ok();
                    })
                } else {
                    a
                };
                let d = seconds(|| {
                    colored.sweep().ok();
                });
                t_colored.push(d);
                ratio_colored.push(b / d);
                t_new.push(a);
                t_ref.push(b);
                t_auto.push(c);
                ratio.push(b / a);
                ratio_auto.push(b / c);
            }
            assert_eq!(
                new.v(),
                reference.v(),
                "the kernels must give the same iterates"
            );
            println!(
                "| {name} | {n} | {} | {} | {threads} | {:.3} | {:.3} | {:.2} | {:.3} ms, {:.2}x | {} |",
                edges.len(),
                new.rank(),
                1e3 * median(t_ref),
                1e3 * median(t_new),
                median(ratio),
                1e3 * median(t_colored),
                median(ratio_colored),
                if dense {
                    format!("{:.3} ms, {:.2}x", 1e3 * median(t_auto), median(ratio_auto))
                } else {
                    "(sparse)".to_string()
                }
            );
            Ok(())
        })?;
    }
    Ok(())
}

/// Sweeps until one gains at most `tol |f|`; returns (sweeps, seconds, value).
fn to_tol(
    mixing: &mut Mixing<'_>,
    reference: bool,
    tol: f64,
    max: usize,
) -> Result<(usize, f64, f64), Box<dyn std::error::Error + Send + Sync>> {
    let start = Instant::now();
    for sweep in 1..=max {
        let gain = if reference {
            mixing.sweep_reference()?
        } else {
            mixing.sweep()?
        };
        if gain <= tol * mixing.objective().abs() {
            return Ok((
                sweep,
                start.elapsed().as_secs_f64(),
                mixing.exact_objective(),
            ));
        }
    }
    Ok((max, start.elapsed().as_secs_f64(), mixing.exact_objective()))
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(15);
    println!("Part 1: one sweep, median of {rounds} interleaved rounds (ms)\n");
    println!(
        "| graph | n | edges | k | threads | first kernel | new kernel | first / new | auto (dense) sweep, first / auto |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in [2_000, 10_000, 20_000, 60_000] {
        per_sweep("5n random edges", n, &random_edges(n, 5 * n, SEED)?, rounds)?;
    }
    for n in [180, 400, 700, 1000] {
        per_sweep("G(n, 0.5)", n, &gnp_weighted(n, 0.5, SEED)?, rounds)?;
    }

    println!("\nPart 2: to the stop rule gain <= tol |f|, tol = 2.5e-4, one thread\n");
    println!("| graph | k | kernel | sweeps | ms / sweep | SDP value | relative to first |");
    println!("|---|---|---|---|---|---|---|");
    let tol = 1e-3 / 4.0;
    let graphs = [
        ("G(1000, 0.5)", 1000, gnp_weighted(1000, 0.5, SEED)?),
        (
            "n = 10^4, 5 x 10^4 edges",
            10_000,
            random_edges(10_000, 50_000, SEED)?,
        ),
    ];
    for (name, n, edges) in graphs {
        let problem = Problem::maxcut(n, &edges)?;
        let sparse = MixingParams::default()
            .seed(SEED)
            .low_rank(LowRankMode::Implicit);
        let (s0, t0, f0) = to_tol(&mut Mixing::new(&problem, &sparse)?, true, tol, 2000)?;
        let mut runs = vec![("first sparse kernel", s0, t0, f0)];
        let (s, t, f) = to_tol(&mut Mixing::new(&problem, &sparse)?, false, tol, 2000)?;
        runs.push(("new sparse kernel", s, t, f));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            let mut colored = Mixing::new(&problem, &sparse.clone().order(Colored))?;
            let (s, t, f) = pool.install(|| to_tol(&mut colored, false, tol, 2000))?;
            runs.push((
                if threads == 1 {
                    "colored, 1 thread"
                } else {
                    "colored, 2 threads"
                },
                s,
                t,
                f,
            ));
        }
        let mut auto = Mixing::new(&problem, &MixingParams::default().seed(SEED))?;
        if auto.form() != SweepForm::Sparse {
            let (s, t, f) = to_tol(&mut auto, false, tol, 2000)?;
            runs.push(("auto (dense sweep)", s, t, f));
        }
        for (kernel, sweeps, time, value) in runs {
            println!(
                "| {name} | {} | {kernel} | {sweeps} | {:.3} | {value:.10e} | {:.1e} |",
                auto.rank(),
                1e3 * time / sweeps as f64,
                (value - f0).abs() / f0.abs()
            );
        }
    }
    Ok(())
}
