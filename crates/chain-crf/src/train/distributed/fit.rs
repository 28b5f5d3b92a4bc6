//! The fits (module docs of [`super`]): the sources of the shards' sums and epochs
//! ([`GradientSource`], [`EpochSource`]) and the drivers [`fit_lbfgs`] and
//! [`fit_online`].

use super::mixing::{EpochResult, OnlineState, mix};
use super::plan::Plan;
use super::shard::Shard;
use crate::data::Dataset;
use crate::error::Result;
use crate::model::Model;
use crate::train::online::{EpochRunner, EpochStats, EpsilonTest, Weights, drive};
use crate::train::{Algorithm, CrfValidParams, FittedCrf, Job, lbfgs};
use bl_core::engine::Observer;
use bl_core::error::build::{invalid, shape_mismatch as mismatch};

/// The negative log-likelihood summed over every shard, with its gradient: what the
/// client's optimizer minimizes (plus the penalties it adds itself).
pub trait GradientSource: Send {
    /// The loss at `w`, its gradient written into `grad` (one entry per feature).
    ///
    /// # Errors
    /// Whatever stops the sum (a lost worker, bad bytes); it ends the fit.
    fn loss_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64>;
}

/// Shards in this process, summed in order.
impl GradientSource for Vec<Shard> {
    fn loss_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        grad.fill(0.0);
        let mut part = vec![0.0; grad.len()];
        let mut loss = 0.0;
        for shard in self.iter() {
            loss += shard.loss_and_gradient(w, &mut part)?;
            for (g, p) in grad.iter_mut().zip(&part) {
                *g += p;
            }
        }
        Ok(loss)
    }
}

/// One epoch on every shard from a mixed state: what [`fit_online`] mixes.
pub trait EpochSource {
    /// Every shard's [`Shard::epoch`] from `state`, in shard order.
    ///
    /// # Errors
    /// Whatever stops the epoch; it ends the fit.
    fn epoch(&mut self, algorithm: &Algorithm, state: &OnlineState) -> Result<Vec<EpochResult>>;
}

/// Shards in this process, one after the other.
impl EpochSource for Vec<Shard> {
    fn epoch(&mut self, algorithm: &Algorithm, state: &OnlineState) -> Result<Vec<EpochResult>> {
        self.iter_mut().map(|s| s.epoch(algorithm, state)).collect()
    }
}

/// The job of a distributed fit: the plan's features, the params' knobs, `holdout`.
fn job<'a>(
    params: &CrfValidParams,
    plan: &'a Plan,
    holdout: Option<&'a Dataset>,
    empty: &'a Dataset,
) -> Result<Job<'a>> {
    if params.features() != &plan.options {
        return Err(mismatch(
            "distributed fit: feature options",
            "the options the plan was merged with",
            "others",
        ));
    }
    if let Some(h) = holdout
        && (h.labels().names() != plan.labels.names()
            || h.attributes().len() != plan.attributes.len())
    {
        return Err(mismatch(
            "held-out data: dictionaries",
            "the plan's (DatasetBuilder::frozen)",
            "others",
        ));
    }
    Ok(Job {
        // The trainers' loops read the training data only through the sources.
        data: empty,
        features: &plan.features,
        iteration: *params.iteration(),
        holdout,
        seed: params.seed(),
        log: Vec::new(),
        start: std::time::Instant::now(),
        pool: params.iteration().pool()?,
    })
}

fn fitted(
    plan: &Plan,
    params: &CrfValidParams,
    weights: Vec<f64>,
    job: Job<'_>,
    report: bl_core::FitReport,
) -> Result<FittedCrf> {
    let model = Model::new(
        plan.attributes.clone(),
        plan.labels.clone(),
        plan.features.clone(),
        weights,
    )?;
    Ok(FittedCrf {
        model,
        report,
        log: job.log,
        algorithm: params.algorithm().name(),
        feature_generation: None,
    })
}

/// Fits `lbfgs` on the shards behind `source` (module docs): the optimizer, its stopping
/// rule and log are the one-machine fit's; `holdout` (encoded with the plan's
/// dictionaries) is scored on the client after every iteration.
///
/// # Errors
/// `InvalidParameter` when `params`' algorithm is not `lbfgs`; `ShapeMismatch` when the
/// plan was merged with other feature options or `holdout` has other dictionaries; the
/// first error of `source`; the optimizer's (a non-finite objective).
pub fn fit_lbfgs(
    params: &CrfValidParams,
    plan: &Plan,
    source: &mut dyn GradientSource,
    holdout: Option<&Dataset>,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedCrf> {
    let Algorithm::Lbfgs(s) = params.algorithm() else {
        return Err(invalid("algorithm", params.algorithm().name(), "lbfgs"));
    };
    let empty = Dataset::default();
    let mut job = job(params, plan, holdout, &empty)?;
    let trained = lbfgs::optimize(s, &mut job, observers, &mut |w, g| {
        source.loss_and_gradient(w, g)
    })?;
    fitted(plan, params, trained.weights, job, trained.report)
}

/// Mixes the shards' epochs (module docs) for the one-machine epoch loop.
struct Mixing<'s> {
    source: &'s mut dyn EpochSource,
    algorithm: Algorithm,
    state: OnlineState,
}

impl EpochRunner for Mixing<'_> {
    fn run_epoch(&mut self) -> Result<EpochStats> {
        let results = self.source.epoch(&self.algorithm, &self.state)?;
        let mut stats = EpochStats::default();
        for r in &results {
            stats.loss += r.loss;
            stats.errors += r.errors as usize;
            stats.mistakes += r.mistakes as usize;
        }
        self.state = mix(&self.state, &results)?;
        Ok(stats)
    }

    fn weights(&self) -> &Weights {
        &self.state.weights
    }
}

/// Fits `ap`, `pa` or `arow` by iterative parameter mixing over the shards behind
/// `source` (module docs): the epoch loop, stopping rule (the epoch's loss summed over
/// the shards, divided by all sequences, below `epsilon` for `ap` and `pa`, at most
/// `epsilon` for `arow`) and log are the one-machine fit's.
///
/// # Errors
/// `InvalidParameter` for another algorithm; `ShapeMismatch` as [`fit_lbfgs`]; the first
/// error of `source` or of [`mix`].
pub fn fit_online(
    params: &CrfValidParams,
    plan: &Plan,
    source: &mut dyn EpochSource,
    holdout: Option<&Dataset>,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedCrf> {
    let algorithm = params.algorithm().clone();
    let test = EpsilonTest::of(&algorithm);
    let state = OnlineState::initial(&algorithm, plan.features.len())?;
    let empty = Dataset::default();
    let mut job = job(params, plan, holdout, &empty)?;
    let mut mixing = Mixing {
        source,
        algorithm,
        state,
    };
    let report = drive(&mut job, observers, plan.sequences, &mut mixing, test)?;
    let weights = mixing.state.weights.into_model_weights();
    fitted(plan, params, weights, job, report)
}
