//! The seeded generators: valid output, typed errors for impossible requests, and the
//! dense max-cut cost checked against the sparse one built from the same edges.

use bl_core::BlError;
use maxcut_sdp::synthetic::{dense_maxcut_cost, gnp_weighted, random_edges, sparse_graph};
use maxcut_sdp::{MaxcutError, Problem};

#[test]
fn sparse_graph_has_the_requested_distinct_edges() {
    let edges = sparse_graph(50, 6, 3).unwrap();
    assert_eq!(edges.len(), 150);
    assert!(
        edges
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1))
    );
    assert!(
        edges
            .iter()
            .all(|&(i, j, w)| i < j && j < 50 && w > 0.0 && w <= 1.0)
    );
    assert_eq!(edges, sparse_graph(50, 6, 3).unwrap());
}

/// More edges than the complete graph has: an error, not an endless loop.
#[test]
fn impossible_sparse_graph_is_an_error() {
    let err = sparse_graph(4, 5, 0).unwrap_err();
    assert!(
        matches!(err, MaxcutError::Core(BlError::InvalidParameter { .. })),
        "{err}"
    );
    assert!(sparse_graph(4, 3, 0).is_ok()); // the complete graph K4
}

#[test]
fn invalid_requests_are_typed_errors() {
    assert!(gnp_weighted(5, 1.5, 0).is_err());
    assert!(gnp_weighted(5, f64::NAN, 0).is_err());
    assert!(random_edges(1, 3, 0).is_err());
    assert!(random_edges(1, 0, 0).unwrap().is_empty());
    assert!(dense_maxcut_cost(5, -0.1, 0).is_err());
}

#[test]
fn dense_cost_is_the_quarter_laplacian_of_the_same_graph() {
    let (n, p, seed) = (12, 0.4, 7);
    let dense = Problem::dense(dense_maxcut_cost(n, p, seed).unwrap().as_ref()).unwrap();
    let edges = gnp_weighted(n, p, seed).unwrap();
    let sparse = Problem::maxcut(n, &edges).unwrap();
    for mask in [0u32, 1, 0b1010_1010_1010, 0b1111_0000_1111, 4095] {
        let y: Vec<f64> = (0..n)
            .map(|i| if mask >> i & 1 == 1 { 1.0 } else { -1.0 })
            .collect();
        let cut: f64 = edges
            .iter()
            .filter(|&&(i, j, _)| y[i] != y[j])
            .map(|&(_, _, w)| w)
            .sum();
        let (d, s) = (dense.value(&y).unwrap(), sparse.value(&y).unwrap());
        assert!((d - cut).abs() < 1e-12 * (1.0 + cut), "{d} vs {cut}");
        assert!((s - cut).abs() < 1e-12 * (1.0 + cut), "{s} vs {cut}");
    }
}
