//! Shared by the allocation-counting test binaries (`no_alloc.rs`, `features_alloc.rs`),
//! each of which installs its own counting allocator.

use std::alloc::System;

use stats_alloc::{Region, StatsAlloc};

/// The counts of a binary can fail: one allocation made on purpose through `global` is
/// counted (a counter stuck at zero would pass every no-allocation check).
pub fn the_counter_sees_an_allocation(global: &'static StatsAlloc<System>) {
    let region = Region::new(global);
    let buffer = std::hint::black_box(vec![1u8; 1000]);
    let stats = region.change();
    drop(buffer);
    assert!(
        stats.allocations >= 1 && stats.bytes_allocated >= 1000,
        "the allocator does not count: {stats:?}"
    );
}
