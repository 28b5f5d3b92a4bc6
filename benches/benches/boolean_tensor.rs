//! Hot paths of `boolean-tensor` at the paper's size (150 x 150 x 150):
//!
//! - `atom_search`: one BMP atom search along one mode (unfold the residual, the Boolean
//!   QP `max ||R_(n)^T z||^2` through maxcut-sdp, the singular-pair / exact-`z`
//!   alternation), and BMP's first step (the three modes' searches in parallel, the
//!   choice, the fully corrective solve);
//! - `fully_corrective`: the coefficient solve for 15 atoms without and with a mask
//!   (10% missing);
//! - yardsticks: one full streaming pass over the tensor (sum of squares) and one
//!   mode-1 unfolding copy, so the bench shows how many passes an atom search costs.
//!
//! - `cp_als`: CP-ALS (rank 15) at `d^3` for d = 45, 70, 100, 150 (37x in entries): a fit of 1 sweep and of 11 sweeps from the HOSVD start (one
//!   start, `tol = 0`), so one sweep costs `(sweeps_11 - sweeps_1) / 10`; the start
//!   alone (`hosvd_start`); yardstick: one streaming pass over the tensor. tensorly and the
//!   previous kernel are timed beside ours by `benches/probes/tensor_tensorly_cp.py`.
//!   Threads: run once with `RAYON_NUM_THREADS=1` and once with `RAYON_NUM_THREADS=2`.
//!
//! Inputs: Syn2-like data (K = 15 atoms, noise N(0, 1)), seeded, built outside the timed
//! closures.
//!
//! On a shared machine run it with `RAYON_NUM_THREADS=1`: the QP's parallel rounding
//! trials otherwise wait on busy cores and the atom search time follows the load.

use std::hint::black_box;

use boolean_tensor::{
    Bmp, CpAls, Fit, MixingQp, SyntheticParams, fully_corrective_coefficients, hosvd_start,
    search_atom,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const SEED: u64 = 2018;
const D: usize = 150;

/// Syn2-like parameters at `d^3`: 15 atoms, noise N(0, 1), seeded.
fn syn2(d: usize) -> SyntheticParams {
    SyntheticParams::default()
        .shape([d, d, d])
        .n_atoms(15)
        .noise_std(1.0)
        .seed(SEED)
}

fn atom_search(c: &mut Criterion) {
    let data = syn2(D).generate().expect("valid synthetic parameters");
    let x = data.observed();
    let solver = MixingQp::default();
    let size = format!("{D}x{D}x{D}");
    let mut group = c.benchmark_group("boolean_tensor_atom_search");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("one_mode", &size), |b| {
        b.iter(|| black_box(search_atom(x, 0, &solver, 10, SEED).expect("search")))
    });
    // One BMP step: the three modes' searches (rayon), the choice and the fully
    // corrective solve, without refit sweeps.
    let one_step = Bmp::params().max_iter(1).refit_sweeps(0).seed(SEED);
    group.bench_function(BenchmarkId::new("bmp_first_step_three_modes", &size), |b| {
        b.iter(|| black_box(one_step.fit(x).expect("fit")))
    });
    group.bench_function(BenchmarkId::new("yardstick_full_pass", &size), |b| {
        b.iter(|| black_box(x.data().iter().map(|v| v * v).sum::<f64>()))
    });
    group.bench_function(BenchmarkId::new("yardstick_unfold_mode1", &size), |b| {
        b.iter(|| black_box(x.unfold(1).expect("unfold")))
    });
    group.finish();
}

fn fully_corrective(c: &mut Criterion) {
    let params = syn2(D);
    let full = params.generate().expect("valid synthetic parameters");
    let masked = params
        .missing_fraction(0.1)
        .generate()
        .expect("valid synthetic parameters");
    let atoms = full.atoms().to_vec();
    let mut group = c.benchmark_group("boolean_tensor_fully_corrective");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("k15_no_mask", format!("{D}^3")), |b| {
        b.iter(|| black_box(fully_corrective_coefficients(full.observed(), &atoms).expect("solve")))
    });
    group.bench_function(
        BenchmarkId::new("k15_10pct_missing", format!("{D}^3")),
        |b| {
            b.iter(|| {
                black_box(fully_corrective_coefficients(masked.observed(), &atoms).expect("solve"))
            })
        },
    );
    group.finish();
}

fn cp_als(c: &mut Criterion) {
    let rank = 15;
    let mut group = c.benchmark_group("boolean_tensor_cp_als");
    group.sample_size(10);
    for d in [45, 70, 100, 150] {
        let data = syn2(d).generate().expect("valid synthetic parameters");
        let x = data.observed();
        let size = format!("{d}^3");
        for sweeps in [1, 11] {
            let params = CpAls::params()
                .rank(rank)
                .n_starts(1)
                .max_iter(sweeps)
                .tol(0.0);
            group.bench_function(BenchmarkId::new(format!("sweeps_{sweeps}"), &size), |b| {
                b.iter(|| black_box(params.fit(x).expect("fit")))
            });
        }
        group.bench_function(BenchmarkId::new("start", &size), |b| {
            b.iter(|| black_box(hosvd_start(x, rank, SEED).expect("start")))
        });
        group.bench_function(BenchmarkId::new("yardstick_full_pass", &size), |b| {
            b.iter(|| black_box(x.data().iter().map(|v| v * v).sum::<f64>()))
        });
    }
    group.finish();
}

criterion_group!(benches, atom_search, fully_corrective, cp_als);
criterion_main!(benches);
