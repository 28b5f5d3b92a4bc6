//! The registry of paper experiments: one module per experiment.
//!
//! # Adding an experiment
//!
//! Write `xtask/src/experiments/<id_with_underscores>.rs` with a `run` function and a
//! constant [`Experiment`] naming it, then register it with two lines here: a `mod` line
//! and an entry in [`registry`]. For example, for `sblr-table1`:
//!
//! ```text
//! mod sblr_table1;                                  // next to the other `mod` lines
//! sblr_table1::EXPERIMENT,                          // inside `registry()`
//! ```
//!
//! A minimal experiment module:
//!
//! ```
//! use xtask::experiments::{Ctx, Experiment, Series};
//!
//! /// [Paper, Table N] what it reproduces.
//! pub const EXPERIMENT: Experiment = Experiment {
//!     id: "my-table",
//!     title: "[Paper Table N] what it shows",
//!     run,
//! };
//!
//! fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
//!     let n = ctx.scale().pick(10, 100, 1000);
//!     let rows: Vec<Vec<f64>> = (1..=n).map(|i| vec![i as f64, 1.0 / i as f64]).collect();
//!     ctx.write_csv("curve", &["i", "value"], &rows)?;
//!     ctx.figure("final_value", 1.0 / n as f64);
//!     // A claim is a check that can fail, computed from the run's numbers.
//!     let decreases = rows.windows(2).all(|w| w[1][1] < w[0][1]);
//!     ctx.claim("the value decreases", decreases, format!("from 1 to {}", 1.0 / n as f64));
//!     ctx.md("Our numbers beside the paper's:");
//!     Ok(())
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

pub use crate::ctx::Ctx;
pub use crate::plot::{Heatmap, Series};
pub use crate::report::{Claim, Scale, VsRow, format_number};

/// A reproducible experiment: one table or figure of a paper.
///
/// `run` computes, then records its results through the [`Ctx`]: CSV files, plots,
/// headline figures, the paper's claims checked on this run, and markdown for the
/// report (our numbers beside the paper's, in the paper's layout). It returns an error
/// only when the experiment could not run; a claim that does not hold is a result.
#[derive(Clone, Copy, Debug)]
pub struct Experiment {
    /// Stable ID used on the command line and as the output folder, e.g. `sblr-table1`.
    pub id: &'static str,
    /// One-line title, e.g. `[SBLR Table 1] Alg. 1 vs Alg. 2 time and iterations`.
    pub title: &'static str,
    /// Runs the experiment at `ctx.scale()` with `ctx.seed()`.
    pub run: fn(&mut Ctx) -> anyhow::Result<()>,
}

impl Experiment {
    /// The experiment's ID.
    #[must_use]
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The experiment's one-line title.
    #[must_use]
    pub fn title(&self) -> &'static str {
        self.title
    }

    /// Runs the experiment.
    ///
    /// # Errors
    /// Whatever stopped the experiment (missing data, a solver error, ...).
    pub fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        (self.run)(ctx)
    }
}

/// The least-squares slope of `y` against `x` over `points` (`(x, y)`; NaN or infinite
/// with fewer than two distinct `x`).
fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

/// Every registered experiment, in the order `cargo xtask reproduce` runs them.
pub fn registry() -> Vec<Experiment> {
    vec![
        sblr_table1::EXPERIMENT,
        sblr_fig3::EXPERIMENT,
        sblr_table2::EXPERIMENT,
        sblr_table3::EXPERIMENT,
        sblr_table4::EXPERIMENT,
        sblr_table5::EXPERIMENT,
        maxcut_quality::EXPERIMENT,
        gop_example::EXPERIMENT,
        gop_fig3::EXPERIMENT,
        gop_table1::EXPERIMENT,
        bol_table1::EXPERIMENT,
        bol_fig1::EXPERIMENT,
        bol_fig2::EXPERIMENT,
        bol_fig3::EXPERIMENT,
        bmp_fig1::EXPERIMENT,
        bmp_fig2::EXPERIMENT,
        bmp_fig4::EXPERIMENT,
    ]
}
