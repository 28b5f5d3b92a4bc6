//! The CRF baselines on a small learnable task: the Rust CRF, and (with the `crfsuite`
//! feature) CRFsuite beside it.

use crate::common;

use online_bilinear::Fit as _;
use online_bilinear::Fitted as _;
#[cfg(feature = "crfsuite")]
use online_bilinear::{Corpus, Sentence, words_to_bmes};
use online_bilinear::{CrfBackend, TaggerParams};

#[test]
fn crf_l2_and_l1_learn_a_small_segmentation_task() {
    let train = common::cyclic_corpus(60, 0);
    let test = common::cyclic_corpus(20, 1);
    for (learner, params) in [
        ("crf-l2", TaggerParams::crf_l2().c(0.1)),
        ("crf-l1", TaggerParams::crf_l1().c(0.1)),
    ] {
        let model = params.max_iter(50).fit(&train).unwrap();
        assert!(model.crf_weights().is_some());
        assert_eq!(model.learner(), learner);
        let e = model.evaluate(&test).unwrap();
        assert!(
            e.label_error_rate < 0.05,
            "{learner:?}: {}",
            e.label_error_rate
        );
        // Models survive a save/load round trip.
        let back = online_bilinear::FittedTagger::from_json(&model.to_json().unwrap()).unwrap();
        common::assert_same_tags(&back, &model, &test);
        assert_eq!(back.learner(), learner);
    }
}

#[test]
fn crf_l1_has_many_more_exact_zeros_than_l2() {
    let train = common::cyclic_corpus(60, 0);
    let l2 = TaggerParams::crf_l2().c(0.1).fit(&train).unwrap();
    let l1 = TaggerParams::crf_l1().c(0.5).fit(&train).unwrap();
    let (w2, w1) = (l2.crf_weights().unwrap(), l1.crf_weights().unwrap());
    // Pairs (feature, tag) never seen in training keep the weight 0 in both; OWL-QN
    // zeroes many of the others too.
    let n = w1.state.len() + w1.transition.len();
    assert!(
        w1.n_zeros() > w2.n_zeros() + n / 10,
        "L1 {} zeros, L2 {} of {n}",
        w1.n_zeros(),
        w2.n_zeros()
    );
}

#[test]
fn crf_training_is_deterministic_for_a_thread_count() {
    let train = common::cyclic_corpus(80, 0);
    // The fit's own `threads` knob (its pool), and the caller's pool with the global default.
    let fit = || {
        TaggerParams::crf_l2()
            .c(0.1)
            .threads(Some(2))
            .fit(&train)
            .unwrap()
    };
    let in_pool = || {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| TaggerParams::crf_l2().c(0.1).fit(&train).unwrap())
    };
    let (a, b, c) = (fit(), fit(), in_pool());
    assert_eq!(a.crf_weights(), b.crf_weights());
    assert_eq!(a.crf_weights(), c.crf_weights());
    assert_eq!(
        a.report().trace.extra("optimizer_iterations")[0].1 as usize,
        b.report().trace.extra("optimizer_iterations")[0].1 as usize
    );
    assert_eq!(a.iteration().threads, Some(2));
    // Out of range: a typed error naming the knob.
    assert!(matches!(
        TaggerParams::crf_l2().threads(Some(0)).fit(&train),
        Err(online_bilinear::OblError::Core(
            bl_core::BlError::InvalidParameter {
                name: "threads",
                ..
            }
        ))
    ));
}

#[test]
fn the_crf_stops_by_crfsuites_rule_before_a_large_budget() {
    let train = common::cyclic_corpus(60, 0);
    let model = common::crf_l2(&train, 1.0, 10_000);
    let iterations = model.report().trace.extra("optimizer_iterations")[0].1 as usize;
    assert!((10..10_000).contains(&iterations), "{iterations}");
}

#[cfg(not(feature = "crfsuite"))]
#[test]
fn the_crfsuite_backend_is_a_typed_error_without_the_feature() {
    let err = TaggerParams::crf_l2()
        .crf_backend(CrfBackend::Crfsuite)
        .fit(&common::cyclic_corpus(10, 0))
        .unwrap_err();
    assert!(err.to_string().contains("crfsuite"), "{err}");
}

/// An ambiguous segmentation task: words over a 4-letter alphabet that overlap (`a`, `ab`,
/// `abc`, `bc`, ...), drawn by a seeded generator, so no tagger is perfect.
#[cfg(feature = "crfsuite")]
fn ambiguous(n: usize, seed: u64) -> Corpus {
    let lexicon = [
        "ab", "a", "b", "abc", "bc", "c", "ca", "cab", "d", "da", "ad", "bd", "dcb",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    (0..n)
        .map(|_| {
            let words: Vec<&str> = (0..6).map(|_| lexicon[next(lexicon.len())]).collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags).unwrap()
        })
        .collect()
}

/// The Rust CRF against CRFsuite on the same data: the same model and objective, so
/// nearly the same test F1 on a task neither tags perfectly.
#[cfg(feature = "crfsuite")]
#[test]
fn the_rust_crf_and_crfsuite_reach_the_same_f1() {
    let train = ambiguous(300, 1);
    let test = ambiguous(100, 2);
    for params in [TaggerParams::crf_l2().c(1.0), TaggerParams::crf_l1().c(1.0)] {
        let ours = params.clone().fit(&train).unwrap().evaluate(&test).unwrap();
        let theirs = params
            .crf_backend(CrfBackend::Crfsuite)
            .fit(&train)
            .unwrap()
            .evaluate(&test)
            .unwrap();
        eprintln!("F1 ours {} CRFsuite {}", ours.f1(), theirs.f1());
        assert!(theirs.f1() < 0.99 && theirs.f1() > 0.5, "{}", theirs.f1());
        assert!(
            (ours.f1() - theirs.f1()).abs() <= 0.01,
            "ours {} vs CRFsuite {}",
            ours.f1(),
            theirs.f1()
        );
    }
}

/// The fit's report tells how the optimizer ended: with room to converge, the Rust CRF
/// reports a converged (or solved) run, not `MaxIterations` (every CRF fit used to say
/// `MaxIterations`, its one outer step dropping the optimizer's termination); with a
/// budget of 2 iterations it is out of iterations.
#[test]
fn a_crf_that_converges_reports_convergence() {
    use bl_core::TerminationReason;
    let train = common::cyclic_corpus(30, 0);
    for (learner, params) in [
        ("crf-l2", TaggerParams::crf_l2().c(0.1)),
        ("crf-l1", TaggerParams::crf_l1().c(0.1)),
    ] {
        let model = params.clone().max_iter(1000).fit(&train).unwrap();
        let report = model.report();
        assert!(
            report.termination.is_converged(),
            "{learner:?}: {:?}",
            report.termination
        );
        let short = params.max_iter(2).fit(&train).unwrap();
        assert_eq!(
            short.report().termination,
            TerminationReason::MaxIterations,
            "{learner:?}"
        );
    }
}

/// The fit's `tol` reaches CRFsuite as its `delta`: with a loose tolerance CRFsuite stops
/// earlier and trains another model than with the default (the same run gave one model
/// for every `tol` when `delta` stayed at CRFsuite's default). CRFsuite does not tell how
/// its run ended, and the report says so.
#[cfg(feature = "crfsuite")]
#[test]
fn the_crfsuite_backend_reads_tol_as_its_delta() {
    use bl_core::TerminationReason;
    let train = ambiguous(200, 3);
    let fit = |tol: f64| {
        let model = TaggerParams::crf_l2()
            .c(1.0)
            .max_iter(500)
            .tol(tol)
            .crf_backend(CrfBackend::Crfsuite)
            .fit(&train)
            .unwrap();
        let report = model.report();
        assert_eq!(report.termination, TerminationReason::Unreported);
        assert!(report.trace.extra("optimizer_iterations").is_empty());
        // The saved model without its timings: the weights CRFsuite trained.
        let mut json: serde_json::Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
        let saved = json.as_object_mut().unwrap();
        saved.remove("report");
        saved.remove("train_seconds");
        saved.remove("params");
        json
    };
    let default = fit(1e-5);
    assert_eq!(default, fit(1e-5), "CRFsuite runs are deterministic");
    assert_ne!(default, fit(0.2));
}
