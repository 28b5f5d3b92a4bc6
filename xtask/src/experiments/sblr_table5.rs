//! `sblr-table5` — [SBLR Table 5, UCF videos] substituted by JapaneseVowels (12 LPC
//! coefficients x time, 9 speakers), the given split; every series is resampled to 20
//! steps by linear interpolation (the recordings have 7..29 steps).

use super::sblr_common::{Grids, compare_methods, japanese_vowels, report_methods, standardize};
use super::{Ctx, Experiment};

/// Steps every series is resampled to.
const LENGTH: usize = 20;

/// The experiment.
pub struct SblrTable5;

impl Experiment for SblrTable5 {
    fn id(&self) -> &'static str {
        "sblr-table5"
    }

    fn title(&self) -> &'static str {
        "[SBLR Table 5] time-series classification: JapaneseVowels, 9 speakers"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let mut split = japanese_vowels(ctx, LENGTH)?;
        if ctx.scale() == super::Scale::Smoke {
            // Seconds per experiment: a stratified third of each set.
            for d in [&mut split.train, &mut split.test] {
                let (_, keep) = bl_core::data::stratified_split(d.labels(), 0.34, ctx.seed())?;
                *d = d.subset(&keep)?;
            }
        }
        let split = standardize(&split)?;
        let (s, t) = split.train.shape();
        let grids = Grids::for_scale(ctx.scale(), s.min(t));
        let results = compare_methods(&split.train, &split.test, &grids, ctx.seed(), true)?;
        ctx.md(&format!(
            "## Table 5 (video features over time, one-vs-all)\n\nThe paper's Table 5 is on UCF \
             video features; DESIGN.md substitutes JapaneseVowels (sktime 1.2.0), {} training \
             and {} test samples of {s} x {t} (resampled to {LENGTH} steps). The paper's \
             numbers are for its own data and are left empty (—).\n",
            split.train.n_samples(),
            split.test.n_samples()
        ));
        report_methods(ctx, &results, &[])?;
        Ok(())
    }
}
