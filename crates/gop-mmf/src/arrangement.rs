//! Hyperplane filtering and cell enumeration (Sec. 4.1 and App. C).
//!
//! # Filtering (the role of eqs. (47)-(49))
//!
//! The `K N` qualifying constraints of one iterate often coincide: with `M = 1` every
//! `g_kn` of one component `k` has a normal along the same axis. [`filter`] keeps one
//! representative per distinct hyperplane (scaled to a unit normal) and maps each original
//! `g_i` onto it as `g_i = c_i g_h + e_i`, where `|e_i(x)| <= eps_i` on the l1 ball
//! `||x||_1 <= P` (`eps_i = ||a_i - c_i a_h||_inf P + |b_i - c_i b_h|`, so it is rigorous
//! for any tolerance). A hyperplane whose normal is (numerically) zero is dropped and its
//! term `min(0, g_i(x))` is replaced by the constant `min(0, b_i - ||a_i||_inf P)`, a lower
//! bound on the ball. Both replacements keep the relaxed duals valid lower bounds.
//!
//! # Cells
//!
//! A cell is a sign vector `s` over the representatives whose open region
//! `{x : s_h g_h(x) > 0 for all h}` meets the interior of the node's region `R` (the l1
//! ball intersected with the cells chosen at every ancestor). [`enumerate_cells`] finds all
//! of them without trying the `2^H` sign vectors:
//!
//! 1. an interior-point LP on `R` alone (maximize a common slack) gives a point `x_c`;
//!    the signs of `g_h(x_c)` give a candidate root cell, confirmed by an interior-point LP
//!    on the cell (ties are resolved by trying both signs);
//! 2. breadth-first walk: for every cell found and every hyperplane `h`, the sign vector
//!    with `s_h` flipped is tested (once) by an interior-point LP; it is a cell exactly when
//!    `h` is a strict (facet) hyperplane of the current cell. Adjacent cells of an
//!    arrangement differ in one sign, so the walk reaches every cell; the LPs of one
//!    breadth level run in parallel.
//!
//! A shortcut, used when it applies: the arrangement is central at the node's point `x^t`.
//! If `x^t` lies in the interior of `R` and the representative normals are linearly
//! independent, every one of the `2^H` sign vectors is a cell (for any `s` the direction
//! `v = A^T (A A^T)^{-1} s` has `sign(A v) = s`, and `x^t + tau v` stays inside `R` for a
//! small `tau`), so no LP is needed. [`brute_force_cells`] tests all `2^H` sign vectors and
//! exists for tests.

use std::collections::HashSet;

use lp_backend::{Cmp, InteriorPointSearch, LpSolver, Row};
use rayon::prelude::*;

use crate::error::Result;
use crate::lagrangian::Affine;

/// How an original qualifying constraint enters the Lagrangian rows after filtering.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Term {
    /// A zero hyperplane: its term is replaced by the constant `bound <= min(0, g_i(x))`.
    Zero {
        /// The constant lower bound on the l1 ball.
        bound: f64,
    },
    /// `g_i = factor * g_rep + e_i` with `|e_i| <= error` on the l1 ball.
    Rep {
        /// Index of the representative.
        rep: usize,
        /// The factor `c_i` (its sign says whether the orientation is flipped).
        factor: f64,
        /// The bound `eps_i` on the remainder.
        error: f64,
    },
}

/// The filtered hyperplanes of one iterate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Filtered {
    /// Distinct hyperplanes with unit normals.
    pub reps: Vec<Affine>,
    /// One entry per original hyperplane, in the original order.
    pub terms: Vec<Term>,
}

impl Filtered {
    /// Number of originals dropped as zero.
    #[must_use]
    pub fn zeros(&self) -> usize {
        self.terms
            .iter()
            .filter(|t| matches!(t, Term::Zero { .. }))
            .count()
    }
}

/// Sparse `||u - sigma v||_2` and `||u - sigma v||_inf` of two index-sorted sparse vectors.
fn sparse_diff(u: &[(usize, f64)], v: &[(usize, f64)], sigma: f64) -> (f64, f64) {
    let (mut i, mut j) = (0, 0);
    let (mut two, mut inf) = (0.0_f64, 0.0_f64);
    let mut push = |d: f64| {
        two += d * d;
        inf = inf.max(d.abs());
    };
    while i < u.len() || j < v.len() {
        match (u.get(i), v.get(j)) {
            (Some(&(a, x)), Some(&(b, y))) if a == b => {
                push(x - sigma * y);
                i += 1;
                j += 1;
            }
            (Some(&(a, x)), Some(&(b, _))) if a < b => {
                push(x);
                i += 1;
            }
            (Some(_), Some(&(_, y))) => {
                push(sigma * y);
                j += 1;
            }
            (Some(&(_, x)), None) => {
                push(x);
                i += 1;
            }
            (None, Some(&(_, y))) => {
                push(sigma * y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (two.sqrt(), inf)
}

/// Drops zero hyperplanes and merges duplicates (see the module docs). `budget` is the l1
/// radius `P`; `tol` is relative: a normal counts as zero when its norm is below
/// `tol * max(1, largest norm)`, and two unit normals as the same hyperplane when they (or
/// one and the other's negative) differ by at most `sqrt(tol)` with offsets within the same.
#[must_use]
pub fn filter(hyperplanes: &[Affine], budget: f64, tol: f64) -> Filtered {
    let largest = hyperplanes.iter().map(Affine::norm).fold(1.0_f64, f64::max);
    let dup_tol = tol.sqrt();
    let mut reps: Vec<Affine> = Vec::new();
    let mut terms = Vec::with_capacity(hyperplanes.len());
    for g in hyperplanes {
        let norm = g.norm();
        if norm <= tol * largest {
            terms.push(Term::Zero {
                bound: (g.offset - g.max_abs() * budget).min(0.0),
            });
            continue;
        }
        let mut coeffs: Vec<(usize, f64)> = g.coeffs.iter().map(|&(i, a)| (i, a / norm)).collect();
        coeffs.sort_unstable_by_key(|&(i, _)| i);
        let unit = Affine {
            coeffs,
            offset: g.offset / norm,
        };
        let found = reps.iter().enumerate().find_map(|(h, rep)| {
            [1.0, -1.0].into_iter().find_map(|sigma| {
                let (two, _) = sparse_diff(&unit.coeffs, &rep.coeffs, sigma);
                let off = (unit.offset - sigma * rep.offset).abs();
                (two <= dup_tol && off <= dup_tol * (1.0 + rep.offset.abs())).then_some((h, sigma))
            })
        });
        let (rep, sigma) = match found {
            Some(hit) => hit,
            None => {
                reps.push(unit);
                (reps.len() - 1, 1.0)
            }
        };
        let factor = sigma * norm;
        // Exact remainder bound of g - factor * rep on the ball.
        let mut sorted = g.coeffs.clone();
        sorted.sort_unstable_by_key(|&(i, _)| i);
        let (_, inf) = sparse_diff(&sorted, &reps[rep].coeffs, factor);
        let error = inf * budget + (g.offset - factor * reps[rep].offset).abs();
        terms.push(Term::Rep { rep, factor, error });
    }
    Filtered { reps, terms }
}

/// A constraint `sign * g(x) >= 0` of a node's region.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SignedHyperplane {
    /// The hyperplane.
    pub g: Affine,
    /// `+1` or `-1`.
    pub sign: i8,
}

/// The result of a cell enumeration.
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    /// Sign vectors (`+1` / `-1` per representative) of the cells found, root cell first.
    pub signs: Vec<Vec<i8>>,
    /// Interior-point LPs solved.
    pub lp_solves: usize,
    /// Whether the rank shortcut decided (then `lp_solves == 0`).
    pub shortcut: bool,
}

/// Options of [`enumerate_cells`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellOptions {
    /// Smallest common slack (absolute, in the units of `x`) that counts as an interior.
    pub min_slack: f64,
    /// Try the rank shortcut first.
    pub rank_shortcut: bool,
    /// Run the LPs of one breadth level in parallel (rayon).
    pub parallel: bool,
}

impl Default for CellOptions {
    fn default() -> Self {
        Self {
            min_slack: 1e-9,
            rank_shortcut: true,
            parallel: true,
        }
    }
}

/// Variables of the interior-point LPs: `x+` at `0..mk`, `x-` at `mk..2mk`.
fn split_row(g: &Affine, sign: f64, mk: usize) -> Row {
    let mut coeffs = Vec::with_capacity(2 * g.coeffs.len());
    for &(i, a) in &g.coeffs {
        coeffs.push((i, sign * a));
        coeffs.push((mk + i, -sign * a));
    }
    Row::new(coeffs, Cmp::Ge, -sign * g.offset)
}

/// The base half-spaces of a region: the l1 budget and the ancestors' signed hyperplanes.
fn region_rows(mk: usize, budget: f64, region: &[SignedHyperplane]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(region.len() + 1);
    rows.push(Row::new(
        (0..2 * mk).map(|i| (i, 1.0)).collect(),
        Cmp::Le,
        budget,
    ));
    for r in region {
        rows.push(split_row(&r.g, f64::from(r.sign), mk));
    }
    rows
}

fn sign_rows(hyperplanes: &[Affine], signs: &[i8], mk: usize) -> Vec<Row> {
    hyperplanes
        .iter()
        .zip(signs)
        .map(|(g, &s)| split_row(g, f64::from(s), mk))
        .collect()
}

/// Whether `x` is inside the region with margin `tol` (budget and every signed row).
fn strictly_inside(x: &[f64], budget: f64, region: &[SignedHyperplane], tol: f64) -> bool {
    let l1: f64 = x.iter().map(|v| v.abs()).sum();
    l1 < budget - tol
        && region
            .iter()
            .all(|r| f64::from(r.sign) * r.g.eval(x) > tol * (1.0 + r.g.norm()))
}

/// Whether the unit normals are linearly independent (Cholesky of their Gram matrix).
fn independent(hyperplanes: &[Affine], mk: usize) -> bool {
    let h = hyperplanes.len();
    if h > mk {
        return false;
    }
    let dense: Vec<Vec<f64>> = hyperplanes
        .iter()
        .map(|g| {
            let mut v = vec![0.0; mk];
            for &(i, a) in &g.coeffs {
                v[i] += a;
            }
            v
        })
        .collect();
    let mut l = vec![0.0; h * h];
    for i in 0..h {
        for j in 0..=i {
            let mut s: f64 = dense[i].iter().zip(&dense[j]).map(|(a, b)| a * b).sum();
            for t in 0..j {
                s -= l[i * h + t] * l[j * h + t];
            }
            if i == j {
                // Unit normals: a pivot this small means (near) dependence.
                if s <= 1e-8 {
                    return false;
                }
                l[i * h + i] = s.sqrt();
            } else {
                l[i * h + j] = s / l[j * h + j];
            }
        }
    }
    true
}

/// All `2^h` sign vectors, in binary order.
fn all_sign_vectors(h: usize) -> Vec<Vec<i8>> {
    (0..1u64 << h)
        .map(|bits| {
            (0..h)
                .map(|i| if bits & (1 << i) != 0 { -1 } else { 1 })
                .collect()
        })
        .collect()
}

/// Enumerates the cells of the arrangement `hyperplanes` inside the region `{||x||_1 <=
/// budget} ∩ region` (see the module docs). `center` is the node's point `x^t`, where the
/// arrangement is central; it is used only by the rank shortcut. `mk = M K`.
///
/// # Errors
/// An LP failure.
pub fn enumerate_cells(
    solver: &dyn LpSolver,
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    center: &[f64],
    hyperplanes: &[Affine],
    options: &CellOptions,
) -> Result<Cells> {
    let h = hyperplanes.len();
    if h == 0 {
        return Ok(Cells {
            signs: vec![Vec::new()],
            lp_solves: 0,
            shortcut: true,
        });
    }
    if options.rank_shortcut
        && h < 31
        && center.len() == mk
        && strictly_inside(center, budget, region, options.min_slack.max(1e-12))
        && independent(hyperplanes, mk)
    {
        return Ok(Cells {
            signs: all_sign_vectors(h),
            lp_solves: 0,
            shortcut: true,
        });
    }
    let bounds = vec![(0.0, budget); 2 * mk];
    let base = region_rows(mk, budget, region);
    let search = InteriorPointSearch::new(solver, &bounds, &base, budget, options.min_slack)?;
    let mut lp_solves = 1;
    let Some(center_point) = search.base()? else {
        return Ok(Cells {
            signs: Vec::new(),
            lp_solves,
            shortcut: false,
        });
    };
    let xc: Vec<f64> = (0..mk)
        .map(|i| center_point.point[i] - center_point.point[mk + i])
        .collect();
    let test = |s: &Vec<i8>| -> Result<bool> {
        Ok(search.with_extra(&sign_rows(hyperplanes, s, mk))?.is_some())
    };

    // Root cell: signs at the region's deepest point; near-ties tried both ways.
    let values: Vec<f64> = hyperplanes.iter().map(|g| g.eval(&xc)).collect();
    let tie_tol = 1e-9 * (1.0 + center_point.slack);
    let ties: Vec<usize> = (0..h).filter(|&i| values[i].abs() <= tie_tol).collect();
    let s0: Vec<i8> = values
        .iter()
        .map(|&v| if v < 0.0 { -1 } else { 1 })
        .collect();
    let mut visited: HashSet<Vec<i8>> = HashSet::new();
    let mut root = None;
    for bits in 0..1u64 << ties.len().min(12) {
        let mut s = s0.clone();
        for (t, &i) in ties.iter().enumerate().take(12) {
            if bits & (1 << t) != 0 {
                s[i] = -s[i];
            }
        }
        visited.insert(s.clone());
        lp_solves += 1;
        if test(&s)? {
            root = Some(s);
            break;
        }
    }
    let Some(root) = root else {
        // No cell from the deepest point's neighbourhood: fall back to testing every sign
        // vector (only reachable for degenerate regions).
        let cells = brute_force_cells(solver, mk, budget, region, hyperplanes, options.min_slack)?;
        return Ok(Cells {
            lp_solves: lp_solves + cells.lp_solves,
            ..cells
        });
    };

    let mut cells = vec![root.clone()];
    let mut frontier = vec![root];
    while !frontier.is_empty() {
        let mut candidates = Vec::new();
        for s in &frontier {
            for i in 0..h {
                let mut t = s.clone();
                t[i] = -t[i];
                if visited.insert(t.clone()) {
                    candidates.push(t);
                }
            }
        }
        lp_solves += candidates.len();
        let verdicts: Vec<Result<bool>> = if options.parallel {
            candidates.par_iter().map(&test).collect()
        } else {
            candidates.iter().map(&test).collect()
        };
        frontier = Vec::new();
        for (s, v) in candidates.into_iter().zip(verdicts) {
            if v? {
                frontier.push(s);
            }
        }
        cells.extend(frontier.iter().cloned());
    }
    Ok(Cells {
        signs: cells,
        lp_solves,
        shortcut: false,
    })
}

/// Tests every one of the `2^H` sign vectors with an interior-point LP (for tests and as a
/// fallback for degenerate regions).
///
/// # Errors
/// An LP failure.
pub fn brute_force_cells(
    solver: &dyn LpSolver,
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    hyperplanes: &[Affine],
    min_slack: f64,
) -> Result<Cells> {
    let bounds = vec![(0.0, budget); 2 * mk];
    let base = region_rows(mk, budget, region);
    let search = InteriorPointSearch::new(solver, &bounds, &base, budget, min_slack)?;
    let all = all_sign_vectors(hyperplanes.len().min(20));
    let mut signs = Vec::new();
    for s in &all {
        if search.with_extra(&sign_rows(hyperplanes, s, mk))?.is_some() {
            signs.push(s.clone());
        }
    }
    Ok(Cells {
        signs,
        lp_solves: all.len() + 1,
        shortcut: false,
    })
}
