//! `sblr-table3` — [SBLR Table 3, multi-class EEG] substituted by BasicMotions, all 4
//! classes, the given split; one-vs-all for every method (the paper's protocol), plus the
//! multinomial model (Alg. 3) at SBLR's chosen parameters.

use super::sblr_common::{Grids, basicmotions, compare_methods, report_methods, standardize};
use super::{Ctx, Experiment};

/// The experiment.
pub struct SblrTable3;

impl Experiment for SblrTable3 {
    fn id(&self) -> &'static str {
        "sblr-table3"
    }

    fn title(&self) -> &'static str {
        "[SBLR Table 3] multi-class matrix classification: BasicMotions, 4 classes"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let split = standardize(&basicmotions(ctx)?)?;
        let (s, t) = split.train.shape();
        let grids = Grids::for_scale(ctx.scale(), s.min(t));
        let results = compare_methods(&split.train, &split.test, &grids, ctx.seed(), true)?;
        ctx.md(&format!(
            "## Table 3 (multi-class, one-vs-all)\n\nThe paper's Table 3 is on multi-class EEG \
             data; DESIGN.md substitutes BasicMotions (4 classes, {} training and {} test \
             samples of {s} x {t}). The paper's numbers are for its own data and are left \
             empty (—).\n",
            split.train.n_samples(),
            split.test.n_samples()
        ));
        report_methods(ctx, &results, &[])?;
        Ok(())
    }
}
