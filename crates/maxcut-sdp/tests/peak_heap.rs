//! Heap of small builds and fits, counted by an instrumented global
//! allocator. A small fit must not reach faer's large
//! matrix-product path, whose first use on a thread reserves two L3-cache-sized packing
//! buffers (64 MiB on a 32 MiB-L3 machine) held by that thread for good.
//!
//! Each case runs on a fresh thread (the buffers are thread-local), one after the other;
//! the counter is global, so this binary holds this single test.
//! Print the numbers with `cargo test -p maxcut-sdp --test peak_heap -- --nocapture`.

use std::alloc::System;

use faer::Mat;
use maxcut_sdp::synthetic::{gaussian, random_symmetric};
use maxcut_sdp::{BooleanQp, Fit, LowRankMode, MixingParams, Problem};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The bytes allocated (in total, an upper bound on the peak) while `work` runs on a fresh
/// thread, and the bytes still held when it returns (before its thread-local buffers are
/// dropped with the thread).
fn heap_of(work: impl FnOnce() + Send + 'static) -> (usize, isize) {
    std::thread::spawn(move || {
        let region = Region::new(GLOBAL);
        work();
        let stats = region.change();
        let held = stats.bytes_allocated as isize - stats.bytes_deallocated as isize
            + stats.bytes_reallocated;
        (stats.bytes_allocated, held)
    })
    .join()
    .unwrap()
}

/// 4 MiB: far above what these small problems need (a few KiB to a few hundred KiB),
/// far below the 64 MiB of the large-product buffers.
const SMALL_HEAP: usize = 4 << 20;

#[test]
fn small_builds_and_fits_stay_small() {
    // Warm up the allocations made once per process (rayon's pool, faer's global
    // parallelism, the cache-size detection).
    heap_of(|| {
        let problem = Problem::maxcut(3, &[(0, 1, 1.0), (1, 2, 1.0)]).unwrap();
        MixingParams::default().fit(&problem).unwrap();
    });
    rayon::broadcast(|_| ());
    type Case = (&'static str, fn());
    let cases: [Case; 6] = [
        ("BooleanQp::low_rank 20 x 60, fit (C formed)", || {
            let qp = BooleanQp::low_rank(gaussian(20, 60, 1).unwrap().as_ref()).unwrap();
            maxcut_sdp::BqpParams::default().fit(&qp).unwrap();
        }),
        ("Problem::low_rank 30 x 40, fit formed", || {
            let problem = Problem::low_rank(gaussian(30, 40, 2).unwrap().as_ref()).unwrap();
            let params = MixingParams::default().low_rank(LowRankMode::Formed);
            params.fit(&problem).unwrap();
        }),
        ("Problem::low_rank 30 x 5, fit implicit", || {
            let problem = Problem::low_rank(gaussian(30, 5, 3).unwrap().as_ref()).unwrap();
            MixingParams::default().fit(&problem).unwrap();
        }),
        ("Problem::dense 40 x 40, fit", || {
            let problem = Problem::dense(random_symmetric(40, 4).unwrap().as_ref()).unwrap();
            MixingParams::default().fit(&problem).unwrap();
        }),
        ("Problem::low_rank 12 x 8, to_dense + certified fit", || {
            let problem = Problem::low_rank(gaussian(12, 8, 5).unwrap().as_ref()).unwrap();
            let _: Mat<f64> = problem.to_dense().unwrap();
            MixingParams::default().certify(true).fit(&problem).unwrap();
        }),
        ("BooleanQp::low_rank 10 x 30, solve_exact", || {
            let qp = BooleanQp::low_rank(gaussian(10, 30, 6).unwrap().as_ref()).unwrap();
            qp.solve_exact().unwrap();
        }),
    ];
    let mut report = Vec::new();
    for (case, work) in cases {
        let (allocated, held) = heap_of(work);
        eprintln!("{case}: allocated {allocated} bytes, held at the end {held} bytes");
        report.push((case, allocated));
    }
    for (case, allocated) in report {
        assert!(
            allocated <= SMALL_HEAP,
            "{case}: {allocated} bytes allocated"
        );
    }
}
