//! online-bilinear's Rust CRF against CRFsuite on identical features, and the probe's own
//! CRFsuite helpers (its settings reach CRFsuite; its tagging maps labels back to tag
//! indices). Deterministic: fixed seeds, and CRFsuite's L-BFGS runs on one thread.

use crfsuite_probe::{CrfSettings, evaluate_crf, tag, train_crf, train_crf_prepared};
use online_bilinear::{
    Corpus, CrfPenalty, Fit as _, ParamGuard as _, PreparedCorpus, Sentence, TaggerParams,
    words_to_bmes,
};

/// An ambiguous segmentation task: words over a 4-letter alphabet that overlap (`a`, `ab`,
/// `abc`, `bc`, ...), drawn by a seeded generator, so no tagger is perfect.
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

/// A task the current character decides: `ab` is always `B E`, `c` always `S`, in a
/// seeded order.
fn learnable(n: usize, seed: u64) -> Corpus {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            let words: Vec<&str> = (0..5)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x.is_multiple_of(2) { "ab" } else { "c" }
                })
                .collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags).unwrap()
        })
        .collect()
}

/// `train` prepared with the default CRF parameters.
fn prepare(train: &Corpus) -> PreparedCorpus {
    TaggerParams::crf_l2()
        .check()
        .unwrap()
        .prepare(train)
        .unwrap()
}

/// The settings a CRFsuite run gets from the Rust CRF's parameters: its `c`, budget and
/// tolerance (as CRFsuite's `delta`).
fn settings_of(params: &TaggerParams, penalty: CrfPenalty) -> CrfSettings {
    let valid = params.check().unwrap();
    CrfSettings {
        penalty,
        c: valid.c(),
        max_iterations: valid.iteration().max_iter,
        delta: valid.iteration().tol,
        verbose: false,
    }
}

/// The Rust CRF against CRFsuite on the same data: the same model and objective, so
/// nearly the same test F1 on a task neither tags perfectly.
#[test]
fn the_rust_crf_and_crfsuite_reach_the_same_f1() {
    let train = ambiguous(300, 1);
    let test = ambiguous(100, 2);
    for (params, penalty) in [
        (TaggerParams::crf_l2().c(1.0), CrfPenalty::L2),
        (TaggerParams::crf_l1().c(1.0), CrfPenalty::L1),
    ] {
        let ours = params.fit(&train).unwrap().evaluate(&test).unwrap();
        // (`evaluate` above checked that every test tag is in the model's tag set.)
        let prepared = params.check().unwrap().prepare(&train).unwrap();
        let model = train_crf_prepared(&prepared, &settings_of(&params, penalty)).unwrap();
        let theirs = evaluate_crf(&model, &prepared, &test).unwrap();
        eprintln!(
            "{penalty:?}: F1 ours {} CRFsuite {}; label error ours {} CRFsuite {}",
            ours.f1(),
            theirs.f1(),
            ours.label_error_rate,
            theirs.label_error_rate
        );
        assert!(theirs.f1() < 0.99 && theirs.f1() > 0.5, "{}", theirs.f1());
        assert!(
            (ours.f1() - theirs.f1()).abs() <= 0.01,
            "{penalty:?}: ours {} vs CRFsuite {}",
            ours.f1(),
            theirs.f1()
        );
    }
}

/// `delta` reaches CRFsuite: with a loose tolerance it stops earlier and trains another
/// model than with the default (a run that left `delta` at CRFsuite's default would give
/// one model for both); the same settings give the same model bytes.
#[test]
fn train_crf_gives_crfsuite_its_delta() {
    let train = ambiguous(200, 3);
    let prepared = prepare(&train);
    let fit = |delta: f64| {
        let settings = CrfSettings {
            max_iterations: 500,
            delta,
            ..CrfSettings::new(CrfPenalty::L2, 1.0)
        };
        train_crf_prepared(&prepared, &settings).unwrap()
    };
    let default = fit(1e-5);
    assert_eq!(default, fit(1e-5), "CRFsuite runs are deterministic");
    assert_ne!(default, fit(0.2));
    // The penalty reaches it too: `c1` instead of `c2` trains another model.
    let l1 = CrfSettings {
        max_iterations: 500,
        ..CrfSettings::new(CrfPenalty::L1, 1.0)
    };
    assert_ne!(default, train_crf_prepared(&prepared, &l1).unwrap());
}

/// On a task the current character decides, CRFsuite's tags of the training sentences
/// are their gold tags; an empty sentence is skipped in training and gets an empty path;
/// a model whose labels reach beyond `n_tags` is refused; lengths of sentences and gold
/// tags must agree.
#[test]
fn tag_maps_labels_back_to_tag_indices() {
    let mut sentences = learnable(40, 5).sentences().to_vec();
    sentences.insert(3, Sentence::from_tokens::<&str, &str>(&[], &[]).unwrap());
    let train = Corpus::new(sentences);
    let prepared = prepare(&train);
    let (encoded, gold) = (prepared.encoded(), prepared.gold());
    let n_tags = prepared.tags().len();
    assert_eq!(n_tags, 3, "{:?}", prepared.tags());
    let model = train_crf(encoded, gold, &CrfSettings::new(CrfPenalty::L2, 0.1)).unwrap();
    assert!(encoded[3].is_empty());
    let paths = tag(&model, encoded, n_tags).unwrap();
    assert!(paths[3].is_empty());
    assert_eq!(paths, gold);
    let e = evaluate_crf(&model, &prepared, &learnable(10, 6)).unwrap();
    assert_eq!(e.label_error_rate, 0.0);

    // Labels 0..3 are not all below 2.
    let err = tag(&model, encoded, n_tags - 1).unwrap_err();
    assert!(err.to_string().contains("unexpected label"), "{err}");
    // Not a model.
    assert!(tag(b"not a model", encoded, n_tags).is_err());
    // One gold tag sequence short.
    assert!(
        train_crf(
            encoded,
            &gold[..gold.len() - 1],
            &CrfSettings::new(CrfPenalty::L2, 0.1)
        )
        .is_err()
    );
}

/// [`crfsuite_probe::items`]: one attribute per active feature id, named by the id, of
/// value 1.
#[test]
fn items_name_attributes_by_feature_id() {
    let train = learnable(5, 7);
    let prepared = prepare(&train);
    let enc = &prepared.encoded()[0];
    let items = crfsuite_probe::items(enc);
    assert_eq!(items.len(), enc.len());
    for (i, item) in items.iter().enumerate() {
        let names: Vec<String> = item.iter().map(|a| a.name.clone()).collect();
        let ids: Vec<String> = enc.at(i).iter().map(u32::to_string).collect();
        assert_eq!(names, ids);
        assert!(item.iter().all(|a| a.value == 1.0));
    }
}
