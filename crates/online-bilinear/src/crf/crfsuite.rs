//! The CRFsuite backend ([`super::CrfBackend::Crfsuite`]): CRF-L2 by L-BFGS, CRF-L1 by
//! OWL-QN through the CRFsuite binding, on the same feature ids as the online learners (one
//! CRFsuite attribute per active feature, named by its id) with CRFsuite's first-order
//! model `crf1d`. Only with the Cargo feature `crfsuite`; its C library is built with
//! cmake.

use super::CrfJob;
use crate::error::{OblError, Result};
use crate::features::EncodedSentence;
use crate::settings::CrfPenalty;

/// Whether CRFsuite prints its training log ([`super::set_crfsuite_verbose`]).
pub(super) static VERBOSE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

pub(super) fn items(enc: &EncodedSentence) -> Vec<crfsuite::Item> {
    (0..enc.len())
        .map(|i| {
            enc.at(i)
                .iter()
                .map(|k| crfsuite::Attribute::new(k.to_string(), 1.0))
                .collect()
        })
        .collect()
}

fn crf_error(e: crfsuite::CrfError) -> OblError {
    OblError::Crf(e.to_string())
}

/// Trains a CRF and returns the CRFsuite model bytes.
pub(crate) fn train(
    job: &CrfJob,
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
) -> Result<Vec<u8>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    // `select` must come before the first `append`: the binding's data initialisation
    // installs a logging callback on the trainer instance that `select` creates.
    let mut trainer = crfsuite::Trainer::new(VERBOSE.load(Ordering::Relaxed));
    trainer
        .select(crfsuite::Algorithm::LBFGS, crfsuite::GraphicalModel::CRF1D)
        .map_err(crf_error)?;
    let (c1, c2) = match job.penalty {
        CrfPenalty::L1 => (job.c, 0.0),
        CrfPenalty::L2 => (0.0, job.c),
    };
    trainer.set("c1", &c1.to_string()).map_err(crf_error)?;
    trainer.set("c2", &c2.to_string()).map_err(crf_error)?;
    trainer
        .set("max_iterations", &job.iteration.max_iter.to_string())
        .map_err(crf_error)?;
    // CRFsuite's `delta` is the same test as the Rust backend's `tol` (the relative
    // decrease of the objective over the last `period = 10` iterations).
    trainer
        .set("delta", &job.iteration.tol.to_string())
        .map_err(crf_error)?;
    for (enc, y) in encoded.iter().zip(gold) {
        if enc.is_empty() {
            continue;
        }
        let labels: Vec<String> = y.iter().map(usize::to_string).collect();
        trainer.append(&items(enc), &labels, 0).map_err(crf_error)?;
    }
    let path = std::env::temp_dir().join(format!(
        "online-bilinear-crf-{}-{}.crfsuite",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let path_str = path
        .to_str()
        .ok_or_else(|| OblError::Crf(format!("temporary path {path:?} is not UTF-8")))?;
    let trained = trainer.train(path_str, -1).map_err(crf_error);
    let bytes = std::fs::read(&path).map_err(bl_core::error::io_error(&path));
    let _ = std::fs::remove_file(&path);
    trained?;
    Ok(bytes?)
}

/// Tags encoded sentences with CRFsuite model bytes.
pub(crate) fn tag(
    model: &[u8],
    sentences: &[EncodedSentence],
    n_tags: usize,
) -> Result<Vec<Vec<usize>>> {
    let model_handle = crfsuite::Model::from_memory(model).map_err(crf_error)?;
    let mut tagger = model_handle.tagger().map_err(crf_error)?;
    let mut out = Vec::with_capacity(sentences.len());
    for enc in sentences {
        if enc.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let labels = tagger.tag(&items(enc)).map_err(crf_error)?;
        let tags = labels
            .iter()
            .map(|s| {
                s.parse::<usize>()
                    .ok()
                    .filter(|&t| t < n_tags)
                    .ok_or_else(|| OblError::Crf(format!("unexpected label `{s}` from CRFsuite")))
            })
            .collect::<Result<Vec<usize>>>()?;
        out.push(tags);
    }
    Ok(out)
}
