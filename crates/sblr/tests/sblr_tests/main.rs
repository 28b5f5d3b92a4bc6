//! The integration tests of `sblr`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod bad_input;
mod baselines_multiclass;
mod binary;
mod block_conformance;
#[path = "../common/mod.rs"]
mod common;
mod custom_block_update;
mod deserialized;
mod distributed;
mod doc_claims;
mod fuzz_regressions;
mod hostile_calls;
mod hostile_sizes;
mod linear_f32;
mod linear_termination;
mod observed_fit;
mod ova_threads;
mod passes;
mod passes_threads;
mod precision;
mod presets;
mod saved_models;
mod step_rule_and_cv;
mod stopping;
mod streaming;
