//! One online learner of this crate, or CRFsuite's averaged perceptron, trained on the same
//! encoded features: training seconds, test token accuracy, peak memory. One learner per
//! process, so that the process's peak resident memory is the learner's.
//!
//! `cargo run --release --example online_vs_crfsuite_ap -- CORPUS LEARNER [N_SENTENCES|all]
//! [EPOCHS]` in `probes/crfsuite` (from the workspace root: `cargo run --release
//! --manifest-path probes/crfsuite/Cargo.toml --example online_vs_crfsuite_ap -- ...`)
//!
//! - CORPUS: `pos:DIR` (CoNLL-2000 `chtrain.txt` / `chtest.txt`: the word column, the
//!   part-of-speech column as the label) or `seg:FILE` (a `char/tag` corpus such as the
//!   pku1998 `data.txt`; every 10th sentence is a test sentence).
//! - LEARNER: `sp`, `bol`, `bcd` (all with 0-order features and averaging),
//!   `sp-first-order` (sp with averaging, without 0-order features), `sp-transitions`
//!   (sp with averaging, 0-order features and first-order weights for the bias feature
//!   only: CRFsuite's feature set, plus the bias's per-tag and start-state weights, which
//!   CRFsuite's `crf1d` does not have) or `crfsuite-ap`.
//! - N_SENTENCES: the first N training sentences (default all); EPOCHS default 20.
//!
//! Features: `Templates::segmentation()` on the first column (words or characters) and the
//! bias template, cutoff 1. Both sides get the same feature ids (CRFsuite: one attribute
//! per active feature, named by its id, [`crfsuite_probe::items`]; its model is `crf1d`:
//! (attribute, label) state features and label transitions). Timed: ours, the fit on the prepared corpus (feature extraction excluded);
//! CRFsuite, `append` of every sentence plus `train` (its attribute dictionary included).
//! Printed as one Markdown table row: corpus, sentences, tokens, features, tags, learner,
//! seconds, accuracy (%), peak MB over the fit (bytes live through the Rust allocator,
//! counted by `stats_alloc` and sampled every 100 us, above those live at the start; not
//! measured for CRFsuite, whose C code allocates with `malloc`), model MB (our weights'
//! heap bytes as the model stores them, sparse 0-order rows included; CRFsuite's model file).
use std::time::Instant;

// The corpora and argument helpers of online-bilinear's examples, read from their file.
#[path = "../../../crates/online-bilinear/examples/common/mod.rs"]
mod common;

use online_bilinear::{
    BuiltIn, Corpus, Fit, ParamGuard, Predict, TaggerParams, Template, Templates,
};

#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// Bytes allocated through the Rust allocator and not yet freed.
fn live_bytes() -> usize {
    let stats = GLOBAL.stats();
    stats
        .bytes_allocated
        .saturating_sub(stats.bytes_deallocated)
}

/// Runs `f` while a thread samples [`live_bytes`] every 100 microseconds; returns `f`'s
/// result and the largest sample above the bytes live at the start.
fn with_peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let start = live_bytes();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut peak = start;
            while !done.load(Ordering::Relaxed) {
                peak = peak.max(live_bytes());
                std::thread::sleep(std::time::Duration::from_micros(100));
            }
            peak.max(live_bytes())
        });
        let out = f();
        done.store(true, Ordering::Relaxed);
        let peak = sampler.join().unwrap_or(start);
        (out, peak.saturating_sub(start))
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = common::args(
        2,
        "online_vs_crfsuite_ap pos:DIR|seg:FILE sp|bol|bcd|sp-first-order|sp-transitions|crfsuite-ap [N|all] [EPOCHS]",
    )?;
    let (train, test) = match args[1].split_once(':') {
        Some(("pos", dir)) => common::conll_pos(std::path::Path::new(dir))?,
        Some(("seg", file)) => online_bilinear::read_char_tagged(file)?.split_every(10)?,
        _ => return Err(format!("corpus `{}`: expected pos:DIR or seg:FILE", args[1]).into()),
    };
    let train = match args.get(3) {
        Some(n) if n != "all" => train.head(n.parse()?),
        _ => train,
    };
    let epochs: usize = common::arg_or(&args, 4, 20)?;
    let learner = args[2].as_str();
    // The bias template gives label-transition weights without an observation (CRFsuite's
    // transition features); the segmentation templates have none.
    let mut templates = Templates::segmentation().as_slice().to_vec();
    templates.push(Template::Bias);
    let base = TaggerParams::sp()
        .templates(Templates::new(templates)?)
        .max_iter(epochs);
    let prepared = base.check()?.prepare(&train)?;
    let (n_features, l) = (prepared.features().len(), prepared.tags().len());
    let test_encoded = prepared.features().encode_corpus(&test)?;
    let tag_of = |t: &str| prepared.tags().iter().position(|x| x == t);
    let (seconds, predicted, model_bytes, peak): (
        f64,
        Vec<Vec<Option<usize>>>,
        usize,
        Option<usize>,
    ) = match learner {
        "sp" | "bol" | "bcd" | "sp-first-order" | "sp-transitions" => {
            let (learner, zero_order) = match learner {
                "sp" | "sp-transitions" => (BuiltIn::Sp, true),
                "sp-first-order" => (BuiltIn::Sp, false),
                "bol" => (BuiltIn::Bol, true),
                _ => (BuiltIn::Bcd, true),
            };
            let params = base
                .clone()
                .learner(learner.into())
                .zero_order(zero_order)
                .transitions_only(args[2] == "sp-transitions")
                .averaging(true);
            let started = Instant::now();
            let (model, peak) = with_peak(|| params.fit(&prepared));
            let (model, seconds) = (model?, started.elapsed().as_secs_f64());
            let paths: Vec<Vec<String>> = model.predict(&test)?;
            let weights = model.sparse_weights().map_or_else(
                || {
                    8 * (model.alpha().map_or(0, <[f64]>::len)
                        + model.beta().map_or(0, <[f64]>::len))
                },
                |w| w.heap_bytes(),
            ) + match model.zero_order_rows() {
                // As stored: the built-in learners hand over sparse 0-order rows;
                // `zero_order_weights` would build a dense `features x tags` copy.
                Some(rows) => rows.heap_bytes(),
                None => 8 * model.zero_order_weights()?.map_or(0, <[f64]>::len),
            };
            let predicted = paths
                .iter()
                .map(|p| p.iter().map(|t| tag_of(t)).collect())
                .collect();
            (seconds, predicted, weights, Some(peak))
        }
        "crfsuite-ap" => {
            let (seconds, predicted, bytes) =
                crfsuite_ap(&prepared, &train, &test_encoded, epochs)?;
            (seconds, predicted, bytes, None)
        }
        other => return Err(format!("learner `{other}`").into()),
    };
    let mb = |bytes: usize| bytes as f64 / (1024.0 * 1024.0);
    let peak_mb = peak.map_or("-".to_string(), |p| format!("{:.1}", mb(p)));
    let (mut correct, mut total) = (0, 0);
    for (sentence, path) in test.sentences().iter().zip(&predicted) {
        for (gold, p) in sentence.tags().iter().zip(path) {
            total += 1;
            correct += usize::from(tag_of(gold).is_some() && tag_of(gold) == *p);
        }
    }
    println!(
        "| {} | {} | {} | {n_features} | {l} | {learner} | {seconds:.2} | {:.2} | {peak_mb} | {:.1} |",
        args[1],
        train.len(),
        train.n_tokens(),
        100.0 * correct as f64 / total.max(1) as f64,
        mb(model_bytes),
    );
    Ok(())
}

/// CRFsuite's averaged perceptron on the prepared features: seconds, test paths, model bytes.
type Outcome = (f64, Vec<Vec<Option<usize>>>, usize);

fn crfsuite_ap(
    prepared: &online_bilinear::PreparedCorpus,
    train: &Corpus,
    test: &[online_bilinear::EncodedSentence],
    epochs: usize,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let items = crfsuite_probe::items;
    let encoded = prepared.features().encode_corpus(train)?;
    let data: Vec<(Vec<crfsuite::Item>, Vec<String>)> = encoded
        .iter()
        .zip(train.sentences())
        .filter(|(enc, _)| !enc.is_empty())
        .map(|(enc, s)| (items(enc), s.tags().to_vec()))
        .collect();
    let path = std::env::temp_dir().join(format!("obl-ap-{}.crfsuite", std::process::id()));
    let started = Instant::now();
    let mut trainer = crfsuite::Trainer::new(false);
    trainer.select(crfsuite::Algorithm::AP, crfsuite::GraphicalModel::CRF1D)?;
    trainer.set("max_iterations", &epochs.to_string())?;
    trainer.set("epsilon", "0")?;
    for (x, y) in &data {
        trainer.append(x, y, 0)?;
    }
    trainer.train(path.to_str().ok_or("temporary path is not UTF-8")?, -1)?;
    let seconds = started.elapsed().as_secs_f64();
    let bytes = std::fs::read(&path)?;
    let _ = std::fs::remove_file(&path);
    let model = crfsuite::Model::from_memory(&bytes)?;
    let mut tagger = model.tagger()?;
    let tags = prepared.tags();
    let mut paths = Vec::with_capacity(test.len());
    for enc in test {
        let labels = if enc.is_empty() {
            Vec::new()
        } else {
            tagger.tag(&items(enc))?
        };
        paths.push(
            labels
                .iter()
                .map(|s| tags.iter().position(|t| t == s))
                .collect(),
        );
    }
    Ok((seconds, paths, bytes.len()))
}
