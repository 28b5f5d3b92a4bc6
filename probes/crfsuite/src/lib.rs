//! CRFsuite beside online-bilinear, on identical features: helpers of the cross-check
//! probes of this crate (`examples/crf_vs_crfsuite.rs`, `examples/online_vs_crfsuite_ap.rs`,
//! `tests/agreement.rs`).
//!
//! CRFsuite reads the feature ids of online-bilinear's [`FeatureDict`](online_bilinear::FeatureDict):
//! each position of an [`EncodedSentence`] becomes one CRFsuite item with one attribute per
//! active feature id, named by the id's decimal string, of value 1 ([`items`]); the labels
//! are the tag indices (positions in [`PreparedCorpus::tags`]) as decimal strings. Its model
//! is CRFsuite's first-order `crf1d`: (attribute, label) state features seen in training
//! and label transitions, the model of online-bilinear's Rust CRF.
//!
//! Only online-bilinear's public API is used. CRFsuite is a reference library: it is a
//! dependency of this probe crate, never of a workspace crate.

use std::error::Error;
use std::sync::atomic::{AtomicUsize, Ordering};

use online_bilinear::metrics::evaluate_as;
use online_bilinear::{Corpus, CrfPenalty, EncodedSentence, Evaluation, PreparedCorpus, TagScheme};

/// The error of the helpers: CRFsuite's, online-bilinear's, I/O, or a message.
pub type ProbeError = Box<dyn Error>;

/// CRFsuite's items of an encoded sentence: at each position one attribute per active
/// feature id, named by the id's decimal string, with value 1.
pub fn items(enc: &EncodedSentence) -> Vec<crfsuite::Item> {
    (0..enc.len())
        .map(|i| {
            enc.at(i)
                .iter()
                .map(|k| crfsuite::Attribute::new(k.to_string(), 1.0))
                .collect()
        })
        .collect()
}

/// What [`train_crf`] gives CRFsuite's L-BFGS trainer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrfSettings {
    /// L2 (CRFsuite's `c2 = c`, `c1 = 0`; L-BFGS) or L1 (`c1 = c`, `c2 = 0`; OWL-QN).
    pub penalty: CrfPenalty,
    /// The regularization weight.
    pub c: f64,
    /// CRFsuite's `max_iterations`.
    pub max_iterations: usize,
    /// CRFsuite's `delta`: stop when the relative decrease of the objective over the last
    /// `period = 10` iterations falls to it (the Rust CRF's `tol`, same test).
    pub delta: f64,
    /// Whether CRFsuite prints its training log (one block per iteration) to stdout.
    pub verbose: bool,
}

impl CrfSettings {
    /// `penalty` and `c` with the Rust CRF's defaults: 100 iterations (CRFsuite's own
    /// default is `2^31 - 1`) and `delta = 1e-5` (CRFsuite's too); quiet.
    pub fn new(penalty: CrfPenalty, c: f64) -> Self {
        Self {
            penalty,
            c,
            max_iterations: 100,
            delta: 1e-5,
            verbose: false,
        }
    }
}

/// Checks that `gold` has one tag sequence per sentence, of the sentence's length.
fn check_lengths(encoded: &[EncodedSentence], gold: &[Vec<usize>]) -> Result<(), ProbeError> {
    if encoded.len() != gold.len() {
        return Err(format!(
            "{} sentences but {} gold tag sequences",
            encoded.len(),
            gold.len()
        )
        .into());
    }
    if let Some((s, (enc, y))) = encoded
        .iter()
        .zip(gold)
        .enumerate()
        .find(|(_, (enc, y))| enc.len() != y.len())
    {
        return Err(format!(
            "sentence {s}: {} positions but {} gold tags",
            enc.len(),
            y.len()
        )
        .into());
    }
    Ok(())
}

/// Trains CRFsuite's `crf1d` by L-BFGS (OWL-QN for L1) on encoded sentences and their gold
/// tag indices, and returns the model file's bytes (for [`tag`] and
/// [`crfsuite::Model::from_memory`]). Empty sentences are skipped; the labels are the tag
/// indices as decimal strings. The model is written to a file of the temporary directory,
/// read back and removed.
///
/// # Errors
/// Mismatched lengths of `encoded` and `gold`; CRFsuite's errors (e.g. no sentence to train
/// on); I/O errors of the temporary file.
pub fn train_crf(
    encoded: &[EncodedSentence],
    gold: &[Vec<usize>],
    settings: &CrfSettings,
) -> Result<Vec<u8>, ProbeError> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    check_lengths(encoded, gold)?;
    // `select` must come before the first `append`: the binding's data initialisation
    // installs a logging callback on the trainer instance that `select` creates.
    let mut trainer = crfsuite::Trainer::new(settings.verbose);
    trainer.select(crfsuite::Algorithm::LBFGS, crfsuite::GraphicalModel::CRF1D)?;
    let (c1, c2) = match settings.penalty {
        CrfPenalty::L1 => (settings.c, 0.0),
        CrfPenalty::L2 => (0.0, settings.c),
    };
    trainer.set("c1", &c1.to_string())?;
    trainer.set("c2", &c2.to_string())?;
    trainer.set("max_iterations", &settings.max_iterations.to_string())?;
    trainer.set("delta", &settings.delta.to_string())?;
    for (enc, y) in encoded.iter().zip(gold) {
        if enc.is_empty() {
            continue;
        }
        let labels: Vec<String> = y.iter().map(usize::to_string).collect();
        trainer.append(&items(enc), &labels, 0)?;
    }
    let path = std::env::temp_dir().join(format!(
        "crfsuite-probe-{}-{}.crfsuite",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let path_str = path
        .to_str()
        .ok_or_else(|| format!("temporary path {path:?} is not UTF-8"))?;
    let trained = trainer.train(path_str, -1);
    let bytes = std::fs::read(&path);
    let _ = std::fs::remove_file(&path);
    trained?;
    Ok(bytes?)
}

/// Tags encoded sentences with CRFsuite model bytes of [`train_crf`]: one path of tag
/// indices per sentence (an empty path for an empty sentence).
///
/// # Errors
/// CRFsuite's errors (e.g. bytes that are not a model); a label that is not a tag index
/// below `n_tags`.
pub fn tag(
    model: &[u8],
    encoded: &[EncodedSentence],
    n_tags: usize,
) -> Result<Vec<Vec<usize>>, ProbeError> {
    let model = crfsuite::Model::from_memory(model)?;
    let mut tagger = model.tagger()?;
    let mut out = Vec::with_capacity(encoded.len());
    for enc in encoded {
        if enc.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let labels = tagger.tag(&items(enc))?;
        let path = labels
            .iter()
            .map(|s| {
                s.parse::<usize>()
                    .ok()
                    .filter(|&t| t < n_tags)
                    .ok_or_else(|| format!("unexpected label `{s}` from CRFsuite ({n_tags} tags)"))
            })
            .collect::<Result<Vec<usize>, String>>()?;
        out.push(path);
    }
    Ok(out)
}

/// Trains CRFsuite on the training sentences of `prepared`, encoded with its features,
/// their tags as indices in its tag set ([`PreparedCorpus::encoded`],
/// [`PreparedCorpus::gold`]).
///
/// # Errors
/// As [`train_crf`].
pub fn train_crf_prepared(
    prepared: &PreparedCorpus,
    settings: &CrfSettings,
) -> Result<Vec<u8>, ProbeError> {
    train_crf(prepared.encoded(), prepared.gold(), settings)
}

/// Scores CRFsuite's paths (tag indices in `tags`) on a tagged test corpus as
/// [`FittedTagger::evaluate_lenient`](online_bilinear::FittedTagger::evaluate_lenient)
/// scores a fitted model's: the tag scheme detected from the model's tag set `tags`, gold
/// tags as they are (a gold tag outside `tags` is a label error and its span missed).
///
/// # Errors
/// An empty test corpus (no token); a path index outside `tags`; the errors of
/// [`evaluate_as`] (mismatched lengths).
pub fn evaluate_paths(
    tags: &[String],
    test: &Corpus,
    paths: &[Vec<usize>],
) -> Result<Evaluation, ProbeError> {
    if test.n_tokens() == 0 {
        return Err("empty test corpus".into());
    }
    let predicted = paths
        .iter()
        .map(|p| {
            p.iter()
                .map(|&t| {
                    tags.get(t)
                        .cloned()
                        .ok_or_else(|| format!("tag index {t} of {} tags", tags.len()))
                })
                .collect::<Result<Vec<String>, String>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let gold: Vec<Vec<String>> = test.sentences().iter().map(|s| s.tags().to_vec()).collect();
    Ok(evaluate_as(TagScheme::detect(tags), &gold, &predicted)?)
}

/// Tags the test corpus `test` with CRFsuite model bytes (sentences encoded with the
/// prepared features) and scores the paths with [`evaluate_paths`].
///
/// # Errors
/// As [`FeatureDict::encode_corpus`](online_bilinear::FeatureDict::encode_corpus), [`tag`]
/// and [`evaluate_paths`].
pub fn evaluate_crf(
    model: &[u8],
    prepared: &PreparedCorpus,
    test: &Corpus,
) -> Result<Evaluation, ProbeError> {
    let encoded = prepared.features().encode_corpus(test)?;
    let paths = tag(model, &encoded, prepared.tags().len())?;
    evaluate_paths(prepared.tags(), test, &paths)
}
