//! The reproduction harness: runs experiments, times them, survives their errors and
//! panics, and writes the outputs described in `docs/reproduction.md`:
//!
//! ```text
//! DIR/index.md            every experiment that ran: status, claims held / total
//! DIR/ID/report.md        the experiment's markdown, claims, figures, files
//! DIR/ID/summary.json     {"id","scale","seed","elapsed_s","figures","claims"}
//! DIR/ID/*.csv, *.svg     raw numbers and plots
//! ```
//!
//! An experiment receives a [`Ctx`]: its scale and seed, its output folder, the data
//! cache, progress bars, and helpers to write CSV files, plots, figures, claims and
//! markdown. A claim that does not hold is a result, not a failure; only an `Err` or a
//! panic is a failure.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::experiments::Experiment;
pub use crate::plot::{Heatmap, Series};

/// Problem sizes of a run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Seconds per experiment (CI).
    Smoke,
    /// The whole suite in minutes on a 2-core machine (the default).
    #[default]
    Quick,
    /// The papers' sizes.
    Paper,
}

impl Scale {
    /// The value for this scale among three: `scale.pick(10, 100, 1000)`.
    pub fn pick<T>(self, smoke: T, quick: T, paper: T) -> T {
        match self {
            Scale::Smoke => smoke,
            Scale::Quick => quick,
            Scale::Paper => paper,
        }
    }

    /// Lowercase name, as on the command line.
    pub fn as_str(self) -> &'static str {
        self.pick("smoke", "quick", "paper")
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A paper's qualitative statement checked on our run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// The statement, e.g. "Alg. 2 is faster than Alg. 1 at every size".
    pub claim: String,
    /// Whether it held on this run.
    pub holds: bool,
    /// The numbers behind the verdict.
    pub evidence: String,
}

/// The contents of `DIR/ID/summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Experiment ID.
    pub id: String,
    /// Scale of the run.
    pub scale: Scale,
    /// Seed of the run.
    pub seed: u64,
    /// Wall-clock time of the experiment in seconds.
    pub elapsed_s: f64,
    /// Named headline numbers (non-finite values are written as `null`).
    pub figures: BTreeMap<String, f64>,
    /// Claims checked.
    pub claims: Vec<Claim>,
}

/// One row of a table of our numbers beside the paper's (see
/// [`Ctx::table_vs_paper`]).
#[derive(Debug, Clone, PartialEq)]
pub struct VsRow {
    /// Row label (e.g. "s = t = 100").
    pub label: String,
    /// Our value for each metric (`None`: not measured).
    pub ours: Vec<Option<f64>>,
    /// The paper's value for each metric (`None`: not reported).
    pub paper: Vec<Option<f64>>,
}

impl VsRow {
    /// A row with every value present.
    pub fn new(label: impl Into<String>, ours: &[f64], paper: &[f64]) -> Self {
        Self {
            label: label.into(),
            ours: ours.iter().copied().map(Some).collect(),
            paper: paper.iter().copied().map(Some).collect(),
        }
    }
}

/// Formats a number for a report: up to 4 significant digits, scientific notation
/// outside `[1e-3, 1e6)`, `NaN` / `inf` spelled out.
pub fn format_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{x:.3e}");
    }
    if x.fract() == 0.0 {
        return format!("{x:.0}");
    }
    let digits = (3 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Whether progress bars are drawn: stderr is a terminal and `CI` is unset, empty,
/// `0` or `false`.
pub fn progress_enabled_by_env() -> bool {
    let ci = std::env::var("CI").unwrap_or_default();
    let in_ci = !(ci.is_empty() || ci == "0" || ci.eq_ignore_ascii_case("false"));
    std::io::stderr().is_terminal() && !in_ci
}

/// What an experiment receives: its settings, its output folder, and helpers that
/// write files and record results for the report and `summary.json`.
#[derive(Debug)]
pub struct Ctx {
    id: String,
    scale: Scale,
    seed: u64,
    out_dir: PathBuf,
    data_dir: PathBuf,
    progress: bool,
    report: String,
    figures: BTreeMap<String, f64>,
    claims: Vec<Claim>,
    files: BTreeSet<String>,
}

impl Ctx {
    /// A context for experiment `id` writing into `out_dir` (created if needed).
    ///
    /// # Errors
    /// The folder cannot be created.
    pub fn new(
        id: &str,
        scale: Scale,
        seed: u64,
        out_dir: PathBuf,
        data_dir: PathBuf,
        progress: bool,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(&out_dir)
            .with_context(|| format!("creating {}", out_dir.display()))?;
        Ok(Self {
            id: id.to_string(),
            scale,
            seed,
            out_dir,
            data_dir,
            progress,
            report: String::new(),
            figures: BTreeMap::new(),
            claims: Vec::new(),
            files: BTreeSet::new(),
        })
    }

    /// The experiment's ID.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Problem sizes to use.
    pub fn scale(&self) -> Scale {
        self.scale
    }

    /// Seed of the run: derive every random generator from it.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The experiment's output folder `DIR/ID/`.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// The data cache (see [`crate::data`]).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The cache folder of a real data set, fetched first if missing (see
    /// [`crate::data::ensure`]).
    ///
    /// # Errors
    /// Unknown name or failed fetch; the message names the command that obtains it.
    pub fn data(&self, name: &str) -> anyhow::Result<PathBuf> {
        crate::data::ensure(name, &self.data_dir)
    }

    /// The cache paths of every file of a real data set, fetched first if missing.
    ///
    /// # Errors
    /// As [`Ctx::data`].
    pub fn data_files(&self, name: &str) -> anyhow::Result<Vec<PathBuf>> {
        crate::data::ensure_files(name, &self.data_dir)
    }

    /// A progress bar of `len` steps with a message; hidden when stderr is not a
    /// terminal or `CI` is set.
    pub fn progress(&self, len: u64, message: &str) -> ProgressBar {
        if !self.progress {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template(
            "  {msg:30} [{bar:30}] {pos}/{len} {elapsed_precise} eta {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(message.to_string());
        bar
    }

    /// A spinner for work of unknown length; hidden like [`Ctx::progress`].
    pub fn spinner(&self, message: &str) -> ProgressBar {
        if !self.progress {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new_spinner();
        bar.set_message(message.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }

    fn file_path(&mut self, name: &str, ext: &str) -> anyhow::Result<PathBuf> {
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            bail!("output file name `{name}` must be a plain file name");
        }
        let file = if name.ends_with(&format!(".{ext}")) {
            name.to_string()
        } else {
            format!("{name}.{ext}")
        };
        self.files.insert(file.clone());
        Ok(self.out_dir.join(file))
    }

    /// Writes `DIR/ID/<name>.csv` with a header row and one line per row; fields are
    /// quoted when needed. Returns the path.
    ///
    /// Any `Display` values work: `Vec<Vec<f64>>`, or strings for mixed columns; the
    /// header's names may be `&str` or `String`.
    ///
    /// # Errors
    /// A row whose length differs from the header's, or a write failure.
    pub fn write_csv<H, R, C>(
        &mut self,
        name: &str,
        header: &[H],
        rows: impl IntoIterator<Item = R>,
    ) -> anyhow::Result<PathBuf>
    where
        H: AsRef<str>,
        R: IntoIterator<Item = C>,
        C: fmt::Display,
    {
        let path = self.file_path(name, "csv")?;
        let mut text = header
            .iter()
            .map(|h| csv_field(h.as_ref()))
            .collect::<Vec<_>>()
            .join(",");
        text.push('\n');
        for (i, row) in rows.into_iter().enumerate() {
            let fields: Vec<String> = row.into_iter().map(|c| csv_field(&c.to_string())).collect();
            if fields.len() != header.len() {
                bail!(
                    "{name}: row {i} has {} fields, the header has {}",
                    fields.len(),
                    header.len()
                );
            }
            text.push_str(&fields.join(","));
            text.push('\n');
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    }

    /// Draws a line plot into `DIR/ID/<name>.svg` (see [`crate::plot::line_plot`]),
    /// optionally with a logarithmic y axis. Returns the path.
    ///
    /// # Errors
    /// No drawable point, or a write failure.
    pub fn line_plot(
        &mut self,
        name: &str,
        title: &str,
        x_label: &str,
        y_label: &str,
        series: &[Series],
        log_y: bool,
    ) -> anyhow::Result<PathBuf> {
        let path = self.file_path(name, "svg")?;
        crate::plot::line_plot(&path, title, x_label, y_label, series, log_y)?;
        Ok(path)
    }

    /// Draws a heatmap into `DIR/ID/<name>.svg` (see [`crate::plot::heatmap`]). Returns
    /// the path.
    ///
    /// # Errors
    /// Wrong number of values, an empty matrix, or a write failure.
    pub fn heatmap(&mut self, name: &str, map: &Heatmap<'_>) -> anyhow::Result<PathBuf> {
        let path = self.file_path(name, "svg")?;
        crate::plot::heatmap(&path, map)?;
        Ok(path)
    }

    /// Records a headline number for `summary.json` (a later value of the same name
    /// replaces the earlier one).
    pub fn figure(&mut self, name: &str, value: f64) {
        self.figures.insert(name.to_string(), value);
    }

    /// Records a paper claim and whether it held on this run, with the evidence.
    /// Returns `holds`, for convenience.
    pub fn claim(&mut self, claim: &str, holds: bool, evidence: impl Into<String>) -> bool {
        self.claims.push(Claim {
            claim: claim.to_string(),
            holds,
            evidence: evidence.into(),
        });
        holds
    }

    /// Records a statement quoted from the paper (see [`crate::paper::Quote`]) as a
    /// claim checked on this run. Returns `holds`, for convenience.
    pub fn paper_claim(
        &mut self,
        quote: &crate::paper::Quote,
        holds: bool,
        evidence: impl Into<String>,
    ) -> bool {
        self.claim(&quote.claim_text(), holds, evidence)
    }

    /// Appends a statement quoted from the paper to the report as a block quote.
    pub fn quote(&mut self, quote: &crate::paper::Quote) {
        self.md(&quote.markdown());
        self.md("");
    }

    /// Appends markdown to the report (a newline is added).
    pub fn md(&mut self, markdown: &str) {
        self.report.push_str(markdown);
        self.report.push('\n');
    }

    /// Appends a markdown table of strings (cells are escaped; the header's names may be
    /// `&str` or `String`).
    pub fn table<H, R, C>(&mut self, header: &[H], rows: impl IntoIterator<Item = R>)
    where
        H: AsRef<str>,
        R: IntoIterator<Item = C>,
        C: AsRef<str>,
    {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "| {} |",
            header
                .iter()
                .map(|h| md_cell(h.as_ref()))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(t, "|{}", "---|".repeat(header.len()));
        for row in rows {
            let cells: Vec<String> = row.into_iter().map(|c| md_cell(c.as_ref())).collect();
            let _ = writeln!(t, "| {} |", cells.join(" | "));
        }
        self.report.push_str(&t);
        self.report.push('\n');
    }

    /// Appends a table of our numbers beside the paper's: one row per [`VsRow`], and
    /// for each metric two columns, `metric (ours)` and `metric (paper)`; a missing
    /// value is shown as `—`.
    ///
    /// # Errors
    /// A row whose `ours` or `paper` length differs from `metrics.len()`.
    pub fn table_vs_paper(
        &mut self,
        row_header: &str,
        metrics: &[impl AsRef<str>],
        rows: &[VsRow],
    ) -> anyhow::Result<()> {
        let mut header = vec![row_header.to_string()];
        for m in metrics.iter().map(AsRef::as_ref) {
            header.push(format!("{m} (ours)"));
            header.push(format!("{m} (paper)"));
        }
        let cell = |v: Option<f64>| v.map_or_else(|| "—".to_string(), format_number);
        let mut body = Vec::with_capacity(rows.len());
        for row in rows {
            if row.ours.len() != metrics.len() || row.paper.len() != metrics.len() {
                bail!(
                    "table row `{}`: {} ours and {} paper values for {} metrics",
                    row.label,
                    row.ours.len(),
                    row.paper.len(),
                    metrics.len()
                );
            }
            let mut cells = vec![row.label.clone()];
            for (o, p) in row.ours.iter().zip(&row.paper) {
                cells.push(cell(*o));
                cells.push(cell(*p));
            }
            body.push(cells);
        }
        self.table(&header, body);
        Ok(())
    }

    /// The figures recorded so far.
    pub fn figures(&self) -> &BTreeMap<String, f64> {
        &self.figures
    }

    /// The claims recorded so far.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// The markdown appended so far.
    pub fn report(&self) -> &str {
        &self.report
    }
}

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
    /// Claims that held.
    pub claims_held: usize,
    /// Claims recorded.
    pub claims_total: usize,
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
        let (held, claims_total) = ctx.as_ref().map_or((0, 0), |c| {
            (c.claims.iter().filter(|c| c.holds).count(), c.claims.len())
        });
        if let Some(ctx) = &ctx {
            write_experiment_files(ctx, exp.title(), &status, elapsed)?;
        }
        if config.verbose {
            match &status {
                Status::Ok => println!(
                    "  ok in {:.1} s, claims held {held}/{claims_total}",
                    elapsed.as_secs_f64()
                ),
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
            claims_held: held,
            claims_total,
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
        let held = ctx.claims.iter().filter(|c| c.holds).count();
        let _ = writeln!(
            md,
            "## Claims ({held}/{} hold)\n\n| claim | holds | evidence |\n|---|---|---|",
            ctx.claims.len()
        );
        for c in &ctx.claims {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                md_cell(&c.claim),
                if c.holds { "yes" } else { "**no**" },
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
    let held: usize = outcomes.iter().map(|o| o.claims_held).sum();
    let total: usize = outcomes.iter().map(|o| o.claims_total).sum();
    let _ = writeln!(
        md,
        "{} experiments, {failed} failed; claims held {held}/{total}.\n",
        outcomes.len()
    );
    md.push_str(
        "| experiment | title | status | claims held | time (s) |\n|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let _ = writeln!(
            md,
            "| [{id}]({id}/report.md) | {} | {} | {}/{} | {:.2} |",
            md_cell(&o.title),
            o.status.label(),
            o.claims_held,
            o.claims_total,
            o.elapsed.as_secs_f64(),
            id = o.id,
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_compactly() {
        assert_eq!(format_number(0.0), "0");
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(0.123456), "0.1235");
        assert_eq!(format_number(12.3456), "12.35");
        assert_eq!(format_number(1234.6), "1235");
        assert_eq!(format_number(1.0e-5), "1.000e-5");
        assert_eq!(format_number(f64::NAN), "NaN");
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("a"), "a");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
