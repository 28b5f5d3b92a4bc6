//! What an experiment receives: [`Ctx`], its settings, its output folder, the data cache,
//! progress bars, and helpers that write CSV files, plots, figures, claims and markdown.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use indicatif::{ProgressBar, ProgressStyle};

use crate::plot::{Heatmap, Series};
use crate::report::{Claim, Scale, Verdict, VsRow, csv_field, format_number, md_cell};

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
    pub(crate) id: String,
    pub(crate) scale: Scale,
    pub(crate) seed: u64,
    pub(crate) out_dir: PathBuf,
    pub(crate) data_dir: PathBuf,
    pub(crate) progress: bool,
    pub(crate) report: String,
    pub(crate) figures: BTreeMap<String, f64>,
    pub(crate) claims: Vec<Claim>,
    pub(crate) files: BTreeSet<String>,
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

    /// A progress bar of `len` steps with a message; hidden when the run draws no
    /// progress bars (`RunConfig::progress`; the command line draws them when
    /// [`progress_enabled_by_env`] says so: stderr a terminal and `CI` unset, empty, `0`
    /// or `false`).
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
        self.record(Claim::new(claim, Verdict::of(holds)).evidence(evidence));
        holds
    }

    /// Records a claim with its verdict (and, for noisy quantities, its interval and the
    /// test behind it in the evidence). Returns the verdict.
    pub fn record(&mut self, claim: Claim) -> Verdict {
        let verdict = claim.verdict;
        self.claims.push(claim);
        verdict
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
