//! The checks every [`OnlineLearner`] must pass, built-in or not.
//!
//! [`check_learner`] builds learners from a [`LearnerFactory`] on a small corpus of
//! [`crate::synthetic::token_function`] (the tag of a token is a function of the token) and
//! checks, in order:
//!
//! 1. `build`: the factory builds a learner for the corpus's shape;
//! 2. `scores-shape`: a sentence of `n` tokens gets `n (L + 1) L` finite scores;
//! 3. `snapshot-shape`, `snapshot-finite`: the snapshot has the sizes of
//!    [`OnlineWeights`](crate::OnlineWeights) for `K` features and `L` tags, and finite values;
//! 4. `snapshot-agrees` (only when `params` do not average): the snapshot's weights score
//!    every sentence as the learner's [`scores`](OnlineLearner::scores) do (relative
//!    difference at most `1e-8`), before and after updates;
//! 5. `deterministic`: two learners built alike and given the same updates score alike;
//!
//! [`check_learns`] adds a check of quality, not of the contract: `learns`, fitting
//! through the normal fit (`epochs` = 10) leaves a training token error rate at most half
//! that of the untrained model (all weights zero tags every token with the first tag).
//! Every built-in learner passes it except bol with the paper's exact reading
//! ([`crate::Reading::SpectralExact`]), which keeps one feature's block and cannot.
//!
//! ```
//! use online_bilinear::learner::{conformance, BuiltIn};
//! use online_bilinear::TaggerParams;
//! conformance::check_learner(&BuiltIn, &TaggerParams::sp())?;
//! conformance::check_learns(&BuiltIn, &TaggerParams::sp())?;
//! # Ok::<(), online_bilinear::OblError>(())
//! ```

use super::{LearnerFactory, LearnerShape, OnlineLearner};
use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::params::TaggerParams;

fn fail(check: &'static str, message: String) -> OblError {
    OblError::Learner { check, message }
}

/// Scores of `sentence` by the learner, checked for size and finiteness.
fn learner_scores(
    learner: &dyn OnlineLearner,
    sentence: &EncodedSentence,
    l: usize,
) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    learner.scores(sentence, &mut out);
    let expected = sentence.len() * (l + 1) * l;
    if out.len() != expected {
        return Err(fail(
            "scores-shape",
            format!(
                "a sentence of {} tokens got {} scores, expected {expected}",
                sentence.len(),
                out.len()
            ),
        ));
    }
    if let Some(i) = out.iter().position(|v| !v.is_finite()) {
        return Err(fail("scores-shape", format!("score {i} is {}", out[i])));
    }
    Ok(out)
}

/// Scores of `sentence` by the learner's snapshot, through the fitted tagger's scoring.
fn snapshot_scores(
    learner: &dyn OnlineLearner,
    sentence: &EncodedSentence,
    shape: LearnerShape,
) -> Result<Vec<f64>> {
    let snapshot = learner.snapshot();
    super::check_snapshot(&snapshot, shape)?;
    let l = shape.n_tags;
    let zero = snapshot.zero_order.as_deref();
    let mut out = Vec::new();
    snapshot.weights.scores(sentence, l, zero, &mut out);
    Ok(out)
}

fn agree(check: &'static str, a: &[f64], b: &[f64], tol: f64) -> Result<()> {
    let scale = a.iter().chain(b).fold(1.0_f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if (x - y).abs() > tol * scale {
            return Err(fail(
                check,
                format!("score {i}: {x} against {y} (scale {scale})"),
            ));
        }
    }
    Ok(())
}

/// The corpus of the checks.
fn corpus() -> Result<crate::data::Corpus> {
    crate::synthetic::token_function(40, 3, 7)
}

/// Runs the contract checks 1-5 of the [module docs](self) on the learners `factory`
/// builds with `params` (only the fields the learner reads matter).
///
/// # Errors
/// [`OblError::Learner`] naming the first check that fails; any error the learner
/// returns.
pub fn check_learner(factory: &dyn LearnerFactory, params: &TaggerParams) -> Result<()> {
    let corpus = corpus()?;
    let params = params.clone();
    params.check_values()?;
    let prepared = params.prepare(&corpus)?;
    let shape = LearnerShape {
        n_features: prepared.features().len(),
        n_tags: prepared.tags().len(),
        bias_feature: prepared.features().bias_id().map(|id| id as usize),
    };
    let l = shape.n_tags;
    let sentences = &prepared.encoded;
    let gold = &prepared.gold;

    // 1-3: build, scores, snapshot.
    let mut first = factory
        .build(shape, &params)
        .map_err(|e| fail("build", e.to_string()))?;
    let mut second = factory
        .build(shape, &params)
        .map_err(|e| fail("build", e.to_string()))?;
    let check_agreement = |learner: &dyn OnlineLearner| -> Result<()> {
        for sentence in sentences {
            let own = learner_scores(learner, sentence, l)?;
            let from_snapshot = snapshot_scores(learner, sentence, shape)?;
            if !params.averaging {
                agree("snapshot-agrees", &own, &from_snapshot, 1e-8)?;
            }
        }
        Ok(())
    };
    check_agreement(first.as_ref())?;

    // 4-5: replay the same updates (the Viterbi mistakes of `first`) on both learners.
    let mut ws = crate::viterbi::ViterbiWorkspace::default();
    let mut pass = 0;
    for _ in 0..2 {
        for _ in 0..first.passes_per_epoch().max(1) {
            first.begin_pass(pass);
            second.begin_pass(pass);
            pass += 1;
            for (sentence, y) in sentences.iter().zip(gold) {
                let scores = learner_scores(first.as_ref(), sentence, l)?;
                let mut predicted = vec![0; sentence.len()];
                crate::viterbi::viterbi_into(&scores, sentence.len(), l, &mut ws, &mut predicted)?;
                if predicted != *y {
                    first.update(sentence, y, &predicted)?;
                    second.update(sentence, y, &predicted)?;
                }
                first.record();
                second.record();
            }
        }
        check_agreement(first.as_ref())?;
        for sentence in sentences {
            let a = learner_scores(first.as_ref(), sentence, l)?;
            let b = learner_scores(second.as_ref(), sentence, l)?;
            if a != b {
                return Err(fail(
                    "deterministic",
                    "two learners built alike and updated alike score a sentence differently"
                        .into(),
                ));
            }
        }
    }

    Ok(())
}

/// The `learns` check of the [module docs](self): the crate's normal fit with `factory`
/// as the learner and `params` (`epochs`, `shuffle` and `seed` set by the check).
///
/// # Errors
/// [`OblError::Learner`] when the learner does not learn the task; any error of the fit.
pub fn check_learns(factory: &dyn LearnerFactory, params: &TaggerParams) -> Result<()> {
    let corpus = corpus()?;
    let fit_params = params.clone().epochs(10).shuffle(true).seed(3);
    fit_params.check_values()?;
    let prepared = fit_params.prepare(&corpus)?;
    let model = fit_params.fit_with_factory(&prepared, factory, &mut [], None)?;
    let trained = model.evaluate(&corpus)?.label_error_rate;
    let first_tag = &prepared.tags()[0];
    let tokens = corpus.n_tokens().max(1) as f64;
    let untrained = corpus
        .sentences()
        .iter()
        .flat_map(|s| s.tags())
        .filter(|t| *t != first_tag)
        .count() as f64
        / tokens;
    if trained > 0.5 * untrained {
        return Err(fail(
            "learns",
            format!(
                "training token error rate {trained:.4} after 10 epochs, more than half the \
                 untrained model's {untrained:.4}"
            ),
        ));
    }
    Ok(())
}
