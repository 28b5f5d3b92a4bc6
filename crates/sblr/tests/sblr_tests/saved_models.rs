//! Saved models are validated when loaded: every fitted model is saved to JSON, edited to
//! each wrong shape, and must then fail to load with a typed error naming the field, by
//! `from_json` and by plain `serde_json::from_str` alike, quickly and without panicking.
//! A valid round trip still gives identical predictions.

use crate::common;
use sblr::Predict as _;

use std::time::{Duration, Instant};

use bl_core::data::MatrixDataset;
use bl_core::random::seeded_rng;
use bl_core::testing::mutate_json;
use rand::RngExt as _;
use sblr::SavedModel;
use sblr::synthetic::two_class;
use sblr::{Fit as _, Fitted as _, ParamGuard as _};
use sblr::{
    FittedLogisticRegression, FittedMultinomialSblr, FittedOneVsAll, FittedSblr,
    LogisticRegression, MultinomialSblr, OneVsAll, Sblr, SblrError, SblrValidParams,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Applies `edit` to the JSON of a saved model.
fn edited(json: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(json).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap()
}

/// Both loaders reject `text` quickly: `from_json` with `InvalidModel { field }` and
/// `serde_json::from_str` with a message naming the field.
fn rejects<T: DeserializeOwned + std::fmt::Debug>(
    text: &str,
    from_json: impl Fn(&str) -> sblr::Result<T>,
    field: &str,
    case: &str,
) {
    let started = Instant::now();
    let err = from_json(text).unwrap_err();
    assert!(
        matches!(&err, SblrError::InvalidModel { field: f, .. } if *f == field),
        "{case}: expected InvalidModel for `{field}`, got {err}"
    );
    assert!(
        err.to_string().contains(&format!("`{field}`")),
        "{case}: {err}"
    );
    let serde_err = serde_json::from_str::<T>(text).unwrap_err();
    assert!(
        serde_err.to_string().contains(&format!("`{field}`")),
        "{case}: {serde_err}"
    );
    let limit = Duration::from_millis(100);
    let elapsed = started.elapsed().min(common::fastest_run(limit, || {
        let _ = from_json(text);
        let _ = serde_json::from_str::<T>(text);
    }));
    assert!(elapsed < limit, "{case}: took {elapsed:?}");
}

/// `model` saves to JSON and loads back equal, by `from_json` and by plain
/// `serde_json::from_str`, with the same `outputs` (its predictions); returns the JSON.
fn round_trip<M, O>(model: &M, outputs: impl Fn(&M) -> O) -> String
where
    M: SavedModel + DeserializeOwned + PartialEq + std::fmt::Debug,
    O: PartialEq + std::fmt::Debug,
{
    let json = model.to_json().unwrap();
    let back = M::from_json(&json).unwrap();
    assert_eq!(&back, model);
    assert_eq!(outputs(&back), outputs(model));
    let via_serde: M = serde_json::from_str(&json).unwrap();
    assert_eq!(&via_serde, model);
    json
}

/// `f64` entries of a JSON array field.
fn array<'a>(value: &'a mut Value, field: &str) -> &'a mut Vec<Value> {
    value[field].as_array_mut().unwrap()
}

fn bump(value: &mut Value, field: &str, by: i64) {
    let old = value[field].as_u64().unwrap() as i64;
    value[field] = json!(old + by);
}

/// An edit of a saved model's JSON.
type Edit = Box<dyn Fn(&mut Value)>;

/// Appends `x` to the array `field`.
fn push(field: &'static str, x: Value) -> Edit {
    Box::new(move |v| array(v, field).push(x.clone()))
}

/// Drops the last entry of the array `field`.
fn pop(field: &'static str) -> Edit {
    Box::new(move |v| drop(array(v, field).pop()))
}

/// Sets `field` to `x`.
fn set(field: &'static str, x: Value) -> Edit {
    Box::new(move |v| v[field] = x.clone())
}

/// Sets every entry of the array `field` to `x`.
fn fill(field: &'static str, x: Value) -> Edit {
    Box::new(move |v| array(v, field).iter_mut().for_each(|e| *e = x.clone()))
}

/// Adds `by` to the integer `field`.
fn bumped(field: &'static str, by: i64) -> Edit {
    Box::new(move |v| bump(v, field, by))
}

/// Every edit of `cases` (`(case, field, edit)`) makes `json` fail to load, naming `field`.
fn rejects_each<T: DeserializeOwned + std::fmt::Debug>(
    json: &str,
    cases: &[(&str, &str, Edit)],
    from_json: impl Fn(&str) -> sblr::Result<T> + Copy,
) {
    for (case, field, edit) in cases {
        rejects(&edited(json, edit), from_json, field, case);
    }
}

#[test]
fn fitted_sblr_round_trips_and_rejects_every_wrong_shape() {
    let data = two_class(30, 5, 4, 1.0, 3).unwrap();
    let model = Sblr::params().rank(2).max_iter(40).fit(&data).unwrap();
    let json = round_trip(&model, |m| {
        (
            m.predict_proba(&data).unwrap(),
            m.predict_names(&data).unwrap(),
        )
    });

    let cases: Vec<(&str, &str, Edit)> = vec![
        ("u one too long", "u", push("u", json!(0.5))),
        ("u one too short", "u", pop("u")),
        ("v one too long", "v", push("v", json!(0.5))),
        ("v one too short", "v", pop("v")),
        ("rank above min(s, t)", "rank", set("rank", json!(9))),
        ("rank zero", "rank", set("rank", json!(0))),
        ("rank changed", "params.rank", bumped("rank", -1)),
        (
            "rank and params.rank changed",
            "u",
            Box::new(|v| {
                bump(v, "rank", -1);
                v["params"]["rank"] = json!(1);
            }),
        ),
        ("s changed", "u", bumped("s", 1)),
        ("t changed", "v", bumped("t", -1)),
        ("s zero", "s", set("s", json!(0))),
        ("t zero", "t", set("t", json!(0))),
        ("s huge", "u", set("s", json!(u64::MAX))),
        ("one class name", "class_names", pop("class_names")),
        (
            "three class names",
            "class_names",
            push("class_names", json!("extra")),
        ),
        (
            "duplicate class names",
            "class_names",
            set("class_names", json!(["x", "x"])),
        ),
        (
            "u entries of 1e308",
            "u, v, intercept",
            fill("u", json!(1e308)),
        ),
        (
            "one factor entry of 1e308",
            "u, v, intercept",
            Box::new(|v| {
                array(v, "u")[0] = json!(1e308);
                array(v, "v")[0] = json!(1e308);
            }),
        ),
        (
            "negative elapsed time (layout without `report`)",
            "elapsed_s",
            Box::new(|v| {
                let report = v["report"].take();
                v.as_object_mut().unwrap().remove("report");
                v["n_iter"] = report["iterations"].clone();
                v["termination"] = report["termination"].clone();
                v["trace"] = report["trace"].clone();
                v["elapsed_s"] = json!(-1.0);
            }),
        ),
    ];
    rejects_each(&json, &cases, FittedSblr::from_json);
}

#[test]
fn non_json_values_and_bad_parameters_are_format_errors() {
    let json = common::saved_sblr(&two_class(20, 4, 3, 1.0, 5).unwrap(), 10);
    // NaN has no JSON spelling: `null` (what serde_json writes for NaN), a bare NaN and
    // an overflowing literal all fail in the parser, with its line and column.
    for text in [
        json.replacen("\"intercept\":", "\"intercept\":null,\"_\":", 1),
        json.replacen("\"intercept\":", "\"intercept\":NaN,\"_\":", 1),
        json.replacen("\"intercept\":", "\"intercept\":1e999,\"_\":", 1),
        json[..json.len() / 2].to_string(),
        String::new(),
        "[]".into(),
    ] {
        let err = FittedSblr::from_json(&text).unwrap_err();
        assert!(matches!(err, SblrError::ModelFormat { .. }), "{err}");
    }
    // A missing field is named by the parser.
    let text = edited(&json, |v| drop(v.as_object_mut().unwrap().remove("v")));
    let err = FittedSblr::from_json(&text).unwrap_err();
    assert!(err.to_string().contains("`v`"), "{err}");
    // Parameters are validated wherever they are deserialized, nested or not.
    for (name, value) in [
        ("l_min", json!(1e300)),
        ("eta", json!(1e300)),
        ("eta", json!(1.0)),
        ("mu1", json!(-1.0)),
        ("max_iter", json!(0)),
    ] {
        let text = edited(&json, |v| v["params"][name] = value.clone());
        let err = FittedSblr::from_json(&text).unwrap_err();
        assert!(
            matches!(err, SblrError::ModelFormat { .. }) && err.to_string().contains(name),
            "{name}: {err}"
        );
        let mut params = serde_json::to_value(Sblr::params().check().unwrap()).unwrap();
        params[name] = value;
        let err = serde_json::from_value::<SblrValidParams>(params).unwrap_err();
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

#[test]
fn non_finite_and_overflowing_scores_are_errors_at_predict_time() {
    let data = two_class(20, 4, 3, 1.0, 5).unwrap();
    let fitted = Sblr::params().max_iter(20).fit(&data).unwrap();
    // Huge but finite weights: the decision value of a sample with entries in [-1, 1] is
    // at most 4e200 * 3e100 = 1.2e301, so the model loads...
    let text = edited(&fitted.to_json().unwrap(), |v| {
        for e in array(v, "u") {
            *e = json!(1e200);
        }
        for e in array(v, "v") {
            *e = json!(1e100);
        }
    });
    let model = FittedSblr::from_json(&text).unwrap();
    // ...but samples with entries 1e10 overflow it: a typed error, not probability 1.
    let (s, t) = data.shape();
    let huge = MatrixDataset::new(
        s,
        t,
        vec![1e10; 2 * s * t],
        vec![0, 1],
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    for err in [
        model.predict(&huge).unwrap_err(),
        model.predict_proba(&huge).unwrap_err(),
        model.decision_function_sample(huge.sample(0)).unwrap_err(),
    ] {
        assert!(
            matches!(err, SblrError::Core(bl_core::BlError::Numerical { .. })),
            "{err}"
        );
        assert!(err.to_string().contains("sample 0"), "{err}");
    }
    assert_eq!(model.predict(&data).unwrap().len(), 20);
    // Samples of another shape.
    let other = two_class(4, 3, 4, 1.0, 1).unwrap();
    assert!(matches!(
        fitted.predict_names(&other).unwrap_err(),
        SblrError::Core(bl_core::BlError::ShapeMismatch { .. })
    ));
}

#[test]
fn fitted_multinomial_round_trips_and_rejects_every_wrong_shape() {
    let data = sblr::synthetic::three_classes(30, 4, 3, 2).unwrap();
    let model = MultinomialSblr::params()
        .rank(1)
        .max_iter(30)
        .fit(&data)
        .unwrap();
    let json = round_trip(&model, |m| {
        (m.predict_proba(&data).unwrap(), m.predict(&data).unwrap())
    });
    assert!(model.u(0).is_some() && model.v(1).is_some());
    assert!(model.u(2).is_none() && model.v(usize::MAX).is_none());

    let cases: Vec<(&str, &str, Edit)> = vec![
        ("u too long", "u", push("u", json!(0.5))),
        ("u too short", "u", pop("u")),
        ("v too long", "v", push("v", json!(0.5))),
        ("v too short", "v", pop("v")),
        (
            "intercepts too long",
            "intercepts",
            push("intercepts", json!(0.0)),
        ),
        ("intercepts too short", "intercepts", pop("intercepts")),
        ("rank changed", "params.rank", bumped("rank", 1)),
        ("rank too large", "rank", set("rank", json!(4))),
        ("m changed", "class_names", bumped("m", 1)),
        (
            "m and class names changed",
            "u",
            Box::new(|v| {
                bump(v, "m", 1);
                array(v, "class_names").push(json!("d"));
            }),
        ),
        ("m zero", "m", set("m", json!(0))),
        ("s changed", "u", bumped("s", 1)),
        ("t changed", "v", bumped("t", 1)),
        (
            "one class name",
            "class_names",
            set("class_names", json!(["a"])),
        ),
        (
            "duplicate class names",
            "class_names",
            set("class_names", json!(["a", "b", "a"])),
        ),
        (
            "factors of 1e308",
            "u, v, intercepts",
            fill("u", json!(1e308)),
        ),
    ];
    rejects_each(&json, &cases, FittedMultinomialSblr::from_json);
}

#[test]
fn fitted_logistic_regression_round_trips_and_rejects_every_wrong_shape() {
    let data = two_class(30, 4, 3, 1.0, 4).unwrap();
    let model = LogisticRegression::params()
        .max_iter(200)
        .fit(&data)
        .unwrap();
    let json = round_trip(&model, |m| m.predict_proba(&data).unwrap());

    let cases: Vec<(&str, &str, Edit)> = vec![
        ("weights too long", "weights", push("weights", json!(0.5))),
        ("weights too short", "weights", pop("weights")),
        ("s changed", "weights", bumped("s", 1)),
        ("t changed", "weights", bumped("t", -1)),
        ("s zero", "s", set("s", json!(0))),
        (
            "one class name",
            "class_names",
            set("class_names", json!(["a"])),
        ),
        (
            "weights of 1e308",
            "weights, intercept",
            fill("weights", json!(1e308)),
        ),
    ];
    rejects_each(&json, &cases, FittedLogisticRegression::from_json);
    let text = edited(&json, |v| v["params"]["eta"] = json!(1e300));
    let err = FittedLogisticRegression::from_json(&text).unwrap_err();
    assert!(err.to_string().contains("eta"), "{err}");
}

#[test]
fn fitted_one_vs_all_round_trips_and_rejects_inconsistent_models() {
    let data = sblr::synthetic::three_classes(30, 4, 3, 6).unwrap();
    let model = OneVsAll::new(Sblr::params().max_iter(20))
        .fit(&data)
        .unwrap();
    let json = serde_json::to_string(&model).unwrap();
    let back: FittedOneVsAll<FittedSblr> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.predict(&data).unwrap(), model.predict(&data).unwrap());

    // A file saved before the report was saved with the models: the report is rebuilt
    // from the class models, their iterations and times summed, the trace numbered on
    // across the classes.
    let old = edited(&json, |v| {
        v.as_object_mut().unwrap().remove("report").unwrap();
    });
    let back: FittedOneVsAll<FittedSblr> = serde_json::from_str(&old).unwrap();
    assert_eq!(back.predict(&data).unwrap(), model.predict(&data).unwrap());
    let classes: Vec<_> = back.models().iter().map(|m| m.report().clone()).collect();
    let report = back.report();
    assert_eq!(
        report.iterations,
        classes.iter().map(|r| r.iterations).sum::<usize>()
    );
    assert_eq!(
        report.elapsed,
        classes
            .iter()
            .map(|r| r.elapsed)
            .sum::<std::time::Duration>()
    );
    let numbers: Vec<usize> = report.trace.records().iter().map(|r| r.iteration).collect();
    assert_eq!(numbers, (1..=report.iterations).collect::<Vec<_>>());

    let other_shape = Sblr::params()
        .max_iter(5)
        .fit(&two_class(10, 3, 3, 1.0, 0).unwrap())
        .unwrap();
    let other_shape = serde_json::to_value(&other_shape).unwrap();
    for (case, field, text) in [
        (
            "a model too few",
            "models",
            edited(&json, |v| drop(array(v, "models").pop())),
        ),
        (
            "one class name",
            "class_names",
            edited(&json, |v| v["class_names"] = json!(["a"])),
        ),
        (
            "a model of another shape",
            "models",
            edited(&json, |v| array(v, "models")[1] = other_shape.clone()),
        ),
        (
            "a nested model with a factor too long",
            "u",
            edited(&json, |v| {
                array(&mut v["models"][2], "u").push(json!(0.0));
            }),
        ),
        (
            "a report with an iteration more than the class models ran",
            "report",
            edited(&json, |v| {
                let n = v["report"]["iterations"].as_u64().unwrap();
                v["report"]["iterations"] = json!(n + 1);
            }),
        ),
        (
            "a report with a trace record fewer",
            "report",
            edited(&json, |v| {
                drop(array(&mut v["report"]["trace"], "records").pop())
            }),
        ),
        (
            "a report of another termination",
            "report",
            edited(&json, |v| {
                let other = if v["report"]["termination"] == json!("MaxIterations") {
                    "Converged"
                } else {
                    "MaxIterations"
                };
                v["report"]["termination"] = json!(other);
            }),
        ),
    ] {
        let started = Instant::now();
        let err = serde_json::from_str::<FittedOneVsAll<FittedSblr>>(&text).unwrap_err();
        assert!(
            err.to_string().contains(&format!("`{field}`")),
            "{case}: {err}"
        );
        let limit = Duration::from_millis(100);
        let elapsed = started.elapsed().min(common::fastest_run(limit, || {
            let _ = serde_json::from_str::<FittedOneVsAll<FittedSblr>>(&text);
        }));
        assert!(elapsed < limit, "{case}: took {elapsed:?}");
    }
}

#[test]
fn save_and_load_through_a_file() {
    let data = two_class(20, 4, 3, 1.0, 8).unwrap();
    let model = Sblr::params().max_iter(20).fit(&data).unwrap();
    let dir = std::env::temp_dir().join(format!("sblr-saved-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.json");
    model.save(&path).unwrap();
    assert_eq!(FittedSblr::load(&path).unwrap(), model);
    std::fs::write(&path, "{\"s\": 1}").unwrap();
    assert!(matches!(
        FittedSblr::load(&path).unwrap_err(),
        SblrError::ModelFormat { .. }
    ));
    let err = FittedSblr::load(dir.join("missing.json")).unwrap_err();
    assert!(
        matches!(err, SblrError::Core(bl_core::BlError::Io { .. })),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Thousands of seeded random edits of saved models: each load either fails with an
/// error or gives a model whose every prediction entry point returns without panicking.
#[test]
fn randomly_edited_models_never_panic() {
    let data = two_class(16, 4, 3, 1.0, 1).unwrap();
    let three = sblr::synthetic::three_classes(18, 4, 3, 1).unwrap();
    let sblr = Sblr::params().rank(2).max_iter(5).fit(&data).unwrap();
    let multi = MultinomialSblr::params().max_iter(5).fit(&three).unwrap();
    let lr = LogisticRegression::params()
        .max_iter(50)
        .fit(&data)
        .unwrap();
    let ova = OneVsAll::new(Sblr::params().max_iter(5))
        .fit(&three)
        .unwrap();
    let originals: [Value; 4] = [
        serde_json::to_value(&sblr).unwrap(),
        serde_json::to_value(&multi).unwrap(),
        serde_json::to_value(&lr).unwrap(),
        serde_json::to_value(&ova).unwrap(),
    ];
    let mut rng = seeded_rng(0x9e37_79b9_7f4a_7c15);
    let mut loaded = [0_usize; 4];
    for round in 0..4000 {
        let which = round % 4;
        let mut value = originals[which].clone();
        for _ in 0..1 + rng.random_range(0..3) {
            mutate_json(&mut value, &mut rng);
        }
        let text = serde_json::to_string(&value).unwrap();
        let ok = match which {
            0 => FittedSblr::from_json(&text).map(|m| {
                let _ = m.predict_names(&data);
                let _ = m.predict_proba(&data);
                let _ = m.decision_function_sample(data.sample(0));
                let _ = m.weight_matrix();
            }),
            1 => FittedMultinomialSblr::from_json(&text).map(|m| {
                let _ = m.predict_proba(&three);
                let _ = m.predict(&three);
                let _ = (m.u(0), m.v(m.n_classes()));
            }),
            2 => FittedLogisticRegression::from_json(&text).map(|m| {
                let _ = m.predict_proba(&data);
                let _ = m.weights();
            }),
            _ => serde_json::from_str::<FittedOneVsAll<FittedSblr>>(&text)
                .map(|m| {
                    let _ = m.predict(&three);
                })
                .map_err(|e| SblrError::ModelFormat {
                    model: "FittedOneVsAll",
                    message: e.to_string(),
                }),
        };
        loaded[which] += usize::from(ok.is_ok());
    }
    // Some edits keep a valid model (e.g. another finite weight), most do not.
    eprintln!("edited models that still loaded, per model: {loaded:?} of 1000");
    assert!(loaded.iter().all(|&k| k > 0 && k < 1000), "{loaded:?}");
}
