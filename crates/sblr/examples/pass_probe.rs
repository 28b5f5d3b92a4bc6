//! Probe: one Alg. 2 iteration (n = 100, r = 1, Table 1 data) on f64 and f32 samples with
//! 1 and 2 threads, against two single-thread streaming reads of the f64 data (the
//! yardstick), all interleaved in one run; the minimum of 7 repetitions of each (the least
//! disturbed by other load on the machine). The last column is two streaming reads of the
//! f64 data split over 2 threads, relative to the yardstick: the memory floor of an f64
//! iteration on 2 threads.
//!
//! `cargo run --release -p sblr --features probes --example pass_probe`

use std::time::Instant;

mod common;

use bl_core::data::{Element, MatrixDataset};
use rayon::prelude::*;
use sblr::BinarySolver;
use sblr::bilinear::Penalties;
use sblr::yardstick::{streaming_read, warmed_solver};

fn solver<T: Element>(
    data: &MatrixDataset<T>,
    threads: usize,
) -> Result<BinarySolver<'_, T>, sblr::SblrError> {
    warmed_solver(data, Penalties::new(0.1, 1.0, 0.1, 1.0), threads)
}

/// One streaming read of `data` split into contiguous halves over the 2 threads of `pool`.
fn parallel_read(data: &[f64], pool: &rayon::ThreadPool) -> f64 {
    let half = data.len().div_ceil(2).max(1);
    pool.install(|| data.par_chunks(half).map(streaming_read).sum())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
    common::table_header(&[
        "s = t",
        "two f64 reads (ms)",
        "f64 1 thread",
        "f64 2 threads",
        "f32 1 thread",
        "f32 2 threads",
        "two f64 reads, 2 threads",
    ]);
    for size in [50, 100, 250, 500, 1000] {
        let (data, narrow) = common::table1(size, 0)?;
        let (mut a, mut b) = (solver(&data, 1)?, solver(&data, 2)?);
        let (mut c, mut d) = (solver(&narrow, 1)?, solver(&narrow, 2)?);
        let mut best = [f64::MAX; 6];
        let time = |f: &mut dyn FnMut() -> Result<(), sblr::SblrError>, slot: &mut f64| {
            let t = Instant::now();
            let out = f();
            *slot = slot.min(t.elapsed().as_secs_f64());
            out
        };
        for _ in 0..7 {
            time(
                &mut || {
                    std::hint::black_box(
                        streaming_read(data.as_slice()) + streaming_read(data.as_slice()),
                    );
                    Ok(())
                },
                &mut best[0],
            )?;
            time(&mut || a.step().map(drop), &mut best[1])?;
            time(&mut || b.step().map(drop), &mut best[2])?;
            time(&mut || c.step().map(drop), &mut best[3])?;
            time(&mut || d.step().map(drop), &mut best[4])?;
            time(
                &mut || {
                    std::hint::black_box(
                        parallel_read(data.as_slice(), &pool)
                            + parallel_read(data.as_slice(), &pool),
                    );
                    Ok(())
                },
                &mut best[5],
            )?;
        }
        let cell = |x: f64| format!("{:.2} ms ({:.2}x)", x * 1e3, x / best[0]);
        println!(
            "| {size} | {:.2} | {} | {} | {} | {} | {} |",
            best[0] * 1e3,
            cell(best[1]),
            cell(best[2]),
            cell(best[3]),
            cell(best[4]),
            cell(best[5])
        );
    }
    Ok(())
}
