//! Runs one reader call under a time limit, a panic catcher and the counting allocator.
//!
//! Shared by the regression tests of hand-made hostile files and the mutation suite of
//! `tests/hostile.rs`. The test binary installs `stats_alloc` as its global allocator;
//! calls are serialized by a mutex so that the allocation counts of one call are not
//! mixed with those of another test running at the same time.

use std::alloc::System;
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Serializes the measured calls of every test of this binary.
static MEASURE: Mutex<()> = Mutex::new(());

/// The limits every reader call must meet.
pub const TIME_LIMIT: Duration = Duration::from_millis(100);
/// No call of the mutation suite may request more than this many bytes in total.
pub const ALLOC_LIMIT: usize = 64 << 20;
/// A call still running after this long is reported as a hang (and left running).
const HANG_LIMIT: Duration = Duration::from_secs(5);

/// What one guarded call did.
#[derive(Debug)]
pub struct Measured<T> {
    /// The call's return value.
    pub value: T,
    /// Wall time of the fastest of the runs (a slow run is repeated, see [`guarded`]).
    pub elapsed: Duration,
    /// Bytes requested from the allocator during the call (reallocations count their
    /// growth), an upper bound on its peak memory.
    pub allocated: usize,
}

/// Runs `f` once on a fresh thread while counting allocations.
///
/// # Errors
/// A message when `f` panics or runs longer than the hang limit.
fn run_once<T, F>(f: &F) -> Result<Measured<T>, String>
where
    T: Send + 'static,
    F: Fn() -> T + Send + Sync + Clone + 'static,
{
    let _serial = MEASURE.lock().unwrap_or_else(|p| p.into_inner());
    let (tx, rx) = mpsc::channel();
    let f = f.clone();
    std::thread::spawn(move || {
        let region = Region::new(GLOBAL);
        let start = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&f));
        let elapsed = start.elapsed();
        let allocated = region.change().bytes_allocated;
        let _ = tx.send(result.map(|value| Measured {
            value,
            elapsed,
            allocated,
        }));
    });
    match rx.recv_timeout(HANG_LIMIT) {
        Ok(Ok(measured)) => Ok(measured),
        Ok(Err(panic)) => Err(format!("panicked: {}", panic_text(&panic))),
        Err(_) => Err(format!("still running after {HANG_LIMIT:?} (hang)")),
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    bl_core::error::panic_message(panic.as_ref())
        .unwrap_or("(non-string payload)")
        .to_string()
}

/// Runs `f` under the guards and checks the limits: no panic, no hang, at most
/// [`TIME_LIMIT`] of wall time and at most `alloc_limit` bytes requested.
///
/// A call over the time limit is run twice more and the fastest run counts, so that a
/// busy machine (other builds on the two cores) does not fail the test: a truly slow
/// input is slow every time.
///
/// # Errors
/// A message naming the broken limit.
pub fn guarded<T, F>(alloc_limit: usize, f: F) -> Result<Measured<T>, String>
where
    T: Send + 'static,
    F: Fn() -> T + Send + Sync + Clone + 'static,
{
    let mut best = run_once(&f)?;
    for _ in 0..2 {
        if best.elapsed <= TIME_LIMIT {
            break;
        }
        let again = run_once(&f)?;
        if again.elapsed < best.elapsed {
            best = again;
        }
    }
    if best.elapsed > TIME_LIMIT {
        return Err(format!("took {:?} (limit {TIME_LIMIT:?})", best.elapsed));
    }
    if best.allocated > alloc_limit {
        return Err(format!(
            "requested {} bytes (limit {alloc_limit})",
            best.allocated
        ));
    }
    Ok(best)
}
