//! Probe: one Alg. 2 iteration (n = 100, r = 1, Table 1 data) on f64 and f32 samples with
//! 1 and 2 threads, against two single-thread streaming reads of the f64 data, all
//! interleaved in one run; the minimum of 7 repetitions of each (the least disturbed by
//! other load on the machine).
//!
//! `cargo run --release -p sblr --example pass_probe`

use std::time::Instant;

use bl_core::data::{Element, MatrixDataset};
use sblr::BinarySolver;
use sblr::bilinear::Penalties;
use sblr::synthetic::two_class;
use sblr::yardstick::{streaming_read, warmed_solver};

fn solver<T: Element>(
    data: &MatrixDataset<T>,
    threads: usize,
) -> Result<BinarySolver<'_, T>, sblr::SblrError> {
    warmed_solver(data, Penalties::new(0.1, 1.0, 0.1, 1.0), threads)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "| s = t | two f64 reads (ms) | f64 1 thread | f64 2 threads | f32 1 thread | f32 2 threads |"
    );
    println!("|---|---|---|---|---|---|");
    for size in [50, 100, 250, 500, 1000] {
        let data = two_class(100, size, size, 1.0, 0)?;
        let narrow = data.to_f32()?;
        let (mut a, mut b) = (solver(&data, 1)?, solver(&data, 2)?);
        let (mut c, mut d) = (solver(&narrow, 1)?, solver(&narrow, 2)?);
        let mut best = [f64::MAX; 5];
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
        }
        let cell = |x: f64| format!("{:.2} ms ({:.2}x)", x * 1e3, x / best[0]);
        println!(
            "| {size} | {:.2} | {} | {} | {} | {} |",
            best[0] * 1e3,
            cell(best[1]),
            cell(best[2]),
            cell(best[3]),
            cell(best[4])
        );
    }
    Ok(())
}
