//! Timing probe (not a test) of the baselines that share the in-place kernels of
//! `crate::kernels` with CP-ALS, with fixed iteration counts, so that two builds of the
//! crate (e.g. before and after a kernel change) can be compared on the same work and
//! checked to reach the same loss. Run in release:
//!
//! `RAYON_NUM_THREADS=1 cargo run --release -p boolean-tensor --example kernel_gains -- 45,70,100,150 all`
//!
//! Data: Syn2-like, as `cp_probe` builds it (`d^3`, 15 Boolean atoms, noise N(0, 1), seed
//! 2018); the Tucker EM rows hide 10% of the entries (same seed) so that the HOSVD is
//! repeated. Methods (second argument: `all` or a comma-separated subset):
//!
//! - `sustain`: SUSTain, rank 15, one start on each of the three Boolean modes, `tol = 0`,
//!   10 sweeps per start (30 iterations in all);
//! - `tucker`: Tucker HOSVD of multilinear rank (15, 15, 15) (`for_atoms(15)`) of the
//!   fully observed tensor (one HOSVD);
//! - `tucker-em`: the same with 10% missing, `tol = 0`, 5 EM rounds;
//! - `lfm`: LFM, 5 Boolean columns, every mode tried (the default);
//! - `lfmmix`: LFMmix, 5 Boolean columns;
//! - `bmp`: BMP, 5 atoms, `tol = 0`, 10 refit sweeps per step with `refit_tol = 0`;
//! - `qp`: not a fit: the default Boolean QP solver (`MixingQp`, seed 2018) on the
//!   unfolding of the data along each mode in turn (the first QP of an LFM or LFMmix
//!   step), one "iteration" per mode; the "loss" printed is the number of ones of the
//!   three solutions (a check that both builds solve alike).
//!
//! Third argument `MIN_REPS` (default 1): each (method, size) is fitted
//! `max(MIN_REPS, (largest / d)^3)` times (integer ratio, as `cp_probe` scales its sweeps),
//! so the small sizes are timed over about as much work as the largest; the times printed
//! are the minimum over those fits, and the fits must agree on iterations and loss (an
//! error otherwise: the methods are deterministic).
//!
//! One line per (method, size), tab-separated: threads of the rayon pool, fits made,
//! iterations of the fit report, ms per iteration (the report's elapsed time over its
//! iterations; for SUSTain and LFM the sum over the runs the report combines), whole-fit
//! ms (wall clock around `fit`, including setup), the final loss (`%.12e`) and, for BMP,
//! the refit sweeps made in all.

use std::time::Instant;

use boolean_tensor::{Bmp, Fit, Fitted, Lfm, MixingQp, QpSolver, Sustain, Tensor, Tucker};

mod common;
use common::syn2;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const METHODS: [&str; 7] = [
    "sustain",
    "tucker",
    "tucker-em",
    "lfm",
    "lfmmix",
    "bmp",
    "qp",
];

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args
        .first()
        .map_or("45,70,100,150", String::as_str)
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let which = args.get(1).map_or("all", String::as_str);
    let methods: Vec<&str> = if which == "all" {
        METHODS.to_vec()
    } else {
        which.split(',').collect()
    };
    if let Some(bad) = methods.iter().find(|m| !METHODS.contains(m)) {
        return Err(format!("unknown method {bad}; expected one of {METHODS:?} or all").into());
    }
    let min_reps: usize = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let threads = rayon::current_num_threads();
    let largest = sizes.iter().copied().max().unwrap_or(1);
    println!("method\td\tthreads\tfits\titerations\tms_per_iter\tfit_ms\tloss\trefit_sweeps");
    for d in sizes {
        let full = syn2(d, 0.0)?;
        let masked = syn2(d, 0.1)?;
        let reps = min_reps.max((largest / d.max(1)).pow(3));
        for &method in &methods {
            let mut best = (f64::INFINITY, f64::INFINITY);
            let mut first: Option<(usize, u64, Option<usize>)> = None;
            for _ in 0..reps {
                let (iters, per_iter, fit_ms, loss, refits) = fit_once(method, &full, &masked)?;
                best = (best.0.min(per_iter), best.1.min(fit_ms));
                let seen = (iters, loss.to_bits(), refits);
                if first.is_some_and(|f| f != seen) {
                    return Err(format!("{method} at {d}^3: fits disagree").into());
                }
                first = Some(seen);
            }
            let (iters, loss, refits) = first.ok_or("no fit")?;
            println!(
                "{method}\t{d}\t{threads}\t{reps}\t{iters}\t{:.3}\t{:.3}\t{:.12e}\t{}",
                best.0,
                best.1,
                f64::from_bits(loss),
                refits.map_or_else(|| "-".to_string(), |r| r.to_string())
            );
        }
    }
    Ok(())
}

/// One fit: `(iterations, ms per iteration, whole-fit ms, loss, BMP refit sweeps)`.
fn fit_once(
    method: &str,
    full: &Tensor,
    masked: &Tensor,
) -> Res<(usize, f64, f64, f64, Option<usize>)> {
    let t = Instant::now();
    if method == "qp" {
        let solver = MixingQp::default();
        let mut ones = 0.0;
        for mode in 0..3 {
            let g = full.unfold(mode)?;
            ones += solver.maximize(g.as_ref(), 2018)?.iter().sum::<f64>();
        }
        let fit_ms = t.elapsed().as_secs_f64() * 1e3;
        return Ok((3, fit_ms / 3.0, fit_ms, ones, None));
    }
    let (report, loss, refits) = match method {
        "sustain" => {
            let f = Sustain::params()
                .rank(15)
                .n_starts(1)
                .tol(0.0)
                .max_iter(10)
                .seed(2018)
                .fit(full)?;
            (f.report().clone(), f.loss(), None)
        }
        "tucker" | "tucker-em" => {
            let x = if method == "tucker" { full } else { masked };
            let f = Tucker::params().for_atoms(15).tol(0.0).max_iter(5).fit(x)?;
            (f.report().clone(), f.loss(), None)
        }
        "lfm" => {
            let f = Lfm::params().max_iter(5).seed(2018).fit(full)?;
            (f.report().clone(), f.loss(), None)
        }
        "lfmmix" => {
            let f = Lfm::params().max_iter(5).seed(2018).mix().fit(full)?;
            (f.report().clone(), f.loss(), None)
        }
        _ => {
            let f = Bmp::params()
                .max_iter(5)
                .tol(0.0)
                .refit_sweeps(10)
                .refit_tol(0.0)
                .seed(2018)
                .fit(full)?;
            let refits: usize = f.steps().iter().map(|s| s.refit_sweeps).sum();
            (f.report().clone(), f.report().objective, Some(refits))
        }
    };
    let fit_ms = t.elapsed().as_secs_f64() * 1e3;
    let iters = report.iterations.max(1);
    let per_iter = report.seconds() * 1e3 / iters as f64;
    Ok((report.iterations, per_iter, fit_ms, loss, refits))
}
