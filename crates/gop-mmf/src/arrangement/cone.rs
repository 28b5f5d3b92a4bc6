//! Cells in the tangent cone at the node's point, block by block (see the module docs of
//! [`crate::arrangement`], "Cells in the tangent cone").

use std::collections::HashSet;

use lp_backend::{Cmp, InteriorPointSearch, LinearProgram, LpOutcome, LpSolver, Row, Sense};

use super::{
    CellOptions, CellQuery, Cells, ENUMERATION, SIGN_VECTORS, SignedHyperplane, check_deadline,
    dense_normals, find_root, too_many_cells, walk,
};
use crate::error::Result;
use crate::lagrangian::Affine;

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
/// in `[-1, 1]` plus the slack), after a look at `options.deadline`. Returns the verdict
/// and the LPs solved; refused (naming `max_cells`) when the block alone has more than
/// `limit` cells.
fn block_cells(
    solver: &dyn LpSolver,
    block: &ConeBlock,
    angle_tol: f64,
    options: &CellOptions,
    limit: usize,
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
    check_deadline(options.deadline, ENUMERATION)?;
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
        check_deadline(options.deadline, ENUMERATION)?;
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
    let (cells, walk_lps) = walk(root, visited, h, options.parallel, limit, &test)?;
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
    normals: impl ExactSizeIterator<Item = &'a Affine>,
    mk: usize,
    tol: f64,
) -> Result<(bool, usize)> {
    let dense = dense_normals(normals, mk)?;
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
pub(super) fn local_cells(
    solver: &dyn LpSolver,
    query: CellQuery<'_>,
    options: &CellOptions,
) -> Result<Option<Cells>> {
    let CellQuery {
        mk,
        budget,
        region,
        center,
        hyperplanes,
    } = query;
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
        let normals: Vec<&Affine> = hyperplanes
            .iter()
            .chain(active.iter().map(|r| &r.g))
            .collect();
        check_deadline(options.deadline, ENUMERATION)?;
        let (inward, solves) =
            inward_direction_exists(solver, center, normals.into_iter(), mk, tol)?;
        lp_solves += solves;
        if !inward {
            return Ok(None);
        }
    }
    let angle_tol = (options.min_slack / budget).max(1e-12);
    // The blocks hold dense normals over their variables: at most `rows x mk` values.
    bl_core::limits::buffer_len(
        "mk (dense normals: hyperplanes x mk)",
        &[hyperplanes.len().saturating_add(active.len()), mk],
    )?;
    let limit = super::cell_limit(options, hyperplanes.len());

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

    // Every block's cells first; the cells of the cone are their Cartesian product, whose
    // size is known (and checked) before any of its sign vectors is built.
    let mut per_block: Vec<Vec<Vec<i8>>> = Vec::with_capacity(blocks.len());
    for block in &blocks {
        let (verdict, solves) = block_cells(solver, block, angle_tol, options, limit)?;
        lp_solves += solves;
        match verdict {
            BlockVerdict::Cells(cells) => per_block.push(cells),
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
        }
    }
    let total = per_block
        .iter()
        .try_fold(1usize, |acc, cells| acc.checked_mul(cells.len()))
        .filter(|&n| n <= limit);
    let Some(total) = total else {
        return Err(too_many_cells(product_of_blocks(&per_block), limit));
    };
    let parts: Vec<(&[usize], &[Vec<i8>])> = blocks
        .iter()
        .zip(&per_block)
        .map(|(block, cells)| (block.hyperplanes.as_slice(), cells.as_slice()))
        .collect();
    let signs = product(hyperplanes.len(), &parts, || {
        check_deadline(options.deadline, ENUMERATION)
    })?;
    debug_assert_eq!(signs.len(), total);
    Ok(Some(Cells {
        signs,
        lp_solves,
        shortcut: false,
        local: true,
    }))
}

/// Sign vectors built by [`product`] between two calls of its `check`.
const PRODUCT_CHECK_EVERY: usize = 4096;

/// The sign vectors over `h` hyperplanes of the Cartesian product of the blocks' cells:
/// `parts` holds, per block, the indices of its hyperplanes and its cells (their signs on
/// those hyperplanes, in that order); signs on no block's hyperplane stay 0. The caller
/// has checked the count (the product of the blocks' cell counts); each block's vectors
/// are reserved without aborting (an impossible reservation names [`SIGN_VECTORS`]).
///
/// `check` (the deadline) is called before every block and before every
/// [`PRODUCT_CHECK_EVERY`]-th sign vector a block builds after its first, so that the
/// last block, which builds all of them, cannot run on unchecked; its error ends the
/// product. It does not change the result.
fn product<F>(h: usize, parts: &[(&[usize], &[Vec<i8>])], mut check: F) -> Result<Vec<Vec<i8>>>
where
    F: FnMut() -> Result<()>,
{
    let mut signs: Vec<Vec<i8>> = vec![vec![0; h]];
    for &(hyperplanes, cells) in parts {
        check()?;
        let mut next =
            bl_core::limits::try_with_capacity(SIGN_VECTORS, &[signs.len(), cells.len()])?;
        for partial in &signs {
            for cell in cells {
                if !next.is_empty() && next.len() % PRODUCT_CHECK_EVERY == 0 {
                    check()?;
                }
                let mut s = partial.clone();
                for (&i, &v) in hyperplanes.iter().zip(cell) {
                    if let Some(slot) = s.get_mut(i) {
                        *slot = v;
                    }
                }
                next.push(s);
            }
        }
        signs = next;
    }
    Ok(signs)
}

/// The number of cells of the product of the blocks' cells, for an error message: the
/// exact count (or `more than 2^128`) and the factors, e.g.
/// `"68719476736 cells (64 x 64 x 64 x 64 x 64 x 64 over 6 blocks)"`.
fn product_of_blocks(per_block: &[Vec<Vec<i8>>]) -> String {
    let count = per_block
        .iter()
        .try_fold(1u128, |acc, cells| acc.checked_mul(cells.len() as u128))
        .map_or_else(|| "more than 2^128".to_string(), |n| n.to_string());
    let factors: Vec<String> = per_block.iter().map(|c| c.len().to_string()).collect();
    format!(
        "{count} cells ({} over {} blocks)",
        factors.join(" x "),
        per_block.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::GopError;

    /// Every sign vector of `h` hyperplanes, in binary order.
    fn all(h: usize) -> Vec<Vec<i8>> {
        (0..1usize << h)
            .map(|bits| {
                (0..h)
                    .map(|i| if bits & (1 << i) != 0 { -1 } else { 1 })
                    .collect()
            })
            .collect()
    }

    /// The product of a block of 1 hyperplane (2 cells) and a block of 13 (8192 cells)
    /// builds 2 and then 16,384 sign vectors: `check` runs before each block and 3 times
    /// inside the second (at 4096, 8192 and 12,288 vectors built), and its error at any of
    /// these 5 calls, the last 3 inside the last block, ends the product. The result does
    /// not depend on the checks.
    #[test]
    fn the_product_checks_the_deadline_inside_its_last_block() {
        let first = all(1);
        let second = all(13);
        let first_hyperplanes = [0];
        let second_hyperplanes: Vec<usize> = (1..14).collect();
        let parts: Vec<(&[usize], &[Vec<i8>])> = vec![
            (first_hyperplanes.as_slice(), first.as_slice()),
            (second_hyperplanes.as_slice(), second.as_slice()),
        ];
        let mut calls = 0;
        let signs = product(14, &parts, || {
            calls += 1;
            Ok(())
        });
        assert!(matches!(&signs, Ok(s) if s.len() == 2 * 8192));
        assert_eq!(calls, 5);
        let expected: Vec<Vec<i8>> = first
            .iter()
            .flat_map(|a| {
                second.iter().map(move |b| {
                    let mut s = a.clone();
                    s.extend_from_slice(b);
                    s
                })
            })
            .collect();
        assert!(matches!(&signs, Ok(s) if *s == expected));

        for fail_at in 1..=5 {
            let mut calls = 0;
            let result = product(14, &parts, || {
                calls += 1;
                if calls == fail_at {
                    Err(GopError::DeadlinePassed { stage: ENUMERATION })
                } else {
                    Ok(())
                }
            });
            assert!(
                matches!(result, Err(GopError::DeadlinePassed { .. })),
                "call {fail_at}"
            );
            assert_eq!(calls, fail_at);
        }
    }
}
