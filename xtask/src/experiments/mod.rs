//! The registry of paper experiments: one module per experiment.
//!
//! # Adding an experiment
//!
//! Write `xtask/src/experiments/<id_with_underscores>.rs` with a unit struct that
//! implements [`Experiment`], then register it with two lines here: a `mod` line and
//! a `Box::new(...)` entry in [`registry`]. For example, for `sblr-table1`:
//!
//! ```text
//! mod sblr_table1;                                  // next to the other `mod` lines
//! Box::new(sblr_table1::SblrTable1),                // inside `registry()`
//! ```
//!
//! A minimal experiment module:
//!
//! ```
//! use xtask::experiments::{Ctx, Experiment, Series};
//!
//! /// [Paper, Table N] what it reproduces.
//! pub struct MyTable;
//!
//! impl Experiment for MyTable {
//!     fn id(&self) -> &'static str { "my-table" }
//!     fn title(&self) -> &'static str { "[Paper Table N] what it shows" }
//!     fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
//!         let n = ctx.scale().pick(10, 100, 1000);
//!         let rows: Vec<Vec<f64>> = (1..=n).map(|i| vec![i as f64, 1.0 / i as f64]).collect();
//!         ctx.write_csv("curve", &["i", "value"], &rows)?;
//!         ctx.figure("final_value", 1.0 / n as f64);
//!         ctx.claim("the value decreases", true, format!("from 1 to {}", 1.0 / n as f64));
//!         ctx.md("Our numbers beside the paper's:");
//!         Ok(())
//!     }
//! }
//! # let _ = Series::new("unused", vec![]);
//! ```
//!
//! See `docs/reproduction.md` for the contract the outputs follow.

mod bmp_common;
mod bmp_fig1;
mod bmp_fig2;
mod bmp_fig4;
mod bol_common;
mod bol_fig1;
mod bol_fig2;
mod bol_fig3;
mod bol_table1;
mod gop_example;
mod gop_fig3;
mod gop_table1;
mod maxcut_quality;
mod sblr_common;
mod sblr_fig3;
mod sblr_table1;
mod sblr_table2;
mod sblr_table3;
mod sblr_table4;
mod sblr_table5;

pub use crate::reproduce::{Claim, Ctx, Scale, Series, VsRow, format_number};

/// A reproducible experiment: one table or figure of a paper.
///
/// `run` computes, then records its results through the [`Ctx`]: CSV files, plots,
/// headline figures, the paper's claims checked on this run, and markdown for the
/// report (our numbers beside the paper's, in the paper's layout). Return an error
/// only when the experiment could not run; a claim that does not hold is a result.
pub trait Experiment {
    /// Stable ID used on the command line and as the output folder, e.g. `sblr-table1`.
    fn id(&self) -> &'static str;
    /// One-line title, e.g. `[SBLR Table 1] Alg. 1 vs Alg. 2 time and iterations`.
    fn title(&self) -> &'static str;
    /// Runs the experiment at `ctx.scale()` with `ctx.seed()`.
    ///
    /// # Errors
    /// Whatever stopped the experiment (missing data, a solver error, ...).
    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()>;
}

/// Every registered experiment, in the order `cargo xtask reproduce` runs them.
pub fn registry() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(sblr_table1::SblrTable1),
        Box::new(sblr_fig3::SblrFig3),
        Box::new(sblr_table2::SblrTable2),
        Box::new(sblr_table3::SblrTable3),
        Box::new(sblr_table4::SblrTable4),
        Box::new(sblr_table5::SblrTable5),
        Box::new(maxcut_quality::MaxcutQuality),
        Box::new(gop_example::GopExample),
        Box::new(gop_fig3::GopFig3),
        Box::new(gop_table1::GopTable1),
        Box::new(bol_table1::BolTable1),
        Box::new(bol_fig1::BolFig1),
        Box::new(bol_fig2::BolFig2),
        Box::new(bol_fig3::BolFig3),
        Box::new(bmp_fig1::BmpFig1),
        Box::new(bmp_fig2::BmpFig2),
        Box::new(bmp_fig4::BmpFig4),
    ]
}
