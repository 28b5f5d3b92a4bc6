//! What a reproduction report is made of: the scale of a run, claims, paper-vs-ours rows,
//! the `summary.json` record, and the number and cell formatting every report shares.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::stats::{Interval, Verdict};

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

/// A paper's statement checked on our run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The statement, worded as the paper prints it.
    pub claim: String,
    /// Whether it held on this run (`verdict == Holds`).
    pub holds: bool,
    /// What the run says: holds, fails, or inconclusive.
    pub verdict: Verdict,
    /// The 95% interval behind the verdict, where the claim is about a noisy quantity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// Which reading of the algorithm the claim judges (`"ours"`, `"as printed"`), where
    /// the report runs both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judges: Option<String>,
    /// The numbers behind the verdict.
    pub evidence: String,
}

impl Claim {
    /// A claim with this verdict and no interval, reading or evidence yet.
    #[must_use]
    pub fn new(claim: impl Into<String>, verdict: Verdict) -> Self {
        Self {
            claim: claim.into(),
            holds: verdict == Verdict::Holds,
            verdict,
            interval: None,
            judges: None,
            evidence: String::new(),
        }
    }

    /// Sets the interval behind the verdict.
    #[must_use]
    pub fn interval(mut self, interval: Interval) -> Self {
        self.interval = Some(interval);
        self
    }

    /// Sets the reading of the algorithm the claim judges.
    #[must_use]
    pub fn judges(mut self, reading: impl Into<String>) -> Self {
        self.judges = Some(reading.into());
        self
    }

    /// Sets the numbers behind the verdict.
    #[must_use]
    pub fn evidence(mut self, evidence: impl Into<String>) -> Self {
        self.evidence = evidence.into();
        self
    }
}

/// How many claims hold, fail and are inconclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCounts {
    /// Claims that hold.
    pub holds: usize,
    /// Claims that fail.
    pub fails: usize,
    /// Claims the data cannot decide.
    pub inconclusive: usize,
}

impl VerdictCounts {
    /// The counts of `claims`.
    #[must_use]
    pub fn of(claims: &[Claim]) -> Self {
        let mut counts = Self::default();
        for c in claims {
            match c.verdict {
                Verdict::Holds => counts.holds += 1,
                Verdict::Fails => counts.fails += 1,
                Verdict::Inconclusive => counts.inconclusive += 1,
            }
        }
        counts
    }

    /// All claims.
    #[must_use]
    pub fn total(&self) -> usize {
        self.holds + self.fails + self.inconclusive
    }
}

impl fmt::Display for VerdictCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} hold, {} fail, {} inconclusive",
            self.holds, self.fails, self.inconclusive
        )
    }
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
/// [`Ctx::table_vs_paper`](crate::ctx::Ctx::table_vs_paper)).
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

/// Formats a number for a report: scientific notation with 4 significant digits outside
/// `[1e-3, 1e6)`; inside it, whole numbers in full and other values rounded to 4
/// significant digits but never to fewer than all their integer digits (`12345.6` gives
/// `12346`), trailing zeros dropped; `NaN` / `inf` spelled out.
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

pub(crate) fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
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
        assert_eq!(format_number(12345.6), "12346");
        assert_eq!(format_number(123456.0), "123456");
        assert_eq!(format_number(0.5), "0.5");
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
