//! The saved-model format of [`FittedTagger`]: JSON, checked field by field on load.

use std::path::Path;
use std::sync::Arc;

use bl_core::IterationParams;
use bl_core::engine::{FitReport, TerminationReason, Trace, TraceRecord};
use serde::{Deserialize, Serialize};

use super::{FittedTagger, ZeroOrder};
use crate::error::{OblError, Result};
use crate::features::{FeatureDict, Templates};
use crate::learner::BuiltIn;
use crate::settings::{BcdSolver, LearnerSettings, Reading};
use crate::sparse::SparseWeights;
use crate::train::EpochInfo;
use crate::weights::Weights;

/// The learner as saved: a built-in's variant, or `Custom` for a user's learner (whose
/// name is `learner_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum SavedLearner {
    Bol,
    Bcd,
    Sp,
    CrfL2,
    CrfL1,
    Custom,
}

/// The parameters as saved (the layout of every version of the format: models saved
/// before the iteration knobs have `epochs` and `crf_max_iterations` alone).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SavedParams {
    learner: SavedLearner,
    /// The learner's name (absent in models saved before it: then the variant's).
    #[serde(default)]
    learner_name: Option<String>,
    /// The epoch budget (the online learners' `max_iter`).
    epochs: usize,
    c: f64,
    power_steps: usize,
    #[serde(default)]
    reading: Reading,
    #[serde(default)]
    bcd_solver: BcdSolver,
    averaging: bool,
    zero_order: bool,
    #[serde(default)]
    transitions_only: bool,
    /// The dictionary's templates (also in `dict`).
    templates: Templates,
    /// The dictionary's cutoff (also in `dict`).
    cutoff: usize,
    shuffle: bool,
    seed: u64,
    /// The CRFs' iteration budget (the CRFs' `max_iter`).
    crf_max_iterations: usize,
    /// Every iteration knob (absent in models saved before it).
    #[serde(default)]
    iteration: Option<IterationParams>,
}

impl SavedParams {
    fn of(model: &FittedTagger) -> Self {
        let builtin = BuiltIn::from_name(&model.learner);
        let learner = match builtin {
            Some(BuiltIn::Bol) => SavedLearner::Bol,
            Some(BuiltIn::Bcd) => SavedLearner::Bcd,
            Some(BuiltIn::Sp) => SavedLearner::Sp,
            Some(BuiltIn::CrfL2) => SavedLearner::CrfL2,
            Some(BuiltIn::CrfL1) => SavedLearner::CrfL1,
            None => SavedLearner::Custom,
        };
        let crf = matches!(learner, SavedLearner::CrfL2 | SavedLearner::CrfL1);
        let s = &model.settings;
        Self {
            learner,
            learner_name: Some(model.learner.clone()),
            epochs: if crf { 20 } else { model.iteration.max_iter },
            c: s.c,
            power_steps: s.power_steps,
            reading: s.reading,
            bcd_solver: s.bcd_solver,
            averaging: s.averaging,
            zero_order: s.zero_order,
            transitions_only: s.transitions_only,
            templates: model.dict.templates().clone(),
            cutoff: model.dict.cutoff(),
            shuffle: model.shuffle,
            seed: model.seed,
            crf_max_iterations: if crf { model.iteration.max_iter } else { 100 },
            iteration: Some(model.iteration),
        }
    }

    fn settings(&self) -> LearnerSettings {
        LearnerSettings {
            c: self.c,
            power_steps: self.power_steps,
            reading: self.reading,
            bcd_solver: self.bcd_solver,
            averaging: self.averaging,
            zero_order: self.zero_order,
            transitions_only: self.transitions_only,
        }
    }

    fn learner_name(&self) -> String {
        let variant = match self.learner {
            SavedLearner::Bol => "bol",
            SavedLearner::Bcd => "bcd",
            SavedLearner::Sp => "sp",
            SavedLearner::CrfL2 => "crf-l2",
            SavedLearner::CrfL1 => "crf-l1",
            SavedLearner::Custom => "custom",
        };
        self.learner_name.clone().unwrap_or_else(|| variant.into())
    }

    fn iteration(&self) -> IterationParams {
        match self.iteration {
            Some(iteration) => iteration,
            None if matches!(self.learner, SavedLearner::CrfL2 | SavedLearner::CrfL1) => {
                IterationParams::new(self.crf_max_iterations, crate::crf::DELTA)
            }
            None => IterationParams::new(self.epochs, 0.0),
        }
    }

    /// The checks of the values (those of the parameters' check).
    fn check(&self) -> Result<()> {
        self.settings().check()?;
        bl_core::params::at_least("epochs", self.epochs, 1)?;
        bl_core::params::at_least("cutoff", self.cutoff, 1)?;
        bl_core::params::at_least("crf_max_iterations", self.crf_max_iterations, 1)?;
        self.iteration().check()?;
        Ok(())
    }
}

#[derive(Serialize)]
struct SavedRef<'a> {
    format: &'static str,
    params: SavedParams,
    dict: &'a FeatureDict,
    tags: &'a [String],
    weights: &'a Weights,
    /// Dense 0-order weights (`K x L`).
    zero_order: Option<&'a Vec<f64>>,
    /// Sparse 0-order weights (rows of width `L`), absent when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    zero_order_rows: Option<&'a SparseWeights>,
    report: &'a FitReport,
    train_seconds: f64,
}

#[derive(Deserialize)]
struct Saved {
    format: String,
    params: SavedParams,
    dict: FeatureDict,
    tags: Vec<String>,
    weights: Weights,
    zero_order: Option<Vec<f64>>,
    /// Sparse 0-order weights (absent in models saved before them).
    #[serde(default)]
    zero_order_rows: Option<SparseWeights>,
    /// The run's report (models saved before reports existed have `history` instead).
    #[serde(default)]
    report: Option<FitReport>,
    /// Per-epoch statistics of models saved before `report`.
    #[serde(default)]
    history: Vec<EpochInfo>,
    train_seconds: f64,
}

/// The report of a model saved with per-epoch `history` only: one iteration per epoch, the
/// objective the epoch's online token error rate, the change its difference from the
/// previous epoch's (the first epoch's: from 0), the end reason the epoch budget. Every
/// value is finite (an empty history gives the objective 0), so the report survives the
/// next save and load (JSON has no NaN).
pub(crate) fn report_from_history(history: &[EpochInfo]) -> FitReport {
    report_of_epochs(history, None)
}

/// The report of `history` as [`report_from_history`] makes it, except that with
/// `Some(sentences)` (the non-empty training sentences) each epoch's change is the
/// ordinary fit's, the one its stopping test compares with `tol`: `mistakes / sentences`
/// (at least 1 sentence).
pub(crate) fn report_of_epochs(history: &[EpochInfo], sentences: Option<usize>) -> FitReport {
    let mut trace = Trace::default();
    let mut previous = 0.0;
    for info in history {
        let objective = info.token_errors as f64 / info.tokens.max(1) as f64;
        let change = match sentences {
            Some(n) => info.mistakes as f64 / n.max(1) as f64,
            None => (objective - previous).abs(),
        };
        previous = objective;
        trace.push(TraceRecord {
            iteration: info.epoch,
            objective,
            change,
            elapsed_s: info.seconds,
            extras: vec![
                ("mistakes".into(), info.mistakes as f64),
                ("token_errors".into(), info.token_errors as f64),
                ("tokens".into(), info.tokens as f64),
                ("train_seconds".into(), info.seconds),
            ],
        });
    }
    FitReport {
        iterations: history.len(),
        termination: TerminationReason::MaxIterations,
        objective: trace.objectives().last().copied().unwrap_or(0.0),
        elapsed: std::time::Duration::try_from_secs_f64(history.last().map_or(0.0, |h| h.seconds))
            .unwrap_or_default(),
        trace,
    }
}

const FORMAT: &str = "online-bilinear/1";

/// ``field `NAME`: DETAIL`` as a load error.
fn bad_field(field: &str, detail: impl std::fmt::Display) -> OblError {
    OblError::Serde(format!("field `{field}`: {detail}"))
}

/// `found == expected` values, where `expected` is the product `dims` described by `what`.
fn check_len(field: &str, dims: &[usize], what: &str, found: usize) -> Result<()> {
    let expected = dims
        .iter()
        .try_fold(1_usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| bad_field(field, format!("the size {what} = {dims:?} overflows")))?;
    if found != expected {
        return Err(bad_field(
            field,
            format!("expected {expected} values ({what} = {dims:?}), found {found}"),
        ));
    }
    Ok(())
}

/// Every value finite.
fn check_finite(field: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(bad_field(
            field,
            format!("expected finite values, found {} at index {i}", values[i]),
        )),
        None => Ok(()),
    }
}

/// `max_j |x_j|` of each row of `width` values.
fn row_max_abs(x: &[f64], width: usize) -> impl Iterator<Item = f64> + '_ {
    x.chunks_exact(width.max(1))
        .map(|row| row.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
}

impl Saved {
    /// The checks of [`FittedTagger::from_json`] (after the format tag).
    fn validate(&self) -> Result<()> {
        self.params.check().map_err(|e| bad_field("params", e))?;
        for info in &self.history {
            if !(info.seconds.is_finite() && info.seconds >= 0.0) {
                return Err(bad_field(
                    "history",
                    format!("expected finite times >= 0, found {}", info.seconds),
                ));
            }
        }
        let (k, l) = (self.dict.len(), self.tags.len());
        if l == 0 {
            return Err(bad_field("tags", "expected at least one tag, found none"));
        }
        if let Some((i, tag)) = bl_core::limits::first_duplicate(&self.tags) {
            return Err(bad_field(
                "tags",
                format!(
                    "tag {} appears twice (again at index {i})",
                    bl_core::limits::quote(tag)
                ),
            ));
        }
        // A model with more tags could not tag a one-token sentence: its score table
        // would be above the bound.
        if l > crate::viterbi::MAX_TAGS {
            return Err(bad_field(
                "tags",
                format!(
                    "expected at most {} tags (a one-token score table of (L + 1) L \
                     entries within {}), found {l}",
                    crate::viterbi::MAX_TAGS,
                    crate::viterbi::MAX_SCORE_TABLE
                ),
            ));
        }
        if !self.dict.ids_are_dense() {
            return Err(bad_field(
                "dict",
                format!("expected feature ids 0..{k} (each once), found others"),
            ));
        }
        self.dict
            .check_attributes()
            .map_err(|e| bad_field("dict", e))?;
        let p = l + 1;
        // Bound on |score| of one position: sum over features of the largest weight
        // product a feature contributes (every feature is active at most once).
        let mut bound = 0.0;
        match &self.weights {
            Weights::Bilinear { alpha, beta } => {
                check_len("weights.Bilinear.alpha", &[k, l], "K x L", alpha.len())?;
                check_len("weights.Bilinear.beta", &[k, p], "K x (L + 1)", beta.len())?;
                check_finite("weights.Bilinear.alpha", alpha)?;
                check_finite("weights.Bilinear.beta", beta)?;
                bound += row_max_abs(alpha, l)
                    .zip(row_max_abs(beta, p))
                    .map(|(a, b)| a * b)
                    .sum::<f64>();
            }
            Weights::Linear { w } => {
                check_len("weights.Linear.w", &[k, l, p], "K x L x (L + 1)", w.len())?;
                check_finite("weights.Linear.w", w)?;
                bound += row_max_abs(w, l * p).sum::<f64>();
            }
            Weights::SparseLinear { w } => {
                w.validate("weights.SparseLinear.w", k, p * l)
                    .map_err(|e| bad_field("weights.SparseLinear.w", e))?;
                bound += (0..k)
                    .map(|row| w.row(row).1.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
                    .sum::<f64>();
            }
            Weights::Crf(crf) => {
                check_len("weights.Crf.state", &[k, l], "K x L", crf.state.len())?;
                check_len(
                    "weights.Crf.transition",
                    &[l, l],
                    "L x L",
                    crf.transition.len(),
                )?;
                check_finite("weights.Crf.state", &crf.state)?;
                check_finite("weights.Crf.transition", &crf.transition)?;
                bound += crf.position_bound(l);
            }
        }
        if let Some(z) = &self.zero_order {
            check_len("zero_order", &[k, l], "K x L", z.len())?;
            check_finite("zero_order", z)?;
            bound += row_max_abs(z, l).sum::<f64>();
        }
        if let Some(rows) = &self.zero_order_rows {
            if self.zero_order.is_some() {
                return Err(bad_field(
                    "zero_order_rows",
                    "expected one of zero_order and zero_order_rows, found both",
                ));
            }
            rows.validate("zero_order_rows", k, l)
                .map_err(|e| bad_field("zero_order_rows", e))?;
            bound += (0..k)
                .map(|row| rows.row(row).1.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
                .sum::<f64>();
        }
        if !bound.is_finite() {
            return Err(bad_field(
                "weights",
                "expected weights whose score of one position is finite, found weights \
                 whose bound on it overflows f64",
            ));
        }
        if !(self.train_seconds.is_finite() && self.train_seconds >= 0.0) {
            return Err(bad_field(
                "train_seconds",
                format!("expected a finite value >= 0, found {}", self.train_seconds),
            ));
        }
        Ok(())
    }
}

impl FittedTagger {
    /// The model as JSON text.
    ///
    /// # Errors
    /// [`OblError::Serde`] if encoding fails.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(&SavedRef {
            format: FORMAT,
            params: SavedParams::of(self),
            dict: &self.dict,
            tags: &self.tags,
            weights: &self.weights,
            zero_order: match &self.zero_order {
                Some(ZeroOrder::Dense(z)) => Some(z),
                _ => None,
            },
            zero_order_rows: match &self.zero_order {
                Some(ZeroOrder::Sparse(rows)) => Some(rows),
                _ => None,
            },
            report: &self.report,
            train_seconds: self.train_seconds,
        })
        .map_err(|e| OblError::Serde(e.to_string()))
    }

    /// A model from the JSON text of [`to_json`](Self::to_json), checked before use: the
    /// format tag; valid parameters; at least one tag and at most
    /// [`MAX_TAGS`](crate::viterbi::MAX_TAGS) (a model with more could not tag a one-token
    /// sentence within [`MAX_SCORE_TABLE`](crate::viterbi::MAX_SCORE_TABLE)), no two equal
    /// (found in one hashed pass); feature ids exactly
    /// `0..K`; weights of the sizes the feature count `K` and tag count `L` give (`alpha`
    /// `K L`, `beta` `K (L + 1)`, `w` `K L (L + 1)`, `zero_order` `K L`, or
    /// `zero_order_rows` `K` sparse rows of tags below `L`, not both), finite and with a
    /// finite bound on the score of one position; a finite, non-negative training time.
    ///
    /// # Errors
    /// [`OblError::Serde`] for malformed text, another format, or a check above failing;
    /// the message names the field (e.g. ``field `weights.Bilinear.alpha`: expected 480
    /// values (K x L = [120, 4]), found 481``).
    pub fn from_json(text: &str) -> Result<Self> {
        let saved: Saved =
            serde_json::from_str(text).map_err(|e| OblError::Serde(e.to_string()))?;
        if saved.format != FORMAT {
            return Err(OblError::Serde(format!(
                "format `{}`, expected `{FORMAT}`",
                saved.format
            )));
        }
        saved.validate()?;
        let report = match saved.report {
            Some(report) => report,
            None => report_from_history(&saved.history),
        };
        Ok(Self {
            report,
            learner: saved.params.learner_name(),
            settings: saved.params.settings(),
            iteration: saved.params.iteration(),
            shuffle: saved.params.shuffle,
            seed: saved.params.seed,
            dict: Arc::new(saved.dict),
            tags: saved.tags,
            weights: saved.weights,
            zero_order: match (saved.zero_order, saved.zero_order_rows) {
                (_, Some(rows)) => Some(ZeroOrder::Sparse(rows)),
                (Some(z), None) => Some(ZeroOrder::Dense(z)),
                (None, None) => None,
            },
            zero_dense: Default::default(),
            train_seconds: saved.train_seconds,
        })
    }

    /// Saves the model as JSON.
    ///
    /// # Errors
    /// [`bl_core::BlError::Io`], [`OblError::Serde`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        Ok(std::fs::write(path, self.to_json()?).map_err(bl_core::error::io_error(path))?)
    }

    /// Loads a model saved by [`save`](Self::save).
    ///
    /// # Errors
    /// [`bl_core::BlError::Io`], [`OblError::Serde`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(bl_core::error::io_error(path))?;
        Self::from_json(&text)
    }
}

#[cfg(test)]
mod tests {
    use bl_core::{Fit, ParamGuard, Predict};

    use super::*;
    use crate::params::TaggerParams;

    /// A model whose 0-order weights are sparse rows (the built-in learners') and the same
    /// model with them dense (a custom learner's, or a model saved before the rows) save,
    /// load and tag alike, and give the same dense array.
    #[test]
    fn sparse_and_dense_zero_order_weights_tag_alike() {
        let corpus = crate::synthetic::token_function(60, 6, 2).unwrap();
        for params in [
            TaggerParams::sp().averaging(true).zero_order(true),
            TaggerParams::bol().zero_order(true),
            TaggerParams::bcd().averaging(true).zero_order(true),
        ] {
            let model = params.max_iter(3).check().unwrap().fit(&corpus).unwrap();
            let rows = model.zero_order_rows().expect("sparse rows").clone();
            let dense = model.zero_order_weights().unwrap().unwrap().to_vec();
            assert_eq!(dense, rows.to_dense().unwrap());
            let mut json: serde_json::Value =
                serde_json::from_str(&model.to_json().unwrap()).unwrap();
            assert!(json["zero_order"].is_null());
            json["zero_order"] = serde_json::json!(dense);
            json.as_object_mut().unwrap().remove("zero_order_rows");
            let as_dense = FittedTagger::from_json(&json.to_string()).unwrap();
            assert!(as_dense.zero_order_rows().is_none());
            let back = FittedTagger::from_json(&model.to_json().unwrap()).unwrap();
            assert_eq!(back.zero_order_rows(), Some(&rows));
            let want: Vec<Vec<String>> = model.predict(&corpus).unwrap();
            for other in [&as_dense, &back] {
                let got: Vec<Vec<String>> = other.predict(&corpus).unwrap();
                assert_eq!(got, want);
            }
            // Both forms at once are refused.
            json["zero_order_rows"] = serde_json::to_value(&rows).unwrap();
            let err = FittedTagger::from_json(&json.to_string())
                .unwrap_err()
                .to_string();
            assert!(err.contains("zero_order_rows"), "{err}");
        }
    }
}
