//! The CRF baselines of the paper's Table 1 and Figs. 1-3: a first-order linear-chain CRF
//! with L2 regularization trained by L-BFGS ([`crate::Learner::CrfL2`]) or L1
//! regularization trained by OWL-QN ([`crate::Learner::CrfL1`]).
//!
//! The CRF reads the same feature ids as the online learners, like CRFsuite's `crf1d`
//! model: state features (feature id, tag) and tag-bigram transitions. Training minimizes
//! CRFsuite's objective, the negative conditional log-likelihood of the training corpus
//! plus `c2 ||w||_2^2` (L2, `c2 = c`) or `c1 ||w||_1` (L1, `c1 = c`), `c` being
//! [`crate::TaggerParams::c`].
//!
//! Two backends ([`CrfBackend`]):
//!
//! - [`CrfBackend::Rust`] (default): ours. Dense state weights for every (feature, tag)
//!   pair and `L x L` transitions; forward-backward with per-position scaling
//!   (`objective`), the gradient summed over the sentences in parallel with rayon in a
//!   fixed number of chunks (one per rayon thread) reduced in a fixed order, so a run is
//!   deterministic for a given thread count; L-BFGS / OWL-QN (`optim`) driven one
//!   iteration per step by [`bl_core::engine::run`]; decoding by the crate's
//!   [`mod@crate::viterbi`].
//! - [`CrfBackend::Crfsuite`]: the CRFsuite binding (its C library is built with cmake),
//!   only with the non-default Cargo feature `crfsuite`; kept to cross-check ours.
//!
//! Stopping (CRFsuite's defaults): at most `crf_max_iterations` iterations; stop when the
//! relative decrease of the objective over the last `period = 10` iterations,
//! `(F_{k-10} - F_k) / F_k`, falls to `delta = 1e-5`; or when `||g|| / max(1, ||w||) <=
//! 1e-5`; or when the line search finds no step.

mod model;
mod objective;
mod optim;

#[cfg(feature = "crfsuite")]
mod crfsuite;

use std::time::Instant;

use bl_core::TerminationReason;

use serde::{Deserialize, Serialize};

use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::model::Weights;
use crate::params::{Learner, TaggerParams};

pub use model::CrfWeights;

/// CRFsuite's items of an encoded sentence: one attribute per active feature, named by its
/// id (what the CRFsuite backend trains and tags on).
#[cfg(feature = "crfsuite")]
pub fn crfsuite_items(sentence: &EncodedSentence) -> Vec<::crfsuite::Item> {
    crfsuite::items(sentence)
}

/// Which implementation trains [`crate::Learner::CrfL2`] / [`crate::Learner::CrfL1`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum CrfBackend {
    /// The pure-Rust CRF of this crate.
    #[default]
    Rust,
    /// CRFsuite through its binding (needs the Cargo feature `crfsuite` and cmake).
    Crfsuite,
}

impl CrfBackend {
    /// Short name: `rust`, `crfsuite`.
    pub fn name(self) -> &'static str {
        match self {
            CrfBackend::Rust => "rust",
            CrfBackend::Crfsuite => "crfsuite",
        }
    }

    /// Whether this build can train with the backend.
    pub fn is_available(self) -> bool {
        match self {
            CrfBackend::Rust => true,
            CrfBackend::Crfsuite => cfg!(feature = "crfsuite"),
        }
    }
}

/// Relative decrease window of the stopping test (CRFsuite `period`).
pub const PERIOD: usize = 10;
/// Threshold of the stopping test (CRFsuite `delta`).
pub const DELTA: f64 = 1e-5;

/// Prints CRFsuite's training log to stdout (the comparison probe reads its iteration
/// count from it). Off by default.
#[cfg(feature = "crfsuite")]
pub fn set_crfsuite_verbose(on: bool) {
    crfsuite::VERBOSE.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// What one optimizer iteration reports.
struct Step {
    objective: f64,
    /// Stop after this iteration (gradient test or failed line search).
    stop: bool,
}

/// Runs `step` through the workspace's iteration engine, one optimizer iteration per call,
/// with CRFsuite's stopping rule; `f0` is the objective at the start. Returns the run's
/// report (its termination is the optimizer's: converged by the delta test, solved by the
/// gradient test or a line search that can go no further, or out of iterations).
fn drive(
    max_iterations: usize,
    f0: f64,
    mut step: impl FnMut() -> Result<Step>,
) -> Result<bl_core::FitReport> {
    use bl_core::engine::{IterationParams, Progress, run};
    let rule = IterationParams {
        max_iter: max_iterations,
        tol: DELTA,
        time_limit: None,
        ..IterationParams::default()
    };
    let mut past = vec![f0];
    let info = run(&rule, &mut [], |k| {
        let s = step()?;
        past.push(s.objective);
        let change = if k >= PERIOD {
            (past[k - PERIOD] - s.objective) / s.objective.abs().max(f64::MIN_POSITIVE)
        } else {
            f64::INFINITY
        };
        // The gradient test or a line search that can go no further ends the run.
        let stop = s.stop.then_some(bl_core::engine::Stop::Solved);
        Ok::<_, OblError>(Progress::new(s.objective, change).stop_if(stop))
    })?;
    Ok(info)
}

/// Checks that the gold tags fit the sentences and the tag count, and feature ids `< K`.
fn check_data(
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
    n_features: usize,
    n_tags: usize,
) -> Result<()> {
    if encoded.len() != gold.len() {
        return Err(bl_core::BlError::ShapeMismatch {
            context: "CRF training: gold tag sequences per sentence",
            expected: encoded.len().to_string(),
            found: gold.len().to_string(),
        }
        .into());
    }
    for (s, (enc, y)) in encoded.iter().zip(gold).enumerate() {
        if enc.len() != y.len() {
            return Err(bl_core::BlError::ShapeMismatch {
                context: "CRF training: gold tags of a sentence",
                expected: format!("{} tags (sentence {s})", enc.len()),
                found: y.len().to_string(),
            }
            .into());
        }
        if let Some(&t) = y.iter().find(|&&t| t >= n_tags) {
            return Err(crate::error::invalid(
                "gold tag",
                t,
                "below the number of tags",
            ));
        }
        if let Some(&k) = (0..enc.len())
            .flat_map(|i| enc.at(i))
            .find(|&&k| k as usize >= n_features)
        {
            return Err(crate::error::invalid(
                "feature id",
                k,
                "below the number of features",
            ));
        }
    }
    Ok(())
}

/// Trains a CRF with the parameters' backend; returns the weights and the seconds since
/// the start after each optimizer iteration (one entry for CRFsuite, which reports none).
pub(crate) fn fit(
    params: &TaggerParams,
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
    n_features: usize,
    n_tags: usize,
) -> Result<(Weights, Vec<f64>, Option<TerminationReason>)> {
    check_data(encoded, gold, n_features, n_tags)?;
    match params.crf_backend {
        CrfBackend::Rust => {
            let (w, seconds, termination) = fit_rust(params, encoded, gold, n_features, n_tags)?;
            Ok((Weights::Crf(w), seconds, Some(termination)))
        }
        CrfBackend::Crfsuite => {
            // CRFsuite does not tell how its optimizer ended.
            let (w, seconds) = fit_crfsuite(params, encoded, gold)?;
            Ok((w, seconds, None))
        }
    }
}

#[cfg(feature = "crfsuite")]
fn fit_crfsuite(
    params: &TaggerParams,
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
) -> Result<(Weights, Vec<f64>)> {
    let started = Instant::now();
    let model = crfsuite::train(params, encoded, gold)?;
    Ok((
        Weights::Crfsuite { model },
        vec![started.elapsed().as_secs_f64()],
    ))
}

#[cfg(not(feature = "crfsuite"))]
fn fit_crfsuite(
    _params: &TaggerParams,
    _encoded: &[EncodedSentence],
    _gold: &[Vec<usize>],
) -> Result<(Weights, Vec<f64>)> {
    Err(unavailable())
}

#[cfg(not(feature = "crfsuite"))]
fn unavailable() -> OblError {
    OblError::Crf(
        "the CRFsuite backend needs the `crfsuite` Cargo feature of online-bilinear".into(),
    )
}

/// Tags sentences with CRFsuite model bytes.
#[cfg(feature = "crfsuite")]
pub(crate) fn tag_crfsuite(
    model: &[u8],
    sentences: &[EncodedSentence],
    n_tags: usize,
) -> Result<Vec<Vec<usize>>> {
    crfsuite::tag(model, sentences, n_tags)
}

/// Tags sentences with CRFsuite model bytes (not compiled in: an error).
#[cfg(not(feature = "crfsuite"))]
pub(crate) fn tag_crfsuite(
    _model: &[u8],
    _sentences: &[EncodedSentence],
    _n_tags: usize,
) -> Result<Vec<Vec<usize>>> {
    Err(unavailable())
}

/// The Rust backend: L-BFGS (L2) or OWL-QN (L1) from zero weights.
fn fit_rust(
    params: &TaggerParams,
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
    n_features: usize,
    n_tags: usize,
) -> Result<(CrfWeights, Vec<f64>, TerminationReason)> {
    let started = Instant::now();
    let index = objective::StateIndex::observed(encoded, gold, n_features, n_tags);
    let mut objective =
        objective::Objective::new(encoded, gold, index, n_tags, rayon::current_num_threads());
    let dim = objective.dim();
    let settings = match params.learner {
        Learner::CrfL1 => optim::Settings {
            c1: params.c,
            ..optim::Settings::default()
        },
        _ => optim::Settings {
            c2: params.c,
            ..optim::Settings::default()
        },
    };
    let mut loss = |w: &[f64], g: &mut [f64]| objective.eval(w, g);
    let x0 = vec![0.0; dim];
    let mut qn = optim::QuasiNewton::new(settings, x0, &mut loss);
    let mut seconds = Vec::new();
    let report = drive(params.crf_max_iterations, qn.objective(), || {
        let outcome = qn.iterate(&mut loss);
        seconds.push(started.elapsed().as_secs_f64());
        Ok(Step {
            objective: qn.objective(),
            stop: outcome != optim::Outcome::Continue,
        })
    })?;
    let w = qn.into_x();
    let (state, transition) = w.split_at(objective.index().len());
    Ok((
        CrfWeights {
            state: objective.index().to_dense(state, n_tags),
            transition: transition.to_vec(),
        },
        seconds,
        report.termination,
    ))
}

#[cfg(test)]
mod tests;
