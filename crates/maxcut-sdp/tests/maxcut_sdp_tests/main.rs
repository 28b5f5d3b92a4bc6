//! The integration tests of `maxcut-sdp`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod boolean_qp;
mod common;
mod conformance;
mod custom_bqp_solver;
mod custom_sweep_order;
mod errors;
mod exact;
mod hostile_sizes;
mod level_sweep;
mod mixing;
mod observed_fit;
mod rounding;
mod synthetic;
