//! bol's update allocates nothing once the entries of `Theta` it writes exist: `Theta += D`,
//! the warm-started power steps and the (averaged) `alpha`, `beta` all work in place; and the scoring, Viterbi,
//! decoding ([`OnlineLearner::decode`]) and update of sp, bcd and bol allocate nothing per sentence once the
//! cells they touch exist. Counted by an
//! instrumented global allocator. The counts are process-wide, so this binary runs without
//! libtest's harness (`harness = false` in `Cargo.toml`): its `main` is the only thread
//! besides rayon's idle workers.

use std::alloc::System;

use online_bilinear::learner::OnlineLearner;
use online_bilinear::viterbi::{ViterbiWorkspace, viterbi_into};
use online_bilinear::{
    Bcd, BlockRankOne, BlockUpdate, Bol, FeatureDict, LearnerSettings, Sp, Templates,
};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

mod counting;

fn main() {
    counting::the_counter_sees_an_allocation(GLOBAL);
    updates_of_existing_state_do_not_allocate();
    println!("no_alloc: updates of existing state allocate nothing (sp, bcd, bol): ok");
}

fn updates_of_existing_state_do_not_allocate() {
    // Start rayon's global pool and wait until every worker thread has run a job: a worker
    // still starting (its thread-local set-up allocates) while a count below runs would be
    // counted. Under load that happened (4 allocations, 900 bytes, inside sp's count).
    rayon::broadcast(|_| ());
    bol_blocks();
    learners_over_sentences();
}

/// Each built-in learner over a corpus: a first pass creates its cells; replaying the same
/// (gold, predicted) pairs with scoring and Viterbi into reused buffers allocates nothing.
fn learners_over_sentences() {
    let corpus = online_bilinear::synthetic::lexicon(60, 1).unwrap();
    let dict = FeatureDict::build(&corpus, &Templates::segmentation(), 1).unwrap();
    // Encoded one sentence at a time, on this thread (`encode_corpus` runs on rayon's
    // pool).
    let encoded: Vec<_> = corpus
        .sentences()
        .iter()
        .map(|s| dict.encode(s).unwrap())
        .collect();
    let tags = corpus.tag_set();
    let gold: Vec<Vec<usize>> = corpus
        .sentences()
        .iter()
        .map(|s| {
            s.tags()
                .iter()
                .map(|t| tags.iter().position(|x| x == t).unwrap())
                .collect()
        })
        .collect();
    let (k, l) = (dict.len(), tags.len());
    let averaged = LearnerSettings {
        averaging: true,
        zero_order: true,
        ..LearnerSettings::default()
    };
    let learners: Vec<(&str, Box<dyn OnlineLearner>)> = vec![
        ("sp", Box::new(Sp::new(k, l, &averaged, None).unwrap())),
        ("bcd", Box::new(Bcd::new(k, l, &averaged).unwrap())),
        ("bol", Box::new(Bol::new(k, l, &averaged).unwrap())),
    ];
    for (name, mut learner) in learners {
        let (mut scores, mut ws) = (Vec::new(), ViterbiWorkspace::default());
        let mut predicted: Vec<Vec<usize>> = Vec::new();
        learner.begin_pass(0);
        for (enc, y) in encoded.iter().zip(&gold) {
            learner.scores(enc, &mut scores).unwrap();
            let mut path = vec![0; enc.len()];
            viterbi_into(&scores, enc.len(), l, &mut ws, &mut path).unwrap();
            let mut decoded = vec![0; enc.len()];
            learner
                .decode(enc, l, &mut scores, &mut ws, &mut decoded)
                .unwrap();
            assert_eq!(decoded, path, "{name}");
            if path != *y {
                learner.update(enc, y, &path).unwrap();
            }
            learner.record();
            predicted.push(path);
        }
        let mut path = vec![0; encoded.iter().map(|e| e.len()).max().unwrap()];
        let mut updates = 0;
        allocates_nothing(name, || {
            for ((enc, y), first) in encoded.iter().zip(&gold).zip(&predicted) {
                learner.scores(enc, &mut scores).unwrap();
                viterbi_into(&scores, enc.len(), l, &mut ws, &mut path[..enc.len()]).unwrap();
                learner
                    .decode(enc, l, &mut scores, &mut ws, &mut path[..enc.len()])
                    .unwrap();
                if first != y {
                    learner.update(enc, y, first).unwrap();
                    updates += 1;
                }
                learner.record();
            }
        });
        assert!(updates > 0, "{name}");
    }
}

/// Runs `f` and asserts that it allocated and reallocated nothing.
fn allocates_nothing(what: &str, f: impl FnOnce()) {
    let region = Region::new(GLOBAL);
    f();
    let stats = region.change();
    assert_eq!(
        (stats.allocations, stats.reallocations),
        (0, 0),
        "{what}: {stats:?}"
    );
}

fn bol_blocks() {
    let (n_blocks, l, p) = (50_usize, 4, 5);
    for average in [false, true] {
        let mut state = BlockRankOne::new(n_blocks, l, p, average).unwrap();
        let mut d = BlockUpdate::new(l, p);
        let touched: Vec<u32> = (0..n_blocks as u32).step_by(3).collect();
        // Build D: the first rounds allocate D's buffers and Theta's entries (Theta stores
        // only the entries written); replaying them writes existing entries only.
        let fill = |d: &mut BlockUpdate, round: usize| {
            d.clear();
            for (i, &k) in touched.iter().enumerate() {
                let sign = if (i + round).is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
                d.add(k, (i + round) % l, (2 * i + round) % p, sign);
                d.add(k, (i + 1) % l, i % p, 0.5 * sign);
            }
        };
        let mut rounds = |state: &mut BlockRankOne| {
            for round in 0..20 {
                fill(&mut d, round);
                state.update(&d, 4).unwrap();
                state.record_step();
            }
        };
        rounds(&mut state);
        allocates_nothing(&format!("bol, averaging {average}"), || rounds(&mut state));
        // The state did move: the updates were not no-ops.
        assert!(state.sigmas().iter().any(|&s| s > 0.0));
    }
}
