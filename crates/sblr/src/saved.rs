//! Checks shared by the loaders of the fitted models.
//!
//! Every fitted model of this crate deserializes through `#[serde(try_from = "Raw...")]`:
//! serde reads a private raw form with the same fields, then the model's `TryFrom` checks
//! that they fit together (lengths against the declared shapes, finite values, class
//! names, parameters; the checked parameters read their builder and check it). So every
//! serde path
//! (`serde_json::from_str`, any other format, a model nested in another type) validates;
//! the models' `from_json` / `load` run the same check and return its typed
//! [`SblrError::InvalidModel`] directly instead of a serde message.

use std::path::Path;
use std::time::Duration;

use bl_core::engine::{FitReport, TerminationReason, Trace};
use bl_core::limits::{first_duplicate, quote};

use crate::error::{Result, SblrError};
use bl_core::error::build::numerical;
use bl_core::error::io_error;

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

/// At least two class names (exactly `exact` when given), no two equal. The duplicate
/// check is one hashed pass ([`bl_core::limits::first_duplicate`], linear in the number
/// of names), and a message quotes at most one name, bounded by
/// [`bl_core::limits::quote`] (never the whole list).
pub(crate) fn class_names(
    model: &'static str,
    names: &[String],
    exact: Option<usize>,
) -> Result<()> {
    let listed = || match names.first() {
        None => "0 names".to_string(),
        Some(first) => format!("{} names, the first {}", names.len(), quote(first)),
    };
    match exact {
        Some(k) if names.len() != k => {
            return Err(bad(
                model,
                "class_names",
                format!("{k} class names"),
                listed(),
            ));
        }
        None if names.len() < 2 => {
            return Err(bad(
                model,
                "class_names",
                "at least 2 class names",
                listed(),
            ));
        }
        _ => {}
    }
    if let Some((i, name)) = first_duplicate(names) {
        return Err(bad(
            model,
            "class_names",
            "distinct class names",
            format!("{} twice (again at index {i})", quote(name)),
        ));
    }
    Ok(())
}

/// The error for a decision value that overflowed.
pub(crate) fn overflow(context: &'static str, sample: usize, value: f64) -> SblrError {
    numerical(
        context,
        format!(
            "the decision value of sample {sample} is {value} (the model's weights times the \
             sample overflow f64): rescale the samples"
        ),
    )
}

/// Every decision value finite; otherwise names the first sample whose score overflowed.
pub(crate) fn finite_scores(context: &'static str, scores: &[f64]) -> Result<()> {
    match scores.iter().position(|f| !f.is_finite()) {
        Some(i) => Err(overflow(context, i, scores[i])),
        None => Ok(()),
    }
}

/// Private plumbing of [`SavedModel`]: the raw (unchecked) serde form of each model.
pub(crate) mod sealed {
    /// The raw form a model is deserialized into before its checks run.
    pub trait RawForm {
        /// The model's fields as read, before validation.
        type Raw: serde::de::DeserializeOwned;
    }
}

/// JSON save and load, shared by every fitted model of this crate.
///
/// Loading parses the model's raw fields, then runs the model's checks (the same checks
/// `serde` deserialization of any format runs, through `#[serde(try_from)]`), so a loaded
/// model never panics in `predict`. The file format is the `serde` layout of the model.
/// The trait is sealed: it is implemented for [`crate::FittedSblr`],
/// [`crate::FittedMultinomialSblr`] and [`crate::FittedLogisticRegression`].
pub trait SavedModel:
    serde::Serialize
    + Sized
    + sealed::RawForm
    + TryFrom<<Self as sealed::RawForm>::Raw, Error = SblrError>
{
    /// The model's type name, as it appears in error messages.
    const MODEL: &'static str;

    /// The model as JSON text (the serde layout of the struct).
    ///
    /// # Errors
    /// [`SblrError::ModelFormat`] if encoding fails.
    fn to_json(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| SblrError::ModelFormat {
            model: Self::MODEL,
            message: e.to_string(),
        })
    }

    /// A model from the JSON text of [`SavedModel::to_json`] (the whole text must be one
    /// JSON value), with the model's load-time checks (listed on each model's type).
    ///
    /// # Errors
    /// [`SblrError::ModelFormat`] for text that is not JSON of the model's layout (or
    /// invalid parameters); [`SblrError::InvalidModel`] naming the model and the first
    /// field that fails a check.
    fn from_json(text: &str) -> Result<Self> {
        let raw: <Self as sealed::RawForm>::Raw =
            serde_json::from_str(text).map_err(|e| SblrError::ModelFormat {
                model: Self::MODEL,
                message: e.to_string(),
            })?;
        Self::try_from(raw)
    }

    /// Writes [`SavedModel::to_json`] to a file.
    ///
    /// # Errors
    /// [`SblrError::Core`] with the I/O error; as [`SavedModel::to_json`].
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        Ok(std::fs::write(path, self.to_json()?).map_err(io_error(path))?)
    }

    /// Reads a model written by [`SavedModel::save`], with the checks of
    /// [`SavedModel::from_json`].
    ///
    /// # Errors
    /// [`SblrError::Core`] with the I/O error; as [`SavedModel::from_json`].
    fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        Self::from_json(&text)
    }
}

/// The common load-time checks of a bilinear model: `s, t >= 1`, `rank` in
/// `1..=min(s, t)` and equal to `params_rank`, and `u`, `v` of `blocks` factors of
/// `s x rank` and `t x rank`, all finite.
pub(crate) fn bilinear_factors(
    model: &'static str,
    (s, t, r): (usize, usize, usize),
    params_rank: usize,
    blocks: usize,
    (u, v): (&[f64], &[f64]),
) -> Result<()> {
    positive(model, "s", s)?;
    positive(model, "t", t)?;
    if r == 0 || r > s.min(t) {
        return Err(bad(
            model,
            "rank",
            format!("1..=min(s, t) = 1..={}", s.min(t)),
            r.to_string(),
        ));
    }
    if params_rank != r {
        return Err(bad(
            model,
            "params.rank",
            format!("the model's rank {r}"),
            params_rank.to_string(),
        ));
    }
    let dims = |d: usize| {
        if blocks == 1 {
            vec![d, r]
        } else {
            vec![blocks, d, r]
        }
    };
    let what = |name: &str, d: usize| {
        if blocks == 1 {
            format!("{name} x rank = {d} x {r}")
        } else {
            format!("m x {name} x rank = {blocks} x {d} x {r}")
        }
    };
    for (field, name, d, values) in [("u", "s", s, u), ("v", "t", t, v)] {
        let len = product(model, field, &dims(d))?;
        length(model, field, len, &what(name, d), values.len())?;
    }
    finite(model, "u", u)?;
    finite(model, "v", v)
}

/// The run report of a saved model: the `report` field, or the separate fields
/// `n_iter`, `termination` (or `converged`), `elapsed_s` and `trace` of the older layout.
#[derive(Debug, serde::Deserialize)]
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

/// Declares a fitted model type that saves and loads through [`SavedModel`].
///
/// From one field list it writes the model struct (the serde layout is the field order:
/// the listed fields, then `objective`, `report`, `class_names`, `params`), its raw form
/// `raw::$raw` (the same fields, `report` read as a [`SavedReport`]), `TryFrom<Raw>`
/// (which rebuilds the report and runs the model's own `fn validate(&self) -> Result<()>`),
/// and the impls of [`bl_core::Fitted`], [`SavedModel`] and the sealed raw form. The
/// caller's attributes must include `#[serde(try_from = "raw::$raw")]`.
macro_rules! saved_model {
    (
        $(#[$meta:meta])*
        pub struct $name:ident from raw $raw:ident {
            $($fvis:vis $field:ident: $ty:ty),* $(,)?
        }
        with $tvis:vis objective, report, class_names, params: $params:ty;
        $(#[$report_doc:meta])*
        fn report;
    ) => {
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        $(#[$meta])*
        pub struct $name {
            $($fvis $field: $ty,)*
            $tvis objective: f64,
            $tvis report: ::bl_core::engine::FitReport,
            $tvis class_names: Vec<String>,
            $tvis params: $params,
        }

        mod raw {
            #[allow(unused_imports)]
            use super::*;

            #[doc = concat!("The fields of a saved [`", stringify!($name), "`], before validation.")]
            #[derive(Debug, ::serde::Deserialize)]
            pub struct $raw {
                $(pub(super) $field: $ty,)*
                pub(super) objective: f64,
                #[serde(flatten)]
                pub(super) report: $crate::saved::SavedReport,
                pub(super) class_names: Vec<String>,
                pub(super) params: $params,
            }
        }

        impl TryFrom<raw::$raw> for $name {
            type Error = $crate::error::SblrError;

            fn try_from(raw: raw::$raw) -> $crate::error::Result<Self> {
                let model = $name {
                    $($field: raw.$field,)*
                    objective: raw.objective,
                    report: raw
                        .report
                        .into_report(<Self as $crate::saved::SavedModel>::MODEL, raw.objective)?,
                    class_names: raw.class_names,
                    params: raw.params,
                };
                model.validate()?;
                Ok(model)
            }
        }

        impl ::bl_core::Fitted for $name {
            $(#[$report_doc])*
            fn report(&self) -> &::bl_core::engine::FitReport {
                &self.report
            }
        }

        impl $crate::saved::SavedModel for $name {
            const MODEL: &'static str = stringify!($name);
        }

        impl $crate::saved::sealed::RawForm for $name {
            type Raw = raw::$raw;
        }
    };
}
pub(crate) use saved_model;

/// An edit of a model in a unit test: the field it breaks and the change.
#[cfg(test)]
pub(crate) type Edit<'a, M> = (&'a str, &'a dyn Fn(&mut M));

/// The model `params` fit on a small two-class data set passes its load-time checks
/// `validate`, and each edit (`(field, edit)`) of a copy makes them fail with
/// [`SblrError::InvalidModel`] naming `field`; returns the errors in the order of `edits`.
#[cfg(test)]
pub(crate) fn rejected_edits<P, M>(
    params: &P,
    validate: impl Fn(&M) -> Result<()>,
    edits: &[Edit<'_, M>],
) -> Vec<SblrError>
where
    P: bl_core::Fit<bl_core::data::MatrixDataset, Fitted = M>,
    P::Error: std::fmt::Debug,
    M: Clone,
{
    let data = crate::synthetic::two_class(12, 3, 3, 1.0, 0).unwrap();
    let model = params.fit(&data).unwrap();
    validate(&model).unwrap();
    edits
        .iter()
        .map(|(field, edit)| {
            let mut bad = model.clone();
            edit(&mut bad);
            let err = validate(&bad).unwrap_err();
            assert!(
                matches!(&err, SblrError::InvalidModel { field: f, .. } if f == field),
                "{field}: {err}"
            );
            err
        })
        .collect()
}
