//! bol's spread over shuffle seeds, and what averaging does to it, beside sp and bcd.
//!
//! `cargo run --release -p online-bilinear --example bol_stability -- CONLL_DIR PKU_FILE
//! [SEEDS] [EPOCHS]`: CoNLL-2000 chunking (`Templates::chunking()`) and the first 3000
//! sentences of a `char/tag` corpus (every 10th a test sentence, `Templates::segmentation()`),
//! shuffle seeds `0..SEEDS` (default 5), EPOCHS default 20. Rows: test F1 (%) mean, standard
//! deviation, min and max over the seeds, for bol (R = 1, 4, 20; C = 0.1, 1, 10), bol with
//! averaging of `alpha` and `beta` separately (the paper, Sec. 4.3, the built-in), bol with
//! averaging of the product `alpha_k beta_k^T` (this file's learner on the crate's
//! `BlockRankOne`), sp and bcd with and without averaging.
mod common;

use online_bilinear::Result as OblResult;

use std::sync::Arc;

use online_bilinear::learner::{
    Learner, LearnerShape, OnlineLearner, OnlineWeights, Snapshot, Training,
};
use online_bilinear::{
    BlockRankOne, BlockUpdate, EncodedSentence, Extension, Fit, LearnerSettings, ParamGuard,
    Setting, TaggerParams, Templates,
};

/// bol whose prediction weights are the average of the per-block products
/// `alpha_k beta_k^T` over all steps (a full `L x (L + 1)` matrix per feature).
struct ProductAveragedBol {
    l: usize,
    c: f64,
    steps: usize,
    state: BlockRankOne,
    delta: BlockUpdate,
    /// `sum_t alpha_k,t beta_k,t^T` up to `mark[k]`, dense `K x L x P` (`w[k, a, b]`).
    sum: Vec<f64>,
    mark: Vec<u64>,
    t: u64,
}

impl ProductAveragedBol {
    /// Brings block `k`'s running sum up to step `t` with its current product.
    fn catch_up(&mut self, k: usize) {
        let (l, p) = (self.l, self.l + 1);
        let span = (self.t - self.mark[k]) as f64;
        if span > 0.0 {
            for a in 0..l {
                for b in 0..p {
                    self.sum[(k * l + a) * p + b] +=
                        span * self.state.alpha_at(k, a) * self.state.beta_at(k, b);
                }
            }
        }
        self.mark[k] = self.t;
    }
}

impl OnlineLearner for ProductAveragedBol {
    fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> OblResult<()> {
        // Refuses a table above the bound and a feature id past the state's blocks.
        self.state.scores(s, out)
    }
    fn update(&mut self, s: &EncodedSentence, gold: &[usize], pred: &[usize]) -> OblResult<()> {
        self.delta.set_delta_phi(s, gold, pred, self.c);
        let touched: Vec<usize> = self.delta.blocks().iter().map(|&k| k as usize).collect();
        for &k in &touched {
            self.catch_up(k);
        }
        self.state.update(&self.delta, self.steps)
    }
    fn record(&mut self) {
        self.t += 1;
    }
    fn snapshot(&self) -> Snapshot {
        let mut copy = Self {
            l: self.l,
            c: self.c,
            steps: self.steps,
            state: self.state.clone(),
            delta: BlockUpdate::new(self.l, self.l + 1),
            sum: self.sum.clone(),
            mark: self.mark.clone(),
            t: self.t,
        };
        for k in 0..self.mark.len() {
            copy.catch_up(k);
        }
        let t = self.t.max(1) as f64;
        Snapshot {
            weights: OnlineWeights::Linear {
                w: copy.sum.iter().map(|x| x / t).collect(),
            },
            zero_order: None,
        }
    }
}

#[derive(Debug)]
struct ProductAveragedBolLearner;

impl Extension for ProductAveragedBolLearner {
    fn name(&self) -> &str {
        "bol, product averaged"
    }
}

impl Learner for ProductAveragedBolLearner {
    fn reads(&self) -> &[Setting] {
        &[Setting::C, Setting::PowerSteps]
    }
    fn start(&self, shape: LearnerShape, settings: &LearnerSettings) -> OblResult<Training> {
        let (k, l) = (shape.n_features, shape.n_tags);
        Ok(Training::Online(Box::new(ProductAveragedBol {
            l,
            c: settings.c,
            steps: settings.power_steps,
            state: BlockRankOne::new(k, l, l + 1, false)?,
            delta: BlockUpdate::new(l, l + 1),
            sum: vec![0.0; k * l * (l + 1)],
            mark: vec![0; k],
            t: 0,
        })))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = common::args(2, "bol_stability CONLL_DIR PKU_FILE [SEEDS] [EPOCHS]")?;
    let seeds: u64 = common::arg_or(&args, 3, 5)?;
    let epochs: usize = common::arg_or(&args, 4, 20)?;
    let chunking = common::conll_chunking(std::path::Path::new(&args[1]))?;
    let pku = common::char_tagged_head(std::path::Path::new(&args[2]), 3000)?;
    type Row = (&'static str, fn() -> TaggerParams);
    let rows: [Row; 11] = [
        ("bol R=4 C=1", TaggerParams::bol),
        ("bol R=1", || TaggerParams::bol().power_steps(1)),
        ("bol R=20", || TaggerParams::bol().power_steps(20)),
        ("bol C=0.1", || TaggerParams::bol().c(0.1)),
        ("bol C=10", || TaggerParams::bol().c(10.0)),
        ("bol + averaging (alpha, beta)", || {
            TaggerParams::bol().averaging(true)
        }),
        ("bol + averaging (product)", || {
            TaggerParams::new(Arc::new(ProductAveragedBolLearner))
        }),
        ("sp", TaggerParams::sp),
        ("sp + averaging", || TaggerParams::sp().averaging(true)),
        ("bcd", TaggerParams::bcd),
        ("bcd + averaging", || TaggerParams::bcd().averaging(true)),
    ];
    println!("| corpus | learner | F1 mean | sd | min | max | seeds |");
    println!("|---|---|---|---|---|---|---|");
    for (name, (train, test), templates) in [
        ("chunking", &chunking, Templates::chunking()),
        ("pku1998 (3000)", &pku, Templates::segmentation()),
    ] {
        let base = TaggerParams::bol().templates(templates).check()?;
        let prepared = base.prepare(train)?;
        for (row, params) in &rows {
            let f1: Vec<f64> = (0..seeds)
                .map(|seed| {
                    // The rows leave the templates unset: the prepared ones are read.
                    let model = params().max_iter(epochs).seed(seed).fit(&prepared)?;
                    Ok(100.0 * model.evaluate_lenient(test)?.f1())
                })
                .collect::<Result<_, online_bilinear::OblError>>()?;
            let n = f1.len() as f64;
            let mean = f1.iter().sum::<f64>() / n;
            let sd =
                (f1.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
            let min = f1.iter().copied().fold(f64::INFINITY, f64::min);
            let max = f1.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            println!("| {name} | {row} | {mean:.2} | {sd:.2} | {min:.2} | {max:.2} | {seeds} |");
        }
    }
    Ok(())
}
