//! First-order Viterbi against brute-force enumeration of every tag path.

use crate::common;

use bl_core::random::{seeded_rng, standard_normal};
use online_bilinear::OblError;
use online_bilinear::viterbi::{path_score, score_index, viterbi};

/// Every path of length `n` over `l` tags, in lexicographic order.
fn all_paths(n: usize, l: usize) -> Vec<Vec<usize>> {
    let mut paths = vec![vec![]];
    for _ in 0..n {
        paths = paths
            .into_iter()
            .flat_map(|p| {
                (0..l).map(move |t| {
                    let mut q = p.clone();
                    q.push(t);
                    q
                })
            })
            .collect();
    }
    paths
}

#[test]
fn viterbi_equals_brute_force_on_short_random_sequences() {
    let mut rng = seeded_rng(3);
    for n in 1..=5 {
        for l in 1..=3 {
            for _ in 0..20 {
                let scores: Vec<f64> = (0..n * (l + 1) * l)
                    .map(|_| standard_normal(&mut rng))
                    .collect();
                let best = viterbi(&scores, n, l).unwrap();
                let best_score = path_score(&scores, &best, l).unwrap();
                let brute = all_paths(n, l)
                    .iter()
                    .map(|p| path_score(&scores, p, l).unwrap())
                    .fold(f64::NEG_INFINITY, f64::max);
                assert!(
                    (best_score - brute).abs() <= 1e-12 * (1.0 + brute.abs()),
                    "n = {n}, l = {l}: viterbi {best_score} vs brute force {brute}"
                );
            }
        }
    }
}

#[test]
fn viterbi_reads_the_start_row_at_position_zero_only() {
    // Two tags; the start row strongly prefers tag 1, the other rows prefer tag 0.
    let (n, l) = (3, 2);
    let mut scores = vec![0.0; n * (l + 1) * l];
    scores[score_index(0, l, 1, l)] = 5.0;
    for i in 1..n {
        for b in 0..l {
            scores[score_index(i, b, 0, l)] = 1.0;
        }
    }
    // A large score in a row that is never read at position 0 must not matter.
    scores[score_index(0, 0, 0, l)] = 100.0;
    assert_eq!(viterbi(&scores, n, l).unwrap(), vec![1, 0, 0]);
}

#[test]
fn viterbi_rejects_bad_tables() {
    assert!(matches!(
        viterbi(&[0.0; 5], 1, 2),
        Err(OblError::Core(bl_core::BlError::ShapeMismatch { .. }))
    ));
    assert!(common::is_invalid_parameter(&viterbi(&[], 0, 0)));
    let mut scores = vec![0.0; 6];
    scores[2] = f64::NAN;
    assert!(matches!(viterbi(&scores, 1, 2), Err(OblError::Core(_))));
    assert_eq!(viterbi(&[], 0, 3).unwrap(), Vec::<usize>::new());
}
