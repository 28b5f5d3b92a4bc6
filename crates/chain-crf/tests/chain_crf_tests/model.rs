//! The model's inference against brute force, feature generation against CRFsuite's
//! rules, the saved form, and input errors.

use chain_crf::{
    Algorithm, CrfError, CrfParams, DatasetBuilder, FeatureOptions, FeatureSet, Fit, Lbfgs, Model,
    ParamGuard,
};
use proptest::prelude::*;

use crate::common::dataset;

fn toy() -> chain_crf::Dataset {
    dataset(&[
        vec![
            (vec![("w=the", 1.0), ("len", 3.0)], "D"),
            (vec![("w=cat", 1.0), ("len", 3.0)], "N"),
            (vec![("w=sat", 1.0), ("len", 3.0)], "V"),
        ],
        vec![
            (vec![("w=a", 1.0), ("len", 1.0)], "D"),
            (vec![("w=dog", 1.0), ("len", 3.0)], "N"),
        ],
        vec![(vec![("w=runs", 1.0), ("len", 4.0)], "V")],
    ])
}

/// A model with the features of `data` (all pairs and transitions) and weights from
/// `seed`.
fn model_with_weights(data: &chain_crf::Dataset, weights: &[f64]) -> Model {
    let features = FeatureSet::generate(
        data,
        &FeatureOptions {
            all_possible_states: true,
            all_possible_transitions: true,
            ..FeatureOptions::default()
        },
    )
    .unwrap();
    let w: Vec<f64> = (0..features.len())
        .map(|j| weights[j % weights.len()])
        .collect();
    Model::new(
        data.attributes().clone(),
        data.labels().clone(),
        features,
        w,
    )
    .unwrap()
}

/// Every label path of length `n` over `l` labels.
fn paths(n: usize, l: usize) -> Vec<Vec<u32>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..l as u32).map(move |y| {
                    let mut q = p.clone();
                    q.push(y);
                    q
                })
            })
            .collect();
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Marginals, probabilities and the Viterbi path equal brute force over all paths.
    #[test]
    fn inference_matches_brute_force(weights in prop::collection::vec(-3.0f64..3.0, 7..40)) {
        let data = toy();
        let m = model_with_weights(&data, &weights);
        let l = m.n_labels();
        let x = data.instance(0);
        let n = x.items.len();
        let all = paths(n, l);
        let scores: Vec<f64> = all
            .iter()
            .map(|p| m.log_probability(x.items, p).unwrap())
            .collect();
        // Probabilities sum to 1.
        let total: f64 = scores.iter().map(|s| s.exp()).sum();
        prop_assert!((total - 1.0).abs() < 1e-10, "sum {total}");
        // Marginals are sums of path probabilities.
        let marg = m.marginals(x.items);
        for t in 0..n {
            for a in 0..l {
                let brute: f64 = all
                    .iter()
                    .zip(&scores)
                    .filter(|(p, _)| p[t] as usize == a)
                    .map(|(_, s)| s.exp())
                    .sum();
                prop_assert!((marg[t * l + a] - brute).abs() < 1e-10);
            }
        }
        // Viterbi finds the most probable path.
        let (best, _) = m.tag(x.items);
        let best_lp = m.log_probability(x.items, &best).unwrap();
        let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!((best_lp - max).abs() < 1e-10);
    }
}

#[test]
fn attribute_values_scale_state_scores() {
    // One attribute with value v: its state score is v * w.
    let data = dataset(&[vec![(vec![("x", 1.0)], "A"), (vec![("x", 1.0)], "B")]]);
    let m = model_with_weights(&data, &[0.5, -1.0, 0.25]);
    let one = m.encode([[("x", 1.0)]]).unwrap();
    let two = m.encode([[("x", 2.0)]]).unwrap();
    let p1 = m.marginals(one.items());
    let p2 = m.marginals(two.items());
    // Single position: p(A) = sigmoid(v (wA - wB)).
    let (wa, wb) = (0.5, -1.0);
    let sig = |z: f64| 1.0 / (1.0 + (-z).exp());
    assert!((p1[0] - sig(wa - wb)).abs() < 1e-12);
    assert!((p2[0] - sig(2.0 * (wa - wb))).abs() < 1e-12);
}

#[test]
fn feature_generation_follows_crfsuite() {
    let data = toy();
    // (state features, transition features) of `data` with `options`.
    let counts = |options: FeatureOptions| {
        let f = FeatureSet::generate(&data, &options).unwrap();
        (f.n_state(), f.len() - f.n_state())
    };
    // Seen pairs only: 3 labels; "len" occurs with D, N, V; each of 6 words with one label.
    // Transitions seen: D->N, N->V.
    assert_eq!(counts(FeatureOptions::default()), (6 + 3, 2));
    // min_freq counts the values: "len" with N sums 3 + 3 = 6, with D 3 + 1 = 4, with V
    // 3 + 4 = 7; words 1; transitions D->N twice, N->V once.
    let min_freq = |min_freq| FeatureOptions {
        min_freq,
        ..FeatureOptions::default()
    };
    assert_eq!(counts(min_freq(4.0)), (3, 0));
    assert_eq!(counts(min_freq(2.0)), (3, 1));
    // A pair whose values sum below min_freq = 0 is dropped (CRFsuite's rule), one
    // that sums to 0 is kept.
    let signed = dataset(&[vec![
        (vec![("x", -2.0), ("z", 1.0)], "A"),
        (vec![("x", 1.0), ("z", -1.0)], "A"),
    ]]);
    let f = FeatureSet::generate(&signed, &FeatureOptions::default()).unwrap();
    assert_eq!((f.n_state(), f.len() - f.n_state()), (1, 1));
    assert!(f.state_feature(0, 0).is_none() && f.state_feature(1, 0).is_some());
    // All possible: 7 attributes x 3 labels, 9 transitions.
    let all_possible = FeatureOptions {
        all_possible_states: true,
        all_possible_transitions: true,
        ..FeatureOptions::default()
    };
    assert_eq!(counts(all_possible), (21, 9));
}

#[test]
fn lbfgs_learns_and_inspection_names_weights() {
    let data = toy();
    let fitted = CrfParams::new(Algorithm::Lbfgs(Lbfgs {
        c2: 0.01,
        ..Lbfgs::default()
    }))
    .max_iter(200)
    .fit(&data)
    .unwrap();
    let m = fitted.model();
    for x in data.iter() {
        assert_eq!(m.tag(x.items).0, x.labels);
    }
    // The log's objective never increases (L-BFGS with an Armijo line search).
    let log = fitted.log();
    assert!(!log.is_empty());
    assert!(log.windows(2).all(|p| p[1].loss <= p[0].loss + 1e-9));
    // Inspection by name: w=cat pushes towards N.
    let cat_n = m
        .state_features()
        .find(|(a, y, _)| *a == "w=cat" && *y == "N")
        .unwrap()
        .2;
    assert!(cat_n > 0.0);
    assert!(
        m.transition_features()
            .any(|(b, a, _)| b == "D" && a == "N")
    );
}

#[test]
fn lbfgs_is_deterministic_for_a_thread_count_and_close_across_counts() {
    let data = toy();
    let fit = |threads| {
        CrfParams::new(Algorithm::Lbfgs(Lbfgs::default()))
            .max_iter(30)
            .threads(Some(threads))
            .fit(&data)
            .unwrap()
            .into_model()
    };
    assert_eq!(fit(1), fit(1));
    assert_eq!(fit(2), fit(2));
    let (a, b) = (fit(1), fit(2));
    for (x, y) in a.weights().iter().zip(b.weights()) {
        assert!((x - y).abs() < 1e-6);
    }
}

#[test]
fn saved_model_round_trips_and_corruption_is_refused() {
    let data = toy();
    let m = CrfParams::new(Algorithm::Lbfgs(Lbfgs::default()))
        .max_iter(20)
        .fit(&data)
        .unwrap()
        .into_model();
    let bytes = m.to_bytes();
    assert_eq!(Model::from_bytes(&bytes).unwrap(), m);
    let text = String::from_utf8(bytes).unwrap();
    // Truncated, not JSON, a wrong version, a weight too many, a duplicate label.
    for bad in [
        text[..text.len() / 2].to_string(),
        "hello".to_string(),
        text.replacen("\"format\":1", "\"format\":7", 1),
        text.replacen("\"weights\":[", "\"weights\":[0.5,", 1),
        text.replacen("\"labels\":[\"D\",\"N\"", "\"labels\":[\"D\",\"D\"", 1),
    ] {
        assert!(
            matches!(Model::from_bytes(bad.as_bytes()), Err(CrfError::Model(_))),
            "accepted: {bad:.80}"
        );
    }
}

#[test]
fn builder_errors_name_sequence_and_position() {
    let mut b = DatasetBuilder::new();
    b.attribute("a", 1.0).unwrap();
    b.end_item("X").unwrap();
    b.end_sequence().unwrap();
    b.attribute("a", 1.0).unwrap();
    b.end_item("X").unwrap();
    let err = b.attribute("b", f64::NAN).unwrap_err();
    assert!(
        matches!(
            err,
            CrfError::Input {
                sequence: 1,
                position: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("sequence 1, position 1"));
    assert!(b.end_item("").is_err());
    // Attributes after the last labelled item.
    let mut b = DatasetBuilder::new();
    b.attribute("a", 1.0).unwrap();
    assert!(b.end_sequence().is_err());
    // An empty sequence.
    let mut b = DatasetBuilder::new();
    assert!(matches!(
        b.end_sequence(),
        Err(CrfError::Input {
            sequence: 0,
            position: 0,
            ..
        })
    ));
    // No training data.
    let empty = DatasetBuilder::new().finish();
    assert!(
        CrfParams::new(Algorithm::Lbfgs(Lbfgs::default()))
            .fit(&empty)
            .is_err()
    );
}

#[test]
fn invalid_settings_are_refused_before_work() {
    let data = toy();
    for bad in [
        Lbfgs {
            c1: -1.0,
            ..Lbfgs::default()
        },
        Lbfgs {
            c2: f64::NAN,
            ..Lbfgs::default()
        },
        Lbfgs {
            num_memories: 0,
            ..Lbfgs::default()
        },
        Lbfgs {
            period: 0,
            ..Lbfgs::default()
        },
    ] {
        // Refused by the parameters' check, which reads no data: before any work.
        assert!(CrfParams::new(Algorithm::Lbfgs(bad)).check().is_err());
        assert!(CrfParams::new(Algorithm::Lbfgs(bad)).fit(&data).is_err());
    }
    assert!(Algorithm::from_name("crf").is_err());
    let nan_minfreq =
        CrfParams::new(Algorithm::from_name("lbfgs").unwrap()).features(FeatureOptions {
            min_freq: f64::NAN,
            ..FeatureOptions::default()
        });
    assert!(nan_minfreq.check().is_err());
    assert!(nan_minfreq.fit(&data).is_err());
}

#[test]
fn holdout_scores_are_logged() {
    let data = toy();
    let mut b = DatasetBuilder::frozen(data.attributes().clone(), data.labels().clone());
    for (w, y) in [("w=the", "D"), ("w=unseen", "N"), ("w=cat", "ZZZ")] {
        b.attribute(w, 1.0).unwrap();
        b.end_item(y).unwrap();
    }
    b.end_sequence().unwrap();
    let dev = b.finish();
    assert_eq!(dev.instance(0).labels[2], chain_crf::UNKNOWN_LABEL);
    let fitted = CrfParams::new(Algorithm::from_name("lbfgs").unwrap())
        .max_iter(20)
        .check()
        .unwrap()
        .fit_with_holdout(&data, Some(&dev), &mut [])
        .unwrap();
    let last = fitted.log().last().unwrap().holdout.unwrap();
    // The unknown label can never be right: at most 2 of 3 items, no whole sequence.
    assert!(last.item_accuracy <= 2.0 / 3.0 + 1e-12);
    assert_eq!(last.instance_accuracy, 0.0);
}

/// Two sequences encoded with `toy()`'s dictionaries by `DatasetBuilder::frozen`; item 2
/// of sequence 1 has the label `label`.
fn frozen(label: &str) -> chain_crf::Dataset {
    let data = toy();
    let mut b = DatasetBuilder::frozen(data.attributes().clone(), data.labels().clone());
    let seqs: [&[(&str, &str)]; 2] = [
        &[("w=the", "D"), ("w=cat", "N")],
        &[("w=a", "D"), ("w=dog", "N"), ("w=sat", label)],
    ];
    for seq in seqs {
        for (w, y) in seq {
            b.attribute(w, 1.0).unwrap();
            b.end_item(y).unwrap();
        }
        b.end_sequence().unwrap();
    }
    b.finish()
}

/// Whether `e` is the input error of the unknown label of `frozen(..)`: sequence 1,
/// position 2, in the variant and in the message.
fn names_the_unknown_label(e: &CrfError) -> bool {
    matches!(
        e,
        CrfError::Input {
            sequence: 1,
            position: 2,
            ..
        }
    ) && e
        .to_string()
        .starts_with("sequence 1, position 2: the label is not in")
}

#[test]
fn an_unknown_label_is_an_input_error_of_feature_generation() {
    let (clean, bad) = (frozen("V"), frozen("ZZZ"));
    assert_eq!(bad.instance(1).labels[2], chain_crf::UNKNOWN_LABEL);
    assert!(clean.check_labels().is_ok());
    let err = bad.check_labels().unwrap_err();
    assert!(names_the_unknown_label(&err), "{err}");
    for options in [
        FeatureOptions::default(),
        FeatureOptions {
            min_freq: 1.0,
            all_possible_states: true,
            all_possible_transitions: true,
        },
    ] {
        let err = FeatureSet::generate(&bad, &options).unwrap_err();
        assert!(names_the_unknown_label(&err), "{err}");
        let f = FeatureSet::generate(&clean, &options).unwrap();
        assert!(f.n_state() > 0 && f.n_labels() == 3);
    }
    for name in ["lbfgs", "ap"] {
        let params = CrfParams::new(Algorithm::from_name(name).unwrap()).max_iter(3);
        let err = params.fit(&bad).unwrap_err();
        assert!(names_the_unknown_label(&err), "{name}: {err}");
        assert!(params.fit(&clean).is_ok(), "{name}");
    }
}

#[test]
fn a_shard_summary_refuses_an_unknown_label() {
    use chain_crf::distributed::{Plan, ShardSummary};
    let err = ShardSummary::of(&frozen("ZZZ")).unwrap_err();
    assert!(names_the_unknown_label(&err), "{err}");
    let summary = ShardSummary::of(&frozen("V")).unwrap();
    assert_eq!((summary.sequences(), summary.items()), (2, 5));
    let plan = Plan::merge(&[summary], &FeatureOptions::default()).unwrap();
    assert_eq!(
        plan.features(),
        &FeatureSet::generate(&frozen("V"), &FeatureOptions::default()).unwrap()
    );
}

/// Feature lookups by an attribute or label id the feature set does not have (such as
/// the `UNKNOWN_LABEL` of held-out data) find no feature; `(0, L)` is not read as the
/// transition `(1, 0)` of the next row of the table.
#[test]
fn feature_lookups_find_nothing_for_ids_out_of_range() {
    let data = toy();
    let all_possible = FeatureOptions {
        all_possible_states: true,
        all_possible_transitions: true,
        ..FeatureOptions::default()
    };
    let f = FeatureSet::generate(&data, &all_possible).unwrap();
    let (l, n_attrs) = (f.n_labels() as u32, f.n_attributes() as u32);
    assert!(f.transition(1, 0).is_some() && f.state_feature(0, 0).is_some());
    for y in [l, chain_crf::UNKNOWN_LABEL] {
        assert_eq!(f.transition(0, y), None);
        assert_eq!(f.transition(y, 0), None);
        assert_eq!(f.state_feature(0, y), None);
    }
    for a in [n_attrs, u32::MAX] {
        assert_eq!(f.state_features(a), (f.n_state(), &[][..]));
        assert_eq!(f.state_feature(a, 0), None);
    }
    // The features of a held-out sequence whose last label is unknown: those of the
    // known labels only.
    let dev = frozen("ZZZ");
    let x = dev.instance(1);
    let mut got = Vec::new();
    f.for_each_feature(x.items, x.labels, |k, v| got.push((k, v)))
        .unwrap();
    let a = |name| data.attributes().get(name).unwrap();
    let y = |name| data.labels().get(name).unwrap();
    let want = vec![
        (f.state_feature(a("w=a"), y("D")).unwrap(), 1.0),
        (f.state_feature(a("w=dog"), y("N")).unwrap(), 1.0),
        (f.transition(y("D"), y("N")).unwrap(), 1.0),
    ];
    assert_eq!(got, want);
}

/// The serialized form of a feature set (what a saved model holds), written by hand:
/// attribute `x` with label `A` (feature 0), `y` with `B` (feature 1), and the transition
/// `A -> B` (feature 2).
const TINY_FEATURES: &str = r#"{"n_labels":2,"state_off":[0,1,2],"state_label":[0,1],"trans":[4294967295,2,4294967295,4294967295],"n_trans":1}"#;

#[test]
fn a_deserialized_feature_set_is_checked_in_full() {
    let data = dataset(&[vec![(vec![("x", 1.0)], "A"), (vec![("y", 1.0)], "B")]]);
    let f = FeatureSet::generate(&data, &FeatureOptions::default()).unwrap();
    // The serialized form is unchanged, and reads back.
    assert_eq!(serde_json::to_string(&f).unwrap(), TINY_FEATURES);
    assert_eq!(
        serde_json::from_str::<FeatureSet>(TINY_FEATURES).unwrap(),
        f
    );
    const NONE: &str = "4294967295";
    let trans = |t: &[&str]| format!(r#""trans":[{}]"#, t.join(","));
    let ok_trans = trans(&[NONE, "2", NONE, NONE]);
    // One broken invariant each, with (part of) the message that names it.
    let cases = [
        (
            ok_trans.clone(),
            trans(&[NONE, "2", NONE]),
            "transition table is not L x L",
        ),
        (
            r#""n_labels":2"#.into(),
            r#""n_labels":1099511627776"#.into(),
            "too many labels",
        ),
        (
            r#""state_off":[0,1,2]"#.into(),
            r#""state_off":[]"#.into(),
            "offsets do not increase from 0",
        ),
        (
            r#""state_off":[0,1,2]"#.into(),
            r#""state_off":[1,1,2]"#.into(),
            "offsets do not increase from 0",
        ),
        (
            r#""state_off":[0,1,2]"#.into(),
            r#""state_off":[0,2,1]"#.into(),
            "offsets do not increase from 0",
        ),
        (
            r#""state_off":[0,1,2]"#.into(),
            r#""state_off":[0,1,3]"#.into(),
            "offsets do not increase from 0",
        ),
        (
            r#""state_off":[0,1,2],"state_label":[0,1]"#.into(),
            r#""state_off":[0,2,2],"state_label":[0,0]"#.into(),
            "state features of attribute 0 are malformed",
        ),
        (
            r#""state_label":[0,1]"#.into(),
            r#""state_label":[0,2]"#.into(),
            "state features of attribute 1 are malformed",
        ),
        (
            ok_trans.clone(),
            trans(&[NONE, "3", NONE, NONE]),
            "not consecutive",
        ),
        (
            ok_trans.clone(),
            trans(&[NONE, "2", "7", NONE]),
            "not consecutive",
        ),
        (
            ok_trans.clone(),
            trans(&[NONE, "2", "2", NONE]),
            "not consecutive",
        ),
        (
            r#""n_trans":1"#.into(),
            r#""n_trans":2"#.into(),
            "transition count is wrong",
        ),
    ];
    for (good, bad, message) in cases {
        assert_eq!(TINY_FEATURES.matches(good.as_str()).count(), 1, "{good}");
        let text = TINY_FEATURES.replacen(good.as_str(), &bad, 1);
        let err = serde_json::from_str::<FeatureSet>(&text).unwrap_err();
        assert!(err.to_string().contains(message), "{text}: {err}");
    }
}

#[test]
fn a_deserialized_model_is_checked_in_full() {
    let m = CrfParams::new(Algorithm::from_name("ap").unwrap())
        .max_iter(3)
        .fit(&toy())
        .unwrap()
        .into_model();
    let bytes = m.to_bytes();
    // Plain serde reads what `from_bytes` reads, and writes the same bytes again.
    let back: Model = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(back, m);
    assert_eq!(serde_json::to_vec(&back).unwrap(), bytes);
    let text = String::from_utf8(bytes).unwrap();
    let cases = [
        ("\"format\":1", "\"format\":7", "format version 7"),
        (
            "\"labels\":[\"D\",\"N\"",
            "\"labels\":[\"D\",\"D\"",
            "duplicate names",
        ),
        (
            "\"attributes\":[",
            "\"attributes\":[\"extra\",",
            "the feature set has 7 attributes and 3 labels, the dictionaries 8 and 3",
        ),
        (
            "\"labels\":[",
            "\"labels\":[\"Q\",",
            "the feature set has 7 attributes and 3 labels, the dictionaries 7 and 4",
        ),
        ("\"weights\":[", "\"weights\":[0.5,", "weights for"),
        ("\"n_trans\":", "\"n_trans\":1", "transition count is wrong"),
    ];
    for (good, bad, message) in cases {
        assert_eq!(text.matches(good).count(), 1, "{good}");
        let bad = text.replacen(good, bad, 1);
        let err = serde_json::from_str::<Model>(&bad).unwrap_err();
        assert!(err.to_string().contains(message), "{message}: {err}");
        match Model::from_bytes(bad.as_bytes()) {
            Err(CrfError::Model(e)) => assert!(e.contains(message), "{message}: {e}"),
            other => panic!("{message}: {other:?}"),
        }
    }
}

/// Seeded random edits of a serialized model and feature set: each either fails to read
/// with an error or reads into a value whose methods all return without panicking.
#[test]
fn randomly_edited_models_and_feature_sets_never_panic() {
    use bl_core::testing::mutate_json;
    let data = toy();
    let m = model_with_weights(&data, &[0.5, -1.0, 0.25]);
    let x = m.encode([
        [("w=cat", 1.0), ("len", 3.0)],
        [("w=sat", 1.0), ("len", 2.0)],
    ]);
    let x = x.unwrap();
    let model = serde_json::to_value(&m).unwrap();
    let features = serde_json::to_value(m.features()).unwrap();
    let mut rng = bl_core::random::seeded_rng(0x5eed);
    let mut loaded = [0usize; 2];
    for round in 0..3000 {
        let mut value = if round % 2 == 0 {
            model.clone()
        } else {
            features.clone()
        };
        for _ in 0..1 + round % 3 {
            mutate_json(&mut value, &mut rng);
        }
        if round % 2 == 0 {
            let Ok(m) = serde_json::from_value::<Model>(value) else {
                continue;
            };
            loaded[0] += 1;
            let (path, _) = m.tag(x.items());
            let _ = m.tag_names(x.items());
            let _ = m.marginals(x.items());
            let _ = m.log_probability(x.items(), &path);
            let _ = m.log_probability(x.items(), &[0, u32::MAX]);
            let _ = m.state_features().count() + m.transition_features().count();
        } else {
            let Ok(f) = serde_json::from_value::<FeatureSet>(value) else {
                continue;
            };
            loaded[1] += 1;
            let w = vec![0.5; f.len()];
            let mut out = Vec::new();
            f.state_scores(x.items(), &w, &mut out).unwrap();
            f.transition_weights(&w).unwrap();
            f.for_each_feature(x.items(), &[0, u32::MAX], |k, _| assert!(k < f.len()))
                .unwrap();
            let _ = f.iter_state().count() + f.iter_transitions().count();
            for a in 0..=f.n_attributes() as u32 {
                let _ = f.state_features(a);
                for y in 0..=f.n_labels().min(8) as u32 {
                    let _ = (f.state_feature(a, y), f.transition(a, y));
                }
            }
        }
    }
    // Some edits keep a valid value (another finite weight), most do not.
    assert!(loaded.iter().all(|&n| n > 0), "{loaded:?}");
}

/// The context of a `ShapeMismatch` (anything else fails the test).
fn shape_context(e: CrfError) -> &'static str {
    match e {
        CrfError::Core(bl_core::BlError::ShapeMismatch { context, .. }) => context,
        e => panic!("not a shape mismatch: {e}"),
    }
}

/// The parameter name of an `InvalidParameter` (anything else fails the test).
fn invalid_name(e: CrfError) -> &'static str {
    match e {
        CrfError::Core(bl_core::BlError::InvalidParameter { name, .. }) => name,
        e => panic!("not an invalid parameter: {e}"),
    }
}

/// A model on the toy data and a three-item sequence of it with its Viterbi path.
fn toy_model_and_sequence() -> (Model, chain_crf::Sequence, Vec<u32>) {
    let data = toy();
    let m = model_with_weights(&data, &[0.5, -1.0, 0.25, 2.0, -0.75]);
    let x = m
        .encode([
            vec![("w=the", 1.0), ("len", 3.0)],
            vec![("w=cat", 1.0), ("len", 2.0)],
            vec![("w=sat", 1.0), ("len", 0.5)],
        ])
        .unwrap();
    let (path, _) = m.tag(x.items());
    (m, x, path)
}

/// A weight vector or a label path too short for `FeatureSet`'s scoring helpers is a
/// `ShapeMismatch` naming the argument (they indexed past it and panicked), and nothing is
/// written or called; the right lengths give the scores of the features.
#[test]
fn feature_set_scoring_checks_its_slices() {
    let (m, x, path) = toy_model_and_sequence();
    let (f, w, l) = (m.features(), m.weights(), m.n_labels());
    // One weight: the features after the first were read past the end.
    let short = &w[..1];
    let mut out = vec![7.0];
    let e = f.state_scores(x.items(), short, &mut out).unwrap_err();
    assert_eq!(
        shape_context(e),
        "FeatureSet::state_scores: w (one weight per feature)"
    );
    assert_eq!(out, [7.0]);
    let e = f.transition_weights(short).unwrap_err();
    assert_eq!(
        shape_context(e),
        "FeatureSet::transition_weights: w (one weight per feature)"
    );
    let mut called = false;
    let e = f
        .for_each_feature(x.items(), &path[..2], |_, _| called = true)
        .unwrap_err();
    assert_eq!(
        shape_context(e),
        "FeatureSet::for_each_feature: labels (one per item)"
    );
    assert!(!called);

    // The right lengths: the sums of the features' weights, looked up one by one.
    f.state_scores(x.items(), w, &mut out).unwrap();
    assert_eq!(out.len(), x.len() * l);
    for t in 0..x.len() {
        let (ids, vals) = x.items().item(t);
        for y in 0..l as u32 {
            let want: f64 = ids
                .iter()
                .zip(vals)
                .filter_map(|(&a, &v)| f.state_feature(a, y).map(|k| v * w[k]))
                .sum();
            assert_eq!(out[t * l + y as usize], want);
        }
    }
    let trans = f.transition_weights(w).unwrap();
    for b in 0..l as u32 {
        for a in 0..l as u32 {
            let want = f.transition(b, a).map_or(0.0, |k| w[k]);
            assert_eq!(trans[b as usize * l + a as usize], want);
        }
    }
    let mut score = 0.0;
    f.for_each_feature(x.items(), &path, |k, v| score += w[k] * v)
        .unwrap();
    let table: f64 = (0..x.len())
        .map(|t| out[t * l + path[t] as usize])
        .sum::<f64>()
        + path
            .windows(2)
            .map(|p| trans[p[0] as usize * l + p[1] as usize])
            .sum::<f64>();
    assert!((score - table).abs() < 1e-12, "{score} vs {table}");
}

/// `viterbi` refuses transitions that are not `L x L` and state scores that are not
/// `n x L` before touching its buffers (short transitions indexed past the end and
/// panicked); on the right tables it is the model's tagging.
#[test]
fn viterbi_checks_its_tables() {
    use chain_crf::viterbi::viterbi;
    let (m, x, path) = toy_model_and_sequence();
    let (f, w, l) = (m.features(), m.weights(), m.n_labels());
    let mut state = Vec::new();
    f.state_scores(x.items(), w, &mut state).unwrap();
    let trans = f.transition_weights(w).unwrap();
    let (mut got, mut back) = (vec![9], vec![9]);
    let e = viterbi(&state, l, &trans[..l * l - 1], &mut got, &mut back).unwrap_err();
    assert_eq!(shape_context(e), "viterbi: trans (L x L)");
    let e = viterbi(&state[..state.len() - 1], l, &trans, &mut got, &mut back).unwrap_err();
    assert_eq!(shape_context(e), "viterbi: state (n x L)");
    let e = viterbi(&state, 0, &[], &mut got, &mut back).unwrap_err();
    assert_eq!(shape_context(e), "viterbi: state (n x L)");
    assert_eq!((got.as_slice(), back.as_slice()), (&[9][..], &[9][..]));

    let score = viterbi(&state, l, &trans, &mut got, &mut back).unwrap();
    assert_eq!((got, score), m.tag(x.items()));
    assert_eq!(
        viterbi(&[], l, &trans, &mut path.clone(), &mut back).unwrap(),
        0.0
    );
}

/// `Lattice` refuses tables that are not `L x L` or `n x L` (short transitions indexed
/// past the end and panicked) and positions or labels outside the last run (which read
/// another position's values or panicked); on the right shapes it gives the model's
/// `log Z` and marginals.
#[test]
fn the_lattice_checks_its_tables_and_positions() {
    use chain_crf::lattice::{Lattice, exp_transitions};
    let (m, x, path) = toy_model_and_sequence();
    let (f, w, l, n) = (m.features(), m.weights(), m.n_labels(), x.len());
    let mut state = Vec::new();
    f.state_scores(x.items(), w, &mut state).unwrap();
    let (et, mt) = exp_transitions(&f.transition_weights(w).unwrap());
    let mut lat = Lattice::default();
    let e = lat
        .forward_backward(state.clone(), l, &et[..l * l - 1], mt)
        .unwrap_err();
    assert_eq!(
        shape_context(e),
        "Lattice::forward_backward: exp_trans (L x L)"
    );
    let e = lat
        .forward_backward(state[..state.len() - 1].to_vec(), l, &et, mt)
        .unwrap_err();
    assert_eq!(shape_context(e), "Lattice::forward_backward: state (n x L)");
    assert!(lat.is_empty());

    // log Z = score(path) - log p(path).
    let log_z = lat.forward_backward(state.clone(), l, &et, mt).unwrap();
    let mut score = 0.0;
    f.for_each_feature(x.items(), &path, |k, v| score += w[k] * v)
        .unwrap();
    let want = score - m.log_probability(x.items(), &path).unwrap();
    assert!((log_z - want).abs() < 1e-12, "{log_z} vs {want}");
    assert_eq!(lat.len(), n);

    // Single marginals.
    assert_eq!(
        invalid_name(lat.state_marginal(n, 0).unwrap_err()),
        "t (position)"
    );
    assert_eq!(invalid_name(lat.state_marginal(0, l).unwrap_err()), "label");
    let marginals = m.marginals(x.items());
    for t in 0..n {
        for a in 0..l {
            assert_eq!(lat.state_marginal(t, a).unwrap(), marginals[t * l + a]);
        }
    }
    let e = lat.edge_marginal(0, 0, 0, &et).unwrap_err();
    assert_eq!(invalid_name(e), "t (position)");
    assert_eq!(
        invalid_name(lat.edge_marginal(1, l, 0, &et).unwrap_err()),
        "label"
    );
    let e = lat.edge_marginal(1, 0, 0, &et[..l * l - 1]).unwrap_err();
    assert_eq!(
        shape_context(e),
        "Lattice::edge_marginal: exp_trans (L x L)"
    );
    for t in 1..n {
        for a in 0..l {
            let sum: f64 = (0..l)
                .map(|b| lat.edge_marginal(t, b, a, &et).unwrap())
                .sum();
            assert!((sum - marginals[t * l + a]).abs() < 1e-12);
        }
    }
    // The whole table of a position: the single values, checked once.
    let mut table = vec![f64::NAN; l * l];
    let e = lat.edge_marginals(0, &et, &mut table).unwrap_err();
    assert_eq!(invalid_name(e), "t (position)");
    let e = lat
        .edge_marginals(1, &et, &mut table[..l * l - 1])
        .unwrap_err();
    assert_eq!(shape_context(e), "Lattice::edge_marginals: out (L x L)");
    let e = lat.edge_marginals(1, &et[1..], &mut table).unwrap_err();
    assert_eq!(
        shape_context(e),
        "Lattice::edge_marginals: exp_trans (L x L)"
    );
    assert!(
        table.iter().all(|v| v.is_nan()),
        "written before the checks"
    );
    for t in 1..n {
        lat.edge_marginals(t, &et, &mut table).unwrap();
        for b in 0..l {
            for a in 0..l {
                assert_eq!(table[b * l + a], lat.edge_marginal(t, b, a, &et).unwrap());
            }
        }
    }

    // Marginals into buffers: refused before anything is written.
    let mut row = vec![5.0; l - 1];
    let e = lat.state_marginals(0, &mut row).unwrap_err();
    assert_eq!(shape_context(e), "Lattice::state_marginals: out (L)");
    assert_eq!(row, vec![5.0; l - 1]);
    let mut row = vec![5.0; l];
    assert_eq!(
        invalid_name(lat.state_marginals(n, &mut row).unwrap_err()),
        "t (position)"
    );
    lat.state_marginals(n - 1, &mut row).unwrap();
    assert_eq!(row, marginals[(n - 1) * l..]);

    let mut short = vec![5.0; l * l - 1];
    let e = lat.add_edge_marginals(&et, 1.0, &mut short).unwrap_err();
    assert_eq!(shape_context(e), "Lattice::add_edge_marginals: out (L x L)");
    let e = lat.add_edge_outer(&mut short).unwrap_err();
    assert_eq!(shape_context(e), "Lattice::add_edge_outer: out (L x L)");
    assert_eq!(short, vec![5.0; l * l - 1]);
    let mut edges = vec![0.0; l * l];
    let e = lat
        .add_edge_marginals(&et[..l * l - 1], 1.0, &mut edges)
        .unwrap_err();
    assert_eq!(
        shape_context(e),
        "Lattice::add_edge_marginals: exp_trans (L x L)"
    );
    assert_eq!(edges, vec![0.0; l * l]);
    lat.add_edge_marginals(&et, 2.0, &mut edges).unwrap();
    let mut outer = vec![0.0; l * l];
    lat.add_edge_outer(&mut outer).unwrap();
    for b in 0..l {
        for a in 0..l {
            let want: f64 = (1..n)
                .map(|t| lat.edge_marginal(t, b, a, &et).unwrap())
                .sum();
            assert!((edges[b * l + a] - 2.0 * want).abs() < 1e-12);
            assert!((outer[b * l + a] * et[b * l + a] - want).abs() < 1e-12);
        }
    }
}

/// `Dataset::get` is `instance` in range and `None` past the end.
#[test]
fn dataset_get_is_none_past_the_end() {
    let data = toy();
    assert_eq!(data.len(), 3);
    for s in 0..data.len() {
        let (got, want) = (data.get(s).unwrap(), data.instance(s));
        assert_eq!(got.labels, want.labels);
        assert_eq!(got.items.len(), want.items.len());
    }
    assert!(data.get(3).is_none());
    assert!(data.get(usize::MAX).is_none());
}

/// A data set of `2^16 + 1` labels (one one-item sequence each, 1 MB of input) needs
/// `L x L` transition counts above the size cap: feature generation refuses it before it
/// allocates, naming the table (it was allocated unchecked: 34 GB, then the model's table).
#[test]
fn more_labels_than_the_transition_table_can_hold_are_refused() {
    let mut b = DatasetBuilder::new();
    for y in 0..=(1u32 << 16) {
        b.attribute("a", 1.0).unwrap();
        b.end_item(&y.to_string()).unwrap();
        b.end_sequence().unwrap();
    }
    let data = b.finish();
    let err = FeatureSet::generate(&data, &FeatureOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("labels x labels (transitions)"),
        "{err}"
    );
    let err = CrfParams::new(Algorithm::Lbfgs(Lbfgs::default()))
        .fit(&data)
        .unwrap_err();
    assert!(matches!(&err, CrfError::Core(_)), "{err}");
    // Below the cap the same shape of data fits: 64 labels.
    let mut b = DatasetBuilder::new();
    for y in 0..64 {
        b.attribute("a", 1.0).unwrap();
        b.end_item(&y.to_string()).unwrap();
        b.end_sequence().unwrap();
    }
    assert!(FeatureSet::generate(&b.finish(), &FeatureOptions::default()).is_ok());
}

/// The documented panics of the index accessors.
#[test]
#[should_panic(expected = "index out of bounds")]
fn dataset_instance_panics_past_the_end() {
    let _ = toy().instance(3);
}

/// The documented panics of the index accessors.
#[test]
#[should_panic(expected = "index out of bounds")]
fn items_item_panics_past_the_end() {
    let data = toy();
    let items = data.instance(2).items;
    let _ = items.item(items.len());
}

/// The documented panics of the index accessors.
#[test]
#[should_panic(expected = "index out of bounds")]
fn dictionary_name_panics_past_the_end() {
    let data = toy();
    let _ = data.labels().name(data.labels().len() as u32);
}
