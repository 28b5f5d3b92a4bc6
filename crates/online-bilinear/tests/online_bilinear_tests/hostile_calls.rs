//! Public constructors and entry points called directly, outside a fit, with values the
//! parameters' check would refuse: each refuses them with a typed error.

use crate::common::is_invalid_named;

use online_bilinear::learner::{Learner, LearnerShape, OnlineLearner};
use online_bilinear::rank_one::DENSE_BLOCK_IDS;
use online_bilinear::settings::MAX_POWER_STEPS;
use online_bilinear::viterbi::{ViterbiWorkspace, viterbi_into};
use online_bilinear::{
    Bcd, BlockRankOne, BlockUpdate, Bol, BuiltIn, FeatureDict, Fit as _, LearnerSettings, OblError,
    Reading, Sp, TaggerParams, default_templates, synthetic,
};

/// Settings out of range, each with the name of the setting refused.
fn bad_settings() -> Vec<(&'static str, LearnerSettings)> {
    let with = |edit: fn(&mut LearnerSettings)| {
        let mut s = LearnerSettings::default();
        edit(&mut s);
        s
    };
    vec![
        ("c", with(|s| s.c = f64::NAN)),
        ("c", with(|s| s.c = f64::INFINITY)),
        ("c", with(|s| s.c = -1.0)),
        ("c", with(|s| s.c = 0.0)),
        ("power_steps", with(|s| s.power_steps = 0)),
        ("power_steps", with(|s| s.power_steps = usize::MAX)),
        ("power_steps", with(|s| s.power_steps = MAX_POWER_STEPS + 1)),
        ("transitions_only", with(|s| s.transitions_only = true)),
    ]
}

// Before the fix every constructor returned `Ok` for these settings (a NaN step, or
// `usize::MAX` power steps per mistake).
#[test]
fn learner_constructors_check_their_settings() {
    for (name, settings) in bad_settings() {
        let case = format!("{name} in {settings:?}");
        assert!(
            is_invalid_named(&Bol::new(3, 2, &settings), name),
            "Bol::new, {case}"
        );
        assert!(
            is_invalid_named(&Bcd::new(3, 2, &settings), name),
            "Bcd::new, {case}"
        );
        assert!(
            is_invalid_named(&Sp::new(3, 2, &settings, Some(0)), name),
            "Sp::new, {case}"
        );
    }
    let good = LearnerSettings {
        power_steps: MAX_POWER_STEPS,
        ..LearnerSettings::default()
    };
    assert!(Bol::new(3, 2, &good).is_ok());
}

// Before the fix `start` returned `Ok` for every one of these (the CRF learners without
// even building a state).
#[test]
fn built_in_start_checks_its_settings() {
    let shape = LearnerShape {
        n_features: 3,
        n_tags: 2,
        bias_feature: Some(0),
    };
    for (name, settings) in bad_settings() {
        for learner in BuiltIn::ALL {
            assert!(
                is_invalid_named(&learner.start(shape, &settings), name),
                "{} with {name} in {settings:?}",
                learner.name()
            );
        }
    }
}

#[test]
fn settings_check_bounds_power_steps() {
    let settings = |power_steps| LearnerSettings {
        power_steps,
        ..LearnerSettings::default()
    };
    assert!(settings(1).check().is_ok());
    assert!(settings(MAX_POWER_STEPS).check().is_ok());
    assert!(is_invalid_named(
        &settings(MAX_POWER_STEPS + 1).check(),
        "power_steps"
    ));
    let corpus = synthetic::token_function(10, 3, 1).unwrap();
    let refused = TaggerParams::bol()
        .power_steps(usize::MAX)
        .max_iter(1)
        .fit(&corpus);
    assert!(is_invalid_named(&refused, "power_steps"), "{refused:?}");
}

// Before the fix `add` grew its position table to the id given: `u32::MAX - 1` asked for a
// table of 2^32 entries (16 GiB, written in full).
#[test]
fn block_update_with_a_huge_block_id_keeps_its_table_small() {
    let huge = u32::MAX - 1;
    let mut d = BlockUpdate::new(2, 3);
    d.add(huge, 0, 0, 1.0);
    d.add(3, 1, 2, 4.0);
    d.add(huge, 0, 1, 2.0);
    d.add(huge, 0, 0, 0.5);
    d.add(DENSE_BLOCK_IDS as u32, 1, 1, 1.0);
    assert_eq!(d.blocks(), &[huge, 3, DENSE_BLOCK_IDS as u32]);
    assert_eq!(d.entries(0), &[(0, 1.5), (1, 2.0)]);
    assert_eq!(d.entries(1), &[(5, 4.0)]);
    // A state of 4 blocks refuses the out-of-range ids; after `clear`, the same ids are new.
    let mut state = BlockRankOne::new(4, 2, 3, false).unwrap();
    assert!(is_invalid_named(&state.update(&d, 1), "update"));
    d.clear();
    assert!(d.is_empty());
    d.add(huge, 1, 0, 1.0);
    d.add(3, 0, 0, 1.0);
    assert_eq!(d.blocks(), &[huge, 3]);
    assert_eq!(d.entries(0), &[(3, 1.0)]);
    d.clear();
    d.add(3, 0, 0, 1.0);
    state.update(&d, 1).unwrap();
    assert!(state.theta().get(3, 0, 0) == 1.0);
}

// Before the fix these returned `()` and panicked: `copy_block` past the blocks (index out
// of bounds) or into a short buffer (range end out of range), `dense_values` likewise.
#[test]
fn copy_block_and_dense_values_check_their_arguments() {
    let mut state = BlockRankOne::new(4, 2, 3, false).unwrap();
    let mut d = BlockUpdate::new(2, 3);
    d.add(1, 1, 2, 2.0);
    state.update(&d, 1).unwrap();
    let theta = state.theta();
    let mut out = vec![7.0; 6];
    let mut short = vec![7.0; 5];
    assert!(is_invalid_named(&theta.copy_block(4, &mut out), "block"));
    assert!(matches!(
        theta.copy_block(1, &mut short),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(is_invalid_named(&d.dense_values(1, &mut out), "i"));
    assert!(matches!(
        d.dense_values(0, &mut short),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(
        out.iter().chain(&short).all(|&v| v == 7.0),
        "a buffer refused was written"
    );
    theta.copy_block(1, &mut out).unwrap();
    assert_eq!(out, [0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
    d.dense_values(0, &mut out).unwrap();
    assert_eq!(out, [0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
}

/// `n_blocks` blocks of 2 x 3 after one update adding `entries` (block, row, col, value).
fn updated_blocks(n_blocks: usize, entries: &[(u32, usize, usize, f64)]) -> BlockRankOne {
    let mut state = BlockRankOne::new(n_blocks, 2, 3, false).unwrap();
    let mut d = BlockUpdate::new(2, 3);
    for &(block, row, col, value) in entries {
        d.add(block, row, col, value);
    }
    state.update(&d, 1).unwrap();
    state
}

// Before the fix `get(0, 0, 3)` on blocks of 2 x 3 returned entry (1, 0), here 5.0.
#[test]
#[should_panic(expected = "out of range")]
fn block_diagonal_get_panics_out_of_the_block() {
    let state = updated_blocks(1, &[(0, 1, 0, 5.0)]);
    let _ = state.theta().get(0, 0, 3);
}

// Before the fix `alpha_at(0, 2)` on blocks of 2 rows read block 1's first entry.
#[test]
#[should_panic(expected = "out of range")]
fn alpha_at_panics_out_of_the_block() {
    let state = updated_blocks(2, &[(0, 1, 0, 5.0), (1, 0, 0, 3.0)]);
    let _ = state.alpha_at(0, 2);
}

// Before the fix `beta_at(0, 3)` on blocks of 3 columns read block 1's first entry.
#[test]
#[should_panic(expected = "out of range")]
fn beta_at_panics_out_of_the_block() {
    let state = updated_blocks(2, &[(0, 1, 0, 5.0), (1, 0, 0, 3.0)]);
    let _ = state.beta_at(0, 3);
}

// Before the fix a short `gold` or `predicted` panicked (index out of bounds in the
// difference of the paths), and so did a feature id past the learner's features or (bcd,
// sp) a tag past its tags.
#[test]
fn built_in_online_updates_check_their_arguments() {
    let corpus = synthetic::token_function(10, 3, 1).unwrap();
    let dict = FeatureDict::build(&corpus, &default_templates(&corpus).unwrap(), 1).unwrap();
    let sentence = &corpus.sentences()[0];
    let enc = dict.encode(sentence).unwrap();
    let n = enc.len();
    assert!(n >= 2 && dict.len() >= 2);
    let (l, k) = (3, dict.len());
    let settings = LearnerSettings::default();
    let learners = |n_features| -> Vec<(&str, Box<dyn OnlineLearner>)> {
        vec![
            ("bol", Box::new(Bol::new(n_features, l, &settings).unwrap())),
            ("bcd", Box::new(Bcd::new(n_features, l, &settings).unwrap())),
            (
                "sp",
                Box::new(Sp::new(n_features, l, &settings, None).unwrap()),
            ),
        ]
    };
    let gold = vec![0; n];
    let pred: Vec<usize> = (0..n).map(|i| 1 + i % 2).collect();
    let mut bad_tag = gold.clone();
    bad_tag[n - 1] = l;
    let shape = |r: &online_bilinear::Result<()>| {
        matches!(
            r,
            Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
        )
    };
    for (name, mut learner) in learners(k) {
        let r = learner.update(&enc, &gold[..n - 1], &pred);
        assert!(shape(&r), "{name}, gold short: {r:?}");
        let long: Vec<usize> = pred.iter().copied().chain([0]).collect();
        let r = learner.update(&enc, &gold, &long);
        assert!(shape(&r), "{name}, predicted long: {r:?}");
        let r = learner.update(&enc, &bad_tag, &pred);
        assert!(is_invalid_named(&r, "update: tag"), "{name}, tag L: {r:?}");
        let r = learner.update(&enc, &gold, &bad_tag);
        assert!(
            is_invalid_named(&r, "update: tag"),
            "{name}, predicted tag L: {r:?}"
        );
        learner.update(&enc, &gold, &pred).unwrap();
    }
    for (name, mut learner) in learners(1) {
        let r = learner.update(&enc, &gold, &pred);
        assert!(
            is_invalid_named(&r, "update: sentence feature id"),
            "{name}: {r:?}"
        );
    }
}

// Before the fix `scores` returned nothing and neither it nor `decode` checked the
// sentence: each built-in panicked (index out of bounds) on a sentence encoded with a
// larger dictionary than the one it was built for.
#[test]
fn built_in_scores_and_decode_refuse_a_sentence_of_another_dictionary() {
    let corpus = synthetic::token_function(10, 3, 1).unwrap();
    let dict = FeatureDict::build(&corpus, &default_templates(&corpus).unwrap(), 1).unwrap();
    let larger = synthetic::token_function(60, 3, 2).unwrap();
    let other = FeatureDict::build(&larger, &default_templates(&larger).unwrap(), 1).unwrap();
    let (k, l) = (dict.len(), 3);
    let own: Vec<_> = corpus
        .sentences()
        .iter()
        .map(|s| dict.encode(s).unwrap())
        .collect();
    let foreign = larger
        .sentences()
        .iter()
        .map(|s| other.encode(s).unwrap())
        .find(|e| (0..e.len()).any(|i| e.at(i).iter().any(|&f| f as usize >= k)))
        .expect("a sentence of the larger dictionary reads a feature id >= k");
    let default = LearnerSettings::default();
    let extended = LearnerSettings {
        averaging: true,
        zero_order: true,
        ..default
    };
    let spectral = LearnerSettings {
        reading: Reading::SpectralAlgorithm2,
        ..default
    };
    let learners: Vec<(&str, Box<dyn OnlineLearner>)> = vec![
        ("bol", Box::new(Bol::new(k, l, &default).unwrap())),
        ("bol avg+0", Box::new(Bol::new(k, l, &extended).unwrap())),
        ("bol spectral", Box::new(Bol::new(k, l, &spectral).unwrap())),
        ("bcd", Box::new(Bcd::new(k, l, &default).unwrap())),
        ("bcd avg+0", Box::new(Bcd::new(k, l, &extended).unwrap())),
        ("sp", Box::new(Sp::new(k, l, &default, None).unwrap())),
        (
            "sp avg+0",
            Box::new(Sp::new(k, l, &extended, None).unwrap()),
        ),
    ];
    let refused = |r: &online_bilinear::Result<()>| {
        is_invalid_named(r, "scores: sentence feature id")
            || is_invalid_named(r, "decode: sentence feature id")
    };
    let tags = corpus.tag_set();
    assert_eq!(tags.len(), l);
    let mut ws = ViterbiWorkspace::default();
    for (name, mut learner) in learners {
        // Some updates first, so that the weights (and 0-order rows) are not all zero.
        let mut before = Vec::new();
        for (enc, sentence) in own.iter().zip(corpus.sentences()) {
            let gold: Vec<usize> = sentence
                .tags()
                .iter()
                .map(|t| tags.iter().position(|x| x == t).unwrap())
                .collect();
            let mut predicted = vec![0; enc.len()];
            learner
                .decode(enc, l, &mut before, &mut ws, &mut predicted)
                .unwrap();
            if predicted != gold {
                learner.update(enc, &gold, &predicted).unwrap();
            }
            learner.record();
        }
        let enc = &own[0];
        learner.scores(enc, &mut before).unwrap();
        assert!(before.iter().any(|&x| x != 0.0), "{name}: weights all zero");

        let mut out = vec![7.0];
        let r = learner.scores(&foreign, &mut out);
        assert!(
            is_invalid_named(&r, "scores: sentence feature id"),
            "{name}: {r:?}"
        );
        assert_eq!(out, [7.0], "{name}: a refused call leaves `out` as it was");
        let mut path = vec![0; foreign.len()];
        let r = learner.decode(&foreign, l, &mut out, &mut ws, &mut path);
        assert!(refused(&r), "{name}, decode: {r:?}");

        // A correct call after the refused ones: the same table, and decode gives its path.
        let mut after = Vec::new();
        learner.scores(enc, &mut after).unwrap();
        assert_eq!(after, before, "{name}");
        let mut want = vec![0; enc.len()];
        viterbi_into(&after, enc.len(), l, &mut ws, &mut want).unwrap();
        let mut got = vec![0; enc.len()];
        learner.decode(enc, l, &mut out, &mut ws, &mut got).unwrap();
        assert_eq!(got, want, "{name}");
    }
}
