//! `sblr-table4` — [SBLR Table 4, ALOI objects] substituted by scikit-learn's digits
//! (8 x 8 images, 10 classes), a fixed seeded stratified split (half for testing).

use super::sblr_common::{Grids, compare_methods, digits, report_methods, standardize};
use super::{Ctx, Experiment};

/// The experiment.
pub struct SblrTable4;

impl Experiment for SblrTable4 {
    fn id(&self) -> &'static str {
        "sblr-table4"
    }

    fn title(&self) -> &'static str {
        "[SBLR Table 4] image classification: scikit-learn digits, 8 x 8, 10 classes"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let max_samples = ctx.scale().pick(300, 1000, usize::MAX);
        let split = standardize(&digits(ctx, ctx.seed(), 0.5, max_samples)?)?;
        let grids = Grids::for_scale(ctx.scale(), 8);
        let results = compare_methods(&split.train, &split.test, &grids, ctx.seed(), true)?;
        ctx.md(&format!(
            "## Table 4 (objects as images, one-vs-all)\n\nThe paper's Table 4 is on ALOI \
             object images; DESIGN.md substitutes scikit-learn's digits (1797 images of 8 x 8, \
             10 classes), split in half by a stratified split seeded with the run's seed \
             ({} training, {} test samples at this scale). The paper's numbers are for its \
             own data and are left empty (—).\n",
            split.train.n_samples(),
            split.test.n_samples()
        ));
        report_methods(ctx, &results, &[])?;
        Ok(())
    }
}
