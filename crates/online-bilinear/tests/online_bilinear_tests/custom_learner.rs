//! The worked example of the plug-in point ([`online_bilinear::Learner`]): learners
//! written outside the crate pass the conformance suite, run through the normal fit, and
//! agree with the built-in learners; every built-in passes the same suite; a learner that
//! breaks the contract fails the suite and gets a typed error from a fit.

use std::sync::Arc;

use crate::common;

use online_bilinear::conformance::{conformance, conformance_with};
use online_bilinear::learner::{
    Learner, LearnerShape, OnlineLearner, OnlineWeights, Snapshot, Training,
};
use online_bilinear::viterbi::score_index;
use online_bilinear::{
    BcdSolver, BuiltIn, EncodedSentence, Extension, FeatureDict, Fit, Fitted, FittedTagger,
    LearnerSettings, OblError, ParamGuard, Reading, Result, Setting, TaggerParams, Templates,
};

/// Linear weights on the matrix features `w[k, a, b]` (current tag `a`, previous `b`).
struct MatrixWeights {
    l: usize,
    w: Vec<f64>,
}

impl MatrixWeights {
    fn new(shape: LearnerShape) -> Self {
        let l = shape.n_tags;
        Self {
            l,
            w: vec![0.0; shape.n_features * l * (l + 1)],
        }
    }

    fn index(&self, k: u32, a: usize, b: usize) -> usize {
        let p = self.l + 1;
        k as usize * self.l * p + a * p + b
    }

    /// The score table of `s`; a feature id without weights (a sentence encoded with
    /// another dictionary) is an error, checked before `out` is touched.
    fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        let l = self.l;
        let n_features = self.w.len() / (l * (l + 1));
        for i in 0..s.len() {
            if let Some(&k) = s.at(i).iter().find(|&&k| k as usize >= n_features) {
                return Err(bl_core::error::invalid(
                    "scores: sentence feature id",
                    format!("{k} at position {i}"),
                    format!("below n_features = {n_features}"),
                )
                .into());
            }
        }
        out.clear();
        out.resize(s.len() * (l + 1) * l, 0.0);
        for i in 0..s.len() {
            let previous = if i == 0 { l..l + 1 } else { 0..l };
            for &k in s.at(i) {
                for b in previous.clone() {
                    for a in 0..l {
                        out[score_index(i, b, a, l)] += self.w[self.index(k, a, b)];
                    }
                }
            }
        }
        Ok(())
    }

    /// `(index, +1 / -1)` of `DeltaPhi = Phi(x, gold) - Phi(x, predicted)`.
    fn delta(&self, s: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Vec<(usize, f64)> {
        let l = self.l;
        let mut out = Vec::new();
        for i in 0..s.len() {
            let (bg, bp) = if i == 0 {
                (l, l)
            } else {
                (gold[i - 1], pred[i - 1])
            };
            if gold[i] == pred[i] && bg == bp {
                continue;
            }
            for &k in s.at(i) {
                out.push((self.index(k, gold[i], bg), 1.0));
                out.push((self.index(k, pred[i], bp), -1.0));
            }
        }
        out
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            weights: OnlineWeights::Linear { w: self.w.clone() },
            zero_order: None,
        }
    }
}

/// The structured perceptron, written here: `w += DeltaPhi`.
struct Perceptron(MatrixWeights);

impl OnlineLearner for Perceptron {
    fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        self.0.scores(s, out)
    }
    fn update(&mut self, s: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        for (j, x) in self.0.delta(s, gold, pred) {
            self.0.w[j] += x;
        }
        Ok(())
    }
    fn snapshot(&self) -> Snapshot {
        self.0.snapshot()
    }
}

/// Passive-aggressive (PA-I) steps with the Hamming loss:
/// `tau = min(C, (loss - <w, DeltaPhi>) / ||DeltaPhi||^2)`, `w += tau DeltaPhi`.
struct PassiveAggressive {
    weights: MatrixWeights,
    c: f64,
}

impl OnlineLearner for PassiveAggressive {
    fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        self.weights.scores(s, out)
    }
    fn update(&mut self, s: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let delta = self.weights.delta(s, gold, pred);
        let mut dense = std::collections::BTreeMap::new();
        for (j, x) in delta {
            *dense.entry(j).or_insert(0.0) += x;
        }
        let margin: f64 = dense.iter().map(|(&j, x)| self.weights.w[j] * x).sum();
        let norm2: f64 = dense.values().map(|x| x * x).sum();
        let loss = gold.iter().zip(pred).filter(|(a, b)| a != b).count() as f64;
        if loss > margin && norm2 > 0.0 {
            let tau = self.c.min((loss - margin) / norm2);
            for (j, x) in dense {
                self.weights.w[j] += tau * x;
            }
        }
        Ok(())
    }
    fn snapshot(&self) -> Snapshot {
        self.weights.snapshot()
    }
}

/// The learner (the plug-in): starts a [`Perceptron`] for each fit; reads no setting.
#[derive(Debug)]
struct PerceptronLearner;

impl Extension for PerceptronLearner {
    fn name(&self) -> &str {
        "outside perceptron"
    }
}

impl Learner for PerceptronLearner {
    fn reads(&self) -> &[Setting] {
        &[]
    }
    fn start(&self, shape: LearnerShape, _: &LearnerSettings) -> Result<Training> {
        Ok(Training::Online(Box::new(Perceptron(MatrixWeights::new(
            shape,
        )))))
    }
}

/// The averaged perceptron with 0-order weights by brute force: dense `w` and `z`, and
/// after every sentence their running sums (the reference of the built-in sp's sparse,
/// lazily averaged weights).
struct BruteAveragedPerceptron {
    weights: MatrixWeights,
    z: Vec<f64>,
    sum_w: Vec<f64>,
    sum_z: Vec<f64>,
    steps: f64,
}

impl OnlineLearner for BruteAveragedPerceptron {
    fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        let l = self.weights.l;
        self.weights.scores(s, out)?;
        for i in 0..s.len() {
            let previous = if i == 0 { l..l + 1 } else { 0..l };
            for &k in s.at(i) {
                for b in previous.clone() {
                    for a in 0..l {
                        out[score_index(i, b, a, l)] += self.z[k as usize * l + a];
                    }
                }
            }
        }
        Ok(())
    }
    fn update(&mut self, s: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        let l = self.weights.l;
        for (j, x) in self.weights.delta(s, gold, pred) {
            self.weights.w[j] += x;
        }
        for i in 0..s.len() {
            if gold[i] != pred[i] {
                for &k in s.at(i) {
                    self.z[k as usize * l + gold[i]] += 1.0;
                    self.z[k as usize * l + pred[i]] -= 1.0;
                }
            }
        }
        Ok(())
    }
    fn record(&mut self) {
        for (s, w) in self.sum_w.iter_mut().zip(&self.weights.w) {
            *s += w;
        }
        for (s, z) in self.sum_z.iter_mut().zip(&self.z) {
            *s += z;
        }
        self.steps += 1.0;
    }
    fn snapshot(&self) -> Snapshot {
        let mean = |sum: &[f64]| sum.iter().map(|s| s / self.steps.max(1.0)).collect();
        Snapshot {
            weights: OnlineWeights::Linear {
                w: mean(&self.sum_w),
            },
            zero_order: Some(mean(&self.sum_z)),
        }
    }
}

#[derive(Debug)]
struct BruteAveragedPerceptronLearner;

impl Extension for BruteAveragedPerceptronLearner {
    fn name(&self) -> &str {
        "brute-force averaged perceptron"
    }
}

impl Learner for BruteAveragedPerceptronLearner {
    fn reads(&self) -> &[Setting] {
        &[]
    }
    fn start(&self, shape: LearnerShape, _: &LearnerSettings) -> Result<Training> {
        let weights = MatrixWeights::new(shape);
        let n = weights.w.len();
        let nz = shape.n_features * shape.n_tags;
        Ok(Training::Online(Box::new(BruteAveragedPerceptron {
            weights,
            z: vec![0.0; nz],
            sum_w: vec![0.0; n],
            sum_z: vec![0.0; nz],
            steps: 0.0,
        })))
    }
}

/// PA-I reads the step bound `c` (the only setting it reads) and checks that it is
/// at most 10 in its own `check()`, which the parameters' check calls.
#[derive(Debug)]
struct PassiveAggressiveLearner {
    max_c: f64,
}

impl Extension for PassiveAggressiveLearner {
    fn name(&self) -> &str {
        "outside PA-I"
    }
    fn check(&self) -> std::result::Result<(), bl_core::BlError> {
        bl_core::params::positive("max_c", self.max_c)
    }
}

impl Learner for PassiveAggressiveLearner {
    fn reads(&self) -> &[Setting] {
        &[Setting::C]
    }
    fn start(&self, shape: LearnerShape, settings: &LearnerSettings) -> Result<Training> {
        Ok(Training::Online(Box::new(PassiveAggressive {
            weights: MatrixWeights::new(shape),
            c: settings.c.min(self.max_c),
        })))
    }
}

fn passive_aggressive() -> Arc<dyn Learner> {
    Arc::new(PassiveAggressiveLearner { max_c: 10.0 })
}

/// An online state that breaks the contract in `scores`, as each variant says; it learns
/// nothing and holds no weights.
#[derive(Debug, Clone, Copy)]
enum Broken {
    /// Scores of the wrong size.
    WrongSize,
    /// Refuses every sentence (a sentence of the learner's own dictionary must be scored).
    Refusing,
}

impl OnlineLearner for Broken {
    fn scores(&self, _: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        match self {
            Self::WrongSize => {
                out.clear();
                out.push(0.0);
                Ok(())
            }
            Self::Refusing => {
                Err(bl_core::error::invalid("scores: sentence", "any", "none").into())
            }
        }
    }
    fn update(&mut self, _: &EncodedSentence, _: &[usize], _: &[usize]) -> Result<()> {
        Ok(())
    }
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            weights: OnlineWeights::Linear { w: Vec::new() },
            zero_order: None,
        }
    }
}

/// A learner named `name` that starts the online state `state` (a contract breaker).
#[derive(Debug)]
struct Starts {
    name: &'static str,
    state: Broken,
}

impl Extension for Starts {
    fn name(&self) -> &str {
        self.name
    }
}

impl Learner for Starts {
    fn start(&self, _: LearnerShape, _: &LearnerSettings) -> Result<Training> {
        Ok(Training::Online(Box::new(self.state)))
    }
}

const REFUSING_LEARNER: Starts = Starts {
    name: "refusing",
    state: Broken::Refusing,
};

const BROKEN_LEARNER: Starts = Starts {
    name: "broken",
    state: Broken::WrongSize,
};

#[test]
fn every_built_in_learner_passes_the_conformance_suite() {
    for learner in BuiltIn::ALL {
        let report = conformance(&learner);
        assert!(report.passed(), "{report}");
    }
    let default = LearnerSettings::default();
    let variants = [
        (
            BuiltIn::Bol,
            LearnerSettings {
                reading: Reading::SpectralExact,
                ..default
            },
        ),
        (
            BuiltIn::Bol,
            LearnerSettings {
                reading: Reading::SpectralAlgorithm2,
                ..default
            },
        ),
        (
            BuiltIn::Bol,
            LearnerSettings {
                averaging: true,
                zero_order: true,
                ..default
            },
        ),
        (
            BuiltIn::Bcd,
            LearnerSettings {
                bcd_solver: BcdSolver::Algorithm1,
                ..default
            },
        ),
        (
            BuiltIn::Bcd,
            LearnerSettings {
                zero_order: true,
                ..default
            },
        ),
        (
            BuiltIn::Sp,
            LearnerSettings {
                averaging: true,
                zero_order: true,
                ..default
            },
        ),
        (BuiltIn::CrfL1, LearnerSettings { c: 0.1, ..default }),
    ];
    for (learner, settings) in variants {
        let report = conformance_with(&learner, &settings);
        let name = format!("{} {settings:?}", learner.name());
        if learner == BuiltIn::Bol && settings.reading == Reading::SpectralExact {
            // The paper's exact gradient keeps a single feature's block: it cannot learn,
            // and that is the only check it fails.
            let failed: Vec<&str> = report.failures().map(|c| c.name).collect();
            assert_eq!(failed, ["learns"], "{name}: {report}");
        } else {
            assert!(report.passed(), "{name}: {report}");
        }
    }
}

#[test]
fn outside_learners_pass_the_conformance_suite() {
    // (The brute-force averaged perceptron always averages, so its snapshot does not
    // score as its live weights: it is a reference for the fit, not a conforming learner.)
    for learner in [
        Arc::new(PerceptronLearner) as Arc<dyn Learner>,
        passive_aggressive(),
    ] {
        let report = conformance(learner.as_ref());
        assert!(report.passed(), "{report}");
    }
    // The step `c` is read by PA-I (sp itself rejects a step other than 1).
    let settings = LearnerSettings {
        c: 0.5,
        ..LearnerSettings::default()
    };
    let report = conformance_with(passive_aggressive().as_ref(), &settings);
    assert!(report.passed(), "{report}");
}

/// A learner that breaks the contract fails the suite: the suite can fail.
#[test]
fn a_broken_learner_fails_the_conformance_suite() {
    let report = conformance(&BROKEN_LEARNER);
    assert!(!report.passed(), "{report}");
    assert!(
        report.failures().any(|c| c.name == "scores-shape"),
        "{report}"
    );
    assert!(report.into_result().is_err());
}

/// A learner whose `scores` refuses the suite's sentences fails `scores-shape`.
#[test]
fn a_learner_that_refuses_its_own_sentences_fails_the_conformance_suite() {
    let report = conformance(&REFUSING_LEARNER);
    let failed: Vec<&str> = report.failures().map(|c| c.name).collect();
    assert!(failed.contains(&"scores-shape"), "{report}");
}

/// The outside perceptron checks the sentence as the built-in learners do: a feature id
/// past its weights (a sentence of another dictionary) is a typed error, not a panic.
#[test]
fn the_outside_perceptron_refuses_a_sentence_of_another_dictionary() {
    let train = common::lexicon_corpus(20, 1);
    let dict = FeatureDict::build(&train, &Templates::segmentation(), 1).unwrap();
    let enc = dict.encode(&train.sentences()[0]).unwrap();
    let (k, l) = (dict.len(), 3);
    assert!(k > 1 && (0..enc.len()).any(|i| enc.at(i).iter().any(|&f| f > 0)));
    let shape = |n_features| LearnerShape {
        n_features,
        n_tags: l,
        bias_feature: None,
    };
    let Ok(Training::Online(small)) =
        PerceptronLearner.start(shape(1), &LearnerSettings::default())
    else {
        panic!("the perceptron starts online");
    };
    let mut out = Vec::new();
    let err = small.scores(&enc, &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            OblError::Core(bl_core::BlError::InvalidParameter {
                name: "scores: sentence feature id",
                ..
            })
        ),
        "{err}"
    );
    let (mut ws, mut path) = (Default::default(), vec![0; enc.len()]);
    assert!(small.decode(&enc, l, &mut out, &mut ws, &mut path).is_err());
    let Ok(Training::Online(sized)) =
        PerceptronLearner.start(shape(k), &LearnerSettings::default())
    else {
        panic!("the perceptron starts online");
    };
    sized.scores(&enc, &mut out).unwrap();
    assert_eq!(out.len(), enc.len() * (l + 1) * l);
}

/// Fits both parameter sets (4 epochs, seed 9) on the lexicon corpus of `(sentences,
/// seed)`: they must make the same online mistakes in the same epochs and predict `test`
/// alike.
fn fit_alike(
    built_in: TaggerParams,
    outside: TaggerParams,
    (sentences, seed): (usize, u64),
    test: &online_bilinear::Corpus,
) -> (FittedTagger, FittedTagger) {
    let train = common::lexicon_corpus(sentences, seed);
    let fit = |params: TaggerParams| params.max_iter(4).seed(9).fit(&train).unwrap();
    let (built_in, outside) = (fit(built_in), fit(outside));
    assert_eq!(
        outside.report().trace.extra("token_errors"),
        built_in.report().trace.extra("token_errors")
    );
    assert_eq!(outside.report().iterations, built_in.report().iterations);
    common::assert_same_tags(&outside, &built_in, test);
    (built_in, outside)
}

#[test]
fn an_outside_perceptron_fits_exactly_as_the_built_in_one() {
    let test = common::lexicon_corpus(40, 2);
    let (built_in, outside) = fit_alike(
        TaggerParams::sp(),
        TaggerParams::new(Arc::new(PerceptronLearner)),
        (120, 1),
        &test,
    );
    // The same weights, not only the same mistakes and tags (integers: exactly).
    assert_same_linear_weights(&built_in, &outside, 0.0);
    assert_eq!(outside.learner(), "outside perceptron");
    // The fitted model of an outside learner saves and loads like any other.
    let back = online_bilinear::FittedTagger::from_json(&outside.to_json().unwrap()).unwrap();
    assert_eq!(back.learner(), "outside perceptron");
    common::assert_same_tags(&back, &outside, &test);
}

/// The built-in sp keeps only the cells training touched and averages them lazily; a
/// dense, brute-force averaged perceptron with 0-order weights must give the same model.
#[test]
fn the_sparse_averaged_perceptron_equals_a_brute_force_dense_one() {
    let (built_in, brute) = fit_alike(
        TaggerParams::sp().averaging(true).zero_order(true),
        TaggerParams::new(Arc::new(BruteAveragedPerceptronLearner)),
        (150, 3),
        &common::lexicon_corpus(60, 4),
    );
    let (z_sparse, z_brute) = (
        built_in.zero_order_weights().unwrap().unwrap(),
        brute.zero_order_weights().unwrap().unwrap(),
    );
    assert_eq!(z_sparse.len(), z_brute.len());
    for (a, b) in z_sparse.iter().zip(z_brute) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
    assert_same_linear_weights(&built_in, &brute, 1e-9);
    let l = built_in.tags().len();
    let sparse = built_in.sparse_weights().unwrap();
    assert!(sparse.nnz() < built_in.n_features() * l * (l + 1));
}

/// The built-in sp's sparse weights `w[k, (b, a)]` equal, within `tol`, the dense
/// `w[k, a, b]` of a model of [`MatrixWeights`] (read from its saved form), and some are
/// not zero.
fn assert_same_linear_weights(built_in: &FittedTagger, dense_model: &FittedTagger, tol: f64) {
    let sparse = built_in.sparse_weights().unwrap();
    assert!(sparse.nnz() > 0);
    let l = built_in.tags().len();
    let json: serde_json::Value = serde_json::from_str(&dense_model.to_json().unwrap()).unwrap();
    let dense = json["weights"]["Linear"]["w"].as_array().unwrap();
    assert_eq!(dense.len(), built_in.n_features() * l * (l + 1));
    for k in 0..built_in.n_features() {
        for b in 0..=l {
            for a in 0..l {
                let x = dense[(k * l + a) * (l + 1) + b].as_f64().unwrap();
                let y = sparse.get(k, (b * l + a) as u32);
                assert!((x - y).abs() <= tol, "w[{k}, {a}, {b}]: {x} vs {y}");
            }
        }
    }
}

#[test]
fn an_outside_passive_aggressive_learner_is_as_good_as_the_perceptron() {
    let train = common::lexicon_corpus(300, 1);
    let test = common::lexicon_corpus(100, 2);
    let sp = TaggerParams::sp().max_iter(8).fit(&train).unwrap();
    let pa = TaggerParams::new(passive_aggressive())
        .max_iter(8)
        .fit(&train)
        .unwrap();
    let (sp_error, pa_error) = (
        sp.evaluate(&test).unwrap().label_error_rate,
        pa.evaluate(&test).unwrap().label_error_rate,
    );
    assert!(pa_error < 0.1, "PA-I test error {pa_error}");
    assert!(
        pa_error <= sp_error + 0.03,
        "PA-I {pa_error} against sp {sp_error}"
    );
}

#[test]
fn a_learner_that_breaks_the_contract_gets_a_typed_error() {
    let train = common::lexicon_corpus(20, 1);
    let err = TaggerParams::new(Arc::new(BROKEN_LEARNER))
        .fit(&train)
        .unwrap_err();
    assert!(
        matches!(
            err,
            OblError::Learner {
                check: "scores-shape",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn custom_learner_parameters_are_checked() {
    // The learner's own check runs in the parameters' check.
    let bad = TaggerParams::new(Arc::new(PassiveAggressiveLearner { max_c: -1.0 }));
    assert!(common::is_invalid_named(&bad.check(), "max_c"));
    // A setting the learner does not read is refused (PA-I reads `c` only).
    let unread = TaggerParams::new(passive_aggressive()).averaging(true);
    assert!(common::is_invalid_named(&unread.check(), "averaging"));
    assert!(
        TaggerParams::new(passive_aggressive())
            .c(0.5)
            .check()
            .is_ok()
    );
}

/// The outside perceptron under a built-in learner's name.
#[derive(Debug)]
struct Impostor(&'static str);

impl Extension for Impostor {
    fn name(&self) -> &str {
        self.0
    }
}

impl Learner for Impostor {
    fn reads(&self) -> &[Setting] {
        &[]
    }
    fn start(&self, shape: LearnerShape, settings: &LearnerSettings) -> Result<Training> {
        PerceptronLearner.start(shape, settings)
    }
}

/// `err` is an `InvalidParameter` naming `learner`.
#[track_caller]
fn assert_invalid_learner(err: &OblError) {
    assert!(
        matches!(
            err,
            OblError::Core(bl_core::BlError::InvalidParameter {
                name: "learner",
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn an_outside_learner_may_not_take_a_built_in_name() {
    for builtin in BuiltIn::ALL {
        let err = TaggerParams::new(Arc::new(Impostor(builtin.name())))
            .check()
            .unwrap_err();
        assert_invalid_learner(&err);
        // The built-in itself keeps its name.
        assert!(TaggerParams::new(Arc::new(builtin)).check().is_ok());
    }
    assert!(
        TaggerParams::new(Arc::new(Impostor("bol2")))
            .check()
            .is_ok()
    );
}

#[test]
fn parameter_mixing_runs_the_built_in_online_learners_only() {
    let corpus = common::lexicon_corpus(20, 1);
    let outside = TaggerParams::new(Arc::new(PerceptronLearner))
        .check()
        .unwrap();
    let prepared = outside.prepare(&corpus).unwrap();
    let err =
        online_bilinear::distributed::IpmPlan::from_prepared(&outside, &prepared, 2).unwrap_err();
    assert_invalid_learner(&err);
}
