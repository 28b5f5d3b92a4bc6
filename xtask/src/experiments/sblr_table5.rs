//! `sblr-table5` — [SBLR Table 5, UCF videos] on a substitute: JapaneseVowels (12 LPC
//! coefficients x time, 9 speakers), the given split; every series is resampled to 20
//! steps by linear interpolation (the recordings have 7..29 steps). See
//! `docs/papers/sblr.md` for why.

use super::sblr_common::{
    BLR, LR, SBLR, SPARSE_LR, TableClaim, compare_standardized, japanese_vowels, report_claims,
};
use super::{Ctx, Experiment};
use crate::paper::sblr as paper;

/// Steps every series is resampled to.
const LENGTH: usize = 20;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "sblr-table5",
    title: "[SBLR Table 5] time-series classification: JapaneseVowels, 9 speakers",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let mut split = japanese_vowels(ctx, LENGTH)?;
    if ctx.scale() == super::Scale::Smoke {
        // Seconds per experiment: a stratified third of each set.
        for d in [&mut split.train, &mut split.test] {
            let (_, keep) = bl_core::data::stratified_split(d.labels(), 0.34, ctx.seed())?;
            *d = d.subset(&keep)?;
        }
    }
    // One split: five cost over a minute at quick scale (one takes 15 s), so the claim is
    // judged by Wilson intervals on the test set.
    let (split, grids, runs, n_test) = compare_standardized(ctx, std::slice::from_ref(&split))?;
    let (s, t) = split.train.shape();
    ctx.md(
        "## Table 5 (video features over time, one-vs-all)\n\nThe paper's Table 5 is on \
         SIFT-histogram features (400 x 55) of 30 UCF sports videos, 5 classes, scored by \
         6-fold cross-validation:\n",
    );
    ctx.quote(&paper::TABLE5_PROTOCOL);
    let (n_train, n_test0) = split.n_samples();
    let folds = grids.folds;
    ctx.md(&format!(
        "Substitute: JapaneseVowels (sktime 1.2.0), {n_train} training and {n_test0} test samples \
         of {s} x {t} (resampled to {LENGTH} steps), scored on the given test split; model \
         selection by {folds}-fold cross-validation on the training set.\n"
    ));
    report_claims(
        ctx,
        &runs,
        &n_test,
        &paper::TABLE5,
        &[TableClaim {
            quote: &paper::TABLE5_CLAIM,
            better: SBLR,
            than: &[LR, SPARSE_LR, BLR],
        }],
    )?;
    Ok(())
}
