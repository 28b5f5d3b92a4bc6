//! The cyclic sweep on a sparse `C`, run level by level on the current rayon pool.
//!
//! In the cyclic sweep (Wang, Chang, Kolter 2017, Alg. 1) the update of `v_i` reads the
//! new `v_j` of its neighbours `j < i` and the old `v_j` of its neighbours `j > i`. Any
//! order of the updates in which every vertex comes after its lower-index neighbours and
//! before its higher-index neighbours therefore computes exactly the same numbers. The
//! *level* of `i` is `0` if it has no neighbour `j < i` and `1 + max level(j)` over those
//! neighbours otherwise; two vertices of one level are never neighbours, so one level can
//! be updated all at once, level after level. On a random sparse graph there are few
//! levels (29 for `n = 10^4` with `5 x 10^4` edges), each with hundreds of vertices.
//!
//! `V` is stored with its columns sorted by (level, index) while this schedule runs, so
//! that the columns of one level form one contiguous block: the block is written (split
//! between the threads), the columns before it (lower levels, already updated) and after
//! it (higher levels, not yet updated) are only read. The rows of `C` keep the order of
//! their entries, so every `g_i` is summed in the same order as in the sequential sweep:
//! the iterates are bit-identical to it, for any number of threads.

use crate::problem::SparseSym;

/// Smallest work (stored entries plus two per column, times `k`) worth a split between
/// two threads: below it the fork and join costs more than it saves.
const MIN_SPLIT_WORK: usize = 1 << 15;

/// The dependency levels of the cyclic sweep of a sparse `C` and the workspace of the
/// level-by-level sweep.
#[derive(Debug)]
pub struct Levels {
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
    /// Two `k`-columns of scratch per leaf of the fork-join tree.
    scratch: Vec<f64>,
    /// The kernel of the leaves (experimental variants, see [`Variant`]).
    variant: Variant,
    /// `V` by position rounded to `f32` ([`Variant::GatherF32`] only; else empty).
    shadow: Vec<f32>,
}

/// Kernels of the level sweep's leaves, compared by the probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Variant {
    /// Four stored entries per pass over `g` (bit-identical to the sequential sweep).
    Four,
    /// Eight stored entries per pass (bit-identical).
    Eight,
    /// Two vertices of a level at once, four entries of each per pass (bit-identical).
    Pair,
    /// Neighbour columns read from an `f32` copy of `V`, summed in `f64` (other iterates).
    GatherF32,
    /// Fused multiply-add through `pulp` (other roundings).
    Fma,
    /// `pulp`'s vector types, multiply then add (bit-identical).
    Simd,
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
    /// The same two parts of the `f32` copy (empty unless [`Variant::GatherF32`]).
    before32: &'a [f32],
    after32: &'a [f32],
    variant: Variant,
}

impl Levels {
    /// The levels of the graph of `s` (off-diagonal entries) for rank `k`, with scratch
    /// for fork-join trees of up to `threads` leaves.
    pub(crate) fn new(s: &SparseSym, k: usize, threads: usize) -> Self {
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
            scratch: vec![0.0; 2 * leaves * k],
            variant: Variant::Four,
            shadow: Vec::new(),
        }
    }

    /// Selects the kernel of the leaves; `vp` is `V` by position (for the `f32` copy).
    pub(crate) fn set_variant(&mut self, variant: Variant, vp: &[f64]) {
        self.variant = variant;
        self.shadow = if variant == Variant::GatherF32 {
            vp.iter().map(|&x| x as f32).collect()
        } else {
            Vec::new()
        };
    }

    /// Number of levels.
    pub(crate) fn count(&self) -> usize {
        self.level_ptr.len() - 1
    }

    /// `v` (natural order, `k x n`) with its columns moved to their positions.
    pub(crate) fn to_positions(&self, v: &[f64]) -> Vec<f64> {
        let k = self.k;
        let mut out = vec![0.0; v.len()];
        for (p, col) in out.chunks_exact_mut(k).enumerate() {
            let i = self.vertex[p];
            col.copy_from_slice(&v[i * k..(i + 1) * k]);
        }
        out
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
        let leaves = self.scratch.len() / (2 * k).max(1);
        let threads = rayon::current_num_threads().max(1);
        let splits = threads
            .next_power_of_two()
            .trailing_zeros()
            .min(leaves.trailing_zeros());
        for l in 0..self.count() {
            let (first, end) = (self.level_ptr[l], self.level_ptr[l + 1]);
            let (before, rest) = vp.split_at_mut(first * k);
            let (block, after) = rest.split_at_mut((end - first) * k);
            let shadow_len = if self.shadow.is_empty() { 0 } else { k };
            let (before32, rest32) = self.shadow.split_at_mut(first * shadow_len);
            let (block32, after32) = rest32.split_at_mut((end - first) * shadow_len);
            let ctx = Ctx {
                before32,
                after32,
                variant: self.variant,
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
        let mut increase = 0.0;
        for &p in &self.pos {
            increase += self.gains[p];
        }
        increase
    }

    /// The sweep of the first sparse kernel on this layout: one `axpy` per stored entry,
    /// sequential, in position order (the same iterates as [`Levels::sweep`]).
    pub(crate) fn sweep_plain(&mut self, vp: &mut [f64], g: &mut [f64], dv: &mut [f64]) -> f64 {
        let k = self.k;
        for p in 0..self.vertex.len() {
            g.fill(0.0);
            for e in self.row_ptr[p]..self.row_ptr[p + 1] {
                let q = self.col[e];
                super::axpy(g, self.val[e], &vp[q * k..(q + 1) * k]);
            }
            self.gains[p] = super::move_to_field(g, &mut vp[p * k..(p + 1) * k], dv);
        }
        let mut increase = 0.0;
        for &p in &self.pos {
            increase += self.gains[p];
        }
        increase
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
    match ctx.variant {
        Variant::Four | Variant::Eight => leaf(ctx, first, block, gains, &mut scratch[..k]),
        Variant::Pair => leaf_pairs(ctx, first, block, gains, &mut scratch[..2 * k]),
        Variant::GatherF32 => leaf32(ctx, first, block, block32, gains, &mut scratch[..k]),
        Variant::Fma => leaf_fma(ctx, first, block, gains, &mut scratch[..k], true),
        Variant::Simd => leaf_fma(ctx, first, block, gains, &mut scratch[..k], false),
    }
}

/// Neighbour positions and entries of `C`.
type Part<'a> = (&'a [usize], &'a [f64]);

/// The columns of `p` as (lower entries, upper entries).
#[inline(always)]
fn row<'a>(ctx: &Ctx<'a>, p: usize) -> (Part<'a>, Part<'a>) {
    let (start, mid, stop) = (ctx.row_ptr[p], ctx.row_mid[p], ctx.row_ptr[p + 1]);
    (
        (&ctx.col[start..mid], &ctx.val[start..mid]),
        (&ctx.col[mid..stop], &ctx.val[mid..stop]),
    )
}

fn leaf(ctx: &Ctx<'_>, first: usize, block: &mut [f64], gains: &mut [f64], g: &mut [f64]) {
    let k = ctx.k;
    let eight = ctx.variant == Variant::Eight;
    pulp::Arch::new().dispatch(
        #[inline(always)]
        || {
            for (t, (vi, gain)) in block.chunks_exact_mut(k).zip(gains.iter_mut()).enumerate() {
                let (lower, upper) = row(ctx, first + t);
                g.fill(0.0);
                let (before, after, end) = (ctx.before, ctx.after, ctx.end);
                let low = |q: usize| &before[q * k..q * k + k];
                let high = |q: usize| &after[(q - end) * k..(q - end) * k + k];
                if eight {
                    accumulate8(lower.0, lower.1, g, low);
                    accumulate8(upper.0, upper.1, g, high);
                } else {
                    super::accumulate(lower.0, lower.1, g, low);
                    super::accumulate(upper.0, upper.1, g, high);
                }
                *gain = super::unit_field(g, vi);
                vi.copy_from_slice(g);
            }
        },
    )
}

/// [`super::accumulate`] eight entries at a time (the same roundings).
#[inline(always)]
fn accumulate8<'v>(
    cols: &[usize],
    values: &[f64],
    g: &mut [f64],
    col: impl Fn(usize) -> &'v [f64],
) {
    let k = g.len();
    let mut cols8 = cols.chunks_exact(8);
    let mut values8 = values.chunks_exact(8);
    for (j, a) in (&mut cols8).zip(&mut values8) {
        let x: [&[f64]; 8] = std::array::from_fn(|e| &col(j[e])[..k]);
        for (r, gr) in g.iter_mut().enumerate() {
            *gr = *gr
                + a[0] * x[0][r]
                + a[1] * x[1][r]
                + a[2] * x[2][r]
                + a[3] * x[3][r]
                + a[4] * x[4][r]
                + a[5] * x[5][r]
                + a[6] * x[6][r]
                + a[7] * x[7][r];
        }
    }
    super::accumulate(cols8.remainder(), values8.remainder(), g, col);
}

/// Two vertices at a time: their gathers interleaved, four entries of each per pass.
fn leaf_pairs(ctx: &Ctx<'_>, first: usize, block: &mut [f64], gains: &mut [f64], g2: &mut [f64]) {
    let k = ctx.k;
    let (ga, gb) = g2.split_at_mut(k);
    pulp::Arch::new().dispatch(
        #[inline(always)]
        || {
            let (before, after, end) = (ctx.before, ctx.after, ctx.end);
            let col = |q: usize| {
                if q < end {
                    &before[q * k..q * k + k]
                } else {
                    &after[(q - end) * k..(q - end) * k + k]
                }
            };
            let t = gains.len() / 2;
            let mut pairs = block.chunks_exact_mut(2 * k);
            let mut gain_pairs = gains.chunks_exact_mut(2);
            for (t, (vs, gain)) in (&mut pairs).zip(&mut gain_pairs).enumerate() {
                let (pa, pb) = (first + 2 * t, first + 2 * t + 1);
                let (sa, sb) = (
                    ctx.row_ptr[pa]..ctx.row_ptr[pa + 1],
                    ctx.row_ptr[pb]..ctx.row_ptr[pb + 1],
                );
                let (ca, cb) = (&ctx.col[sa.clone()], &ctx.col[sb.clone()]);
                let (va, vb) = (&ctx.val[sa], &ctx.val[sb]);
                ga.fill(0.0);
                gb.fill(0.0);
                let both = (ca.len() / 4).min(cb.len() / 4);
                for c in 0..both {
                    let xa: [&[f64]; 4] = std::array::from_fn(|e| col(ca[4 * c + e]));
                    let xb: [&[f64]; 4] = std::array::from_fn(|e| col(cb[4 * c + e]));
                    let aa = &va[4 * c..4 * c + 4];
                    let ab = &vb[4 * c..4 * c + 4];
                    for r in 0..k {
                        ga[r] = ga[r]
                            + aa[0] * xa[0][r]
                            + aa[1] * xa[1][r]
                            + aa[2] * xa[2][r]
                            + aa[3] * xa[3][r];
                        gb[r] = gb[r]
                            + ab[0] * xb[0][r]
                            + ab[1] * xb[1][r]
                            + ab[2] * xb[2][r]
                            + ab[3] * xb[3][r];
                    }
                }
                super::accumulate(&ca[4 * both..], &va[4 * both..], ga, col);
                super::accumulate(&cb[4 * both..], &vb[4 * both..], gb, col);
                let (vi_a, vi_b) = vs.split_at_mut(k);
                gain[0] = super::unit_field(ga, vi_a);
                vi_a.copy_from_slice(ga);
                gain[1] = super::unit_field(gb, vi_b);
                vi_b.copy_from_slice(gb);
            }
            if let (Some(vi), Some(gain)) = (
                pairs.into_remainder().get_mut(..k),
                gain_pairs.into_remainder().first_mut(),
            ) {
                let p = first + 2 * t;
                let range = ctx.row_ptr[p]..ctx.row_ptr[p + 1];
                ga.fill(0.0);
                super::accumulate(&ctx.col[range.clone()], &ctx.val[range], ga, col);
                *gain = super::unit_field(ga, vi);
                vi.copy_from_slice(ga);
            }
        },
    )
}

/// Neighbour columns read from the `f32` copy, summed in `f64`.
fn leaf32(
    ctx: &Ctx<'_>,
    first: usize,
    block: &mut [f64],
    block32: &mut [f32],
    gains: &mut [f64],
    g: &mut [f64],
) {
    let k = ctx.k;
    pulp::Arch::new().dispatch(
        #[inline(always)]
        || {
            for (t, ((vi, vi32), gain)) in block
                .chunks_exact_mut(k)
                .zip(block32.chunks_exact_mut(k))
                .zip(gains.iter_mut())
                .enumerate()
            {
                let (lower, upper) = row(ctx, first + t);
                g.fill(0.0);
                let (before, after, end) = (ctx.before32, ctx.after32, ctx.end);
                accumulate32(lower.0, lower.1, g, |q| &before[q * k..q * k + k]);
                accumulate32(upper.0, upper.1, g, |q| {
                    &after[(q - end) * k..(q - end) * k + k]
                });
                *gain = super::unit_field(g, vi);
                vi.copy_from_slice(g);
                for (x, &y) in vi32.iter_mut().zip(g.iter()) {
                    *x = y as f32;
                }
            }
        },
    )
}

#[inline(always)]
fn accumulate32<'v>(
    cols: &[usize],
    values: &[f64],
    g: &mut [f64],
    col: impl Fn(usize) -> &'v [f32],
) {
    let k = g.len();
    let mut cols4 = cols.chunks_exact(4);
    let mut values4 = values.chunks_exact(4);
    for (j, a) in (&mut cols4).zip(&mut values4) {
        let (x0, x1, x2, x3) = (col(j[0]), col(j[1]), col(j[2]), col(j[3]));
        let (x0, x1, x2, x3) = (&x0[..k], &x1[..k], &x2[..k], &x3[..k]);
        let (a0, a1, a2, a3) = (a[0], a[1], a[2], a[3]);
        for ((((gr, &y0), &y1), &y2), &y3) in g.iter_mut().zip(x0).zip(x1).zip(x2).zip(x3) {
            *gr = *gr
                + a0 * f64::from(y0)
                + a1 * f64::from(y1)
                + a2 * f64::from(y2)
                + a3 * f64::from(y3);
        }
    }
    for (&j, &a) in cols4.remainder().iter().zip(values4.remainder()) {
        for (gr, &y) in g.iter_mut().zip(&col(j)[..k]) {
            *gr += a * f64::from(y);
        }
    }
}

/// Fused multiply-add through `pulp`'s vector types.
fn leaf_fma(
    ctx: &Ctx<'_>,
    first: usize,
    block: &mut [f64],
    gains: &mut [f64],
    g: &mut [f64],
    fma: bool,
) {
    struct Op<'c, 'd> {
        ctx: &'c Ctx<'d>,
        first: usize,
        block: &'c mut [f64],
        gains: &'c mut [f64],
        g: &'c mut [f64],
        fma: bool,
    }
    impl pulp::WithSimd for Op<'_, '_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) {
            let Op {
                ctx,
                first,
                block,
                gains,
                g,
                fma,
            } = self;
            if fma {
                body(
                    simd,
                    ctx,
                    first,
                    block,
                    gains,
                    g,
                    |s, x, acc| simd.mul_add_f64s(s, x, acc),
                    f64::mul_add,
                );
            } else {
                body(
                    simd,
                    ctx,
                    first,
                    block,
                    gains,
                    g,
                    |s, x, acc| simd.add_f64s(acc, simd.mul_f64s(s, x)),
                    |a, x, acc| acc + a * x,
                );
            }
        }
    }
    #[inline(always)]
    fn body<S: pulp::Simd>(
        simd: S,
        ctx: &Ctx<'_>,
        first: usize,
        block: &mut [f64],
        gains: &mut [f64],
        g: &mut [f64],
        madd: impl Fn(S::f64s, S::f64s, S::f64s) -> S::f64s,
        madd1: impl Fn(f64, f64, f64) -> f64,
    ) {
        {
            let k = ctx.k;
            let (before, after, end) = (ctx.before, ctx.after, ctx.end);
            let col = |q: usize| {
                if q < end {
                    &before[q * k..q * k + k]
                } else {
                    &after[(q - end) * k..(q - end) * k + k]
                }
            };
            for (t, (vi, gain)) in block.chunks_exact_mut(k).zip(gains.iter_mut()).enumerate() {
                let p = first + t;
                let range = ctx.row_ptr[p]..ctx.row_ptr[p + 1];
                let (cols, values) = (&ctx.col[range.clone()], &ctx.val[range]);
                g.fill(0.0);
                {
                    let (gh, gt) = S::as_mut_simd_f64s(g);
                    let mut cols4 = cols.chunks_exact(4);
                    let mut values4 = values.chunks_exact(4);
                    for (j, a) in (&mut cols4).zip(&mut values4) {
                        let x: [(&[S::f64s], &[f64]); 4] =
                            std::array::from_fn(|e| S::as_simd_f64s(col(j[e])));
                        let s: [S::f64s; 4] = std::array::from_fn(|e| simd.splat_f64s(a[e]));
                        for (r, gr) in gh.iter_mut().enumerate() {
                            let mut acc = *gr;
                            acc = madd(s[0], x[0].0[r], acc);
                            acc = madd(s[1], x[1].0[r], acc);
                            acc = madd(s[2], x[2].0[r], acc);
                            acc = madd(s[3], x[3].0[r], acc);
                            *gr = acc;
                        }
                        for (r, gr) in gt.iter_mut().enumerate() {
                            for e in 0..4 {
                                *gr = madd1(a[e], x[e].1[r], *gr);
                            }
                        }
                    }
                    for (&j, &a) in cols4.remainder().iter().zip(values4.remainder()) {
                        let (xh, xt) = S::as_simd_f64s(col(j));
                        let s = simd.splat_f64s(a);
                        for (gr, &x) in gh.iter_mut().zip(xh) {
                            *gr = madd(s, x, *gr);
                        }
                        for (gr, &x) in gt.iter_mut().zip(xt) {
                            *gr = madd1(a, x, *gr);
                        }
                    }
                }
                *gain = super::unit_field(g, vi);
                vi.copy_from_slice(g);
            }
        }
    }
    pulp::Arch::new().dispatch(Op {
        ctx,
        first,
        block,
        gains,
        g,
        fma,
    });
}
