//! Probe: the relaxed-dual stage of the root node of a Table 1 instance with 1 and 2 rayon
//! threads, interleaved repeats (min and median), for a noisy shared machine; then the
//! process CPU time per run of each (from `/proc/self/stat`, Linux only), which other
//! processes do not inflate: equal CPU times mean the parallel stage does no extra work.
//!
//! `cargo run --release -p gop-mmf --example dual_threads -- M N REPEATS`
use std::time::Instant;

use gop_mmf::arrangement::{CellOptions, enumerate_cells};
use gop_mmf::dual::{DualLayout, Level, solve_relaxed_duals};
use gop_mmf::lagrangian::Lagrangian;
use gop_mmf::primal::solve_primal;
use lp_backend::Microlp;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (m, n, repeats) = (
        args.first().copied().unwrap_or(80),
        args.get(1).copied().unwrap_or(6),
        args.get(2).copied().unwrap_or(10),
    );
    let inst = gop_mmf::table1_instance(m, n, 1)?;
    let budget = inst.budget;
    let y: Vec<f64> = (0..n)
        .flat_map(|s| (0..m).map(move |j| (s, j)))
        .map(|(s, j)| inst.y[(j, s)])
        .collect();
    let mut rng = bl_core::random::seeded_rng(2);
    let mut x0 = vec![0.0; 2 * m];
    bl_core::random::fill_standard_normal(&mut rng, &mut x0);
    let l1: f64 = x0.iter().map(|v| v.abs()).sum();
    x0.iter_mut().for_each(|v| *v *= 0.5 * budget / l1);
    let primal = solve_primal(&x0, &y, m, 2, n)?;
    let level = Level::new(&Lagrangian::at(&x0, &primal)?, budget, 1e-9);
    let reps = &level.filtered.reps;
    let cells = enumerate_cells(
        &Microlp,
        2 * m,
        budget,
        &[],
        &x0,
        reps,
        &CellOptions::default(),
    )?;
    let layout = DualLayout { mk: 2 * m };
    // `Q` free, as the fit builds it by default (`GopParams::nonnegative_bound(false)`).
    let base = layout.base_program(budget, &[], &[], false)?;
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .iter()
        .map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build())
        .collect::<Result<_, _>>()?;
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..repeats {
        for (p, pool) in pools.iter().enumerate() {
            let t = Instant::now();
            pool.install(|| {
                solve_relaxed_duals(&Microlp, &layout, &base, &level, &cells.signs, "probe")
            })?;
            times[p].push(t.elapsed().as_secs_f64());
        }
    }
    // CPU time (all threads) per run, in blocks of `4 * repeats` runs per pool.
    let mut cpu = [f64::NAN; 2];
    for (p, pool) in pools.iter().enumerate() {
        let before = process_cpu_seconds();
        for _ in 0..4 * repeats {
            pool.install(|| {
                solve_relaxed_duals(&Microlp, &layout, &base, &level, &cells.signs, "probe")
            })?;
        }
        if let (Some(a), Some(b)) = (before, process_cpu_seconds()) {
            cpu[p] = (b - a) / (4 * repeats) as f64;
        }
    }
    println!(
        "CPU time per run: 1 thread {:.4} s, 2 threads {:.4} s (ratio {:.2})",
        cpu[0],
        cpu[1],
        cpu[1] / cpu[0]
    );
    for t in &mut times {
        t.sort_by(f64::total_cmp);
    }
    let (one, two) = (&times[0], &times[1]);
    println!(
        "M {m} N {n} cells {}: 1 thread min {:.4} median {:.4} s; 2 threads min {:.4} median {:.4} s; speed-up min/min {:.2}, median/median {:.2}",
        cells.signs.len(),
        one[0],
        one[one.len() / 2],
        two[0],
        two[two.len() / 2],
        one[0] / two[0],
        one[one.len() / 2] / two[two.len() / 2]
    );
    Ok(())
}

/// User + system CPU seconds of this process so far (`None` off Linux). Clock ticks are
/// taken as 100 per second, the Linux default.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which ends with ')'): utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}
