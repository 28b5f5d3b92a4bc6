//! Randomized hyperplane rounding and 1-flip local search.
//!
//! Goemans, Williamson, "Improved approximation algorithms for maximum cut and
//! satisfiability problems using semidefinite programming", J. ACM 42(6), 1995: draw a
//! Gaussian direction `r` and set `y_i = sign(r^T v_i)`. For max-cut with nonnegative
//! weights the expected cut is at least `0.878` times the SDP value; we keep the best of
//! many draws. The local search then flips single signs while that strictly raises
//! `y^T C y` (flipping `y_i` changes it by `-4 y_i sum_{j != i} C_ij y_j`).

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use crate::problem::{CostView, dot};

/// Upper limit on passes over all variables in the local search (each pass that flips
/// anything strictly raises the objective, so this only guards against pathological
/// floating-point behaviour).
pub const MAX_LOCAL_SEARCH_PASSES: usize = 1000;

/// The best sign vector found by hyperplane rounding.
#[derive(Debug, Clone, PartialEq)]
pub struct Rounding {
    /// The signs, entries exactly `-1.0` or `+1.0`.
    pub y: Vec<f64>,
    /// `y^T C y`.
    pub value: f64,
    /// Index of the hyperplane that produced `y`.
    pub trial: usize,
}

fn signs(v: &[f64], k: usize, r: &[f64], y: &mut [f64]) {
    for (yi, vi) in y.iter_mut().zip(v.chunks_exact(k)) {
        *yi = if dot(vi, r) >= 0.0 { 1.0 } else { -1.0 };
    }
}

pub(crate) fn hyperplane_rounding(
    view: CostView<'_>,
    v: &[f64],
    k: usize,
    trials: usize,
    seed: u64,
) -> Rounding {
    let n = view.n();
    let mut rng = StdRng::seed_from_u64(seed);
    let directions: Vec<f64> = (0..k * trials)
        .map(|_| StandardNormal.sample(&mut rng))
        .collect();
    let scratch_len = view.scratch_len();
    // Every trial is evaluated sequentially and the reduction picks the maximum under a
    // total order (value, then lowest index): the result is independent of threading.
    let (value, trial) = (0..trials)
        .into_par_iter()
        .map_init(
            || (vec![0.0; n], vec![0.0; scratch_len]),
            |(y, scratch), t| {
                signs(v, k, &directions[t * k..(t + 1) * k], y);
                (view.quad_form_with(y, scratch), t)
            },
        )
        .reduce(|| (f64::NEG_INFINITY, usize::MAX), better);
    let trial = trial.min(trials - 1);
    let mut y = vec![0.0; n];
    signs(v, k, &directions[trial * k..(trial + 1) * k], &mut y);
    Rounding { y, value, trial }
}

fn better(a: (f64, usize), b: (f64, usize)) -> (f64, usize) {
    if a.0 > b.0 || (a.0 == b.0 && a.1 < b.1) {
        a
    } else {
        b
    }
}

/// Greedy 1-flip local search: cyclic passes over `i`, flipping `y_i` whenever that
/// raises `y^T C y` by more than `1e-12 (|y^T C y| + sum_i |C_ii|)`, until a pass flips
/// nothing. Returns the number of flips. `y` must hold signs.
pub(crate) fn local_search(view: CostView<'_>, y: &mut [f64]) -> usize {
    let mut value = view.quad_form(y);
    let mut flips = 0;
    match view {
        CostView::Dense { n, c } => {
            let diag_abs: f64 = (0..n).map(|i| c[i + i * n].abs()).sum();
            // h_i = sum_{j != i} C_ij y_j
            let mut h = vec![0.0; n];
            matmul(
                MatMut::from_column_major_slice_mut(&mut h, n, 1),
                Accum::Replace,
                MatRef::from_column_major_slice(c, n, n),
                MatRef::from_column_major_slice(y, n, 1),
                1.0,
                Par::Seq,
            );
            for i in 0..n {
                h[i] -= c[i + i * n] * y[i];
            }
            for _ in 0..MAX_LOCAL_SEARCH_PASSES {
                let mut flipped = false;
                for i in 0..n {
                    let gain = -4.0 * y[i] * h[i];
                    if gain > threshold(value, diag_abs) {
                        let step = -2.0 * y[i];
                        let col = &c[i * n..(i + 1) * n];
                        for (hj, cj) in h.iter_mut().zip(col) {
                            *hj += step * cj;
                        }
                        h[i] -= step * col[i];
                        y[i] = -y[i];
                        value += gain;
                        flips += 1;
                        flipped = true;
                    }
                }
                if !flipped {
                    break;
                }
            }
        }
        CostView::Sparse(s) => {
            let diag_abs: f64 = s.diag.iter().map(|d| d.abs()).sum();
            let mut h = vec![0.0; s.n];
            for i in 0..s.n {
                for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                    h[i] += s.values[p] * y[s.col_idx[p]];
                }
            }
            for _ in 0..MAX_LOCAL_SEARCH_PASSES {
                let mut flipped = false;
                for i in 0..s.n {
                    let gain = -4.0 * y[i] * h[i];
                    if gain > threshold(value, diag_abs) {
                        let step = -2.0 * y[i];
                        // C is symmetric: row i lists the j with C_ji != 0.
                        for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                            h[s.col_idx[p]] += step * s.values[p];
                        }
                        y[i] = -y[i];
                        value += gain;
                        flips += 1;
                        flipped = true;
                    }
                }
                if !flipped {
                    break;
                }
            }
        }
        CostView::LowRank(lr) => {
            let diag_abs: f64 = lr.row_sq.iter().sum();
            // u = G^T y
            let mut u = vec![0.0; lr.m];
            matmul(
                MatMut::from_column_major_slice_mut(&mut u, lr.m, 1),
                Accum::Replace,
                lr.gt_ref(),
                MatRef::from_column_major_slice(y, lr.n, 1),
                1.0,
                Par::Seq,
            );
            for _ in 0..MAX_LOCAL_SEARCH_PASSES {
                let mut flipped = false;
                for i in 0..lr.n {
                    let gi = lr.row(i);
                    let h = dot(gi, &u) - lr.row_sq[i] * y[i];
                    let gain = -4.0 * y[i] * h;
                    if gain > threshold(value, diag_abs) {
                        let step = -2.0 * y[i];
                        for (ul, gl) in u.iter_mut().zip(gi) {
                            *ul += step * gl;
                        }
                        y[i] = -y[i];
                        value += gain;
                        flips += 1;
                        flipped = true;
                    }
                }
                if !flipped {
                    break;
                }
            }
        }
    }
    flips
}

fn threshold(value: f64, diag_abs: f64) -> f64 {
    1e-12 * (value.abs() + diag_abs)
}
