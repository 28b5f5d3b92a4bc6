//! Hot paths of `maxcut-sdp`: one mixing sweep on each form of `C`.
//!
//! - `maxcut_dense`: `C = L / 4` of a weighted G(1000, 0.5), stored densely, beside one
//!   plain matrix-vector product of the same data (a sweep costs about `k` of them);
//! - `maxcut_sparse`: max-cut of random graphs with `5 n` weighted edges, `n` from 2000 to
//!   60000; `maxcut_gnp_half`: G(n, 0.5), `n` from 180 to 1000. Each row measures the
//!   sparse sweep (`sweep_*`) beside the first sparse kernel on the same graph
//!   (`reference_*`, `Mixing::sweep_reference`, the yardstick), and on dense graphs what
//!   the default `LowRankMode::Auto` runs (`auto_*`, the dense sweep), under thread pools
//!   of 1 and 2 threads;
//! - `maxcut_density`: the sparse and the dense sweep on G(n, p), the crossover behind
//!   `SPARSE_FORM_DENSITY`;
//! - the Boolean tensor atom search `max z^T G G^T z`, `z in {0, 1}^150`, `G` of size
//!   `150 x 22500`: homogenized to 151 ±1 variables; sweeps on the formed `151 x 151`
//!   matrix (what `LowRankMode::Auto` picks), on the implicit factor, and the one-off
//!   cost of forming the matrix; yardstick `G^T z`.
//!
//! `cargo bench -p bilinear-benches --bench maxcut -- maxcut_sparse` (or any group name).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use maxcut_sdp::synthetic::{dense_maxcut_cost, gaussian, gnp_weighted, random_edges};
use maxcut_sdp::{BooleanQp, LowRankMode, Mixing, MixingParams, Problem, SparseSweep, SweepForm};

const SEED: u64 = 20_170_901;

fn dense(c: &mut Criterion) {
    let n = 1000;
    let cost = dense_maxcut_cost(n, 0.5, SEED).expect("valid p");
    let problem = Problem::dense(cost.as_ref()).expect("valid dense C");
    let params = MixingParams::default().seed(SEED);
    let mut mixing = Mixing::new(&problem, &params).expect("valid params");
    let k = mixing.rank();
    let x: Vec<f64> = gaussian(n, 1, SEED + 1)
        .expect("small size")
        .col(0)
        .iter()
        .copied()
        .collect();
    let mut out = vec![0.0; n];

    let mut group = c.benchmark_group("maxcut_dense");
    group.bench_function(BenchmarkId::new("sweep", format!("n{n}_k{k}")), |b| {
        b.iter(|| black_box(mixing.sweep().expect("built-in order")))
    });
    group.bench_function(BenchmarkId::new("yardstick_matvec", format!("n{n}")), |b| {
        b.iter(|| problem.apply(black_box(&x), &mut out))
    });
    group.finish();
}

/// A pool of `threads` workers, installed around each measured call.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// One sweep of the sparse kernel against the first sparse kernel
/// (`Mixing::sweep_reference`) on the same graph, 1 and 2 threads.
fn sparse_against_reference(c: &mut Criterion, group: &str, graphs: &[(usize, Vec<Edge>)]) {
    let mut group = c.benchmark_group(group);
    group.sample_size(20);
    for (n, edges) in graphs {
        let problem = Problem::maxcut(*n, edges).expect("valid graph");
        // Keep the sparse storage on dense graphs too (`Auto` would form C there).
        let params = MixingParams::default()
            .seed(SEED)
            .low_rank(LowRankMode::Implicit);
        let mut fast = Mixing::new(&problem, &params).expect("valid params");
        // The yardstick in its own layout: natural vertex order, one thread.
        let sequential = params.clone().sparse_sweep(SparseSweep::Sequential);
        let mut reference = Mixing::new(&problem, &sequential).expect("valid params");
        let size = format!("n{n}_edges{}_k{}", edges.len(), fast.rank());
        // What `LowRankMode::Auto` (the default) runs: the dense sweep on dense graphs.
        let mut auto = Mixing::new(&problem, &MixingParams::default().seed(SEED)).expect("ok");
        for threads in [1, 2] {
            let pool = pool(threads);
            if auto.form() != SweepForm::Sparse {
                group.bench_function(BenchmarkId::new(format!("auto_{threads}t"), &size), |b| {
                    b.iter(|| pool.install(|| black_box(auto.sweep().expect("built-in order"))))
                });
            }
            group.bench_function(BenchmarkId::new(format!("sweep_{threads}t"), &size), |b| {
                b.iter(|| pool.install(|| black_box(fast.sweep().expect("built-in order"))))
            });
            group.bench_function(
                BenchmarkId::new(format!("reference_{threads}t"), &size),
                |b| {
                    b.iter(|| {
                        pool.install(|| black_box(reference.sweep_reference().expect("order")))
                    })
                },
            );
        }
    }
    group.finish();
}

type Edge = (usize, usize, f64);

/// Sparse random graphs, average degree 10, 10^4 to 3 x 10^5 edges (30x).
fn sparse(c: &mut Criterion) {
    let graphs: Vec<(usize, Vec<Edge>)> = [2_000, 10_000, 20_000, 60_000]
        .into_iter()
        .map(|n| (n, random_edges(n, 5 * n, SEED).expect("n >= 2")))
        .collect();
    sparse_against_reference(c, "maxcut_sparse", &graphs);
}

/// Dense graphs G(n, 0.5), about 8 x 10^3 to 2.5 x 10^5 edges (30x).
fn dense_graphs(c: &mut Criterion) {
    let graphs: Vec<(usize, Vec<Edge>)> = [180, 400, 700, 1000]
        .into_iter()
        .map(|n| (n, gnp_weighted(n, 0.5, SEED).expect("valid p")))
        .collect();
    sparse_against_reference(c, "maxcut_gnp_half", &graphs);
}

/// The density at which the dense kernel overtakes the sparse one: G(n, p) stored sparse
/// and dense (`LowRankMode::Formed`), one sweep each.
fn density(c: &mut Criterion) {
    let mut group = c.benchmark_group("maxcut_density");
    group.sample_size(20);
    for n in [300, 1000, 3000] {
        for p in [0.02, 0.05, 0.1, 0.2, 0.4] {
            let edges = gnp_weighted(n, p, SEED).expect("valid p");
            let problem = Problem::maxcut(n, &edges).expect("valid graph");
            let base = MixingParams::default().seed(SEED);
            let size = format!("n{n}_p{p}");
            for (name, mode) in [
                ("sparse", LowRankMode::Implicit),
                ("dense", LowRankMode::Formed),
            ] {
                let mut mixing = Mixing::new(&problem, &base.clone().low_rank(mode)).expect("ok");
                group.bench_function(BenchmarkId::new(name, &size), |b| {
                    b.iter(|| black_box(mixing.sweep().expect("built-in order")))
                });
            }
        }
    }
    group.finish();
}

fn boolean_qp_low_rank(c: &mut Criterion) {
    let (n, m) = (150, 22_500);
    let g = gaussian(n, m, SEED).expect("small size");
    let qp = BooleanQp::low_rank(g.as_ref()).expect("valid G");
    let problem = qp.homogenized();
    let params = MixingParams::default().seed(SEED);
    let formed = params.clone().low_rank(LowRankMode::Formed);
    let implicit = params.clone().low_rank(LowRankMode::Implicit);
    let mut mixing_formed = Mixing::new(problem, &formed).expect("valid params");
    let mut mixing_implicit = Mixing::new(problem, &implicit).expect("valid params");
    let k = mixing_formed.rank();
    let z: Vec<f64> = (0..n).map(|i| (i % 2) as f64).collect();
    let mut u = vec![0.0; m];

    let mut group = c.benchmark_group("maxcut_bqp_ggt");
    group.sample_size(20);
    let size = format!("n{n}_m{m}_k{k}");
    group.bench_function(BenchmarkId::new("sweep_formed", &size), |b| {
        b.iter(|| black_box(mixing_formed.sweep().expect("built-in order")))
    });
    group.bench_function(BenchmarkId::new("sweep_implicit", &size), |b| {
        b.iter(|| black_box(mixing_implicit.sweep().expect("built-in order")))
    });
    // The one-off price of the formed path: G~ G~^T (151 x 22500 x 151) plus the random
    // start and the initial objective.
    group.bench_function(BenchmarkId::new("setup_formed", &size), |b| {
        b.iter(|| Mixing::new(problem, &formed).map(|mixing| black_box(mixing.objective())))
    });
    // Yardstick: one plain mat-vec G^T z over the same 150 x 22500 data.
    group.bench_function(
        BenchmarkId::new("yardstick_matvec_gtz", format!("n{n}_m{m}")),
        |b| {
            b.iter(|| {
                matmul(
                    MatMut::from_column_major_slice_mut(&mut u, m, 1),
                    Accum::Replace,
                    g.as_ref().transpose(),
                    MatRef::from_column_major_slice(black_box(&z), n, 1),
                    1.0,
                    Par::Seq,
                )
            })
        },
    );
    group.finish();
}

criterion_group!(
    benches,
    dense,
    sparse,
    dense_graphs,
    density,
    boolean_qp_low_rank
);
criterion_main!(benches);
