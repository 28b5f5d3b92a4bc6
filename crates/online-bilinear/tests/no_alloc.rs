//! bol's update allocates nothing once its blocks exist: `Theta += D`, the warm-started power
//! steps and the (averaged) `alpha`, `beta` all work in place. Counted by an instrumented
//! global allocator; this binary holds a single test so that no other test allocates
//! concurrently.

use std::alloc::System;

use online_bilinear::{BlockRankOne, BlockUpdate};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn updates_of_existing_blocks_do_not_allocate() {
    let (n_blocks, l, p) = (50_usize, 4, 5);
    for average in [false, true] {
        let mut state = BlockRankOne::new(n_blocks, l, p, average).unwrap();
        let mut d = BlockUpdate::new(l, p);
        let touched: Vec<u32> = (0..n_blocks as u32).step_by(3).collect();
        // Build D: the first round allocates D's buffers and Theta's blocks.
        let fill = |d: &mut BlockUpdate, round: usize| {
            d.clear();
            for (i, &k) in touched.iter().enumerate() {
                let sign = if (i + round).is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
                d.add(k, (i + round) % l, (2 * i + round) % p, sign);
                d.add(k, (i + 1) % l, i % p, 0.5 * sign);
            }
        };
        fill(&mut d, 0);
        state.update(&d, 4).unwrap();
        state.record_step();
        let region = Region::new(GLOBAL);
        for round in 1..20 {
            fill(&mut d, round);
            state.update(&d, 4).unwrap();
            state.record_step();
        }
        let stats = region.change();
        assert_eq!(
            (stats.allocations, stats.reallocations),
            (0, 0),
            "averaging {average}: {stats:?}"
        );
        // The state did move: the updates were not no-ops.
        assert!(state.sigmas().iter().any(|&s| s > 0.0));
    }
}
