//! Every public fit of the crate run with an observer attached: the observer sees exactly
//! the report's trace, one record per epoch, and the trace obeys what the theory gives.

use crate::common;

use bl_core::engine::{IterationView, TerminationReason};
use std::sync::Arc;

use online_bilinear::{
    BcdSolver, BuiltIn, Extension, Fit, Fitted, FittedTagger, Learner, LearnerSettings,
    LearnerShape, ParamGuard, Reading, TaggerParams, Training, synthetic,
};

/// What an observer saw of one iteration.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    iteration: usize,
    objective: f64,
    change: f64,
    extras: Vec<(String, f64)>,
}

fn record(seen: &mut Vec<Seen>) -> impl FnMut(&IterationView<'_>) + '_ {
    |v: &IterationView<'_>| {
        seen.push(Seen {
            iteration: v.iteration,
            objective: v.objective,
            change: v.change,
            extras: v.extras.iter().map(|(k, x)| (k.to_string(), *x)).collect(),
        })
    }
}

/// The observer's records are the report's trace, one per iteration.
fn assert_seen_is_trace(seen: &[Seen], model: &FittedTagger) {
    let report = model.report();
    assert_eq!(seen.len(), report.iterations);
    assert_eq!(report.trace.len(), report.iterations);
    for (s, r) in seen.iter().zip(report.trace.records()) {
        assert_eq!(s.iteration, r.iteration);
        assert_eq!(s.objective.to_bits(), r.objective.to_bits());
        assert_eq!(s.change.to_bits(), r.change.to_bits());
        assert_eq!(s.extras, r.extras);
    }
    assert_eq!(
        seen.iter().map(|s| s.iteration).collect::<Vec<_>>(),
        (1..=report.iterations).collect::<Vec<_>>()
    );
}

fn extra(s: &Seen, name: &str) -> f64 {
    s.extras.iter().find(|(k, _)| k == name).unwrap().1
}

fn online_params() -> Vec<(&'static str, TaggerParams)> {
    vec![
        ("bol", TaggerParams::bol()),
        (
            "bol spectral-algorithm2",
            TaggerParams::bol().reading(Reading::SpectralAlgorithm2),
        ),
        ("bcd", TaggerParams::bcd()),
        (
            "bcd algorithm1",
            TaggerParams::bcd().bcd_solver(BcdSolver::Algorithm1),
        ),
        ("sp", TaggerParams::sp()),
    ]
}

/// On a corpus whose tags are a function of the token (linearly separable), the online
/// learners of the perceptron family make finitely many mistakes (Novikoff's bound; for
/// bol and bcd the same mistake-driven argument applies to the dual steps), so within
/// the epoch budget an epoch without a mistake comes, and the run stops there with
/// `Converged`: the last epoch updated nothing, so the model decodes every training
/// sentence correctly.
#[test]
fn every_online_learner_reports_each_epoch_to_the_observer_and_converges_on_separable_data() {
    let corpus = synthetic::token_function(60, 3, 11).unwrap();
    for (name, params) in online_params() {
        let params = params.max_iter(30);
        let mut seen = Vec::new();
        let model = params
            .fit_observed(&corpus, &mut [&mut record(&mut seen)])
            .unwrap();
        assert_seen_is_trace(&seen, &model);
        let tokens = corpus.n_tokens() as f64;
        for s in &seen {
            assert_eq!(extra(s, "tokens"), tokens, "{name}");
            assert_eq!(s.objective, extra(s, "token_errors") / tokens, "{name}");
            assert_eq!(
                s.change,
                extra(s, "mistakes") / corpus.len() as f64,
                "{name}"
            );
        }
        let report = model.report();
        assert_eq!(report.termination, TerminationReason::Converged, "{name}");
        assert!(report.iterations < 30, "{name}");
        assert_eq!(seen.last().unwrap().change, 0.0, "{name}");
        assert_eq!(
            model.evaluate(&corpus).unwrap().label_error_rate,
            0.0,
            "{name}"
        );
        // Training time is monotone over the epochs.
        let times: Vec<f64> = seen.iter().map(|s| extra(s, "train_seconds")).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{name}");
    }
}

/// On a task that is not learned in a few epochs, the run spends its epoch budget.
#[test]
fn the_epoch_budget_ends_a_run_that_still_makes_mistakes() {
    let corpus = common::lexicon_corpus(80, 4);
    let mut seen = Vec::new();
    let model = TaggerParams::bol()
        .max_iter(2)
        .fit_observed(&corpus, &mut [&mut record(&mut seen)])
        .unwrap();
    assert_seen_is_trace(&seen, &model);
    assert_eq!(model.report().iterations, 2);
    assert_eq!(model.report().termination, TerminationReason::MaxIterations);
}

#[test]
fn prepared_and_snapshot_fits_report_to_the_observer() {
    let corpus = common::lexicon_corpus(80, 4);
    let test = common::lexicon_corpus(30, 5);
    let params = TaggerParams::sp().max_iter(3).check().unwrap();
    let prepared = params.prepare(&corpus).unwrap();

    let mut seen = Vec::new();
    let model = params
        .fit_observed(&prepared, &mut [&mut record(&mut seen)])
        .unwrap();
    assert_seen_is_trace(&seen, &model);

    let mut seen_snapshots = Vec::new();
    let mut epochs = Vec::new();
    let snapshots = params
        .fit_observed(
            &prepared.with_snapshots(|info, m| {
                epochs.push((info.epoch, m.evaluate(&test)?.label_error_rate));
                Ok(())
            }),
            &mut [&mut record(&mut seen_snapshots)],
        )
        .unwrap();
    assert_seen_is_trace(&seen_snapshots, &snapshots);
    assert_eq!(
        epochs.iter().map(|e| e.0).collect::<Vec<_>>(),
        (1..=snapshots.report().iterations).collect::<Vec<_>>()
    );
    // The same seed gives the same run with or without snapshots.
    let objectives = |s: &[Seen]| s.iter().map(|x| x.objective).collect::<Vec<_>>();
    assert_eq!(objectives(&seen), objectives(&seen_snapshots));
    assert_eq!(
        epochs.last().unwrap().1,
        model.evaluate(&test).unwrap().label_error_rate
    );
}

#[test]
fn a_custom_learner_reports_to_the_observer() {
    #[derive(Debug)]
    struct Sp;
    impl Extension for Sp {
        fn name(&self) -> &str {
            "sp through the plug-in"
        }
    }
    impl Learner for Sp {
        fn start(
            &self,
            shape: LearnerShape,
            settings: &LearnerSettings,
        ) -> online_bilinear::Result<Training> {
            Ok(Training::Online(Box::new(online_bilinear::Sp::new(
                shape.n_features,
                shape.n_tags,
                settings,
                shape.bias_feature,
            )?)))
        }
    }
    let corpus = common::lexicon_corpus(60, 4);
    let mut seen = Vec::new();
    let model = TaggerParams::new(Arc::new(Sp))
        .max_iter(3)
        .fit_observed(&corpus, &mut [&mut record(&mut seen)])
        .unwrap();
    assert_seen_is_trace(&seen, &model);
    assert_eq!(model.learner(), "sp through the plug-in");
    assert_ne!(model.learner(), BuiltIn::Sp.name());
    let built_in = TaggerParams::sp().max_iter(3).fit(&corpus).unwrap();
    assert_eq!(
        model.report().trace.objectives(),
        built_in.report().trace.objectives()
    );
}

/// A CRF fit is one iteration; its objective is the trained CRF's training error, below
/// that of the untrained model (every token the first tag).
#[test]
fn crf_fits_report_one_iteration_to_the_observer() {
    let corpus = common::cyclic_corpus(40, 0);
    for params in [TaggerParams::crf_l2(), TaggerParams::crf_l1()] {
        let mut seen = Vec::new();
        let model = params
            .c(0.1)
            .max_iter(30)
            .fit_observed(&corpus, &mut [&mut record(&mut seen)])
            .unwrap();
        assert_seen_is_trace(&seen, &model);
        assert_eq!(model.report().iterations, 1);
        let training_error = model.evaluate(&corpus).unwrap().label_error_rate;
        assert!((seen[0].objective - training_error).abs() < 1e-12);
        assert!(training_error < 0.5);
    }
}
