//! The reproduction harness: runs experiments, times them, survives their errors and
//! panics, and writes the outputs described in `docs/reproduction.md`:
//!
//! ```text
//! DIR/index.md            every experiment that ran: status, claims hold / fail /
//!                         inconclusive, time
//! DIR/ID/report.md        the experiment's markdown, claims, figures, files
//! DIR/ID/summary.json     {"id","scale","seed","elapsed_s","figures","claims"}
//! DIR/ID/*.csv, *.svg     raw numbers and plots
//! ```
//!
//! An experiment receives a [`Ctx`] (see [`crate::ctx`]); the report's parts are in
//! [`crate::report`]. A claim that does not hold is a result, not a failure; only an `Err`
//! or a panic is a failure.

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

pub use crate::ctx::{Ctx, progress_enabled_by_env};
use crate::experiments::Experiment;
pub use crate::report::{Scale, Summary};
use crate::report::{Verdict, VerdictCounts, format_number, md_cell};

/// Settings of one `reproduce` run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Problem sizes.
    pub scale: Scale,
    /// Seed given to every experiment.
    pub seed: u64,
    /// Output folder `DIR`.
    pub out_dir: PathBuf,
    /// Data cache.
    pub data_dir: PathBuf,
    /// Draw progress bars.
    pub progress: bool,
    /// Print one line per experiment on stdout.
    pub verbose: bool,
}

/// How one experiment ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// `run` returned `Ok`.
    Ok,
    /// `run` returned an error (its chain of causes, one per line).
    Failed(String),
    /// `run` panicked (the panic message).
    Panicked(String),
}

impl Status {
    /// True for [`Status::Ok`].
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok)
    }

    fn label(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed(_) => "FAILED (error)",
            Status::Panicked(_) => "FAILED (panic)",
        }
    }
}

/// The result of one experiment in a run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Experiment ID.
    pub id: String,
    /// Experiment title.
    pub title: String,
    /// How it ended.
    pub status: Status,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Claims that hold, fail and are inconclusive.
    pub verdicts: VerdictCounts,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// One outcome per experiment, in run order.
    pub outcomes: Vec<Outcome>,
    /// Path of `DIR/index.md`.
    pub index: PathBuf,
}

impl RunReport {
    /// Number of experiments that failed (error or panic).
    pub fn failures(&self) -> usize {
        self.outcomes.iter().filter(|o| !o.status.is_ok()).count()
    }
}

/// Picks experiments by ID from `all`, in the order given, without duplicates; no ID
/// means all of them.
///
/// # Errors
/// An unknown ID; the message lists the valid IDs.
pub fn select(all: &[Experiment], ids: &[String]) -> anyhow::Result<Vec<Experiment>> {
    if ids.is_empty() {
        return Ok(all.to_vec());
    }
    let mut chosen: Vec<Experiment> = Vec::new();
    for id in ids {
        match all.iter().find(|e| e.id() == id) {
            Some(e) if chosen.iter().any(|c| c.id() == e.id()) => {}
            Some(e) => chosen.push(*e),
            None => {
                let valid = if all.is_empty() {
                    "none are registered yet".to_string()
                } else {
                    all.iter().map(|e| e.id()).collect::<Vec<_>>().join(", ")
                };
                bail!("unknown experiment ID `{id}`; valid IDs: {valid}");
            }
        }
    }
    Ok(chosen)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    bl_core::error::panic_message(payload)
        .unwrap_or("panic with a non-string payload")
        .to_string()
}

/// Runs `experiments` in order into `config.out_dir`, writing each experiment's
/// `report.md` and (when it succeeded) `summary.json`, then `DIR/index.md` for all
/// of them. An experiment that returns an error or panics is recorded as failed and
/// the others still run; its `report.md` holds the error and whatever it recorded
/// before failing, and it gets no `summary.json`.
///
/// A previous run's `DIR/ID/` (recognised by its `report.md`) is removed before the
/// experiment runs, so no stale file survives.
///
/// # Errors
/// Only when the harness itself cannot write (the output folder or `index.md`).
pub fn run_experiments(
    experiments: &[Experiment],
    config: &RunConfig,
) -> anyhow::Result<RunReport> {
    std::fs::create_dir_all(&config.out_dir)
        .with_context(|| format!("creating {}", config.out_dir.display()))?;
    let mut outcomes = Vec::with_capacity(experiments.len());
    let total = experiments.len();
    for (k, exp) in experiments.iter().enumerate() {
        let id = exp.id();
        let dir = config.out_dir.join(id);
        if dir.join("report.md").is_file() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("removing the previous run in {}", dir.display()))?;
        }
        if config.verbose {
            println!("[{}/{total}] {id}: {}", k + 1, exp.title());
        }
        let start = Instant::now();
        let (status, ctx) = match Ctx::new(
            id,
            config.scale,
            config.seed,
            dir.clone(),
            config.data_dir.clone(),
            config.progress,
        ) {
            Err(e) => (Status::Failed(format!("{e:#}")), None),
            Ok(mut ctx) => {
                let result = catch_unwind(AssertUnwindSafe(|| exp.run(&mut ctx)));
                let status = match result {
                    Ok(Ok(())) => Status::Ok,
                    Ok(Err(e)) => Status::Failed(
                        e.chain()
                            .map(|c| c.to_string())
                            .collect::<Vec<_>>()
                            .join("\n  caused by: "),
                    ),
                    Err(payload) => Status::Panicked(panic_message(payload.as_ref())),
                };
                (status, Some(ctx))
            }
        };
        let elapsed = start.elapsed();
        let verdicts = ctx
            .as_ref()
            .map_or_else(VerdictCounts::default, |c| VerdictCounts::of(&c.claims));
        if let Some(ctx) = &ctx {
            write_experiment_files(ctx, exp.title(), &status, elapsed)?;
        }
        if config.verbose {
            match &status {
                Status::Ok => {
                    println!("  ok in {:.1} s, claims: {verdicts}", elapsed.as_secs_f64())
                }
                Status::Failed(m) | Status::Panicked(m) => println!(
                    "  {} after {:.1} s: {m}",
                    status.label(),
                    elapsed.as_secs_f64()
                ),
            }
        }
        outcomes.push(Outcome {
            id: id.to_string(),
            title: exp.title().to_string(),
            status,
            elapsed,
            verdicts,
        });
    }
    let index = config.out_dir.join("index.md");
    std::fs::write(&index, index_markdown(&outcomes, config))
        .with_context(|| format!("writing {}", index.display()))?;
    Ok(RunReport { outcomes, index })
}

fn write_experiment_files(
    ctx: &Ctx,
    title: &str,
    status: &Status,
    elapsed: Duration,
) -> anyhow::Result<()> {
    let mut md = String::new();
    let _ = writeln!(md, "# {} — {title}\n", ctx.id);
    let _ = writeln!(
        md,
        "Scale `{}`, seed {}, {:.2} s, status **{}**.\n",
        ctx.scale,
        ctx.seed,
        elapsed.as_secs_f64(),
        status.label()
    );
    match status {
        Status::Ok => {}
        Status::Failed(m) | Status::Panicked(m) => {
            let _ = writeln!(
                md,
                "## Failure\n\n```text\n{m}\n```\n\nWhat follows was recorded before the failure.\n"
            );
        }
    }
    if !ctx.report.is_empty() {
        md.push_str(&ctx.report);
        if !ctx.report.ends_with('\n') {
            md.push('\n');
        }
        md.push('\n');
    }
    if !ctx.claims.is_empty() {
        let counts = VerdictCounts::of(&ctx.claims);
        let _ = writeln!(
            md,
            "## Claims ({counts})\n\n| claim | judges | verdict | 95% interval | evidence |\n|---|---|---|---|---|"
        );
        for c in &ctx.claims {
            let verdict = match c.verdict {
                Verdict::Holds => "holds".to_string(),
                other => format!("**{}**", other.as_str()),
            };
            let interval = c.interval.map_or_else(String::new, |i| {
                format!("[{}, {}]", format_number(i.lo), format_number(i.hi))
            });
            let _ = writeln!(
                md,
                "| {} | {} | {verdict} | {interval} | {} |",
                md_cell(&c.claim),
                c.judges.as_deref().map_or_else(String::new, md_cell),
                md_cell(&c.evidence)
            );
        }
        md.push('\n');
    }
    if !ctx.figures.is_empty() {
        let _ = writeln!(md, "## Figures\n\n| name | value |\n|---|---|");
        for (k, v) in &ctx.figures {
            let _ = writeln!(md, "| {} | {} |", md_cell(k), format_number(*v));
        }
        md.push('\n');
    }
    if !ctx.files.is_empty() {
        let _ = writeln!(md, "## Files\n");
        for f in &ctx.files {
            if f.ends_with(".svg") {
                let _ = writeln!(md, "- [{f}]({f})\n\n  ![{f}]({f})");
            } else {
                let _ = writeln!(md, "- [{f}]({f})");
            }
        }
    }
    let report = ctx.out_dir.join("report.md");
    std::fs::write(&report, md).with_context(|| format!("writing {}", report.display()))?;
    if status.is_ok() {
        let summary = Summary {
            id: ctx.id.clone(),
            scale: ctx.scale,
            seed: ctx.seed,
            elapsed_s: elapsed.as_secs_f64(),
            figures: ctx.figures.clone(),
            claims: ctx.claims.clone(),
        };
        let path = ctx.out_dir.join("summary.json");
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(&path, json + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn index_markdown(outcomes: &[Outcome], config: &RunConfig) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Reproduction run\n\nScale `{}`, seed {}. Produced by `cargo xtask reproduce`; \
         see docs/reproduction.md.\n",
        config.scale, config.seed
    );
    if outcomes.is_empty() {
        md.push_str("No experiment ran (none selected or none registered yet).\n");
        return md;
    }
    let failed = outcomes.iter().filter(|o| !o.status.is_ok()).count();
    let mut all = VerdictCounts::default();
    for o in outcomes {
        all.holds += o.verdicts.holds;
        all.fails += o.verdicts.fails;
        all.inconclusive += o.verdicts.inconclusive;
    }
    let _ = writeln!(
        md,
        "{} experiments, {failed} failed; {} claims: {all}.\n",
        outcomes.len(),
        all.total()
    );
    md.push_str(
        "| experiment | title | status | hold | fail | inconclusive | time (s) |\n|---|---|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let _ = writeln!(
            md,
            "| [{id}]({id}/report.md) | {} | {} | {} | {} | {} | {:.2} |",
            md_cell(&o.title),
            o.status.label(),
            o.verdicts.holds,
            o.verdicts.fails,
            o.verdicts.inconclusive,
            o.elapsed.as_secs_f64(),
            id = o.id,
        );
    }
    md
}
