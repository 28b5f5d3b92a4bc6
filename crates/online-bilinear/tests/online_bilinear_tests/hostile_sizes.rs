//! Sizes and counts from callers, saved models and corpora: every one is checked before it
//! decides an allocation, with a typed error. The score table of a sentence
//! (`n (L + 1) L` entries) is bounded by `viterbi::MAX_SCORE_TABLE`; a model by
//! `viterbi::MAX_TAGS` tags; duplicate names and tags are found in one hashed pass; error
//! messages quote a bounded part of what they refuse.

use crate::common;

use std::time::{Duration, Instant};

use std::sync::Arc;

use online_bilinear::learner::{Learner, LearnerShape, Training};
use online_bilinear::viterbi::{
    MAX_SCORE_TABLE, MAX_TAGS, ViterbiWorkspace, path_score, score_table_len, viterbi, viterbi_into,
};
use online_bilinear::{
    Bcd, BlockRankOne, Bol, ConllFormat, Corpus, Extension, Fit as _, FittedTagger, LabelColumn,
    LearnerSettings, OblError, Predict, Sentence, Sp, SpectralMode, SpectralRankOne, TaggerParams,
    synthetic,
};
use serde_json::{Value, json};

/// The longest message an error about a huge input may have.
const MESSAGE_LIMIT: usize = 600;

fn edited(json: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(json).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap()
}

/// `result` is an `InvalidParameter` error whose message contains every `needle` and is
/// bounded.
fn invalid<T: std::fmt::Debug>(case: &str, result: online_bilinear::Result<T>, needles: &[&str]) {
    match result {
        Err(OblError::Core(bl_core::BlError::InvalidParameter { .. })) => {}
        other => panic!("{case}: expected InvalidParameter, got {other:?}"),
    }
    let message = result_message(case, result);
    assert!(
        message.len() < MESSAGE_LIMIT,
        "{case}: {} bytes",
        message.len()
    );
    for needle in needles {
        assert!(
            message.contains(needle),
            "{case}: no {needle:?} in {message}"
        );
    }
}

fn result_message<T: std::fmt::Debug>(case: &str, result: online_bilinear::Result<T>) -> String {
    result.expect_err(case).to_string()
}

/// A bol tagger with `l` tags (`t0, t1, ...`) and zero weights, as JSON: a small fitted
/// model whose tag set and weights are edited to the sizes `l` gives.
fn zero_bol_with_tags(l: usize) -> String {
    let train = common::cyclic_corpus(10, 0);
    let model = TaggerParams::bol().max_iter(1).fit(&train).unwrap();
    let k = model.n_features();
    edited(&model.to_json().unwrap(), |v| {
        v["tags"] = json!((0..l).map(|i| format!("t{i}")).collect::<Vec<_>>());
        v["weights"]["Bilinear"]["alpha"] = json!(vec![0.0; k * l]);
        v["weights"]["Bilinear"]["beta"] = json!(vec![0.0; k * (l + 1)]);
    })
}

/// An untagged one-column sentence of `n` tokens.
fn sentence(n: usize) -> Sentence {
    let tokens: Vec<String> = (0..n)
        .map(|i| format!("{}", (b'a' + (i % 8) as u8) as char))
        .collect();
    Sentence::untagged(&tokens)
}

#[test]
fn the_tag_bound_is_the_largest_whose_one_token_table_fits() {
    assert_eq!(
        score_table_len(1, MAX_TAGS).unwrap(),
        (MAX_TAGS + 1) * MAX_TAGS
    );
    const { assert!((MAX_TAGS + 2) * (MAX_TAGS + 1) > MAX_SCORE_TABLE) };
    invalid(
        "one token, MAX_TAGS + 1",
        score_table_len(1, MAX_TAGS + 1),
        &["11585 tags"],
    );
    assert_eq!(score_table_len(0, 5).unwrap(), 0);
    invalid(
        "n_tags + 1 overflows",
        score_table_len(0, usize::MAX),
        &["more than 2^64"],
    );
    invalid(
        "overflow",
        score_table_len(2, usize::MAX),
        &["more than 2^64"],
    );
    invalid(
        "2000 x 2000",
        score_table_len(2000, 2000),
        &["2000 tokens x 2000 tags"],
    );
}

/// A saved bol tagger with 40,000 tags, one feature per position and zero weights loaded,
/// then `predict` on a one-token sentence aborted on a 12.8 GB table: it is refused at
/// load, naming `tags` (no sentence could be tagged within the bound).
#[test]
fn a_saved_tagger_with_more_tags_than_the_bound_is_refused_at_load() {
    let started = Instant::now();
    let err = FittedTagger::from_json(&zero_bol_with_tags(40_000)).unwrap_err();
    assert!(matches!(err, OblError::Serde(_)), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("`tags`") && message.contains("40000"),
        "{message}"
    );
    assert!(message.len() < MESSAGE_LIMIT);
    assert!(started.elapsed() < Duration::from_secs(20));
    // At the bound, a model loads (checked on a lighter model of 2,000 tags below).
}

/// A model within the tag bound predicts short sentences; a sentence whose table is above
/// the bound (200 tokens x 1,000 tags = 2.0e8 entries, 1.6 GB) is a typed error naming
/// its length, the tag count and (in a corpus) its index, before the table is built.
#[test]
fn predict_refuses_a_sentence_whose_table_is_above_the_bound() {
    let model = FittedTagger::from_json(&zero_bol_with_tags(1000)).unwrap();
    let tags: Vec<String> = model.predict(&sentence(3)).unwrap();
    assert_eq!(tags.len(), 3);
    invalid(
        "predict",
        Predict::<_, Vec<String>>::predict(&model, &sentence(200)),
        &["200 tokens x 1000 tags", "134217728"],
    );
    let corpus = Corpus::new(vec![sentence(2), sentence(200)]);
    invalid(
        "predict a corpus",
        Predict::<_, Vec<Vec<String>>>::predict(&model, &corpus),
        &["sentence 1", "200 tokens x 1000 tags"],
    );
}

/// A learner that must never be started: the table check comes first.
#[derive(Debug)]
struct Unreachable;

impl Extension for Unreachable {
    fn name(&self) -> &str {
        "unreachable"
    }
}

impl Learner for Unreachable {
    fn start(&self, _: LearnerShape, _: &LearnerSettings) -> online_bilinear::Result<Training> {
        Err(OblError::Learner {
            check: "unreachable",
            message: "built before the score table check".into(),
        })
    }
}

/// Training on one 2,000-token sentence with 2,000 distinct tags asked for a 64 GB table
/// and aborted (bol, sp): every learner, the CRF and a custom one refuse it with a typed
/// error before building anything. So does a corpus of more than `MAX_TAGS` tags.
#[test]
fn training_refuses_a_sentence_whose_table_is_above_the_bound() {
    let n = 2000;
    let tokens: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
    let tags: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let corpus = Corpus::new(vec![Sentence::from_tokens(&tokens, &tags).unwrap()]);
    let learners = [
        ("bol", TaggerParams::bol()),
        ("bcd", TaggerParams::bcd()),
        ("sp", TaggerParams::sp()),
        ("crf-l2", TaggerParams::crf_l2()),
        ("custom", TaggerParams::new(Arc::new(Unreachable))),
    ];
    for (name, params) in learners {
        invalid(
            name,
            params.max_iter(1).fit(&corpus),
            &["sentence 0", "2000 tokens x 2000 tags"],
        );
    }
    let many: Vec<Sentence> = (0..MAX_TAGS + 1)
        .map(|i| Sentence::from_tokens(&["x"], &[format!("t{i}")]).unwrap())
        .collect();
    invalid(
        "more tags than the bound",
        TaggerParams::sp().max_iter(1).fit(&Corpus::new(many)),
        &["11585 tags"],
    );
}

/// `viterbi(&[], 1, usize::MAX)` overflowed `n (n_tags + 1) n_tags`; `viterbi_into`, which
/// did not check its sizes, indexed out of bounds on a short table or a short `out`.
#[test]
fn viterbi_and_path_score_check_their_sizes_without_overflow() {
    invalid(
        "viterbi n_tags = MAX",
        viterbi(&[], 1, usize::MAX),
        &["n_tags"],
    );
    invalid("viterbi n = MAX", viterbi(&[], usize::MAX, 2), &["n_tags"]);
    invalid("path_score", path_score(&[], &[0], usize::MAX), &["n_tags"]);
    let mut ws = ViterbiWorkspace::default();
    let mut out = vec![0; 2];
    let table = vec![0.0; 2 * 3 * 2];
    assert!(viterbi_into(&table, 2, 2, &mut ws, &mut out).is_ok());
    let cases: [(&str, &[f64], usize, usize, usize); 5] = [
        ("short table", &table[..11], 2, 2, 2),
        ("short out", &table, 2, 2, 1),
        ("no tag", &[], 0, 0, 0),
        ("overflow", &[], 1, usize::MAX, 1),
        ("n overflow", &[], usize::MAX, 2, 0),
    ];
    for (case, scores, n, l, out_len) in cases {
        let mut out = vec![0; out_len];
        let result = viterbi_into(scores, n, l, &mut ws, &mut out);
        assert!(
            matches!(result, Err(OblError::Core(_))),
            "{case}: {result:?}"
        );
    }
}

/// Caller-given sizes of the generators and learner states: `segmentation(1, 1 << 40, ..)`
/// allocated a lexicon of 2^40 words (abort), `cyclic(n, usize::MAX)` overflowed, and the
/// learner states multiplied their sizes unchecked.
#[test]
fn caller_given_sizes_are_typed_errors() {
    let params = LearnerSettings::default();
    let huge = 1_usize << 40;
    let cases: Vec<(&str, online_bilinear::Result<()>)> = vec![
        (
            "segmentation lexicon",
            synthetic::segmentation(1, huge, 10, 0).map(drop),
        ),
        (
            "segmentation sentences",
            synthetic::segmentation(huge, 10, 10, 0).map(drop),
        ),
        (
            "token_function",
            synthetic::token_function(usize::MAX, 3, 0).map(drop),
        ),
        ("lexicon", synthetic::lexicon(huge, 0).map(drop)),
        ("cyclic", synthetic::cyclic(usize::MAX, 0).map(drop)),
        (
            "BlockRankOne blocks",
            BlockRankOne::new(huge, 4, 5, false).map(drop),
        ),
        (
            "BlockRankOne block size",
            BlockRankOne::new(1, 1 << 20, 1 << 20, false).map(drop),
        ),
        (
            "SpectralRankOne",
            SpectralRankOne::new(huge, 4, 5, SpectralMode::Exact, false).map(drop),
        ),
        ("Bol tags", Bol::new(1, MAX_TAGS + 1, &params).map(drop)),
        ("Bol features", Bol::new(huge, 4, &params).map(drop)),
        ("Bcd", Bcd::new(usize::MAX, 4, &params).map(drop)),
        ("Bcd tags", Bcd::new(1, usize::MAX, &params).map(drop)),
        ("Sp", Sp::new(huge, 4, &params, None).map(drop)),
        ("Sp tags", Sp::new(1, 1 << 33, &params, None).map(drop)),
    ];
    for (case, result) in cases {
        invalid(case, result, &[]);
    }
    // Any offset is fine for the cyclic corpus (only its residue matters).
    assert_eq!(
        synthetic::cyclic(3, usize::MAX).unwrap(),
        synthetic::cyclic(3, usize::MAX % 6).unwrap()
    );
}

/// Loading a tagger with 200,000 tags compared every pair (minutes): the duplicate check
/// is one hashed pass, and the model is then refused for its tag count; a repeated tag is
/// named with its index, the message bounded.
#[test]
fn a_saved_tagger_with_200000_tags_is_checked_in_linear_time() {
    let train = common::cyclic_corpus(10, 0);
    let json = TaggerParams::sp()
        .max_iter(1)
        .fit(&train)
        .unwrap()
        .to_json()
        .unwrap();
    let mut tags: Vec<String> = (0..200_000).map(|i| format!("tag-{i}")).collect();
    let distinct = edited(&json, |v| v["tags"] = json!(tags));
    let message = at_once("200,000 distinct tags", || {
        FittedTagger::from_json(&distinct)
    })
    .unwrap_err()
    .to_string();
    assert!(message.contains("200000"), "{message}");
    tags.push("tag-7".into());
    let repeated = edited(&json, |v| v["tags"] = json!(tags));
    let message = at_once("200,001 tags", || FittedTagger::from_json(&repeated))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("\"tag-7\"") && message.contains("index 200000"),
        "{message}"
    );
    assert!(message.len() < MESSAGE_LIMIT);
}

/// Runs `f` and checks that it takes less than two seconds (the fastest of up to three
/// runs counts, so that a busy machine does not fail the bound): a pairwise check of
/// 200,000 names, 2e10 comparisons, takes tens of seconds. Returns the last result.
fn at_once<T>(what: &str, mut f: impl FnMut() -> T) -> T {
    let limit = Duration::from_secs(2);
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..3 {
        let started = Instant::now();
        out = Some(f());
        best = best.min(started.elapsed());
        if best < limit {
            break;
        }
    }
    assert!(best < limit, "{what}: {best:?}");
    out.expect("at least one run")
}

/// A gold tag outside a model of 2,000 tags: the message quotes a few of the tags and
/// their number, not the whole tag set.
#[test]
fn an_unknown_tag_message_is_bounded() {
    let model = FittedTagger::from_json(&zero_bol_with_tags(2000)).unwrap();
    let long_tag = "Z".repeat(1 << 16);
    let gold = Sentence::from_tokens(&["a", "b"], &["t0", long_tag.as_str()]).unwrap();
    let err = model.evaluate(&Corpus::new(vec![gold])).unwrap_err();
    assert!(matches!(err, OblError::UnknownTag { .. }), "{err}");
    let message = err.to_string();
    assert!(message.len() < MESSAGE_LIMIT, "{} bytes", message.len());
    assert!(message.contains("2000 in all"), "{message}");
}

/// A tagger saved in the old layout (per-epoch `history`, no `report`) loaded with NaN in
/// its rebuilt report, which `to_json` wrote as `null` and the next `from_json` refused:
/// load -> save -> load now works, also for an empty history.
#[test]
fn a_model_saved_with_history_survives_load_save_load() {
    let train = common::cyclic_corpus(20, 0);
    let model = TaggerParams::sp().max_iter(2).fit(&train).unwrap();
    for history in [
        json!([
            {"epoch": 1, "mistakes": 4, "token_errors": 10, "tokens": 80, "seconds": 0.5},
            {"epoch": 2, "mistakes": 1, "token_errors": 2, "tokens": 80, "seconds": 0.9}
        ]),
        json!([]),
    ] {
        let legacy = edited(&model.to_json().unwrap(), |v| {
            let map = v.as_object_mut().unwrap();
            map.remove("report");
            map.insert("history".into(), history.clone());
        });
        let loaded = FittedTagger::from_json(&legacy).unwrap();
        let saved = loaded.to_json().unwrap();
        let report = serde_json::from_str::<Value>(&saved).unwrap()["report"].to_string();
        assert!(!report.contains("null"), "{history}: {report}");
        let again = FittedTagger::from_json(&saved).unwrap();
        use online_bilinear::Fitted as _;
        assert_eq!(again.report(), loaded.report(), "{history}");
        common::assert_same_tags(&again, &model, &train);
    }
}

/// Option and header errors quote a bounded part of the names: a label name of 1 MiB, a
/// header of 200,000 names with one repeated at the end (found in one hashed pass: the
/// pairwise check took minutes), a header with an empty name.
#[test]
fn header_and_label_errors_are_bounded_and_linear() {
    let long = "n".repeat(1 << 20);
    let mut header: Vec<String> = (0..200_000).map(|i| format!("c{i}")).collect();
    header.push("c7".into());
    let header_text = format!("{}\na b\n", header.join(" "));
    let cases: Vec<(&str, online_bilinear::Result<Corpus>, &str)> = vec![
        (
            "a named label without names",
            ConllFormat::new()
                .label(LabelColumn::Named(long.clone()))
                .parse("a b\n", "<input>"),
            "label",
        ),
        (
            "a named label not among the names",
            at_once("200,000 names", || {
                ConllFormat::new()
                    .columns(&header[..200_000])
                    .label(LabelColumn::Named(long.clone()))
                    .parse("a b\n", "<input>")
            }),
            "200000 columns",
        ),
        (
            "a header name repeated at index 200000",
            at_once("a header of 200,001 names", || {
                ConllFormat::new()
                    .header(true)
                    .parse(&header_text, "<input>")
            }),
            "index 200000",
        ),
        (
            "reader names repeated",
            at_once("200,001 reader names", || {
                ConllFormat::new()
                    .columns(&header)
                    .parse("a b\n", "<input>")
            }),
            "\"c7\"",
        ),
        (
            "an empty column name",
            Corpus::new(Vec::new()).with_column_names(&["a", ""]),
            "empty name at index 1",
        ),
    ];
    for (case, result, needle) in cases {
        let message = result.expect_err(case).to_string();
        assert!(
            message.len() < MESSAGE_LIMIT,
            "{case}: {} bytes",
            message.len()
        );
        assert!(message.contains(needle), "{case}: {message}");
    }
}

/// The public scoring functions check the table size (`score_table_len`) and every slice
/// they index against the sentence's largest feature id before they allocate or read:
/// weights of another shape, a sentence encoded with another dictionary, a tag count
/// whose table cannot exist or whose `(L + 1) L` overflows used to panic on a slice index,
/// overflow, or abort on the table allocation.
#[test]
fn scoring_functions_check_sizes_and_slices() {
    use bl_core::BlError;
    use online_bilinear::scoring::{bilinear_scores, linear_scores, sparse_scores};
    use online_bilinear::{FeatureDict, Templates};

    let corpus = synthetic::lexicon(4, 1).unwrap();
    let dict = FeatureDict::build(&corpus, &Templates::segmentation(), 1).unwrap();
    let enc = dict.encode(&corpus.sentences()[0]).unwrap();
    let empty = dict.encode(&Sentence::untagged(&[] as &[&str])).unwrap();
    let (k, l, p) = (dict.len(), 3, 4);
    let (alpha, beta, w, z) = (
        vec![0.5; k * l],
        vec![0.25; k * p],
        vec![1.0; k * l * p],
        vec![0.1; k * l],
    );
    // The sentence reads features 0..read (its largest id + 1): one value short of that.
    let read = (0..enc.len())
        .flat_map(|i| enc.at(i).iter().copied())
        .max()
        .unwrap() as usize
        + 1;
    let short = vec![0.0; read * l - 1];
    // A row of codes below (L + 1) L, one with a code past it, one with a missing weight.
    let (good_codes, good_values) = (vec![0_u32, 5, 9], vec![1.0, 2.0, 3.0]);
    let (bad_codes, short_values) = (vec![0_u32, (p * l) as u32], vec![1.0]);

    #[derive(Debug)]
    enum Want {
        Invalid,
        Shape,
    }
    let mut out = Vec::new();
    let big_l = MAX_TAGS + 1;
    let cases: Vec<(&str, online_bilinear::Result<()>, Want)> = vec![
        (
            "bilinear alpha short",
            bilinear_scores(&enc, l, &short, &beta, 1.0, None, &mut out),
            Want::Shape,
        ),
        (
            "bilinear beta short",
            bilinear_scores(&enc, l, &alpha, &beta[..read * p - 1], 1.0, None, &mut out),
            Want::Shape,
        ),
        (
            "bilinear zero short",
            bilinear_scores(&enc, l, &alpha, &beta, 1.0, Some(&short), &mut out),
            Want::Shape,
        ),
        (
            "bilinear L above MAX_TAGS",
            bilinear_scores(&enc, big_l, &alpha, &beta, 1.0, None, &mut out),
            Want::Invalid,
        ),
        (
            "bilinear L = usize::MAX, empty sentence",
            bilinear_scores(&empty, usize::MAX, &[], &[], 1.0, None, &mut out),
            Want::Invalid,
        ),
        (
            "linear w short",
            linear_scores(&enc, l, &w[..read * l * p - 1], None, &mut out),
            Want::Shape,
        ),
        (
            "linear zero short",
            linear_scores(&enc, l, &w, Some(&short), &mut out),
            Want::Shape,
        ),
        (
            "linear L above MAX_TAGS",
            linear_scores(&enc, big_l, &w, None, &mut out),
            Want::Invalid,
        ),
        (
            "linear L = usize::MAX",
            linear_scores(&empty, usize::MAX, &w, None, &mut out),
            Want::Invalid,
        ),
        (
            "sparse code past (L + 1) L",
            sparse_scores(
                &enc,
                l,
                |_| (&bad_codes[..], &good_values[..2]),
                None,
                &mut out,
            ),
            Want::Invalid,
        ),
        (
            "sparse weights shorter than codes",
            sparse_scores(
                &enc,
                l,
                |_| (&good_codes[..], &short_values[..]),
                None,
                &mut out,
            ),
            Want::Shape,
        ),
        (
            "sparse zero short",
            sparse_scores(
                &enc,
                l,
                |_| (&good_codes[..], &good_values[..]),
                Some(&short),
                &mut out,
            ),
            Want::Shape,
        ),
        (
            "sparse L above MAX_TAGS",
            sparse_scores(&enc, big_l, |_| (&[][..], &[][..]), None, &mut out),
            Want::Invalid,
        ),
        (
            "sparse L = usize::MAX",
            sparse_scores(&empty, usize::MAX, |_| (&[][..], &[][..]), None, &mut out),
            Want::Invalid,
        ),
    ];
    for (case, result, want) in cases {
        match (&result, &want) {
            (Err(OblError::Core(BlError::InvalidParameter { .. })), Want::Invalid)
            | (Err(OblError::Core(BlError::ShapeMismatch { .. })), Want::Shape) => {}
            _ => panic!("{case}: expected {want:?}, got {result:?}"),
        }
        let message = result.unwrap_err().to_string();
        assert!(message.len() < MESSAGE_LIMIT, "{case}: {message}");
    }
    // Nothing was allocated for a refused table.
    assert!(out.capacity() < 1 << 20, "{}", out.capacity());

    // Within the limits the tables are written as before.
    let table = enc.len() * p * l;
    bilinear_scores(&enc, l, &alpha, &beta, 1.0, Some(&z), &mut out).unwrap();
    assert_eq!(out.len(), table);
    linear_scores(&enc, l, &w, Some(&z), &mut out).unwrap();
    assert_eq!(out.len(), table);
    sparse_scores(
        &enc,
        l,
        |_| (&good_codes[..], &good_values[..]),
        Some(&z),
        &mut out,
    )
    .unwrap();
    assert_eq!(out.len(), table);
    for l in [0, 1] {
        sparse_scores(&empty, l, |_| (&[][..], &[][..]), None, &mut out).unwrap();
        assert!(out.is_empty());
    }
}

/// `BlockRankOne::scores` checks the table size and that every feature id of the
/// sentence has a block (a sentence encoded with a larger dictionary panicked on the
/// block table).
#[test]
fn block_rank_one_scores_check_the_sentence() {
    use online_bilinear::{FeatureDict, Templates};

    let corpus = synthetic::lexicon(4, 1).unwrap();
    let dict = FeatureDict::build(&corpus, &Templates::segmentation(), 1).unwrap();
    let enc = dict.encode(&corpus.sentences()[0]).unwrap();
    let mut out = Vec::new();
    let fewer_blocks = BlockRankOne::new(1, 3, 4, false).unwrap();
    invalid(
        "feature id past n_blocks",
        fewer_blocks.scores(&enc, &mut out),
        &["n_blocks"],
    );
    let wide = BlockRankOne::new(dict.len(), MAX_TAGS + 1, 1, false).unwrap();
    invalid(
        "table past the bound",
        wide.scores(&enc, &mut out),
        &["score table"],
    );
    let state = BlockRankOne::new(dict.len(), 3, 4, false).unwrap();
    state.scores(&enc, &mut out).unwrap();
    assert_eq!(out.len(), enc.len() * 4 * 3);
}
