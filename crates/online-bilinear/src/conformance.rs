//! The conformance suite of the [`Learner`] plug-in: the checks every learner must pass,
//! built-in or not.
//!
//! [`conformance`] (with the default settings) and [`conformance_with`] start the
//! candidate on a small corpus of [`crate::synthetic::token_function`] (the tag of a token
//! is a function of the token) and record, in order:
//!
//! 1. `start`: the learner starts for the corpus's shape;
//!
//! then, for an online learner ([`Training::Online`]):
//!
//! 2. `scores-shape`: a sentence of `n` tokens (encoded with the dictionary the learner
//!    was started for) gets `n (L + 1) L` finite scores, and no error;
//! 3. `snapshot-shape`: the snapshot has the sizes of [`OnlineWeights`](crate::OnlineWeights)
//!    for `K` features and `L` tags, and finite values;
//! 4. `snapshot-agrees` (only without averaging): the snapshot's weights score every
//!    sentence as the learner's [`scores`](OnlineLearner::scores) do (relative difference
//!    at most `1e-8`), before and after updates;
//! 5. `decode-agrees`: the learner's [`decode`](OnlineLearner::decode) gives the path
//!    that Viterbi finds on its [`scores`](OnlineLearner::scores), for every sentence
//!    before and between updates;
//! 6. `deterministic`: two learners started alike and given the same updates score alike
//!    (an error of an update is recorded as a failed `update`);
//!
//! and for every learner:
//!
//! 7. `learns`: the crate's fit (10 epochs or iterations, shuffled with seed 3) leaves a
//!    training token error rate at most half that of the untrained model (all weights
//!    zero tag every token with the first tag).
//!
//! Every built-in learner passes with the default settings; bol with the paper's exact
//! reading ([`crate::Reading::SpectralExact`]) fails `learns` alone (it keeps one
//! feature's block and cannot learn).
//!
//! ```
//! use online_bilinear::BuiltIn;
//! use online_bilinear::conformance::conformance;
//!
//! for learner in BuiltIn::ALL {
//!     let report = conformance(&learner);
//!     assert!(report.passed(), "{report}");
//! }
//! ```

use std::sync::Arc;

use bl_core::{ConformanceReport, Extension, ParamGuard};

use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::fit::PreparedCorpus;
use crate::learner::{Learner, LearnerShape, OnlineLearner, Training};
use crate::params::{TaggerParams, TaggerValidParams};
use crate::settings::{LearnerSettings, Setting};

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
    learner.scores(sentence, &mut out).map_err(|e| {
        fail(
            "scores-shape",
            format!("a sentence of the learner's own dictionary got an error: {e}"),
        )
    })?;
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
    crate::learner::check_snapshot(&snapshot, shape)
        .map_err(|e| fail("snapshot-shape", e.to_string()))?;
    let zero = snapshot.zero_order.as_deref();
    let mut out = Vec::new();
    snapshot
        .weights
        .scores(sentence, shape.n_tags, zero, &mut out);
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

/// A learner that reads every setting, to check parameters carrying any settings (the
/// suite fits the candidate itself).
#[derive(Debug)]
struct ReadsAll;

impl Extension for ReadsAll {
    fn name(&self) -> &str {
        "conformance"
    }
}

impl Learner for ReadsAll {
    fn start(&self, _: LearnerShape, _: &LearnerSettings) -> Result<Training> {
        Err(fail(
            "start",
            "the suite's placeholder is never started".into(),
        ))
    }
}

/// The suite's parameters: `settings`, 10 epochs or iterations, shuffled with seed 3.
fn suite_params(settings: &LearnerSettings) -> Result<TaggerValidParams> {
    TaggerParams::new(Arc::new(ReadsAll))
        .max_iter(10)
        .shuffle(true)
        .seed(3)
        .c(settings.c)
        .power_steps(settings.power_steps)
        .reading(settings.reading)
        .bcd_solver(settings.bcd_solver)
        .averaging(settings.averaging)
        .zero_order(settings.zero_order)
        .transitions_only(settings.transitions_only)
        .check()
}

/// The suite with the default settings ([`LearnerSettings::default`]).
pub fn conformance(candidate: &dyn Learner) -> ConformanceReport {
    conformance_with(candidate, &LearnerSettings::default())
}

/// The suite of the [module docs](self) with `settings` (only those the candidate
/// [reads](Learner::reads) are given to it; the others keep their defaults).
pub fn conformance_with(candidate: &dyn Learner, settings: &LearnerSettings) -> ConformanceReport {
    let mut report = ConformanceReport::new(candidate.name());
    let mut given = LearnerSettings::default();
    for setting in candidate.reads() {
        copy_setting(&mut given, settings, *setting);
    }
    let setup = crate::synthetic::token_function(40, 3, 7)
        .and_then(|corpus| Ok((suite_params(&given)?, corpus)))
        .and_then(|(params, corpus)| Ok((params.prepare(&corpus)?, params, corpus)));
    let (prepared, params, corpus) = match setup {
        Ok(setup) => setup,
        Err(e) => {
            report.record_result::<(), _>("start", &Err(e));
            return report;
        }
    };
    let shape = LearnerShape {
        n_features: prepared.features().len(),
        n_tags: prepared.tags().len(),
        bias_feature: prepared.features().bias_id().map(|id| id as usize),
    };
    let started = candidate
        .start(shape, &given)
        .and_then(|first| Ok((first, candidate.start(shape, &given)?)));
    match started {
        Err(e) => {
            report.record_result::<(), _>("start", &Err(e));
            return report;
        }
        Ok((Training::Online(first), Training::Online(second))) => {
            report.record("start", true, String::new);
            online_contract(&mut report, first, second, &prepared, shape, &given);
        }
        Ok((Training::Crf(_), Training::Crf(_))) => report.record("start", true, String::new),
        Ok(_) => {
            report.record("start", false, || {
                "two starts with the same shape and settings gave different kinds of training"
                    .into()
            });
            return report;
        }
    }
    let learns = learns(candidate, &params, &prepared, &corpus);
    report.record_result("learns", &learns);
    report
}

fn copy_setting(to: &mut LearnerSettings, from: &LearnerSettings, setting: Setting) {
    match setting {
        Setting::C => to.c = from.c,
        Setting::PowerSteps => to.power_steps = from.power_steps,
        Setting::Reading => to.reading = from.reading,
        Setting::BcdSolver => to.bcd_solver = from.bcd_solver,
        Setting::Averaging => to.averaging = from.averaging,
        Setting::ZeroOrder => to.zero_order = from.zero_order,
        Setting::TransitionsOnly => to.transitions_only = from.transitions_only,
    }
}

/// Checks 2-6 of the [module docs](self), each recorded once (failed at its first
/// failing case).
fn online_contract(
    report: &mut ConformanceReport,
    mut first: Box<dyn OnlineLearner>,
    mut second: Box<dyn OnlineLearner>,
    prepared: &PreparedCorpus,
    shape: LearnerShape,
    settings: &LearnerSettings,
) {
    let l = shape.n_tags;
    let (sentences, gold) = (&prepared.encoded, &prepared.gold);
    let agreement = |learner: &dyn OnlineLearner| -> Result<()> {
        for sentence in sentences {
            let own = learner_scores(learner, sentence, l)?;
            let from_snapshot = snapshot_scores(learner, sentence, shape)?;
            if !settings.averaging {
                agree("snapshot-agrees", &own, &from_snapshot, 1e-8)?;
            }
        }
        Ok(())
    };
    let mut run = || -> Result<()> {
        agreement(first.as_ref())?;
        // Replay the same updates (the Viterbi mistakes of `first`) on both learners.
        let mut ws = crate::viterbi::ViterbiWorkspace::default();
        let mut scratch = Vec::new();
        let mut pass = 0;
        for _ in 0..2 {
            for _ in 0..first.passes_per_epoch().max(1) {
                first.begin_pass(pass);
                second.begin_pass(pass);
                pass += 1;
                for (sentence, y) in sentences.iter().zip(gold) {
                    let scores = learner_scores(first.as_ref(), sentence, l)?;
                    let mut predicted = vec![0; sentence.len()];
                    crate::viterbi::viterbi_into(
                        &scores,
                        sentence.len(),
                        l,
                        &mut ws,
                        &mut predicted,
                    )?;
                    let mut decoded = vec![0; sentence.len()];
                    first.decode(sentence, l, &mut scratch, &mut ws, &mut decoded)?;
                    if decoded != predicted {
                        return Err(fail(
                            "decode-agrees",
                            format!(
                                "decode gave the path {decoded:?}, Viterbi on the scores \
                                 {predicted:?}"
                            ),
                        ));
                    }
                    if predicted != *y {
                        first.update(sentence, y, &predicted)?;
                        second.update(sentence, y, &predicted)?;
                    }
                    first.record();
                    second.record();
                }
            }
            agreement(first.as_ref())?;
            for sentence in sentences {
                let a = learner_scores(first.as_ref(), sentence, l)?;
                let b = learner_scores(second.as_ref(), sentence, l)?;
                if a != b {
                    return Err(fail(
                        "deterministic",
                        "two learners started alike and updated alike score a sentence \
                         differently"
                            .into(),
                    ));
                }
            }
        }
        Ok(())
    };
    const CHECKS: [&str; 5] = [
        "scores-shape",
        "snapshot-shape",
        "snapshot-agrees",
        "decode-agrees",
        "deterministic",
    ];
    match run() {
        Ok(()) => {
            for check in CHECKS {
                report.record(check, true, String::new);
            }
        }
        // The checks are interleaved: only the one that failed is recorded.
        Err(OblError::Learner { check, message }) => report.record(check, false, || message),
        Err(e) => report.record("update", false, || e.to_string()),
    }
}

/// Check 7: the fit learns the task.
fn learns(
    candidate: &dyn Learner,
    params: &TaggerValidParams,
    prepared: &PreparedCorpus,
    corpus: &crate::data::Corpus,
) -> Result<()> {
    let model = params.train(candidate, prepared, &mut [], None)?;
    let trained = model.evaluate(corpus)?.label_error_rate;
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
