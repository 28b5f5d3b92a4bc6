//! `sblr-table2` — [SBLR Table 2, BCI EEG binary] on a substitute: BasicMotions (6 sensor
//! channels x 100 time steps), Badminton vs Walking, the given train/test split (the BCI
//! competition data are not redistributable; see `docs/papers/sblr.md`).
//!
//! LR, sparse LR, BLR and SBLR, each selected on the training set (see `sblr_common`) by
//! leave-one-out cross-validation at paper scale, as Sec. 8.1.1 states (k-fold at the
//! smaller scales), then test accuracy and AUC (Badminton is the positive class).

use sblr::cv::CvStrategy;

use super::sblr_common::{
    Grids, TableClaim, basicmotions, compare_methods, kfold, report_claims, standardize,
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
    let split = standardize(&split)?;
    let (s, t) = split.train.shape();
    let grids = Grids::for_scale(ctx.scale(), s.min(t));
    let (cv, cv_name) = if ctx.scale() == Scale::Paper {
        (CvStrategy::LeaveOneOut, "leave-one-out".to_string())
    } else {
        (
            kfold(&grids, ctx.seed()),
            format!("{}-fold (leave-one-out at paper scale)", grids.folds),
        )
    };
    let results = compare_methods(&split.train, &split.test, &grids, cv, false)?;
    let (n_train, n_test) = split.n_samples();
    ctx.md(&format!(
        "## Table 2 (binary)\n\nThe paper's Table 2 is on BCI competition III data set IVb (118 \
         EEG channels x 100 time slices), which is not redistributable. Substitute: BasicMotions \
         (sktime 1.2.0), Badminton (positive) vs Walking, {n_train} training and {n_test} test \
         samples of {s} x {t}, entries centred and rows scaled on the training set. Model \
         selection on the training set by {cv_name} cross-validation, the paper's protocol:\n"
    ));
    ctx.quote(&paper::PROTOCOL);
    report_claims(
        ctx,
        &results,
        &paper::TABLE2,
        &[
            TableClaim {
                quote: &paper::TABLE2_BLR_LR,
                held_if: "BLR > LR in test accuracy",
                holds: |[lr, _, blr, _]| blr > lr,
            },
            TableClaim {
                quote: &paper::TABLE2_SBLR_BLR,
                held_if: "SBLR > BLR in test accuracy",
                holds: |[_, _, blr, sblr]| sblr > blr,
            },
        ],
    )?;
    Ok(())
}
