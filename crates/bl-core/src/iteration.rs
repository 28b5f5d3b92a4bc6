//! The knobs every iterative fit has, in one struct with one meaning everywhere.
//!
//! Every parameter builder of an iterative algorithm embeds an [`IterationParams`] and
//! exposes its fields through the setters that [`iteration_setters!`](crate::iteration_setters)
//! writes; every checked type gives it back through `iteration()` (the `..iteration;`
//! entry of [`knobs!`](crate::params::knobs) writes both, with one doc). The engine
//! ([`crate::engine::run`]) reads `max_iter`, `tol`, `time_limit` and `trace`; the fit
//! reads `threads` (through [`IterationParams::install`]).
//!
//! | knob | meaning | valid range |
//! |---|---|---|
//! | `max_iter` | iteration budget of the outer loop | `>= 1` |
//! | `tol` | stop when the step's change measure is `<= tol` | finite, `>= 0` |
//! | `time_limit` | stop after this wall-clock time (`None`: no limit) | any |
//! | `threads` | worker threads (`None`: the pool the fit is called on, which is rayon's global pool, one thread per core, unless the caller runs inside another pool's `install`; `Some(n)`: a pool of `n` threads of the fit's own, built once per fit, so `Some(1)` runs every parallel step serially) | `1 ..=` [`MAX_THREADS`](crate::limits::MAX_THREADS) |
//! | `trace` | record every iteration in the report's trace (off: no allocation per iteration) | any |
//!
//! Each algorithm chooses its own default budget and tolerance (its paper's); the
//! defaults of the other three knobs are the same for every fit but one: no time limit,
//! all cores, trace on. chain-crf's `CrfParams::new` starts with the trace off (its
//! `FittedCrf::log` holds the per-iteration values); inner solves that a user never sees run
//! untraced ([`IterationParams::untraced`]).
//!
//! ```
//! use std::time::Duration;
//! use bl_core::IterationParams;
//!
//! #[derive(Debug, Clone)]
//! struct RidgeParams { alpha: f64, iteration: IterationParams }
//!
//! impl RidgeParams {
//!     bl_core::iteration_setters!(iteration);
//! }
//!
//! let params = RidgeParams { alpha: 1.0, iteration: IterationParams::new(100, 1e-6) }
//!     .max_iter(20)
//!     .threads(Some(1))
//!     .time_limit(Some(Duration::from_secs(5)));
//! assert_eq!(params.iteration.max_iter, 20);
//! assert_eq!(params.iteration.tol, 1e-6);
//! assert!(params.iteration.check().is_ok());
//! assert!(params.threads(Some(0)).iteration.check().is_err());
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{BlError, Result};

/// Iteration budget, tolerance, time limit, thread count and tracing of one iterative fit.
///
/// The table of the [module documentation](self) gives each knob's meaning and range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IterationParams {
    /// Iteration budget of the outer loop.
    pub max_iter: usize,
    /// Tolerance on the change measure reported by each step.
    pub tol: f64,
    /// Wall-clock limit (`None`: none).
    pub time_limit: Option<Duration>,
    /// Worker threads (`None`: the calling pool, rayon's global pool unless the caller
    /// runs inside another pool's `install`).
    #[serde(default)]
    pub threads: Option<usize>,
    /// Whether the report keeps a trace of every iteration.
    #[serde(default = "trace_on")]
    pub trace: bool,
}

fn trace_on() -> bool {
    true
}

impl Default for IterationParams {
    /// 500 iterations, tolerance 1e-3, no time limit, all cores, trace on.
    fn default() -> Self {
        Self::new(500, 1e-3)
    }
}

impl IterationParams {
    /// This budget and tolerance; no time limit, all cores, trace on.
    #[must_use]
    pub const fn new(max_iter: usize, tol: f64) -> Self {
        Self {
            max_iter,
            tol,
            time_limit: None,
            threads: None,
            trace: true,
        }
    }

    /// The same knobs with tracing off: for inner runs whose report is not kept.
    #[must_use]
    pub const fn untraced(mut self) -> Self {
        self.trace = false;
        self
    }

    /// Checks every knob.
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`] for `max_iter == 0`, `tol` negative or not finite,
    /// or `threads` outside `1 ..=` [`MAX_THREADS`](crate::limits::MAX_THREADS).
    pub fn check(&self) -> Result<()> {
        crate::params::at_least("max_iter", self.max_iter, 1)?;
        crate::params::nonnegative("tol", self.tol)?;
        if let Some(n) = self.threads {
            crate::limits::threads("threads", n)?;
        }
        Ok(())
    }

    /// The worker pool of [`threads`](Self::threads), built once per fit: rayon's global
    /// pool for `None`, a pool of its own otherwise. A fit builds it before its loop and
    /// runs each parallel step with [`Pool::install`] (observers need not be `Send`).
    ///
    /// # Errors
    /// An invalid thread count, or a pool that cannot be built.
    pub fn pool(&self) -> Result<Pool> {
        Pool::new(self.threads)
    }

    /// Runs `work` once on the pool of [`threads`](Self::threads) (see [`pool`](Self::pool)).
    ///
    /// # Errors
    /// An invalid thread count, or a pool that cannot be built.
    pub fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> Result<R> {
        Ok(self.pool()?.install(work))
    }
}

/// The worker threads of one fit: the pool it is called on (rayon's global pool unless
/// the caller runs inside another pool's `install`), or a pool of its own.
#[derive(Debug)]
pub struct Pool(Option<rayon::ThreadPool>);

impl Pool {
    /// The pool of `threads` threads: for `None`, the pool the work is called on (rayon's
    /// global pool unless the caller is inside another pool's `install`); for `Some(n)`,
    /// a pool of its own.
    ///
    /// # Errors
    /// A thread count outside `1 ..=` [`MAX_THREADS`](crate::limits::MAX_THREADS), or a
    /// pool that cannot be built.
    pub fn new(threads: Option<usize>) -> Result<Self> {
        match threads {
            None => Ok(Self(None)),
            Some(n) => {
                crate::limits::threads("threads", n)?;
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map(|pool| Self(Some(pool)))
                    .map_err(|e| BlError::Numerical {
                        context: "thread pool",
                        message: e.to_string(),
                    })
            }
        }
    }

    /// Runs `work` on this pool's threads.
    pub fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        match &self.0 {
            None => work(),
            Some(pool) => pool.install(work),
        }
    }

    /// The number of threads `install` runs on.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.0.as_ref().map_or_else(
            rayon::current_num_threads,
            rayon::ThreadPool::current_num_threads,
        )
    }
}

/// Builder setters for the [`IterationParams`] embedded in a parameter builder's field
/// `$field`: `max_iter(usize)`, `tol(f64)`, `time_limit(Option<Duration>)`,
/// `threads(Option<usize>)`, `trace(bool)` and `iteration(IterationParams)`. Used inside
/// an `impl` block; see the [module documentation](crate::iteration). Doc lines before
/// `$field` document `iteration(IterationParams)` (default: "Sets all iteration knobs at
/// once."); the `..iteration;` entry of [`knobs!`](crate::params::knobs) passes its doc
/// this way, so the setter and the checked type's getter `iteration()` share it.
#[macro_export]
macro_rules! iteration_setters {
    ($field:ident) => {
        $crate::iteration_setters! {
            /// Sets all iteration knobs at once.
            $field
        }
    };
    ($(#[$attr:meta])+ $field:ident) => {
        $crate::iteration_setters! {
            @knobs $field;
            /// Sets the iteration budget of the outer loop (`>= 1`).
            max_iter: usize;
            /// Sets the tolerance on the change measure (finite, `>= 0`).
            tol: f64;
            /// Sets the wall-clock limit (`None`: none).
            time_limit: Option<std::time::Duration>;
            /// Sets the worker threads (`None`: the calling pool, rayon's global pool of
            /// one thread per core unless the caller is inside another pool's `install`;
            /// `Some(n)`: `1 ..= 1024`).
            threads: Option<usize>;
            /// Sets whether the report keeps a trace of every iteration (off: no
            /// allocation per iteration).
            trace: bool;
        }

        $(#[$attr])*
        #[must_use]
        pub fn iteration(mut self, iteration: $crate::IterationParams) -> Self {
            self.$field = iteration;
            self
        }
    };
    (@knobs $field:ident; $($(#[$attr:meta])* $knob:ident: $ty:ty;)*) => {
        $(
            $(#[$attr])*
            #[must_use]
            pub fn $knob(mut self, $knob: $ty) -> Self {
                self.$field.$knob = $knob;
                self
            }
        )*
    };
}

#[cfg(test)]
mod tests {
    use super::IterationParams;

    #[test]
    fn install_runs_on_the_requested_number_of_threads() {
        let with_threads = |threads| IterationParams {
            threads: Some(threads),
            ..IterationParams::new(1, 0.0)
        };
        for threads in [1, 3] {
            let n = with_threads(threads)
                .install(rayon::current_num_threads)
                .unwrap();
            assert_eq!(n, threads);
        }
        assert!(with_threads(0).install(|| ()).is_err());
    }

    #[test]
    fn check_names_the_knob() {
        let bad = IterationParams::new(0, 1.0).check().unwrap_err();
        assert!(bad.to_string().contains("max_iter"), "{bad}");
        let bad = IterationParams::new(1, f64::NAN).check().unwrap_err();
        assert!(bad.to_string().contains("tol"), "{bad}");
        let bad = IterationParams {
            threads: Some(2000),
            ..IterationParams::default()
        }
        .check()
        .unwrap_err();
        assert!(bad.to_string().contains("threads"), "{bad}");
    }
}
