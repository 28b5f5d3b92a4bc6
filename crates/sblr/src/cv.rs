//! Cross-validation (k-fold, leave-one-out) and grid search, run in parallel (rayon), and
//! the paper's model-selection protocol (Sec. 8.1.1): tune the rank `r` without
//! penalties, then the `(mu1, mu2, nu1, nu2)` grid at that rank.
//!
//! Each training and test fold is materialized once with [`MatrixDataset::subset`] (a copy
//! of the fold's samples: `(k - 1) / k` of the data per training fold) and shared by every
//! candidate; the fits themselves never copy their data.

use bl_core::data::{KFold, LeaveOneOut, MatrixDataset};
use bl_core::{Fit, Predict};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Result, SblrError};
use crate::ova::OneVsAll;
use crate::params::SblrParams;
use bl_core::error::build::numerical;

/// How to split the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CvStrategy {
    /// Stratified shuffled k-fold with a seed.
    KFold {
        /// Number of folds, `2..=n`.
        k: usize,
        /// Shuffle seed.
        seed: u64,
    },
    /// Leave one sample out, `n` folds.
    LeaveOneOut,
}

/// Materialized `(train, test)` folds.
#[derive(Debug, Clone)]
pub struct Folds {
    folds: Vec<(MatrixDataset, MatrixDataset)>,
}

impl Folds {
    /// Splits `data` by `strategy`. A training fold that misses a class is kept (the
    /// estimator then reports [`SblrError::MissingClass`], which the scoring counts as a
    /// failed fold).
    ///
    /// Every fold holds a copy of all `n` samples (its training and test parts), so the
    /// folds hold `folds x n x s x t` values in all (`n^2 s t` for leave-one-out): that
    /// total is checked against [`bl_core::limits::MAX_ELEMENTS`] before any fold is made.
    ///
    /// # Errors
    /// Invalid `k` or too few samples; `BlError::InvalidParameter` (as `SblrError::Core`)
    /// when the folds would hold more than [`bl_core::limits::MAX_ELEMENTS`] values.
    pub fn new(data: &MatrixDataset, strategy: CvStrategy) -> Result<Self> {
        let n = data.n_samples();
        let (s, t) = data.shape();
        let check = |folds: usize| {
            bl_core::limits::buffer_len(
                "cross-validation folds: folds x n x s x t",
                &[folds, n, s, t],
            )
        };
        let splits: Vec<(Vec<usize>, Vec<usize>)> = match strategy {
            CvStrategy::KFold { k, seed } => {
                let splits = KFold::stratified(data.labels(), k, seed)?;
                check(k)?;
                splits.collect()
            }
            CvStrategy::LeaveOneOut => {
                let splits = LeaveOneOut::new(n)?;
                check(n)?;
                splits.collect()
            }
        };
        let folds = splits
            .into_iter()
            .map(|(train, test)| Ok((data.subset(&train)?, data.subset(&test)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { folds })
    }

    /// The `(train, test)` pairs.
    #[must_use]
    pub fn pairs(&self) -> &[(MatrixDataset, MatrixDataset)] {
        &self.folds
    }
}

/// A fold whose fit or scoring failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldFailure {
    /// Index of the fold.
    pub fold: usize,
    /// The error's message (or why the score was rejected, e.g. a NaN score).
    pub error: String,
}

/// Scores of one candidate over the folds.
///
/// A failed fold is never hidden: its score is `None` and its error is in `failures`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CvScores {
    /// Score on each fold, in fold order; `None` where the fold failed.
    pub per_fold: Vec<Option<f64>>,
    /// Mean over the folds that succeeded (for leave-one-out with accuracy this is the LOO
    /// accuracy); `None` only when every fold failed, which [`cross_val_score`] reports as
    /// [`SblrError::AllFoldsFailed`] instead.
    pub mean: Option<f64>,
    /// The folds that failed, in fold order.
    pub failures: Vec<FoldFailure>,
}

impl CvScores {
    /// Scores from each fold's result; a non-finite score counts as a failure. Returns the
    /// first error too (the scores keep its message).
    fn from_results(results: Vec<Result<f64>>) -> (Self, Option<(usize, SblrError)>) {
        let mut first = None;
        let mut failures = Vec::new();
        let per_fold = results
            .into_iter()
            .enumerate()
            .map(|(fold, r)| {
                let err = match r {
                    Ok(v) if v.is_finite() => return Some(v),
                    Ok(v) => numerical(
                        "cross-validation",
                        format!("the score of fold {fold} is {v}, not a finite number"),
                    ),
                    Err(e) => e,
                };
                failures.push(FoldFailure {
                    fold,
                    error: err.to_string(),
                });
                if first.is_none() {
                    first = Some((fold, err));
                }
                None
            })
            .collect::<Vec<_>>();
        let ok: Vec<f64> = per_fold.iter().flatten().copied().collect();
        let mean = (!ok.is_empty()).then(|| ok.iter().sum::<f64>() / ok.len() as f64);
        (
            Self {
                per_fold,
                mean,
                failures,
            },
            first,
        )
    }

    /// Whether every fold succeeded.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Cross-validated score of one estimator: `fit_score(train, test)` on each fold, in
/// parallel. A fold whose `fit_score` errs (or returns a non-finite score) is recorded in
/// [`CvScores::failures`] and left out of the mean.
///
/// # Errors
/// As [`Folds::new`]; [`SblrError::AllFoldsFailed`] (with the first fold's error) when
/// every fold failed.
pub fn cross_val_score<F>(
    data: &MatrixDataset,
    strategy: CvStrategy,
    fit_score: F,
) -> Result<CvScores>
where
    F: Fn(&MatrixDataset, &MatrixDataset) -> Result<f64> + Sync,
{
    let folds = Folds::new(data, strategy)?;
    let results = folds
        .pairs()
        .par_iter()
        .map(|(train, test)| fit_score(train, test))
        .collect();
    let (scores, first) = CvScores::from_results(results);
    match (scores.mean, first) {
        (None, Some((fold, error))) => Err(SblrError::AllFoldsFailed {
            fits: scores.per_fold.len(),
            fold,
            first: Box::new(error),
        }),
        _ => Ok(scores),
    }
}

/// Result of [`grid_search`]. Deserializing checks that `best` is an index of
/// `candidates` (the error names `GridSearchResult.best`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    try_from = "RawGridSearchResult<P>",
    bound(deserialize = "P: Deserialize<'de>")
)]
pub struct GridSearchResult<P> {
    /// Every candidate with its cross-validated scores, in the order given.
    pub candidates: Vec<(P, CvScores)>,
    /// Index of the best candidate: the largest mean among the candidates with the fewest
    /// failed folds, ties going to the earliest (see [`grid_search`]).
    pub best: usize,
}

/// The serialized form of [`GridSearchResult`], checked by its `TryFrom` on the way in.
#[derive(Deserialize)]
struct RawGridSearchResult<P> {
    candidates: Vec<(P, CvScores)>,
    best: usize,
}

impl<P> TryFrom<RawGridSearchResult<P>> for GridSearchResult<P> {
    type Error = SblrError;

    fn try_from(raw: RawGridSearchResult<P>) -> Result<Self> {
        let n = raw.candidates.len();
        if raw.best >= n {
            return Err(bl_core::error::build::invalid(
                "GridSearchResult.best",
                raw.best,
                format!("an index of the {n} candidates"),
            ));
        }
        Ok(Self {
            candidates: raw.candidates,
            best: raw.best,
        })
    }
}

impl<P> GridSearchResult<P> {
    /// The best candidate and its scores.
    ///
    /// # Panics
    /// When `best` is not an index of `candidates`, which only a value assembled field by
    /// field can have: [`grid_search`] and deserializing give valid ones.
    #[must_use]
    pub fn best(&self) -> (&P, &CvScores) {
        let (p, s) = &self.candidates[self.best];
        (p, s)
    }
}

/// Grid search: every `(candidate, fold)` pair is fitted and scored in parallel; folds are
/// materialized once.
///
/// Failed folds are kept in each candidate's [`CvScores::failures`]. The best candidate is
/// the one with the largest mean among those with the fewest failed folds (a mean over
/// fewer folds is not comparable; with no failure anywhere this is simply the largest
/// mean), ties going to the earliest.
///
/// # Errors
/// [`SblrError::EmptyGrid`] with no candidate; as [`Folds::new`];
/// `BlError::InvalidParameter` (as `SblrError::Core`) when `candidates x folds` exceeds
/// [`bl_core::limits::MAX_ELEMENTS`]; [`SblrError::AllFoldsFailed`] (with the first error) when every fit of every candidate
/// failed.
pub fn grid_search<P, F>(
    data: &MatrixDataset,
    candidates: Vec<P>,
    strategy: CvStrategy,
    fit_score: F,
) -> Result<GridSearchResult<P>>
where
    P: Sync + Send,
    F: Fn(&P, &MatrixDataset, &MatrixDataset) -> Result<f64> + Sync,
{
    if candidates.is_empty() {
        return Err(SblrError::EmptyGrid { axis: "candidates" });
    }
    let folds = Folds::new(data, strategy)?;
    let k = folds.pairs().len();
    bl_core::limits::buffer_len("grid_search: candidates x folds", &[candidates.len(), k])?;
    let results: Vec<Result<f64>> = (0..candidates.len() * k)
        .into_par_iter()
        .map(|job| {
            let (c, f) = (job / k, job % k);
            let (train, test) = &folds.pairs()[f];
            fit_score(&candidates[c], train, test)
        })
        .collect();
    let mut first = None;
    let mut scored = Vec::with_capacity(candidates.len());
    let mut results = results.into_iter();
    for p in candidates {
        let (scores, err) = CvScores::from_results(results.by_ref().take(k).collect());
        if first.is_none() {
            first = err.map(|(f, e)| (scored.len() * k + f, e));
        }
        scored.push((p, scores));
    }
    let mut best: Option<usize> = None;
    for (i, (_, s)) in scored.iter().enumerate() {
        let Some(mean) = s.mean else { continue };
        let better = best.is_none_or(|b| {
            let other = &scored[b].1;
            let (nf, nb) = (s.failures.len(), other.failures.len());
            nf < nb || (nf == nb && other.mean.is_some_and(|m| mean > m))
        });
        if better {
            best = Some(i);
        }
    }
    let Some(best) = best else {
        let (fold, error) = first.unwrap_or((0, numerical("grid_search", "no fold was scored")));
        return Err(SblrError::AllFoldsFailed {
            fits: scored.len() * k,
            fold,
            first: Box::new(error),
        });
    };
    Ok(GridSearchResult {
        candidates: scored,
        best,
    })
}

/// Cartesian product of the four penalty axes, in the order `(mu1, mu2, nu1, nu2)`.
///
/// # Errors
/// [`SblrError::EmptyGrid`] when an axis is empty; `BlError::InvalidParameter` (as
/// `SblrError::Core`) when the grid's `4 x |mu1| x |mu2| x |nu1| x |nu2|` values exceed
/// [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated (checked before allocating).
pub fn penalty_grid(
    mu1: &[f64],
    mu2: &[f64],
    nu1: &[f64],
    nu2: &[f64],
) -> Result<Vec<(f64, f64, f64, f64)>> {
    for (axis, values) in [("mu1", mu1), ("mu2", mu2), ("nu1", nu1), ("nu2", nu2)] {
        if values.is_empty() {
            return Err(SblrError::EmptyGrid { axis });
        }
    }
    const WHAT: &str = "penalty_grid: 4 x |mu1| x |mu2| x |nu1| x |nu2|";
    let dims = [4, mu1.len(), mu2.len(), nu1.len(), nu2.len()];
    bl_core::limits::buffer_len(WHAT, &dims)?;
    let mut out = bl_core::limits::try_with_capacity(WHAT, &dims[1..])?;
    for &a in mu1 {
        for &b in mu2 {
            for &c in nu1 {
                for &d in nu2 {
                    out.push((a, b, c, d));
                }
            }
        }
    }
    Ok(out)
}

/// Test accuracy of `params` fitted on `train`: the binary model when `train` has two
/// classes, one-vs-all otherwise (the paper's multi-class protocol).
///
/// # Errors
/// Any fit or prediction error (e.g. a test set of another sample shape).
pub fn sblr_accuracy(
    params: &SblrParams,
    train: &MatrixDataset,
    test: &MatrixDataset,
) -> Result<f64> {
    let predicted: Vec<usize> = if train.n_classes() == 2 {
        params.fit(train)?.predict(test)?
    } else {
        OneVsAll::new(params.clone()).fit(train)?.predict(test)?
    };
    Ok(bl_core::metrics::accuracy(test.labels(), &predicted)?)
}

/// The outcome of [`paper_protocol`].
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolResult {
    /// Step 1: each rank with the cross-validated accuracy of the unregularized model.
    pub ranks: GridSearchResult<usize>,
    /// Step 2: each penalty tuple at the chosen rank.
    pub penalties: GridSearchResult<(f64, f64, f64, f64)>,
    /// `base` with the chosen rank and penalties.
    pub best: SblrParams,
}

/// The paper's selection protocol (Sec. 8.1.1): choose `r` among `ranks` for the
/// unregularized model (BLR) by cross-validated accuracy, then the penalties among
/// `penalties` at that rank. `base` supplies everything else (solver, init, tolerances).
///
/// # Errors
/// As [`grid_search`].
pub fn paper_protocol(
    data: &MatrixDataset,
    base: &SblrParams,
    ranks: &[usize],
    penalties: Vec<(f64, f64, f64, f64)>,
    strategy: CvStrategy,
) -> Result<ProtocolResult> {
    let rank_search = grid_search(data, ranks.to_vec(), strategy, |&r, train, test| {
        sblr_accuracy(&base.clone().rank(r).unregularized(), train, test)
    })?;
    let r = *rank_search.best().0;
    let pen_search = grid_search(data, penalties, strategy, |&(a, b, c, d), train, test| {
        sblr_accuracy(&base.clone().rank(r).penalties(a, b, c, d), train, test)
    })?;
    let (a, b, c, d) = *pen_search.best().0;
    Ok(ProtocolResult {
        best: base.clone().rank(r).penalties(a, b, c, d),
        ranks: rank_search,
        penalties: pen_search,
    })
}
