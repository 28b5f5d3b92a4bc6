//! Randomized hyperplane rounding and 1-flip local search.
//!
//! Goemans, Williamson, "Improved approximation algorithms for maximum cut and
//! satisfiability problems using semidefinite programming", J. ACM 42(6), 1995: draw a
//! Gaussian direction `r` and set `y_i = sign(r^T v_i)`. For max-cut with nonnegative
//! weights the expected cut is at least `0.878` times the SDP value; we keep the best of
//! many draws. The local search then flips single signs while that strictly raises
//! `y^T C y` (flipping `y_i` changes it by `-4 y_i sum_{j != i} C_ij y_j`).

use faer::MatRef;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use crate::cost::{CostView, axpy, dot, matvec};
use crate::error::Result;

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
) -> Result<Rounding> {
    let n = view.n();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut directions = bl_core::limits::try_zeroed::<f64>("trials x rank", &[trials, k])?;
    for d in &mut directions {
        *d = StandardNormal.sample(&mut rng);
    }
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
    Ok(Rounding { y, value, trial })
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
    let value = view.quad_form(y);
    match view {
        CostView::Dense { n, c } => {
            let diag_abs: f64 = (0..n).map(|i| c[i + i * n].abs()).sum();
            // h_i = sum_{j != i} C_ij y_j
            let mut h = vec![0.0; n];
            matvec(&mut h, MatRef::from_column_major_slice(c, n, n), y);
            for i in 0..n {
                h[i] -= c[i + i * n] * y[i];
            }
            flip_stored(&mut h, y, value, diag_abs, |h, i, step| {
                let col = &c[i * n..(i + 1) * n];
                axpy(h, step, col);
                h[i] -= step * col[i];
            })
        }
        CostView::Sparse(s) => {
            let diag_abs: f64 = s.diag.iter().map(|d| d.abs()).sum();
            let mut h: Vec<f64> = (0..s.n).map(|i| s.off_diagonal_dot(i, y)).collect();
            // C is symmetric: row i lists the j with C_ji != 0.
            flip_stored(&mut h, y, value, diag_abs, |h, i, step| {
                for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                    h[s.col_idx[p]] += step * s.values[p];
                }
            })
        }
        CostView::LowRank(lr) => {
            let diag_abs: f64 = lr.row_sq.iter().sum();
            // u = G^T y
            let mut u = vec![0.0; lr.m];
            matvec(&mut u, lr.gt_ref(), y);
            flip_passes(
                u.as_mut_slice(),
                y,
                value,
                diag_abs,
                |u, i, y| dot(lr.row(i), u) - lr.row_sq[i] * y[i],
                |u, i, step| axpy(u, step, lr.row(i)),
            )
        }
    }
}

/// [`flip_passes`] on the stored field `h_i = sum_{j != i} C_ij y_j`.
fn flip_stored(
    h: &mut [f64],
    y: &mut [f64],
    value: f64,
    diag_abs: f64,
    flip: impl Fn(&mut [f64], usize, f64),
) -> usize {
    flip_passes(h, y, value, diag_abs, |h, i, _| h[i], flip)
}

/// The passes of the local search over a state `s` from which `field(s, i, y)` gives
/// `h_i = sum_{j != i} C_ij y_j`; `flip(s, i, step)` updates `s` for `y_i += step`.
fn flip_passes<S: ?Sized>(
    s: &mut S,
    y: &mut [f64],
    mut value: f64,
    diag_abs: f64,
    field: impl Fn(&S, usize, &[f64]) -> f64,
    flip: impl Fn(&mut S, usize, f64),
) -> usize {
    let mut flips = 0;
    for _ in 0..MAX_LOCAL_SEARCH_PASSES {
        let mut flipped = false;
        for i in 0..y.len() {
            let gain = -4.0 * y[i] * field(s, i, y);
            if gain > threshold(value, diag_abs) {
                flip(s, i, -2.0 * y[i]);
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
    flips
}

fn threshold(value: f64, diag_abs: f64) -> f64 {
    1e-12 * (value.abs() + diag_abs)
}
