//! Probe: the sparse sweeps against the first sparse kernel (the yardstick: one `axpy`
//! per stored entry, one thread, `V` in natural order; `Mixing::sweep_reference` with
//! [`SparseSweep::Sequential`]) on the same graph, measured in the same run.
//!
//! Kernels:
//! - `first`: the yardstick;
//! - `seq`: [`SparseSweep::Sequential`], the four-entries-at-a-time kernel, one thread;
//! - `levels`: [`SparseSweep::Levels`] (the default), the same iterates, level by level on
//!   the rayon pool of the row;
//! - `levels-f32`: [`SparseSweep::LevelsF32Gather`], the level sweep gathering from an
//!   `f32` copy of `V` (other iterates: the largest entry difference of `V` to `first`
//!   after the timed sweeps is printed);
//! - `colored`: the [`Colored`] order (a different order: other iterates);
//! - `auto`: what `LowRankMode::Auto` runs (the dense sweep on dense graphs; skipped on
//!   sparse ones), in part 2 only: run just before the first kernel, faer's dense
//!   matrix product left the CPU in a state that made the first kernel (compiled for
//!   SSE2, no runtime dispatch) 2-3x slower on the next sweeps, which inflated every
//!   ratio to it (see `docs/measurements/maxcut-mixing.md`).
//!
//! Part 1, per sweep: for each graph and for thread pools of 1 and 2 threads, `ROUNDS`
//! rounds; in each round every kernel runs `BLOCK` sweeps in a row (so that its `V` is
//! back in cache: at `n = 10^4`, `k = 142`, one `V` is 11 MB and five of them do not fit
//! in the 32 MiB L3 together) and its time is the fastest of the last `BLOCK - 1`.
//! Prints the median over rounds of that time and of the ratio first / kernel. All runs
//! advance through the same number of sweeps; `first`, `seq` and `levels` must end with
//! the same `V` bit for bit (asserted).
//!
//! Part 2, to the stop rule: the two graphs of the mixing-method paper's comparison
//! (G(1000, 0.5) with `k = 45`; `n = 10^4` with `5 x 10^4` edges, `k = 142`), each kernel
//! until one sweep gains at most `tol |f|` (`tol = 1e-3 / 4`), one kernel at a time, the
//! fastest of `REPEATS` identical runs: sweeps, time per sweep, the
//! SDP value reached, its distance to the first kernel's value, and its distance to the
//! value of a long run (cyclic, to `tol = 1e-9`).
//!
//! `cargo run --release -p maxcut-sdp --example maxcut_sweep_probe -- [ROUNDS] [PART]`
//! (`PART`: `1`, `2` or both when absent; `3`: part 1 on `n = 10^4` and the G(n, 0.5)
//! graphs only, then part 2; `4`: part 1 on the G(n, 0.5) graphs only, then part 2).

use std::time::Instant;

use maxcut_sdp::params::SparseSweep;
use maxcut_sdp::synthetic::{gnp_weighted, random_edges};
use maxcut_sdp::{Colored, LowRankMode, Mixing, MixingParams, Problem, SweepForm};

const SEED: u64 = 20_170_901;
const BLOCK: usize = 3;
const REPEATS: usize = 3;

type Edge = (usize, usize, f64);
type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    First,
    Seq,
    Levels,
    F32,
    Colored,
    Auto,
}

/// The kernels whose iterates are bit-identical to the first kernel's.
const EXACT: [Kind; 3] = [Kind::First, Kind::Seq, Kind::Levels];

impl Kind {
    fn params(self) -> MixingParams {
        let sparse = MixingParams::default()
            .seed(SEED)
            .low_rank(LowRankMode::Implicit);
        match self {
            Kind::First | Kind::Seq => sparse.sparse_sweep(SparseSweep::Sequential),
            Kind::Levels => sparse,
            Kind::F32 => sparse.sparse_sweep(SparseSweep::LevelsF32Gather),
            Kind::Colored => sparse.order(std::sync::Arc::new(Colored)),
            Kind::Auto => MixingParams::default().seed(SEED),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::First => "first",
            Kind::Seq => "seq",
            Kind::Levels => "levels",
            Kind::F32 => "levels-f32",
            Kind::Colored => "colored",
            Kind::Auto => "auto",
        }
    }
}

fn start<'a>(problem: &'a Problem, kind: Kind) -> Res<Mixing<'a>> {
    Ok(Mixing::new(problem, &kind.params())?)
}

fn sweep(mixing: &mut Mixing<'_>, kind: Kind) -> Res<f64> {
    Ok(if kind == Kind::First {
        mixing.sweep_reference()?
    } else {
        mixing.sweep()?
    })
}

fn per_sweep(name: &str, n: usize, edges: &[Edge], rounds: usize) -> Res<()> {
    let problem = Problem::maxcut(n, edges)?;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        pool.install(|| -> Res<()> {
            let kinds = [
                Kind::First,
                Kind::Seq,
                Kind::Levels,
                Kind::F32,
                Kind::Colored,
            ];
            let mut runs = kinds
                .iter()
                .map(|&kind| Ok((kind, start(&problem, kind)?)))
                .collect::<Res<Vec<_>>>()?;
            let levels = runs[2].1.levels().unwrap_or(0);
            let mut times = vec![Vec::new(); runs.len()];
            let mut ratios = vec![Vec::new(); runs.len()];
            for _ in 0..rounds {
                let mut best = vec![f64::INFINITY; runs.len()];
                for (r, (kind, mixing)) in runs.iter_mut().enumerate() {
                    for b in 0..BLOCK {
                        let start = Instant::now();
                        sweep(mixing, *kind)?;
                        let t = start.elapsed().as_secs_f64();
                        if b > 0 {
                            best[r] = best[r].min(t);
                        }
                    }
                }
                for r in 0..runs.len() {
                    times[r].push(best[r]);
                    ratios[r].push(best[0] / best[r]);
                }
            }
            let mut f32_diff = 0.0f64;
            for (kind, mixing) in &runs[1..] {
                if EXACT.contains(kind) {
                    assert_eq!(
                        mixing.v(),
                        runs[0].1.v(),
                        "{}: the exact kernels must give the same iterates",
                        kind.name()
                    );
                } else if *kind == Kind::F32 {
                    let (a, b) = (mixing.v(), runs[0].1.v());
                    for j in 0..a.ncols() {
                        for i in 0..a.nrows() {
                            f32_diff = f32_diff.max((a[(i, j)] - b[(i, j)]).abs());
                        }
                    }
                }
            }
            let cells: Vec<String> = runs
                .iter()
                .enumerate()
                .map(|(r, (kind, _))| {
                    format!(
                        "{} {:.3} ms ({:.2}x)",
                        kind.name(),
                        1e3 * median(times[r].clone()),
                        median(ratios[r].clone())
                    )
                })
                .collect();
            println!(
                "| {name} | {n} | {} | {} | {levels} | {threads} | {} | {f32_diff:.1e} |",
                edges.len(),
                runs[0].1.rank(),
                cells.join(" | ")
            );
            Ok(())
        })?;
    }
    Ok(())
}

/// Sweeps until one gains at most `tol |f|`; returns (sweeps, seconds, value).
fn to_tol(mixing: &mut Mixing<'_>, kind: Kind, tol: f64, max: usize) -> Res<(usize, f64, f64)> {
    let start = Instant::now();
    for s in 1..=max {
        let gain = sweep(mixing, kind)?;
        if gain <= tol * mixing.objective().abs() {
            return Ok((s, start.elapsed().as_secs_f64(), mixing.exact_objective()));
        }
    }
    Ok((max, start.elapsed().as_secs_f64(), mixing.exact_objective()))
}

fn part2() -> Res<()> {
    println!("\nPart 2: to the stop rule gain <= tol |f|, tol = 2.5e-4\n");
    println!(
        "| graph | k | kernel | threads | sweeps | ms / sweep | SDP value | rel. to first | rel. to long run |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
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
        let mut long = Mixing::new(&problem, &Kind::Levels.params())?;
        let (long_sweeps, _, long_value) = to_tol(&mut long, Kind::Levels, 1e-9, 20_000)?;
        let mut rows = Vec::new();
        for (kind, threads) in [
            (Kind::First, 1),
            (Kind::Seq, 1),
            (Kind::Levels, 1),
            (Kind::Levels, 2),
            (Kind::F32, 1),
            (Kind::F32, 2),
            (Kind::Colored, 1),
            (Kind::Colored, 2),
            (Kind::Auto, 1),
        ] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            // The fastest of `REPEATS` identical runs (same start, same iterates).
            let mut best = (0, f64::INFINITY, 0.0, 0);
            for _ in 0..REPEATS {
                let mut mixing = pool.install(|| start(&problem, kind))?;
                if kind == Kind::Auto && mixing.form() == SweepForm::Sparse {
                    break;
                }
                let (s, t, f) = pool.install(|| to_tol(&mut mixing, kind, tol, 2000))?;
                if t < best.1 {
                    best = (s, t, f, mixing.rank());
                }
            }
            if best.1.is_finite() {
                rows.push((kind, threads, best.0, best.1, best.2, best.3));
            }
        }
        let first = rows[0].4;
        for (kind, threads, sweeps, time, value, k) in rows {
            println!(
                "| {name} | {k} | {} | {threads} | {sweeps} | {:.3} | {value:.10e} | {:.1e} | {:.1e} |",
                kind.name(),
                1e3 * time / sweeps as f64,
                (value - first).abs() / first.abs(),
                (value - long_value).abs() / long_value.abs(),
            );
        }
        // The long run ran on rayon's global pool.
        println!(
            "| {name} | | long run (levels, tol 1e-9) | {} | {long_sweeps} | | {long_value:.10e} | {:.1e} | 0 |",
            rayon::current_num_threads(),
            (long_value - first).abs() / first.abs()
        );
    }
    Ok(())
}

fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(15);
    let part: Option<usize> = args.next().and_then(|a| a.parse().ok());
    println!("load average at the start: {}", load());
    if part != Some(2) {
        println!(
            "\nPart 1: one sweep, median over {rounds} rounds of the fastest of {BLOCK} - 1 warm sweeps (ms), and of first / kernel\n"
        );
        println!(
            "| graph | n | edges | k | levels | threads | first | seq | levels | levels-f32 | colored | levels-f32: max abs V diff to first |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
        let sizes: &[usize] = match part {
            Some(3) => &[10_000],
            Some(4) => &[],
            _ => &[2_000, 10_000, 20_000, 60_000],
        };
        for &n in sizes {
            per_sweep("5n random edges", n, &random_edges(n, 5 * n, SEED)?, rounds)?;
        }
        for n in [400, 1000] {
            per_sweep("G(n, 0.5)", n, &gnp_weighted(n, 0.5, SEED)?, rounds)?;
        }
    }
    if part != Some(1) {
        part2()?;
    }
    println!("\nload average at the end: {}", load());
    Ok(())
}
