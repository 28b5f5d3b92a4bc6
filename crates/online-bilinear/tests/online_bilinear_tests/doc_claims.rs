//! Behaviour the rustdoc states, checked where the code once did otherwise.

use online_bilinear::bmes_to_words;

/// `bmes_to_words`: "Extra tags (beyond the characters) are ignored": they give no word,
/// not empty words.
#[test]
fn bmes_to_words_ignores_extra_tags() {
    assert_eq!(bmes_to_words(&["a"], &["s", "s", "b", "e"]), ["a"]);
    assert_eq!(bmes_to_words(&["a", "b"], &["b", "e", "s"]), ["ab"]);
    assert_eq!(bmes_to_words(&["a", "b"], &["b", "m", "e"]), ["ab"]);
    let no_chars: [&str; 0] = [];
    assert!(bmes_to_words(&no_chars, &["s"]).is_empty());
}

/// `FeatureDict` is `Deserialize`: a dictionary whose ids are not `0..len()`
/// ([`FeatureDict::ids_are_dense`] false) lists its names without a panic.
#[test]
fn feature_dict_names_of_sparse_ids_do_not_panic() {
    let json = r#"{"templates":{"list":["Bias"]},"cutoff":1,"ids":{"x":5,"y":0}}"#;
    let dict: online_bilinear::FeatureDict = serde_json::from_str(json).unwrap();
    assert!(!dict.ids_are_dense());
    let names = dict.names();
    assert_eq!(names.len(), 2);
    assert_eq!(names[0], "y");
}

/// `FittedTagger::from_json`: the message names the field as its example shows.
#[test]
fn from_json_names_the_field_as_documented() {
    use online_bilinear::{Fit, FittedTagger, ParamGuard, TaggerParams};
    let corpus = online_bilinear::synthetic::token_function(20, 3, 1).unwrap();
    let model = TaggerParams::bol()
        .max_iter(1)
        .check()
        .unwrap()
        .fit(&corpus)
        .unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
    let alpha = json["weights"]["Bilinear"]["alpha"].as_array_mut().unwrap();
    let expected = alpha.len();
    alpha.push(serde_json::Value::from(0.0));
    let (k, l) = (model.n_features(), model.tags().len());
    let message = FittedTagger::from_json(&json.to_string())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(&format!(
            "field `weights.Bilinear.alpha`: expected {expected} values (K x L = [{k}, {l}]), found {}",
            expected + 1
        )),
        "{message}"
    );
}

/// `BlockRankOne::update` and `SpectralRankOne::update` refuse an update with an error, not
/// a panic, when an entry of `D` lies outside the block shape (`BlockUpdate::add` is
/// public and takes any `(r, c)`).
#[test]
fn rank_one_updates_refuse_entries_outside_the_block() {
    use online_bilinear::{BlockRankOne, BlockUpdate, SpectralMode, SpectralRankOne};
    for (r, c) in [(5, 0), (0, 3), (1, 7)] {
        let mut d = BlockUpdate::new(2, 3);
        d.add(0, 0, 0, 1.0);
        d.add(1, r, c, 1.0);
        let mut state = BlockRankOne::new(2, 2, 3, false).unwrap();
        assert!(state.update(&d, 4).is_err(), "({r}, {c})");
        for mode in [SpectralMode::Exact, SpectralMode::Algorithm2] {
            let mut state = SpectralRankOne::new(2, 2, 3, mode, false).unwrap();
            assert!(state.update(&d, 4).is_err(), "({r}, {c}) {mode:?}");
        }
        // Cleared, the update is valid again.
        d.clear();
        d.add(1, 1, 2, 1.0);
        assert!(
            BlockRankOne::new(2, 2, 3, false)
                .unwrap()
                .update(&d, 4)
                .is_ok()
        );
    }
}

/// The same fit gives the same saved bytes (but for the report's timings): the feature
/// dictionary is written in id order, not in the order of its hash map, which differs
/// from one map to the next.
#[test]
fn the_same_feature_dictionary_has_the_same_bytes() {
    use online_bilinear::{FeatureDict, Templates};
    let corpus = online_bilinear::synthetic::token_function(50, 4, 3).unwrap();
    let templates = Templates::segmentation();
    let a = FeatureDict::build(&corpus, &templates, 1).unwrap();
    let b = FeatureDict::build(&corpus, &templates, 1).unwrap();
    assert!(a.len() > 20, "{} features", a.len());
    let (ja, jb) = (
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap(),
    );
    assert_eq!(ja, jb);
    let back: FeatureDict = serde_json::from_str(&ja).unwrap();
    assert_eq!(back, a);
}
