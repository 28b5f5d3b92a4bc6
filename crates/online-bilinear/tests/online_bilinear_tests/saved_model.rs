//! A saved tagger edited to any wrong shape fails to load with an error naming the field,
//! quickly and without panicking; weights that overflow are typed errors, at load time or
//! (for long sentences) at prediction time.

use crate::common;

use std::time::{Duration, Instant};

use bl_core::random::{Rng, seeded_rng};
use bl_core::testing::mutate_json;
use online_bilinear::Fit as _;
use online_bilinear::Predict as _;
use online_bilinear::{FittedTagger, OblError, Sentence, TaggerParams};
use rand::RngExt as _;
use serde_json::{Value, json};

fn edited(json: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(json).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap()
}

/// `from_json` rejects `text` within 100 ms with a `Serde` error naming `field`.
fn rejects(text: &str, field: &str, case: &str) {
    let started = Instant::now();
    let Err(err) = FittedTagger::from_json(text) else {
        panic!("{case}: the edited model loaded");
    };
    // The fastest of up to three loads: a scheduler delay on a busy machine is not a slow
    // loader, which would be slow every time.
    let limit = Duration::from_millis(100);
    let mut elapsed = started.elapsed();
    for _ in 0..2 {
        if elapsed < limit {
            break;
        }
        let again = Instant::now();
        let _ = FittedTagger::from_json(text);
        elapsed = elapsed.min(again.elapsed());
    }
    assert!(elapsed < limit, "{case}: took {elapsed:?}");
    assert!(matches!(err, OblError::Serde(_)), "{case}: {err}");
    assert!(
        err.to_string().contains(&format!("`{field}`")),
        "{case}: expected the field `{field}` in: {err}"
    );
}

fn array<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Vec<Value> {
    value.pointer_mut(pointer).unwrap().as_array_mut().unwrap()
}

type Edit = Box<dyn Fn(&mut Value)>;

/// The edit that appends `0.5` to the array at `pointer`.
fn push_to(pointer: &'static str) -> Edit {
    Box::new(move |v| array(v, pointer).push(json!(0.5)))
}

/// The edit that drops the last entry of the array at `pointer`.
fn pop_from(pointer: &'static str) -> Edit {
    Box::new(move |v| drop(array(v, pointer).pop()))
}

/// `model` survives a JSON round trip with the same predictions on `corpus`, and every
/// edited copy `(case, field, edit)` is rejected naming `field` (any error when `field` is
/// empty: serde's own messages name a position, not a field). Returns the loaded copy.
fn round_trips_and_rejects(
    model: &FittedTagger,
    corpus: &online_bilinear::Corpus,
    cases: &[(&str, &str, Edit)],
) -> FittedTagger {
    let json = model.to_json().unwrap();
    let back = FittedTagger::from_json(&json).unwrap();
    common::assert_same_tags(&back, model, corpus);
    for (case, field, edit) in cases {
        let text = edited(&json, edit);
        if field.is_empty() {
            assert!(FittedTagger::from_json(&text).is_err(), "{case}");
        } else {
            rejects(&text, field, case);
        }
    }
    back
}

#[test]
fn a_bilinear_tagger_round_trips_and_rejects_every_wrong_shape() {
    let train = common::cyclic_corpus(40, 0);
    let model = common::bol_zero_order(&train, 2);
    let alpha = "/weights/Bilinear/alpha";
    let beta = "/weights/Bilinear/beta";
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "alpha one too long",
            "weights.Bilinear.alpha",
            push_to(alpha),
        ),
        (
            "alpha one too short",
            "weights.Bilinear.alpha",
            pop_from(alpha),
        ),
        ("beta one too long", "weights.Bilinear.beta", push_to(beta)),
        (
            "beta one too short",
            "weights.Bilinear.beta",
            pop_from(beta),
        ),
        (
            "zero-order weights too short",
            "SparseWeights.values",
            pop_from("/zero_order_rows/values"),
        ),
        ("a tag fewer", "weights.Bilinear.alpha", pop_from("/tags")),
        ("no tag", "tags", Box::new(|v| v["tags"] = json!([]))),
        (
            "a tag twice",
            "tags",
            Box::new(|v| {
                let first = v["tags"][0].clone();
                v["tags"][1] = first;
            }),
        ),
        (
            "alpha of 1e308",
            "weights",
            Box::new(move |v| {
                for e in array(v, alpha) {
                    *e = json!(1e308);
                }
            }),
        ),
        (
            "invalid parameters",
            "params",
            Box::new(|v| v["params"]["c"] = json!(-1.0)),
        ),
        (
            "negative training time",
            "train_seconds",
            Box::new(|v| v["train_seconds"] = json!(-1.0)),
        ),
        (
            "a feature id out of range",
            "dict",
            Box::new(|v| {
                let ids = v["dict"]["ids"].as_object_mut().unwrap();
                let key = ids.keys().next().unwrap().clone();
                ids[&key] = json!(99_999_999);
            }),
        ),
        (
            "a template reading column 2^64 - 1",
            "template column",
            Box::new(|v| {
                v["dict"]["templates"]["list"][0] =
                    json!({"Unigram": {"column": u64::MAX, "offset": 0}});
            }),
        ),
        (
            "a template offset of -2^63 in the parameters",
            "template offset",
            Box::new(|v| {
                v["params"]["templates"]["list"][0] =
                    json!({"Bigram": {"column": 0, "first": i64::MIN, "second": 1}});
            }),
        ),
    ];
    let back = round_trips_and_rejects(&model, &train, &cases);
    assert_eq!(back.alpha(), model.alpha());
    assert_eq!(back.beta(), model.beta());
}

#[test]
fn a_perceptron_tagger_round_trips_and_rejects_damaged_sparse_weights() {
    let train = common::cyclic_corpus(40, 0);
    let model = TaggerParams::sp().max_iter(2).fit(&train).unwrap();
    let w = "/weights/SparseLinear/w";
    let field = "weights.SparseLinear.w";
    let pointer = move |part: &str| format!("{w}/{part}");
    // Structural faults are refused while the weights are read (naming the weights'
    // field); the row count and width against the model's features and tags after.
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "a value more than codes",
            "SparseWeights.values",
            Box::new(move |v| array(v, &pointer("values")).push(json!(0.0))),
        ),
        (
            "the last offset dropped",
            "SparseWeights.offsets",
            Box::new(move |v| {
                let offsets = array(v, &pointer("offsets"));
                let last = offsets.pop().unwrap();
                // Unless the last row was empty, the offsets now end before the cells.
                if offsets.last() == Some(&last) {
                    offsets.push(json!(0));
                }
            }),
        ),
        (
            "an empty row more",
            field,
            Box::new(move |v| {
                let offsets = array(v, &pointer("offsets"));
                let last = offsets.last().unwrap().clone();
                offsets.push(last);
            }),
        ),
        (
            "decreasing offsets",
            "SparseWeights.offsets",
            Box::new(move |v| array(v, &pointer("offsets"))[1] = json!(1_000_000)),
        ),
        (
            "a code beyond the width",
            "SparseWeights.codes",
            Box::new(move |v| {
                let codes = array(v, &pointer("codes"));
                let last = codes.len() - 1;
                codes[last] = json!(u32::MAX);
            }),
        ),
        (
            "a tag more",
            field,
            Box::new(|v| array(v, "/tags").push(json!("x"))),
        ),
        (
            "a value of 1e308 everywhere",
            "weights",
            Box::new(move |v| {
                for x in array(v, &pointer("values")) {
                    *x = json!(1e308);
                }
            }),
        ),
    ];
    let back = round_trips_and_rejects(&model, &train, &cases);
    assert_eq!(back.sparse_weights(), model.sparse_weights());
    assert!(model.sparse_weights().is_some_and(|w| w.nnz() > 0));
}

#[test]
fn weights_that_overflow_on_a_long_sentence_are_an_error_at_predict_time() {
    let train = common::cyclic_corpus(40, 0);
    let model = TaggerParams::bol().max_iter(1).fit(&train).unwrap();
    let k = model.n_features() as f64;
    // Every weight product p = MAX / (4 K): the load-time bound K p = MAX / 4 is finite,
    // so the model loads ...
    let root = (f64::MAX / (4.0 * k)).sqrt();
    let text = edited(&model.to_json().unwrap(), |v| {
        for field in ["/weights/Bilinear/alpha", "/weights/Bilinear/beta"] {
            for e in array(v, field) {
                *e = json!(root);
            }
        }
    });
    let huge = FittedTagger::from_json(&text).unwrap();
    // ... and short sentences are scored, but the path scores of a sentence of 8 K
    // positions (each with at least the bias feature) exceed MAX: a typed error.
    assert!(huge.predict(&train.sentences()[0]).is_ok());
    let chars: Vec<String> = train
        .sentences()
        .iter()
        .cycle()
        .flat_map(|s| s.columns()[0].clone())
        .take(8 * model.n_features())
        .collect();
    let tags = vec!["s".to_string(); chars.len()];
    let long = Sentence::from_tokens(&chars, &tags).unwrap();
    let started = Instant::now();
    let err = huge.predict(&long).unwrap_err();
    assert!(matches!(err, OblError::Core(_)), "{err}");
    assert!(err.to_string().contains("overflow"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(1));
}

/// Models saved before the CRFsuite backend was removed: a Rust CRF's file, which names
/// its backend (`"crf_backend": "Rust"`), still loads and tags the same; a CRFsuite
/// model's file is a typed error that names the variant, not a panic or a silent model.
#[test]
fn models_saved_with_a_crf_backend_field_load_and_crfsuite_models_are_refused() {
    let train = common::cyclic_corpus(20, 0);
    let model = TaggerParams::crf_l2()
        .c(0.1)
        .max_iter(20)
        .fit(&train)
        .unwrap();
    let json = model.to_json().unwrap();
    let with_backend = |backend: &str| {
        edited(&json, |v| {
            v["params"]["crf_backend"] = json!(backend);
        })
    };
    let old_rust = with_backend("Rust");
    assert_ne!(old_rust, json);
    let back = FittedTagger::from_json(&old_rust).unwrap();
    common::assert_same_tags(&back, &model, &train);
    let old_crfsuite = edited(&with_backend("Crfsuite"), |v| {
        v["weights"] = json!({"Crfsuite": {"model": [108, 67, 82, 70]}});
    });
    let err = FittedTagger::from_json(&old_crfsuite).unwrap_err();
    assert!(matches!(err, OblError::Serde(_)), "{err}");
    assert!(err.to_string().contains("Crfsuite"), "{err}");
}

#[test]
fn a_rust_crf_tagger_round_trips_and_rejects_every_wrong_shape() {
    let train = common::cyclic_corpus(40, 0);
    let model = common::crf_l2(&train, 0.1, 20);
    let state = "/weights/Crf/state";
    let trans = "/weights/Crf/transition";
    let cases: Vec<(&str, &str, Edit)> = vec![
        ("state one too long", "weights.Crf.state", push_to(state)),
        ("state one too short", "weights.Crf.state", pop_from(state)),
        (
            "transition one too long",
            "weights.Crf.transition",
            push_to(trans),
        ),
        (
            "transition empty",
            "weights.Crf.transition",
            Box::new(move |v| array(v, trans).clear()),
        ),
        (
            "a tag fewer than the weights",
            "weights.Crf.state",
            pop_from("/tags"),
        ),
        (
            "weights whose one-position score overflows",
            "weights",
            Box::new(move |v| {
                for x in array(v, state).iter_mut() {
                    *x = json!(1e308);
                }
            }),
        ),
        (
            "a transition that is not a number",
            "",
            Box::new(move |v| array(v, trans)[0] = json!("x")),
        ),
    ];
    let back = round_trips_and_rejects(&model, &train, &cases);
    assert_eq!(back.crf_weights(), model.crf_weights());
    assert!(model.crf_weights().is_some());
}

/// `rounds` seeded edits of `original` by `edit`: each edited model either fails to load
/// or loads and is given to `probe` (which must not panic). Returns how many loaded.
fn edit_and_load(
    original: &Value,
    rounds: usize,
    rng: &mut Rng,
    mut edit: impl FnMut(&mut Value, &mut Rng),
    probe: impl Fn(&FittedTagger),
) -> usize {
    let mut loaded = 0;
    for _ in 0..rounds {
        let mut value = original.clone();
        edit(&mut value, rng);
        let text = serde_json::to_string(&value).unwrap();
        if let Ok(model) = FittedTagger::from_json(&text) {
            loaded += 1;
            probe(&model);
        }
    }
    loaded
}

/// A thousand seeded random edits of saved bilinear and linear taggers: each load either
/// fails with an error or gives a model whose predictions return without panicking.
#[test]
fn randomly_edited_taggers_never_panic() {
    let train = common::cyclic_corpus(30, 0);
    let test = common::cyclic_corpus(10, 1);
    let originals: Vec<Value> = [
        TaggerParams::bol().max_iter(1).zero_order(true),
        TaggerParams::sp().max_iter(1),
    ]
    .into_iter()
    .map(|p| serde_json::from_str(&p.fit(&train).unwrap().to_json().unwrap()).unwrap())
    .collect();
    let mut rng = seeded_rng(0x2545_f491_4f6c_dd1d);
    let loaded: Vec<usize> = originals
        .iter()
        .map(|original| {
            edit_and_load(
                original,
                500,
                &mut rng,
                |value, rng| {
                    for _ in 0..1 + rng.random_range(0..3) {
                        mutate_json(value, rng);
                    }
                },
                |model| {
                    let _ = model.predict(&test);
                    let _ = model.evaluate_lenient(&test);
                },
            )
        })
        .collect();
    eprintln!("edited taggers that still loaded: {loaded:?} of 500 each");
    assert!(loaded.iter().all(|&k| k > 0 && k < 500), "{loaded:?}");
}

/// A model saved before fits had a report (per-epoch `history` instead) still loads, with
/// the report rebuilt from the history; a history with a bad time is rejected.
#[test]
fn a_model_saved_with_history_instead_of_a_report_loads() {
    use online_bilinear::Fitted as _;
    let train = common::cyclic_corpus(20, 0);
    let model = TaggerParams::sp().max_iter(2).fit(&train).unwrap();
    let legacy = edited(&model.to_json().unwrap(), |v| {
        let map = v.as_object_mut().unwrap();
        map.remove("report");
        map.insert(
            "history".into(),
            json!([
                {"epoch": 1, "mistakes": 4, "token_errors": 10, "tokens": 80, "seconds": 0.5},
                {"epoch": 2, "mistakes": 1, "token_errors": 2, "tokens": 80, "seconds": 0.9}
            ]),
        );
    });
    let back = FittedTagger::from_json(&legacy).unwrap();
    let report = back.report();
    assert_eq!(report.iterations, 2);
    assert_eq!(report.trace.objectives(), [10.0 / 80.0, 2.0 / 80.0]);
    assert_eq!(report.trace.extra("mistakes"), [(1, 4.0), (2, 1.0)]);
    common::assert_same_tags(&back, &model, &train);
    let bad = legacy.replace("\"seconds\":0.9", "\"seconds\":-1.0");
    assert_ne!(bad, legacy);
    rejects(&bad, "history", "a negative epoch time");
}
