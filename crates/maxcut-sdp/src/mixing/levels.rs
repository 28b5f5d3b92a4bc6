//! The cyclic sweep on a sparse `C`, run level by level on the current rayon pool.
//!
//! In the cyclic sweep (Wang, Chang, Kolter 2017, Alg. 1) the update of `v_i` reads the
//! new `v_j` of its neighbours `j < i` and the old `v_j` of its neighbours `j > i`. Any
//! order of the updates in which every vertex comes after its lower-index neighbours and
//! before its higher-index neighbours therefore computes exactly the same numbers. The
//! *level* of `i` is `0` if it has no neighbour `j < i` and `1 + max level(j)` over those
//! neighbours otherwise; two vertices of one level are never neighbours, so one level can
//! be updated all at once, level after level. On a random sparse graph there are few
//! levels (26 to 31 for `n = 10^4` with `5 x 10^4` edges, over six seeds of
//! [`crate::synthetic::random_edges`] and [`crate::synthetic::sparse_graph`]), each with
//! hundreds of vertices.
//!
//! `V` is stored with its columns sorted by (level, index) while this schedule runs, so
//! that the columns of one level form one contiguous block: the block is written (split
//! between the threads), the columns before it (lower levels, already updated) and after
//! it (higher levels, not yet updated) are only read. The rows of `C` keep the order of
//! their entries, so every `g_i` is summed in the same order as in the sequential sweep:
//! the iterates are bit-identical to it, for any number of threads.

use pulp::{Simd, WithSimd};

use super::kernels::{accumulate, unit_field};
use crate::cost::SparseSym;

/// Smallest work (stored entries plus two per column, times `k`) worth a split between
/// two threads: below it the fork and join costs more than it saves.
const MIN_SPLIT_WORK: usize = 1 << 17;

/// The dependency levels of the cyclic sweep of a sparse `C` and the workspace of the
/// level-by-level sweep.
#[derive(Debug)]
pub(crate) struct Levels {
    k: usize,
    /// `vertex[p]`: the vertex whose column is stored at position `p`.
    vertex: Vec<usize>,
    /// `pos[i]`: the position of vertex `i`.
    pos: Vec<usize>,
    /// Level `l` holds positions `level_ptr[l]..level_ptr[l + 1]`.
    level_ptr: Vec<usize>,
    /// The rows of `C` by position: entries `row_ptr[p]..row_ptr[p + 1]`, those of
    /// lower-index neighbours (earlier levels) first, up to `row_mid[p]`.
    row_ptr: Vec<usize>,
    row_mid: Vec<usize>,
    /// Positions of the neighbours and the entries of `C`.
    col: Vec<usize>,
    val: Vec<f64>,
    /// The objective increase of each position in the last sweep.
    gains: Vec<f64>,
    /// One `k`-column of scratch per leaf of the fork-join tree.
    scratch: Vec<f64>,
    /// `V` by position rounded to `f32`, from which the neighbour columns are gathered
    /// ([`crate::params::SparseSweep::LevelsF32Gather`]); empty otherwise.
    shadow: Vec<f32>,
}

/// The read-only data of one level's update.
struct Ctx<'a> {
    k: usize,
    row_ptr: &'a [usize],
    row_mid: &'a [usize],
    col: &'a [usize],
    val: &'a [f64],
    /// Columns at positions `< first` of the level (updated).
    before: &'a [f64],
    /// Columns at positions `>= end` of the level (not yet updated).
    after: &'a [f64],
    end: usize,
    /// The same two parts of the `f32` copy (empty without it).
    before32: &'a [f32],
    after32: &'a [f32],
}

impl Levels {
    /// The levels of the graph of `s` (off-diagonal entries) for rank `k`, with scratch
    /// for fork-join trees of up to `threads` leaves; `gather_f32` keeps an `f32` copy of
    /// `V` for the gathers (filled by [`Levels::arrange_by_position`]).
    pub(crate) fn new(s: &SparseSym, k: usize, threads: usize, gather_f32: bool) -> Self {
        let n = s.n;
        let mut level = vec![0usize; n];
        let mut count = 0;
        for i in 0..n {
            let row = &s.col_idx[s.row_ptr[i]..s.row_ptr[i + 1]];
            let l = row
                .iter()
                .filter(|&&j| j < i)
                .map(|&j| level[j] + 1)
                .max()
                .unwrap_or(0);
            level[i] = l;
            count = count.max(l + 1);
        }
        let mut level_ptr = vec![0usize; count + 1];
        for &l in &level {
            level_ptr[l + 1] += 1;
        }
        for l in 0..count {
            level_ptr[l + 1] += level_ptr[l];
        }
        let mut fill = level_ptr.clone();
        let mut vertex = vec![0usize; n];
        let mut pos = vec![0usize; n];
        for (i, &l) in level.iter().enumerate() {
            vertex[fill[l]] = i;
            pos[i] = fill[l];
            fill[l] += 1;
        }
        let nnz = s.values.len();
        let mut row_ptr = Vec::with_capacity(n + 1);
        let mut row_mid = Vec::with_capacity(n);
        let mut col = Vec::with_capacity(nnz);
        let mut val = Vec::with_capacity(nnz);
        row_ptr.push(0);
        for &i in &vertex {
            let range = s.row_ptr[i]..s.row_ptr[i + 1];
            let entries = || {
                s.col_idx[range.clone()]
                    .iter()
                    .zip(&s.values[range.clone()])
            };
            // Lower-index neighbours first, each part in the row's order (a stable
            // partition; rows built by `Problem` are sorted, so this keeps them as
            // they are and the sums in the same order as the sequential sweep).
            for (&j, &c) in entries().filter(|&(&j, _)| j < i) {
                col.push(pos[j]);
                val.push(c);
            }
            row_mid.push(col.len());
            for (&j, &c) in entries().filter(|&(&j, _)| j > i) {
                col.push(pos[j]);
                val.push(c);
            }
            row_ptr.push(col.len());
        }
        let leaves = threads.max(1).next_power_of_two();
        Self {
            k,
            vertex,
            pos,
            level_ptr,
            row_ptr,
            row_mid,
            col,
            val,
            gains: vec![0.0; n],
            scratch: vec![0.0; leaves * k],
            shadow: if gather_f32 {
                vec![0.0; n * k]
            } else {
                Vec::new()
            },
        }
    }

    /// Number of levels.
    pub(crate) fn count(&self) -> usize {
        self.level_ptr.len() - 1
    }

    /// `v` (natural order, `k x n`) with its columns moved to their positions; fills the
    /// `f32` copy if there is one.
    pub(crate) fn arrange_by_position(&mut self, v: &[f64]) -> Vec<f64> {
        let k = self.k;
        let mut out = vec![0.0; v.len()];
        for (p, col) in out.chunks_exact_mut(k).enumerate() {
            let i = self.vertex[p];
            col.copy_from_slice(&v[i * k..(i + 1) * k]);
        }
        self.refresh_shadow(&out);
        out
    }

    /// Rounds `vp` into the `f32` copy (if there is one).
    fn refresh_shadow(&mut self, vp: &[f64]) {
        if !self.shadow.is_empty() {
            for (x, &y) in self.shadow.iter_mut().zip(vp) {
                *x = y as f32;
            }
        }
    }

    /// `vp` (by position) back in the natural order.
    pub(crate) fn to_natural(&self, vp: &[f64]) -> Vec<f64> {
        let k = self.k;
        let mut out = vec![0.0; vp.len()];
        for (i, col) in out.chunks_exact_mut(k).enumerate() {
            let p = self.pos[i];
            col.copy_from_slice(&vp[p * k..(p + 1) * k]);
        }
        out
    }

    /// The position of vertex `i`.
    #[inline]
    pub(crate) fn pos(&self, i: usize) -> usize {
        self.pos[i]
    }

    /// One cyclic sweep over `vp` (`V` by position), level by level, each level split
    /// between the threads of the current rayon pool. Returns the objective increase,
    /// summed over the vertices in index order (as the sequential sweep sums it).
    pub(crate) fn sweep(&mut self, vp: &mut [f64]) -> f64 {
        let k = self.k;
        let leaves = self.scratch.len() / k.max(1);
        let threads = rayon::current_num_threads().max(1);
        let splits = threads
            .next_power_of_two()
            .trailing_zeros()
            .min(leaves.trailing_zeros());
        // Column length in the `f32` copy: `k`, or 0 without one.
        let k32 = if self.shadow.is_empty() { 0 } else { k };
        for l in 0..self.count() {
            let (first, end) = (self.level_ptr[l], self.level_ptr[l + 1]);
            let (before, rest) = vp.split_at_mut(first * k);
            let (block, after) = rest.split_at_mut((end - first) * k);
            let (before32, rest32) = self.shadow.split_at_mut(first * k32);
            let (block32, after32) = rest32.split_at_mut((end - first) * k32);
            let ctx = Ctx {
                before32,
                after32,
                k,
                row_ptr: &self.row_ptr,
                row_mid: &self.row_mid,
                col: &self.col,
                val: &self.val,
                before,
                after,
                end,
            };
            update(
                &ctx,
                first,
                block,
                block32,
                &mut self.gains[first..end],
                &mut self.scratch,
                splits,
            );
        }
        self.increase()
    }

    /// The objective increase of the last sweep: the gains summed over the vertices in
    /// index order (as the sequential sweep sums them).
    fn increase(&self) -> f64 {
        let mut increase = 0.0;
        for &p in &self.pos {
            increase += self.gains[p];
        }
        increase
    }

    /// The sweep of the first sparse kernel on this layout: one `axpy` per stored entry,
    /// sequential, in position order (the same iterates as [`Levels::sweep`]).
    #[cfg(feature = "probes")]
    pub(crate) fn sweep_plain(&mut self, vp: &mut [f64], g: &mut [f64], dv: &mut [f64]) -> f64 {
        use super::kernels::move_to_field;
        use crate::cost::axpy;
        let k = self.k;
        for p in 0..self.vertex.len() {
            g.fill(0.0);
            for e in self.row_ptr[p]..self.row_ptr[p + 1] {
                let q = self.col[e];
                axpy(g, self.val[e], &vp[q * k..(q + 1) * k]);
            }
            self.gains[p] = move_to_field(g, &mut vp[p * k..(p + 1) * k], dv);
        }
        self.refresh_shadow(vp);
        self.increase()
    }
}

/// Work of positions `a..b`: stored entries plus two passes per column.
#[inline]
fn work(ctx: &Ctx<'_>, a: usize, b: usize) -> usize {
    (ctx.row_ptr[b] - ctx.row_ptr[a] + 2 * (b - a)) * ctx.k
}

/// Updates the columns at positions `first..first + gains.len()` (stored in `block`),
/// splitting the range in two halves of equal work `splits` times (fork-join).
fn update(
    ctx: &Ctx<'_>,
    first: usize,
    block: &mut [f64],
    block32: &mut [f32],
    gains: &mut [f64],
    scratch: &mut [f64],
    splits: u32,
) {
    let k = ctx.k;
    let len = gains.len();
    let end = first + len;
    if splits > 0 && len >= 2 && work(ctx, first, end) >= MIN_SPLIT_WORK {
        // The first `mid` columns carry at least half of the work.
        let half = work(ctx, first, end) / 2;
        let (mut lo, mut hi) = (1, len - 1);
        while lo < hi {
            let m = lo + (hi - lo) / 2;
            if work(ctx, first, first + m) >= half {
                hi = m;
            } else {
                lo = m + 1;
            }
        }
        let mid = lo;
        let (left, right) = block.split_at_mut(mid * k);
        let k32 = if block32.is_empty() { 0 } else { k };
        let (left32, right32) = block32.split_at_mut(mid * k32);
        let (gains_left, gains_right) = gains.split_at_mut(mid);
        let (scratch_left, scratch_right) = scratch.split_at_mut(scratch.len() / 2);
        rayon::join(
            || {
                update(
                    ctx,
                    first,
                    left,
                    left32,
                    gains_left,
                    scratch_left,
                    splits - 1,
                )
            },
            || {
                update(
                    ctx,
                    first + mid,
                    right,
                    right32,
                    gains_right,
                    scratch_right,
                    splits - 1,
                )
            },
        );
        return;
    }
    let g = &mut scratch[..k];
    if block32.is_empty() {
        pulp::Arch::new().dispatch(Leaf {
            ctx,
            first,
            block,
            gains,
            g,
        });
    } else {
        leaf_f32(ctx, first, block, block32, gains, g);
    }
}

/// The columns of one leaf, one after the other.
struct Leaf<'c, 'd> {
    ctx: &'c Ctx<'d>,
    first: usize,
    block: &'c mut [f64],
    gains: &'c mut [f64],
    g: &'c mut [f64],
}

impl WithSimd for Leaf<'_, '_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Leaf {
            ctx,
            first,
            block,
            gains,
            g,
        } = self;
        let k = ctx.k;
        let (before, after, end) = (ctx.before, ctx.after, ctx.end);
        for (t, (vi, gain)) in block.chunks_exact_mut(k).zip(gains.iter_mut()).enumerate() {
            let p = first + t;
            let (start, mid, stop) = (ctx.row_ptr[p], ctx.row_mid[p], ctx.row_ptr[p + 1]);
            g.fill(0.0);
            accumulate(simd, &ctx.col[start..mid], &ctx.val[start..mid], g, |q| {
                &before[q * k..q * k + k]
            });
            accumulate(simd, &ctx.col[mid..stop], &ctx.val[mid..stop], g, |q| {
                &after[(q - end) * k..(q - end) * k + k]
            });
            *gain = unit_field(g, vi);
            vi.copy_from_slice(g);
        }
    }
}

/// The columns of one leaf gathered from the `f32` copy of `V`: the same steps as
/// [`Leaf`], with `g_i = sum_p C_{i,j_p} f64(v32_{j_p})`, each product and sum in `f64`
/// (multiply then add, in the order of the entries, as the `f64` kernel), and the new
/// column written to `V` and, rounded, to the copy. On x86-64 with AVX2 the widening
/// runs four values at a time in vector registers; elsewhere one at a time, with the
/// same roundings.
fn leaf_f32(
    ctx: &Ctx<'_>,
    first: usize,
    block: &mut [f64],
    block32: &mut [f32],
    gains: &mut [f64],
    g: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        simd.vectorize(
            #[inline(always)]
            || {
                leaf_f32_with(
                    ctx,
                    first,
                    block,
                    block32,
                    gains,
                    g,
                    #[inline(always)]
                    |c, a, g, col| accumulate_f32_v3(simd, c, a, g, col),
                )
            },
        );
        return;
    }
    leaf_f32_with(ctx, first, block, block32, gains, g, accumulate_f32_scalar);
}

#[inline(always)]
fn leaf_f32_with<'a>(
    ctx: &Ctx<'a>,
    first: usize,
    block: &mut [f64],
    block32: &mut [f32],
    gains: &mut [f64],
    g: &mut [f64],
    accumulate: impl Fn(&[usize], &[f64], &mut [f64], &dyn Fn(usize) -> &'a [f32]),
) {
    let k = ctx.k;
    let (before, after, end) = (ctx.before32, ctx.after32, ctx.end);
    for (t, ((vi, vi32), gain)) in block
        .chunks_exact_mut(k)
        .zip(block32.chunks_exact_mut(k))
        .zip(gains.iter_mut())
        .enumerate()
    {
        let p = first + t;
        let (start, mid, stop) = (ctx.row_ptr[p], ctx.row_mid[p], ctx.row_ptr[p + 1]);
        g.fill(0.0);
        accumulate(&ctx.col[start..mid], &ctx.val[start..mid], g, &|q| {
            &before[q * k..q * k + k]
        });
        accumulate(&ctx.col[mid..stop], &ctx.val[mid..stop], g, &|q| {
            &after[(q - end) * k..(q - end) * k + k]
        });
        *gain = unit_field(g, vi);
        vi.copy_from_slice(g);
        for (x, &y) in vi32.iter_mut().zip(g.iter()) {
            *x = y as f32;
        }
    }
}

/// `g += sum_p values[p] f64(col(cols[p]))`, one entry and one row at a time.
#[inline(always)]
fn accumulate_f32_scalar<'a>(
    cols: &[usize],
    values: &[f64],
    g: &mut [f64],
    col: &dyn Fn(usize) -> &'a [f32],
) {
    for (&j, &a) in cols.iter().zip(values) {
        for (gr, &x) in g.iter_mut().zip(col(j)) {
            *gr += a * f64::from(x);
        }
    }
}

/// [`accumulate_f32_scalar`] with AVX2: four stored entries per pass over `g`, four rows
/// at a time widened by one instruction; the same roundings.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn accumulate_f32_v3<'a>(
    simd: pulp::x86::V3,
    cols: &[usize],
    values: &[f64],
    g: &mut [f64],
    col: &dyn Fn(usize) -> &'a [f32],
) {
    let k = g.len();
    let (head, tail) = pulp::as_arrays_mut::<4, f64>(g);
    let madd = |acc: pulp::f64x4, a: pulp::f64x4, x: &[f32; 4]| {
        let x = simd.convert_f32x4_to_f64x4(pulp::cast(*x));
        simd.add_f64s(acc, simd.mul_f64s(a, x))
    };
    let mut cols4 = cols.chunks_exact(4);
    let mut values4 = values.chunks_exact(4);
    for (j, a) in (&mut cols4).zip(&mut values4) {
        let x: [(&[[f32; 4]], &[f32]); 4] =
            std::array::from_fn(|e| pulp::as_arrays::<4, f32>(&col(j[e])[..k]));
        let s: [pulp::f64x4; 4] = std::array::from_fn(|e| simd.splat_f64s(a[e]));
        for (r, gr) in head.iter_mut().enumerate() {
            let mut acc: pulp::f64x4 = pulp::cast(*gr);
            acc = madd(acc, s[0], &x[0].0[r]);
            acc = madd(acc, s[1], &x[1].0[r]);
            acc = madd(acc, s[2], &x[2].0[r]);
            acc = madd(acc, s[3], &x[3].0[r]);
            *gr = pulp::cast(acc);
        }
        for (r, gr) in tail.iter_mut().enumerate() {
            *gr = *gr
                + a[0] * f64::from(x[0].1[r])
                + a[1] * f64::from(x[1].1[r])
                + a[2] * f64::from(x[2].1[r])
                + a[3] * f64::from(x[3].1[r]);
        }
    }
    for (&j, &a) in cols4.remainder().iter().zip(values4.remainder()) {
        let (xh, xt) = pulp::as_arrays::<4, f32>(&col(j)[..k]);
        let s = simd.splat_f64s(a);
        for (gr, x) in head.iter_mut().zip(xh) {
            *gr = pulp::cast(madd(pulp::cast(*gr), s, x));
        }
        for (gr, &x) in tail.iter_mut().zip(xt) {
            *gr += a * f64::from(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::Repr;
    use crate::problem::Problem;
    use crate::synthetic::random_edges;

    fn sparse(problem: &Problem) -> &SparseSym {
        match &problem.repr {
            Repr::Sparse(s) => s,
            _ => unreachable!("a max-cut problem is sparse"),
        }
    }

    /// Brute force over the stored entries: every lower-index neighbour sits in an earlier
    /// level, every higher-index one in a later level, and each level is as early as it
    /// can be.
    #[test]
    fn levels_are_a_schedule_of_the_cyclic_sweep() {
        for (n, m, seed) in [(200, 1000, 1), (3000, 15_000, 7), (50, 600, 3)] {
            let problem = Problem::maxcut(n, &random_edges(n, m, seed).unwrap()).unwrap();
            let s = sparse(&problem);
            let levels = Levels::new(s, 8, 2, false);
            let level_of = |i: usize| {
                let p = levels.pos[i];
                (0..levels.count())
                    .find(|&l| levels.level_ptr[l] <= p && p < levels.level_ptr[l + 1])
                    .unwrap()
            };
            for i in 0..n {
                assert_eq!(levels.vertex[levels.pos[i]], i);
                let row = &s.col_idx[s.row_ptr[i]..s.row_ptr[i + 1]];
                let lower: Vec<usize> = row
                    .iter()
                    .filter(|&&j| j < i)
                    .map(|&j| level_of(j))
                    .collect();
                for &j in row {
                    if j < i {
                        assert!(level_of(j) < level_of(i));
                    } else {
                        assert!(level_of(j) > level_of(i));
                    }
                }
                let expected = lower.iter().map(|&l| l + 1).max().unwrap_or(0);
                assert_eq!(level_of(i), expected);
                // The rows by position: the same entries, lower ones first.
                let p = levels.pos[i];
                let mapped: Vec<(usize, f64)> = (levels.row_ptr[p]..levels.row_ptr[p + 1])
                    .map(|e| (levels.vertex[levels.col[e]], levels.val[e]))
                    .collect();
                let original: Vec<(usize, f64)> = (s.row_ptr[i]..s.row_ptr[i + 1])
                    .map(|e| (s.col_idx[e], s.values[e]))
                    .collect();
                assert_eq!(mapped, original);
                assert_eq!(levels.row_mid[p] - levels.row_ptr[p], lower.len());
            }
        }
    }

    /// The graph of `tests/maxcut_sdp_tests/level_sweep.rs` that checks the threads has a level large
    /// enough to be split twice (four threads) at the rank used there.
    #[test]
    fn the_threaded_test_graph_splits() {
        let problem = Problem::maxcut(3000, &random_edges(3000, 15_000, 7).unwrap()).unwrap();
        let levels = Levels::new(sparse(&problem), 160, 2, false);
        let largest = (0..levels.count())
            .map(|l| {
                let (a, b) = (levels.level_ptr[l], levels.level_ptr[l + 1]);
                (levels.row_ptr[b] - levels.row_ptr[a] + 2 * (b - a)) * 160
            })
            .max()
            .unwrap();
        assert!(
            largest >= 4 * MIN_SPLIT_WORK,
            "largest level work {largest}"
        );
    }

    /// The AVX2 `f32` gather and the one-at-a-time fallback give the same bits.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn f32_gather_kernels_agree_bit_for_bit() {
        let Some(simd) = pulp::x86::V3::try_new() else {
            return;
        };
        for k in [1, 3, 4, 7, 8, 45, 142] {
            let n = 23;
            let v: Vec<f32> = (0..n * k)
                .map(|t| ((t * 37 % 101) as f32 - 50.0) / 37.0)
                .collect();
            for len in 0..11 {
                let cols: Vec<usize> = (0..len).map(|e| (e * 7 + 3) % n).collect();
                let values: Vec<f64> = (0..len).map(|e| 0.3 - e as f64 / 3.0).collect();
                let col = |j: usize| &v[j * k..(j + 1) * k];
                let start: Vec<f64> = (0..k).map(|r| r as f64 / 9.0 - 1.0).collect();
                let (mut a, mut b) = (start.clone(), start);
                accumulate_f32_scalar(&cols, &values, &mut a, &col);
                simd.vectorize(|| accumulate_f32_v3(simd, &cols, &values, &mut b, &col));
                let bits = |x: &[f64]| x.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&a), bits(&b), "k = {k}, {len} entries");
            }
        }
    }
}
