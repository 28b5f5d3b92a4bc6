//! Accuracy of iterative parameter mixing ([`online_bilinear::distributed::fit_ipm`])
//! against the one-machine fit, over several seeds, in one process (no cluster: the shards
//! run one after the other, so this measures the model, not the time).
//!
//! `cargo run --release -p online-bilinear --example ipm_probe -- CORPUS LEARNER SHARDS EPOCHS SEEDS [LIMIT [EXTRAS]]`
//!
//! - CORPUS: `chunking` (`$BILINEAR_DATA_DIR/conll2000-subset`, `chtrain.txt` /
//!   `chtest.txt`, chunking templates) or `pos` (`$BILINEAR_DATA_DIR/pku1998-pos/199801.txt`,
//!   every 10th sentence to test, word-tagging templates);
//! - LEARNER: `sp`, `bol` or `bcd` (default settings: no averaging, no 0-order weights);
//! - SHARDS: the number of contiguous shards; EPOCHS: `max_iter`; SEEDS: seeds 0..SEEDS;
//! - LIMIT: keep the first LIMIT training sentences (default or `all`: all);
//! - `EXTRAS`: `averaging` and/or `zero_order` (comma-separated) switch those on.
//!
//! Prints one line per seed (token accuracy on the test sentences, one machine and mixed,
//! and their difference in points), then the mean difference with a 95% t interval.
use online_bilinear::distributed::fit_ipm;
use online_bilinear::{Fit, ParamGuard, TaggerParams, Templates, read_conll, read_word_tagged};

fn data_dir() -> std::path::PathBuf {
    std::env::var_os("BILINEAR_DATA_DIR").map_or_else(|| "data".into(), Into::into)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: ipm_probe CORPUS LEARNER SHARDS EPOCHS SEEDS [LIMIT [EXTRAS]]";
    let arg = |i: usize| args.get(i).ok_or(usage);
    let (corpus, learner) = (arg(1)?.as_str(), arg(2)?.as_str());
    let shards: usize = arg(3)?.parse()?;
    let epochs: usize = arg(4)?.parse()?;
    let seeds: u64 = arg(5)?.parse()?;
    let limit: Option<usize> = match args.get(6).map(String::as_str) {
        None | Some("all") => None,
        Some(l) => Some(l.parse()?),
    };
    let extras = args.get(7).map_or("", String::as_str);
    let dir = data_dir();
    let (train, test, templates) = match corpus {
        "chunking" => (
            read_conll(dir.join("conll2000-subset/chtrain.txt"))?,
            read_conll(dir.join("conll2000-subset/chtest.txt"))?,
            Templates::chunking(),
        ),
        "pos" => {
            let (train, test) =
                read_word_tagged(dir.join("pku1998-pos/199801.txt"), '/')?.split_every(10)?;
            (train, test, Templates::word_tagging())
        }
        other => return Err(format!("unknown corpus {other}; {usage}").into()),
    };
    let train = match limit {
        Some(n) => train.head(n),
        None => train,
    };
    let base = match learner {
        "sp" => TaggerParams::sp(),
        "bol" => TaggerParams::bol(),
        "bcd" => TaggerParams::bcd(),
        other => return Err(format!("unknown learner {other}; {usage}").into()),
    };
    let mut diffs = Vec::new();
    for seed in 0..seeds {
        let params = base
            .clone()
            .templates(templates.clone())
            .max_iter(epochs)
            .seed(seed)
            .averaging(extras.contains("averaging"))
            .zero_order(extras.contains("zero_order"))
            .check()?;
        let prepared = params.prepare(&train)?;
        // A test tag the training sentences lack counts as an error for both models.
        let one = 100.0
            * params
                .fit(&prepared)?
                .evaluate_lenient(&test)?
                .token_accuracy;
        let mixed = 100.0
            * fit_ipm(&params, &prepared, shards)?
                .evaluate_lenient(&test)?
                .token_accuracy;
        println!(
            "{corpus} {learner} seed {seed}: one machine {one:.2}, {shards} shards {mixed:.2}, \
             diff {:+.2}",
            mixed - one
        );
        diffs.push(mixed - one);
    }
    let n = diffs.len() as f64;
    let mean = diffs.iter().sum::<f64>() / n;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    // Two-sided 95% t quantiles for 1..=9 degrees of freedom; 1.96 beyond.
    let t = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26]
        .get(diffs.len().saturating_sub(2))
        .copied()
        .unwrap_or(1.96);
    let half = t * (var / n).sqrt();
    println!(
        "{corpus} {learner} {shards} shards, {epochs} epochs, {} seeds: mean diff {mean:+.2} \
         points (95% interval {:+.2} to {:+.2}), test tokens {}",
        diffs.len(),
        mean - half,
        mean + half,
        test.n_tokens()
    );
    Ok(())
}
