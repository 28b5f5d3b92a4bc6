//! Experiment behind the pass-1 kernel of `sblr::passes` (`z_i = X_i V`, `k = 1`): adding
//! one column of `X_i` per sweep (`v0`, the sample read as one sequential stream) against
//! adding blocks of 4 or 8 columns per sweep with `z[a]` held in a register (`b4`, `b8`,
//! `b8z`: fewer loads and stores of `z`, the same rounding, but the block's columns read as
//! 4 or 8 interleaved streams), beside pass 2 (`p2`, dot products) and one single-thread
//! streaming read of the f64 data. All kernels here are compiled for the baseline target
//! (SSE2 on x86-64) and run on thread pools built before any AVX code ran; the minimum of
//! 5 interleaved rounds is kept. Synthetic data in `[-1, 1)`, `n` samples of `s x s`.
//!
//! `N=100 SIZES=500,1000 cargo run --release -p sblr --example pass1_blocking`

use std::time::Instant;

use bl_core::data::Element;
use rayon::prelude::*;
use sblr::yardstick::streaming_read;

fn v0<T: Element>(x: &[T], s: usize, t: usize, vt: &[f64], zi: &mut [f64]) {
    zi.fill(0.0);
    for (j, &w) in vt.iter().enumerate() {
        let xc = &x[j * s..(j + 1) * s];
        for (z, &xa) in zi.iter_mut().zip(xc) {
            *z += xa.to_f64() * w;
        }
    }
    let _ = t;
}

fn vb<T: Element, const B: usize>(x: &[T], s: usize, t: usize, vt: &[f64], zi: &mut [f64]) {
    zi.fill(0.0);
    let mut j = 0;
    while j + B <= t {
        let n = zi.len();
        let cols: [&[T]; B] = std::array::from_fn(|b| &x[(j + b) * s..(j + b) * s + n]);
        let w: [f64; B] = std::array::from_fn(|b| vt[j + b]);
        for (a, z) in zi.iter_mut().enumerate() {
            let mut acc = *z;
            for b in 0..B {
                acc += cols[b][a].to_f64() * w[b];
            }
            *z = acc;
        }
        j += B;
    }
    while j < t {
        let xc = &x[j * s..(j + 1) * s];
        let w = vt[j];
        for (z, &xa) in zi.iter_mut().zip(xc) {
            *z += xa.to_f64() * w;
        }
        j += 1;
    }
}

/// Blocked by 8 columns with the row loop in chunks of 2 (iterators, no bounds checks).
fn vb8z<T: Element>(x: &[T], s: usize, t: usize, vt: &[f64], zi: &mut [f64]) {
    zi.fill(0.0);
    let mut j = 0;
    while j + 8 <= t {
        let n = zi.len();
        let c = |b: usize| &x[(j + b) * s..(j + b) * s + n];
        let (c0, c1, c2, c3, c4, c5, c6, c7) = (c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7));
        let w = &vt[j..j + 8];
        for a in 0..n {
            let mut acc = zi[a];
            acc += c0[a].to_f64() * w[0];
            acc += c1[a].to_f64() * w[1];
            acc += c2[a].to_f64() * w[2];
            acc += c3[a].to_f64() * w[3];
            acc += c4[a].to_f64() * w[4];
            acc += c5[a].to_f64() * w[5];
            acc += c6[a].to_f64() * w[6];
            acc += c7[a].to_f64() * w[7];
            zi[a] = acc;
        }
        j += 8;
    }
    while j < t {
        let xc = &x[j * s..(j + 1) * s];
        let w = vt[j];
        for (z, &xa) in zi.iter_mut().zip(xc) {
            *z += xa.to_f64() * w;
        }
        j += 1;
    }
}

fn dot<T: Element>(x: &[T], u: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let xs = x.chunks_exact(8);
    let us = u.chunks_exact(8);
    let (xr, ur) = (xs.remainder(), us.remainder());
    for (xc, uc) in xs.zip(us) {
        for l in 0..8 {
            acc[l] += xc[l].to_f64() * uc[l];
        }
    }
    let mut tail = 0.0;
    for (&xa, &ua) in xr.iter().zip(ur) {
        tail += xa.to_f64() * ua;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

fn pass2<T: Element>(x: &[T], s: usize, _t: usize, u: &[f64], zi: &mut [f64]) {
    for (j, z) in zi.iter_mut().enumerate() {
        *z = dot(&x[j * s..(j + 1) * s], u);
    }
}

type Kernel<T> = fn(&[T], usize, usize, &[f64], &mut [f64]);

fn run<T: Element>(
    pool: &rayon::ThreadPool,
    x: &[T],
    s: usize,
    t: usize,
    w: &[f64],
    out: &mut [f64],
    len: usize,
    f: Kernel<T>,
) {
    pool.install(|| {
        out.par_chunks_exact_mut(len)
            .zip(x.par_chunks_exact(s * t))
            .for_each(|(o, xi)| f(xi, s, t, w, o));
    });
}

fn main() {
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    for size in std::env::var("SIZES")
        .unwrap_or("500,1000".into())
        .split(",")
        .map(|v| v.parse::<usize>().unwrap())
    {
        let (s, t) = (size, size);
        let x64: Vec<f64> = (0..s * t * n)
            .map(|i| ((i.wrapping_mul(2654435761) % 1000) as f64) / 500.0 - 1.0)
            .collect();
        let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
        let vt: Vec<f64> = (0..t).map(|j| (j as f64 * 0.37).sin()).collect();
        let u: Vec<f64> = (0..s).map(|a| (a as f64 * 0.11).cos()).collect();
        let pools: Vec<_> = [1, 2]
            .iter()
            .map(|&k| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(k)
                    .build()
                    .unwrap()
            })
            .collect();
        let mut zu = vec![0.0; s * n];
        let mut zv = vec![0.0; t * n];
        let names = ["yard(1 read)", "p1 v0", "p1 b4", "p1 b8", "p1 b8z", "p2"];
        let mut best = vec![f64::MAX; 1 + 2 * 2 * (names.len() - 1)];
        for _ in 0..5 {
            let t0 = Instant::now();
            std::hint::black_box(streaming_read(&x64));
            best[0] = best[0].min(t0.elapsed().as_secs_f64());
            let mut slot = 1;
            for prec in 0..2 {
                for pool in &pools {
                    macro_rules! go {
                        ($x:expr, $ty:ty) => {{
                            let ks: [(Kernel<$ty>, bool); 5] = [
                                (v0::<$ty>, true),
                                (vb::<$ty, 4>, true),
                                (vb::<$ty, 8>, true),
                                (vb8z::<$ty>, true),
                                (pass2::<$ty>, false),
                            ];
                            for (f, p1) in ks {
                                let t0 = Instant::now();
                                if p1 {
                                    run(pool, $x, s, t, &vt, &mut zu, s, f);
                                } else {
                                    run(pool, $x, s, t, &u, &mut zv, t, f);
                                }
                                best[slot] = best[slot].min(t0.elapsed().as_secs_f64());
                                slot += 1;
                            }
                        }};
                    }
                    if prec == 0 {
                        go!(&x64, f64)
                    } else {
                        go!(&x32, f32)
                    }
                }
            }
            std::hint::black_box((&zu, &zv));
        }
        println!("s = t = {size}: one f64 read {:.4} ms", best[0] * 1e3);
        let mut slot = 1;
        for prec in ["f64", "f32"] {
            for th in [1, 2] {
                let cells: Vec<String> = names[1..]
                    .iter()
                    .map(|nm| {
                        let c = format!(
                            "{nm} {:.3}ms ({:.2}x)",
                            best[slot] * 1e3,
                            best[slot] / best[0]
                        );
                        slot += 1;
                        c
                    })
                    .collect();
                println!("  {prec} {th}t: {}", cells.join(" | "));
            }
        }
    }
}
