//! Trains learners and prints the test F1 after every epoch.
//!
//! Segmentation, on the first `N_SENTENCES` lines of a `char/tag` corpus (every 10th
//! sentence to test):
//! `cargo run --release -p online-bilinear --example segment -- FILE N_SENTENCES EPOCHS [learners]`
//!
//! Chunking, on CoNLL column files (word, part of speech, chunk tag):
//! `cargo run --release -p online-bilinear --example segment -- conll TRAIN TEST EPOCHS [learners]`
//!
//! `learners` is a comma-separated list of `bol`, `bcd`, `sp`, `crf2`, `crf1`, each
//! optionally followed by options: `:avg`, `:zero`, `:R<steps>`, `:C<c>`, `:S<seed>`; bol's
//! [`online_bilinear::Reading`]s `:exact` and `:alg2`; bcd's
//! [`online_bilinear::BcdSolver::Algorithm1`] `:alg1`; `:noshuffle` (the sentences in file
//! order every epoch); `:bias` (the templates plus the bias feature). Example:
//! `bol:alg2:R4,sp:noshuffle`.
use online_bilinear::{Corpus, Fit, ParamGuard, TaggerParams, Template, Templates};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (train, test, epochs, learners, templates) = if args[1] == "conll" {
        let train = online_bilinear::read_conll(&args[2])?;
        let test = online_bilinear::read_conll(&args[3])?;
        (
            train,
            test,
            args[4].parse()?,
            args.get(5),
            Templates::chunking(),
        )
    } else {
        let corpus = online_bilinear::read_char_tagged(&args[1])?;
        let n: usize = args[2].parse()?;
        let (train, test): (Corpus, Corpus) = corpus.head(n).split_every(10)?;
        (
            train,
            test,
            args[3].parse()?,
            args.get(4),
            Templates::segmentation(),
        )
    };
    let learners = learners.cloned().unwrap_or_else(|| "bol,bcd,sp".into());
    println!(
        "train {} sentences {} tokens; test {}",
        train.len(),
        train.n_tokens(),
        test.len()
    );
    for name in learners.split(',') {
        let mut it = name.split(':');
        let learner = it.next().unwrap_or("bol");
        let extra: Vec<&str> = it.collect();
        let mut p = match learner {
            "bol" => TaggerParams::bol(),
            "bcd" => TaggerParams::bcd(),
            "sp" => TaggerParams::sp(),
            "crf2" => TaggerParams::crf_l2(),
            "crf1" => TaggerParams::crf_l1(),
            other => return Err(format!("unknown learner `{other}`").into()),
        }
        .max_iter(epochs)
        .templates(templates.clone());
        for e in &extra {
            match *e {
                "avg" => p = p.averaging(true),
                "zero" => p = p.zero_order(true),
                "exact" => p = p.reading(online_bilinear::Reading::SpectralExact),
                "alg2" => p = p.reading(online_bilinear::Reading::SpectralAlgorithm2),
                "alg1" => p = p.bcd_solver(online_bilinear::BcdSolver::Algorithm1),
                "noshuffle" => p = p.shuffle(false),
                "bias" => {
                    let mut list = vec![Template::Bias];
                    list.extend(templates.as_slice().iter().cloned());
                    p = p.templates(Templates::new(list)?);
                }
                s if s.starts_with('R') => p = p.power_steps(s[1..].parse()?),
                s if s.starts_with('C') => p = p.c(s[1..].parse()?),
                s if s.starts_with('S') => p = p.seed(s[1..].parse()?),
                _ => return Err(format!("unknown option `{e}`").into()),
            }
        }
        let p = p.check()?;
        let prepared = p.prepare(&train)?;
        let model = p.fit(&prepared.with_snapshots(|info, m| {
            let e = m.evaluate_lenient(&test)?;
            println!(
                "  {name} epoch {} train-err {:.4} test-F1 {:.4} ({:.2}s)",
                info.epoch,
                info.token_errors as f64 / info.tokens as f64,
                e.f1(),
                info.seconds
            );
            Ok(())
        }))?;
        let e = model.evaluate_lenient(&test)?;
        println!(
            "{name}: F1 {:.4} LER {:.4} time {:.2}s features {}",
            e.f1(),
            e.label_error_rate,
            model.train_seconds(),
            model.n_features()
        );
    }
    Ok(())
}
