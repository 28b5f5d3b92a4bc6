//! The online trainers `ap`, `pa` and `arow`: learning separable data, the averaged
//! perceptron against a brute-force perceptron (exhaustive decoding, the mean of every
//! iterate), the passive-aggressive and AROW steps against hand computations, real-valued
//! attributes, determinism, stopping and invalid settings.

use std::collections::HashMap;

use bl_core::BlError;
use chain_crf::{
    Algorithm, Arow, AveragedPerceptron, CrfError, CrfParams, Dataset, DatasetBuilder,
    FeatureOptions, Fit, Fitted, PaType, ParamGuard, PassiveAggressive,
};
use proptest::prelude::*;

use crate::common::dataset;

/// A small deterministic generator (no dependency on `rand`'s streams).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Sentences over 12 words, each word with a fixed one of 4 tags: separable by the word
/// features alone.
fn separable_words(seed: u64) -> Dataset {
    let mut rng = Lcg(seed);
    let mut b = DatasetBuilder::new();
    for _ in 0..25 {
        for _ in 0..2 + rng.next(5) {
            let w = rng.next(12);
            b.attribute(&format!("w={w}"), 1.0).unwrap();
            b.end_item(&format!("T{}", w % 4)).unwrap();
        }
        b.end_sequence().unwrap();
    }
    b.finish()
}

/// Items labelled by the size of one real value (2 -> BIG, 0.5 -> SMALL) with a bias
/// attribute of 1: separable only through the values.
fn separable_by_value(seed: u64) -> Dataset {
    let mut rng = Lcg(seed);
    let mut b = DatasetBuilder::new();
    for _ in 0..20 {
        for _ in 0..1 + rng.next(4) {
            let big = rng.next(2) == 0;
            b.attribute("bias", 1.0).unwrap();
            b.attribute("x", if big { 2.0 } else { 0.5 }).unwrap();
            b.end_item(if big { "BIG" } else { "SMALL" }).unwrap();
        }
        b.end_sequence().unwrap();
    }
    b.finish()
}

/// Every online trainer, with CRFsuite's default settings and the PA types.
fn trainers() -> Vec<Algorithm> {
    let mut out = vec![Algorithm::AveragedPerceptron(AveragedPerceptron::default())];
    for pa_type in [PaType::Pa, PaType::PaI, PaType::PaII] {
        for averaging in [true, false] {
            out.push(Algorithm::PassiveAggressive(PassiveAggressive {
                pa_type,
                averaging,
                ..PassiveAggressive::default()
            }));
        }
    }
    out.push(Algorithm::PassiveAggressive(PassiveAggressive {
        error_sensitive: false,
        ..PassiveAggressive::default()
    }));
    out.push(Algorithm::Arow(Arow::default()));
    out.push(Algorithm::Arow(Arow {
        variance: 0.3,
        gamma: 4.0,
    }));
    out
}

fn train_accuracy(data: &Dataset, model: &chain_crf::Model) -> f64 {
    let (mut right, mut all) = (0, 0);
    for x in data.iter() {
        let (path, _) = model.tag(x.items);
        right += path.iter().zip(x.labels).filter(|(p, y)| p == y).count();
        all += x.labels.len();
    }
    right as f64 / all as f64
}

#[test]
fn pa_and_arow_learn_separable_data_for_every_seed() {
    for seed in 0..10 {
        for data in [separable_words(seed), separable_by_value(seed)] {
            for algorithm in trainers().into_iter().skip(1) {
                let name = format!("{algorithm:?}");
                let fitted = CrfParams::new(algorithm)
                    .max_iter(30)
                    .seed(seed)
                    .fit(&data)
                    .unwrap();
                assert_eq!(
                    train_accuracy(&data, fitted.model()),
                    1.0,
                    "{name}, seed {seed}"
                );
                let log = fitted.log();
                assert_eq!(log.len(), fitted.report().iterations);
                assert_eq!(log.last().unwrap().errors, Some(0), "{name}, seed {seed}");
            }
        }
    }
}

/// One-item sequences, one word attribute each, the word fixing the label. A word's
/// weights change only when one of its own items is mistaken: a word of label 0 never is
/// (all its scores stay 0, and ties go to label 0); any other word is mistaken once, after
/// which its label leads by 2 in every later iterate. So the average labels every item
/// right, for every order.
fn separable_items(seed: u64) -> Dataset {
    let mut rng = Lcg(seed);
    let mut b = DatasetBuilder::new();
    for _ in 0..60 {
        let w = rng.next(12);
        b.attribute(&format!("w={w}"), 1.0).unwrap();
        b.end_item(&format!("T{}", w % 4)).unwrap();
        b.end_sequence().unwrap();
    }
    b.finish()
}

#[test]
fn ap_learns_separable_data_up_to_ties_of_its_final_weights() {
    let ap = || CrfParams::new(Algorithm::AveragedPerceptron(AveragedPerceptron::default()));
    for seed in 0..10 {
        let data = separable_items(seed);
        let fitted = ap().max_iter(30).seed(seed).fit(&data).unwrap();
        assert_eq!(train_accuracy(&data, fitted.model()), 1.0, "seed {seed}");
        // On sequences the perceptron has no margin: the final weights w* may label an
        // item right only by a tie (equal scores, the lower label first), which the
        // average's early iterates can break the other way. Check exactly that: after an
        // epoch without mistakes, w* = (T avg_T - (T - N) avg_{T - N}) / N labels every
        // item right, and every sequence the average gets wrong ties under w*.
        for data in [separable_words(seed), separable_by_value(seed)] {
            let n = data.len() as f64;
            let (a, b) = (
                ap().max_iter(30).seed(seed).fit(&data).unwrap(),
                ap().max_iter(29).seed(seed).fit(&data).unwrap(),
            );
            assert_eq!(a.log().last().unwrap().errors, Some(0), "seed {seed}");
            let last: Vec<f64> = a
                .model()
                .weights()
                .iter()
                .zip(b.model().weights())
                .map(|(x, y)| (30.0 * n * x - 29.0 * n * y) / n)
                .collect();
            let m = a.model();
            let final_model = chain_crf::Model::new(
                m.attributes().clone(),
                m.labels().clone(),
                m.features().clone(),
                last,
            )
            .unwrap();
            assert_eq!(train_accuracy(&data, &final_model), 1.0, "seed {seed}");
            for x in data.iter() {
                let (path, _) = m.tag(x.items);
                if path != x.labels {
                    let gold = final_model.log_probability(x.items, x.labels).unwrap();
                    let other = final_model.log_probability(x.items, &path).unwrap();
                    assert!((gold - other).abs() < 1e-6, "seed {seed}: not a tie");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The averaged perceptron against a brute-force one.

/// Dense weights of a data set with every (attribute, label) and label pair: state
/// `(a, y)` at `a * L + y`, transition `(b, y)` at `A * L + b * L + y`.
struct Dense {
    n_attr: usize,
    l: usize,
}

impl Dense {
    fn len(&self) -> usize {
        self.n_attr * self.l + self.l * self.l
    }

    /// `Φ(x, path)`, added to `out` times `sign`.
    fn add_phi(&self, data: &Dataset, s: usize, path: &[usize], sign: f64, out: &mut [f64]) {
        let x = data.instance(s);
        for t in 0..path.len() {
            let (ids, vals) = x.items.item(t);
            for (&a, &v) in ids.iter().zip(vals) {
                out[a as usize * self.l + path[t]] += sign * v;
            }
            if t > 0 {
                out[self.n_attr * self.l + path[t - 1] * self.l + path[t]] += sign;
            }
        }
    }

    /// The best path under `w` by enumeration; among equal scores the one Viterbi
    /// returns (the smallest when the last position is the most significant digit).
    fn decode(&self, data: &Dataset, s: usize, w: &[f64]) -> Vec<usize> {
        let n = data.instance(s).labels.len();
        let mut best = (f64::NEG_INFINITY, vec![]);
        for code in 0..self.l.pow(n as u32) {
            let path: Vec<usize> = (0..n)
                .map(|t| code / self.l.pow(t as u32) % self.l)
                .collect();
            let mut phi = vec![0.0; self.len()];
            self.add_phi(data, s, &path, 1.0, &mut phi);
            let score: f64 = phi.iter().zip(w).map(|(p, w)| p * w).sum();
            if score > best.0 {
                best = (score, path);
            }
        }
        best.1
    }

    /// The perceptron over the instance order `order`, returning the mean of the weight
    /// vectors after every instance.
    fn averaged_perceptron(&self, data: &Dataset, order: &[usize]) -> Vec<f64> {
        let mut w = vec![0.0; self.len()];
        let mut sum = vec![0.0; self.len()];
        for &s in order {
            let gold: Vec<usize> = data
                .instance(s)
                .labels
                .iter()
                .map(|&y| y as usize)
                .collect();
            let pred = self.decode(data, s, &w);
            if pred != gold {
                self.add_phi(data, s, &gold, 1.0, &mut w);
                self.add_phi(data, s, &pred, -1.0, &mut w);
            }
            for (a, b) in sum.iter_mut().zip(&w) {
                *a += b;
            }
        }
        sum.iter().map(|v| v / order.len() as f64).collect()
    }

    /// The model's weights in this layout.
    fn of_model(&self, data: &Dataset, model: &chain_crf::Model) -> Vec<f64> {
        let attr = |name: &str| data.attributes().get(name).unwrap() as usize;
        let label = |name: &str| data.labels().get(name).unwrap() as usize;
        let mut out = vec![f64::NAN; self.len()];
        for (a, y, w) in model.state_features() {
            out[attr(a) * self.l + label(y)] = w;
        }
        for (b, y, w) in model.transition_features() {
            out[self.n_attr * self.l + label(b) * self.l + label(y)] = w;
        }
        out
    }
}

/// Every sequence of `epochs` permutations of `0..n`, concatenated.
fn all_orders(n: usize, epochs: usize) -> Vec<Vec<usize>> {
    let mut perms: Vec<Vec<usize>> = vec![vec![]];
    for k in 0..n {
        perms = perms
            .into_iter()
            .flat_map(|p| {
                (0..=k).map(move |i| {
                    let mut q = p.clone();
                    q.insert(i, k);
                    q
                })
            })
            .collect();
    }
    let mut out: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..epochs {
        out = out
            .into_iter()
            .flat_map(|o| {
                perms.iter().map(move |p| {
                    let mut q = o.clone();
                    q.extend(p);
                    q
                })
            })
            .collect();
    }
    out
}

/// Tiny data sets with values that are multiples of 1/2 (every score is exact, so ties
/// are ties for both the trainer and the brute force).
fn tiny_data() -> impl Strategy<Value = Dataset> {
    let item = (prop::collection::vec((0..3usize, 1..5u32), 1..3), 0..3usize);
    let seq = prop::collection::vec(item, 1..4);
    prop::collection::vec(seq, 2..4).prop_map(|seqs| {
        let mut b = DatasetBuilder::new();
        for seq in seqs {
            for (attrs, y) in seq {
                for (a, v) in attrs {
                    b.attribute(&format!("a{a}"), f64::from(v) * 0.5).unwrap();
                }
                b.end_item(&format!("y{y}")).unwrap();
            }
            b.end_sequence().unwrap();
        }
        b.finish()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The returned weights are the mean of the weight vectors after every instance of
    /// a perceptron (decoding by enumeration) over some order of the epochs' instances.
    #[test]
    fn averaged_perceptron_is_the_mean_of_every_iterate(
        data in tiny_data(),
        epochs in 1..4usize,
        seed in 0..1000u64,
    ) {
        let dense = Dense { n_attr: data.attributes().len(), l: data.labels().len() };
        let fitted = CrfParams::new(Algorithm::AveragedPerceptron(AveragedPerceptron {}))
            .features(FeatureOptions {
                all_possible_states: true,
                all_possible_transitions: true,
                ..FeatureOptions::default()
            })
            .max_iter(epochs)
            .seed(seed)
            .fit(&data)
            .unwrap();
        let got = dense.of_model(&data, fitted.model());
        let close = |want: &Vec<f64>| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9);
        let found = all_orders(data.len(), epochs)
            .iter()
            .any(|order| close(&dense.averaged_perceptron(&data, order)));
        prop_assert!(found, "weights {got:?} are no order's average");
    }
}

// ---------------------------------------------------------------------------------------
// One instance by hand: PA's three steps and AROW's.

/// One sequence `A B C` whose items have the attributes `x:1 bias:1`, `y:2 bias:1`,
/// `z:0.5 bias:1`. Its features (seen pairs only): states (x,A) (bias,A) (y,B) (bias,B)
/// (z,C) (bias,C), transitions (A,B) (B,C). Under zero weights every path scores 0 and
/// Viterbi returns `A A A`: `d = 2` wrong items and
/// `Δ = Φ(y) - Φ(ŷ)`: (y,B) 2, (bias,B) 1, (z,C) 0.5, (bias,C) 1, (bias,A) -2, (A,B) 1,
/// (B,C) 1, so `||Δ||^2 = 4 + 1 + 0.25 + 1 + 4 + 1 + 1 = 12.25`.
fn one_instance() -> Dataset {
    dataset(&[vec![
        (vec![("x", 1.0), ("bias", 1.0)], "A"),
        (vec![("y", 2.0), ("bias", 1.0)], "B"),
        (vec![("z", 0.5), ("bias", 1.0)], "C"),
    ]])
}

/// `Δ` of [`one_instance`] by name.
fn one_instance_delta() -> HashMap<(String, String), f64> {
    [
        (("x", "A"), 0.0),
        (("bias", "A"), -2.0),
        (("y", "B"), 2.0),
        (("bias", "B"), 1.0),
        (("z", "C"), 0.5),
        (("bias", "C"), 1.0),
        (("A", "B"), 1.0),
        (("B", "C"), 1.0),
    ]
    .into_iter()
    .map(|((a, b), v)| ((a.to_owned(), b.to_owned()), v))
    .collect()
}

/// The weights after one epoch, by name, checked to be `scale * Δ`.
fn assert_scaled_delta(algorithm: Algorithm, scale: f64) {
    let data = one_instance();
    let fitted = CrfParams::new(algorithm.clone())
        .max_iter(1)
        .fit(&data)
        .unwrap();
    let delta = one_instance_delta();
    let model = fitted.model();
    let mut seen = 0;
    for (a, b, w) in model.state_features().chain(model.transition_features()) {
        let want = scale * delta[&(a.to_owned(), b.to_owned())];
        assert!(
            (w - want).abs() < 1e-12,
            "{algorithm:?}: ({a}, {b}) = {w}, want {want}"
        );
        seen += 1;
    }
    assert_eq!(seen, delta.len());
}

#[test]
fn pa_steps_are_the_closed_forms_on_one_instance() {
    let norm2 = 12.25;
    let sqrt_d = 2f64.sqrt();
    for averaging in [true, false] {
        let pa = |pa_type, c, error_sensitive| {
            Algorithm::PassiveAggressive(PassiveAggressive {
                pa_type,
                c,
                error_sensitive,
                averaging,
            })
        };
        // Cost = s(ŷ) - s(y) + sqrt(d) = 0 - 0 + sqrt(2) (or + 1 without error_sensitive).
        assert_scaled_delta(pa(PaType::Pa, 1.0, true), sqrt_d / norm2);
        assert_scaled_delta(pa(PaType::Pa, 1.0, false), 1.0 / norm2);
        // PA-I: min(C, cost / ||Δ||^2): not clipped at C = 1, clipped at C = 0.05.
        assert_scaled_delta(pa(PaType::PaI, 1.0, true), sqrt_d / norm2);
        assert_scaled_delta(pa(PaType::PaI, 0.05, true), 0.05);
        // PA-II: cost / (||Δ||^2 + 1 / (2C)).
        assert_scaled_delta(pa(PaType::PaII, 1.0, true), sqrt_d / (norm2 + 0.5));
        assert_scaled_delta(pa(PaType::PaII, 0.1, false), 1.0 / (norm2 + 5.0));
    }
}

#[test]
fn arow_step_is_the_hand_computation_on_one_instance() {
    // Cost = s(ŷ) - s(y) + d = 2; α = cost / (Δᵀ Σ Δ + γ) with Σ = variance I;
    // μ = α variance Δ.
    for (variance, gamma) in [(1.0, 1.0), (0.5, 2.0), (3.0, 0.25)] {
        let alpha = 2.0 / (variance * 12.25 + gamma);
        assert_scaled_delta(Algorithm::Arow(Arow { variance, gamma }), alpha * variance);
    }
}

#[test]
fn the_perceptron_step_is_delta_on_one_instance() {
    assert_scaled_delta(
        Algorithm::AveragedPerceptron(AveragedPerceptron::default()),
        1.0,
    );
}

// ---------------------------------------------------------------------------------------
// Real values, determinism, stopping, logs, errors.

/// The weights of `(v, A)` and `(v, B)` after one epoch on `[v:s -> A, v:s -> B]`: under
/// zero weights the prediction is `A A`, so the update is `+s` on (v,B) and `-s` on (v,A).
fn value_update(algorithm: &Algorithm, s: f64) -> (f64, f64) {
    let data = dataset(&[vec![(vec![("v", s)], "A"), (vec![("v", s)], "B")]]);
    let fitted = CrfParams::new(algorithm.clone())
        .max_iter(1)
        .fit(&data)
        .unwrap();
    let w: HashMap<String, f64> = fitted
        .model()
        .state_features()
        .map(|(a, y, w)| (format!("{a}/{y}"), w))
        .collect();
    (w["v/A"], w["v/B"])
}

#[test]
fn attribute_values_scale_the_updates() {
    let ap = Algorithm::AveragedPerceptron(AveragedPerceptron::default());
    assert_eq!(value_update(&ap, 1.0), (-1.0, 1.0));
    assert_eq!(value_update(&ap, 2.0), (-2.0, 2.0));
    // PA-I clipped at C: τ = C whatever the value, so the update is C times the value.
    let pa = Algorithm::PassiveAggressive(PassiveAggressive {
        c: 0.01,
        ..PassiveAggressive::default()
    });
    let (one, two) = (value_update(&pa, 1.0), value_update(&pa, 2.0));
    assert!((two.0 - 2.0 * one.0).abs() < 1e-15 && (two.1 - 2.0 * one.1).abs() < 1e-15);
    assert!((one.1 - 0.01).abs() < 1e-15);
}

#[test]
fn same_seed_same_weights() {
    let data = separable_words(5);
    for algorithm in trainers() {
        let fit = |seed| {
            CrfParams::new(algorithm.clone())
                .max_iter(4)
                .seed(seed)
                .fit(&data)
                .unwrap()
        };
        let (a, b) = (fit(11), fit(11));
        assert_eq!(a.model().weights(), b.model().weights(), "{algorithm:?}");
        let losses = |f: &chain_crf::FittedCrf| f.log().iter().map(|r| r.loss).collect::<Vec<_>>();
        assert_eq!(losses(&a), losses(&b));
    }
}

/// Whether `algorithm` is `arow`, whose epsilon test is "at most" (the others': "below").
fn is_arow(algorithm: &Algorithm) -> bool {
    matches!(algorithm, Algorithm::Arow(_))
}

#[test]
fn epsilon_stops_after_the_first_epoch_that_passes_it() {
    let data = separable_words(2);
    for algorithm in trainers() {
        // A tiny positive epsilon: the first epoch without a mistake (loss 0) ends the fit.
        let mut epochs = 0usize;
        let mut count = |_: &bl_core::engine::IterationView<'_>| epochs += 1;
        let fitted = CrfParams::new(algorithm.clone())
            .tol(1e-12)
            .check()
            .unwrap()
            .fit_observed(&data, &mut [&mut count])
            .unwrap();
        let report = fitted.report();
        assert_eq!(
            report.termination,
            bl_core::engine::TerminationReason::Converged
        );
        assert!(report.iterations < 100, "{algorithm:?}");
        assert_eq!(epochs, report.iterations);
        let log = fitted.log();
        assert_eq!(log.len(), report.iterations);
        assert_eq!(log.last().unwrap().loss, 0.0);
        assert!(log[..log.len() - 1].iter().all(|r| r.loss > 0.0));
    }
}

#[test]
fn default_epsilon_runs_every_epoch_of_ap_and_pa_and_stops_arow_at_loss_zero() {
    // The CRFsuite of python-crfsuite 0.9.12 (sklearn-crfsuite 0.5.0) tests ap and pa with
    // `mean loss < epsilon` and arow with `mean loss <= epsilon`: with the default
    // epsilon 0, ap and pa run every epoch even after the mistakes stop, and arow stops
    // after its first epoch without a mistake.
    let data = separable_words(2);
    for algorithm in trainers() {
        let zero_loss_epoch = CrfParams::new(algorithm.clone())
            .tol(1e-12)
            .fit(&data)
            .unwrap()
            .report()
            .iterations;
        let budget = zero_loss_epoch + 3;
        let fitted = CrfParams::new(algorithm.clone())
            .max_iter(budget)
            .fit(&data)
            .unwrap();
        let log = fitted.log();
        if is_arow(&algorithm) {
            assert_eq!(
                fitted.report().termination,
                bl_core::engine::TerminationReason::Converged,
                "{algorithm:?}"
            );
            assert_eq!(log.len(), zero_loss_epoch, "{algorithm:?}");
            assert!(zero_loss_epoch < budget);
        } else {
            assert_eq!(
                fitted.report().termination,
                bl_core::engine::TerminationReason::MaxIterations,
                "{algorithm:?}"
            );
            assert_eq!(log.len(), budget, "{algorithm:?}");
        }
        assert_eq!(log.last().unwrap().loss, 0.0, "{algorithm:?}");
    }
}

#[test]
fn a_mean_loss_equal_to_epsilon_stops_arow_but_not_ap() {
    // On the one-instance set, with zero weights every path scores 0 and Viterbi's tie
    // rule predicts A A A: d = 2 of the 3 items are wrong.
    let data = one_instance();
    // AP's first epoch has loss d / n = 2/3: epsilon = 2/3 must not stop after it (below,
    // strictly), epsilon slightly above must.
    let ap = || CrfParams::new(Algorithm::AveragedPerceptron(AveragedPerceptron {}));
    let at = ap().tol(2.0 / 3.0).max_iter(5).fit(&data).unwrap();
    assert_eq!(at.log()[0].loss, 2.0 / 3.0);
    assert!(at.report().iterations > 1);
    let above = ap().tol(0.67).max_iter(5).fit(&data).unwrap();
    assert_eq!(above.report().iterations, 1);
    // AROW's first epoch has loss s(x, y^) - s(x, y) + d = 0 - 0 + 2: epsilon = 2 stops
    // after it (at most), epsilon one ulp below 2 does not.
    let arow = || CrfParams::new(Algorithm::Arow(Arow::default()));
    let at = arow().tol(2.0).max_iter(5).fit(&data).unwrap();
    assert_eq!(at.log()[0].loss, 2.0);
    assert_eq!(at.report().iterations, 1);
    assert_eq!(
        at.report().termination,
        bl_core::engine::TerminationReason::Converged
    );
    let below = arow()
        .tol(2.0f64.next_down())
        .max_iter(5)
        .fit(&data)
        .unwrap();
    assert_eq!(below.log()[0].loss, 2.0);
    assert!(below.report().iterations > 1);
}

#[test]
fn log_records_errors_norms_and_holdout_per_epoch() {
    let data = separable_words(3);
    let mut b = DatasetBuilder::frozen(data.attributes().clone(), data.labels().clone());
    for w in [0, 1, 2, 3, 5] {
        b.attribute(&format!("w={w}"), 1.0).unwrap();
        b.end_item(&format!("T{}", w % 4)).unwrap();
    }
    b.end_sequence().unwrap();
    let dev = b.finish();
    for algorithm in trainers() {
        let fitted = CrfParams::new(algorithm.clone())
            .max_iter(6)
            .check()
            .unwrap()
            .fit_with_holdout(&data, Some(&dev), &mut [])
            .unwrap();
        let log = fitted.log();
        // arow stops after its first epoch of loss 0 (the default epsilon 0, "at most");
        // ap and pa run all 6.
        if is_arow(&algorithm) {
            assert!(log.len() <= 6 && log.len() == fitted.report().iterations);
            assert!(log.len() == 6 || log.last().unwrap().loss == 0.0);
        } else {
            assert_eq!(log.len(), 6);
        }
        for (k, r) in log.iter().enumerate() {
            assert_eq!(r.iteration, k + 1);
            assert!(r.errors.is_some() && r.holdout.is_some());
            assert!(r.error_norm.is_none() && r.learning_rate.is_none());
            assert!(r.feature_norm.is_finite() && r.loss >= 0.0);
        }
        assert!(log.windows(2).all(|p| p[0].time <= p[1].time));
        // The last record describes the returned weights.
        let last = log.last().unwrap();
        let w = fitted.model().weights();
        let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((last.feature_norm - norm).abs() <= 1e-9 * norm.max(1.0));
        assert_eq!(
            last.active_features,
            w.iter().filter(|v| **v != 0.0).count()
        );
        assert_eq!(last.holdout.unwrap().item_accuracy, 1.0, "{algorithm:?}");
    }
}

#[test]
fn invalid_settings_are_typed_errors() {
    let data = one_instance();
    let expect_invalid = |algorithm: Algorithm, name: &str| {
        let err = CrfParams::new(algorithm.clone()).fit(&data).unwrap_err();
        match err {
            CrfError::Core(BlError::InvalidParameter { name: got, .. }) => {
                assert_eq!(got, name, "{algorithm:?}")
            }
            other => panic!("{algorithm:?}: {other:?}"),
        }
    };
    for c in [-1.0, 0.0, f64::NAN, f64::INFINITY] {
        for pa_type in [PaType::Pa, PaType::PaI, PaType::PaII] {
            expect_invalid(
                Algorithm::PassiveAggressive(PassiveAggressive {
                    pa_type,
                    c,
                    ..PassiveAggressive::default()
                }),
                "c",
            );
        }
    }
    for bad in [0.0, -2.0, f64::NAN, f64::INFINITY] {
        expect_invalid(
            Algorithm::Arow(Arow {
                variance: bad,
                ..Arow::default()
            }),
            "variance",
        );
        expect_invalid(
            Algorithm::Arow(Arow {
                gamma: bad,
                ..Arow::default()
            }),
            "gamma",
        );
    }
    assert!(matches!(
        PaType::from_code(3),
        Err(CrfError::Core(BlError::InvalidParameter {
            name: "type",
            ..
        }))
    ));
    // A negative epsilon is the fit's tol: refused too.
    assert!(
        CrfParams::new(Algorithm::from_name("ap").unwrap())
            .tol(-1.0)
            .fit(&data)
            .is_err()
    );
}

#[test]
fn defaults_are_crfsuites() {
    assert_eq!(
        PassiveAggressive::default(),
        PassiveAggressive {
            pa_type: PaType::PaI,
            c: 1.0,
            error_sensitive: true,
            averaging: true,
        }
    );
    assert_eq!(
        Arow::default(),
        Arow {
            variance: 1.0,
            gamma: 1.0
        }
    );
    assert_eq!(PaType::default().code(), 1);
    for name in ["ap", "pa", "arow"] {
        let it = Algorithm::from_name(name).unwrap().default_iteration();
        assert_eq!((it.max_iter, it.tol), (100, 0.0));
    }
}
