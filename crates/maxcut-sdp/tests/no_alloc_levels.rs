//! The level-by-level sparse sweep allocates nothing, also when its levels are split
//! between threads: counted by an instrumented global allocator. The counts are process-wide,
//! so this binary runs without libtest's harness (`harness = false`): no harness thread
//! allocates during a count.

use std::alloc::System;

use maxcut_sdp::params::SparseSweep;
use maxcut_sdp::synthetic::random_edges;
use maxcut_sdp::{LowRankMode, Mixing, MixingParams, ParamGuard, Problem};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    level_sweeps_do_not_allocate();
    println!("no_alloc_levels: level_sweeps_do_not_allocate: ok");
}

fn level_sweeps_do_not_allocate() {
    // Levels large enough to be split twice at this rank (checked by the unit test
    // `the_threaded_test_graph_splits`).
    let problem = Problem::maxcut(3000, &random_edges(3000, 15_000, 7).unwrap()).unwrap();
    let base = MixingParams::default()
        .rank(160)
        .low_rank(LowRankMode::Implicit);
    let gather_f32 = base.clone().sparse_sweep(SparseSweep::LevelsF32Gather);
    for (params, threads) in [(&base, 1), (&base, 2), (&base, 4), (&gather_f32, 2)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut mixing = Mixing::new(&problem, params).unwrap();
            assert!(mixing.levels().is_some());
            mixing.sweep().unwrap();
            // Every worker up and running before counting.
            rayon::broadcast(|_| ());
            let region = Region::new(GLOBAL);
            for _ in 0..3 {
                assert!(mixing.sweep().is_ok());
            }
            let stats = region.change();
            assert_eq!(
                (stats.allocations, stats.reallocations),
                (0, 0),
                "{threads} threads, {:?}",
                params.check().unwrap().sparse_sweep()
            );
        });
    }
    // The counter does see allocations (the check above can fail).
    let region = Region::new(GLOBAL);
    let v = std::hint::black_box(vec![1u8; 64]);
    assert!(region.change().allocations >= 1);
    drop(v);
}
