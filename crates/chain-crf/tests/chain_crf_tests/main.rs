//! The integration tests of `chain-crf`, one module per file, linked into one test binary
//! (one link step instead of one per file).

mod common;
mod doc_claims;
mod l2sgd;
mod lbfgs_termination;
mod model;
mod online_trainers;
mod predict;
