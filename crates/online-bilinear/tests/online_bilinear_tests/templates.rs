//! Template transforms and chains of them on hand-computed words, bigrams over a transform,
//! template names, the saved form of templates (older lists load), `Templates::word_tagging`
//! and `Templates::word_only` on a word-only corpus the test writes (unseen words are
//! tagged through their form), named columns, and the evaluation that fits each tag set.

use crate::common;

use bl_core::random::seeded_rng;
use online_bilinear::features::{MAX_CHAIN, TransformChain};
use online_bilinear::{
    ConllFormat, Corpus, FeatureDict, FittedTagger, LabelColumn, OblError, Sentence, TagScheme,
    TaggerParams, Template, Templates, Transform, parse_word_tagged, read_word_tagged,
};
use online_bilinear::{Fit as _, ParamGuard as _, Predict};
use rand::RngExt;

#[test]
fn transforms_of_hand_picked_words() {
    use Transform::*;
    for (word, transform, want) in [
        ("The", Lowercase, "the"),
        ("ÉCOLE", Lowercase, "école"),
        ("unhappily", Prefix(3), "unh"),
        ("ab", Prefix(3), "ab"),
        ("walking", Suffix(3), "ing"),
        ("naïve", Suffix(3), "ïve"),
        ("a", Suffix(2), "a"),
        ("abc", Suffix(0), ""), // refused by Templates::new, empty if called directly
        ("abc", Prefix(0), ""),
        ("McDonald's", Shape, "XxXxxxxx'x"),
        ("McDonald's", ShortShape, "XxXx'x"),
        ("1,200", Shape, "d,ddd"),
        ("1,200", ShortShape, "d,d"),
        ("Über-2", ShortShape, "Xx-d"),
        ("1984", IsDigit, "1"),
        ("19a", IsDigit, "0"),
        ("", IsDigit, "0"),
        ("NASA", IsUpper, "1"),
        ("U.S.", IsUpper, "1"),
        ("Nasa", IsUpper, "0"),
        ("123", IsUpper, "0"),
        ("漢字", IsUpper, "0"),
        ("漢字", Shape, "xx"),
        ("London", IsTitle, "1"),
        ("McDonald", IsTitle, "0"),
        ("london", IsTitle, "0"),
        ("well-known", HasHyphen, "1"),
        ("known", HasHyphen, "0"),
    ] {
        // The transform appends to what the buffer holds.
        let mut out = String::from(">");
        transform.write(word, &mut out);
        assert_eq!(out, format!(">{want}"), "{transform:?} of {word:?}");
    }
}

/// A transform's output as a fresh string.
fn transformed(transform: Transform, word: &str) -> String {
    let mut out = String::new();
    transform.write(word, &mut out);
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(17),
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Against independent computations: `str::to_lowercase`, affixes from the `char`
    /// vector, the collapsed shape as the shape with repeats removed.
    #[test]
    fn transforms_agree_with_independent_computations(
        word in "[A-Za-z0-9,.'ÉéÜüß漢-]{0,12}",
        k in 1u8..=16,
    ) {
        let chars: Vec<char> = word.chars().collect();
        let k_chars = usize::from(k).min(chars.len());
        proptest::prop_assert_eq!(transformed(Transform::Lowercase, &word), word.to_lowercase());
        let prefix: String = chars[..k_chars].iter().collect();
        let suffix: String = chars[chars.len() - k_chars..].iter().collect();
        proptest::prop_assert_eq!(transformed(Transform::Prefix(k), &word), prefix);
        proptest::prop_assert_eq!(transformed(Transform::Suffix(k), &word), suffix);
        let mut collapsed: Vec<char> = transformed(Transform::Shape, &word).chars().collect();
        proptest::prop_assert_eq!(collapsed.len(), chars.len());
        collapsed.dedup();
        proptest::prop_assert_eq!(
            transformed(Transform::ShortShape, &word),
            collapsed.into_iter().collect::<String>()
        );
    }
}

#[test]
fn transformed_templates_make_the_expected_feature_strings_and_are_checked() {
    let lower = |offset| Template::Transformed {
        column: 0,
        offset,
        transform: Transform::Lowercase.into(),
    };
    let templates = Templates::new(vec![lower(0), lower(-1)]).unwrap();
    let corpus = Corpus::new(vec![
        Sentence::from_tokens(&["The", "CAT"], &["DT", "NN"]).unwrap(),
    ]);
    let dict = FeatureDict::build(&corpus, &templates, 1).unwrap();
    for feature in ["0\u{1}the", "0\u{1}cat", "1\u{1}\u{2}<1", "1\u{1}the"] {
        assert!(dict.id(feature).is_some(), "{feature:?}");
    }
    assert_eq!(dict.len(), 4);
    for transform in [Transform::Prefix(0), Transform::Suffix(17)] {
        let bad = Templates::new(vec![Template::Transformed {
            column: 0,
            offset: 0,
            transform: transform.into(),
        }]);
        assert!(common::is_invalid_parameter(&bad), "{transform:?}");
    }
    // Saved templates: names and transforms round trip, and a list saved without names
    // (before they existed) still loads.
    for t in [
        Templates::word_only(),
        Templates::chunking(),
        Templates::segmentation(),
    ] {
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Templates>(&json).unwrap(), t);
    }
    let old = r#"{"list":[{"Unigram":{"column":0,"offset":0}}]}"#;
    assert!(
        serde_json::from_str::<Templates>(old)
            .unwrap()
            .column_names()
            .is_empty()
    );
    let bad_names = r#"{"list":["Bias"],"column_names":["word"]}"#;
    assert!(serde_json::from_str::<Templates>(bad_names).is_err());
    assert!(
        Templates::chunking()
            .with_column_names(&["a", "b", "c"])
            .is_err()
    );
    assert!(
        Templates::chunking()
            .with_column_names(&["a", "a"])
            .is_err()
    );
}

#[test]
fn chained_transforms_apply_in_order() {
    use Transform::*;
    for (chain, word, want, name) in [
        (Lowercase.then(Suffix(3)), "WALKING", "ing", "lower.suffix3"),
        (Lowercase.then(Prefix(2)), "École", "éc", "lower.prefix2"),
        (Suffix(3).then(Shape), "McDonALD", "XXX", "suffix3.shape"),
        (
            Prefix(4).then(ShortShape),
            "1,200",
            "d,d",
            "prefix4.short_shape",
        ),
        (
            Lowercase.then(Prefix(2)).then(IsUpper),
            "ABc",
            "0",
            "lower.prefix2.is_upper",
        ),
        (Prefix(2).then(IsUpper), "ABc", "1", "prefix2.is_upper"),
        (Lowercase.then(Suffix(3)), "", "", "lower.suffix3"),
        (TransformChain::from(Shape), "Ab1", "Xxd", "shape"),
    ] {
        // The chain appends to what the buffer holds, and leaves the rest alone.
        let mut out = String::from(">");
        chain.write(word, &mut out);
        assert_eq!(out, format!(">{want}"), "{chain} of {word:?}");
        assert_eq!(chain.apply(word), want);
        assert_eq!(chain.to_string(), name);
    }
    let chain = Lowercase.then(Suffix(3));
    assert_eq!(chain.steps(), [Lowercase, Suffix(3)]);
    assert_eq!(TransformChain::new(&[Lowercase, Suffix(3)]).unwrap(), chain);
    // Invalid chains: no step, a bad affix inside, more than MAX_CHAIN steps.
    let too_long = (0..MAX_CHAIN).fold(TransformChain::from(Lowercase), |c, _| c.then(Shape));
    assert_eq!(too_long.steps().len(), MAX_CHAIN);
    for bad in [
        TransformChain::new(&[]),
        TransformChain::new(&[Lowercase, Suffix(0)]),
        TransformChain::new(&[Lowercase; MAX_CHAIN + 1]),
    ] {
        assert!(common::is_invalid_parameter(&bad), "{bad:?}");
    }
    for bad in [
        Template::transformed(0, 0, too_long),
        Template::transformed(0, 0, Lowercase.then(Prefix(17))),
        Template::transformed_bigram(0, -1, 0, Suffix(0)),
        Template::transformed_bigram(0, -1, 70_000, Lowercase),
        Template::transformed_bigram(2000, -1, 0, Lowercase),
    ] {
        assert!(
            common::is_invalid_parameter(&Templates::new(vec![bad])),
            "{bad}"
        );
    }
}

#[test]
fn chains_and_transform_bigrams_make_the_expected_feature_strings() {
    use Transform::*;
    let templates = Templates::new(vec![
        Template::transformed(0, 0, Lowercase.then(Suffix(3))),
        Template::transformed_bigram(0, -1, 0, Lowercase),
        Template::transformed_bigram(0, 0, 1, Lowercase.then(Prefix(1))),
    ])
    .unwrap();
    assert_eq!(
        templates.names(),
        [
            "c0[0].lower.suffix3",
            "c0[-1].lower|c0[0].lower",
            "c0[0].lower.prefix1|c0[1].lower.prefix1"
        ]
    );
    let corpus = Corpus::new(vec![
        Sentence::from_tokens(&["The", "WALKING", "Dogs"], &["DT", "VBG", "NNS"]).unwrap(),
    ]);
    let dict = FeatureDict::build(&corpus, &templates, 1).unwrap();
    // Ids in order of first appearance: position by position, template by template.
    // Outside the sentence: the padding symbols, untransformed.
    assert_eq!(
        dict.names(),
        [
            "0\u{1}the",
            "1\u{1}\u{2}<1\u{1}the",
            "2\u{1}t\u{1}w",
            "0\u{1}ing",
            "1\u{1}the\u{1}walking",
            "2\u{1}w\u{1}d",
            "0\u{1}ogs",
            "1\u{1}walking\u{1}dogs",
            "2\u{1}d\u{1}\u{2}>1",
        ]
    );
    // Another sentence shares the features of its lower-cased forms.
    let encoded = dict
        .encode(&Sentence::untagged(&["the", "Walking", "DOGS"]))
        .unwrap();
    assert_eq!(encoded.at(1), [3, 4, 5]);
    assert_eq!(encoded.at(2), [6, 7, 8]);
}

#[test]
fn template_names_are_stable_and_distinct() {
    let list = vec![
        Template::Bias,
        Template::unigram(0, -2),
        Template::bigram(1, -1, 0),
        Template::transformed(0, 1, Transform::ShortShape),
        Template::transformed_bigram(0, -1, 0, Transform::Shape),
        Template::transformed(0, 0, Transform::Lowercase.then(Transform::Prefix(3))),
    ];
    let names = Templates::new(list).unwrap().names();
    assert_eq!(
        names,
        [
            "bias",
            "c0[-2]",
            "c1[-1]|c1[0]",
            "c0[1].short_shape",
            "c0[-1].shape|c0[0].shape",
            "c0[0].lower.prefix3",
        ]
    );
    for preset in [
        Templates::segmentation(),
        Templates::chunking(),
        Templates::word_only(),
        Templates::word_tagging(),
    ] {
        let names = preset.names();
        let distinct: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }
    assert_eq!(
        Template::transformed(0, 0, Transform::Lowercase),
        Template::Transformed {
            column: 0,
            offset: 0,
            transform: Transform::Lowercase.into()
        }
    );
}

#[test]
fn saved_templates_keep_the_form_of_one_transform_and_list_a_chain() {
    use Transform::*;
    // Templates as saved before chains existed: they load, and save back byte for byte.
    let old = concat!(
        r#"{"list":["Bias",{"Unigram":{"column":0,"offset":-1}},"#,
        r#"{"Bigram":{"column":0,"first":-1,"second":0}},"#,
        r#"{"Transformed":{"column":0,"offset":0,"transform":"Lowercase"}},"#,
        r#"{"Transformed":{"column":0,"offset":-1,"transform":{"Suffix":3}}}]}"#
    );
    let loaded: Templates = serde_json::from_str(old).unwrap();
    assert_eq!(
        loaded,
        Templates::new(vec![
            Template::Bias,
            Template::unigram(0, -1),
            Template::bigram(0, -1, 0),
            Template::transformed(0, 0, Lowercase),
            Template::transformed(0, -1, Suffix(3)),
        ])
        .unwrap()
    );
    assert_eq!(serde_json::to_string(&loaded).unwrap(), old);
    // A chain is a list of steps; a transform bigram has its own variant.
    let new = Templates::new(vec![
        Template::transformed(0, 0, Lowercase.then(Suffix(3))),
        Template::transformed_bigram(0, -1, 0, Lowercase),
    ])
    .unwrap();
    let json = serde_json::to_string(&new).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"list":[{"Transformed":{"column":0,"offset":0,"transform":["Lowercase",{"Suffix":3}]}},"#,
            r#"{"TransformedBigram":{"column":0,"first":-1,"second":0,"transform":"Lowercase"}}]}"#
        )
    );
    assert_eq!(serde_json::from_str::<Templates>(&json).unwrap(), new);
    // Every preset round-trips.
    for t in [Templates::word_tagging(), Templates::word_only()] {
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Templates>(&json).unwrap(), t);
    }
    // Saved chains are checked: empty, too long, a bad affix.
    for bad in [
        r#"{"list":[{"Transformed":{"column":0,"offset":0,"transform":[]}}]}"#,
        r#"{"list":[{"Transformed":{"column":0,"offset":0,"transform":["Shape","Shape","Shape","Shape","Shape"]}}]}"#,
        r#"{"list":[{"TransformedBigram":{"column":0,"first":0,"second":1,"transform":["Lowercase",{"Prefix":0}]}}]}"#,
        r#"{"list":[{"Transformed":{"column":0,"offset":0,"transform":"Upper"}}]}"#,
    ] {
        assert!(serde_json::from_str::<Templates>(bad).is_err(), "{bad}");
    }
}

#[test]
fn word_tagging_lists_the_documented_templates() {
    let names = Templates::word_tagging().names();
    assert_eq!(
        names,
        [
            "bias",
            "c0[-2]",
            "c0[-1]",
            "c0[0]",
            "c0[1]",
            "c0[2]",
            "c0[-1].lower",
            "c0[0].lower",
            "c0[1].lower",
            "c0[0].lower.prefix1",
            "c0[0].lower.prefix2",
            "c0[0].lower.prefix3",
            "c0[0].lower.suffix1",
            "c0[0].lower.suffix2",
            "c0[0].lower.suffix3",
            "c0[0].shape",
            "c0[-1].short_shape",
            "c0[0].short_shape",
            "c0[1].short_shape",
            "c0[0].is_digit",
            "c0[0].is_upper",
            "c0[0].is_title",
            "c0[0].has_hyphen",
            "c0[-1].lower|c0[0].lower",
            "c0[0].lower|c0[1].lower",
            "c0[-1].short_shape|c0[0].short_shape",
            "c0[0].short_shape|c0[1].short_shape",
        ]
    );
    let templates = Templates::word_tagging();
    assert_eq!(templates.columns_needed(), 1);
    assert!(templates.has_bias() && templates.column_names().is_empty());
    // The features of the middle word of "New YORK-based firm", template by template.
    let sentence = Sentence::from_tokens(&["New", "YORK-based", "firm"], &["A", "B", "C"]).unwrap();
    let dict = FeatureDict::build(&Corpus::new(vec![sentence.clone()]), &templates, 1).unwrap();
    let names = dict.names();
    let middle: Vec<&str> = dict
        .encode(&sentence)
        .unwrap()
        .at(1)
        .iter()
        .map(|&id| names[id as usize].as_str())
        .collect();
    let want: Vec<String> = [
        "",
        "\u{2}<1",
        "New",
        "YORK-based",
        "firm",
        "\u{2}>1",
        "new",
        "york-based",
        "firm",
        "y",
        "yo",
        "yor",
        "d",
        "ed",
        "sed",
        "XXXX-xxxxx",
        "Xx",
        "X-x",
        "x",
        "0",
        "0",
        "0",
        "1",
        "new\u{1}york-based",
        "york-based\u{1}firm",
        "Xx\u{1}X-x",
        "X-x\u{1}x",
    ]
    .iter()
    .enumerate()
    .map(|(t, value)| format!("{t}\u{1}{value}"))
    .collect();
    assert_eq!(middle, want);
}

/// A word-only POS corpus where the tag follows from the word's form: determiners, nouns
/// (plain stems), `-ing` and `-ed` verbs, capitalized proper nouns, numbers, hyphenated
/// adjectives. Stems are random, so a test corpus of another seed has unseen words.
fn pos_corpus_text(n_sentences: usize, seed: u64) -> String {
    let mut rng = seeded_rng(seed);
    let stem = |rng: &mut bl_core::random::Rng| -> String {
        let len = rng.random_range(3..7);
        (0..len)
            .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
            .collect()
    };
    let mut text = String::new();
    for _ in 0..n_sentences {
        let n = rng.random_range(4..10);
        let items: Vec<String> = (0..n)
            .map(|_| {
                let s = stem(&mut rng);
                let (word, tag) = match rng.random_range(0..7) {
                    0 => (["the", "a"][rng.random_range(0..2)].to_string(), "DT"),
                    1 => (s, "NN"),
                    2 => (format!("{s}ing"), "VBG"),
                    3 => (format!("{s}ed"), "VBD"),
                    4 => {
                        let mut c = s.chars();
                        let first = c.next().map(|f| f.to_ascii_uppercase());
                        (first.into_iter().chain(c).collect(), "NNP")
                    }
                    5 => (rng.random_range(1..5000).to_string(), "CD"),
                    _ => (format!("{s}-{}", stem(&mut rng)), "JJ"),
                };
                format!("{word}/{tag}")
            })
            .collect();
        text.push_str(&items.join(" "));
        text.push('\n');
    }
    text
}

#[test]
fn word_templates_tag_unseen_words_of_a_word_tagged_file() {
    let dir = std::env::temp_dir().join(format!("obl-templates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("train.pos");
    std::fs::write(&path, pos_corpus_text(300, 1)).unwrap();
    let train = read_word_tagged(&path, '/').unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let test = parse_word_tagged(&pos_corpus_text(100, 2), '/', "<test>").unwrap();
    let accuracy = |templates: Templates| {
        let model = TaggerParams::bol()
            .templates(templates)
            .max_iter(5)
            .seed(3)
            .fit(&train)
            .unwrap();
        let e = model.evaluate(&test).unwrap();
        // POS tags have no spans: accuracy only, and no F1 of 0.
        assert_eq!(e.scheme, TagScheme::Plain);
        assert!(e.prf().is_none() && e.chunks.is_none() && e.f1().is_nan());
        assert!((e.token_accuracy + e.label_error_rate - 1.0).abs() < 1e-12);
        e.token_accuracy
    };
    let tagging = accuracy(Templates::word_tagging());
    let with_transforms = accuracy(Templates::word_only());
    let words_alone = accuracy(
        Templates::new(vec![
            Template::Bias,
            Template::Unigram {
                column: 0,
                offset: 0,
            },
        ])
        .unwrap(),
    );
    assert!(
        with_transforms > 0.95 && with_transforms > words_alone + 0.3,
        "word_only {with_transforms}, words alone {words_alone}"
    );
    assert!(
        tagging > 0.95 && tagging > words_alone + 0.3,
        "word_tagging {tagging}, words alone {words_alone}"
    );
}

/// A model saved with chains and transform bigrams loads and predicts the same; a model of
/// one-step transforms saves them in the form models had before chains.
#[test]
fn saved_models_keep_their_transforms() {
    let train = parse_word_tagged(&pos_corpus_text(60, 7), '/', "<train>").unwrap();
    let test = parse_word_tagged(&pos_corpus_text(20, 8), '/', "<test>").unwrap();
    for (templates, saved_forms) in [
        (
            Templates::word_tagging(),
            &[
                r#""transform":["Lowercase",{"Suffix":3}]"#,
                r#"{"TransformedBigram":{"column":0,"first":-1,"second":0,"transform":"Lowercase"}}"#,
            ][..],
        ),
        (
            Templates::word_only(),
            &[
                r#"{"Transformed":{"column":0,"offset":0,"transform":{"Suffix":3}}}"#,
                r#"{"Transformed":{"column":0,"offset":-1,"transform":"Lowercase"}}"#,
            ],
        ),
    ] {
        let model = TaggerParams::bol()
            .templates(templates.clone())
            .max_iter(2)
            .seed(5)
            .fit(&train)
            .unwrap();
        let json = model.to_json().unwrap();
        for form in saved_forms {
            assert!(json.contains(form), "{form} not in the saved model");
        }
        let back = FittedTagger::from_json(&json).unwrap();
        assert_eq!(back.templates(), &templates);
        common::assert_same_tags(&back, &model, &test);
    }
}

/// A small chunking corpus in CoNLL columns (word, part of speech, chunk).
const CHUNKS: &str = "He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ncurrent JJ I-NP\n\
    deficit NN I-NP\n\nThe DT B-NP\npound NN I-NP\nfell VBD B-VP\n\nIt PRP B-NP\n\
    rose VBD B-VP\nsharply RB O\n";

#[test]
fn chunking_templates_name_the_part_of_speech_column_they_need() {
    let missing_pos = |result: Result<_, OblError>| match result {
        Err(OblError::TooFewColumns { column, needed, .. }) => {
            assert_eq!(needed, 1);
            assert!(column.contains("`pos`"), "{column}");
        }
        Err(other) => panic!("expected TooFewColumns, got {other:?}"),
        Ok(_) => panic!("expected TooFewColumns, got a model"),
    };
    let chunking = TaggerParams::sp()
        .templates(Templates::chunking())
        .max_iter(3);
    // A word/TAG corpus has no second column.
    let words = parse_word_tagged("He/B-NP reckons/B-VP\n", '/', "<x>").unwrap();
    missing_pos(chunking.fit(&words));
    // A named corpus whose second column is not a part of speech.
    let ne = ConllFormat::new()
        .columns(&["word", "ne", "chunk"])
        .parse(&CHUNKS.replace(" PRP ", " O "), "<x>")
        .unwrap();
    match chunking.fit(&ne) {
        Err(OblError::MissingColumn {
            name,
            index,
            columns,
        }) => assert_eq!(
            (name.as_str(), index, columns),
            ("pos", 1, vec!["word".to_string(), "ne".to_string()])
        ),
        Err(other) => panic!("expected MissingColumn, got {other:?}"),
        Ok(_) => panic!("expected MissingColumn, got a model"),
    }
    // Named right (any case), or unnamed with two columns, the templates apply.
    let named = ConllFormat::new()
        .header(true)
        .label(LabelColumn::Named("chunk".into()))
        .parse(&format!("word POS chunk\n{CHUNKS}"), "<x>")
        .unwrap();
    let model = chunking.fit(&named).unwrap();
    let e = model.evaluate(&named).unwrap();
    assert_eq!(e.scheme, TagScheme::Bio);
    assert!(e.chunks.is_some() && e.segmentation.is_none() && e.f1() >= 0.0);
    let untagged = Sentence::untagged_columns(vec![
        vec!["The".into(), "deficit".into(), "rose".into()],
        vec!["DT".into(), "NN".into(), "VBD".into()],
    ])
    .unwrap();
    let tags: Vec<String> = model.predict(&untagged).unwrap();
    assert_eq!(tags.len(), 3);
    // A one-column sentence is refused at prediction too.
    assert!(matches!(
        Predict::<Sentence, Vec<String>>::predict(&model, &Sentence::untagged(&["The"])),
        Err(OblError::TooFewColumns { .. })
    ));
}

#[test]
fn with_bias_puts_the_bias_first_once_and_keeps_the_column_names() {
    let chunking = Templates::chunking();
    let biased = chunking.clone().with_bias();
    assert_eq!(biased.as_slice()[0], Template::Bias);
    assert_eq!(&biased.as_slice()[1..], chunking.as_slice());
    assert_eq!(biased.column_names(), chunking.column_names());
    assert!(biased.column_names().iter().any(|n| n == "pos"));
    assert_eq!(biased.clone().with_bias(), biased);
    // With the bias, `transitions_only` passes the check, and the named column is still
    // asked for: a word/TAG corpus is refused naming `pos`.
    let params = TaggerParams::sp()
        .templates(biased)
        .zero_order(true)
        .transitions_only(true)
        .max_iter(2);
    assert!(params.check().is_ok());
    let words = parse_word_tagged("He/B-NP reckons/B-VP\n", '/', "<x>").unwrap();
    match params.fit(&words) {
        Err(OblError::TooFewColumns { column, .. }) => {
            assert!(column.contains("`pos`"), "{column}");
        }
        Err(other) => panic!("expected TooFewColumns, got {other:?}"),
        Ok(_) => panic!("expected TooFewColumns, got a model"),
    }
    // Without it, `transitions_only` is refused.
    let unbiased = TaggerParams::sp()
        .templates(Templates::chunking())
        .zero_order(true)
        .transitions_only(true);
    assert!(unbiased.check().is_err());
}

#[test]
fn bioes_tags_are_scored_by_typed_spans() {
    let text = CHUNKS
        .replace("He PRP B-NP", "He PRP S-NP")
        .replace("reckons VBZ B-VP", "reckons VBZ S-VP")
        .replace("deficit NN I-NP", "deficit NN E-NP")
        .replace("pound NN I-NP", "pound NN E-NP")
        .replace("fell VBD B-VP", "fell VBD S-VP")
        .replace("It PRP B-NP", "It PRP S-NP")
        .replace("rose VBD B-VP", "rose VBD S-VP");
    let corpus = online_bilinear::parse_conll(&text, "<x>").unwrap();
    let model = TaggerParams::sp()
        .templates(Templates::chunking())
        .max_iter(10)
        .fit(&corpus)
        .unwrap();
    let e = model.evaluate(&corpus).unwrap();
    assert_eq!(e.scheme, TagScheme::Bioes);
    let m = e.chunks.unwrap();
    // 7 gold chunks in the corpus (3 + 2 + 2), whatever the model predicts.
    assert_eq!(m.true_positives + m.false_negatives, 7);
}

/// `encode_corpus` runs on the rayon pool: the same encoding (the sequential one, sentence
/// by sentence) and the same first error on 1 and 2 threads.
#[test]
fn corpus_encoding_is_the_same_on_any_number_of_threads() {
    let corpus = parse_word_tagged(&pos_corpus_text(200, 5), '/', "<x>").unwrap();
    let dict = FeatureDict::build(&corpus, &Templates::word_only(), 1).unwrap();
    let sequential: Vec<_> = corpus
        .sentences()
        .iter()
        .map(|s| dict.encode(s).unwrap())
        .collect();
    let pos = ConllFormat::new().parse(CHUNKS, "<x>").unwrap();
    let chunk_dict = FeatureDict::build(&pos, &Templates::chunking(), 1).unwrap();
    // Sentences 3 and 6 lack the part-of-speech column.
    let mut mixed = pos.into_sentences();
    let one_column = Sentence::from_tokens(&["a", "b"], &["O", "O"]).unwrap();
    mixed.extend([
        one_column.clone(),
        mixed[0].clone(),
        mixed[1].clone(),
        one_column,
    ]);
    let mixed = Corpus::new(mixed);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(
            pool.install(|| dict.encode_corpus(&corpus)).unwrap(),
            sequential,
            "{threads} threads"
        );
        match pool.install(|| chunk_dict.encode_corpus(&mixed)) {
            Err(OblError::TooFewColumns { sentence, .. }) => assert_eq!(sentence, 3),
            other => panic!("{threads} threads: expected TooFewColumns, got {other:?}"),
        }
    }
}

#[test]
fn features_prepared_on_any_thread_count_are_the_same() {
    // A corpus large enough to be split across threads by the dictionary's passes.
    let corpus = common::lexicon_corpus(400, 9);
    let prepare = |threads| {
        TaggerParams::sp()
            .templates(Templates::word_tagging())
            .cutoff(2)
            .threads(threads)
            .check()
            .unwrap()
            .prepare(&corpus)
            .unwrap()
    };
    let one = prepare(Some(1));
    assert!(!one.features().is_empty());
    for threads in [Some(2), Some(3), None] {
        let other = prepare(threads);
        assert_eq!(other.features(), one.features(), "{threads:?}");
        assert_eq!(other.encoded(), one.encoded(), "{threads:?}");
        assert_eq!(other.gold(), one.gold(), "{threads:?}");
        assert_eq!(other.tags(), one.tags(), "{threads:?}");
    }
}
