//! Iterative parameter mixing (`online_bilinear::distributed`): one shard is the ordinary
//! fit bit for bit; the mix of k shards is the average, checked against ordinary one-epoch
//! fits of each shard and against a hand computation; identical shards give the one-shard
//! model; the binary form is checked in full.

use online_bilinear::distributed::{FeatureCounts, IpmPlan, IpmWeights, Shard, fit_ipm};
use online_bilinear::{
    Corpus, Fit, Fitted, FittedTagger, ParamGuard, Predict, PreparedCorpus, TaggerParams,
    TaggerValidParams,
};

fn corpus() -> Corpus {
    online_bilinear::synthetic::token_function(60, 5, 3).unwrap()
}

/// Every learner and setting the distributed fit runs.
fn configurations() -> Vec<(&'static str, TaggerParams)> {
    let mut out = Vec::new();
    for averaging in [false, true] {
        for zero_order in [false, true] {
            out.push(("sp", TaggerParams::sp()));
            out.push(("bol", TaggerParams::bol()));
            out.push(("bcd", TaggerParams::bcd()));
            for (_, p) in out.iter_mut().rev().take(3) {
                *p = p
                    .clone()
                    .averaging(averaging)
                    .zero_order(zero_order)
                    .max_iter(4);
            }
        }
    }
    out
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// The weights of a model, bit for bit.
fn model_bits(m: &FittedTagger) -> Vec<Vec<u64>> {
    vec![
        bits(m.alpha().unwrap_or(&[])),
        bits(m.beta().unwrap_or(&[])),
        bits(
            &m.sparse_weights()
                .map(|w| w.to_dense().unwrap())
                .unwrap_or_default(),
        ),
        bits(m.zero_order_weights().unwrap().unwrap_or(&[])),
    ]
}

/// The weights of a model as values.
fn model_values(m: &FittedTagger) -> Vec<f64> {
    let mut out = m.alpha().unwrap_or(&[]).to_vec();
    out.extend_from_slice(m.beta().unwrap_or(&[]));
    out.extend(
        m.sparse_weights()
            .map(|w| w.to_dense().unwrap())
            .unwrap_or_default(),
    );
    out.extend_from_slice(m.zero_order_weights().unwrap().unwrap_or(&[]));
    out
}

fn prepared(params: &TaggerValidParams, corpus: &Corpus) -> PreparedCorpus {
    params.prepare(corpus).unwrap()
}

/// `a` and `b` tag `corpus` alike.
fn assert_same_tags(a: &FittedTagger, b: &FittedTagger, corpus: &Corpus, what: &str) {
    let tags_a: Vec<Vec<String>> = a.predict(corpus).unwrap();
    let tags_b: Vec<Vec<String>> = b.predict(corpus).unwrap();
    assert_eq!(tags_a, tags_b, "{what}");
}

/// With one shard the weights and the report (times aside) are the ordinary fit's: out
/// of iterations (`max_iter` 4) and converged (`max_iter` 30, the tolerance 0 met).
#[test]
fn one_shard_is_the_ordinary_fit_bit_for_bit() {
    let corpus = corpus();
    let long = configurations()
        .into_iter()
        .map(|(name, p)| (name, p.max_iter(30)));
    let mut converged = 0;
    for (name, params) in configurations().into_iter().chain(long) {
        let params = params.check().unwrap();
        let prepared = prepared(&params, &corpus);
        let ordinary = params.fit(&prepared).unwrap();
        let ipm = fit_ipm(&params, &prepared, 1).unwrap();
        assert_eq!(
            model_bits(&ipm),
            model_bits(&ordinary),
            "{name} {:?}",
            params.learner_settings()
        );
        assert!(
            model_values(&ipm).iter().any(|&x| x != 0.0),
            "{name}: a trained model"
        );
        assert_eq!(
            ipm.report().iterations,
            ordinary.report().iterations,
            "{name}"
        );
        assert_eq!(
            ipm.report().termination,
            ordinary.report().termination,
            "{name}"
        );
        converged += usize::from(ordinary.report().termination.is_converged());
        let ordinary_objectives = ordinary.report().trace.objectives();
        assert_eq!(
            ipm.report().trace.objectives(),
            ordinary_objectives,
            "{name}"
        );
        // The change each epoch's stopping test compared with `tol`.
        assert_eq!(
            ipm.report().trace.changes(),
            ordinary.report().trace.changes(),
            "{name}"
        );
        // And the counts behind them.
        for key in ["mistakes", "token_errors", "tokens"] {
            let counts = ordinary.report().trace.extra(key);
            assert_eq!(counts.len(), ordinary.report().iterations, "{name} {key}");
            assert_eq!(ipm.report().trace.extra(key), counts, "{name} {key}");
        }
        assert_same_tags(&ipm, &ordinary, &corpus, name);
    }
    assert!(converged > 0, "a configuration converges");
}

#[test]
fn sp_with_transitions_only_one_shard_is_the_ordinary_fit() {
    let corpus = corpus();
    let params = TaggerParams::sp()
        .templates(
            online_bilinear::Templates::new(vec![
                online_bilinear::Template::Bias,
                online_bilinear::Template::unigram(0, 0),
            ])
            .unwrap(),
        )
        .zero_order(true)
        .transitions_only(true)
        .max_iter(3)
        .check()
        .unwrap();
    let prepared = prepared(&params, &corpus);
    let ordinary = params.fit(&prepared).unwrap();
    let ipm = fit_ipm(&params, &prepared, 1).unwrap();
    assert_eq!(model_bits(&ipm), model_bits(&ordinary));
}

/// Runs one epoch of every shard of `plan` from the initial weights.
fn first_epoch(plan: &IpmPlan, shards: &[Shard]) -> (IpmWeights, Vec<IpmWeights>) {
    let start = plan.initial_weights().unwrap();
    let outs = shards
        .iter()
        .enumerate()
        .map(|(j, s)| s.run_epoch(plan, &start, plan.shard_seed(j)).unwrap().0)
        .collect();
    (start, outs)
}

/// The ordinary one-epoch fit on sentences `range` of `prepared` (its dictionary) with
/// `seed`.
fn one_epoch_fit(
    params: &TaggerParams,
    prepared: &PreparedCorpus,
    range: std::ops::Range<usize>,
    seed: u64,
) -> FittedTagger {
    let part = prepared.range(range);
    params
        .clone()
        .max_iter(1)
        .seed(seed)
        .check()
        .unwrap()
        .fit(&part)
        .unwrap()
}

/// With averaging off, the model of the mix of two shards after one epoch is the mean of
/// the models of ordinary one-epoch fits of each shard (sp: the shards train on weights
/// multiplied by 2 with steps of 2, the mix is divided back); with averaging on, it is
/// their mean weighted by the sentences each averaged over (the mean over every visit).
#[test]
fn the_mix_of_two_shards_is_the_average_of_their_ordinary_fits() {
    let corpus = corpus();
    for (name, params) in configurations() {
        if name == "bol" {
            continue; // bol mixes Theta, not its factors: the next test.
        }
        let checked = params.clone().check().unwrap();
        let prepared = prepared(&checked, &corpus);
        let plan = IpmPlan::from_prepared(&checked, &prepared, 2).unwrap();
        let n = prepared.len();
        let ranges = [0..n / 2, n / 2..n];
        let shards: Vec<Shard> = ranges
            .iter()
            .map(|r| Shard::from_prepared(&plan, &prepared, r.clone()).unwrap())
            .collect();
        let (start, outs) = first_epoch(&plan, &shards);
        let mixed = plan.mix(&start, &outs).unwrap();
        let info = online_bilinear::EpochInfo {
            epoch: 1,
            mistakes: 1,
            token_errors: 1,
            tokens: 1,
            seconds: 0.0,
        };
        let model = plan
            .finish(
                &mixed,
                &[info],
                n,
                bl_core::TerminationReason::MaxIterations,
            )
            .unwrap();
        let fits: Vec<FittedTagger> = ranges
            .iter()
            .enumerate()
            .map(|(j, r)| one_epoch_fit(&params, &prepared, r.clone(), plan.shard_seed(j)))
            .collect();
        let averaging = checked.learner_settings().averaging;
        let weight = |j: usize| {
            if averaging {
                shards[j].n_nonempty() as f64
                    / (shards[0].n_nonempty() + shards[1].n_nonempty()) as f64
            } else {
                0.5
            }
        };
        let (a, b) = (model_values(&fits[0]), model_values(&fits[1]));
        let got = model_values(&model);
        assert_eq!(got.len(), a.len(), "{name}");
        for i in 0..got.len() {
            let want = weight(0) * a[i] + weight(1) * b[i];
            assert!(
                (got[i] - want).abs() <= 1e-12 * (1.0 + want.abs()),
                "{name} averaging {averaging} [{i}]: {} vs {want}",
                got[i]
            );
        }
        assert!(got.iter().any(|&x| x != 0.0), "{name}");
    }
}

/// A hand computation on the state: sp's mixed (scaled) weights and bcd's factors are the
/// cell-wise means of the shards', the accumulators `T' x' - (S_0 + sum_i (S_i - S_0))`
/// (bol's too, of its mixed `alpha` and `beta = sqrt(sigma) v`); bol's Theta is the mean,
/// and the factors of each block the leading singular pair of the mean of the shards'
/// primal blocks `alpha_i beta_i^T` (checked against a power iteration written below).
#[test]
fn the_mixed_state_by_hand() {
    let corpus = corpus();
    for (name, params) in configurations() {
        let params = params.power_steps_if_bol(name).check().unwrap();
        let prepared = prepared(&params, &corpus);
        let plan = IpmPlan::from_prepared(&params, &prepared, 3).unwrap();
        let n = prepared.len();
        let shards: Vec<Shard> = (0..3)
            .map(|j| Shard::from_prepared(&plan, &prepared, j * n / 3..(j + 1) * n / 3).unwrap())
            .collect();
        // Two epochs: the start of the second is a mixed state with steps.
        let (start0, outs0) = first_epoch(&plan, &shards);
        let start = plan.mix(&start0, &outs0).unwrap();
        let outs: Vec<IpmWeights> = shards
            .iter()
            .enumerate()
            .map(|(j, s)| s.run_epoch(&plan, &start, plan.shard_seed(j)).unwrap().0)
            .collect();
        let mixed = plan.mix(&start, &outs).unwrap();
        let t0 = start.steps() as f64;
        let ts: Vec<f64> = outs.iter().map(|o| o.steps() as f64).collect();
        let t_new = t0 + ts.iter().map(|t| t - t0).sum::<f64>();
        assert_eq!(mixed.steps() as f64, t_new);
        let dense = |w: &IpmWeights| -> std::collections::BTreeMap<&'static str, Vec<f64>> {
            w.to_dense().unwrap().into_iter().collect()
        };
        let (d0, dm) = (dense(&start), dense(&mixed));
        let ds: Vec<_> = outs.iter().map(dense).collect();
        // The averaged value of `part` at entry `i`: bol keeps no `beta`, only `sigma` and
        // `v`, and averages `beta_k = sqrt(sigma_k) v_k`.
        let p = prepared.tags().len() + 1;
        let value = |d: &DenseState, part: &str, i: usize| -> f64 {
            if name == "bol" && part == "beta" {
                d["sigma"][i / p].sqrt() * d["v"][i]
            } else {
                d[part][i]
            }
        };
        let mut accumulators = 0;
        for (part, values) in &dm {
            if let Some(x) = part.strip_suffix("_acc") {
                accumulators += 1;
                for i in 0..values.len() {
                    let s0 = t0 * value(&d0, x, i) - d0[*part][i];
                    let s: f64 = s0
                        + (0..3)
                            .map(|j| ts[j] * value(&ds[j], x, i) - ds[j][*part][i] - s0)
                            .sum::<f64>();
                    let want = t_new * value(&dm, x, i) - s;
                    assert!(
                        (values[i] - want).abs() <= 1e-9 * (1.0 + want.abs()),
                        "{name} {part}[{i}]"
                    );
                }
                continue;
            }
            if name == "bol" && *part != "theta" && *part != "zero" {
                continue;
            }
            for i in 0..values.len() {
                let want = (ds[0][*part][i] + ds[1][*part][i] + ds[2][*part][i]) / 3.0;
                assert!(
                    (values[i] - want).abs() <= 1e-12 * (1.0 + want.abs()),
                    "{name} {part}[{i}]: {} vs {want}",
                    values[i]
                );
            }
        }
        let averaging = params.learner_settings().averaging;
        assert_eq!(
            averaging,
            accumulators > 0,
            "{name}: {accumulators} accumulators"
        );
        if name == "bol" {
            check_bol_factors(&dm, &ds, prepared.tags().len());
        }
    }
}

trait BolSteps {
    fn power_steps_if_bol(self, name: &str) -> Self;
}

impl BolSteps for TaggerParams {
    fn power_steps_if_bol(self, name: &str) -> Self {
        if name == "bol" {
            self.power_steps(1000)
        } else {
            self
        }
    }
}

type DenseState = std::collections::BTreeMap<&'static str, Vec<f64>>;

/// Every block's mixed `alpha_k (sqrt(sigma_k) v_k)^T` is the leading rank-1 part of the
/// mean over the shards of their primal blocks `alpha_i (sqrt(sigma_i) v_i)^T`, by an
/// independent power iteration on the dense mean block `W^T W`.
fn check_bol_factors(d: &DenseState, shards: &[DenseState], l: usize) {
    let p = l + 1;
    let (sigma, v, alpha) = (&d["sigma"], &d["v"], &d["alpha"]);
    let k = sigma.len();
    let mut checked = 0;
    for b in 0..k {
        let mut block = vec![0.0; l * p];
        for s in shards {
            let root = s["sigma"][b].sqrt();
            for a in 0..l {
                for c in 0..p {
                    block[a * p + c] +=
                        s["alpha"][b * l + a] * root * s["v"][b * p + c] / shards.len() as f64;
                }
            }
        }
        if block.iter().all(|&x| x == 0.0) {
            assert_eq!(sigma[b], 0.0, "block {b}: a zero mean block has sigma 0");
            assert!(
                alpha[b * l..(b + 1) * l].iter().all(|&x| x == 0.0),
                "block {b}"
            );
            continue;
        }
        // Start at the block's largest row (never in the null space of a nonzero block).
        let row = (0..l)
            .max_by(|&a, &c| {
                let n = |r: usize| (0..p).map(|e| block[r * p + e].powi(2)).sum::<f64>();
                n(a).total_cmp(&n(c))
            })
            .unwrap_or(0);
        let mut x: Vec<f64> = block[row * p..(row + 1) * p].to_vec();
        for _ in 0..2000 {
            let mut y = vec![0.0; l];
            for a in 0..l {
                y[a] = (0..p).map(|c| block[a * p + c] * x[c]).sum();
            }
            let mut z = vec![0.0; p];
            for c in 0..p {
                z[c] = (0..l).map(|a| block[a * p + c] * y[a]).sum();
            }
            let norm = z.iter().map(|t| t * t).sum::<f64>().sqrt();
            x = z.iter().map(|t| t / norm).collect();
        }
        let top: f64 = (0..l)
            .map(|a| (0..p).map(|c| block[a * p + c] * x[c]).sum::<f64>().powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(
            (sigma[b] - top).abs() <= 1e-6 * (1.0 + top),
            "block {b}: sigma {} vs {top}",
            sigma[b]
        );
        // v_k is a leading right singular vector (|W v_k| = sigma_k; the pair need not be
        // unique) and alpha_k = W v_k / sqrt(sigma_k).
        let tv: Vec<f64> = (0..l)
            .map(|a| (0..p).map(|c| block[a * p + c] * v[b * p + c]).sum())
            .collect();
        let norm = tv.iter().map(|t| t * t).sum::<f64>().sqrt();
        assert!(
            (norm - top).abs() <= 1e-6 * (1.0 + top),
            "block {b}: |W v| {norm} vs {top}"
        );
        for a in 0..l {
            let want = tv[a] / sigma[b].sqrt();
            let got = alpha[b * l + a];
            assert!(
                (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                "block {b} alpha[{a}]: {got} vs {want}"
            );
        }
        checked += 1;
    }
    assert!(checked > 0);
}

/// Two shards that both hold the whole corpus, with the same seed, give the one-shard
/// model: exactly for sp (two shards scale by a power of two) and the running weights of
/// every learner, the averages up to rounding.
#[test]
fn identical_shards_give_the_one_shard_model() {
    let corpus = corpus();
    for (name, params) in configurations() {
        let params = params.check().unwrap();
        let prepared = prepared(&params, &corpus);
        let one = fit_ipm(&params, &prepared, 1).unwrap();
        let plan = IpmPlan::from_prepared(&params, &prepared, 2).unwrap();
        let whole = Shard::from_prepared(&plan, &prepared, 0..prepared.len()).unwrap();
        let mut weights = plan.initial_weights().unwrap();
        let mut history = Vec::new();
        for _ in 0..params.iteration().max_iter {
            let (a, info) = whole
                .run_epoch(&plan, &weights, plan.shard_seed(0))
                .unwrap();
            let (b, _) = whole
                .run_epoch(&plan, &weights, plan.shard_seed(0))
                .unwrap();
            weights = plan.mix(&weights, &[a, b]).unwrap();
            history.push(info);
            if info.mistakes == 0 {
                break;
            }
        }
        let two = plan
            .finish(
                &weights,
                &history,
                whole.n_nonempty(),
                one.report().termination,
            )
            .unwrap();
        let averaging = params.learner_settings().averaging;
        if name == "sp" || !averaging {
            assert_eq!(
                model_bits(&two),
                model_bits(&one),
                "{name} averaging {averaging}"
            );
        } else {
            for (x, y) in model_values(&two).iter().zip(model_values(&one)) {
                assert!(
                    (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                    "{name}: {x} vs {y}"
                );
            }
        }
        assert_same_tags(&two, &one, &corpus, name);
    }
}

/// IPM over two shards learns the task.
#[test]
fn two_shards_learn() {
    let corpus = online_bilinear::synthetic::token_function(120, 5, 9).unwrap();
    for name in ["sp", "bol", "bcd"] {
        let params = TaggerParams::builtin(online_bilinear::BuiltIn::from_name(name).unwrap())
            .max_iter(10)
            .check()
            .unwrap();
        let prepared = prepared(&params, &corpus);
        let model = fit_ipm(&params, &prepared, 2).unwrap();
        let ordinary = params.fit(&prepared).unwrap();
        let (e2, e1) = (
            model.evaluate(&corpus).unwrap(),
            ordinary.evaluate(&corpus).unwrap(),
        );
        assert!(
            e2.label_error_rate <= e1.label_error_rate + 0.05,
            "{name}: {} vs {}",
            e2.label_error_rate,
            e1.label_error_rate
        );
        assert!(e2.label_error_rate < 0.2, "{name}: {}", e2.label_error_rate);
    }
}

/// Counting parts and merging gives the dictionary and tags of the whole corpus; shards
/// encoded from a corpus part equal those cut from the prepared corpus.
#[test]
fn merged_counts_give_the_whole_corpus_dictionary() {
    let corpus = corpus();
    let params = TaggerParams::bol().cutoff(2).check().unwrap();
    let prepared = prepared(&params, &corpus);
    let templates = prepared.templates().clone();
    let sentences = corpus.sentences();
    let parts: Vec<Corpus> = [0..7, 7..30, 30..60]
        .into_iter()
        .map(|r| Corpus::new(sentences[r].to_vec()))
        .collect();
    let counts: Vec<FeatureCounts> = parts
        .iter()
        .map(|c| {
            let counted = FeatureCounts::count(c, &templates).unwrap();
            FeatureCounts::from_json(&counted.to_json().unwrap()).unwrap()
        })
        .collect();
    let merged = FeatureCounts::merge(&counts).unwrap();
    let plan = IpmPlan::from_counts(&params, merged, 3).unwrap();
    assert_eq!(plan.features(), prepared.features());
    assert_eq!(plan.tags(), prepared.tags());
    let again = IpmPlan::from_json(&plan.to_json().unwrap()).unwrap();
    assert_eq!(again.features(), plan.features());
    // The same plan: weights of one are read by the other.
    let w = plan.initial_weights().unwrap();
    assert!(IpmWeights::from_bytes(&again, &w.to_bytes()).is_ok());
    let from_part = Shard::encode(&plan, &parts[1]).unwrap();
    let cut = Shard::from_prepared(&plan, &prepared, 7..30).unwrap();
    let (a, _) = from_part.run_epoch(&plan, &w, 5).unwrap();
    let (b, _) = cut.run_epoch(&plan, &w, 5).unwrap();
    assert_eq!(a.to_bytes(), b.to_bytes());
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Rewrites the checksum after a change, so that the structural checks are reached.
fn resum(bytes: &mut [u8]) {
    let n = bytes.len() - 8;
    let sum = fnv(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
}

/// The binary form round-trips, and every damaged form is a typed error: each truncation,
/// each flipped byte, another version, another plan, and tampered contents with a valid
/// checksum.
#[test]
fn the_binary_form_is_checked_in_full() {
    let corpus = corpus();
    for (name, params) in configurations() {
        let params = params.check().unwrap();
        let prepared = prepared(&params, &corpus);
        let plan = IpmPlan::from_prepared(&params, &prepared, 2).unwrap();
        let shard = Shard::from_prepared(&plan, &prepared, 0..30).unwrap();
        let start = plan.initial_weights().unwrap();
        let (w, _) = shard.run_epoch(&plan, &start, 1).unwrap();
        let bytes = w.to_bytes();
        let back = IpmWeights::from_bytes(&plan, &bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes, "{name}");
        assert_eq!(back.to_dense().unwrap(), w.to_dense().unwrap(), "{name}");
        let stride = (bytes.len() / 40).max(1);
        for cut in (0..bytes.len()).step_by(stride) {
            assert!(
                IpmWeights::from_bytes(&plan, &bytes[..cut]).is_err(),
                "{name}: cut at {cut}"
            );
        }
        for at in (0..bytes.len())
            .step_by(stride)
            .chain(bytes.len() - 20..bytes.len())
        {
            let mut bad = bytes.clone();
            bad[at] ^= 0x41;
            assert!(
                IpmWeights::from_bytes(&plan, &bad).is_err(),
                "{name}: byte {at}"
            );
            // With a valid checksum, whatever the change: an error or a checked state.
            resum(&mut bad);
            if let Ok(w) = IpmWeights::from_bytes(&plan, &bad) {
                let _ = plan.mix(&start, &[w.clone(), w]);
            }
        }
        let mut version = bytes.clone();
        version[6] = 2;
        resum(&mut version);
        let err = IpmWeights::from_bytes(&plan, &version)
            .unwrap_err()
            .to_string();
        assert!(err.contains("version 2"), "{err}");
        let other = IpmPlan::from_prepared(&params, &prepared, 3).unwrap();
        let err = IpmWeights::from_bytes(&other, &bytes)
            .unwrap_err()
            .to_string();
        assert!(err.contains("another plan"), "{err}");
        assert!(
            plan.mix(&start, std::slice::from_ref(&w)).is_err(),
            "{name}: one weight for two shards"
        );
        assert!(
            plan.mix(&w, &[w.clone(), w.clone()]).is_err(),
            "{name}: not the next epoch"
        );
    }
}

#[test]
fn plans_refuse_what_they_cannot_run() {
    let corpus = corpus();
    let crf = TaggerParams::crf_l2().check().unwrap();
    let prepared = prepared(&crf, &corpus);
    assert!(IpmPlan::from_prepared(&crf, &prepared, 2).is_err());
    let spectral = TaggerParams::bol()
        .reading(online_bilinear::Reading::SpectralExact)
        .check()
        .unwrap();
    assert!(IpmPlan::from_prepared(&spectral, &prepared, 2).is_err());
    let sp = TaggerParams::sp().check().unwrap();
    assert!(IpmPlan::from_prepared(&sp, &prepared, 0).is_err());
    assert!(IpmPlan::from_prepared(&sp, &prepared, 5000).is_err());
    let plan = IpmPlan::from_prepared(&sp, &prepared, 2).unwrap();
    assert!(Shard::from_prepared(&plan, &prepared, 50..70).is_err());
    assert!(IpmPlan::from_json("{\"format\": 1}").is_err());
    assert!(FeatureCounts::merge(&[]).is_err());
}
