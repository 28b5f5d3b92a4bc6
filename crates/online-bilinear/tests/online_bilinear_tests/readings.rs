//! The paper's literal readings kept beside ours (README, "Where we differ from the paper"):
//! bol with `F_1*(Theta) = 1/2 ||Theta||_2^2` (exact gradient, and Algorithm 2's eqs.
//! (9)-(12) as printed) and bcd with Algorithm 1's start and the SVM (7) as printed.

use crate::common;

use bl_core::linalg::top_singular_vectors;
use bl_core::random::seeded_rng;
use online_bilinear::Fit as _;
use online_bilinear::{
    BcdSolver, BlockUpdate, Reading, SpectralMode, SpectralRankOne, TaggerParams, Templates,
};

/// Checks a reading's state after one update: `(before, update, after, (n_blocks, l, p))`.
type Check = fn(&SpectralRankOne, &BlockUpdate, &SpectralRankOne, (usize, usize, usize));

/// A reading under test: the mode, `(n_blocks, l, p)`, `(seed, updates, power steps)`
/// and the check.
type Run = (
    SpectralMode,
    (usize, usize, usize),
    (u64, usize, usize),
    Check,
);

/// Each reading's invariants after every one of a run of random updates (seeded).
#[test]
fn spectral_readings_keep_their_invariants_under_random_updates() {
    let runs: [Run; 2] = [
        (
            SpectralMode::Exact,
            (5, 3, 4),
            (11, 25, 1),
            exact_reading_is_the_dense_leading_pair,
        ),
        (
            SpectralMode::Algorithm2,
            (6, 2, 3),
            (12, 40, 4),
            algorithm2_keeps_unit_vectors,
        ),
    ];
    for (mode, (n_blocks, l, p), (seed, steps, power_steps), check) in runs {
        let mut state = SpectralRankOne::new(n_blocks, l, p, mode, false).unwrap();
        let mut rng = seeded_rng(seed);
        for _ in 0..steps {
            let d = common::random_update(&mut rng, n_blocks, l, p);
            let before = state.clone();
            state.update(&d, power_steps).unwrap();
            check(&before, &d, &state, (n_blocks, l, p));
        }
    }
}

/// The exact reading's `W = alpha beta^T` is `sigma_1 u_1 v_1^T` of the dense block-diagonal
/// `Theta` (Proposition 2): one block, checked against a dense SVD.
fn exact_reading_is_the_dense_leading_pair(
    _: &SpectralRankOne,
    _: &BlockUpdate,
    state: &SpectralRankOne,
    (n_blocks, l, p): (usize, usize, usize),
) {
    let dense = state.theta().to_dense();
    let svd = top_singular_vectors(dense.as_ref(), 1).unwrap();
    let sigma = svd.s[0];
    assert!((state.sigma_max() - sigma).abs() < 1e-9 * sigma);
    let (alpha, beta) = state.alpha_beta();
    for i in 0..n_blocks * l {
        for j in 0..n_blocks * p {
            if i / l != j / p {
                continue; // the score reads only the diagonal blocks
            }
            let whole = sigma * svd.u[(i, 0)] * svd.v[(j, 0)];
            assert!(
                (alpha[i] * beta[j] - whole).abs() < 1e-5 * sigma,
                "entry ({i}, {j})"
            );
        }
    }
    assert_eq!(state.nonzero_blocks(), 1);
    assert_eq!(
        state.top_block().map(|k| k * l),
        Some(
            (0..n_blocks * l)
                .max_by(|&a, &b| svd.u[(a, 0)].abs().total_cmp(&svd.u[(b, 0)].abs()))
                .unwrap()
                / l
                * l
        )
    );
}

/// Algorithm 2 keeps `alpha` and `beta` unit vectors (line 12) with the bookkeeping of the
/// global scale, and touches only the blocks of the update.
fn algorithm2_keeps_unit_vectors(
    before: &SpectralRankOne,
    d: &BlockUpdate,
    state: &SpectralRankOne,
    (n_blocks, l, p): (usize, usize, usize),
) {
    let (before_a, before_b) = before.alpha_beta();
    let (a, b) = state.alpha_beta();
    // alpha_beta() is sqrt(sigma_1) times the unit vectors.
    let root = state.sigma_max().sqrt();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt() / root;
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt() / root;
    assert!(
        (na - 1.0).abs() < 1e-9 && (nb - 1.0).abs() < 1e-9,
        "{na} {nb}"
    );
    if before.sigma_max() > 0.0 {
        // Untouched blocks keep their direction: only the global scale changed.
        let touched: Vec<usize> = d.blocks().iter().map(|&k| k as usize).collect();
        let ratio = |new: &[f64], old: &[f64], width: usize| -> Vec<f64> {
            (0..n_blocks)
                .filter(|k| !touched.contains(k))
                .flat_map(|k| (k * width..(k + 1) * width).collect::<Vec<_>>())
                .filter(|&j| old[j].abs() > 1e-9)
                .map(|j| new[j] / old[j])
                .collect()
        };
        for r in [ratio(&a, &before_a, l), ratio(&b, &before_b, p)] {
            if let Some(first) = r.first() {
                assert!(r.iter().all(|x| (x - first).abs() < 1e-9 * first.abs()));
            }
        }
    }
}

#[test]
fn literal_readings_train_and_the_exact_one_keeps_a_single_feature() {
    let train = common::lexicon_corpus(300, 1);
    let test = common::lexicon_corpus(100, 2);
    let fit = |p: TaggerParams| {
        let model = p.max_iter(8).fit(&train).unwrap();
        let e = model.evaluate(&test).unwrap();
        (model, e.label_error_rate)
    };
    // Algorithm 2 as printed learns the task (it is a normalized bilinear perceptron).
    let (_, error) = fit(TaggerParams::bol().reading(Reading::SpectralAlgorithm2));
    assert!(
        error < 0.1,
        "Algorithm 2 as printed: test label error {error}"
    );
    let (_, error) = fit(TaggerParams::bol()
        .reading(Reading::SpectralAlgorithm2)
        .averaging(true)
        .zero_order(true));
    assert!(
        error < 0.1,
        "Algorithm 2 + extensions: test label error {error}"
    );
    // bcd as Algorithm 1 prints it learns it too.
    let (_, error) = fit(TaggerParams::bcd().bcd_solver(BcdSolver::Algorithm1));
    assert!(
        error < 0.1,
        "bcd, Algorithm 1 as printed: test label error {error}"
    );
    // The exact gradient of 1/2 ||Theta||_2^2 keeps one feature's block.
    let (model, error) = fit(TaggerParams::bol().reading(Reading::SpectralExact));
    let (alpha, beta) = (model.alpha().unwrap(), model.beta().unwrap());
    let l = model.tags().len();
    let nonzero = (0..model.n_features())
        .filter(|&k| {
            alpha[k * l..(k + 1) * l].iter().any(|&x| x != 0.0)
                && beta[k * (l + 1)..(k + 2) * (l + 1) - (l + 1)]
                    .iter()
                    .any(|&x| x != 0.0)
        })
        .count();
    assert_eq!(nonzero, 1);
    let (_, ours) = fit(TaggerParams::bol());
    assert!(error > ours + 0.2, "exact {error} vs per-block {ours}");
}

#[test]
fn parameters_saved_before_the_readings_existed_still_load() {
    let train = common::lexicon_corpus(20, 1);
    let model = TaggerParams::bol()
        .templates(Templates::segmentation())
        .max_iter(1)
        .fit(&train)
        .unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
    let object = json["params"].as_object_mut().unwrap();
    assert!(object.remove("reading").is_some());
    assert!(object.remove("bcd_solver").is_some());
    let back = online_bilinear::FittedTagger::from_json(&json.to_string()).unwrap();
    assert_eq!(back.settings(), model.settings());
    assert_eq!(back.settings().reading, Reading::PerBlock);
}
