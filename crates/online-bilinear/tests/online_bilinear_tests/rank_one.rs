//! bol's dual state: the warm-started block power steps against bl-core's power iteration
//! and against a dense SVD of the whole block-diagonal Theta.

use crate::common;

use bl_core::linalg::{
    LinearOperator, PowerIterationParams, power_iteration, top_singular_vectors,
};
use bl_core::random::{seeded_rng, standard_normal};
use online_bilinear::{BlockRankOne, BlockUpdate};

fn block(state: &BlockRankOne, k: usize) -> faer::Mat<f64> {
    let t = state.theta();
    faer::Mat::from_fn(t.block_rows(), t.block_cols(), |i, j| t.get(k, i, j))
}

/// A state of `(n_blocks, l, p)` after `updates` random updates of `steps` power steps
/// each, drawn from `seeded_rng(seed)`, with that stream for further draws.
fn updated_state(
    (n_blocks, l, p): (usize, usize, usize),
    seed: u64,
    updates: usize,
    steps: usize,
) -> (BlockRankOne, bl_core::random::Rng) {
    let mut state = BlockRankOne::new(n_blocks, l, p, false).unwrap();
    let mut rng = seeded_rng(seed);
    for _ in 0..updates {
        state
            .update(&common::random_update(&mut rng, n_blocks, l, p), steps)
            .unwrap();
    }
    (state, rng)
}

#[test]
fn block_diagonal_operator_matches_its_dense_matrix() {
    let (n_blocks, l, p) = (4, 2, 3);
    let (state, mut rng) = updated_state((n_blocks, l, p), 5, 6, 2);
    let theta = state.theta();
    let dense = theta.to_dense();
    let x: Vec<f64> = (0..theta.ncols())
        .map(|_| standard_normal(&mut rng))
        .collect();
    let y: Vec<f64> = (0..theta.nrows())
        .map(|_| standard_normal(&mut rng))
        .collect();
    let (mut a, mut b) = (vec![0.0; theta.nrows()], vec![0.0; theta.nrows()]);
    theta.apply(&x, &mut a);
    dense.apply(&x, &mut b);
    assert!(a.iter().zip(&b).all(|(s, t)| (s - t).abs() < 1e-12));
    let (mut a, mut b) = (vec![0.0; theta.ncols()], vec![0.0; theta.ncols()]);
    theta.apply_transpose(&y, &mut a);
    dense.apply_transpose(&y, &mut b);
    assert!(a.iter().zip(&b).all(|(s, t)| (s - t).abs() < 1e-12));
}

#[test]
fn each_update_equals_r_warm_started_power_steps_on_the_touched_blocks() {
    let (n_blocks, l, p, steps) = (5, 3, 4, 3);
    let mut state = BlockRankOne::new(n_blocks, l, p, false).unwrap();
    let mut rng = seeded_rng(7);
    for _ in 0..30 {
        let d = common::random_update(&mut rng, n_blocks, l, p);
        let previous_v = state.v().to_vec();
        state.update(&d, steps).unwrap();
        for &k in d.blocks() {
            let k = k as usize;
            let theta_k = block(&state, k);
            let params = PowerIterationParams {
                max_iter: steps,
                tol: 1e-14,
                seed: 0,
            };
            let expected =
                power_iteration(&theta_k, Some(&previous_v[k * p..(k + 1) * p]), &params).unwrap();
            assert!((state.sigmas()[k] - expected.sigma).abs() < 1e-12 * (1.0 + expected.sigma));
            for a in 0..l {
                assert!((state.u()[k * l + a] - expected.u[a]).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn many_power_steps_give_the_dense_leading_singular_pairs() {
    let (n_blocks, l, p) = (6, 4, 5);
    let (state, _) = updated_state((n_blocks, l, p), 9, 40, 2000);
    // Every touched block: alpha_k beta_k^T is the best rank-1 approximation of Theta_k.
    let mut best = (0usize, 0.0f64);
    for k in 0..n_blocks {
        if state.sigmas()[k] == 0.0 {
            continue;
        }
        let svd = top_singular_vectors(block(&state, k).as_ref(), 1).unwrap();
        let sigma = svd.s[0];
        assert!(
            (state.sigmas()[k] - sigma).abs() < 1e-8 * sigma,
            "block {k}"
        );
        for a in 0..l {
            for b in 0..p {
                let ours = state.alpha()[k * l + a] * state.beta()[k * p + b];
                let dense = sigma * svd.u[(a, 0)] * svd.v[(b, 0)];
                // Power iteration stops on the change of sigma (1e-14), which leaves the vectors
                // accurate to about its square root.
                assert!((ours - dense).abs() < 1e-5 * sigma, "block {k} ({a}, {b})");
            }
        }
        if sigma > best.1 {
            best = (k, sigma);
        }
    }
    // The leading singular pair of the whole block-diagonal Theta is the top block's.
    let dense = state.theta().to_dense();
    let svd = top_singular_vectors(dense.as_ref(), 1).unwrap();
    assert!((svd.s[0] - best.1).abs() < 1e-8 * best.1);
    let k = best.0;
    for a in 0..l {
        for b in 0..p {
            let whole = svd.s[0] * svd.u[(k * l + a, 0)] * svd.v[(k * p + b, 0)];
            let ours = state.alpha()[k * l + a] * state.beta()[k * p + b];
            assert!((whole - ours).abs() < 1e-5 * best.1);
        }
    }
}

#[test]
fn bad_updates_are_rejected() {
    let mut state = BlockRankOne::new(2, 2, 3, false).unwrap();
    let mut d = BlockUpdate::new(2, 3);
    d.add(5, 0, 0, 1.0);
    assert!(state.update(&d, 1).is_err());
    let mut d = BlockUpdate::new(3, 3);
    d.add(0, 0, 0, 1.0);
    assert!(state.update(&d, 1).is_err());
    let mut d = BlockUpdate::new(2, 3);
    d.add(0, 0, 0, f64::NAN);
    assert!(state.update(&d, 1).is_err());
    let mut d = BlockUpdate::new(2, 3);
    d.add(0, 0, 0, 1.0);
    assert!(state.update(&d, 0).is_err());
    assert!(BlockRankOne::new(0, 2, 3, false).is_err());
    // An empty update changes nothing.
    state.update(&BlockUpdate::new(2, 3), 1).unwrap();
    assert!(state.alpha().iter().all(|&x| x == 0.0));
}

#[test]
fn an_update_touches_only_the_blocks_of_its_features() {
    // 100k features: one mistake touching 2 features allocates 2 blocks of Theta and changes
    // only their entries of alpha and beta.
    let (n_blocks, l, p) = (100_000, 4, 5);
    let mut state = BlockRankOne::new(n_blocks, l, p, true).unwrap();
    let mut d = BlockUpdate::new(l, p);
    d.add(17, 0, 4, 1.0);
    d.add(17, 2, 4, -1.0);
    d.add(99_999, 1, 0, 1.0);
    state.update(&d, 4).unwrap();
    state.record_step();
    assert_eq!(state.theta().n_allocated(), 2);
    // Factors are stored for the touched blocks only; the others read as zero blocks
    // with the uniform start vector.
    assert_eq!(state.n_touched(), 2);
    assert_eq!(state.v()[3 * p], 1.0 / (p as f64).sqrt());
    assert_eq!((state.alpha_at(3, 0), state.beta_at(3, 0)), (0.0, 0.0));
    let changed: Vec<usize> = state
        .alpha()
        .iter()
        .enumerate()
        .filter(|(_, x)| **x != 0.0)
        .map(|(j, _)| j / l)
        .collect();
    assert!(!changed.is_empty() && changed.iter().all(|&k| k == 17 || k == 99_999));
    let (avg_alpha, _) = state.averaged_alpha_beta().unwrap();
    assert_eq!(avg_alpha, state.alpha());
}

/// The running averages of `alpha` and `beta` (one accumulator per entry) equal the mean of
/// the `alpha`, `beta` recorded after every step, summed by brute force; the consuming
/// `into_alpha_beta` gives the same averages, and `beta()` is `sqrt(sigma_k) v_k`.
#[test]
fn the_averages_equal_the_mean_of_the_recorded_parameters() {
    let (n_blocks, l, p) = (6, 3, 4);
    let mut state = BlockRankOne::new(n_blocks, l, p, true).unwrap();
    let mut sum_alpha = vec![0.0; n_blocks * l];
    let mut sum_beta = vec![0.0; n_blocks * p];
    let steps = 40;
    for t in 0..steps {
        if t % 3 != 2 {
            let mut d = BlockUpdate::new(l, p);
            let k = (t * 5) % n_blocks;
            d.add(k as u32, t % l, (t * 7) % p, 1.0);
            d.add(k as u32, (t + 1) % l, (t * 3) % p, -0.5);
            d.add(((k + 1) % n_blocks) as u32, (t * 2) % l, t % p, 0.75);
            state.update(&d, 3).unwrap();
        }
        state.record_step();
        let beta = state.beta();
        for (s, x) in sum_alpha.iter_mut().zip(state.alpha()) {
            *s += x;
        }
        for (s, x) in sum_beta.iter_mut().zip(&beta) {
            *s += x;
        }
    }
    for k in 0..n_blocks {
        for b in 0..p {
            let want = state.sigmas()[k].sqrt() * state.v()[k * p + b];
            assert_eq!(state.beta()[k * p + b], want);
            assert_eq!(state.beta_at(k, b), want);
        }
    }
    let (avg_alpha, avg_beta) = state.averaged_alpha_beta().unwrap();
    for (got, s) in avg_alpha.iter().zip(&sum_alpha) {
        assert!(
            (got - s / steps as f64).abs() < 1e-12,
            "{got} vs {}",
            s / steps as f64
        );
    }
    for (got, s) in avg_beta.iter().zip(&sum_beta) {
        assert!(
            (got - s / steps as f64).abs() < 1e-12,
            "{got} vs {}",
            s / steps as f64
        );
    }
    let (plain_alpha, plain_beta) = state.clone().into_alpha_beta(false);
    assert_eq!(plain_alpha, state.alpha());
    assert_eq!(plain_beta, state.beta());
    assert_eq!(state.into_alpha_beta(true), (avg_alpha, avg_beta));
}
