//! The worker threads of one fit: rayon's global pool, or a pool of `threads` workers
//! built once per fit (the `threads` knob of [`IterationParams`]).
//!
//! [`IterationParams::install`] builds a pool per call; a fit installs every sweep, so it
//! builds the pool once here and installs each piece of parallel work on it, while the
//! engine's loop and the observers stay on the calling thread.

use bl_core::IterationParams;

use crate::error::Result;

/// Where the parallel work of one fit runs.
#[derive(Debug)]
pub(crate) enum Workers {
    /// Rayon's global pool (`threads = None`): work runs on the calling thread, which
    /// spreads it over the global pool.
    Global,
    /// A pool of its own (`threads = Some(n)`).
    Own(rayon::ThreadPool),
}

impl Workers {
    /// The workers `iteration.threads` asks for.
    ///
    /// # Errors
    /// An invalid thread count, or a pool that cannot be built.
    pub(crate) fn new(iteration: &IterationParams) -> Result<Self> {
        match iteration.threads {
            None => Ok(Self::Global),
            Some(n) => {
                bl_core::limits::threads("threads", n)?;
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| {
                        bl_core::error::build::numerical::<crate::MaxcutError>(
                            "thread pool",
                            e.to_string(),
                        )
                    })?;
                Ok(Self::Own(pool))
            }
        }
    }

    /// Runs `work` on these workers.
    pub(crate) fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        match self {
            Self::Global => work(),
            Self::Own(pool) => pool.install(work),
        }
    }
}
