//! `sblr-table2` — [SBLR Table 2, BCI EEG binary] on a substitute: BasicMotions (6 sensor
//! channels x 100 time steps), Badminton vs Walking, the given train/test split (the BCI
//! competition data are not redistributable; see `docs/papers/sblr.md`).
//!
//! LR, sparse LR, BLR and SBLR, each selected on the training set (see `sblr_common`) by
//! leave-one-out cross-validation at paper scale, as Sec. 8.1.1 states (k-fold at the
//! smaller scales), then test accuracy and AUC (Badminton is the positive class), on the
//! given split and re-splits of the pooled samples; the claims are judged by the paired
//! t-test over the splits.

use anyhow::Context as _;
use sblr::cv::CvStrategy;

use super::sblr_common::{
    BLR, Grids, LR, SBLR, TableClaim, basicmotions, compare_methods, kfold, n_splits,
    report_claims, resplits, standardize,
};
use super::{Ctx, Experiment, Scale};
use crate::paper::sblr as paper;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "sblr-table2",
    title: "[SBLR Table 2] binary matrix classification: BasicMotions Badminton vs Walking",
    run,
};

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let raw = basicmotions(ctx)?;
    let split = super::sblr_common::Split {
        train: raw.train.restrict_to_classes(&["Walking", "Badminton"])?,
        test: raw.test.restrict_to_classes(&["Walking", "Badminton"])?,
    };
    let splits = resplits(&split, n_splits(ctx.scale()) - 1, ctx.seed())?;
    let mut runs = Vec::new();
    let mut n_test = Vec::new();
    let mut first = None;
    let mut cv_name = String::new();
    for split in &splits {
        let split = standardize(split)?;
        let (s, t) = split.train.shape();
        let grids = Grids::for_scale(ctx.scale(), s.min(t));
        let cv = if ctx.scale() == Scale::Paper {
            cv_name = "leave-one-out".to_string();
            CvStrategy::LeaveOneOut
        } else {
            cv_name = format!("{}-fold (leave-one-out at paper scale)", grids.folds);
            kfold(&grids, ctx.seed())
        };
        runs.push(compare_methods(
            &split.train,
            &split.test,
            &grids,
            cv,
            false,
        )?);
        n_test.push(split.test.n_samples());
        first.get_or_insert(split);
    }
    let split = first.context("no split")?;
    let (s, t) = split.train.shape();
    let (n_train, n_test0) = split.n_samples();
    ctx.md(&format!(
        "## Table 2 (binary)\n\nThe paper's Table 2 is on BCI competition III data set IVb (118 \
         EEG channels x 100 time slices), which is not redistributable. Substitute: BasicMotions \
         (sktime 1.2.0), Badminton (positive) vs Walking, {n_train} training and {n_test0} test \
         samples of {s} x {t}, entries centred and rows scaled on the training set. Split 0 is \
         the given split; splits 1..{} re-split the pooled samples (stratified, same test \
         fraction). Model selection on each training set by {cv_name} cross-validation, the \
         paper's protocol:\n",
        splits.len() - 1
    ));
    ctx.quote(&paper::PROTOCOL);
    report_claims(
        ctx,
        &runs,
        &n_test,
        &paper::TABLE2,
        &[
            TableClaim {
                quote: &paper::TABLE2_BLR_LR,
                better: BLR,
                than: &[LR],
            },
            TableClaim {
                quote: &paper::TABLE2_SBLR_BLR,
                better: SBLR,
                than: &[BLR],
            },
        ],
    )?;
    Ok(())
}
