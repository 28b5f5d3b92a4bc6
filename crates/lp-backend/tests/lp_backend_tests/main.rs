//! The integration tests of `lp-backend`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod conformance;
mod doc_claims;
mod hostile_sizes;
