//! `bol-fig1` — [Wu and Sun 2015, Figure 1] word segmentation F1 against the proportion of
//! the training data (10% ... 100%, the first sentences of the training split) for bol,
//! bcd and the structured perceptron, plotted as the offset from the three learners' average
//! as in the paper. People's Daily 1998, every 10th sentence to test; smoke and quick scale
//! read the first 300 and 2000 lines.

use online_bilinear::Templates;

use super::bol_common;
use super::{Ctx, Experiment};

/// The experiment.
pub struct BolFig1;

impl Experiment for BolFig1 {
    fn id(&self) -> &'static str {
        "bol-fig1"
    }

    fn title(&self) -> &'static str {
        "[Bilinear online Fig. 1] segmentation F1 vs training proportion (bol, bcd, sp)"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let scale = ctx.scale();
        let (train, test) = bol_common::pku(ctx, scale.pick(Some(300), Some(2000), None))?;
        let templates = Templates::segmentation();
        let seed = ctx.seed();
        let learners = bol_common::online_learners(scale, seed, &templates);
        ctx.md(&format!(
            "## Figure 1 (segmentation, pku)\n\n{} training sentences at 100%, {} test \
             sentences; T = {}, C = 1, R = 4, seed {}. The paper plots each learner's F1 minus \
             the average of the three; its values are not available offline (—).\n",
            train.len(),
            test.len(),
            bol_common::epochs(scale),
            seed
        ));
        bol_common::run_f1_vs_proportion(ctx, "segmentation (pku)", &train, &test, &learners)?;
        Ok(())
    }
}
