//! Fingerprints of fitted online taggers, to check that a change of the implementation
//! gives the same models: per learner and setting, the test label error rate and F1 (full
//! precision), a hash of the test predictions, a hash of `alpha`, `beta` and the 0-order
//! weights' bits, and the seconds of the fit (feature extraction excluded).
//!
//! `cargo run --release -p online-bilinear --example fingerprint -- CONLL_DIR PKU_FILE
//! [EPOCHS] [PKU_SENTENCES]`: CoNLL-2000 part-of-speech tagging (the word column, the POS
//! column as the label, `Templates::segmentation()`) and chunking (`chtrain.txt`,
//! `chtest.txt`, `Templates::chunking()`), and the first PKU_SENTENCES (default 3000) sentences of a
//! `char/tag` corpus (every 10th a test sentence, `Templates::segmentation()`); bol, bcd
//! and sp, each plain and with averaging and 0-order features; EPOCHS default 5.
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use online_bilinear::{Corpus, Fit, Learner, TaggerParams, Templates};

fn hash_of(x: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

fn bits(x: Option<&[f64]>) -> Vec<u64> {
    x.unwrap_or_default().iter().map(|v| v.to_bits()).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: fingerprint CONLL_DIR PKU_FILE [EPOCHS] [PKU_SENTENCES]".into());
    }
    let epochs: usize = args.get(3).map_or(Ok(5), |v| v.parse())?;
    let n_pku: usize = args.get(4).map_or(Ok(3000), |v| v.parse())?;
    let dir = std::path::Path::new(&args[1]);
    let chunking = (
        online_bilinear::read_conll(dir.join("chtrain.txt"))?,
        online_bilinear::read_conll(dir.join("chtest.txt"))?,
    );
    let pku: (Corpus, Corpus) = online_bilinear::read_char_tagged(&args[2])?
        .head(n_pku)
        .split_every(10)?;
    // Part-of-speech tagging: the word column as the observation, the POS column as the
    // label (about 45 tags).
    let pos = |corpus: &Corpus| -> Result<Corpus, online_bilinear::OblError> {
        let sentences = corpus
            .sentences()
            .iter()
            .map(|s| {
                online_bilinear::Sentence::new(vec![s.columns()[0].clone()], s.columns()[1].clone())
            })
            .collect::<Result<_, _>>()?;
        Ok(Corpus::new(sentences))
    };
    let pos_tagging = (pos(&chunking.0)?, pos(&chunking.1)?);
    let corpora = [
        ("pos", pos_tagging, Templates::segmentation()),
        ("chunking", chunking, Templates::chunking()),
        ("pku1998", pku, Templates::segmentation()),
    ];
    for (name, (train, test), templates) in &corpora {
        for learner in [Learner::Bol, Learner::Bcd, Learner::Sp] {
            for extended in [false, true] {
                let params = TaggerParams::new(learner)
                    .templates(templates.clone())
                    .epochs(epochs)
                    .averaging(extended)
                    .zero_order(extended);
                let prepared = params.prepare(train)?;
                let started = std::time::Instant::now();
                let model = params.fit(&prepared)?;
                let seconds = started.elapsed().as_secs_f64();
                let e = model.evaluate_lenient(test)?;
                let predictions = model.predict_corpus(test)?;
                println!(
                    "{name} {} avg+0={extended} seconds={seconds:.3} error={:?} f1={:?} predictions={:016x} weights={:016x}",
                    learner.name(),
                    e.label_error_rate,
                    e.f1(),
                    hash_of(&predictions),
                    hash_of((
                        bits(model.alpha()),
                        bits(model.beta()),
                        bits(model.zero_order_weights())
                    )),
                );
            }
        }
    }
    Ok(())
}
