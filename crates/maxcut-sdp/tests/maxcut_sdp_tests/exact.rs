//! Gray-code enumeration against naive brute force.

use crate::common;

use common::*;
use maxcut_sdp::{BooleanQp, Fit, Problem};

#[test]
fn gray_code_signs_match_brute_force() {
    for n in 1usize..=11 {
        for seed in 0..3u64 {
            let c = random_symmetric(n, 10 * n as u64 + seed).unwrap();
            let exact = Problem::dense(c.as_ref()).unwrap().solve_exact().unwrap();
            let naive = brute_force_signs(&c);
            assert!(
                (exact.value() - naive).abs() <= 1e-9 * abs_sum(&c),
                "n = {n}"
            );
            assert!((naive_quad(&c, exact.y()) - exact.value()).abs() <= 1e-9 * abs_sum(&c));
            assert_eq!(exact.y()[n - 1], 1.0);
        }
    }
    // Sparse and low-rank forms go through the same enumeration.
    let edges = gnp_weighted(12, 0.4, 1);
    let graph = Problem::maxcut(12, &edges).unwrap();
    let naive = brute_force_signs(&graph.to_dense().unwrap());
    assert!((graph.solve_exact().unwrap().value() - naive).abs() < 1e-9);
    let g = random_gaussian(10, 4, 2).unwrap();
    let low_rank = Problem::low_rank(g.as_ref()).unwrap();
    let naive = brute_force_signs(&gram(&g));
    assert!((low_rank.solve_exact().unwrap().value() - naive).abs() < 1e-9 * naive.abs());
}

#[test]
fn gray_code_binary_matches_brute_force_for_nonsymmetric_a() {
    for n in 1usize..=11 {
        for seed in 0..3u64 {
            // Not symmetric, with a diagonal: z^T A z is still well defined.
            let a = random_gaussian(n, n, 7 * n as u64 + seed).unwrap();
            let qp = BooleanQp::dense(a.as_ref()).unwrap();
            let exact = qp.solve_exact().unwrap();
            let naive = brute_force_binary(&a);
            assert!(
                (exact.value() - naive).abs() <= 1e-9 * abs_sum(&a),
                "n = {n}"
            );
            assert!((naive_quad(&a, exact.z()) - exact.value()).abs() <= 1e-9 * abs_sum(&a));
        }
    }
    let g = random_gaussian(9, 30, 4).unwrap();
    let qp = BooleanQp::low_rank(g.as_ref()).unwrap();
    let naive = brute_force_binary(&gram(&g));
    assert!((qp.solve_exact().unwrap().value() - naive).abs() < 1e-9 * naive);
}

#[test]
fn exact_solvers_accept_n_24() {
    // One instance at the documented limit (2^23 sign vectors / 2^24 binary vectors).
    let edges = gnp_weighted(24, 0.2, 9);
    let graph = Problem::maxcut(24, &edges).unwrap();
    let exact = graph.solve_exact().unwrap();
    assert!((exact.value() - cut_weight(&edges, exact.y())).abs() < 1e-9);
    let solution = maxcut_sdp::MixingParams::default().fit(&graph).unwrap();
    assert!(solution.value() <= exact.value() + 1e-9);
}
