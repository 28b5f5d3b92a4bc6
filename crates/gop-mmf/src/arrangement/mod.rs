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
//! small `tau`), so no LP is needed. [`brute_force_cells`] tests all `2^H` sign vectors
//! (`H <= 20`) and exists for tests.
//!
//! # How many cells, and for how long
//!
//! The cells of the blocks multiply: with `K` blocks of `c` cells a node has `c^K` cells.
//! [`enumerate_cells`] returns at most [`CellOptions::max_cells`] cells, and at most
//! [`bl_core::limits::MAX_ELEMENTS`] signs in all; a query with more is refused
//! ([`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) naming `max_cells`),
//! never cut short, since the cells must cover the region. When the refusal comes depends
//! on the path:
//!
//! - the rank shortcut knows the count (`2^H`) and refuses before it builds a sign vector;
//! - the tangent cone walks its blocks first (each walk bounded as below), then knows the
//!   count of the product of their cells (in checked arithmetic) and refuses before it
//!   builds a sign vector of the product;
//! - a walk (on the whole region, or in one block of the cone) does not know the count: it
//!   tests a whole breadth level, keeps the cells found, and refuses after the first level
//!   that takes it past the bound (so it may hold up to the bound plus one level);
//! - the fallback for degenerate regions ([`brute_force_cells`]'s test of every sign
//!   vector) refuses at the first cell past the bound.
//!
//! Sign vectors of an accepted count whose memory cannot be reserved are refused naming
//! `sign vectors`. [`CellOptions::deadline`] is read before every LP, before every block of
//! the tangent cone's product and every 4096 sign vectors within it: once it has passed
//! the enumeration returns [`GopError::DeadlinePassed`].

mod cone;
mod filter;

use std::collections::HashSet;
use std::time::Instant;

use lp_backend::{Cmp, InteriorPointSearch, LpSolver, Row};
use rayon::prelude::*;

use crate::error::{GopError, Result};
use crate::lagrangian::Affine;

pub use filter::{Filtered, Term, filter};

use cone::local_cells;

/// A constraint `sign * g(x) >= 0` of a node's region.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SignedHyperplane {
    /// The hyperplane.
    pub g: Affine,
    /// `+1` or `-1`.
    pub sign: i8,
}

/// The arguments of one cell enumeration, as [`enumerate_cells`] takes them, passed on to
/// the tangent-cone enumeration.
#[derive(Debug, Clone, Copy)]
struct CellQuery<'a> {
    mk: usize,
    budget: f64,
    region: &'a [SignedHyperplane],
    center: &'a [f64],
    hyperplanes: &'a [Affine],
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
    /// The most cells the enumeration may return (default `usize::MAX`: only the bound on
    /// the sign vectors, at most [`bl_core::limits::MAX_ELEMENTS`] signs in all). A query
    /// with more cells is refused (before their sign vectors are built where the count is
    /// known first, after the breadth level that passes the bound in a walk: see
    /// [`enumerate_cells`]); the enumeration is never cut short, which would lose the
    /// cover of the region.
    pub max_cells: usize,
    /// A deadline: once it has passed, the enumeration stops at its next LP (or its next
    /// look within the tangent cone's product, every 4096 sign vectors) and returns
    /// [`GopError::DeadlinePassed`] (default `None`: no deadline).
    pub deadline: Option<Instant>,
}

impl Default for CellOptions {
    fn default() -> Self {
        Self {
            min_slack: 1e-9,
            rank_shortcut: true,
            local: true,
            parallel: true,
            max_cells: usize::MAX,
            deadline: None,
        }
    }
}

/// [`GopError::DeadlinePassed`] (naming `stage`) when `deadline` has passed.
pub(crate) fn check_deadline(deadline: Option<Instant>, stage: &'static str) -> Result<()> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(GopError::DeadlinePassed { stage }),
        _ => Ok(()),
    }
}

/// The stage named by the deadline errors of the cell enumeration.
const ENUMERATION: &str = "the cell enumeration";

/// The name of the [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) of
/// sign vectors whose memory cannot be reserved (distinct from `max_cells`, the refusal of
/// too many cells: the value is a number of values, not of cells).
pub(crate) const SIGN_VECTORS: &str = "sign vectors";

/// The most cells a query of `h` hyperplanes may have: [`CellOptions::max_cells`], and at
/// most [`bl_core::limits::MAX_ELEMENTS`] signs in all (`h` per cell).
fn cell_limit(options: &CellOptions, h: usize) -> usize {
    options
        .max_cells
        .min(bl_core::limits::MAX_ELEMENTS / h.max(1))
}

/// The refusal of a query that needs `needed` (e.g. `"4096 cells (...)"`) where at most
/// `limit` cells are allowed: [`BlError::InvalidParameter`](bl_core::BlError) naming
/// `max_cells`.
fn too_many_cells(needed: impl std::fmt::Display, limit: usize) -> GopError {
    bl_core::params::invalid(
        "max_cells",
        needed,
        format!(
            "at most {limit} cells (CellOptions::max_cells, and at most {} signs in all)",
            bl_core::limits::MAX_ELEMENTS
        ),
    )
    .into()
}

/// Dense copies (length `mk`) of the normals of `rows`, whose `rows.len() x mk` values are
/// checked by [`bl_core::limits::buffer_len`] first and reserved with `try_reserve_exact`;
/// coefficients on a variable `>= mk` are skipped (the callers checked them).
fn dense_normals<'a>(
    rows: impl ExactSizeIterator<Item = &'a Affine>,
    mk: usize,
) -> Result<Vec<Vec<f64>>> {
    let what = "mk (dense normals: hyperplanes x mk)";
    bl_core::limits::buffer_len(what, &[rows.len(), mk])?;
    let mut dense = bl_core::limits::try_with_capacity(what, &[rows.len()])?;
    for g in rows {
        let mut v: Vec<f64> = bl_core::limits::try_zeroed(what, &[mk])?;
        for &(i, a) in &g.coeffs {
            if let Some(slot) = v.get_mut(i) {
                *slot += a;
            }
        }
        dense.push(v);
    }
    Ok(dense)
}

/// Checks the sizes of an arrangement query before anything is built from them: `2 mk`
/// (the variables of the interior-point LPs) within [`bl_core::limits::MAX_ELEMENTS`], and
/// every coefficient of the hyperplanes and the region's rows on a variable below `mk`.
/// Returns the variable bounds `[0, budget]` of the `2 mk` LP variables, reserved with
/// `try_reserve_exact` (an impossible request is a typed error, not an abort).
fn checked_bounds(
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    hyperplanes: &[Affine],
) -> Result<Vec<(f64, f64)>> {
    let n = bl_core::limits::buffer_len("mk", &[2, mk])?;
    let indices = |what: &'static str, rows: &mut dyn Iterator<Item = &Affine>| {
        for (r, g) in rows.enumerate() {
            if let Some(&(i, _)) = g.coeffs.iter().find(|&&(i, _)| i >= mk) {
                return Err(bl_core::params::invalid(
                    what,
                    format!("row {r} has a coefficient on variable {i}"),
                    format!("variable indices below mk = {mk}"),
                ));
            }
        }
        Ok(())
    };
    indices("hyperplanes", &mut hyperplanes.iter())?;
    indices("region", &mut region.iter().map(|r| &r.g))?;
    let mut bounds = Vec::new();
    bounds.try_reserve_exact(n).map_err(|_| {
        bl_core::params::invalid("mk", mk, "a dimension whose LP bounds fit in memory")
    })?;
    bounds.resize(n, (0.0, budget));
    Ok(bounds)
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
///
/// # Errors
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) when the dense normals
/// (`h x mk` values) cannot be held ([`dense_normals`]).
fn independent(hyperplanes: &[Affine], mk: usize) -> Result<bool> {
    let h = hyperplanes.len();
    if h > mk {
        return Ok(false);
    }
    let dense = dense_normals(hyperplanes.iter(), mk)?;
    let mut l: Vec<f64> = bl_core::limits::try_zeroed("hyperplanes (Gram factor)", &[h, h])?;
    for i in 0..h {
        for j in 0..=i {
            let mut s: f64 = dense[i].iter().zip(&dense[j]).map(|(a, b)| a * b).sum();
            for t in 0..j {
                s -= l[i * h + t] * l[j * h + t];
            }
            if i == j {
                // Unit normals: a pivot this small means (near) dependence.
                if s <= 1e-8 {
                    return Ok(false);
                }
                l[i * h + i] = s.sqrt();
            } else {
                l[i * h + j] = s / l[j * h + j];
            }
        }
    }
    Ok(true)
}

/// All `2^h` sign vectors, in binary order, for `h < 64`; refused (naming `max_cells`)
/// when there are more than `limit` of them, before any is built.
fn all_sign_vectors(h: usize, limit: usize) -> Result<Vec<Vec<i8>>> {
    let count = u32::try_from(h)
        .ok()
        .and_then(|h| 1usize.checked_shl(h))
        .filter(|&n| n <= limit)
        .ok_or_else(|| {
            too_many_cells(
                format!("2^{h} cells (every sign vector of {h} hyperplanes)"),
                limit,
            )
        })?;
    let mut all = bl_core::limits::try_with_capacity(SIGN_VECTORS, &[count])?;
    all.extend((0..count).map(|bits| {
        (0..h)
            .map(|i| if bits & (1 << i) != 0 { -1 } else { 1 })
            .collect()
    }));
    Ok(all)
}

/// Enumerates the cells of the arrangement `hyperplanes` inside the region `{||x||_1 <=
/// budget} ∩ region` (see the module docs). `center` is the node's point `x^t`, where the
/// arrangement is central; it is used by the rank shortcut and the tangent-cone
/// enumeration. The hyperplanes must be pairwise distinct (as [`filter`] returns them):
/// the walk flips one sign at a time. `mk = M K`.
///
/// The number of cells is bounded by [`CellOptions::max_cells`] and by
/// [`bl_core::limits::MAX_ELEMENTS`] signs in all (`H` per cell): a query with more cells
/// is refused, never cut short (the cells must cover the region). The rank shortcut
/// (`2^H` cells) and the tangent cone (the product of its blocks' cells, once the blocks
/// are walked) know the count before they build a sign vector; a walk refuses after the
/// first breadth level that passes the bound, which it has tested and kept in full (see
/// the module docs). [`CellOptions::deadline`] is read before every LP, and before every
/// block of the tangent cone's product and every 4096 sign vectors within it.
///
/// # Errors
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) when `2 mk` exceeds
/// [`bl_core::limits::MAX_ELEMENTS`] or a hyperplane or region row has a coefficient on a
/// variable `>= mk` (checked before anything is built), naming `max_cells` when there
/// are more cells than the bound above (the value says how many, or more than how many),
/// or naming `sign vectors` when the memory of an accepted count of sign vectors cannot
/// be reserved;
/// [`GopError::DeadlinePassed`] once the deadline has passed; an LP failure; in the
/// fallback for degenerate regions ([`brute_force_cells`]), more than 20 hyperplanes.
pub fn enumerate_cells(
    solver: &dyn LpSolver,
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    center: &[f64],
    hyperplanes: &[Affine],
    options: &CellOptions,
) -> Result<Cells> {
    let bounds = checked_bounds(mk, budget, region, hyperplanes)?;
    let h = hyperplanes.len();
    let limit = cell_limit(options, h);
    check_deadline(options.deadline, ENUMERATION)?;
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
        && independent(hyperplanes, mk)?
    {
        return Ok(Cells {
            signs: all_sign_vectors(h, limit)?,
            lp_solves: 0,
            shortcut: true,
            local: false,
        });
    }
    if options.local
        && let Some(cells) = local_cells(
            solver,
            CellQuery {
                mk,
                budget,
                region,
                center,
                hyperplanes,
            },
            options,
        )?
    {
        return Ok(cells);
    }
    let base = region_rows(mk, budget, region);
    check_deadline(options.deadline, ENUMERATION)?;
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
        check_deadline(options.deadline, ENUMERATION)?;
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
        let cells = brute_force(solver, mk, budget, region, hyperplanes, options)?;
        return Ok(Cells {
            lp_solves: lp_solves + cells.lp_solves,
            ..cells
        });
    };

    let (cells, walk_lps) = walk(root, visited, h, options.parallel, limit, &test)?;
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
/// (root first) and the number of tests; refused (naming `max_cells`) after the first
/// breadth level that takes the cells found past `limit` (the whole level is tested and
/// kept before the count is compared).
fn walk<F>(
    root: Vec<i8>,
    mut visited: HashSet<Vec<i8>>,
    h: usize,
    parallel: bool,
    limit: usize,
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
        if cells.len() > limit {
            return Err(too_many_cells(
                format!(
                    "more than {limit} cells (the walk over {h} hyperplanes had found {})",
                    cells.len()
                ),
                limit,
            ));
        }
    }
    Ok((cells, lp_solves))
}

/// The most cells `n` central hyperplanes (through the origin) can make when their normals
/// span at most `rank` dimensions: `2 sum_{i < rank} C(n - 1, i)`, reached in general
/// position in `R^rank` (Zaslavsky). Saturates at `usize::MAX` instead of overflowing.
///
/// ```
/// use gop_mmf::arrangement::central_cell_bound;
/// assert_eq!(central_cell_bound(6, 3), 6 * 6 - 6 + 2);
/// assert_eq!(central_cell_bound(6, 6), 64);
/// ```
#[must_use]
pub fn central_cell_bound(n: usize, rank: usize) -> usize {
    let binomial = |m: usize, k: usize| -> u128 {
        (0..k as u128).fold(1u128, |acc, i| acc.saturating_mul(m as u128 - i) / (i + 1))
    };
    let sum: u128 = (0..rank.min(n))
        .map(|i| binomial(n - 1, i))
        .fold(0u128, u128::saturating_add);
    usize::try_from(sum.saturating_mul(2)).unwrap_or(usize::MAX)
}

/// Most hyperplanes [`brute_force_cells`] takes: `2^20` sign vectors, one LP each.
const MAX_BRUTE_FORCE_HYPERPLANES: usize = 20;

/// Tests every one of the `2^H` sign vectors with an interior-point LP (for tests and as a
/// fallback for degenerate regions), for `H` at most 20.
///
/// # Errors
/// As [`enumerate_cells`]: sizes and indices first;
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) for more than 20
/// hyperplanes; then an LP failure.
pub fn brute_force_cells(
    solver: &dyn LpSolver,
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    hyperplanes: &[Affine],
    min_slack: f64,
) -> Result<Cells> {
    let options = CellOptions {
        min_slack,
        ..CellOptions::default()
    };
    brute_force(solver, mk, budget, region, hyperplanes, &options)
}

/// [`brute_force_cells`] with the cell bound and deadline of `options` (its `min_slack`
/// too; the rest is not read).
fn brute_force(
    solver: &dyn LpSolver,
    mk: usize,
    budget: f64,
    region: &[SignedHyperplane],
    hyperplanes: &[Affine],
    options: &CellOptions,
) -> Result<Cells> {
    let bounds = checked_bounds(mk, budget, region, hyperplanes)?;
    if hyperplanes.len() > MAX_BRUTE_FORCE_HYPERPLANES {
        return Err(bl_core::params::invalid(
            "hyperplanes",
            format!("{} hyperplanes", hyperplanes.len()),
            format!("at most {MAX_BRUTE_FORCE_HYPERPLANES} to test every sign vector"),
        )
        .into());
    }
    let base = region_rows(mk, budget, region);
    check_deadline(options.deadline, ENUMERATION)?;
    let search = InteriorPointSearch::new(solver, &bounds, &base, budget, options.min_slack)?;
    // At most 2^20 sign vectors are tried; the cells among them obey the bound.
    let all = all_sign_vectors(hyperplanes.len(), usize::MAX)?;
    let limit = cell_limit(options, hyperplanes.len());
    let mut signs = Vec::new();
    for s in &all {
        check_deadline(options.deadline, ENUMERATION)?;
        if search.with_extra(&sign_rows(hyperplanes, s, mk))?.is_some() {
            if signs.len() == limit {
                return Err(too_many_cells(
                    format!(
                        "more than {limit} cells (of 2^{} sign vectors)",
                        hyperplanes.len()
                    ),
                    limit,
                ));
            }
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
