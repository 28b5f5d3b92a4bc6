//! The integration tests of `bl-core`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod data;
mod doc_claims;
mod engine;
mod hostile_messages;
mod linalg;
mod logistic;
mod metrics;
mod prox;
mod random;
mod readers;
