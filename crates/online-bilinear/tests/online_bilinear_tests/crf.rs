//! The CRF baselines on a small learnable task. (Their agreement with CRFsuite on the same
//! features is checked by the probe crate `probes/crfsuite`, outside the workspace.)

use crate::common;

use online_bilinear::Fit as _;
use online_bilinear::Fitted as _;
use online_bilinear::TaggerParams;

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
