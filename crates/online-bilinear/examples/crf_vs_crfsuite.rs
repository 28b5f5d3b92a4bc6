//! The Rust CRF against CRFsuite on the same encoded data, in one run: test F1,
//! iterations, wall and CPU time of each.
//!
//! `cargo run --release -p online-bilinear --features crfsuite --example crf_vs_crfsuite --
//! FILE l2|l1 MAX_ITERATIONS [N_SENTENCES|all] [C] [rust|crfsuite|both]`
//!
//! FILE is a `char/tag` corpus (the pku1998 `data.txt`); every 10th sentence is a test
//! sentence (as in `cargo xtask reproduce bol-table1`), features from
//! `Templates::segmentation()` with cutoff 1, `c = C` (default 1). CRFsuite's training log
//! (one block per iteration) is printed as it runs; the CPU time is the process's user +
//! system time over the fit (ours on every thread of rayon's global pool, printed first;
//! CRFsuite on one).
use std::time::Instant;

use online_bilinear::{Corpus, CrfBackend, Fit, Fitted, ParamGuard, TaggerParams};

/// User + system CPU seconds of this process so far (Linux `/proc/self/stat`, 100 ticks/s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses and may contain spaces).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        return Err("usage: crf_vs_crfsuite FILE l2|l1 MAX_ITERATIONS [N_SENTENCES|all] [C] [rust|crfsuite|both]".into());
    }
    let corpus = online_bilinear::read_char_tagged(&args[1])?;
    let corpus = match args.get(4) {
        Some(n) if n != "all" => corpus.head(n.parse()?),
        _ => corpus,
    };
    let c: f64 = args.get(5).map_or(Ok(1.0), |v| v.parse())?;
    let (train, test): (Corpus, Corpus) = corpus.split_every(10)?;
    let base = match args[2].as_str() {
        "l1" => TaggerParams::crf_l1(),
        "l2" => TaggerParams::crf_l2(),
        other => return Err(format!("regularizer `{other}`: expected l1 or l2").into()),
    }
    .c(c)
    .max_iter(args[3].parse()?);
    let prepared = base.check()?.prepare(&train)?;
    println!(
        "train {} sentences, {} tokens; test {} sentences; {} features, {} tags; {} rayon threads",
        train.len(),
        train.n_tokens(),
        test.len(),
        prepared.features().len(),
        prepared.tags().len(),
        rayon::current_num_threads()
    );
    online_bilinear::crf::set_crfsuite_verbose(true);
    let mut rows = Vec::new();
    let backends = match args.get(6).map(String::as_str) {
        Some("rust") => vec![CrfBackend::Rust],
        Some("crfsuite") => vec![CrfBackend::Crfsuite],
        _ => vec![CrfBackend::Rust, CrfBackend::Crfsuite],
    };
    for backend in backends {
        let params = base.clone().crf_backend(backend);
        let (wall, cpu) = (Instant::now(), cpu_seconds());
        let model = params.fit(&prepared)?;
        let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        let e = model.evaluate_lenient(&test)?;
        let iterations = match backend {
            CrfBackend::Rust => model
                .report()
                .trace
                .extra("optimizer_iterations")
                .last()
                .map_or("-".to_string(), |&(_, n)| n.to_string()),
            CrfBackend::Crfsuite => "see its log".to_string(),
        };
        let zeros = model
            .crf_weights()
            .map_or("-".to_string(), |w| w.n_zeros().to_string());
        println!(
            "RESULT {} {}: F1 {:.2}, label error {:.2}%, iterations {iterations}, wall {wall:.1} s, \
             CPU {cpu:.1} s, zero weights {zeros}",
            backend.name(),
            args[2],
            100.0 * e.f1(),
            100.0 * e.label_error_rate,
        );
        rows.push((backend, e.f1(), wall, cpu));
    }
    if let [
        (_, f_ours, w_ours, c_ours),
        (_, f_theirs, w_theirs, c_theirs),
    ] = rows[..]
    {
        println!(
            "SUMMARY {}: F1 ours - CRFsuite = {:+.2}; wall ours / CRFsuite = {:.3}; CPU ours / \
             CRFsuite = {:.3}",
            args[2],
            100.0 * (f_ours - f_theirs),
            w_ours / w_theirs,
            c_ours / c_theirs
        );
    }
    Ok(())
}
