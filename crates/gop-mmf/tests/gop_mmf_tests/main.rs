//! The integration tests of `gop-mmf`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod arrangement;
mod certificate;
mod custom_lp_backend;
mod deserialized;
mod doc_claims;
mod hostile_calls;
mod hostile_growth;
mod hostile_params;
mod observed_fit;
mod paper_invariants;
mod predict;
mod primal_kkt;
mod table1_paper_scale;
mod termination;
