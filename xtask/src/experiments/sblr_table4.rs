//! `sblr-table4` — [SBLR Table 4, ALOI objects] on a substitute: scikit-learn's digits
//! (8 x 8 images, 10 classes), 5 stratified splits (3 at smoke scale), half for testing,
//! seeded with the run's seed plus the split's number, on a stratified subset of at most
//! 300 (smoke) or 1000 (quick) images, all 1797 at paper scale; the claims are judged by
//! the paired t-test over the splits. See `docs/papers/sblr.md` for why.

use super::sblr_common::{
    BLR, LR, SBLR, SPARSE_LR, TableClaim, compare_standardized, digits, n_splits, report_claims,
};
use super::{Ctx, Experiment};
use crate::paper::sblr as paper;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "sblr-table4",
    title: "[SBLR Table 4] image classification: scikit-learn digits, 8 x 8, 10 classes",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let max_samples = ctx.scale().pick(300, 1000, usize::MAX);
    let splits = (0..n_splits(ctx.scale()))
        .map(|i| digits(ctx, ctx.seed().wrapping_add(i as u64), 0.5, max_samples))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (split, grids, runs, n_test) = compare_standardized(ctx, &splits)?;
    let (n_train, n_test0) = split.n_samples();
    let folds = grids.folds;
    ctx.md(&format!(
        "## Table 4 (objects as images, one-vs-all)\n\nThe paper's Table 4 is on ALOI object \
         images under 72 viewpoints; its split and image size are not stated. Substitute: \
         scikit-learn's digits (1797 images of 8 x 8, 10 classes), split in half by a stratified \
         split seeded with the run's seed plus the split's number, {} splits ({n_train} \
         training, {n_test0} test samples at this scale). Model selection by {folds}-fold cross-validation on the training set.\n",
        splits.len()
    ));
    report_claims(
        ctx,
        &runs,
        &n_test,
        &paper::TABLE4,
        &[
            TableClaim {
                quote: &paper::TABLE4_BILINEAR,
                better: BLR,
                than: &[LR],
            },
            TableClaim {
                quote: &paper::TABLE4_BEST,
                better: SBLR,
                than: &[LR, SPARSE_LR, BLR],
            },
        ],
    )?;
    Ok(())
}
