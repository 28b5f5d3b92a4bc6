//! The learners on a small synthetic segmentation task that a first-order tagger can learn:
//! low error, determinism with a seed, averaging, 0-order features, save/load, bad input.

use crate::common;

use bl_core::random::seeded_rng;
use online_bilinear::Predict as _;
use online_bilinear::{
    BuiltIn, Corpus, OblError, ParamGuard, Sentence, TaggerParams, Template, Templates,
};
use online_bilinear::{Fit as _, Fitted as _};
use rand::RngExt;

fn fit_and_score(params: TaggerParams) -> (f64, f64) {
    let train = common::lexicon_corpus(300, 1);
    let test = common::lexicon_corpus(100, 2);
    let model = params.max_iter(8).fit(&train).unwrap();
    let e = model.evaluate(&test).unwrap();
    (e.label_error_rate, e.f1())
}

#[test]
fn every_online_learner_learns_the_synthetic_task() {
    for params in [
        TaggerParams::bol(),
        TaggerParams::bol().averaging(true).zero_order(true),
        TaggerParams::bcd(),
        TaggerParams::bcd().averaging(true),
        TaggerParams::sp(),
        TaggerParams::sp().averaging(true).zero_order(true),
    ] {
        let name = format!("{:?}", params);
        let (error, f1) = fit_and_score(params);
        assert!(error < 0.06, "{name}: test label error {error}");
        assert!(f1 > 0.9, "{name}: test word F1 {f1}");
    }
}

#[test]
fn bol_reaches_zero_training_error_on_a_separable_task() {
    // Tag = a function of the character alone: separable with unigram features.
    let tags = ["x", "y", "z"];
    let mut rng = seeded_rng(4);
    let corpus: Corpus = (0..80)
        .map(|_| {
            let n = rng.random_range(2..8);
            let toks: Vec<String> = (0..n)
                .map(|_| format!("c{}", rng.random_range(0..15)))
                .collect();
            let tg: Vec<&str> = toks
                .iter()
                .map(|t| tags[t[1..].parse::<usize>().unwrap() % 3])
                .collect();
            Sentence::from_tokens(&toks, &tg).unwrap()
        })
        .collect();
    let templates = Templates::new(vec![
        Template::Bias,
        Template::Unigram {
            column: 0,
            offset: 0,
        },
    ])
    .unwrap();
    let model = TaggerParams::bol()
        .templates(templates)
        .max_iter(10)
        .fit(&corpus)
        .unwrap();
    let last = model.report().trace.extra("token_errors");
    assert_eq!(
        last.last().unwrap().1,
        0.0,
        "online errors in the last epoch"
    );
    assert_eq!(model.evaluate(&corpus).unwrap().label_error_rate, 0.0);
}

#[test]
fn training_is_deterministic_for_a_seed() {
    let train = common::lexicon_corpus(120, 5);
    for learner in [BuiltIn::Bol, BuiltIn::Bcd, BuiltIn::Sp] {
        let params = TaggerParams::builtin(learner)
            .max_iter(3)
            .averaging(true)
            .seed(42);
        let a = params.fit(&train).unwrap();
        let b = params.fit(&train).unwrap();
        // bol and bcd hold `alpha`, `beta`; sp holds sparse weights (no 0-order weights
        // here): compare whichever the learner has, and check it has some.
        assert!(
            a.alpha().is_some() || a.sparse_weights().is_some(),
            "{learner:?}: no weights to compare"
        );
        assert_eq!(
            a.zero_order_weights().unwrap(),
            b.zero_order_weights().unwrap()
        );
        assert_eq!(a.alpha(), b.alpha());
        assert_eq!(a.beta(), b.beta());
        assert_eq!(a.sparse_weights(), b.sparse_weights(), "{learner:?}");
        assert_eq!(
            a.report().trace.extra("token_errors"),
            b.report().trace.extra("token_errors")
        );
        common::assert_same_tags(&a, &b, &train);
    }
    // Another seed visits the sentences in another order.
    let a = TaggerParams::bol().max_iter(1).seed(1).fit(&train).unwrap();
    let b = TaggerParams::bol().max_iter(1).seed(2).fit(&train).unwrap();
    assert_ne!(a.alpha(), b.alpha());
}

#[test]
fn save_and_load_give_the_same_predictions() {
    let train = common::lexicon_corpus(60, 6);
    let model = common::bol_zero_order(&train, 2);
    let path = std::env::temp_dir().join(format!("obl-model-{}.json", std::process::id()));
    model.save(&path).unwrap();
    let back = online_bilinear::FittedTagger::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    common::assert_same_tags(&back, &model, &train);
    assert_eq!(back.tags(), model.tags());
    assert!(matches!(
        online_bilinear::FittedTagger::from_json("{\"format\": 3}"),
        Err(OblError::Serde(_))
    ));
    // A dictionary whose ids do not index the weights is rejected, not trusted.
    let json = model.to_json().unwrap();
    let at = json.find("\"ids\":{").unwrap();
    let colon = at + 7 + json[at + 7..].find("\":").unwrap() + 1;
    let end = colon + json[colon..].find([',', '}']).unwrap();
    let broken = format!("{}:99999999{}", &json[..colon], &json[end..]);
    assert_ne!(broken, json);
    assert!(matches!(
        online_bilinear::FittedTagger::from_json(&broken),
        Err(OblError::Serde(_))
    ));
}

#[test]
fn callback_sees_every_epoch() {
    let train = common::lexicon_corpus(40, 7);
    let test = common::lexicon_corpus(20, 8);
    let mut errors = Vec::new();
    let params = TaggerParams::sp().max_iter(4).check().unwrap();
    let prepared = params.prepare(&train).unwrap();
    let model = params
        .fit(&prepared.with_snapshots(|info, snapshot| {
            errors.push((info.epoch, snapshot.evaluate(&test)?.label_error_rate));
            Ok(())
        }))
        .unwrap();
    assert_eq!(errors.iter().map(|e| e.0).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(errors[3].1, model.evaluate(&test).unwrap().label_error_rate);
}

#[test]
fn bad_input_gives_typed_errors() {
    let train = common::lexicon_corpus(20, 9);
    assert!(matches!(
        TaggerParams::bol().fit(&Corpus::default()),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
    assert!(common::is_invalid_named(
        &TaggerParams::bol().max_iter(0).fit(&train),
        "max_iter"
    ));
    assert!(common::is_invalid_named(
        &TaggerParams::bcd().c(f64::NAN).fit(&train),
        "c"
    ));
    assert!(common::is_invalid_named(
        &TaggerParams::bol().power_steps(0).fit(&train),
        "power_steps"
    ));
    assert!(common::is_invalid_named(
        &TaggerParams::sp().cutoff(0).fit(&train),
        "cutoff"
    ));
    // Chunking templates read a second column that a character corpus does not have.
    assert!(matches!(
        TaggerParams::sp()
            .templates(Templates::chunking())
            .fit(&train),
        Err(OblError::TooFewColumns { .. })
    ));
    let model = TaggerParams::sp().max_iter(1).fit(&train).unwrap();
    let unknown = Corpus::new(vec![
        Sentence::from_tokens(&["a", "b"], &["s", "q"]).unwrap(),
    ]);
    assert!(matches!(
        model.evaluate(&unknown),
        Err(OblError::UnknownTag {
            sentence: 0,
            token: 1,
            ..
        })
    ));
    // The lenient evaluation scores the unknown tag as an error instead.
    let lenient = model.evaluate_lenient(&unknown).unwrap();
    assert!(lenient.label_error_rate >= 0.5);
    assert!(matches!(
        model.evaluate(&Corpus::default()),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
    // Unseen characters are fine at prediction time.
    assert_eq!(
        model
            .predict(&Sentence::untagged(&["漢", "字"]))
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn prepared_features_fit_the_same_model_and_synthetic_corpora_are_seeded() {
    let corpus = online_bilinear::synthetic::segmentation(50, 200, 100, 3).unwrap();
    assert_eq!(
        corpus,
        online_bilinear::synthetic::segmentation(50, 200, 100, 3).unwrap()
    );
    assert!(online_bilinear::synthetic::segmentation(0, 200, 100, 3).is_err());
    let params = TaggerParams::bol().max_iter(2).seed(5);
    let prepared = params.check().unwrap().prepare(&corpus).unwrap();
    assert_eq!(prepared.n_tokens(), corpus.n_tokens());
    let a = params.fit(&corpus).unwrap();
    let b = params.fit(&prepared).unwrap();
    assert_eq!(a.alpha(), b.alpha());
    assert_eq!(prepared.head(10).len(), 10);
}

/// A parameter that the learner does not read is an error naming it, never silently
/// ignored; the same value for a learner that reads it is accepted.
#[test]
fn parameters_a_learner_does_not_read_are_rejected() {
    use online_bilinear::{BcdSolver, Reading};
    let cases: Vec<(&str, TaggerParams, TaggerParams)> = vec![
        (
            "averaging",
            TaggerParams::crf_l2().averaging(true),
            TaggerParams::sp().averaging(true),
        ),
        (
            "zero_order",
            TaggerParams::crf_l1().zero_order(true),
            TaggerParams::bcd().zero_order(true),
        ),
        ("c", TaggerParams::sp().c(0.5), TaggerParams::bol().c(0.5)),
        (
            "power_steps",
            TaggerParams::bcd().power_steps(2),
            TaggerParams::bol().power_steps(2),
        ),
        (
            "reading",
            TaggerParams::sp().reading(Reading::SpectralExact),
            TaggerParams::bol().reading(Reading::SpectralExact),
        ),
        (
            "bcd_solver",
            TaggerParams::bol().bcd_solver(BcdSolver::Algorithm1),
            TaggerParams::bcd().bcd_solver(BcdSolver::Algorithm1),
        ),
    ];
    for (name, rejected, accepted) in cases {
        match rejected.check() {
            Err(OblError::Core(bl_core::BlError::InvalidParameter { name: got, .. })) => {
                assert_eq!(got, name)
            }
            other => panic!("{name}: {other:?}"),
        }
        assert!(accepted.check().is_ok(), "{name}");
    }
}

/// Templates and cutoff have one place: a fit on a prepared corpus reads the prepared ones;
/// parameters that set the same ones are accepted, other ones are an error naming the
/// parameter (they used to be silently ignored).
#[test]
fn templates_and_cutoff_are_given_once() {
    let corpus = common::lexicon_corpus(40, 3);
    let prepared = TaggerParams::bol()
        .templates(Templates::segmentation())
        .cutoff(2)
        .check()
        .unwrap()
        .prepare(&corpus)
        .unwrap();
    assert_eq!(prepared.templates(), &Templates::segmentation());
    assert_eq!(prepared.cutoff(), 2);
    // Unset: the prepared ones.
    let sp = TaggerParams::sp().max_iter(2).fit(&prepared).unwrap();
    assert_eq!(sp.templates(), &Templates::segmentation());
    assert_eq!(sp.cutoff(), 2);
    // The same ones: accepted.
    assert!(
        TaggerParams::sp()
            .max_iter(2)
            .templates(Templates::segmentation())
            .cutoff(2)
            .fit(&prepared)
            .is_ok()
    );
    // Other ones: refused.
    for (name, params) in [
        (
            "templates",
            TaggerParams::sp().templates(Templates::word_tagging()),
        ),
        ("cutoff", TaggerParams::sp().cutoff(1)),
    ] {
        match params.fit(&prepared) {
            Err(OblError::Core(bl_core::BlError::InvalidParameter { name: got, .. })) => {
                assert_eq!(got, name)
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// Without `.templates(..)`, a corpus of words gets the word-tagging preset (with a bias),
/// a corpus of characters the segmentation templates, and a corpus of several columns is
/// asked for its templates: a word tagger never trains on character templates silently.
#[test]
fn default_templates_follow_the_data() {
    let words = online_bilinear::parse_word_tagged(
        "The/DT dog/NN barked/VBD ./.\nA/DT cat/NN jumped/VBD ./.\n",
        '/',
        "<words>",
    )
    .unwrap();
    let model = TaggerParams::bol().max_iter(3).fit(&words).unwrap();
    assert_eq!(model.templates(), &Templates::word_tagging());
    assert!(model.templates().as_slice().contains(&Template::Bias));
    let chars = online_bilinear::synthetic::segmentation(20, 30, 10, 1).unwrap();
    let model = TaggerParams::bol().max_iter(2).fit(&chars).unwrap();
    assert_eq!(model.templates(), &Templates::segmentation());
    let columns = online_bilinear::ConllFormat::new()
        .columns(&["word", "pos", "chunk"])
        .parse("He PRP B-NP\nreckons VBZ B-VP\n", "<input>")
        .unwrap();
    match TaggerParams::bol().fit(&columns) {
        Err(OblError::Core(bl_core::BlError::InvalidParameter { name, .. })) => {
            assert_eq!(name, "templates")
        }
        other => panic!("{other:?}"),
    }
    assert!(
        TaggerParams::bol()
            .templates(Templates::chunking())
            .max_iter(2)
            .fit(&columns)
            .is_ok()
    );
}

/// `train_seconds` on a prepared corpus is the training alone; on a corpus it adds the
/// feature extraction, so it is at least the report's elapsed epochs.
#[test]
fn train_seconds_is_what_it_says_on_each_path() {
    let corpus = common::lexicon_corpus(60, 3);
    let params = TaggerParams::sp().max_iter(3).check().unwrap();
    let from_corpus = params.fit(&corpus).unwrap();
    let prepared = params.prepare(&corpus).unwrap();
    let from_prepared = params.fit(&prepared).unwrap();
    for model in [&from_corpus, &from_prepared] {
        let epochs = model.report().trace.extra("train_seconds");
        let last_epoch = epochs.last().unwrap().1;
        assert!(model.train_seconds() >= last_epoch, "{model:?}");
    }
}
