//! Seeded synthetic corpora for tests, examples, benchmarks and the reproduction: the
//! crate's only data generators.
//!
//! Sizes given by the caller are bounded before anything is allocated: at most
//! [`MAX_SENTENCES`] sentences, a lexicon of at most [`MAX_LEXICON`] words, an alphabet of
//! at most 20,000 characters.

use crate::data::{Corpus, Sentence, words_to_bmes};
use crate::error::Result;

/// The most sentences a generator makes: `2^20` (a [`segmentation`] corpus of that many
/// sentences has about 43 million tokens: 5 to 39 words of 1.875 characters on average).
pub const MAX_SENTENCES: usize = 1 << 20;

/// The most words of [`segmentation`]'s lexicon: `2^20`.
pub const MAX_LEXICON: usize = 1 << 20;

/// A synthetic segmentation corpus for tests and benchmarks: sentences of words drawn with
/// Zipf-like frequencies from a seeded lexicon of `lexicon_size` words (1 to 4 characters
/// over an alphabet of `alphabet_size` CJK characters), tagged BMES. Characters are shared
/// between words, so context matters, as in real segmentation.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when a size is
/// zero, `n_sentences > MAX_SENTENCES`, `lexicon_size > MAX_LEXICON` or
/// `alphabet_size > 20000`.
pub fn segmentation(
    n_sentences: usize,
    lexicon_size: usize,
    alphabet_size: usize,
    seed: u64,
) -> Result<Corpus> {
    use rand::RngExt;
    if n_sentences == 0
        || lexicon_size == 0
        || alphabet_size == 0
        || n_sentences > MAX_SENTENCES
        || lexicon_size > MAX_LEXICON
        || alphabet_size > 20_000
    {
        return Err(crate::error::invalid(
            "sizes",
            format!("{n_sentences} sentences, lexicon {lexicon_size}, alphabet {alphabet_size}"),
            format!(
                "all >= 1, at most {MAX_SENTENCES} sentences, a lexicon of at most \
                 {MAX_LEXICON} and an alphabet of at most 20000"
            ),
        ));
    }
    let mut rng = bl_core::random::seeded_rng(seed);
    let alphabet: Vec<char> = (0..alphabet_size as u32)
        .filter_map(|i| char::from_u32(0x4e00 + i))
        .collect();
    let lexicon: Vec<String> = (0..lexicon_size)
        .map(|_| {
            let len = 1 + rng.random_range(0..4usize).min(rng.random_range(0..4usize));
            (0..len)
                .map(|_| {
                    // Frequent characters more often: the square of a uniform index.
                    let u: f64 = rng.random_range(0.0..1.0);
                    alphabet[((u * u) * alphabet.len() as f64) as usize % alphabet.len()]
                })
                .collect()
        })
        .collect();
    // Zipf-like word frequencies: index = floor(lexicon_size^u) - 1.
    let draw = |rng: &mut bl_core::random::Rng| {
        let u: f64 = rng.random_range(0.0..1.0);
        ((lexicon_size as f64).powf(u) as usize)
            .saturating_sub(1)
            .min(lexicon_size - 1)
    };
    let sentences = (0..n_sentences)
        .map(|_| {
            let n_words = rng.random_range(5..40usize);
            let words: Vec<&str> = (0..n_words)
                .map(|_| lexicon[draw(&mut rng)].as_str())
                .collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Corpus::new(sentences))
}

/// A small tagging corpus that any sensible learner fits exactly: tokens drawn uniformly
/// from `n_tags * 3` symbols, each symbol always tagged `t{symbol % n_tags}`, so the tag
/// of a token is a function of the token alone. The conformance suite of
/// [`crate::conformance`] learns it.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when a size is
/// zero, `n_sentences > MAX_SENTENCES` or `n_tags > 26`.
pub fn token_function(n_sentences: usize, n_tags: usize, seed: u64) -> Result<Corpus> {
    use rand::RngExt;
    bl_core::params::count_in("n_sentences", n_sentences, 1, MAX_SENTENCES)?;
    bl_core::params::count_in("n_tags", n_tags, 1, 26)?;
    let mut rng = bl_core::random::seeded_rng(seed);
    let sentences = (0..n_sentences)
        .map(|_| {
            let len = rng.random_range(3..12usize);
            let symbols: Vec<usize> = (0..len).map(|_| rng.random_range(0..n_tags * 3)).collect();
            let tokens: Vec<String> = symbols.iter().map(|s| format!("w{s}")).collect();
            let tags: Vec<String> = symbols.iter().map(|s| format!("t{}", s % n_tags)).collect();
            Sentence::from_tokens(&tokens, &tags)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Corpus::new(sentences))
}

/// Sentences of 2 to 8 words drawn uniformly from a fixed lexicon of 24 words (1 to 3
/// letters over `a..p`, the same lexicon for every seed), tagged BMES: characters are
/// shared between words, so a tagger needs context, but the lexicon makes the task
/// learnable. `seed` draws the sentences.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when
/// `n_sentences == 0` or `n_sentences > MAX_SENTENCES`.
pub fn lexicon(n_sentences: usize, seed: u64) -> Result<Corpus> {
    use rand::RngExt;
    bl_core::params::count_in("n_sentences", n_sentences, 1, MAX_SENTENCES)?;
    let mut rng = bl_core::random::seeded_rng(seed);
    let alphabet: Vec<char> = "abcdefghijklmnop".chars().collect();
    let mut lexicon_rng = bl_core::random::seeded_rng(1234);
    let lexicon: Vec<String> = (0..24)
        .map(|i| {
            let len = 1 + i % 3;
            (0..len)
                .map(|_| alphabet[lexicon_rng.random_range(0..alphabet.len())])
                .collect()
        })
        .collect();
    let sentences = (0..n_sentences)
        .map(|_| {
            let n_words = rng.random_range(2..9);
            let words: Vec<&str> = (0..n_words)
                .map(|_| lexicon[rng.random_range(0..lexicon.len())].as_str())
                .collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Corpus::new(sentences))
}

/// `n_sentences` sentences of 4 words each from the lexicon `ab c dea fb g hic`, in a fixed
/// cyclic order shifted by `offset` (no randomness): a tiny segmentation corpus for tests
/// of saved models and baselines.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when
/// `n_sentences == 0` or `n_sentences > MAX_SENTENCES`.
pub fn cyclic(n_sentences: usize, offset: usize) -> Result<Corpus> {
    bl_core::params::count_in("n_sentences", n_sentences, 1, MAX_SENTENCES)?;
    let lexicon = ["ab", "c", "dea", "fb", "g", "hic"];
    // Any offset: only its residue matters, and it cannot overflow the sum below.
    let offset = offset % lexicon.len();
    let sentences = (0..n_sentences)
        .map(|i| {
            let words: Vec<&str> = (0..4)
                .map(|j| lexicon[(i * 7 + j * 3 + offset) % lexicon.len()])
                .collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Corpus::new(sentences))
}
