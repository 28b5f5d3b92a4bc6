//! The engine allocates nothing per iteration when tracing is off (its own process without
//! libtest's harness, `harness = false`: the counting allocator is global).

use std::alloc::System;

use bl_core::engine::{IterationView, Progress, run};
use bl_core::{BlError, IterationParams};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn allocations_of(rule: &IterationParams) -> usize {
    let mut sum = 0.0;
    let mut observer = |v: &IterationView<'_>| sum += v.extras.iter().map(|e| e.1).sum::<f64>();
    let region = Region::new(GLOBAL);
    let report = run(rule, &mut [&mut observer], |k| {
        let x = k as f64;
        Ok::<_, BlError>(
            Progress::new(1.0 / x, 1.0)
                .with("step", x)
                .with("residual", 2.0 * x)
                .with("gap", 3.0 * x),
        )
    })
    .unwrap();
    let allocations = region.change().allocations;
    assert_eq!(report.iterations, rule.max_iter);
    assert!(sum > 0.0);
    allocations
}

fn main() {
    an_untraced_run_allocates_nothing_and_a_traced_one_allocates_per_iteration();
    println!(
        "allocations: an_untraced_run_allocates_nothing_and_a_traced_one_allocates_per_iteration: ok"
    );
}

fn an_untraced_run_allocates_nothing_and_a_traced_one_allocates_per_iteration() {
    assert_eq!(
        allocations_of(&IterationParams::new(1_000, 0.0).untraced()),
        0
    );
    // The same run traced allocates (a record and its extras per iteration): the counter
    // sees allocations, so the zero above is not an artefact of the measurement.
    assert!(allocations_of(&IterationParams::new(1_000, 0.0)) >= 1_000);
}
