//! The one plug-in protocol of the workspace, in the manner of good_lp's solver traits.
//!
//! Every extension point of every crate (a sweep order, a Boolean QP solver, an LP
//! backend, a block update, a tagger learner) follows the same five rules:
//!
//! 1. **A trait** with [`Extension`] as a supertrait: a name for reports and a
//!    [`check`](Extension::check) hook.
//! 2. **The built-ins are its implementations**: nothing a user writes is second-class.
//! 3. **Set on the params** as `Arc<dyn Trait>` (a setter of the builder, a getter of the
//!    checked type); the params' `check()` calls the plug-in's `check()`.
//! 4. **One conformance suite per trait**, with the signature
//!    `pub fn conformance(candidate: &dyn Trait) -> ConformanceReport` in the crate's
//!    `conformance` module (in a submodule per trait when a crate has two, as maxcut-sdp
//!    does): it runs the candidate on small cases with independently known answers and
//!    records every check in a [`ConformanceReport`].
//! 5. **A worked example** under a crate's `tests/` that passes its suite (the trait's
//!    crate, or the crate that uses the plug-in: the LP backend's is in gop-mmf's), linked
//!    from `CONTRIBUTING.md`.
//!
//! ```
//! use std::sync::Arc;
//! use bl_core::extension::{ConformanceReport, Extension};
//!
//! /// An extension point: a step-size rule.
//! trait StepRule: Extension {
//!     fn step(&self, iteration: usize) -> f64;
//! }
//!
//! #[derive(Debug)]
//! struct Harmonic;
//! impl Extension for Harmonic {
//!     fn name(&self) -> &str { "harmonic" }
//! }
//! impl StepRule for Harmonic {
//!     fn step(&self, iteration: usize) -> f64 { 1.0 / iteration as f64 }
//! }
//!
//! /// The suite of the trait: every step is positive and finite.
//! fn conformance(candidate: &dyn StepRule) -> ConformanceReport {
//!     let mut report = ConformanceReport::new(candidate.name());
//!     for k in 1..=100 {
//!         let s = candidate.step(k);
//!         report.record("positive finite step", s.is_finite() && s > 0.0, || format!("step({k}) = {s}"));
//!     }
//!     report
//! }
//!
//! let rule: Arc<dyn StepRule> = Arc::new(Harmonic);
//! let report = conformance(rule.as_ref());
//! assert!(report.passed(), "{report}");
//! assert!(report.into_result().is_ok());
//! ```

use std::fmt;

use crate::error::BlError;

/// What every plug-in of the workspace has: a name and a check of its own settings.
pub trait Extension: fmt::Debug + Send + Sync {
    /// A short name for reports and error messages.
    fn name(&self) -> &str;

    /// Checks the plug-in's own settings; called by the `check()` of the params that hold
    /// it. The default accepts.
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`] naming the setting.
    fn check(&self) -> Result<(), BlError> {
        Ok(())
    }
}

/// One check of a conformance suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConformanceCheck {
    /// What was checked, e.g. `"feasible output"`.
    pub name: &'static str,
    /// Whether it held.
    pub passed: bool,
    /// The case and what was seen, for a failed check (empty when it held).
    pub detail: String,
}

/// The result of a conformance suite run on one plug-in: every check, passed or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConformanceReport {
    extension: String,
    checks: Vec<ConformanceCheck>,
}

impl ConformanceReport {
    /// An empty report for the plug-in named `extension`.
    #[must_use]
    pub fn new(extension: impl Into<String>) -> Self {
        Self {
            extension: extension.into(),
            checks: Vec::new(),
        }
    }

    /// Records a check; `detail` is only evaluated when it failed.
    pub fn record(&mut self, name: &'static str, passed: bool, detail: impl FnOnce() -> String) {
        let detail = if passed { String::new() } else { detail() };
        self.checks.push(ConformanceCheck {
            name,
            passed,
            detail,
        });
    }

    /// Records a check that is an error or not: `Err` fails it with the error's message.
    pub fn record_result<T, E: fmt::Display>(&mut self, name: &'static str, result: &Result<T, E>) {
        match result {
            Ok(_) => self.record(name, true, String::new),
            Err(e) => self.record(name, false, || e.to_string()),
        }
    }

    /// The plug-in's name.
    #[must_use]
    pub fn extension(&self) -> &str {
        &self.extension
    }

    /// Every check, in the order run.
    #[must_use]
    pub fn checks(&self) -> &[ConformanceCheck] {
        &self.checks
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &ConformanceCheck> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// Whether at least one check ran and every check held.
    #[must_use]
    pub fn passed(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|c| c.passed)
    }

    /// The report if it [`passed`](Self::passed), otherwise an error listing the failures.
    ///
    /// # Errors
    /// [`BlError::Conformance`] with the plug-in's name and the failed checks.
    pub fn into_result(self) -> Result<Self, BlError> {
        if self.passed() {
            Ok(self)
        } else {
            Err(BlError::Conformance {
                extension: self.extension.clone(),
                failures: self.to_string(),
            })
        }
    }
}

impl fmt::Display for ConformanceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failed = self.failures().count();
        write!(
            f,
            "{}: {} of {} checks passed",
            self.extension,
            self.checks.len() - failed,
            self.checks.len()
        )?;
        if self.checks.is_empty() {
            write!(f, " (no check ran)")?;
        }
        for check in self.failures().take(10) {
            write!(f, "; {} failed: {}", check.name, check.detail)?;
        }
        if failed > 10 {
            write!(f, "; and {} more", failed - 10)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ConformanceReport;

    #[test]
    fn a_report_fails_on_one_failed_check_and_when_empty() {
        let mut report = ConformanceReport::new("x");
        assert!(!report.passed(), "no check ran");
        report.record("a", true, || unreachable!());
        assert!(report.passed());
        report.record("b", false, || "case 3".into());
        assert!(!report.passed());
        let e = report.clone().into_result().unwrap_err().to_string();
        assert!(e.contains("b failed: case 3"), "{e}");
        assert!(e.contains("1 of 2"), "{e}");
        report.record_result::<(), _>("c", &Err("bad"));
        assert_eq!(report.failures().count(), 2);
    }
}
