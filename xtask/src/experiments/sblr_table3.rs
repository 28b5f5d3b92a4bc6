//! `sblr-table3` — [SBLR Table 3, multi-class EEG] on a substitute: BasicMotions, all 4
//! classes, the given split and re-splits of the pooled samples (5 splits, 3 at smoke
//! scale; the paper's EEG recordings are not public, see `docs/papers/sblr.md`);
//! one-vs-all for every method (Sec. 8.1.2), plus the multinomial model (Alg. 3) at
//! SBLR's chosen parameters; the claims are judged by the paired t-test over the splits.

use super::sblr_common::{
    BLR, LR, SBLR, TableClaim, basicmotions, compare_standardized, n_splits, report_claims,
    resplits,
};
use super::{Ctx, Experiment};
use crate::paper::sblr as paper;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "sblr-table3",
    title: "[SBLR Table 3] multi-class matrix classification: BasicMotions, 4 classes",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let splits = resplits(&basicmotions(ctx)?, n_splits(ctx.scale()) - 1, ctx.seed())?;
    let (split, grids, runs, n_test) = compare_standardized(ctx, &splits)?;
    let (s, t) = split.train.shape();
    let (n_train, n_test0) = split.n_samples();
    let folds = grids.folds;
    ctx.md(&format!(
        "## Table 3 (multi-class, one-vs-all)\n\nThe paper's Table 3 is on a three-class EEG data \
         set (64 channels, 100 Hz) that is not public. Substitute: BasicMotions (4 classes, \
         {n_train} training and {n_test0} test samples of {s} x {t}; split 0 is the given split, \
         splits 1..{} re-split the pooled samples, stratified). Model selection by \
         {folds}-fold cross-validation on the training set (the paper states leave-one-out only \
         for Table 2).\n",
        splits.len() - 1
    ));
    ctx.quote(&paper::ONE_VS_ALL);
    report_claims(
        ctx,
        &runs,
        &n_test,
        &paper::TABLE3,
        &[
            TableClaim {
                quote: &paper::TABLE3_BLR_LR,
                better: BLR,
                than: &[LR],
            },
            TableClaim {
                quote: &paper::TABLE3_SBLR_BLR,
                better: SBLR,
                than: &[BLR],
            },
        ],
    )?;
    ctx.md(
        "\nThe paper's claim is per stimulus (class); ours are judged on the overall \
         accuracy of the one-vs-all model.\n",
    );
    Ok(())
}
