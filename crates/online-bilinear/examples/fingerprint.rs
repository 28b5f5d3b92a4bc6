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

mod common;

use online_bilinear::{BuiltIn, Fit, ParamGuard, Predict, TaggerParams, Templates};

fn hash_of(x: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

fn bits(x: Option<&[f64]>) -> Vec<u64> {
    x.unwrap_or_default().iter().map(|v| v.to_bits()).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = common::args(2, "fingerprint CONLL_DIR PKU_FILE [EPOCHS] [PKU_SENTENCES]")?;
    let epochs: usize = common::arg_or(&args, 3, 5)?;
    let n_pku: usize = common::arg_or(&args, 4, 3000)?;
    let dir = std::path::Path::new(&args[1]);
    let chunking = common::conll_chunking(dir)?;
    let pos_tagging = common::conll_pos(dir)?;
    let pku = common::char_tagged_head(std::path::Path::new(&args[2]), n_pku)?;
    let corpora = [
        ("pos", pos_tagging, Templates::segmentation()),
        ("chunking", chunking, Templates::chunking()),
        ("pku1998", pku, Templates::segmentation()),
    ];
    for (name, (train, test), templates) in &corpora {
        for learner in [BuiltIn::Bol, BuiltIn::Bcd, BuiltIn::Sp] {
            for extended in [false, true] {
                let params = TaggerParams::builtin(learner)
                    .templates(templates.clone())
                    .max_iter(epochs)
                    .averaging(extended)
                    .zero_order(extended)
                    .check()?;
                let prepared = params.prepare(train)?;
                let started = std::time::Instant::now();
                let model = params.fit(&prepared)?;
                let seconds = started.elapsed().as_secs_f64();
                let e = model.evaluate_lenient(test)?;
                let predictions: Vec<Vec<String>> = model.predict(test)?;
                println!(
                    "{name} {} avg+0={extended} seconds={seconds:.3} error={:?} f1={:?} predictions={:016x} weights={:016x}",
                    learner.name(),
                    e.label_error_rate,
                    e.f1(),
                    hash_of(&predictions),
                    hash_of((
                        bits(model.alpha()),
                        bits(model.beta()),
                        bits(model.zero_order_weights()?)
                    )),
                );
            }
        }
    }
    Ok(())
}
