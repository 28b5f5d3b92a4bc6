//! Hot paths of `bl-core`, each beside a physical yardstick over the same data:
//! the elastic-net prox step over 1e6 entries beside a plain copy of the slice, and power
//! iteration beside one dense mat-vec of the same matrix.

use std::hint::black_box;

use bl_core::linalg::{LinearOperator, PowerIterationParams, power_iteration};
use bl_core::prox::elastic_net_prox_step;
use bl_core::random::{fill_standard_normal, seeded_rng, standard_normal_mat};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn prox(c: &mut Criterion) {
    let n = 1_000_000;
    let mut rng = seeded_rng(0);
    let mut z = vec![0.0; n];
    let mut g = vec![0.0; n];
    fill_standard_normal(&mut rng, &mut z);
    fill_standard_normal(&mut rng, &mut g);
    let mut out = vec![0.0; n];
    let mut group = c.benchmark_group("prox");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::new("elastic_net_prox_step", n), |b| {
        b.iter(|| elastic_net_prox_step(black_box(&z), black_box(&g), 2.0, 0.1, 0.5, &mut out))
    });
    // Yardstick: the step reads two slices and writes one; a copy reads one and writes one.
    group.bench_function(BenchmarkId::new("yardstick_copy", n), |b| {
        b.iter(|| out.copy_from_slice(black_box(&z)))
    });
    group.finish();
}

fn power(c: &mut Criterion) {
    let mut group = c.benchmark_group("power_iteration");
    for &n in &[200usize, 1000] {
        let mut rng = seeded_rng(1);
        let a = standard_normal_mat(&mut rng, n, n).expect("a small matrix");
        let params = PowerIterationParams {
            max_iter: 50,
            tol: 1e-300_f64.max(f64::MIN_POSITIVE),
            seed: 2,
        };
        // 50 iterations = 100 mat-vecs (A and A^T): compare with the yardstick x 100.
        group.bench_function(BenchmarkId::new("50_iterations", n), |b| {
            b.iter(|| power_iteration(&a.as_ref(), None, black_box(&params)))
        });
        let x = vec![1.0; n];
        let mut y = vec![0.0; n];
        group.bench_function(BenchmarkId::new("yardstick_one_matvec", n), |b| {
            b.iter(|| a.as_ref().apply(black_box(&x), &mut y))
        });
    }
    group.finish();
}

criterion_group!(benches, prox, power);
criterion_main!(benches);
