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
//!    arrangement of distinct hyperplanes differ in one sign, so the walk reaches every
//!    cell; the LPs of one breadth level run in parallel.
//!
//! This walk on the whole region is the reference path; its LPs have `2 M K + 1` variables.
//!
//! # Cells in the tangent cone (the default when it applies)
//!
//! The arrangement is central at the node's point `x^t` (every `g_h(x^t) = 0`), and `x^t`
//! lies in the closed region `R` (it is the relaxed dual's optimum of the node). For an
//! open cone `C = x^t + {v : s_h a_h^T v > 0}` and a convex `R` containing `x^t`, `C` meets
//! the interior of `R` exactly when some direction `v` of the cone points into the interior
//! of `R` from `x^t` (if `x^t + v` is interior, so is `x^t + tau v` for every
//! `0 < tau <= 1`). When `x^t` is strictly inside the l1 ball, the directions that point
//! into `R` are those with `sigma_i c_i^T v > 0` for the region rows *active* at `x^t`;
//! inactive rows and the ball do not matter. So the cells are the sign vectors `s` for which
//! the homogeneous system
//!
//! ```text
//! s_h a_h^T v > 0 (new hyperplanes),   sigma_i c_i^T v > 0 (active region rows)
//! ```
//!
//! has a solution, a question about the span of those normals only. Two more reductions
//! make it cheap:
//!
//! - *Blocks*: normals that share no variable (transitively) form independent blocks (in
//!   GOP, one per component `k`: `g_kn` involves only column `k` of `x`). The system
//!   separates, and the cells are the Cartesian product of the blocks' cells.
//! - *Span*: in each block, `v` is written in an orthonormal basis of the span of the
//!   block's normals (dimension at most its number of rows), so each test is an
//!   interior-point LP with a handful of variables (`v` in the unit box, slack capped at
//!   1) instead of `2 M K + 1`.
//!
//! Each block is walked like the region (root cell at a generic direction inside its active
//! cone, then sign flips). A cell counts when its cone holds a ball of radius
//! `min_slack / P` around a direction of the unit box, the angular reading of the region
//! walk's `min_slack`. When `x^t` is on the ball's boundary (a relaxed dual's optimum
//! often is), the ball does not restrict the cells if some direction orthogonal to every
//! normal and active row points into the ball: adding it to a cell's direction keeps the
//! signs and brings the point inside. The path steps aside (the walk on the region
//! decides) when no such direction is found, when `x^t` lies outside the ball or the
//! region, or when a hyperplane misses it, all up to `min_slack`; *checked* against brute force on random central arrangements with active
//! rows and several blocks.
//!
//! # Rank shortcut
//!
//! Used first when it applies: the arrangement is central at the node's point `x^t`.
//! If `x^t` lies in the interior of `R` and the representative normals are linearly
//! independent, every one of the `2^H` sign vectors is a cell (for any `s` the direction
//! `v = A^T (A A^T)^{-1} s` has `sign(A v) = s`, and `x^t + tau v` stays inside `R` for a
//! small `tau`), so no LP is needed. [`brute_force_cells`] tests all `2^H` sign vectors and
//! exists for tests.

use std::collections::HashSet;

use lp_backend::{Cmp, InteriorPointSearch, LinearProgram, LpOutcome, LpSolver, Row, Sense};
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
    /// Whether the tangent-cone enumeration decided (its LPs are the small ones).
    pub local: bool,
}

/// Options of [`enumerate_cells`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellOptions {
    /// Smallest common slack (absolute, in the units of `x`) that counts as an interior.
    pub min_slack: f64,
    /// Try the rank shortcut first.
    pub rank_shortcut: bool,
    /// Enumerate in the tangent cone at the center when it applies (center inside the
    /// region, every hyperplane through it), block by block; else the walk on the region.
    pub local: bool,
    /// Run the LPs of one breadth level in parallel (rayon).
    pub parallel: bool,
}

impl Default for CellOptions {
    fn default() -> Self {
        Self {
            min_slack: 1e-9,
            rank_shortcut: true,
            local: true,
            parallel: true,
        }
    }
}

/// Variables of the interior-point LPs: `x+` at `0..mk`, `x-` at `mk..2mk`. All `x+`
/// terms come before the `x-` terms, so the row's indices are increasing when `g`'s are
/// (the backend then skips sorting them).
fn split_row(g: &Affine, sign: f64, mk: usize) -> Row {
    let mut coeffs = Vec::with_capacity(2 * g.coeffs.len());
    coeffs.extend(g.coeffs.iter().map(|&(i, a)| (i, sign * a)));
    coeffs.extend(g.coeffs.iter().map(|&(i, a)| (mk + i, -sign * a)));
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
/// arrangement is central; it is used by the rank shortcut and the tangent-cone
/// enumeration. The hyperplanes must be pairwise distinct (as [`filter`] returns them):
/// the walk flips one sign at a time. `mk = M K`.
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
            local: false,
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
            local: false,
        });
    }
    if options.local
        && let Some(cells) = local_cells(solver, mk, budget, region, center, hyperplanes, options)?
    {
        return Ok(cells);
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
            local: false,
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
    let mut visited: HashSet<Vec<i8>> = HashSet::new();
    let (root, tests) = find_root(&values, &ties, &mut visited, &test)?;
    lp_solves += tests;
    let Some(root) = root else {
        // No cell from the deepest point's neighbourhood: fall back to testing every sign
        // vector (only reachable for degenerate regions).
        let cells = brute_force_cells(solver, mk, budget, region, hyperplanes, options.min_slack)?;
        return Ok(Cells {
            lp_solves: lp_solves + cells.lp_solves,
            ..cells
        });
    };

    let (cells, walk_lps) = walk(root, visited, h, options.parallel, &test)?;
    Ok(Cells {
        signs: cells,
        lp_solves: lp_solves + walk_lps,
        shortcut: false,
        local: false,
    })
}

/// The root cell of a walk: the sign vector of the hyperplane `values` at a deep point,
/// with the near-ties (`ties`, at most the first 12) tried both ways until `test` accepts
/// one. Every vector tried is added to `visited`. Returns the cell (if any) and the number
/// of tests.
fn find_root<F>(
    values: &[f64],
    ties: &[usize],
    visited: &mut HashSet<Vec<i8>>,
    test: &F,
) -> Result<(Option<Vec<i8>>, usize)>
where
    F: Fn(&Vec<i8>) -> Result<bool>,
{
    let s0: Vec<i8> = values
        .iter()
        .map(|&v| if v < 0.0 { -1 } else { 1 })
        .collect();
    let mut tests = 0;
    for bits in 0..1u64 << ties.len().min(12) {
        let mut s = s0.clone();
        for (t, &i) in ties.iter().enumerate().take(12) {
            if bits & (1 << t) != 0 {
                s[i] = -s[i];
            }
        }
        visited.insert(s.clone());
        tests += 1;
        if test(&s)? {
            return Ok((Some(s), tests));
        }
    }
    Ok((None, tests))
}

/// Breadth-first walk over the cell adjacency graph from the cell `root`: every neighbour
/// (one sign flipped) not yet in `visited` is tested once by `test`. Returns the cells found
/// (root first) and the number of tests.
fn walk<F>(
    root: Vec<i8>,
    mut visited: HashSet<Vec<i8>>,
    h: usize,
    parallel: bool,
    test: &F,
) -> Result<(Vec<Vec<i8>>, usize)>
where
    F: Fn(&Vec<i8>) -> Result<bool> + Sync,
{
    visited.insert(root.clone());
    let mut lp_solves = 0;
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
        let verdicts: Vec<Result<bool>> = if parallel {
            candidates.par_iter().map(test).collect()
        } else {
            candidates.iter().map(test).collect()
        };
        frontier = Vec::new();
        for (s, v) in candidates.into_iter().zip(verdicts) {
            if v? {
                frontier.push(s);
            }
        }
        cells.extend(frontier.iter().cloned());
    }
    Ok((cells, lp_solves))
}

/// Union-find root of `i` (path halving).
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Orthonormal basis of the span of `vectors` (modified Gram-Schmidt, applied twice);
/// a vector whose remainder is below `1e-10` of its norm adds nothing.
fn orthonormal_basis(vectors: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for v in vectors {
        let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        let mut u = v.clone();
        for _ in 0..2 {
            for q in &basis {
                let d: f64 = q.iter().zip(&u).map(|(a, b)| a * b).sum();
                u.iter_mut().zip(q).for_each(|(a, b)| *a -= d * b);
            }
        }
        let rest = u.iter().map(|a| a * a).sum::<f64>().sqrt();
        if rest > 1e-10 * norm {
            u.iter_mut().for_each(|a| *a /= rest);
            basis.push(u);
        }
    }
    basis
}

/// One independent block of the tangent cone: its hyperplanes (indices into the
/// arrangement) and the coordinates of their normals and of the active region rows in an
/// orthonormal basis of their span.
struct ConeBlock {
    hyperplanes: Vec<usize>,
    normals: Vec<Vec<f64>>,
    active: Vec<Vec<f64>>,
}

/// A fixed, generic direction (no random choice involved): components from the golden
/// ratio sequence, so no coordinate hyperplane or simple ratio contains it.
fn generic_direction(r: usize) -> Vec<f64> {
    let phi = 0.5 * (1.0 + 5f64.sqrt());
    (0..r)
        .map(|i| ((i as f64 + 1.0) * phi).fract() - 0.5)
        .collect()
}

/// What the enumeration of one cone block found.
enum BlockVerdict {
    /// The cells (sign vectors over the block's hyperplanes), root first.
    Cells(Vec<Vec<i8>>),
    /// The active rows leave no open cone: the region has no interior near the center.
    EmptyCone,
    /// No root cell near a generic interior direction (numerically degenerate block).
    NoRoot,
}

/// The cells of one cone block, by the walk over sign vectors of its hyperplanes; each
/// candidate is tested by an interior-point LP in the block's coordinates (`r` variables
/// in `[-1, 1]` plus the slack). Returns the verdict and the LPs solved.
fn block_cells(
    solver: &dyn LpSolver,
    block: &ConeBlock,
    angle_tol: f64,
    parallel: bool,
) -> Result<(BlockVerdict, usize)> {
    let r = block
        .normals
        .first()
        .or(block.active.first())
        .map_or(0, Vec::len);
    let dense_row = |a: &[f64], s: f64| {
        Row::new(
            a.iter()
                .enumerate()
                .filter(|&(_, &v)| v != 0.0)
                .map(|(j, &v)| (j, s * v))
                .collect(),
            Cmp::Ge,
            0.0,
        )
    };
    let base: Vec<Row> = block.active.iter().map(|a| dense_row(a, 1.0)).collect();
    let bounds = vec![(-1.0, 1.0); r];
    let search = InteriorPointSearch::new(solver, &bounds, &base, 1.0, angle_tol)?;
    let mut lp_solves = 1;
    let Some(deepest) = search.base()? else {
        return Ok((BlockVerdict::EmptyCone, lp_solves));
    };
    let h = block.hyperplanes.len();
    if h == 0 {
        return Ok((BlockVerdict::Cells(vec![Vec::new()]), lp_solves));
    }
    let test = |s: &Vec<i8>| -> Result<bool> {
        let rows: Vec<Row> = block
            .normals
            .iter()
            .zip(s)
            .map(|(a, &si)| dense_row(a, f64::from(si)))
            .collect();
        Ok(search.with_extra(&rows)?.is_some())
    };
    // Root candidate: a generic point inside the active cone, near its deepest point.
    let d = generic_direction(r);
    let dn = d.iter().map(|a| a * a).sum::<f64>().sqrt();
    let tau = 0.5 * deepest.slack / dn;
    let w: Vec<f64> = deepest
        .point
        .iter()
        .zip(&d)
        .map(|(p, q)| p + tau * q)
        .collect();
    let values: Vec<f64> = block
        .normals
        .iter()
        .map(|a| a.iter().zip(&w).map(|(u, v)| u * v).sum())
        .collect();
    let ties: Vec<usize> = (0..h)
        .filter(|&i| values[i].abs() <= 1e-9 * deepest.slack)
        .collect();
    let mut visited: HashSet<Vec<i8>> = HashSet::new();
    let (root, tests) = find_root(&values, &ties, &mut visited, &test)?;
    lp_solves += tests;
    let Some(root) = root else {
        return Ok((BlockVerdict::NoRoot, lp_solves));
    };
    let (cells, walk_lps) = walk(root, visited, h, parallel, &test)?;
    Ok((BlockVerdict::Cells(cells), lp_solves + walk_lps))
}

/// Whether some direction `w` orthogonal to every normal in `normals` points strictly into
/// the l1 ball from `center`, a point on its boundary: the directional derivative
/// `f(w) = sum_{x_i != 0} sign(x_i) w_i + sum_{x_i = 0} |w_i|` of `||x||_1` is negative.
/// The candidate is the projection of `-sign(center)` onto the orthogonal complement of
/// the normals' span; when it is not inward, an LP minimizes `f` over that complement (in
/// the unit box). Returns the verdict and the LPs solved.
///
/// When such a `w` exists, the ball does not restrict the tangent cone's cells: for a
/// direction `v` of a cell (signs fixed by the normals only), `v + t w` has the same signs
/// for every `t`, and `f(v + t w) <= f(v) + t f(w) < 0` for `t` large (`f` is sublinear), so
/// `center + tau (v + t w)` is strictly inside the ball for small `tau`.
fn inward_direction_exists<'a>(
    solver: &dyn LpSolver,
    center: &[f64],
    normals: impl Iterator<Item = &'a Affine>,
    mk: usize,
    tol: f64,
) -> Result<(bool, usize)> {
    let dense: Vec<Vec<f64>> = normals
        .map(|g| {
            let mut v = vec![0.0; mk];
            for &(i, a) in &g.coeffs {
                if i < mk {
                    v[i] += a;
                }
            }
            v
        })
        .collect();
    let basis = orthonormal_basis(&dense);
    let mut w: Vec<f64> = center
        .iter()
        .map(|&x| if x.abs() > tol { -x.signum() } else { 0.0 })
        .collect();
    for _ in 0..2 {
        for q in &basis {
            let d: f64 = q.iter().zip(&w).map(|(a, b)| a * b).sum();
            w.iter_mut().zip(q).for_each(|(a, b)| *a -= d * b);
        }
    }
    let f: f64 = center
        .iter()
        .zip(&w)
        .map(|(&x, &wi)| {
            if x.abs() > tol {
                x.signum() * wi
            } else {
                wi.abs()
            }
        })
        .sum();
    let scale: f64 = w.iter().map(|v| v.abs()).sum();
    if f < -1e-9 * scale.max(1.0) {
        return Ok((true, 0));
    }
    // The projection can miss (e.g. at a vertex of the ball); an LP decides:
    // min f(w) over w = w+ - w- in the unit box with q^T w = 0 for every basis vector q.
    let mut lp = LinearProgram::new(Sense::Minimize);
    for &x in center {
        lp.add_var(0.0, 1.0, if x.abs() > tol { x.signum() } else { 1.0 });
    }
    for &x in center {
        lp.add_var(0.0, 1.0, if x.abs() > tol { -x.signum() } else { 1.0 });
    }
    for q in &basis {
        let coeffs: Vec<(usize, f64)> = q
            .iter()
            .enumerate()
            .filter(|&(_, &a)| a != 0.0)
            .map(|(i, &a)| (i, a))
            .chain(
                q.iter()
                    .enumerate()
                    .filter(|&(_, &a)| a != 0.0)
                    .map(|(i, &a)| (mk + i, -a)),
            )
            .collect();
        lp.push_row(Row::new(coeffs, Cmp::Eq, 0.0));
    }
    let inward = match solver.solve(&lp)? {
        LpOutcome::Optimal(sol) => sol.objective < -1e-7,
        LpOutcome::Infeasible | LpOutcome::Unbounded => false,
    };
    Ok((inward, 1))
}

/// Cell enumeration in the tangent cone at `center` (see the module docs), or `None` when
/// it does not apply: the center lies outside the l1 ball or the region, a hyperplane does
/// not pass through it (all up to `min_slack`), or the center is on the ball's boundary and
/// no direction orthogonal to the normals points into the ball
/// ([`inward_direction_exists`]).
fn local_cells(
    solver: &dyn LpSolver,
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    center: &[f64],
    hyperplanes: &[Affine],
    options: &CellOptions,
) -> Result<Option<Cells>> {
    if center.len() != mk || budget.is_nan() || budget <= 0.0 {
        return Ok(None);
    }
    let cnorm = center.iter().map(|v| v * v).sum::<f64>().sqrt();
    let tol = options.min_slack.max(1e-10 * (1.0 + cnorm));
    let l1: f64 = center.iter().map(|v| v.abs()).sum();
    if l1 > budget + tol {
        return Ok(None);
    }
    let on_ball_boundary = l1 >= budget - tol;
    // Signed distances of the center to the hyperplanes and region rows.
    let distance = |g: &Affine| {
        let n = g.norm();
        (n > 0.0).then(|| g.eval(center) / n)
    };
    for g in hyperplanes {
        match distance(g) {
            Some(d) if d.abs() <= tol => {}
            _ => return Ok(None),
        }
    }
    let mut active: Vec<&SignedHyperplane> = Vec::new();
    for r in region {
        match distance(&r.g) {
            Some(d) if f64::from(r.sign) * d > tol => {}
            Some(d) if f64::from(r.sign) * d >= -tol => active.push(r),
            _ => return Ok(None),
        }
    }
    let mut lp_solves = 0;
    if on_ball_boundary {
        let (inward, solves) = inward_direction_exists(
            solver,
            center,
            hyperplanes.iter().chain(active.iter().map(|r| &r.g)),
            mk,
            tol,
        )?;
        lp_solves += solves;
        if !inward {
            return Ok(None);
        }
    }
    let angle_tol = (options.min_slack / budget).max(1e-12);

    // Blocks: hyperplanes and active rows that share a variable, transitively.
    let mut parent: Vec<usize> = (0..mk).collect();
    let supports = hyperplanes
        .iter()
        .chain(active.iter().map(|r| &r.g))
        .map(|g| g.coeffs.iter().map(|&(i, _)| i).collect::<Vec<_>>());
    for support in supports {
        if support.iter().any(|&i| i >= mk) {
            return Ok(None);
        }
        for w in support.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a] = b;
        }
    }
    let root_of = |parent: &mut Vec<usize>, g: &Affine| find(parent, g.coeffs[0].0);
    let mut block_ids: Vec<usize> = Vec::new();
    let mut members: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    let mut block_of = |root: usize, members: &mut Vec<(Vec<usize>, Vec<usize>)>| match block_ids
        .iter()
        .position(|&b| b == root)
    {
        Some(i) => i,
        None => {
            block_ids.push(root);
            members.push((Vec::new(), Vec::new()));
            members.len() - 1
        }
    };
    for (i, g) in hyperplanes.iter().enumerate() {
        let b = block_of(root_of(&mut parent, g), &mut members);
        members[b].0.push(i);
    }
    for (i, r) in active.iter().enumerate() {
        let b = block_of(root_of(&mut parent, &r.g), &mut members);
        members[b].1.push(i);
    }
    let blocks: Vec<ConeBlock> = members
        .into_iter()
        .map(|(hs, rows)| {
            let mut vars: Vec<usize> = hs
                .iter()
                .flat_map(|&i| hyperplanes[i].coeffs.iter().map(|&(j, _)| j))
                .chain(
                    rows.iter()
                        .flat_map(|&i| active[i].g.coeffs.iter().map(|&(j, _)| j)),
                )
                .collect();
            vars.sort_unstable();
            vars.dedup();
            let dense = |g: &Affine, s: f64| {
                let mut v = vec![0.0; vars.len()];
                for &(j, a) in &g.coeffs {
                    if let Ok(p) = vars.binary_search(&j) {
                        v[p] += s * a;
                    }
                }
                v
            };
            let hv: Vec<Vec<f64>> = hs.iter().map(|&i| dense(&hyperplanes[i], 1.0)).collect();
            let av: Vec<Vec<f64>> = rows
                .iter()
                .map(|&i| dense(&active[i].g, f64::from(active[i].sign)))
                .collect();
            let basis = orthonormal_basis(&hv.iter().chain(&av).cloned().collect::<Vec<_>>());
            let coords = |v: &Vec<f64>| -> Vec<f64> {
                basis
                    .iter()
                    .map(|q| q.iter().zip(v).map(|(a, b)| a * b).sum())
                    .collect()
            };
            ConeBlock {
                hyperplanes: hs,
                normals: hv.iter().map(coords).collect(),
                active: av.iter().map(coords).collect(),
            }
        })
        .collect();

    let mut signs: Vec<Vec<i8>> = vec![vec![0; hyperplanes.len()]];
    for block in &blocks {
        let (verdict, solves) = block_cells(solver, block, angle_tol, options.parallel)?;
        lp_solves += solves;
        let cells = match verdict {
            BlockVerdict::Cells(cells) => cells,
            // The region has no interior near the center, so none at all (it is convex).
            BlockVerdict::EmptyCone => {
                return Ok(Some(Cells {
                    signs: Vec::new(),
                    lp_solves,
                    shortcut: false,
                    local: true,
                }));
            }
            // Numerically degenerate: leave it to the walk on the whole region.
            BlockVerdict::NoRoot => return Ok(None),
        };
        let mut next = Vec::with_capacity(signs.len() * cells.len());
        for partial in &signs {
            for cell in &cells {
                let mut s = partial.clone();
                for (&i, &v) in block.hyperplanes.iter().zip(cell) {
                    s[i] = v;
                }
                next.push(s);
            }
        }
        signs = next;
    }
    Ok(Some(Cells {
        signs,
        lp_solves,
        shortcut: false,
        local: true,
    }))
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
        local: false,
    })
}
