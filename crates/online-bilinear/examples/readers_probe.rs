//! Probe: the corpus readers and word-only feature extraction against yardsticks measured
//! in the same run, at four corpus sizes spanning 30x.
//!
//! ```sh
//! cargo run --release -p online-bilinear --example readers_probe -- [repeats]
//! ```
//!
//! Each kernel and its yardstick run alternately, `repeats` times (default 11); the table
//! gives the median of each and their ratio.
//!
//! - `parse_word_tagged` on `word/TAG` text, and `ConllFormat` (header, named label) on the
//!   same corpus in four columns, beside the **tokenize** yardstick: one pass over the
//!   same text splitting lines and whitespace and finding the separator, allocating
//!   nothing (the least any reader of the format must do).
//! - `FeatureDict::encode_corpus` with `Templates::word_only()` (25 templates, 17 of them
//!   transforms) on a rayon pool of 1 and of 2 threads, beside the **words** yardstick:
//!   encoding the same sentences one after another on the calling thread with five plain
//!   word templates `W-2 .. W2`, so the ratio is the cost of the word-only features per
//!   plain word feature, and its drop from 1 to 2 threads the parallel speed-up.
//!
//! The readers are one sequential pass over the text, so the thread count does not change
//! them; they run on the calling thread.

use std::hint::black_box;
use std::time::Instant;

use bl_core::random::seeded_rng;
use online_bilinear::{
    ConllFormat, Corpus, FeatureDict, LabelColumn, Result, Sentence, Template, Templates,
    parse_word_tagged,
};
use rand::RngExt;

/// A seeded corpus of Latin-script words whose tag follows from their form (as a POS
/// corpus), with a second and third observation column for the CoNLL form.
fn corpus(n_sentences: usize, seed: u64) -> Result<Corpus> {
    let mut rng = seeded_rng(seed);
    let mut sentences = Vec::with_capacity(n_sentences);
    for _ in 0..n_sentences {
        let n = rng.random_range(8..30);
        let (mut words, mut tags) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let len = rng.random_range(2..9);
            let stem: String = (0..len)
                .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
                .collect();
            let (word, tag) = match rng.random_range(0..6) {
                0 => ("the".to_string(), "DT"),
                1 => (format!("{stem}ing"), "VBG"),
                2 => (stem[..1].to_uppercase() + &stem[1..], "NNP"),
                3 => (rng.random_range(1..10_000).to_string(), "CD"),
                4 => (format!("{stem}-based"), "JJ"),
                _ => (stem, "NN"),
            };
            words.push(word);
            tags.push(tag.to_string());
        }
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let index: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        sentences.push(Sentence::new(vec![words, lower, index], tags)?);
    }
    Ok(Corpus::new(sentences))
}

/// The tokenize yardstick: lines, whitespace-separated fields, and the last `separator`
/// of each field, with no allocation; returns a checksum so nothing is optimized away.
fn tokenize(text: &str, separator: char) -> usize {
    let mut sum = 0;
    for line in bl_core::io::text::lines(text) {
        for field in line.split_whitespace() {
            sum += field.rfind(separator).unwrap_or(field.len()) + 1;
        }
    }
    sum
}

/// Median seconds of `kernel` and of `yardstick`, run alternately `repeats` times.
fn measure(repeats: usize, mut kernel: impl FnMut(), mut yardstick: impl FnMut()) -> (f64, f64) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..repeats {
        let start = Instant::now();
        kernel();
        a.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        yardstick();
        b.push(start.elapsed().as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(&mut a), median(&mut b))
}

fn main() -> Result<()> {
    let repeats: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(11);
    println!("| sentences | tokens | kernel | kernel ms | yardstick | yardstick ms | ratio |");
    println!("|---|---|---|---|---|---|---|");
    let words = Templates::new(
        (-2..=2)
            .map(|offset| Template::Unigram { column: 0, offset })
            .collect(),
    )?;
    for n in [300, 1_000, 3_000, 9_000] {
        let corpus = corpus(n, 7)?;
        let tokens = corpus.n_tokens();
        let row = |kernel: &str, yardstick: &str, (k, y): (f64, f64)| {
            println!(
                "| {n} | {tokens} | {kernel} | {:.2} | {yardstick} | {:.2} | {:.2} |",
                1e3 * k,
                1e3 * y,
                k / y
            );
        };
        let tagged = corpus.to_word_tagged_string('/');
        row(
            "parse_word_tagged",
            "tokenize",
            measure(
                repeats,
                || {
                    black_box(parse_word_tagged(black_box(&tagged), '/', "<probe>").ok());
                },
                || {
                    black_box(tokenize(black_box(&tagged), '/'));
                },
            ),
        );
        let conll = format!("word lower index tag\n{}", corpus.to_conll_string());
        let format = ConllFormat::new()
            .header(true)
            .label(LabelColumn::Named("tag".into()));
        row(
            "ConllFormat (header, named label)",
            "tokenize",
            measure(
                repeats,
                || {
                    black_box(format.parse(black_box(&conll), "<probe>").ok());
                },
                || {
                    black_box(tokenize(black_box(&conll), '\u{0}'));
                },
            ),
        );
        let rich = FeatureDict::build(&corpus, &Templates::word_only(), 1)?;
        let plain = FeatureDict::build(&corpus, &words, 1)?;
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| bl_core::BlError::Numerical {
                    context: "readers_probe",
                    message: e.to_string(),
                })?;
            row(
                &format!("encode_corpus, word_only (25 templates), {threads} thread(s)"),
                "encode one by one, W-2..W2 (5)",
                measure(
                    repeats,
                    || {
                        black_box(pool.install(|| rich.encode_corpus(black_box(&corpus)).ok()));
                    },
                    || {
                        for s in corpus.sentences() {
                            black_box(plain.encode(black_box(s)).ok());
                        }
                    },
                ),
            );
        }
    }
    Ok(())
}
