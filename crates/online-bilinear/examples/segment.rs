//! Trains learners on the first sentences of a `char/tag` corpus (every 10th to test) and
//! prints test F1 per epoch.
//! `cargo run --release -p online-bilinear --example segment -- FILE N_SENTENCES EPOCHS [learners]`
//! where `learners` is a comma-separated list of `bol`, `bcd`, `sp`, `crf2`, `crf1`, each
//! optionally followed by `:avg`, `:zero`, `:R<steps>`, `:C<c>`, `:exact` or `:alg2` (bol's
//! [`online_bilinear::Reading`]s), `:alg1` (bcd's [`online_bilinear::BcdSolver`]), e.g.
//! `bol:alg2:R4`.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let corpus = online_bilinear::read_char_tagged(&args[1])?;
    let n: usize = args[2].parse()?;
    let epochs: usize = args[3].parse()?;
    let learners = args.get(4).cloned().unwrap_or_else(|| "bol,bcd,sp".into());
    let (train, test) = corpus.head(n).split_every(10)?;
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
            "bol" => online_bilinear::TaggerParams::bol(),
            "bcd" => online_bilinear::TaggerParams::bcd(),
            "sp" => online_bilinear::TaggerParams::sp(),
            "crf2" => online_bilinear::TaggerParams::crf_l2(),
            _ => online_bilinear::TaggerParams::crf_l1(),
        }
        .epochs(epochs);
        for e in &extra {
            match *e {
                "avg" => p = p.averaging(true),
                "zero" => p = p.zero_order(true),
                "exact" => p = p.reading(online_bilinear::Reading::SpectralExact),
                "alg2" => p = p.reading(online_bilinear::Reading::SpectralAlgorithm2),
                "alg1" => p = p.bcd_solver(online_bilinear::BcdSolver::Algorithm1),
                s if s.starts_with('R') => p = p.power_steps(s[1..].parse()?),
                s if s.starts_with('C') => p = p.c(s[1..].parse()?),
                _ => {}
            }
        }
        let model = p.fit_with_callback(&train, |info, m| {
            let e = m.evaluate(&test)?;
            println!(
                "  {name} epoch {} train-err {:.4} test-F1 {:.4} ({:.2}s)",
                info.epoch,
                info.token_errors as f64 / info.tokens as f64,
                e.f1(),
                info.seconds
            );
            Ok(())
        })?;
        let e = model.evaluate(&test)?;
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
