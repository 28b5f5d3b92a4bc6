//! Feature extraction stays allocation-light with the word-only templates and their
//! transforms: encoding a sentence allocates its two output arrays and a reused string
//! buffer, a count that does not grow with the sentence's length. Counted by an
//! instrumented global allocator; the counts are process-wide, so this binary runs
//! without libtest's harness (`harness = false`): no harness thread allocates during a
//! count.

use std::alloc::System;

use online_bilinear::{Corpus, FeatureDict, Sentence, Templates};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

mod counting;

const WORDS: [&str; 8] = [
    "The",
    "well-known",
    "McDonald's",
    "1,200",
    "NASA",
    "walking",
    "École",
    "u.s.",
];

fn sentence(n: usize) -> Sentence {
    let words: Vec<&str> = (0..n).map(|i| WORDS[i % WORDS.len()]).collect();
    let tags: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "A" } else { "B" }).collect();
    Sentence::from_tokens(&words, &tags).expect("as many tags as words")
}

fn main() {
    counting::the_counter_sees_an_allocation(GLOBAL);
    encoding_allocates_a_fixed_number_of_times_whatever_the_length();
    println!("features_alloc: encoding_allocates_a_fixed_number_of_times_whatever_the_length: ok");
}

fn encoding_allocates_a_fixed_number_of_times_whatever_the_length() {
    let corpus = Corpus::new(vec![sentence(16)]);
    let dict = FeatureDict::build(&corpus, &Templates::word_only(), 1).expect("a corpus");
    // The counter is global: the fewest over a few runs leaves out anything the test
    // harness's own threads happen to allocate meanwhile.
    let count = |s: &Sentence| {
        (0..5)
            .map(|_| {
                let region = Region::new(GLOBAL);
                let encoded = dict.encode(s).expect("one column");
                let stats = region.change();
                assert_eq!(encoded.len(), s.len());
                stats.allocations + stats.reallocations
            })
            .min()
            .unwrap_or(usize::MAX)
    };
    let (short, long) = (sentence(16), sentence(1600));
    let (a, b) = (count(&short), count(&long));
    assert!(a <= 12, "a 16-token sentence: {a} allocations");
    assert_eq!(a, b, "16 tokens: {a} allocations; 1600 tokens: {b}");
}
