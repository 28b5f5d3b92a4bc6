//! Training time, accuracy and peak memory of one online learner on a corpus with many tags
//! (the many-tag targets of `docs/crfsuite.md`): a `word/TAG` part-of-speech corpus, every 10th sentence a test
//! sentence, the word-tagging templates ([`Templates::word_tagging`]), 20 epochs, one
//! thread. One learner per process, so that the process's peak resident memory (`VmHWM`)
//! is the learner's (with the corpus and its features).
//!
//! `cargo run --release -p online-bilinear --example many_tags -- LEARNER [FILE] [EPOCHS]`
//!
//! - LEARNER: `sp` (averaging, 0-order features), `sp-transitions` (the same with
//!   first-order weights for the bias feature alone: CRFsuite's feature set, plus the bias's
//!   per-tag and start-state weights, which CRFsuite's `crf1d` does not have), `bol`,
//!   `bcd` (averaging, 0-order features), `sp-plain` (no averaging, no 0-order features);
//!   or `dump`, which trains nothing and writes the encoded training and test sets as
//!   CRFsuite's data format (`TAG\tATTR\tATTR...` per token, a blank line after each
//!   sentence; an attribute is a feature id, the test set's features outside the training
//!   dictionary dropped) to `many_tags/train.crfsuite` and `many_tags/test.crfsuite`
//!   (in the current directory), so that CRFsuite can be timed on the same features.
//! - FILE: default `/work/data/pku1998-pos/199801.txt` (People's Daily 1998-01, 44 tags).
//! - EPOCHS: default 20.
//!
//! Printed as one Markdown table row: learner, train sentences, tokens, features, tags,
//! prepare seconds (building the feature dictionary and encoding the corpus), train
//! seconds (the fit on the prepared corpus), each as wall clock with the process's CPU
//! time in parentheses (the machine may be shared: CPU time is the run's own work), test
//! token accuracy (%), peak resident MB (`VmHWM`) after preparing / at the end.
use std::time::Instant;

use online_bilinear::{
    Corpus, Fit, ParamGuard, TaggerParams, TaggerValidParams, Templates, read_word_tagged,
};

/// CPU seconds of this process (user and system, `/proc/self/stat`, in clock ticks of
/// 10 ms), so that a run on a loaded machine still measures its own work.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (in parentheses): utime and stime are the 12th
    // and 13th of them.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

/// `VmHWM` (peak resident set) of this process, in MB.
fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn params(learner: &str, epochs: usize) -> Result<TaggerValidParams, Box<dyn std::error::Error>> {
    let p = match learner {
        "sp" => TaggerParams::sp().averaging(true).zero_order(true),
        "sp-transitions" => TaggerParams::sp()
            .averaging(true)
            .zero_order(true)
            .transitions_only(true),
        "sp-plain" => TaggerParams::sp(),
        "bol" => TaggerParams::bol().averaging(true).zero_order(true),
        "bcd" => TaggerParams::bcd().averaging(true).zero_order(true),
        other => return Err(format!("unknown learner {other}").into()),
    };
    Ok(p.templates(Templates::word_tagging())
        .max_iter(epochs)
        .threads(Some(1))
        .check()?)
}

/// Writes `train` and `test` encoded with the training set's word-tagging features in
/// CRFsuite's data format (see the module docs).
fn dump(train: &Corpus, test: &Corpus) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::Write as _;
    let prepared = TaggerParams::sp()
        .templates(Templates::word_tagging())
        .check()?
        .prepare(train)?;
    let dict = prepared.features();
    std::fs::create_dir_all("many_tags")?;
    for (corpus, name) in [(train, "train"), (test, "test")] {
        let file = std::fs::File::create(format!("many_tags/{name}.crfsuite"))?;
        let mut out = std::io::BufWriter::new(file);
        for sentence in corpus.sentences() {
            let enc = dict.encode(sentence)?;
            for (i, tag) in sentence.tags().iter().enumerate() {
                write!(out, "{tag}")?;
                for k in enc.at(i) {
                    write!(out, "\t{k}")?;
                }
                writeln!(out)?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let learner = args
        .get(1)
        .ok_or("usage: many_tags LEARNER [FILE] [EPOCHS]")?;
    let file = args
        .get(2)
        .map_or("/work/data/pku1998-pos/199801.txt", String::as_str);
    let epochs: usize = args.get(3).map_or(Ok(20), |e| e.parse())?;
    // One thread for everything (the encoding runs on rayon's global pool).
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()?;
    let (train, test) = read_word_tagged(file, '/')?.split_every(10)?;
    if learner == "dump" {
        return dump(&train, &test);
    }
    let params = params(learner, epochs)?;
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let prepared = params.prepare(&train)?;
    let prepare_seconds = started.elapsed().as_secs_f64();
    let prepare_peak = peak_mb();
    let (started, cpu_prepared) = (Instant::now(), cpu_seconds());
    let model = params.fit(&prepared)?;
    let train_seconds = started.elapsed().as_secs_f64();
    let train_cpu = cpu_seconds() - cpu_prepared;
    let prepare_cpu = cpu_prepared - cpu;
    let accuracy = 100.0 * model.evaluate_lenient(&test)?.token_accuracy;
    println!(
        "| {learner} | {} | {} | {} | {} | {prepare_seconds:.1} ({prepare_cpu:.1}) | \
         {train_seconds:.1} ({train_cpu:.1}) | {:.2} | {prepare_peak:.0} / {:.0} |",
        prepared.len(),
        prepared.n_tokens(),
        prepared.features().len(),
        prepared.tags().len(),
        accuracy,
        peak_mb(),
    );
    Ok(())
}
