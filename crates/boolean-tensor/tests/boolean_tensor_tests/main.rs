//! The integration tests of `boolean-tensor`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod baselines;
mod bmp;
mod common;
mod custom_qp;
mod doc_contracts;
mod errors;
mod hostile_calls;
mod hostile_sizes;
mod metrics;
mod observed_fit;
mod predict;
mod reports;
mod tensor;
