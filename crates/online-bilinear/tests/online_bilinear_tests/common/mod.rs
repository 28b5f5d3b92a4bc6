//! Fixtures shared by the integration tests (each test file uses some of them).
#![allow(dead_code)]

use bl_core::random::standard_normal;
use online_bilinear::{BlockUpdate, Corpus, FittedTagger, OblError, TaggerParams, synthetic};
use online_bilinear::{Fit as _, Predict as _};
use rand::RngExt;

/// [`synthetic::lexicon`], which cannot fail for `n >= 1`.
pub fn lexicon_corpus(n_sentences: usize, seed: u64) -> Corpus {
    synthetic::lexicon(n_sentences, seed).expect("n_sentences >= 1")
}

/// [`synthetic::cyclic`], which cannot fail for `n >= 1`.
pub fn cyclic_corpus(n_sentences: usize, offset: usize) -> Corpus {
    synthetic::cyclic(n_sentences, offset).expect("n_sentences >= 1")
}

/// `a` and `b` tag every sentence of `corpus` alike.
#[track_caller]
pub fn assert_same_tags(a: &FittedTagger, b: &FittedTagger, corpus: &Corpus) {
    let tags = |m: &FittedTagger| -> Vec<Vec<String>> { m.predict(corpus).unwrap() };
    assert_eq!(tags(a), tags(b));
}

/// `result` is an `InvalidParameter` error (in [`OblError::Core`]).
pub fn is_invalid_parameter<T>(result: &online_bilinear::Result<T>) -> bool {
    matches!(
        result,
        Err(OblError::Core(bl_core::BlError::InvalidParameter { .. }))
    )
}

/// `result` is an `InvalidParameter` error (in [`OblError::Core`]) naming `name`.
pub fn is_invalid_named<T>(result: &online_bilinear::Result<T>, name: &str) -> bool {
    matches!(result, Err(OblError::Core(bl_core::BlError::InvalidParameter { name: n, .. })) if *n == name)
}

/// The Rust CRF-L2 tagger with `C = c` and `iterations` optimizer iterations at most,
/// fitted on `train`.
pub fn crf_l2(train: &Corpus, c: f64, iterations: usize) -> FittedTagger {
    TaggerParams::crf_l2()
        .c(c)
        .max_iter(iterations)
        .fit(train)
        .unwrap()
}

/// The bol tagger with the 0-order extension, trained for `epochs` epochs on `train`.
pub fn bol_zero_order(train: &Corpus, epochs: usize) -> FittedTagger {
    TaggerParams::bol()
        .max_iter(epochs)
        .zero_order(true)
        .fit(train)
        .unwrap()
}

/// A random `DeltaPhi` on two of `n_blocks` feature blocks of shape `l x p`, three
/// Gaussian entries each.
pub fn random_update(
    rng: &mut bl_core::random::Rng,
    n_blocks: usize,
    l: usize,
    p: usize,
) -> BlockUpdate {
    let mut d = BlockUpdate::new(l, p);
    for _ in 0..2 {
        let k = rng.random_range(0..n_blocks) as u32;
        for _ in 0..3 {
            let (a, b) = (rng.random_range(0..l), rng.random_range(0..p));
            d.add(k, a, b, standard_normal(rng));
        }
    }
    d
}
