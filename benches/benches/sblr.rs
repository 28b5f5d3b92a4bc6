//! Hot paths of `sblr`, each beside a physical yardstick over the same data:
//!
//! - one Alg. 2 iteration (n = 100, s = t = 1000, r = 1; 800 MB of samples) beside two
//!   plain streaming reads of the same buffer: an iteration reads the data exactly twice
//!   (`X_i V` per sample and `U^T [X_1 ... X_n]`), so the ratio shows the overhead over the
//!   memory-bandwidth floor;
//! - FISTA l1 logistic regression (n = 200, 32 x 32 samples, 100 iterations) beside one
//!   streaming read of its data (each FISTA iteration reads the data about twice).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sblr::synthetic::two_class;
use sblr::{BinarySolver, LogisticRegression, Sblr};
use sblr::{Fit as _, ParamGuard as _};

/// Sum of every entry: one streaming read of the buffer.
fn streaming_read(data: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    for chunk in data.chunks_exact(8) {
        for k in 0..8 {
            acc[k] += chunk[k];
        }
    }
    acc.iter().sum()
}

fn alg2_iteration(c: &mut Criterion) {
    let (n, s, t) = (100, 1000, 1000);
    let data = two_class(n, s, t, 1.0, 0).expect("synthetic data");
    let params = Sblr::params()
        .rank(1)
        .penalties(0.01, 0.5, 0.01, 0.5)
        .check()
        .expect("valid parameters");
    let mut solver = BinarySolver::new(&data, &params).expect("solver");
    // Warm up past the first iterations, whose backtracking searches are longer.
    for _ in 0..3 {
        solver.step().expect("step");
    }
    let mut group = c.benchmark_group("sblr_alg2");
    group.sample_size(10);
    group.throughput(Throughput::Bytes((n * s * t * 8) as u64));
    let id = format!("n{n}_s{s}_t{t}_r1");
    group.bench_function(BenchmarkId::new("one_iteration", &id), |b| {
        b.iter(|| black_box(solver.step().expect("step").objective))
    });
    group.bench_function(
        BenchmarkId::new("yardstick_two_streaming_reads", &id),
        |b| {
            b.iter(|| {
                black_box(streaming_read(black_box(data.as_slice())))
                    + black_box(streaming_read(black_box(data.as_slice())))
            })
        },
    );
    group.finish();
}

fn fista_l1(c: &mut Criterion) {
    let (n, s, t) = (200, 32, 32);
    let data = two_class(n, s, t, 0.2, 1).expect("synthetic data");
    let params = LogisticRegression::params()
        .l1(0.01)
        .l2(0.0)
        .tol(1e-300)
        .max_iter(100);
    let mut group = c.benchmark_group("sblr_fista_l1_logistic");
    let id = format!("n{n}_d{}_100_iterations", s * t);
    group.bench_function(BenchmarkId::new("fit", &id), |b| {
        b.iter(|| black_box(params.fit(black_box(&data)).expect("fit").objective()))
    });
    group.bench_function(BenchmarkId::new("yardstick_one_streaming_read", &id), |b| {
        b.iter(|| black_box(streaming_read(black_box(data.as_slice()))))
    });
    group.finish();
}

criterion_group!(benches, alg2_iteration, fista_l1);
criterion_main!(benches);
