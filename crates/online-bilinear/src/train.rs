//! The training loop of the online learners, shared by every [`OnlineLearner`].
//!
//! One epoch per iteration of [`bl_core::engine::run`]: for each epoch, visit the training
//! sentences (in a seeded random order when `shuffle` is on), decode with the current
//! parameters, and on a mistake (`y_hat != y`) apply the learner's update built from
//! `DeltaPhi = Phi(x, y) - Phi(x, y_hat)`; after each sentence the current parameters enter
//! the running averages. The update rules are in [`crate::learner`].
//!
//! Each epoch reports to the engine the objective `token_errors / tokens` (the online
//! training error of the epoch's first pass) and the change `mistakes / sentences` (the
//! fraction of sentences that caused an update), with the extras `mistakes`,
//! `token_errors`, `tokens` and `train_seconds`. The run stops after `max_iter` epochs, at
//! the time limit, or earlier ([`bl_core::engine::TerminationReason::Converged`]) after an
//! epoch whose change is at most `tol`: with the default `tol = 0`, an epoch in which every
//! training sentence was decoded correctly, so no update was made and the next epoch would
//! decode them all with the same parameters again.

use std::time::Instant;

use bl_core::engine::{FitReport, IterationParams, Observer, Progress};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::features::EncodedSentence;
use crate::learner::OnlineLearner;

/// What happened in one training epoch. The counts are those of the epoch's first pass
/// over the data (bcd makes two passes per epoch). For a CRF the one epoch is the
/// optimizer's run: `mistakes` is 0 and `token_errors` are the trained model's on the
/// training data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EpochInfo {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Sentences decoded wrongly during the epoch (each caused an update).
    pub mistakes: usize,
    /// Tokens decoded wrongly during the epoch (online training error).
    pub token_errors: usize,
    /// Tokens visited during the epoch.
    pub tokens: usize,
    /// Training time so far, in seconds (callbacks excluded).
    pub seconds: f64,
}

/// The per-epoch hook of [`run_online`]: the epoch's info and the learner (to snapshot).
pub(crate) type EpochHook<'a> = dyn FnMut(&EpochInfo, &dyn OnlineLearner) -> Result<()> + 'a;

/// The training data of a run: encoded sentences, their gold tag indices, the tag count.
pub(crate) struct Examples<'a> {
    pub(crate) encoded: &'a [EncodedSentence],
    pub(crate) gold: &'a [Vec<usize>],
    pub(crate) n_tags: usize,
}

/// Runs the online loop on the engine, one epoch per iteration, with the budget,
/// tolerance, time limit and tracing of `rule`; visits the sentences in a fresh random
/// order per pass (seeded by `seed`) when `shuffle` is on. `on_epoch` receives each
/// epoch's info and the learner; its time is not counted in `train_seconds`.
pub(crate) fn run_online(
    learner: &mut dyn OnlineLearner,
    data: &Examples<'_>,
    (rule, shuffle, seed): (&IterationParams, bool, u64),
    observers: &mut [&mut dyn Observer],
    on_epoch: &mut EpochHook<'_>,
) -> Result<FitReport> {
    let encoded = data.encoded;
    let mut visit = Visit {
        order: (0..encoded.len()).collect(),
        rng: bl_core::random::seeded_rng(seed),
        shuffle,
    };
    let mut buffers = Buffers::default();
    let mut elapsed = 0.0;
    bl_core::engine::run(rule, observers, |epoch| {
        let started = Instant::now();
        let (mistakes, token_errors, tokens) =
            run_epoch(learner, data, epoch, &mut visit, &mut buffers)?;
        elapsed += started.elapsed().as_secs_f64();
        let info = EpochInfo {
            epoch,
            mistakes,
            token_errors,
            tokens,
            seconds: elapsed,
        };
        on_epoch(&info, &*learner)?;
        let sentences = encoded.iter().filter(|e| !e.is_empty()).count().max(1);
        Ok(Progress::new(
            token_errors as f64 / tokens.max(1) as f64,
            mistakes as f64 / sentences as f64,
        )
        .with("mistakes", mistakes as f64)
        .with("token_errors", token_errors as f64)
        .with("tokens", tokens as f64)
        .with("train_seconds", elapsed))
    })
}

/// The order in which a run visits the sentences and its random stream: reshuffled before
/// every pass when `shuffle` is on.
pub(crate) struct Visit {
    pub(crate) order: Vec<usize>,
    pub(crate) rng: bl_core::random::Rng,
    pub(crate) shuffle: bool,
}

/// The buffers of the decode-and-update loop, reused across sentences and epochs.
#[derive(Default)]
pub(crate) struct Buffers {
    scores: Vec<f64>,
    ws: crate::viterbi::ViterbiWorkspace,
    pred: Vec<usize>,
}

/// Epoch `epoch` (from 1) of the online loop: the learner's passes over `data` in
/// `visit`'s order; each sentence is decoded and, when mistaken, learned from, and then
/// enters the learner's running averages. Returns the first pass's mistaken sentences,
/// token errors and tokens.
pub(crate) fn run_epoch(
    learner: &mut dyn OnlineLearner,
    data: &Examples<'_>,
    epoch: usize,
    visit: &mut Visit,
    buffers: &mut Buffers,
) -> Result<(usize, usize, usize)> {
    let Buffers { scores, ws, pred } = buffers;
    let passes = learner.passes_per_epoch().max(1);
    let (mut mistakes, mut token_errors, mut tokens) = (0, 0, 0);
    for pass in 0..passes {
        learner.begin_pass((epoch - 1) * passes + pass);
        if visit.shuffle {
            visit.order.shuffle(&mut visit.rng);
        }
        for &s in &visit.order {
            let (enc, y) = (&data.encoded[s], &data.gold[s]);
            if enc.is_empty() {
                continue;
            }
            crate::viterbi::checked_table_len(Some(s), enc.len(), data.n_tags)?;
            pred.clear();
            pred.resize(enc.len(), 0);
            learner.decode(enc, data.n_tags, scores, ws, pred)?;
            let errors = y.iter().zip(pred.iter()).filter(|(a, b)| a != b).count();
            if pass == 0 {
                tokens += y.len();
                token_errors += errors;
                mistakes += usize::from(errors > 0);
            }
            if errors > 0 {
                learner.update(enc, y, pred)?;
            }
            learner.record();
        }
    }
    Ok((mistakes, token_errors, tokens))
}
