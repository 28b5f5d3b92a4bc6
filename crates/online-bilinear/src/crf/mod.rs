//! The CRF baselines of the paper's Table 1 and Figs. 1-3: a first-order linear-chain CRF
//! with L2 regularization trained by L-BFGS ([`crate::BuiltIn::CrfL2`]) or L1
//! regularization trained by OWL-QN ([`crate::BuiltIn::CrfL1`]).
//!
//! The CRF reads the same feature ids as the online learners, like CRFsuite's `crf1d`
//! model: state features (feature id, tag) and tag-bigram transitions. Training minimizes
//! CRFsuite's objective, the negative conditional log-likelihood of the training corpus
//! plus `c2 ||w||_2^2` (L2, `c2 = c`) or `c1 ||w||_1` (L1, `c1 = c`), `c` being
//! [`crate::TaggerParams::c`].
//!
//! The gradient runs on the fit's `threads` ([`bl_core::IterationParams::install`]).
//!
//! State weights are stored densely for every (feature, tag) pair, of which training moves
//! only the pairs seen in the training data (CRFsuite's default; the others stay 0), and
//! `L x L` transitions; forward-backward with per-position scaling (`objective`), the
//! gradient summed over the sentences in parallel with rayon in a fixed number of chunks
//! (one per rayon thread) reduced in a fixed order, so a run is deterministic for a given
//! thread count; L-BFGS / OWL-QN (`optim`) driven one iteration per step by
//! [`bl_core::engine::run`]; decoding by the crate's [`mod@crate::viterbi`]. CRFsuite itself
//! is no dependency of this crate: the probe crate `probes/crfsuite` of the repository
//! trains it on the same feature ids to cross-check this one.
//!
//! Stopping (CRFsuite's defaults): at most `max_iter` iterations
//! (default 100); stop when the relative decrease of the objective over the last
//! `period = 10` iterations, `(F_{k-10} - F_k) / F_k`, falls to `tol` (default CRFsuite's
//! `delta = 1e-5`): converged; or when `||g|| / max(1, ||w||) <= 1e-5`: solved; or when the
//! line search finds no step within its trials (or reaches a step bound or the limit of
//! rounding): out of its budget ([`bl_core::TerminationReason::BudgetExhausted`], not
//! converged); or at the time limit. The optimizer's run is an inner run of the tagger's fit
//! (untraced); its termination and iteration count reach the fit's report.

mod model;
mod objective;

use chain_crf::optim;

use bl_core::{IterationParams, TerminationReason};

use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::settings::CrfPenalty;

pub use model::CrfWeights;

/// Relative decrease window of the stopping test (CRFsuite `period`).
pub const PERIOD: usize = 10;
/// Threshold of the stopping test (CRFsuite `delta`).
pub const DELTA: f64 = 1e-5;

/// What one optimizer iteration reports.
struct Step {
    objective: f64,
    /// Stop after this iteration ([`optim::Outcome::stop`]).
    stop: Option<bl_core::engine::Stop>,
}

/// Runs `step` through the workspace's iteration engine, one optimizer iteration per call,
/// with CRFsuite's stopping rule (budget, tolerance and time limit of `rule`, untraced);
/// `f0` is the objective at the start. Returns the run's
/// report (its termination is the optimizer's: converged by the delta test, solved by the
/// gradient test, out of its budget for a line search that finds no step, or out of
/// iterations; a
/// non-finite gradient or line search is an error before it, see
/// [`chain_crf::optim::Outcome::NonFinite`]).
fn drive(
    rule: &IterationParams,
    f0: f64,
    mut step: impl FnMut() -> Result<Step>,
) -> Result<bl_core::FitReport> {
    use bl_core::engine::{Progress, run};
    // An inner run: its report is read for the termination and the iteration count only.
    let rule = rule.untraced();
    let mut past = vec![f0];
    let info = run(&rule, &mut [], |k| {
        let s = step()?;
        past.push(s.objective);
        let change = if k >= PERIOD {
            (past[k - PERIOD] - s.objective) / s.objective.abs().max(f64::MIN_POSITIVE)
        } else {
            f64::INFINITY
        };
        Ok::<_, OblError>(Progress::new(s.objective, change).stop_if(s.stop))
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

/// What a CRF fit trains: the penalty and its weight, and the optimizer's iteration knobs
/// (`max_iter`, `tol`, `time_limit`; `threads` for the gradient).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CrfJob {
    pub(crate) penalty: CrfPenalty,
    pub(crate) c: f64,
    pub(crate) iteration: IterationParams,
}

/// How the optimizer's run went.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CrfRun {
    /// Optimizer iterations.
    pub(crate) iterations: usize,
    /// The optimizer's termination.
    pub(crate) termination: TerminationReason,
}

/// Trains a CRF on the job's threads: L-BFGS (L2) or OWL-QN (L1) from zero weights.
pub(crate) fn fit(
    job: &CrfJob,
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
    n_features: usize,
    n_tags: usize,
) -> Result<(CrfWeights, CrfRun)> {
    check_data(encoded, gold, n_features, n_tags)?;
    job.iteration.install(|| {
        let index = objective::StateIndex::observed(encoded, gold, n_features, n_tags);
        let mut objective =
            objective::Objective::new(encoded, gold, index, n_tags, rayon::current_num_threads());
        let dim = objective.dim();
        let settings = match job.penalty {
            CrfPenalty::L1 => optim::Settings {
                c1: job.c,
                ..optim::Settings::default()
            },
            CrfPenalty::L2 => optim::Settings {
                c2: job.c,
                ..optim::Settings::default()
            },
        };
        // The optimizer takes a loss that cannot fail: an error of the objective (none with
        // its own dimension) is kept here, given as a NaN loss, and returned after the call.
        let failed = std::cell::Cell::new(None);
        let mut loss = |w: &[f64], g: &mut [f64]| {
            objective.eval(w, g).unwrap_or_else(|e| {
                failed.set(Some(e));
                f64::NAN
            })
        };
        let x0 = vec![0.0; dim];
        let mut qn = optim::QuasiNewton::new(settings, x0, &mut loss)?;
        if let Some(e) = failed.take() {
            return Err(e);
        }
        let report = drive(&job.iteration, qn.objective(), || {
            let outcome = qn.iterate(&mut loss);
            if let Some(e) = failed.take() {
                return Err(e);
            }
            if outcome == optim::Outcome::NonFinite {
                return Err(optim::non_finite());
            }
            Ok(Step {
                objective: qn.objective(),
                stop: outcome.stop(),
            })
        })?;
        let w = qn.into_x();
        let (state, transition) = w.split_at(objective.index().len());
        Ok((
            CrfWeights {
                state: objective.index().to_dense(state, n_tags),
                transition: transition.to_vec(),
            },
            CrfRun {
                iterations: report.iterations,
                termination: report.termination,
            },
        ))
    })?
}

#[cfg(test)]
mod tests;
