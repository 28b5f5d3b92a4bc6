//! Seeded random instances: the one source of synthetic graphs and matrices for the
//! tests, examples, benches and experiments of this crate.

use std::collections::BTreeMap;

use bl_core::random::{seeded_rng, standard_normal_mat};
use bl_core::{limits, params};
use faer::Mat;
use rand::RngExt;

use crate::error::Result;

/// A weighted Erdős–Rényi graph G(n, p): each pair `i < j` is an edge with probability
/// `p`, with a weight uniform on `(0, 1]`. Edges come as `(i, j, w)` with `i < j`.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] unless `p` is in `[0, 1]`, or for
/// `n^2 > 2^32` (`n > 65536`; every pair is drawn, so the time is quadratic in `n`).
pub fn gnp_weighted(n: usize, p: f64, seed: u64) -> Result<Vec<(usize, usize, f64)>> {
    params::probability("p", p)?;
    limits::buffer_len("n x n (pairs of G(n, p))", &[n, n])?;
    let mut rng = seeded_rng(seed);
    let mut edges = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if rng.random::<f64>() < p {
                edges.push((i, j, 1.0 - rng.random::<f64>()));
            }
        }
    }
    Ok(edges)
}

/// A sparse graph with `n * degree / 2` distinct edges drawn uniformly (average degree
/// `degree`), weights uniform on `(0, 1]`, sorted by `(i, j)` with `i < j`.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] if `n * degree / 2` exceeds the `n (n - 1) / 2`
/// possible edges, or if the `n * degree / 2` edges (3 values each) exceed `2^32` values.
pub fn sparse_graph(n: usize, degree: usize, seed: u64) -> Result<Vec<(usize, usize, f64)>> {
    let m = n.saturating_mul(degree) / 2;
    let pairs = n.saturating_mul(n.saturating_sub(1)) / 2;
    params::count_in("n * degree / 2", m, 0, pairs)?;
    limits::buffer_len("n * degree / 2 edges x 3", &[m, 3])?;
    let mut rng = seeded_rng(seed);
    let mut edges = BTreeMap::new();
    while edges.len() < m {
        let i = rng.random_range(0..n);
        let j = rng.random_range(0..n);
        if i != j {
            edges
                .entry((i.min(j), i.max(j)))
                .or_insert_with(|| 1.0 - rng.random::<f64>());
        }
    }
    Ok(edges.into_iter().map(|((i, j), w)| (i, j, w)).collect())
}

/// `m` edges with independent uniform endpoints `i != j` and weights uniform on `[0, 1)`
/// (repeated pairs allowed; [`crate::Problem::maxcut`] sums them).
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] for `n < 2` with `m > 0`, or if the `m` edges
/// (3 values each) exceed `2^32` values or cannot be allocated.
pub fn random_edges(n: usize, m: usize, seed: u64) -> Result<Vec<(usize, usize, f64)>> {
    if m > 0 {
        params::at_least("n", n, 2)?;
    }
    limits::buffer_len("m edges x 3", &[m, 3])?;
    let mut edges = limits::try_with_capacity("m edges", &[m])?;
    let mut rng = seeded_rng(seed);
    edges.extend((0..m).map(|_| {
        let i = rng.random_range(0..n);
        let mut j = rng.random_range(0..n - 1);
        if j >= i {
            j += 1;
        }
        (i, j, rng.random::<f64>())
    }));
    Ok(edges)
}

/// The dense max-cut cost `C = L / 4` (`L` the weighted Laplacian) of
/// [`gnp_weighted`]`(n, p, seed)`: `y^T C y` is the weight of the cut `{i : y_i = +1}`.
///
/// # Errors
/// As [`gnp_weighted`] (checked before the `n x n` matrix is allocated).
pub fn dense_maxcut_cost(n: usize, p: f64, seed: u64) -> Result<Mat<f64>> {
    let edges = gnp_weighted(n, p, seed)?;
    limits::reservable::<f64>("n x n", &[n, n])?;
    let mut c = Mat::zeros(n, n);
    for (i, j, w) in edges {
        let quarter = 0.25 * w;
        c[(i, j)] -= quarter;
        c[(j, i)] -= quarter;
        c[(i, i)] += quarter;
        c[(j, j)] += quarter;
    }
    Ok(c)
}

/// A `rows x cols` matrix of independent standard normal entries.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] if `rows x cols` exceeds `2^32` values or
/// cannot be allocated.
pub fn gaussian(rows: usize, cols: usize, seed: u64) -> Result<Mat<f64>> {
    limits::reservable::<f64>("rows x cols", &[rows, cols])?;
    Ok(standard_normal_mat(&mut seeded_rng(seed), rows, cols)?)
}

/// A symmetric `n x n` matrix `B + B^T`, `B` standard normal: indefinite, mixed signs,
/// nonzero diagonal.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] if `n x n` exceeds `2^32` values or cannot be
/// allocated (twice: `B` and the result).
pub fn random_symmetric(n: usize, seed: u64) -> Result<Mat<f64>> {
    limits::reservable::<f64>("n x n x 2", &[n, n, 2])?;
    let b = gaussian(n, n, seed)?;
    Ok(Mat::from_fn(n, n, |i, j| b[(i, j)] + b[(j, i)]))
}
