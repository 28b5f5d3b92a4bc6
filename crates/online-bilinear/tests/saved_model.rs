//! A saved tagger edited to any wrong shape fails to load with an error naming the field,
//! quickly and without panicking; weights that overflow are typed errors, at load time or
//! (for long sentences) at prediction time.

use std::time::{Duration, Instant};

use online_bilinear::{Corpus, FittedTagger, OblError, Sentence, TaggerParams, words_to_bmes};
use serde_json::{Value, json};

fn corpus(n: usize, offset: usize) -> Corpus {
    let lexicon = ["ab", "c", "dea", "fb", "g", "hic"];
    (0..n)
        .map(|i| {
            let words: Vec<&str> = (0..4)
                .map(|j| lexicon[(i * 7 + j * 3 + offset) % lexicon.len()])
                .collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags).unwrap()
        })
        .collect()
}

fn edited(json: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(json).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap()
}

/// `from_json` rejects `text` within 100 ms with a `Serde` error naming `field`.
fn rejects(text: &str, field: &str, case: &str) {
    let started = Instant::now();
    let err = FittedTagger::from_json(text).unwrap_err();
    assert!(started.elapsed() < Duration::from_millis(100), "{case}");
    assert!(matches!(err, OblError::Serde(_)), "{case}: {err}");
    assert!(
        err.to_string().contains(&format!("`{field}`")),
        "{case}: expected the field `{field}` in: {err}"
    );
}

fn array<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Vec<Value> {
    value.pointer_mut(pointer).unwrap().as_array_mut().unwrap()
}

#[test]
fn a_bilinear_tagger_round_trips_and_rejects_every_wrong_shape() {
    let train = corpus(40, 0);
    let model = TaggerParams::bol()
        .epochs(2)
        .zero_order(true)
        .fit(&train)
        .unwrap();
    let json = model.to_json().unwrap();
    let back = FittedTagger::from_json(&json).unwrap();
    assert_eq!(back.alpha(), model.alpha());
    assert_eq!(back.beta(), model.beta());
    assert_eq!(
        back.predict_corpus(&train).unwrap(),
        model.predict_corpus(&train).unwrap()
    );

    type Edit = Box<dyn Fn(&mut Value)>;
    let alpha = "/weights/Bilinear/alpha";
    let beta = "/weights/Bilinear/beta";
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "alpha one too long",
            "weights.Bilinear.alpha",
            Box::new(move |v| array(v, alpha).push(json!(0.5))),
        ),
        (
            "alpha one too short",
            "weights.Bilinear.alpha",
            Box::new(move |v| drop(array(v, alpha).pop())),
        ),
        (
            "beta one too long",
            "weights.Bilinear.beta",
            Box::new(move |v| array(v, beta).push(json!(0.5))),
        ),
        (
            "beta one too short",
            "weights.Bilinear.beta",
            Box::new(move |v| drop(array(v, beta).pop())),
        ),
        (
            "zero-order weights too short",
            "zero_order",
            Box::new(|v| drop(array(v, "/zero_order").pop())),
        ),
        (
            "a tag fewer",
            "weights.Bilinear.alpha",
            Box::new(|v| drop(array(v, "/tags").pop())),
        ),
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
    ];
    for (case, field, edit) in &cases {
        rejects(&edited(&json, edit), field, case);
    }
}

#[test]
fn a_linear_tagger_rejects_wrong_weight_sizes() {
    let train = corpus(40, 0);
    let model = TaggerParams::sp().epochs(2).fit(&train).unwrap();
    let json = model.to_json().unwrap();
    let back = FittedTagger::from_json(&json).unwrap();
    assert_eq!(
        back.predict_corpus(&train).unwrap(),
        model.predict_corpus(&train).unwrap()
    );
    let w = "/weights/Linear/w";
    rejects(
        &edited(&json, |v| array(v, w).push(json!(0.0))),
        "weights.Linear.w",
        "w too long",
    );
    rejects(
        &edited(&json, |v| drop(array(v, w).pop())),
        "weights.Linear.w",
        "w too short",
    );
    rejects(
        &edited(&json, |v| array(v, "/tags").push(json!("x"))),
        "weights.Linear.w",
        "a tag more",
    );
}

#[test]
fn weights_that_overflow_on_a_long_sentence_are_an_error_at_predict_time() {
    let train = corpus(40, 0);
    let model = TaggerParams::bol().epochs(1).fit(&train).unwrap();
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

#[cfg(feature = "crf")]
#[test]
fn a_crf_tagger_with_damaged_model_bytes_is_rejected() {
    let train = corpus(40, 0);
    let model = TaggerParams::crf_l2()
        .c(0.1)
        .crf_max_iterations(20)
        .fit(&train)
        .unwrap();
    let json = model.to_json().unwrap();
    let back = FittedTagger::from_json(&json).unwrap();
    assert_eq!(
        back.predict_corpus(&train).unwrap(),
        model.predict_corpus(&train).unwrap()
    );
    let bytes = "/weights/Crf/model";
    let set_word = |v: &mut Value, word: usize, value: u32| {
        let b = array(v, bytes);
        for (i, byte) in value.to_le_bytes().into_iter().enumerate() {
            b[4 * word + i] = json!(byte);
        }
    };
    let field = "weights.Crf.model";
    rejects(
        &edited(&json, |v| drop(array(v, bytes).pop())),
        field,
        "truncated by one byte",
    );
    rejects(
        &edited(&json, |v| array(v, bytes).truncate(20)),
        field,
        "only a partial header",
    );
    rejects(
        &edited(&json, |v| array(v, bytes)[0] = json!(b'x')),
        field,
        "another magic",
    );
    for word in 7..12 {
        rejects(
            &edited(&json, |v| set_word(v, word, u32::MAX - 8)),
            field,
            &format!("section offset {word} out of range"),
        );
    }
    rejects(
        &edited(&json, |v| set_word(v, 4, u32::MAX / 32)),
        field,
        "feature count too large",
    );
    rejects(
        &edited(&json, |v| drop(array(v, "/tags").pop())),
        field,
        "a tag fewer than labels",
    );
}
