//! `bol-fig1` — [Wu and Sun 2015, Figure 1] word segmentation F1 against the proportion of
//! the training data (10% ... 100%, the first sentences of the training split) for bol,
//! bcd and the structured perceptron, plotted as the offset from the three learners' average
//! as in the paper. People's Daily 1998 in place of the SIGHAN 2005 pku data, every 10th
//! sentence to test (`docs/papers/bol.md`); smoke and quick scale read the first 300 and
//! 2000 lines. The paper's statements about the figure ([`crate::paper::bol`]) are checked
//! on pku, the only one of its four data sets we have.

use online_bilinear::Templates;

use super::bol_common;
use super::{Ctx, Experiment};
use crate::paper::bol as paper;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "bol-fig1",
    title: "[Bilinear online Fig. 1] segmentation F1 vs training proportion (bol, bcd, sp)",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let scale = ctx.scale();
    let (train, test) = bol_common::pku(ctx, scale.pick(Some(300), Some(2000), None))?;
    let templates = Templates::segmentation();
    let seed = ctx.seed();
    let learners = bol_common::online_learners(scale, seed, &templates);
    ctx.md(&format!(
        "## Figure 1 (segmentation, pku)\n\n{} training sentences at 100%, {} test \
         sentences (People's Daily 1998, every 10th sentence to test, in place of the \
         SIGHAN 2005 pku data: docs/papers/bol.md); T = {}, C = {}, R = {}, seed {}; no \
         averaging, no 0-order features, as in the paper's segmentation runs. The paper \
         prints no numbers for this figure; it plots, for pku, msr, cityu and as:\n",
        train.len(),
        test.len(),
        bol_common::epochs(scale),
        paper::C,
        paper::R,
        seed
    ));
    ctx.quote(&paper::FIG1_CAPTION);
    ctx.md("Its statements, checked below on pku with the paper's meaning of \"better\":\n");
    ctx.quote(&paper::FIG1_BEST);
    ctx.quote(&paper::FIG1_SMALL);
    ctx.quote(&paper::FIG1_BETTER);
    let rows =
        bol_common::run_f1_vs_proportion(ctx, "segmentation (pku)", &train, &test, &learners)?;
    let names: Vec<&str> = learners.iter().map(|(n, _)| *n).collect();
    bol_common::check_bol_best(ctx, &paper::FIG1_BEST, &names, &rows);
    bol_common::check_small_advantage(ctx, &paper::FIG1_SMALL, &rows);
    Ok(())
}
