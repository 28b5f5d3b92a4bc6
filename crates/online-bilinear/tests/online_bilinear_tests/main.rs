//! The integration tests of `online-bilinear`, one module per file, linked into one test binary
//! (one link step instead of one per file). Files that install a counting global allocator
//! stay binaries of their own beside this folder: an allocator is per process.

mod attribute_data;
mod common;
mod crf;
mod custom_learner;
mod deserialized;
mod distributed;
mod doc_claims;
mod hostile_calls;
mod hostile_sizes;
mod learners;
mod metrics;
mod observed_fit;
mod rank_one;
mod readers;
mod readings;
mod saved_model;
mod templates;
mod transitions_only;
mod viterbi;
