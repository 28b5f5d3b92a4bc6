//! The integration tests of `xtask`, one module per file, linked into one test binary (one
//! link step instead of one per file).

mod data;
mod harness;
