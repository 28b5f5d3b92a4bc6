//! Tests of the distributed fit: the merged plan against one pass over the concatenated
//! data, the shard-summed gradient against the one-pass gradient, one shard against the
//! one-machine fit bit for bit, mixing against hand computations, and the byte forms.

use super::*;
use crate::test_support::lcg;
use crate::{CrfError, CrfParams, DatasetBuilder, Fit, Lbfgs, ParamGuard};

/// A raw sequence: items of `(attribute, value)` pairs with a label.
type Raw = Vec<(Vec<(String, f64)>, String)>;

/// `n` pseudo-random sequences over `l` labels and 9 attributes, values in -1..2 when
/// `signed`, else 1.
fn raw(n: usize, l: usize, seed: u64, signed: bool) -> Vec<Raw> {
    let mut next = lcg(seed);
    (0..n)
        .map(|_| {
            (0..1 + next() % 6)
                .map(|_| {
                    let attrs = (0..1 + next() % 3)
                        .map(|_| {
                            let v = if signed {
                                (next() % 7) as f64 * 0.5 - 1.0
                            } else {
                                1.0
                            };
                            (format!("a{}", next() % 9), v)
                        })
                        .collect();
                    (attrs, format!("y{}", next() % l))
                })
                .collect()
        })
        .collect()
}

/// The error of a lookup that a test expects to succeed: `what` was not found.
fn absent(what: &str) -> CrfError {
    CrfError::Model(format!("test lookup failed: no {what}"))
}

fn dataset(seqs: &[Raw]) -> Result<Dataset> {
    let mut b = DatasetBuilder::new();
    for seq in seqs {
        for (attrs, y) in seq {
            for (a, v) in attrs {
                b.attribute(a, *v)?;
            }
            b.end_item(y)?;
        }
        b.end_sequence()?;
    }
    Ok(b.finish())
}

/// The data split at `cuts` into local data sets, their plan and shards.
fn shards(
    seqs: &[Raw],
    cuts: &[usize],
    options: &FeatureOptions,
    seed: u64,
) -> Result<(Plan, Vec<Shard>)> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(seqs.len());
    let locals: Vec<Dataset> = bounds
        .windows(2)
        .map(|b| dataset(&seqs[b[0]..b[1]]))
        .collect::<Result<Vec<_>>>()?;
    // Summaries and remaps travel as bytes.
    let summaries: Vec<ShardSummary> = locals
        .iter()
        .map(|d| ShardSummary::from_bytes(&ShardSummary::of(d)?.to_bytes()))
        .collect::<Result<Vec<_>>>()?;
    let plan = Plan::merge(&summaries, options)?;
    let features = FeatureSet::from_bytes(&plan.features().to_bytes())?;
    assert_eq!(&features, plan.features());
    let shards = locals
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let remap = plan
                .remap(i)
                .ok_or_else(|| absent(&format!("remap of shard {i} in the plan")))?;
            let remap = Remap::from_bytes(&remap.to_bytes())?;
            Shard::new(d, &remap, features.clone(), i, seed)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((plan, shards))
}

/// `lbfgs` with `options` and `max_iter` on one thread.
fn lbfgs_on_one_thread(options: FeatureOptions, max_iter: usize) -> Result<crate::CrfValidParams> {
    CrfParams::new(Algorithm::from_name("lbfgs")?)
        .features(options)
        .max_iter(max_iter)
        .threads(Some(1))
        .check()
}

const OPTIONS: [FeatureOptions; 4] = [
    FeatureOptions {
        min_freq: 0.0,
        all_possible_states: false,
        all_possible_transitions: false,
    },
    FeatureOptions {
        min_freq: 0.0,
        all_possible_states: true,
        all_possible_transitions: true,
    },
    FeatureOptions {
        min_freq: 2.0,
        all_possible_states: false,
        all_possible_transitions: false,
    },
    FeatureOptions {
        min_freq: 1.5,
        all_possible_states: true,
        all_possible_transitions: true,
    },
];

#[test]
fn the_plan_is_one_pass_over_the_concatenated_data() -> Result<()> {
    for seed in 0..6 {
        for signed in [false, true] {
            let seqs = raw(40, 4, seed, signed);
            let full = dataset(&seqs)?;
            for options in &OPTIONS {
                let (plan, _) = shards(&seqs, &[7, 20, 33], options, 0)?;
                assert_eq!(plan.attributes().names(), full.attributes().names());
                assert_eq!(plan.labels().names(), full.labels().names());
                assert_eq!(plan.features(), &FeatureSet::generate(&full, options)?);
                assert_eq!(
                    (plan.sequences(), plan.items()),
                    (full.len(), full.n_items())
                );
            }
        }
    }
    Ok(())
}

#[test]
fn the_shard_summed_gradient_is_the_one_pass_gradient() -> Result<()> {
    for seed in 0..5 {
        let seqs = raw(50, 5, seed, true);
        let full = dataset(&seqs)?;
        for options in &OPTIONS[..2] {
            let features = FeatureSet::generate(&full, options)?;
            let w: Vec<f64> = (0..features.len())
                .map(|j| ((j * 37 % 11) as f64 - 5.0) / 7.0)
                .collect();
            let mut one = vec![0.0; w.len()];
            let f_one = lbfgs::Likelihood::new(&full, &features, 1)?.eval(&w, &mut one);
            for cuts in [&[][..], &[25], &[3, 17, 18, 40]] {
                let (_, mut sh) = shards(&seqs, cuts, options, 0)?;
                let mut g = vec![0.0; w.len()];
                let f = sh.loss_and_gradient(&w, &mut g)?;
                assert!((f - f_one).abs() <= 1e-12 * f_one.abs(), "{f} vs {f_one}");
                for j in 0..w.len() {
                    assert!(
                        (g[j] - one[j]).abs() <= 1e-12 * (1.0 + one[j].abs()),
                        "{cuts:?}, feature {j}: {} vs {}",
                        g[j],
                        one[j]
                    );
                }
                if cuts.is_empty() {
                    assert_eq!(f.to_bits(), f_one.to_bits());
                    assert_eq!(g, one);
                }
            }
        }
    }
    Ok(())
}

fn algorithms() -> Result<Vec<Algorithm>> {
    let pa = |pa_type, averaging| {
        Algorithm::PassiveAggressive(crate::PassiveAggressive {
            pa_type,
            averaging,
            ..crate::PassiveAggressive::default()
        })
    };
    Ok(vec![
        Algorithm::from_name("ap")?,
        pa(crate::PaType::PaI, true),
        pa(crate::PaType::PaII, false),
        Algorithm::from_name("arow")?,
    ])
}

#[test]
fn one_shard_is_the_one_machine_fit_bit_for_bit() -> Result<()> {
    let seqs = raw(60, 4, 3, true);
    let full = dataset(&seqs)?;
    let options = OPTIONS[1];
    let lbfgs = lbfgs_on_one_thread(options, 15)?;
    let one = lbfgs.fit(&full)?;
    let (plan, mut sh) = shards(&seqs, &[], &options, 11)?;
    let dist = fit_lbfgs(&lbfgs, &plan, &mut sh, None, &mut [])?;
    assert_eq!(dist.model(), one.model());
    assert_eq!(dist.log().len(), one.log().len());
    for algorithm in algorithms()? {
        let params = CrfParams::new(algorithm.clone())
            .features(options)
            .max_iter(7)
            .seed(11)
            .check()?;
        let one = params.fit(&full)?;
        let (plan, mut sh) = shards(&seqs, &[], &options, 11)?;
        let dist = fit_online(&params, &plan, &mut sh, None, &mut [])?;
        assert_eq!(dist.model(), one.model(), "{}", algorithm.name());
        let losses = |f: &FittedCrf| f.log().iter().map(|e| e.loss).collect::<Vec<_>>();
        assert_eq!(losses(&dist), losses(&one));
    }
    Ok(())
}

#[test]
fn k_shards_train_and_stay_deterministic() -> Result<()> {
    let seqs = raw(80, 3, 5, false);
    let options = OPTIONS[0];
    let params = lbfgs_on_one_thread(options, 10)?;
    let one = params.fit(&dataset(&seqs)?)?;
    let (plan, mut sh) = shards(&seqs, &[30, 55], &options, 0)?;
    let dist = fit_lbfgs(&params, &plan, &mut sh, None, &mut [])?;
    assert_eq!(dist.log().len(), one.log().len());
    assert!(!one.log().is_empty());
    for (a, b) in dist.log().iter().zip(one.log()) {
        assert!((a.loss - b.loss).abs() <= 1e-9 * b.loss.abs());
    }
    for algorithm in algorithms()? {
        let params = CrfParams::new(algorithm)
            .features(options)
            .max_iter(5)
            .check()?;
        let run = || -> Result<FittedCrf> {
            let (plan, mut sh) = shards(&seqs, &[30, 55], &options, 4)?;
            fit_online(&params, &plan, &mut sh, None, &mut [])
        };
        let (a, b) = (run()?, run()?);
        assert_eq!(a.model(), b.model());
        assert!(a.model().weights().iter().any(|&w| w != 0.0));
    }
    Ok(())
}

/// The plan and two shards of one sequence each: shard 0 `[a/X, b/Y]`, shard 1 `[c/Y]`.
fn two_small_shards() -> Result<(Plan, Vec<Shard>)> {
    let seqs: Vec<Raw> = vec![
        vec![
            (vec![("a".into(), 1.0)], "X".into()),
            (vec![("b".into(), 1.0)], "Y".into()),
        ],
        vec![(vec![("c".into(), 1.0)], "Y".into())],
    ];
    shards(&seqs, &[1], &FeatureOptions::default(), 0)
}

/// One epoch of `algorithm` from zero weights on each of [`two_small_shards`]. Viterbi
/// tags every item X (the lower label), so shard 0 errs at position 1 (difference:
/// `(b, Y)` and the transition `(X, Y)`, each +1; `(b, X)` and `(X, X)` are no features)
/// and shard 1 at position 0 (`(c, Y)` +1).
fn hand_shards(algorithm: &Algorithm) -> Result<(Plan, Vec<EpochResult>, OnlineState)> {
    let (plan, mut sh) = two_small_shards()?;
    let start = OnlineState::initial(algorithm, plan.features().len())?;
    let results = sh
        .iter_mut()
        .map(|s| {
            let r = s.epoch(algorithm, &start)?;
            EpochResult::from_bytes(&r.to_bytes())
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((plan, results, start))
}

/// The weight of `(attribute, label)` or of the transition `(X, Y)` in `w`.
fn at(plan: &Plan, w: &[f64], name: &str) -> Result<f64> {
    let f = plan.features();
    let k = if name == "X>Y" {
        f.transition(0, 1)
            .ok_or_else(|| absent("transition feature X>Y"))?
    } else {
        let (a, y) = name
            .split_once('/')
            .ok_or_else(|| absent(&format!("'/' in the feature name {name:?}")))?;
        let a = plan
            .attributes()
            .get(a)
            .ok_or_else(|| absent(&format!("attribute {a:?} in the plan")))?;
        let y = plan
            .labels()
            .get(y)
            .ok_or_else(|| absent(&format!("label {y:?} in the plan")))?;
        f.state_feature(a, y)
            .ok_or_else(|| absent(&format!("state feature {name:?}")))?
    };
    Ok(w[k])
}

#[test]
fn two_shards_mix_to_the_hand_computed_average() -> Result<()> {
    let names = ["a/X", "b/Y", "X>Y", "c/Y"];
    let check = |plan: &Plan, w: &[f64], want: [f64; 4]| -> Result<()> {
        assert_eq!(w.len(), 4);
        for (n, e) in names.iter().zip(want) {
            assert!(
                (at(plan, w, n)? - e).abs() < 1e-15,
                "{n}: {} vs {e}",
                at(plan, w, n)?
            );
        }
        Ok(())
    };
    // ap: w_0 = (b/Y, X>Y) = 1, w_1 = c/Y = 1, one mistake each: the mean, 1/2 each; the
    // average of the two iterates is the same vector.
    let ap = Algorithm::from_name("ap")?;
    let (plan, results, start) = hand_shards(&ap)?;
    assert_eq!((results[0].loss(), results[1].loss()), (0.5, 1.0));
    assert_eq!((results[0].mistakes(), results[1].mistakes()), (1, 1));
    check(&plan, results[0].state().weights(), [0.0, 1.0, 1.0, 0.0])?;
    check(&plan, results[1].state().weights(), [0.0, 0.0, 0.0, 1.0])?;
    let mixed = mix(&start, &results)?;
    check(&plan, mixed.weights(), [0.0, 0.5, 0.5, 0.5])?;
    check(&plan, &mixed.model_weights(), [0.0, 0.5, 0.5, 0.5])?;
    assert_eq!(mixed.instances(), 2);
    // pa (PA-I, C = 1, no averaging): cost 0 - 0 + sqrt(1) = 1 each; ||delta||^2 = 2 and
    // 1, so tau = 1/2 and 1: mixed (1/4, 1/4, 1/2).
    let pa = Algorithm::PassiveAggressive(crate::PassiveAggressive {
        averaging: false,
        ..crate::PassiveAggressive::default()
    });
    let (plan, results, start) = hand_shards(&pa)?;
    let mixed = mix(&start, &results)?;
    check(&plan, &mixed.model_weights(), [0.0, 0.25, 0.25, 0.5])?;
    // arow (variance 1, gamma 1): cost 1 each; confidence 1 + 2 and 1 + 1, so alpha =
    // 1/3 and 1/2, w_0 = 1/3 on b/Y and X>Y, w_1 = 1/2 on c/Y; mixed (1/6, 1/6, 1/4).
    // Every touched precision goes 1 -> 2 on one shard: variances 1/2, a/X keeps 1.
    let arow = Algorithm::from_name("arow")?;
    let (plan, results, start) = hand_shards(&arow)?;
    let mixed = mix(&start, &results)?;
    check(
        &plan,
        &mixed.model_weights(),
        [0.0, 1.0 / 6.0, 1.0 / 6.0, 0.25],
    )?;
    let variances = mixed
        .variances()
        .ok_or_else(|| absent("variances in the mixed arow state"))?;
    check(&plan, variances, [1.0, 0.5, 0.5, 0.5])?;
    // The same through fit_online, one epoch.
    let params = CrfParams::new(ap).max_iter(1).check()?;
    let (plan, mut sh) = two_small_shards()?;
    let fitted = fit_online(&params, &plan, &mut sh, None, &mut [])?;
    check(&plan, fitted.model().weights(), [0.0, 0.5, 0.5, 0.5])?;
    assert_eq!(fitted.log()[0].loss, 1.5);
    assert_eq!(fitted.log()[0].errors, Some(2));
    Ok(())
}

#[test]
fn mixing_weighs_by_mistakes_and_accumulates_the_average() -> Result<()> {
    // Three shards from a nonzero averaged state (T0 = 4): the mixed w is the
    // mistake-weighted mean; the model is (sum of the iterates before + each shard's
    // iterates) / (T0 + instances).
    let prev = OnlineState {
        weights: Weights {
            w: vec![1.0, -2.0],
            sum: Some(vec![0.5, 1.0]),
            seen: 4,
        },
        cov: None,
    };
    // Shard i: n_i instances, its own w_i and s_i (lazy form), m_i mistakes.
    let shard = |n: u64, w: [f64; 2], s: [f64; 2], m: u64| EpochResult {
        state: OnlineState {
            weights: Weights {
                w: w.to_vec(),
                sum: Some(s.to_vec()),
                seen: 4 + n,
            },
            cov: None,
        },
        loss: 0.0,
        errors: m,
        mistakes: m,
        instances: n,
    };
    let results = [
        shard(2, [3.0, -2.0], [4.5, 1.0], 1),
        shard(3, [1.0, -2.0], [0.5, 1.0], 0),
        shard(1, [0.0, 2.0], [-3.5, -15.0], 3),
    ];
    let mixed = mix(&prev, &results)?;
    // w: (1 * w_0 + 0 * w_1 + 3 * w_2) / 4.
    assert_eq!(mixed.weights(), [0.75, 1.0]);
    assert_eq!(mixed.instances(), 10);
    // Iterate sums: before 4 w - s = (3.5, -9); shard i adds (4 + n_i) w_i - s_i - before.
    let before = [3.5, -9.0];
    let mut total = before;
    for r in &results {
        let st = &r.state.weights;
        let sum = st
            .sum
            .as_ref()
            .ok_or_else(|| absent("iterate sum in a shard's state"))?;
        for j in 0..2 {
            total[j] += st.seen as f64 * st.w[j] - sum[j] - before[j];
        }
    }
    let model = mixed.model_weights();
    for j in 0..2 {
        assert!((model[j] - total[j] / 10.0).abs() < 1e-14, "{j}");
    }
    // No mistake anywhere: the weights are unchanged.
    let quiet = [
        shard(2, [1.0, -2.0], [0.5, 1.0], 0),
        shard(1, [1.0, -2.0], [0.5, 1.0], 0),
    ];
    assert_eq!(mix(&prev, &quiet)?.weights(), [1.0, -2.0]);
    // Wrong instance counts or another trainer's state are refused.
    let mut off = shard(2, [1.0, -2.0], [0.5, 1.0], 0);
    off.instances = 3;
    assert!(mix(&prev, &[off]).is_err());
    let mut other = shard(2, [1.0, -2.0], [0.5, 1.0], 0);
    other.state.weights.sum = None;
    assert!(mix(&prev, &[other]).is_err());
    assert!(mix(&prev, &[]).is_err());
    Ok(())
}

#[test]
fn bytes_round_trip_and_bad_bytes_are_typed_errors() -> Result<()> {
    let seqs = raw(10, 3, 1, true);
    let full = dataset(&seqs)?;
    let summary = ShardSummary::of(&full)?;
    let bytes = summary.to_bytes();
    assert_eq!(ShardSummary::from_bytes(&bytes)?, summary);
    let state = OnlineState::initial(&Algorithm::from_name("arow")?, 5)?;
    let sb = state.to_bytes();
    assert_eq!(OnlineState::from_bytes(&sb)?, state);
    let vb = vector_to_bytes(2.5, &[1.0, -3.0]);
    assert_eq!(vector_from_bytes(&vb)?, (2.5, vec![1.0, -3.0]));
    let serialized = |r: Result<_>| matches!(r, Err(CrfError::Serialized(_)));
    for b in [&bytes[..], &sb[..], &vb[..]] {
        // Every truncation, another version, a trailing byte.
        for cut in 0..b.len() {
            assert!(serialized(ShardSummary::from_bytes(&b[..cut]).map(|_| ())));
            assert!(serialized(OnlineState::from_bytes(&b[..cut]).map(|_| ())));
            assert!(serialized(vector_from_bytes(&b[..cut]).map(|_| ())));
        }
        let mut v = b.to_vec();
        v[4] = 2;
        assert!(serialized(vector_from_bytes(&v).map(|_| ())));
        assert!(serialized(OnlineState::from_bytes(&v).map(|_| ())));
        let mut t = b.to_vec();
        t.push(0);
        assert!(serialized(ShardSummary::from_bytes(&t).map(|_| ())));
        assert!(serialized(OnlineState::from_bytes(&t).map(|_| ())));
        assert!(serialized(vector_from_bytes(&t).map(|_| ())));
    }
    // The wrong kind of message.
    assert!(serialized(OnlineState::from_bytes(&vb).map(|_| ())));
    assert!(serialized(FeatureSet::from_bytes(&sb).map(|_| ())));
    // A length claiming far more than the bytes hold, a non-finite value, a bad variance.
    let mut huge = vb.clone();
    huge[17..25].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(serialized(vector_from_bytes(&huge).map(|_| ())));
    let nan = vector_to_bytes(0.0, &[f64::NAN]);
    assert!(serialized(vector_from_bytes(&nan).map(|_| ())));
    let mut neg = state.clone();
    neg.cov
        .as_mut()
        .ok_or_else(|| absent("covariance in the arow state"))?[0] = -1.0;
    assert!(serialized(
        OnlineState::from_bytes(&neg.to_bytes()).map(|_| ())
    ));
    // Every single-byte change of a feature set is read or refused, never a panic.
    let fs = FeatureSet::generate(&full, &FeatureOptions::default())?.to_bytes();
    for i in 0..fs.len() {
        let mut m = fs.clone();
        m[i] ^= 0x5a;
        let _ = FeatureSet::from_bytes(&m);
    }
    Ok(())
}

/// A weight count above `MAX_ELEMENTS` (or `usize::MAX`) for the initial state: it used
/// to be allocated at once (`vec![0.0; n]`: a capacity-overflow panic or an abort); it is
/// refused before, naming the weights.
#[test]
fn an_initial_state_above_the_limit_is_refused_before_allocation() -> Result<()> {
    for name in ["ap", "pa", "arow"] {
        let algorithm = Algorithm::from_name(name)?;
        for n in [bl_core::limits::MAX_ELEMENTS + 1, usize::MAX] {
            let err = OnlineState::initial(&algorithm, n).unwrap_err().to_string();
            assert!(err.contains("weights"), "{name}: {err}");
        }
    }
    Ok(())
}

#[test]
fn shards_refuse_what_does_not_fit() -> Result<()> {
    let seqs = raw(10, 3, 2, false);
    let (plan, mut sh) = shards(&seqs, &[5], &FeatureOptions::default(), 0)?;
    let n = plan.features().len();
    let mut g = vec![0.0; n];
    assert!(sh[0].loss_and_gradient(&vec![0.0; n + 1], &mut g).is_err());
    let lbfgs = Algorithm::from_name("lbfgs")?;
    assert!(OnlineState::initial(&lbfgs, n).is_err());
    let ap = Algorithm::from_name("ap")?;
    let arow_state = OnlineState::initial(&Algorithm::from_name("arow")?, n)?;
    assert!(sh[0].epoch(&ap, &arow_state).is_err());
    assert!(sh[0].epoch(&lbfgs, &arow_state).is_err());
    // A remap of other sizes.
    let other = Remap {
        attributes: vec![0],
        labels: vec![0],
        n_attributes: 1,
        n_labels: 1,
    };
    let local = dataset(&seqs[..2])?;
    assert!(Shard::new(local, &other, plan.features().clone(), 0, 0).is_err());
    // Options other than the plan's.
    let params = CrfParams::new(ap)
        .features(FeatureOptions {
            min_freq: 3.0,
            ..FeatureOptions::default()
        })
        .check()?;
    assert!(fit_online(&params, &plan, &mut sh, None, &mut []).is_err());
    assert!(Plan::merge(&[], &FeatureOptions::default()).is_err());
    Ok(())
}

/// The shards' sum, with entry 0 of the gradient replaced by `bad` from evaluation
/// `from` on (counting from 1); the loss stays the true, finite one.
struct Poisoned {
    shards: Vec<Shard>,
    calls: usize,
    from: usize,
    bad: f64,
}

impl GradientSource for Poisoned {
    fn loss_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let loss = self.shards.loss_and_gradient(w, grad)?;
        self.calls += 1;
        if self.calls >= self.from {
            grad[0] = self.bad;
        }
        Ok(loss)
    }
}

#[test]
fn a_non_finite_gradient_from_the_shards_is_a_numerical_error_not_convergence() -> Result<()> {
    let seqs = raw(40, 3, 5, true);
    let options = OPTIONS[1];
    for (from, c1) in [(1, 0.0), (1, 0.5), (3, 0.5)] {
        for bad in [f64::NAN, f64::INFINITY] {
            let lbfgs = Lbfgs {
                c1,
                ..Lbfgs::default()
            };
            let params = CrfParams::new(Algorithm::Lbfgs(lbfgs))
                .features(options)
                .max_iter(50)
                .threads(Some(1))
                .check()?;
            let (plan, shards) = shards(&seqs, &[20], &options, 7)?;
            let mut source = Poisoned {
                shards,
                calls: 0,
                from,
                bad,
            };
            let Err(err) = fit_lbfgs(&params, &plan, &mut source, None, &mut []) else {
                panic!(
                    "from call {from}, c1 {c1}, {bad}: the fit succeeded, an error was expected"
                );
            };
            assert!(
                matches!(
                    err,
                    CrfError::Core(bl_core::BlError::Numerical {
                        context: "lbfgs",
                        ..
                    })
                ),
                "from call {from}, c1 {c1}, {bad}: {err}"
            );
        }
    }
    Ok(())
}
