//! Hot paths of `sblr`, each beside a physical yardstick over the same data:
//!
//! - one Alg. 2 iteration (n = 100, s = t in {50, 100, 250, 500, 1000}, r = 1) on samples
//!   stored as f64 and as f32, with 1 and 2 threads, beside two plain single-thread
//!   streaming reads of the f64 buffer: an iteration reads the data exactly twice
//!   (`X_i V` per sample and `U^T X_i`), so the ratio shows the overhead over the
//!   memory-bandwidth floor (f32 storage reads half the bytes);
//! - FISTA l1 logistic regression (n = 200, 32 x 32 samples, 100 iterations) beside one
//!   streaming read of its data (each FISTA iteration reads the data about twice).
//!
//! `cargo bench -p bilinear-benches --bench sblr -- sblr_alg2` runs the first group.

use std::hint::black_box;

use std::time::Duration;

use bl_core::data::{Element, MatrixDataset};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use sblr::Fit as _;
use sblr::LogisticRegression;
use sblr::bilinear::Penalties;
use sblr::synthetic::two_class;
use sblr::yardstick::{streaming_read, warmed_solver};

/// Three warm-up iterations (the first ones search longer for their step), then the
/// benchmark of one iteration.
fn bench_iterations<T: Element>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    id: &str,
    data: &MatrixDataset<T>,
    threads: usize,
) {
    let mut solver =
        warmed_solver(data, Penalties::new(0.01, 0.5, 0.01, 0.5), threads).expect("solver");
    group.bench_function(BenchmarkId::new(name, id), |b| {
        b.iter(|| black_box(solver.step().expect("step").objective))
    });
}

fn alg2_iteration(c: &mut Criterion) {
    let n = 100;
    let mut group = c.benchmark_group("sblr_alg2");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    for size in [50, 100, 250, 500, 1000] {
        let data = two_class(n, size, size, 1.0, 0).expect("synthetic data");
        let narrow = data.to_f32().expect("f32 copy");
        let id = format!("n{n}_s{size}_t{size}_r1");
        group.bench_function(
            BenchmarkId::new("yardstick_two_f64_streaming_reads", &id),
            |b| {
                b.iter(|| {
                    black_box(streaming_read(black_box(data.as_slice())))
                        + black_box(streaming_read(black_box(data.as_slice())))
                })
            },
        );
        for threads in [1, 2] {
            bench_iterations(&mut group, &format!("f64_{threads}t"), &id, &data, threads);
            bench_iterations(
                &mut group,
                &format!("f32_{threads}t"),
                &id,
                &narrow,
                threads,
            );
        }
    }
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
