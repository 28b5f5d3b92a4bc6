//! A sweep allocates nothing, and neither does an iteration of an untraced fit: counted by
//! an instrumented global allocator. The counts are process-wide, so this
//! binary runs without libtest's harness (`harness = false`): no harness thread allocates
//! during a count.

use std::alloc::System;

use faer::Mat;
use std::sync::Arc;

use maxcut_sdp::{
    Cyclic, Fit, Fitted, LowRankMode, Mixing, MixingParams, Problem, RandomPermutation, SweepOrder,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    sweeps_do_not_allocate();
    println!("no_alloc: sweeps_do_not_allocate: ok");
}

fn sweeps_do_not_allocate() {
    let n = 120;
    // Large enough for the blocked dense sweep to use full-size matrix products.
    let big = 700;
    let dense = Mat::from_fn(big, big, |i, j| ((i * 7 + j * 7) % 11) as f64 - 5.0);
    let edges: Vec<_> = (0..n)
        .map(|i| (i, (i * 13 + 5) % n, 1.0 + i as f64))
        .collect();
    let g = Mat::from_fn(n, 300, |i, l| ((i * 31 + l * 17) % 23) as f64 - 11.0);
    let wide = Problem::low_rank(g.as_ref()).unwrap();
    // Long rows of G, as in the Boolean tensor atom search.
    let long = Mat::from_fn(40, 8000, |i, l| ((i * 31 + l * 17) % 23) as f64 - 11.0);
    let long = Problem::low_rank(long.as_ref()).unwrap();
    let cases = [
        (long, LowRankMode::Implicit),
        (Problem::dense(dense.as_ref()).unwrap(), LowRankMode::Auto),
        (Problem::maxcut(n, &edges).unwrap(), LowRankMode::Auto),
        (wide.clone(), LowRankMode::Implicit),
        (wide, LowRankMode::Formed),
    ];
    for (problem, mode) in &cases {
        let orders: [Arc<dyn SweepOrder>; 2] = [Arc::new(Cyclic), Arc::new(RandomPermutation)];
        for order in orders {
            let params = MixingParams::default()
                .low_rank(*mode)
                .order(Arc::clone(&order));
            let mut mixing = Mixing::new(problem, &params).unwrap();
            mixing.sweep().unwrap();
            // `Mixing::new` may start the rayon pool (the initial `W` uses faer's global
            // parallelism); its workers allocate while they start up, asynchronously.
            // Run one job on every worker so that they are all up before counting (on a
            // loaded machine the race showed up as 2 allocations in about 1 run in 13).
            rayon::broadcast(|_| ());
            let region = Region::new(GLOBAL);
            for _ in 0..3 {
                let gain = mixing.sweep();
                assert!(gain.is_ok());
            }
            let stats = region.change();
            assert_eq!(
                (stats.allocations, stats.reallocations),
                (0, 0),
                "{:?} {order:?}",
                mixing.form()
            );
        }
    }
    // A fit with the trace off allocates nothing per iteration: an observer reads the
    // allocation counter after every sweep (the engine, the sweep and the change measure
    // run between two calls). With the trace on, every iteration allocates its record.
    let problem = Problem::dense(dense.as_ref()).unwrap();
    for trace in [false, true] {
        let mut counts = Vec::with_capacity(64);
        let mut count = |_: &bl_core::engine::IterationView<'_>| {
            counts.push(GLOBAL.stats().allocations);
        };
        let fitted = MixingParams::default()
            .tol(0.0)
            .max_iter(12)
            .trace(trace)
            .fit_observed(&problem, &mut [&mut count])
            .unwrap();
        assert_eq!(fitted.report().iterations, 12);
        // The observer saw every sweep (else the checks below would pass on no data).
        assert_eq!(counts.len(), 12);
        let per_iteration: Vec<usize> = counts.windows(2).map(|w| w[1] - w[0]).collect();
        if trace {
            assert!(per_iteration.iter().all(|&a| a >= 1), "{per_iteration:?}");
        } else {
            assert!(per_iteration.iter().all(|&a| a == 0), "{per_iteration:?}");
        }
    }
    // The counter does see allocations (the check above can fail).
    let region = Region::new(GLOBAL);
    let v = std::hint::black_box(vec![1u8; 64]);
    assert!(region.change().allocations >= 1);
    drop(v);
}
