//! The Rust CRF against CRFsuite on the same encoded data, in one run: test F1,
//! iterations, wall and CPU time of each.
//!
//! `cargo run --release --example crf_vs_crfsuite -- FILE l2|l1 MAX_ITERATIONS
//! [N_SENTENCES|all] [C] [rust|crfsuite|both]` in `probes/crfsuite` (from the workspace root:
//! `cargo run --release --manifest-path probes/crfsuite/Cargo.toml --example crf_vs_crfsuite
//! -- ...`)
//!
//! FILE is a `char/tag` corpus (the pku1998 `data.txt`); every 10th sentence is a test
//! sentence (as in `cargo xtask reproduce bol-table1`), features from
//! `Templates::segmentation()` with cutoff 1, `c = C` (default 1). The Rust side is
//! online-bilinear's CRF fitted on the prepared corpus; the CRFsuite side is this crate's
//! [`crfsuite_probe::train_crf`] on the same feature ids (the training sentences encoded
//! with the prepared features, its `delta` the Rust side's `tol`) and
//! [`crfsuite_probe::tag`], scored as the Rust side's `evaluate_lenient`. CRFsuite's
//! training log (one block per iteration) is printed as it runs; the CPU time is the
//! process's user + system time over the fit (ours on every thread of rayon's global pool,
//! printed first; CRFsuite on one).
use std::time::Instant;

use crfsuite_probe::CrfSettings;
use online_bilinear::{Corpus, CrfPenalty, Fit, Fitted, ParamGuard, TaggerParams};

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

/// Which implementation trains the CRF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// online-bilinear's CRF.
    Rust,
    /// CRFsuite through this crate.
    Crfsuite,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Rust => "rust",
            Side::Crfsuite => "crfsuite",
        }
    }
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
    let (base, penalty) = match args[2].as_str() {
        "l1" => (TaggerParams::crf_l1(), CrfPenalty::L1),
        "l2" => (TaggerParams::crf_l2(), CrfPenalty::L2),
        other => return Err(format!("regularizer `{other}`: expected l1 or l2").into()),
    };
    let base = base.c(c).max_iter(args[3].parse()?);
    let valid = base.check()?;
    let prepared = valid.prepare(&train)?;
    println!(
        "train {} sentences, {} tokens; test {} sentences; {} features, {} tags; {} rayon threads",
        train.len(),
        train.n_tokens(),
        test.len(),
        prepared.features().len(),
        prepared.tags().len(),
        rayon::current_num_threads()
    );
    let settings = CrfSettings {
        penalty,
        c,
        max_iterations: valid.iteration().max_iter,
        delta: valid.iteration().tol,
        verbose: true,
    };
    let mut rows = Vec::new();
    let sides = match args.get(6).map(String::as_str) {
        Some("rust") => vec![Side::Rust],
        Some("crfsuite") => vec![Side::Crfsuite],
        _ => vec![Side::Rust, Side::Crfsuite],
    };
    for side in sides {
        let (e, iterations, zeros, wall, cpu) = match side {
            Side::Rust => {
                let (wall, cpu) = (Instant::now(), cpu_seconds());
                let model = base.clone().fit(&prepared)?;
                let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
                let e = model.evaluate_lenient(&test)?;
                let iterations = model
                    .report()
                    .trace
                    .extra("optimizer_iterations")
                    .last()
                    .map_or("-".to_string(), |&(_, n)| n.to_string());
                let zeros = model
                    .crf_weights()
                    .map_or("-".to_string(), |w| w.n_zeros().to_string());
                (e, iterations, zeros, wall, cpu)
            }
            Side::Crfsuite => {
                // On the prepared corpus's encoding, made before either clock starts.
                let (wall, cpu) = (Instant::now(), cpu_seconds());
                let model = crfsuite_probe::train_crf_prepared(&prepared, &settings)?;
                let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
                let e = crfsuite_probe::evaluate_crf(&model, &prepared, &test)?;
                (e, "see its log".to_string(), "-".to_string(), wall, cpu)
            }
        };
        println!(
            "RESULT {} {}: F1 {:.2}, label error {:.2}%, iterations {iterations}, wall {wall:.1} s, \
             CPU {cpu:.1} s, zero weights {zeros}",
            side.name(),
            args[2],
            100.0 * e.f1(),
            100.0 * e.label_error_rate,
        );
        rows.push((side, e.f1(), wall, cpu));
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
