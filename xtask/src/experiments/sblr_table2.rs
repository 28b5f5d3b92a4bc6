//! `sblr-table2` — [SBLR Table 2, BCI EEG binary] substituted by BasicMotions (6 sensor
//! channels x 100 time steps), Badminton vs Walking, the given train/test split.
//!
//! LR, sparse LR, BLR and SBLR, each selected by cross-validation on the training set
//! (see `sblr_common`), then test accuracy and AUC (Badminton is the positive class).

use super::sblr_common::{Grids, basicmotions, compare_methods, report_methods, standardize};
use super::{Ctx, Experiment};

/// The experiment.
pub struct SblrTable2;

impl Experiment for SblrTable2 {
    fn id(&self) -> &'static str {
        "sblr-table2"
    }

    fn title(&self) -> &'static str {
        "[SBLR Table 2] binary matrix classification: BasicMotions Badminton vs Walking"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let raw = basicmotions(ctx)?;
        let split = super::sblr_common::Split {
            train: raw.train.restrict_to_classes(&["Walking", "Badminton"])?,
            test: raw.test.restrict_to_classes(&["Walking", "Badminton"])?,
        };
        let split = standardize(&split)?;
        let (s, t) = split.train.shape();
        let grids = Grids::for_scale(ctx.scale(), s.min(t));
        let results = compare_methods(&split.train, &split.test, &grids, ctx.seed(), false)?;
        ctx.md(&format!(
            "## Table 2 (binary)\n\nThe paper's Table 2 is on BCI EEG recordings that are not \
             redistributable; DESIGN.md substitutes BasicMotions (sktime 1.2.0), Badminton \
             (positive) vs Walking, {} training and {} test samples of {s} x {t}, entries \
             centred and rows scaled on the training set. The paper's numbers are for its own \
             data, so they are not comparable and the paper column is left empty (—).\n",
            split.train.n_samples(),
            split.test.n_samples()
        ));
        report_methods(ctx, &results, &[])?;
        Ok(())
    }
}
