//! Checks shared by the loaders of the fitted models.
//!
//! Every fitted model of this crate (and [`crate::SblrValidParams`]) deserializes through
//! `#[serde(try_from = "Raw...")]`: serde reads a private raw form with the same fields,
//! then the model's `TryFrom` checks that they fit together (lengths against the declared
//! shapes, finite values, class names, parameters). So every serde path
//! (`serde_json::from_str`, any other format, a model nested in another type) validates;
//! the models' `from_json` / `load` run the same check and return its typed
//! [`SblrError::InvalidModel`] directly instead of a serde message.

use std::path::Path;
use std::time::Duration;

use bl_core::engine::{FitReport, TerminationReason, Trace};

use crate::error::{Result, SblrError};

/// Builds an [`SblrError::InvalidModel`].
pub(crate) fn bad(
    model: &'static str,
    field: &'static str,
    expected: impl Into<String>,
    found: impl Into<String>,
) -> SblrError {
    SblrError::InvalidModel {
        model,
        field,
        expected: expected.into(),
        found: found.into(),
    }
}

/// `value >= 1`.
pub(crate) fn positive(model: &'static str, field: &'static str, value: usize) -> Result<()> {
    if value == 0 {
        return Err(bad(model, field, ">= 1", "0"));
    }
    Ok(())
}

/// `a * b` as an expected length; an overflow is reported against `field`.
pub(crate) fn product(model: &'static str, field: &'static str, dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1_usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            bad(
                model,
                field,
                "a size that fits in memory",
                format!("the product {dims:?}, which overflows usize"),
            )
        })
}

/// `found == expected`, where `expected` is described by `what` (e.g. `"s x rank = 8 x 1"`).
pub(crate) fn length(
    model: &'static str,
    field: &'static str,
    expected: usize,
    what: &str,
    found: usize,
) -> Result<()> {
    if found != expected {
        return Err(bad(
            model,
            field,
            format!("{expected} values ({what})"),
            format!("{found} values"),
        ));
    }
    Ok(())
}

/// Every value finite.
pub(crate) fn finite(model: &'static str, field: &'static str, values: &[f64]) -> Result<()> {
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(bad(
            model,
            field,
            "finite values",
            format!("{} at index {i}", values[i]),
        ));
    }
    Ok(())
}

/// One finite value.
pub(crate) fn finite_scalar(model: &'static str, field: &'static str, value: f64) -> Result<()> {
    if !value.is_finite() {
        return Err(bad(model, field, "a finite value", value.to_string()));
    }
    Ok(())
}

/// `bound` (an upper bound on `|decision value|` for samples whose entries are at most 1
/// in magnitude) is finite: weights so large that their scores overflow are rejected
/// instead of predicting probability 0 or 1 for everything.
pub(crate) fn scores_bounded(model: &'static str, field: &'static str, bound: f64) -> Result<()> {
    if !bound.is_finite() {
        return Err(bad(
            model,
            field,
            "weights whose decision value on a sample with entries in [-1, 1] is finite",
            format!("weights whose bound on that value is {bound}"),
        ));
    }
    Ok(())
}

/// `sum_k (sum_a |U_ak|) (sum_j |V_jk|) + |b|`: an upper bound on `|tr(U^T X V) + b|` for
/// every `X` with `|X_aj| <= 1` (since `|tr(U^T X V)| <= sum_aj |W_aj|` with `W = U V^T`),
/// computed in `O((s + t) r)` without forming `W`.
pub(crate) fn bilinear_bound(u: &[f64], v: &[f64], s: usize, t: usize, b: f64) -> f64 {
    let l1 = |x: &[f64]| x.iter().map(|v| v.abs()).sum::<f64>();
    u.chunks_exact(s.max(1))
        .zip(v.chunks_exact(t.max(1)))
        .map(|(uk, vk)| l1(uk) * l1(vk))
        .sum::<f64>()
        + b.abs()
}

/// At least two class names (exactly `exact` when given), no two equal.
pub(crate) fn class_names(
    model: &'static str,
    names: &[String],
    exact: Option<usize>,
) -> Result<()> {
    match exact {
        Some(k) if names.len() != k => {
            return Err(bad(
                model,
                "class_names",
                format!("{k} class names"),
                format!("{} ({names:?})", names.len()),
            ));
        }
        None if names.len() < 2 => {
            return Err(bad(
                model,
                "class_names",
                "at least 2 class names",
                format!("{} ({names:?})", names.len()),
            ));
        }
        _ => {}
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(bad(
                model,
                "class_names",
                "distinct class names",
                format!("{name:?} twice"),
            ));
        }
    }
    Ok(())
}

/// The error for a decision value that overflowed.
pub(crate) fn overflow(context: &'static str, sample: usize, value: f64) -> SblrError {
    SblrError::Core(bl_core::BlError::Numerical {
        context,
        message: format!(
            "the decision value of sample {sample} is {value} (the model's weights times the \
             sample overflow f64): rescale the samples"
        ),
    })
}

/// Every decision value finite; otherwise names the first sample whose score overflowed.
pub(crate) fn finite_scores(context: &'static str, scores: &[f64]) -> Result<()> {
    match scores.iter().position(|f| !f.is_finite()) {
        Some(i) => Err(overflow(context, i, scores[i])),
        None => Ok(()),
    }
}

/// Parses `text` as the raw form `R` of a model (the whole text must be one JSON value)
/// and validates it by `R -> T`; JSON errors become [`SblrError::ModelFormat`].
pub(crate) fn from_json<R, T>(model: &'static str, text: &str) -> Result<T>
where
    R: serde::de::DeserializeOwned,
    T: TryFrom<R, Error = SblrError>,
{
    let raw: R = serde_json::from_str(text).map_err(|e| SblrError::ModelFormat {
        model,
        message: e.to_string(),
    })?;
    T::try_from(raw)
}

/// Serializes to JSON; a failure (not expected for these types) is a
/// [`SblrError::ModelFormat`].
pub(crate) fn to_json<T: serde::Serialize>(model: &'static str, value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| SblrError::ModelFormat {
        model,
        message: e.to_string(),
    })
}

/// Reads a whole file as text.
pub(crate) fn read_file(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| {
        SblrError::Core(bl_core::BlError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Writes text to a file.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|source| {
        SblrError::Core(bl_core::BlError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// The run report of a saved model: the `report` field, or the separate fields
/// `n_iter`, `termination` (or `converged`), `elapsed_s` and `trace` of the older layout.
#[derive(serde::Deserialize)]
pub(crate) struct SavedReport {
    #[serde(default)]
    report: Option<FitReport>,
    #[serde(default)]
    n_iter: Option<usize>,
    #[serde(default)]
    termination: Option<TerminationReason>,
    #[serde(default)]
    converged: Option<bool>,
    #[serde(default)]
    elapsed_s: Option<f64>,
    #[serde(default)]
    trace: Option<Trace>,
}

impl SavedReport {
    /// The report; for the older layout it is rebuilt from its fields (`objective` is the
    /// model's).
    pub(crate) fn into_report(self, model: &'static str, objective: f64) -> Result<FitReport> {
        if let Some(report) = self.report {
            return Ok(report);
        }
        let iterations = self
            .n_iter
            .ok_or_else(|| bad(model, "report", "a run report", "none"))?;
        let termination = match (self.termination, self.converged) {
            (Some(reason), _) => reason,
            (None, Some(true)) => TerminationReason::Converged,
            (None, Some(false)) => TerminationReason::MaxIterations,
            (None, None) => return Err(bad(model, "termination", "a termination", "none")),
        };
        let seconds = self.elapsed_s.unwrap_or(0.0);
        let elapsed = Duration::try_from_secs_f64(seconds).map_err(|_| {
            bad(
                model,
                "elapsed_s",
                "a finite value >= 0",
                seconds.to_string(),
            )
        })?;
        Ok(FitReport {
            iterations,
            termination,
            objective,
            elapsed,
            trace: self.trace.unwrap_or_default(),
        })
    }
}
