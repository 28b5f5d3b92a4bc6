//! Probe: one Alg. 2 iteration and its two data passes timed separately (n = 100, r = 1,
//! Table 1 data, the factors `U`, `V` of a solver after three iterations), on f64 and f32
//! samples with 1 and 2 threads, beside
//!
//! - one single-thread streaming read of the same f64 data (the yardstick; each pass reads
//!   the samples once), and
//! - the reference pass-1 kernel (the library's before this change: `z += x_j w_j` one
//!   column at a time, columns read through faer), on the same threads,
//!
//! all interleaved in one run, the minimum of 7 repetitions of each kept. The reference
//! results are also compared with the library's bit for bit.
//!
//! `[K=k] cargo run --release -p sblr --features probes --example pass_split_probe [-- SIZE ...]` (default
//! sizes 500 and 1000; with `K = k > 1` the passes use factors of `k` columns, as the
//! multinomial model's `k = m r`: the solver's factor column scaled by `1, 2, ..., k`; the
//! iteration column stays the rank-1 binary iteration).

use std::time::Instant;

mod common;

use bl_core::data::{Element, MatrixDataset};
use rayon::prelude::*;
use sblr::BinarySolver;
use sblr::bilinear::Penalties;
use sblr::passes::SamplePasses;
use sblr::yardstick::{streaming_read, warmed_solver};

/// The pass-1 kernel of the library before this change, verbatim but for the access to
/// the data set: `z_i = sum_j x_j w_j`, one column at a time, columns read through faer.
fn reference_times_v<T: Element>(
    data: &MatrixDataset<T>,
    vt: &[f64],
    k: usize,
    out: &mut [f64],
    pool: &rayon::ThreadPool,
) -> Result<(), Box<dyn std::error::Error>> {
    let (s, t) = data.shape();
    let columns = data
        .stacked()
        .try_as_col_major()
        .ok_or("the stacked samples are column-major")?;
    pool.install(|| {
        out.par_chunks_exact_mut(s * k)
            .enumerate()
            .for_each(|(i, zi)| {
                zi.fill(0.0);
                for (j, vj) in vt.chunks_exact(k).enumerate() {
                    let x = columns.col(i * t + j).as_slice();
                    for (zk, &w) in zi.chunks_exact_mut(s).zip(vj) {
                        for (z, &xa) in zk.iter_mut().zip(x) {
                            *z += xa.to_f64() * w;
                        }
                    }
                }
            });
    });
    Ok(())
}

/// Best times (seconds) of pass 1, pass 2 and the reference pass 1 on `data`.
struct Row {
    iteration: f64,
    pass1: f64,
    pass2: f64,
    reference: f64,
}

struct Config<'a, T: Element> {
    data: &'a MatrixDataset<T>,
    solver: BinarySolver<'a, T>,
    passes: SamplePasses<'a, T>,
    pool: rayon::ThreadPool,
    best: Row,
}

impl<'a, T: Element> Config<'a, T> {
    fn new(data: &'a MatrixDataset<T>, threads: usize) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            data,
            solver: warmed_solver(data, Penalties::new(0.1, 1.0, 0.1, 1.0), threads)?,
            passes: SamplePasses::new(data, Some(threads))?,
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?,
            best: Row {
                iteration: f64::MAX,
                pass1: f64::MAX,
                pass2: f64::MAX,
                reference: f64::MAX,
            },
        })
    }

    fn round(
        &mut self,
        vt: &[f64],
        u: &[f64],
        k: usize,
        zu: &mut [f64],
        zref: &mut [f64],
        zv: &mut [f64],
    ) -> Result<(), Box<dyn std::error::Error>> {
        let now = Instant::now();
        self.solver.step()?;
        self.best.iteration = self.best.iteration.min(now.elapsed().as_secs_f64());
        let now = Instant::now();
        self.passes.times_v(vt, k, zu)?;
        self.best.pass1 = self.best.pass1.min(now.elapsed().as_secs_f64());
        let now = Instant::now();
        self.passes.u_times(u, k, zv)?;
        self.best.pass2 = self.best.pass2.min(now.elapsed().as_secs_f64());
        let now = Instant::now();
        reference_times_v(self.data, vt, k, zref, &self.pool)?;
        self.best.reference = self.best.reference.min(now.elapsed().as_secs_f64());
        if zu
            .iter()
            .zip(zref.iter())
            .any(|(a, b)| a.to_bits() != b.to_bits())
        {
            return Err("pass 1 differs from the reference loop".into());
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sizes = common::sizes(&[500, 1000])?;
    let k: usize = match std::env::var("K") {
        Ok(v) => v.parse()?,
        Err(_) => 1,
    };
    if k == 0 {
        return Err("K must be at least 1".into());
    }
    println!("factors of k = {k} columns");
    common::table_header(&[
        "s = t",
        "one f64 read (ms)",
        "storage, threads",
        "iteration",
        "pass 1",
        "pass 2",
        "reference pass 1",
        "pass 1 / reference",
    ]);
    for size in sizes {
        let (data, narrow) = common::table1(size, 0)?;
        let solver = warmed_solver(&data, Penalties::new(0.1, 1.0, 0.1, 1.0), 1)?;
        // Factors of k columns: the solver's rank-1 factors, column c scaled by 1 + c
        // (`vt = V^T` is k x t column-major).
        let u: Vec<f64> = (0..k)
            .flat_map(|c| {
                solver
                    .u()
                    .col(0)
                    .iter()
                    .map(move |&x| x * (1 + c) as f64)
                    .collect::<Vec<_>>()
            })
            .collect();
        let vt: Vec<f64> = solver
            .v()
            .col(0)
            .iter()
            .flat_map(|&x| (0..k).map(move |c| x * (1 + c) as f64))
            .collect();
        let n = data.n_samples();
        let (mut zu, mut zref, mut zv) = (
            vec![0.0; size * k * n],
            vec![0.0; size * k * n],
            vec![0.0; size * k * n],
        );
        let mut wide = [Config::new(&data, 1)?, Config::new(&data, 2)?];
        let mut thin = [Config::new(&narrow, 1)?, Config::new(&narrow, 2)?];
        let mut yardstick = f64::MAX;
        for _ in 0..7 {
            let now = Instant::now();
            std::hint::black_box(streaming_read(data.as_slice()));
            yardstick = yardstick.min(now.elapsed().as_secs_f64());
            for c in &mut wide {
                c.round(&vt, &u, k, &mut zu, &mut zref, &mut zv)?;
            }
            for c in &mut thin {
                c.round(&vt, &u, k, &mut zu, &mut zref, &mut zv)?;
            }
        }
        let cell = |x: f64| format!("{:.2} ms ({:.2}x)", x * 1e3, x / yardstick);
        let rows = wide
            .iter()
            .map(|c| &c.best)
            .zip(["f64, 1", "f64, 2"])
            .chain(thin.iter().map(|c| &c.best).zip(["f32, 1", "f32, 2"]));
        for (best, name) in rows {
            println!(
                "| {size} | {:.2} | {name} | {} | {} | {} | {} | {:.2} |",
                yardstick * 1e3,
                cell(best.iteration),
                cell(best.pass1),
                cell(best.pass2),
                cell(best.reference),
                best.pass1 / best.reference
            );
        }
    }
    Ok(())
}
