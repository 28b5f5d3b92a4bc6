//! `sblr-table1` — [SBLR Table 1] Alg. 1 (exact block coordinate descent) against Alg. 2
//! (block coordinate proximal descent): time and iterations on the synthetic two-class
//! data of Sec. 7.2, `X_i = randn(s, t) ± 1`, `n = 100`, `s = t`, the paper's two parameter
//! sets, 5 runs, each algorithm stopped by eq. (8) `q^k <= 1e-3` or 500 iterations, started
//! at the paper's mean-sample SVD (Sec. 7.1). Settings and numbers: [`crate::paper::sblr`].
//!
//! Where the text is silent (see `docs/papers/sblr.md`): `r = 1`; half the samples in each
//! class; `L_min = 1e-3`, `eta = 2` and `L^0 = L_min` for the step rule (13)/(15); Alg. 1
//! solves each block by FISTA to a gradient-mapping tolerance of 1e-6. Times are
//! wall-clock seconds of the whole fit (initialization included) on one thread
//! (`threads(Some(1))`), the paper comparison; every fit is run again on two threads
//! (`threads(Some(2))`) for a column beside it.
//!
//! The timing claims are judged over the runs (5 per size at paper scale): a paired t-test
//! on the log times, or a t-interval of the per-run slope or speed-up against a window;
//! with the few runs and small sizes of the smoke and quick scales they are mostly
//! inconclusive, as they should be.
//!
//! The figure `alg2_iter_over_stream_read` is the time of one Alg. 2 iteration on f64
//! samples with 2 threads divided by the time of two plain single-thread streaming reads
//! of the same data, at `n = 100, s = t = 500` (parameter set 1);
//! `alg2_f32_iter_over_f64_stream_read` is the same iteration on the data stored as f32,
//! over the same f64 yardstick. The `_1_thread` figures are the single-thread runs.

use std::time::Instant;

use std::sync::Arc;

use bl_core::data::{Element, MatrixDataset};
use bl_core::engine::TerminationReason;
use sblr::bilinear::Penalties;
use sblr::synthetic::two_class;
use sblr::yardstick::{streaming_read, warmed_solver};
use sblr::{BlockUpdate, ExactBlockSolve, ProxLinearStep};
use sblr::{Fit as _, Fitted as _, Predict as _};
use sblr::{Init, Sblr, StopCriterion};

use super::{Ctx, Experiment, Series, VsRow, least_squares_slope};
use crate::paper::sblr as paper;
use crate::report::{Claim, Interval, Verdict};
use crate::stats;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "sblr-table1",
    title: "[SBLR Table 1] Alg. 1 vs Alg. 2 time and iterations",
    run,
};

/// One fit: `(seconds, iterations, objective, inner iterations, converged)`.
type Run = (f64, f64, f64, f64, bool);

const SET_NAMES: [&str; 2] = ["set 1 (ℓ2 dominates)", "set 2 (ℓ1 dominates)"];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Least-squares slope of `ln y` against `ln x`.
fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    least_squares_slope(&pts)
}

/// Median seconds of one Alg. 2 iteration on `data` with `threads` threads (after three
/// warm-up iterations).
fn iteration_time<T: Element>(data: &MatrixDataset<T>, threads: usize) -> anyhow::Result<f64> {
    let (a, b, c, d) = paper::TABLE1_SETS[0];
    let mut solver = warmed_solver(data, Penalties::new(a, b, c, d), threads)?;
    let mut step_times = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        std::hint::black_box(solver.step()?.objective);
        step_times.push(start.elapsed().as_secs_f64());
    }
    Ok(median(&mut step_times))
}

/// The cost of one Alg. 2 iteration at n = 100, s = t = 500: `(f64 1 thread, f64 2
/// threads, f32 1 thread, f32 2 threads, two streaming reads of the f64 data)`, seconds,
/// all measured in the same run.
fn iteration_over_reads(seed: u64) -> anyhow::Result<[f64; 5]> {
    let data = two_class(paper::TABLE1_N, 500, 500, 1.0, seed)?;
    let narrow = data.to_f32()?;
    let f64_1 = iteration_time(&data, 1)?;
    let f64_2 = iteration_time(&data, 2)?;
    let f32_1 = iteration_time(&narrow, 1)?;
    let f32_2 = iteration_time(&narrow, 2)?;
    let mut read_times = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        let a = std::hint::black_box(streaming_read(std::hint::black_box(data.as_slice())));
        let b = std::hint::black_box(streaming_read(std::hint::black_box(data.as_slice())));
        std::hint::black_box(a + b);
        read_times.push(start.elapsed().as_secs_f64());
    }
    Ok([f64_1, f64_2, f32_1, f32_2, median(&mut read_times)])
}

/// A fit of parameter set 1 on `data` stored as f64 and as f32: `(objective f64,
/// objective f32, training accuracy f64, training accuracy f32)`.
fn precision_agreement(data: &MatrixDataset) -> anyhow::Result<(f64, f64, f64, f64)> {
    let (a, b, c, d) = paper::TABLE1_SETS[0];
    let params = Sblr::params()
        .rank(1)
        .penalties(a, b, c, d)
        .tol(paper::TOL)
        .max_iter(paper::MAX_ITER);
    let narrow = data.to_f32()?;
    let wide = params.fit(data)?;
    let single = params.fit(&narrow)?;
    let accuracy = |pred: Vec<usize>| -> f64 {
        pred.iter()
            .zip(data.labels())
            .filter(|(p, l)| p == l)
            .count() as f64
            / data.n_samples() as f64
    };
    Ok((
        wide.objective(),
        single.objective(),
        accuracy(wide.predict(data)?),
        accuracy(single.predict(&narrow)?),
    ))
}

/// Results of one parameter set at one size, over the runs.
struct Cell {
    set: usize,
    size: usize,
    alg1_time: f64,
    alg2_time: f64,
    alg1_iter: f64,
    alg2_iter: f64,
    /// Mean over runs of time / iterations.
    alg1_per_iter: f64,
    alg2_per_iter: f64,
    alg1_obj: f64,
    alg2_obj: f64,
    alg1_inner: f64,
    /// Per run (in run order): times and times per iteration, one thread.
    alg1_times: Vec<f64>,
    alg2_times: Vec<f64>,
    alg1_per_iter_runs: Vec<f64>,
    alg2_per_iter_runs: Vec<f64>,
    /// Mean times on two threads.
    alg1_time2: f64,
    alg2_time2: f64,
}

impl Cell {
    fn from_runs(set: usize, size: usize, algs: &[Vec<Run>; 2], two: &[Vec<f64>; 2]) -> Self {
        let col = |j: usize, f: fn(&Run) -> f64| algs[j].iter().map(f).collect::<Vec<_>>();
        Self {
            set,
            size,
            alg1_time: mean(&col(0, |x| x.0)),
            alg2_time: mean(&col(1, |x| x.0)),
            alg1_iter: median(&mut col(0, |x| x.1)),
            alg2_iter: median(&mut col(1, |x| x.1)),
            alg1_per_iter: mean(&col(0, |x| x.0 / x.1)),
            alg2_per_iter: mean(&col(1, |x| x.0 / x.1)),
            alg1_obj: mean(&col(0, |x| x.2)),
            alg2_obj: mean(&col(1, |x| x.2)),
            alg1_inner: median(&mut col(0, |x| x.3)),
            alg1_times: col(0, |x| x.0),
            alg2_times: col(1, |x| x.0),
            alg1_per_iter_runs: col(0, |x| x.0 / x.1),
            alg2_per_iter_runs: col(1, |x| x.0 / x.1),
            alg1_time2: mean(&two[0]),
            alg2_time2: mean(&two[1]),
        }
    }
}

/// Sum of Alg. 1 times over sum of Alg. 2 times, over the cells of one set.
fn total_speedup(cells: &[&Cell]) -> f64 {
    cells.iter().map(|c| c.alg1_time).sum::<f64>() / cells.iter().map(|c| c.alg2_time).sum::<f64>()
}

/// The same over the paper's rows at the sizes we ran (None when the paper has none).
fn paper_total_speedup(set: usize, sizes: &[usize]) -> Option<f64> {
    let rows: Vec<paper::Table1Row> = sizes
        .iter()
        .filter_map(|&s| paper::table1_row(set, s))
        .collect();
    (!rows.is_empty()).then(|| {
        rows.iter().map(|r| r.alg1_time_s).sum::<f64>()
            / rows.iter().map(|r| r.alg2_time_s).sum::<f64>()
    })
}

/// The sizes the per-iteration slope is fitted on: those `>= 250` when there are two or
/// more, else the two largest (the small sizes are dominated by fixed costs).
fn slope_sizes(sizes: &[usize]) -> Vec<usize> {
    let large: Vec<usize> = sizes.iter().copied().filter(|&s| s >= 250).collect();
    if large.len() >= 2 {
        large
    } else {
        sizes[sizes.len().saturating_sub(2)..].to_vec()
    }
}

/// The 95% t-interval of the mean of `x` (over runs).
fn mean_interval(x: &[f64]) -> Interval {
    stats::paired(x, &vec![0.0; x.len()]).interval
}

/// `Holds` when `interval` lies within `[lo, hi]`, `Fails` when it misses it, else
/// `Inconclusive`.
fn within(interval: Interval, lo: f64, hi: f64) -> Verdict {
    if interval.lo >= lo && interval.hi <= hi {
        Verdict::Holds
    } else if interval.hi < lo || interval.lo > hi {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    }
}

use crate::stats::all_of;

/// The interval `exp([lo, hi])` (a log-scale interval back on the ratio scale).
fn exp_interval(i: Interval) -> Interval {
    Interval {
        lo: i.lo.exp(),
        hi: i.hi.exp(),
    }
}

fn fmt_interval(i: Interval) -> String {
    format!("[{:.2}, {:.2}]", i.lo, i.hi)
}

/// The paper's own slopes of ln(time per iteration) on ln(data size) over its sizes
/// `>= 250`, per set and algorithm: 0.72 / 1.70 (set 1, Alg. 1 / Alg. 2), 0.78 / 1.02
/// (set 2). "Almost linearly" in the paper's words covers their range.
fn paper_slopes() -> Vec<f64> {
    let mut out = Vec::new();
    for k in 0..paper::TABLE1_SETS.len() {
        let rows: Vec<paper::Table1Row> =
            paper::table1_block(k).filter(|r| r.size >= 250).collect();
        let size = |r: &paper::Table1Row| (paper::TABLE1_N * r.size * r.size) as f64;
        out.push(log_log_slope(
            &rows
                .iter()
                .map(|r| (size(r), r.alg1_time_s / r.alg1_iter))
                .collect::<Vec<_>>(),
        ));
        out.push(log_log_slope(
            &rows
                .iter()
                .map(|r| (size(r), r.alg2_time_s / r.alg2_iter))
                .collect::<Vec<_>>(),
        ));
    }
    out
}

#[allow(clippy::too_many_lines)]
fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let sizes = ctx.scale().pick(
        vec![20, 50],
        vec![50, 100, 250],
        paper::TABLE1_SIZES.to_vec(),
    );
    let runs = ctx.scale().pick(2, 3, paper::TABLE1_RUNS);
    let n = paper::TABLE1_N;
    let bar = ctx.progress((sizes.len() * runs) as u64, "sizes x runs");
    let mut cells = Vec::new();
    let mut rows = Vec::new();
    let (mut converged, mut total_fits, mut max_iter_seen) = (0usize, 0usize, 0usize);
    for (si, &size) in sizes.iter().enumerate() {
        let mut per_set: Vec<[Vec<Run>; 2]> = vec![Default::default(); paper::TABLE1_SETS.len()];
        let mut per_set2: Vec<[Vec<f64>; 2]> = vec![Default::default(); paper::TABLE1_SETS.len()];
        for run in 0..runs {
            let seed = ctx.seed().wrapping_mul(1_000_003) + (si * 100 + run) as u64;
            let data = two_class(n, size, size, 1.0, seed)?;
            for (k, &(a, b, c, d)) in paper::TABLE1_SETS.iter().enumerate() {
                let updates: [Arc<dyn BlockUpdate>; 2] = [
                    Arc::new(ExactBlockSolve::default()),
                    Arc::new(ProxLinearStep::default()),
                ];
                for (j, update) in updates.into_iter().enumerate() {
                    let params = Sblr::params()
                        .rank(1)
                        .penalties(a, b, c, d)
                        .block_update(update)
                        .init(Init::MeanSvd)
                        .stop(StopCriterion::Eq8)
                        .tol(paper::TOL)
                        .max_iter(paper::MAX_ITER);
                    // The same fit on two threads, for the column beside the paper's.
                    let start = Instant::now();
                    std::hint::black_box(params.clone().threads(Some(2)).fit(&data)?);
                    per_set2[k][j].push(start.elapsed().as_secs_f64());
                    let start = Instant::now();
                    let model = params.threads(Some(1)).fit(&data)?;
                    let time = start.elapsed().as_secs_f64();
                    let inner: f64 = ["inner_u", "inner_v"]
                        .iter()
                        .flat_map(|name| model.report().trace.extra(name))
                        .map(|(_, v)| v)
                        .sum();
                    let ok = model.report().termination == TerminationReason::Converged;
                    converged += usize::from(ok);
                    total_fits += 1;
                    max_iter_seen = max_iter_seen.max(model.report().iterations);
                    per_set[k][j].push((
                        time,
                        model.report().iterations as f64,
                        model.objective(),
                        inner,
                        ok,
                    ));
                    rows.push(vec![
                        size.to_string(),
                        (k + 1).to_string(),
                        run.to_string(),
                        ["Alg1", "Alg2"][j].to_string(),
                        time.to_string(),
                        model.report().iterations.to_string(),
                        model.objective().to_string(),
                        inner.to_string(),
                        format!("{:?}", model.report().termination),
                    ]);
                }
            }
            bar.inc(1);
        }
        for (k, algs) in per_set.iter().enumerate() {
            cells.push(Cell::from_runs(k, size, algs, &per_set2[k]));
        }
    }
    bar.finish_and_clear();
    ctx.write_csv(
        "runs",
        &[
            "size",
            "set",
            "run",
            "solver",
            "time_s",
            "iterations",
            "objective",
            "inner_iterations",
            "termination",
        ],
        &rows,
    )?;

    ctx.md("## Table 1

The paper's setting (Sec. 7.1-7.2):
");
    ctx.quote(&paper::TABLE1_SETUP);
    ctx.quote(&paper::STOPPING);
    ctx.quote(&paper::INIT);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    ctx.md(&format!(
        "Ours: `n = {n}` samples `X_i = randn(s, s) ± 1` (the first half `-1`), {runs} runs \
         per size (fresh data per run, shared by both sets and both algorithms), rank \
         `r = 1` (the paper does not state `r` for Table 1), the mean-sample SVD start, \
         stopping by eq. (8) `q^k <= {}` or {} iterations. Alg. 2's step rule (13)/(15) \
         uses `L_min = 1e-3`, `eta = 2`, `L^0 = L_min`; Alg. 1 solves each block by FISTA \
         to a gradient-mapping tolerance of 1e-6 (neither is stated in the paper). \
         Times are mean wall-clock seconds of a whole fit on **1 thread** \
         (`threads(Some(1))`) on this machine, the paper comparison; the same fits on \
         **2 threads** (`threads(Some(2))`; this machine has {cores} logical cores) are in the second \
         table; the paper's are times on a machine and implementation it does not describe (it \
         draws its data with MATLAB commands), so compare ratios and \
         trends, not seconds. Iterations are medians. Speed-up = Alg. 1 time / Alg. 2 \
         time.\n",
        paper::TOL,
        paper::MAX_ITER
    ));
    for (k, pens) in paper::TABLE1_SETS.iter().enumerate() {
        ctx.md(&format!(
            "\n### {}: (mu1, mu2, nu1, nu2) = {pens:?}\n",
            SET_NAMES[k]
        ));
        let vs: Vec<VsRow> = cells
            .iter()
            .filter(|c| c.set == k)
            .map(|c| {
                let p = paper::table1_row(k, c.size);
                VsRow {
                    label: format!("({0}, {0})", c.size),
                    ours: vec![
                        Some(c.alg1_time),
                        Some(c.alg1_iter),
                        Some(c.alg2_time),
                        Some(c.alg2_iter),
                        Some(c.alg1_time / c.alg2_time),
                    ],
                    paper: vec![
                        p.map(|r| r.alg1_time_s),
                        p.map(|r| r.alg1_iter),
                        p.map(|r| r.alg2_time_s),
                        p.map(|r| r.alg2_iter),
                        p.map(|r| r.alg1_time_s / r.alg2_time_s),
                    ],
                }
            })
            .collect();
        ctx.table_vs_paper(
            "(s, t)",
            &[
                "Alg. 1 time, 1 thread (s)",
                "Alg. 1 iter",
                "Alg. 2 time, 1 thread (s)",
                "Alg. 2 iter",
                "speed-up",
            ],
            &vs,
        )?;
        ctx.md(
            "\nFinal objectives (mean over runs), Alg. 1's FISTA iterations (median \
             total), time per outer iteration (s, mean over runs, 1 thread) and the mean \
             time of the same fits on 2 threads:\n",
        );
        ctx.table(
            &[
                "(s, t)",
                "Alg. 1 objective",
                "Alg. 2 objective",
                "Alg. 1 inner iterations",
                "Alg. 1 s/iter",
                "Alg. 2 s/iter",
                "Alg. 1 time, 2 threads (s)",
                "Alg. 2 time, 2 threads (s)",
            ],
            cells.iter().filter(|c| c.set == k).map(|c| {
                vec![
                    format!("({0}, {0})", c.size),
                    super::format_number(c.alg1_obj),
                    super::format_number(c.alg2_obj),
                    super::format_number(c.alg1_inner),
                    super::format_number(c.alg1_per_iter),
                    super::format_number(c.alg2_per_iter),
                    super::format_number(c.alg1_time2),
                    super::format_number(c.alg2_time2),
                ]
            }),
        );
    }
    let mut series = Vec::new();
    for (k, name) in SET_NAMES.iter().enumerate() {
        for (alg, pick) in [("Alg. 1", 0), ("Alg. 2", 1)] {
            let pts = cells
                .iter()
                .filter(|c| c.set == k)
                .map(|c| {
                    (
                        c.size as f64,
                        if pick == 0 { c.alg1_time } else { c.alg2_time },
                    )
                })
                .collect();
            series.push(Series::new(format!("{alg}, {name}"), pts));
        }
    }
    ctx.line_plot(
        "times",
        "Table 1: mean fit time",
        "s = t",
        "seconds",
        &series,
        true,
    )?;

    // Claims of Sec. 7.2.
    ctx.paper_claim(
        &paper::TABLE1_CONVERGE,
        converged == total_fits,
        format!(
            "{converged} of {total_fits} fits met q^k <= {} before {} iterations; the most \
             iterations any fit took: {max_iter_seen}",
            paper::TOL,
            paper::MAX_ITER
        ),
    );

    // "Almost linearly": the 95% t-interval (over runs) of our slope of ln(time per
    // iteration) on ln(data size) must lie within the range of the paper's own slopes at
    // its sizes >= 250; it fails when it misses that range (a fixed cost that dominates
    // gives a slope near 0, a cost quadratic in the data size near 2). Sizes below 100
    // are dominated by fixed costs: no verdict there.
    let fit_sizes = slope_sizes(&sizes);
    let pslopes = paper_slopes();
    let (lo, hi) = (
        pslopes.iter().copied().fold(f64::INFINITY, f64::min),
        pslopes.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let too_small = fit_sizes.iter().any(|&s| s < 100);
    let mut slope_verdicts = Vec::new();
    let mut slope_ev = Vec::new();
    let mut slope_span: Option<Interval> = None;
    for (k, name) in SET_NAMES.iter().enumerate() {
        let data_size = |s: usize| (n * s * s) as f64;
        let set_cells: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.set == k && fit_sizes.contains(&c.size))
            .collect();
        for (alg, per_iter) in [
            (
                "Alg. 1",
                (|c: &Cell| c.alg1_per_iter_runs.clone()) as fn(&Cell) -> Vec<f64>,
            ),
            ("Alg. 2", |c: &Cell| c.alg2_per_iter_runs.clone()),
        ] {
            let slopes: Vec<f64> = (0..runs)
                .map(|r| {
                    log_log_slope(
                        &set_cells
                            .iter()
                            .map(|c| (data_size(c.size), per_iter(c)[r]))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            let iv = mean_interval(&slopes);
            let m = mean(&slopes);
            slope_verdicts.push(if too_small {
                Verdict::Inconclusive
            } else {
                within(iv, lo, hi)
            });
            slope_span = Some(match slope_span {
                None => iv,
                Some(s) => Interval {
                    lo: s.lo.min(iv.lo),
                    hi: s.hi.max(iv.hi),
                },
            });
            slope_ev.push(format!(
                "{name}, {alg}: mean slope {m:.2}, 95% interval {} over {runs} runs",
                fmt_interval(iv)
            ));
            let key = if alg == "Alg. 1" { "alg1" } else { "alg2" };
            ctx.figure(&format!("per_iteration_slope_{key}_set{}", k + 1), m);
        }
    }
    let mut claim = Claim::new(paper::TABLE1_LINEAR.claim_text(), all_of(&slope_verdicts))
        .evidence(format!(
            "held if the 95% interval of the slope of ln(time per iteration, 1 thread) on \
             ln(n s t) over s in {fit_sizes:?} lies within [{lo:.2}, {hi:.2}], the range of \
             the paper's own slopes at s >= 250 (set 1: Alg. 1 {:.2}, Alg. 2 {:.2}; set 2: \
             {:.2}, {:.2}), for both algorithms in both sets; fails if an interval misses \
             it{}; {}",
            pslopes[0],
            pslopes[1],
            pslopes[2],
            pslopes[3],
            if too_small {
                "; inconclusive here: the sizes are below 100, where fixed costs dominate"
            } else {
                ""
            },
            slope_ev.join("; ")
        ));
    if let Some(span) = slope_span {
        claim = claim.interval(span);
    }
    ctx.record(claim);

    // "Much faster": at every size of both sets, Alg. 1's log time exceeds Alg. 2's by
    // the paired t-test over runs (the runs share their data).
    let ln = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<_>>();
    let mut faster_verdicts = Vec::new();
    let mut faster_ev = Vec::new();
    let mut binding: Option<(f64, Interval)> = None;
    for c in &cells {
        let p = stats::paired(&ln(&c.alg1_times), &ln(&c.alg2_times));
        let v = p.greater();
        faster_verdicts.push(v);
        let iv = exp_interval(p.interval);
        faster_ev.push(format!(
            "set {} s={}: {:.2}x {} p = {:.3} ({})",
            c.set + 1,
            c.size,
            p.mean.exp(),
            fmt_interval(iv),
            p.p,
            v.as_str()
        ));
        if binding.is_none_or(|(m, _)| p.mean < m) {
            binding = Some((p.mean, iv));
        }
    }
    let mut claim = Claim::new(paper::TABLE1_FASTER.claim_text(), all_of(&faster_verdicts))
        .evidence(format!(
            "held if Alg. 2 is faster at every size of both sets by the paired t-test over \
             the {runs} runs of ln(time), 1 thread (p < 0.05; \"much\" is not quantified); \
             speed-up = geometric mean of Alg. 1 / Alg. 2 time with its 95% interval: {}",
            faster_ev.join(", ")
        ));
    if let Some((_, iv)) = binding {
        claim = claim.interval(iv);
    }
    ctx.record(claim);

    // The totals per run (sum over sizes of Alg. 1 time / sum of Alg. 2 time), per set.
    let set_cells = |k: usize| cells.iter().filter(|c| c.set == k).collect::<Vec<_>>();
    let run_totals = |k: usize| -> Vec<f64> {
        let cs = set_cells(k);
        (0..runs)
            .map(|r| {
                cs.iter().map(|c| c.alg1_times[r]).sum::<f64>()
                    / cs.iter().map(|c| c.alg2_times[r]).sum::<f64>()
            })
            .collect()
    };
    let (t1, t2) = (run_totals(0), run_totals(1));
    let (i1, i2) = (
        exp_interval(mean_interval(&ln(&t1))),
        exp_interval(mean_interval(&ln(&t2))),
    );
    let (s1, s2) = (total_speedup(&set_cells(0)), total_speedup(&set_cells(1)));
    let (p1, p2) = (
        paper_total_speedup(0, &sizes),
        paper_total_speedup(1, &sizes),
    );
    let fmt = |x: Option<f64>| x.map_or_else(|| "—".to_string(), |v| format!("{v:.2}x"));
    ctx.md(&format!(
        "\nTotal speed-up (sum of Alg. 1 times / sum of Alg. 2 times over the sizes run, 1 \
         thread): set 1 **{s1:.2}x** (95% interval over runs {}; paper at the same sizes {}; \
         all six sizes {:.2}x), set 2 **{s2:.2}x** ({}; paper {}; all six sizes {:.2}x).\n",
        fmt_interval(i1),
        fmt(p1),
        paper::table1_total_speedup(0),
        fmt_interval(i2),
        fmt(p2),
        paper::table1_total_speedup(1)
    ));
    ctx.record(
        Claim::new(
            paper::TABLE1_SET1.claim_text(),
            within(i1, 1.5, f64::INFINITY),
        )
        .interval(i1)
        .evidence(format!(
            "held if the 95% interval over runs of the total speed-up in set 1 lies at or \
             above 1.5x (\"twice\" to one significant digit), fails if it lies below: \
             {s1:.2}x, interval {} (paper at the same sizes {})",
            fmt_interval(i1),
            fmt(p1)
        )),
    );
    ctx.record(
        Claim::new(paper::TABLE1_SET2.claim_text(), within(i2, 10.0, 40.0))
            .interval(i2)
            .evidence(format!(
                "held if the 95% interval over runs of the total speed-up in set 2 lies \
                 within a factor 2 of 20x ([10, 40]), fails if it misses that range: \
                 {s2:.2}x, interval {} (paper at the same sizes {})",
                fmt_interval(i2),
                fmt(p2)
            )),
    );
    let dep = stats::paired(&ln(&t2), &ln(&t1));
    ctx.record(
        Claim::new(paper::TABLE1_DEPENDS.claim_text(), dep.greater())
            .interval(exp_interval(dep.interval))
            .evidence(format!(
                "held if the speed-up is larger when ℓ1 dominates (set 2) than when ℓ2 does \
                 (set 1), by the paired t-test over runs of ln(total speed-up): set 2 / set \
                 1 = {:.2}x, 95% interval {}, p = {:.3}",
                dep.mean.exp(),
                fmt_interval(exp_interval(dep.interval)),
                dep.p
            )),
    );
    ctx.figure("total_speedup_set1", s1);
    ctx.figure("total_speedup_set2", s2);
    for k in 0..2 {
        if let Some(c) = cells.iter().rfind(|c| c.set == k) {
            ctx.figure(&format!("alg1_time_largest_set{}", k + 1), c.alg1_time);
            ctx.figure(&format!("alg2_time_largest_set{}", k + 1), c.alg2_time);
            ctx.figure(&format!("alg1_iter_largest_set{}", k + 1), c.alg1_iter);
            ctx.figure(&format!("alg2_iter_largest_set{}", k + 1), c.alg2_iter);
        }
    }

    let [f64_1, f64_2, f32_1, f32_2, reads] = iteration_over_reads(ctx.seed())?;
    let ratio = f64_2 / reads;
    let ratio32 = f32_2 / reads;
    ctx.figure("alg2_iter_over_stream_read", ratio);
    ctx.figure("alg2_iter_over_stream_read_1_thread", f64_1 / reads);
    ctx.figure("alg2_f32_iter_over_f64_stream_read", ratio32);
    ctx.figure("alg2_f32_iter_over_f64_stream_read_1_thread", f32_1 / reads);
    let ms = |x: f64| format!("{:.1}", x * 1e3);
    ctx.md(&format!(
        "\n## Cost of one Alg. 2 iteration\n\nAt `n = 100, s = t = 500, r = 1`, parameter \
         set 1 (200 MB of f64 samples), medians of 10 iterations, against two plain \
         single-thread streaming reads of the same f64 buffer ({} ms), all in one run. \
         The two data passes of an iteration are split over samples across threads; \
         with f32 storage they read half the bytes and accumulate in f64.\n",
        ms(reads)
    ));
    ctx.table(
        &["samples", "threads", "ms / iteration", "over two f64 reads"],
        [
            ("f64", 1, f64_1),
            ("f64", 2, f64_2),
            ("f32", 1, f32_1),
            ("f32", 2, f32_2),
        ]
        .into_iter()
        .map(|(p, th, x)| {
            vec![
                p.to_string(),
                th.to_string(),
                ms(x),
                format!("{:.2}", x / reads),
            ]
        }),
    );
    ctx.md(
        "\nThe targets of this project (not claims of the paper, so not judged here; \
         tracked as the figures `alg2_iter_over_stream_read` <= 0.75 and \
         `alg2_f32_iter_over_f64_stream_read` <= 0.55 in `summary.json`): one Alg. 2 \
         iteration on 2 threads against two single-thread streaming reads of the f64 data.\n",
    );
    let size = *sizes.last().unwrap_or(&500);
    let data = two_class(n, size, size, 1.0, ctx.seed())?;
    let (obj64, obj32, acc64, acc32) = precision_agreement(&data)?;
    let rel_obj = (obj64 - obj32).abs() / obj64.abs();
    let rel_acc = (acc64 - acc32).abs() / acc64.abs();
    ctx.figure("f32_fit_objective_rel_diff", rel_obj);
    ctx.figure("f32_fit_accuracy_rel_diff", rel_acc);
    // Not a claim of the paper: the f32/f64 agreement is tested in
    // crates/sblr/tests (precision.rs); the numbers are shown for the reader.
    ctx.md(&format!(
        "\nf32 samples against f64 (n = {n}, s = t = {size}, set 1): objective {obj64:.9} vs \
         {obj32:.9} (relative difference {rel_obj:.2e}), training accuracy {acc64} vs \
         {acc32}; the 1e-4 agreement is tested in `crates/sblr/tests/sblr_tests/precision.rs`.\n"
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linearity_window_is_the_papers_own_slopes() {
        let s: Vec<String> = paper_slopes().iter().map(|x| format!("{x:.2}")).collect();
        assert_eq!(s, ["0.72", "1.70", "0.78", "1.02"]);
    }

    #[test]
    fn window_verdicts_can_fail() {
        let iv = |lo, hi| Interval { lo, hi };
        assert_eq!(within(iv(0.9, 1.1), 0.72, 1.70), Verdict::Holds);
        // A fixed cost that dominates (slope near 0) or a quadratic cost (near 2) fails.
        assert_eq!(within(iv(0.2, 0.4), 0.72, 1.70), Verdict::Fails);
        assert_eq!(within(iv(1.9, 2.1), 0.72, 1.70), Verdict::Fails);
        assert_eq!(within(iv(0.5, 1.0), 0.72, 1.70), Verdict::Inconclusive);
        assert_eq!(
            all_of([Verdict::Holds, Verdict::Inconclusive]),
            Verdict::Inconclusive
        );
        assert_eq!(all_of([Verdict::Holds, Verdict::Fails]), Verdict::Fails);
        assert_eq!(all_of([Verdict::Holds, Verdict::Holds]), Verdict::Holds);
    }

    #[test]
    fn one_run_gives_no_verdict() {
        let i = mean_interval(&[1.0]);
        assert_eq!(within(i, 0.72, 1.70), Verdict::Inconclusive);
    }
}
