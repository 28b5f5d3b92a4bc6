//! `bol-fig1` — [Wu and Sun 2015, Figure 1] word segmentation F1 against the proportion of
//! the training data (10% ... 100%, the first sentences of the training split) for bol,
//! bcd and the structured perceptron, plotted as the offset from the three learners' average
//! as in the paper, beside bol and bcd as printed (Algorithm 2 with eqs. (9)-(12),
//! Algorithm 1 with eq. (7)). Every learner runs with several shuffle seeds; the paper's
//! statements about the figure ([`crate::paper::bol`]) are judged by paired tests over the
//! seeds, once for our readings and once for the algorithms as printed. People's Daily 1998
//! in place of the SIGHAN 2005 pku data, every 10th sentence to test
//! (`docs/papers/bol.md`); smoke and quick scale read the first 300 and 1000 lines.

use online_bilinear::Templates;

use super::bol_common::{self, GROUPS};
use super::{Ctx, Experiment};
use crate::paper::bol as paper;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "bol-fig1",
    title: "[Bilinear online Fig. 1] segmentation F1 vs training proportion (bol, bcd, sp; bol and bcd as printed)",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let scale = ctx.scale();
    let (train, test) = bol_common::pku(ctx, scale.pick(Some(300), Some(1000), None))?;
    let templates = Templates::segmentation();
    let seeds = bol_common::seeds(ctx);
    ctx.md(&format!(
        "## Figure 1 (segmentation, pku)\n\n{} training sentences at 100%, {} test \
         sentences (People's Daily 1998, every 10th sentence to test, in place of the \
         SIGHAN 2005 pku data: docs/papers/bol.md); T = {}, C = {}, R = {}, shuffle seeds \
         {} (F1 below: the mean over the seeds); no averaging, no 0-order features, as in \
         the paper's segmentation runs. Rows \"bol as printed\" and \"bcd as printed\" run \
         Algorithm 2 with eqs. (9)-(12) and Algorithm 1 with eq. (7) as the paper prints \
         them; \"bol\" and \"bcd\" are our readings (docs/papers/bol.md). The paper prints \
         no numbers for this figure; it plots, for pku, msr, cityu and as:\n",
        train.len(),
        test.len(),
        bol_common::epochs(scale),
        paper::C,
        paper::R,
        bol_common::seeds_text(&seeds),
    ));
    ctx.quote(&paper::FIG1_CAPTION);
    ctx.md(
        "Its statements, checked below on pku with the paper's meaning of \"better\" (a \
         point counts as better when a paired t-test over the seeds says so at p < 0.05; \
         a tie or an undecided point is not better), for our readings and for the \
         algorithms as printed:\n",
    );
    ctx.quote(&paper::FIG1_BEST);
    ctx.quote(&paper::FIG1_SMALL);
    ctx.quote(&paper::FIG1_BETTER);
    let grid = bol_common::run_f1_vs_proportion(
        ctx,
        "segmentation (pku)",
        &train,
        &test,
        &templates,
        |p| p,
    )?;
    for group in GROUPS {
        bol_common::check_bol_best(ctx, &paper::FIG1_BEST, group, &grid);
        bol_common::check_small_advantage(ctx, &paper::FIG1_SMALL, group, &grid);
    }
    Ok(())
}
