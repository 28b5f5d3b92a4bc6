//! In-place kernels over a tensor in its memory order: the MTTKRP of the CP-type
//! baselines, the Gram matrices of the unfoldings and the mode products.
//!
//! The MTTKRP `M_n = X_(n) (F_b (.) F_a)` of CP-ALS (Kolda & Bader 2009, Sec. 3.4) is
//! computed without the Khatri–Rao product of the full tensor and without unfolding a
//! copy of it: the tensor is read in its memory order (mode 0 fastest), a chunk of
//! mode-2 slabs at a time.
//!
//! - Mode 0: `M_0 = sum_chunks X_chunk (C_chunk (.) B)`, each Khatri–Rao row
//!   `B[j, :] .* C[k, :]` formed in registers when its column of the chunk is read.
//! - Modes 1 and 2 go through `P = X_(0)^T A` (`d1 d2 x R`, computed chunk by chunk),
//!   then `M_1[:, r] = P_r C[:, r]` and `M_2[:, r] = P_r^T B[:, r]`, with `P_r` column `r`
//!   of `P` seen as a `d1 x d2` matrix. `P` depends on `A` only, so one `P` serves both
//!   modes when `A` does not change between them (the "dimension tree" of Phan,
//!   Tichavský & Cichocki 2013): a CP-ALS sweep costs two passes over the tensor, not
//!   three.
//!
//! The three products are `pulp` kernels (runtime SIMD dispatch: AVX2 with FMA on x86-64
//! when present), register-blocked for the skinny right-hand side (`R` padded to a
//! multiple of the SIMD width and done in blocks of four vectors), reading several
//! columns of a chunk at once as separate long sequential streams (see
//! [`stream_group`]).
//!
//! Parallelism: rayon over chunks whose boundaries depend on the shape only, with every
//! reduction in a fixed order and every entry accumulated by fused multiply-adds in a
//! fixed order, so the results are bit-identical for any thread count and any SIMD width.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use rayon::prelude::*;

use crate::tensor::mode_product_into;

/// Target number of tensor entries per parallel chunk.
const CHUNK_ENTRIES: usize = 1 << 16;
/// Number of partial sums of a reduction (fixed, so the summation order does not depend
/// on the thread count; bounds the memory of the partial sums).
pub(crate) const REDUCTION_GROUPS: usize = 16;

/// The mode-2 slabs of a tensor grouped into chunks of about [`CHUNK_ENTRIES`] entries.
#[derive(Debug, Clone, Copy)]
struct Chunks {
    shape: [usize; 3],
    slabs: usize,
}

impl Chunks {
    fn new(shape: [usize; 3]) -> Self {
        let slab = (shape[0] * shape[1]).max(1);
        Self {
            shape,
            slabs: (CHUNK_ENTRIES / slab).clamp(1, shape[2].max(1)),
        }
    }
    fn count(self) -> usize {
        self.shape[2].div_ceil(self.slabs)
    }
    /// First slab and number of slabs of chunk `c`.
    fn range(self, c: usize) -> (usize, usize) {
        let k0 = c * self.slabs;
        (k0, self.slabs.min(self.shape[2] - k0))
    }
    /// The entries of chunk `c` of `data` (its slabs, in memory order).
    fn slice(self, data: &[f64], c: usize) -> &[f64] {
        let [d0, d1, _] = self.shape;
        let (k0, n) = self.range(c);
        &data[k0 * d0 * d1..(k0 + n) * d0 * d1]
    }
    /// Chunk `c` of `data` as the `d0 x d1 n` column-major matrix of its slabs.
    fn view(self, data: &[f64], c: usize) -> MatRef<'_, f64> {
        let [d0, d1, _] = self.shape;
        let n = self.range(c).1;
        MatRef::from_column_major_slice(self.slice(data, c), d0, d1 * n)
    }
}

/// `sum_c add(c, acc)` over `n` chunks into a `rows x cols` matrix: the chunks are split
/// into [`REDUCTION_GROUPS`] contiguous groups summed in parallel, each in chunk order,
/// and the groups are added in order.
fn reduce<F>(n: usize, rows: usize, cols: usize, add: F, mut out: MatMut<'_, f64>)
where
    F: Fn(usize, MatMut<'_, f64>) + Sync,
{
    let groups = REDUCTION_GROUPS.min(n.max(1));
    let partials: Vec<Mat<f64>> = (0..groups)
        .into_par_iter()
        .map(|g| {
            let mut acc = Mat::zeros(rows, cols);
            for c in g * n / groups..(g + 1) * n / groups {
                add(c, acc.as_mut());
            }
            acc
        })
        .collect();
    out.fill(0.0);
    for p in &partials {
        out += p;
    }
}

/// Row length of the packed factors and of `P`: `R` rounded up to a multiple of the
/// number of `f64` lanes of the SIMD type the kernels run with (4 with AVX2: 16 for
/// `R = 15`, 12 for `R = 10`).
fn padded(r: usize) -> usize {
    let lanes = run_simd(Lanes);
    r.div_ceil(lanes) * lanes
}

/// The number of `f64` lanes of the dispatched SIMD type.
struct Lanes;

impl pulp::WithSimd for Lanes {
    type Output = usize;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> usize {
        S::F64_LANES
    }
}

/// Most SIMD vectors of a padded row a kernel keeps in registers at once (16 lanes with
/// AVX2); wider rows are done in blocks of this many vectors.
const BLOCK_VECTORS: usize = 4;

/// `f` (`d x R`) as a row-major `d x rp` array, zero padded on the right.
fn pack_rows(f: MatRef<'_, f64>, rp: usize) -> Vec<f64> {
    let mut out = vec![0.0; f.nrows() * rp];
    for (i, row) in out.chunks_exact_mut(rp).enumerate() {
        for (r, v) in row.iter_mut().take(f.ncols()).enumerate() {
            *v = f[(i, r)];
        }
    }
    out
}

/// `out = packed[:, :R]` for a row-major `d x rp` array.
fn unpack_rows(packed: &[f64], rp: usize, mut out: MatMut<'_, f64>) {
    for (i, row) in packed.chunks_exact(rp).enumerate() {
        for (r, &v) in row.iter().take(out.ncols()).enumerate() {
            out[(i, r)] = v;
        }
    }
}

/// A kernel over the padded rows, done in blocks of at most [`BLOCK_VECTORS`] SIMD
/// vectors (`off` the first `f64` of the block, `NV` its vectors), so that the
/// accumulators of a block stay in registers.
trait RowBlocks {
    fn rp(&self) -> usize;
    fn block<S: pulp::Simd, const NV: usize>(&mut self, simd: S, off: usize);
}

/// Runs a [`RowBlocks`] kernel through `pulp::Arch::dispatch`: the loops are compiled for
/// the widest vector instructions the CPU has (AVX2 with FMA on x86-64 when present,
/// detected at run time). Besides the wider vectors, this keeps them at full speed on
/// threads with a dirty upper AVX register state (legacy-SSE code then waits on the stale
/// upper halves; VEX-encoded code does not).
///
/// Every kernel uses fused multiply-adds (`mul_add_f64s`, exact on every instruction set)
/// in a fixed order per output entry, so the results do not depend on the SIMD width
/// either.
struct Dispatch<K>(K);

impl<K: RowBlocks> pulp::WithSimd for Dispatch<K> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) {
        let mut k = self.0;
        let lanes = S::F64_LANES;
        let nv = k.rp() / lanes;
        let mut v0 = 0;
        while v0 < nv {
            let off = v0 * lanes;
            match (nv - v0).min(BLOCK_VECTORS) {
                1 => k.block::<S, 1>(simd, off),
                2 => k.block::<S, 2>(simd, off),
                3 => k.block::<S, 3>(simd, off),
                _ => k.block::<S, 4>(simd, off),
            }
            v0 += BLOCK_VECTORS;
        }
    }
}

fn dispatch<K: RowBlocks>(kernel: K) {
    run_simd(Dispatch(kernel));
}

/// Runs `op` with the SIMD type of the CPU (`pulp::Arch::dispatch`); in tests, with the
/// one a test chose for the thread.
fn run_simd<Op: pulp::WithSimd>(op: Op) -> Op::Output {
    #[cfg(test)]
    {
        use pulp::Simd;
        match tests::SIMD_OVERRIDE.get() {
            1 => return pulp::Scalar::new().vectorize(op),
            2 => return pulp::Scalar128b.vectorize(op),
            3 => return pulp::Scalar256b.vectorize(op),
            4 => return pulp::Scalar512b.vectorize(op),
            _ => {}
        }
    }
    pulp::Arch::new().dispatch(op)
}

/// `NV` SIMD vectors of `row[off..]`.
#[inline(always)]
fn vectors<S: pulp::Simd, const NV: usize>(row: &[f64], off: usize) -> &[S::f64s] {
    &S::as_simd_f64s(&row[off..off + NV * S::F64_LANES]).0[..NV]
}

/// `NV` mutable SIMD vectors of `row[off..]`.
#[inline(always)]
fn vectors_mut<S: pulp::Simd, const NV: usize>(row: &mut [f64], off: usize) -> &mut [S::f64s] {
    &mut S::as_mut_simd_f64s(&mut row[off..off + NV * S::F64_LANES]).0[..NV]
}

/// Entry `i` of each of the `K` columns `xs`, broadcast to a SIMD vector.
#[inline(always)]
fn splat_entries<S: pulp::Simd, const K: usize>(
    simd: S,
    xs: &[&[f64]; K],
    i: usize,
) -> [S::f64s; K] {
    std::array::from_fn(|t| simd.splat_f64s(xs[t][i]))
}

/// Columns read at once by the mode-0 kernel (see [`Mode0Chunk`]).
const MODE0_STREAMS: usize = 4;
/// Columns read at once by the projection kernel (see [`ProjectChunk`]).
const PROJECT_STREAMS: usize = 3;

/// How many of the columns `c, c + q, c + 2 q, ...` (`q = ceil(ncols / k)`, `c < q`) of
/// a chunk exist: a kernel reads these `k` columns together (`k` only at the end of a
/// ragged chunk), so each of the `k` column ranges is read in memory order and the
/// kernel reads `k` long sequential streams. Reading two neighbouring columns together,
/// the obvious blocking, makes two short streams per column pair instead; measured at
/// 150^3, the hardware prefetcher then delivered about a third of the bandwidth of one
/// sequential stream, and the kernels ran about 2 times slower
/// (`docs/measurements/boolean-tensor-kernels.md`).
#[inline(always)]
fn stream_group(ncols: usize, k: usize, c: usize) -> usize {
    let q = ncols.div_ceil(k);
    (0..k).take_while(|t| c + t * q < ncols).count()
}

/// A chunk kernel that reads its columns as `STREAMS` long streams: columns
/// `c, c + q, c + 2 q, ...` together (see [`stream_group`]), run by [`Streamed`].
trait StreamedColumns<const STREAMS: usize> {
    /// The `K` columns `xs` (`first, first + q, ...`) of the chunk, on the block of the
    /// padded rows (`rp` long) at `off`.
    fn columns<S: pulp::Simd, const NV: usize, const K: usize>(
        &mut self,
        simd: S,
        off: usize,
        rp: usize,
        xs: [&[f64]; K],
        first: usize,
        q: usize,
    );
}

/// A [`StreamedColumns`] kernel over one chunk `x` (`d0 x ncols`, column-major) as a
/// [`RowBlocks`] kernel: each block reads every column of the chunk once, in groups of
/// `M` (the kernel's `STREAMS`) where [`stream_group`] forms them, else one at a time.
struct Streamed<'a, const M: usize, T> {
    x: &'a [f64],
    d0: usize,
    rp: usize,
    kernel: T,
}

impl<'a, const M: usize, T: StreamedColumns<M>> Streamed<'a, M, T> {
    /// The `K` columns `first, first + q, ...` of the chunk.
    #[inline(always)]
    fn columns<const K: usize>(&self, first: usize, q: usize) -> [&'a [f64]; K] {
        let (x, d0) = (self.x, self.d0);
        std::array::from_fn(|t| &x[(first + t * q) * d0..][..d0])
    }
}

impl<const M: usize, T: StreamedColumns<M>> RowBlocks for Streamed<'_, M, T> {
    fn rp(&self) -> usize {
        self.rp
    }

    #[inline(always)]
    fn block<S: pulp::Simd, const NV: usize>(&mut self, simd: S, off: usize) {
        let ncols = self.x.len() / self.d0;
        let q = ncols.div_ceil(M);
        for c in 0..q {
            let n = stream_group(ncols, M, c);
            if n == M {
                let xs = self.columns::<M>(c, q);
                self.kernel
                    .columns::<S, NV, M>(simd, off, self.rp, xs, c, q);
            } else {
                for t in 0..n {
                    let xs = self.columns::<1>(c + t * q, q);
                    self.kernel
                        .columns::<S, NV, 1>(simd, off, self.rp, xs, c + t * q, q);
                }
            }
        }
    }
}

/// Mode-0 MTTKRP of one chunk: `acc[i, :] += sum_col x[i, col] w_col` (`acc` row-major
/// `d0 x rp`), with `w_col = B[j, :] .* C[k, :]` for column `col = j + d1 (k - k0)`,
/// formed in registers (no Khatri–Rao chunk in memory). [`MODE0_STREAMS`] columns per
/// sweep over `acc` (see [`stream_group`]), each entry updated by one fused
/// multiply-add per column in a fixed column order.
struct Mode0Chunk<'a> {
    d1: usize,
    k0: usize,
    b: &'a [f64],
    c: &'a [f64],
    acc: &'a mut [f64],
}

impl Mode0Chunk<'_> {
    /// `w_col = B[j, :] .* C[k, :]` (the `NV` vectors at `off`) for column
    /// `col = j + d1 (k - k0)` of the chunk. (A function, not a closure: closures do not
    /// inherit the target features of the dispatched caller, so the SIMD intrinsics in
    /// them would not inline.)
    #[inline(always)]
    fn weights<S: pulp::Simd, const NV: usize>(
        &self,
        simd: S,
        col: usize,
        off: usize,
        rp: usize,
    ) -> [S::f64s; NV] {
        let (j, k) = (col % self.d1, self.k0 + col / self.d1);
        let b = vectors::<S, NV>(&self.b[j * rp..], off);
        let c = vectors::<S, NV>(&self.c[k * rp..], off);
        let mut w = [simd.splat_f64s(0.0); NV];
        for ((w, &b), &c) in w.iter_mut().zip(b).zip(c) {
            *w = simd.mul_f64s(b, c);
        }
        w
    }
}

impl StreamedColumns<MODE0_STREAMS> for Mode0Chunk<'_> {
    /// Adds the `K` columns into the block of `acc`.
    #[inline(always)]
    fn columns<S: pulp::Simd, const NV: usize, const K: usize>(
        &mut self,
        simd: S,
        off: usize,
        rp: usize,
        xs: [&[f64]; K],
        first: usize,
        q: usize,
    ) {
        let mut w = [[simd.splat_f64s(0.0); NV]; K];
        for t in 0..K {
            w[t] = self.weights::<S, NV>(simd, first + t * q, off, rp);
        }
        for (i, row) in self.acc.chunks_exact_mut(rp).enumerate() {
            let u = splat_entries(simd, &xs, i);
            for (v, a) in vectors_mut::<S, NV>(row, off).iter_mut().enumerate() {
                let mut s = *a;
                for t in 0..K {
                    s = simd.mul_add_f64s(u[t], w[t][v], s);
                }
                *a = s;
            }
        }
    }
}

/// Projection of one chunk: `p[col, :] = sum_i x[i, col] A[i, :]` (`p` row-major
/// `ncols x rp`, `A` packed `d0 x rp`), [`PROJECT_STREAMS`] columns at a time (see
/// [`stream_group`]) with their sums in registers, `i` in order.
struct ProjectChunk<'a> {
    a: &'a [f64],
    p: &'a mut [f64],
}

impl StreamedColumns<PROJECT_STREAMS> for ProjectChunk<'_> {
    /// Rows `first, first + q, ...` (`K` of them) of `p`.
    #[inline(always)]
    fn columns<S: pulp::Simd, const NV: usize, const K: usize>(
        &mut self,
        simd: S,
        off: usize,
        rp: usize,
        xs: [&[f64]; K],
        first: usize,
        q: usize,
    ) {
        let zero = simd.splat_f64s(0.0);
        let mut s = [[zero; NV]; K];
        for (i, a) in self.a.chunks_exact(rp).enumerate() {
            let a = vectors::<S, NV>(a, off);
            let u = splat_entries(simd, &xs, i);
            // One vector of `A` at a time, used by every column (short live ranges: the
            // `K NV` sums stay in registers).
            for v in 0..NV {
                for t in 0..K {
                    s[t][v] = simd.mul_add_f64s(u[t], a[v], s[t][v]);
                }
            }
        }
        for t in 0..K {
            vectors_mut::<S, NV>(&mut self.p[(first + t * q) * rp..], off).copy_from_slice(&s[t]);
        }
    }
}

/// MTTKRP of mode 1 or 2 from `P` for a block of output rows: mode 1,
/// `out[j, :] = sum_k P[j + d1 k, :] .* C[k, :]` for `j` in `j0..j0 + rows`; mode 2,
/// `out[k, :] = sum_j P[j + d1 k, :] .* B[j, :]` for `k` in `j0..j0 + rows` (`out` the
/// block's rows, row-major `rows x rp`). Each entry sums in the order of `k` (mode 1) or
/// `j` (mode 2), whatever the blocks.
struct FromProjection<'a> {
    p: &'a [f64],
    d1: usize,
    mode: usize,
    factor: &'a [f64],
    rp: usize,
    first: usize,
    out: &'a mut [f64],
}

impl RowBlocks for FromProjection<'_> {
    fn rp(&self) -> usize {
        self.rp
    }

    #[inline(always)]
    fn block<S: pulp::Simd, const NV: usize>(&mut self, simd: S, off: usize) {
        let (d1, rp, first) = (self.d1, self.rp, self.first);
        let zero = simd.splat_f64s(0.0);
        let slabs = self.p.chunks_exact(d1 * rp);
        if self.mode == 1 {
            let rows = self.out.len() / rp;
            for row in self.out.chunks_exact_mut(rp) {
                vectors_mut::<S, NV>(row, off).fill(zero);
            }
            for (slab, f) in slabs.zip(self.factor.chunks_exact(rp)) {
                let f = vectors::<S, NV>(f, off);
                let slab = &slab[first * rp..(first + rows) * rp];
                for (o, p) in self.out.chunks_exact_mut(rp).zip(slab.chunks_exact(rp)) {
                    let o = vectors_mut::<S, NV>(o, off);
                    let p = vectors::<S, NV>(p, off);
                    for ((o, &p), &f) in o.iter_mut().zip(p).zip(f) {
                        *o = simd.mul_add_f64s(p, f, *o);
                    }
                }
            }
        } else {
            for (o, slab) in self.out.chunks_exact_mut(rp).zip(slabs.skip(first)) {
                let mut s = [zero; NV];
                for (p, f) in slab.chunks_exact(rp).zip(self.factor.chunks_exact(rp)) {
                    let p = vectors::<S, NV>(p, off);
                    let f = vectors::<S, NV>(f, off);
                    for ((s, &p), &f) in s.iter_mut().zip(p).zip(f) {
                        *s = simd.mul_add_f64s(p, f, *s);
                    }
                }
                vectors_mut::<S, NV>(o, off).copy_from_slice(&s);
            }
        }
    }
}

/// `sum_c add(c, acc)` over `n` chunks into a vector of `len` entries: the chunks are
/// split into [`REDUCTION_GROUPS`] contiguous groups summed in parallel, each in chunk
/// order, and the groups are added in order.
fn reduce_vec<F>(n: usize, len: usize, add: F) -> Vec<f64>
where
    F: Fn(usize, &mut [f64]) + Sync,
{
    let groups = REDUCTION_GROUPS.min(n.max(1));
    let partials: Vec<Vec<f64>> = (0..groups)
        .into_par_iter()
        .map(|g| {
            let mut acc = vec![0.0; len];
            for c in g * n / groups..(g + 1) * n / groups {
                add(c, &mut acc);
            }
            acc
        })
        .collect();
    let mut out = vec![0.0; len];
    for p in &partials {
        for (o, &v) in out.iter_mut().zip(p) {
            *o += v;
        }
    }
    out
}

/// `out = X_(0) (C (.) B)` (`d0 x R`) for the column-major data of shape `shape`.
pub(crate) fn mttkrp_mode0(
    data: &[f64],
    shape: [usize; 3],
    b: MatRef<'_, f64>,
    c: MatRef<'_, f64>,
    out: MatMut<'_, f64>,
) {
    let r = b.ncols();
    if r == 0 {
        return;
    }
    let rp = padded(r);
    let (bp, cp) = (pack_rows(b, rp), pack_rows(c, rp));
    let chunks = Chunks::new(shape);
    let [d0, d1, _] = shape;
    let acc = reduce_vec(chunks.count(), d0 * rp, |ch, acc| {
        let (k0, _) = chunks.range(ch);
        dispatch(Streamed {
            x: chunks.slice(data, ch),
            d0,
            rp,
            kernel: Mode0Chunk {
                d1,
                k0,
                b: &bp,
                c: &cp,
                acc,
            },
        });
    });
    unpack_rows(&acc, rp, out);
}

/// `P = X_(0)^T A` (`d1 d2 x R`) as a row-major `d1 d2 x rp` array (`rp` =
/// [`padded`]`(R)`, padding columns zero), written into `p` (resized), chunk by chunk in
/// parallel. Returns `rp`.
fn project_mode0(data: &[f64], shape: [usize; 3], a: MatRef<'_, f64>, p: &mut Vec<f64>) -> usize {
    let rp = padded(a.ncols());
    let ap = pack_rows(a, rp);
    let chunks = Chunks::new(shape);
    let [d0, d1, d2] = shape;
    let len = d1 * d2 * rp;
    if p.capacity() < len {
        // Zeroed pages from the allocator, not a pass of zeros (the kernel writes every
        // entry).
        *p = vec![0.0; len];
    } else {
        p.resize(len, 0.0);
    }
    if rp == 0 {
        return rp;
    }
    p.par_chunks_mut(chunks.slabs * d1 * rp)
        .enumerate()
        .for_each(|(ch, block)| {
            dispatch(Streamed {
                x: chunks.slice(data, ch),
                d0,
                rp,
                kernel: ProjectChunk { a: &ap, p: block },
            });
        });
    rp
}

/// Output rows per parallel task of [`mttkrp_from_projection`].
const ROWS_PER_TASK: usize = 16;

/// The MTTKRP of mode 1 or 2 from `P = X_(0)^T A` (row-major, `rp` per row): mode 1,
/// `out[j, r] = sum_k P[j + d1 k, r] C[k, r]` (`factor = C`); mode 2,
/// `out[k, r] = sum_j P[j + d1 k, r] B[j, r]` (`factor = B`). Parallel over blocks of
/// output rows; each entry sums in a fixed order.
fn mttkrp_from_projection(
    p: &[f64],
    rp: usize,
    shape: [usize; 3],
    mode: usize,
    factor: MatRef<'_, f64>,
    out: MatMut<'_, f64>,
) {
    if rp == 0 {
        return;
    }
    let fp = pack_rows(factor, rp);
    let mut packed = vec![0.0; shape[mode] * rp];
    packed
        .par_chunks_mut(ROWS_PER_TASK * rp)
        .enumerate()
        .for_each(|(t, block)| {
            dispatch(FromProjection {
                p,
                d1: shape[1],
                mode,
                factor: &fp,
                rp,
                first: t * ROWS_PER_TASK,
                out: block,
            });
        });
    unpack_rows(&packed, rp, out);
}

/// The Gram matrix `X_(mode) X_(mode)^T` (`d_mode x d_mode`) of the column-major data,
/// without unfolding a copy: mode 0 sums `X_c X_c^T` over the chunks `X_c` of the data
/// as a `d0 x d1 d2` matrix, mode 1 sums `X_k^T X_k` over the mode-2 slabs `X_k`
/// (`d0 x d1`), mode 2 sums `M_c^T M_c` over the row blocks `M_c` of the data as a
/// `d0 d1 x d2` matrix. Chunked reductions in a fixed order (any thread count).
pub(crate) fn unfolding_gram(data: &[f64], shape: [usize; 3], mode: usize) -> Mat<f64> {
    let [d0, d1, d2] = shape;
    let chunks = Chunks::new(shape);
    let d = shape[mode];
    let mut out = Mat::zeros(d, d);
    let syrk = |acc: MatMut<'_, f64>, a: MatRef<'_, f64>| {
        matmul(acc, Accum::Add, a, a.transpose(), 1.0, Par::Seq);
    };
    match mode {
        0 => reduce(
            chunks.count(),
            d,
            d,
            |c, acc| syrk(acc, chunks.view(data, c)),
            out.as_mut(),
        ),
        1 => reduce(
            chunks.count(),
            d,
            d,
            |c, mut acc| {
                let x = chunks.view(data, c);
                for k in 0..chunks.range(c).1 {
                    syrk(acc.as_mut(), x.subcols(k * d1, d1).transpose());
                }
            },
            out.as_mut(),
        ),
        _ => {
            let m = MatRef::from_column_major_slice(data, d0 * d1, d2);
            let rows = (CHUNK_ENTRIES / d2.max(1)).max(1);
            let n = (d0 * d1).div_ceil(rows);
            reduce(
                n,
                d,
                d,
                |c, acc| {
                    let a = c * rows;
                    let block = m.subrows(a, rows.min(d0 * d1 - a));
                    syrk(acc, block.transpose());
                },
                out.as_mut(),
            );
        }
    }
    out
}

/// MTTKRP for any mode with a cached `P = X_(0)^T A`: consecutive calls for modes 1 and 2
/// with the same data and the same `A` share one pass over the tensor. Call
/// [`Mttkrp::invalidate`] whenever the data changes.
#[derive(Debug, Default)]
pub(crate) struct Mttkrp {
    /// `P`, row-major with `rp` entries per row.
    p: Vec<f64>,
    rp: usize,
    /// The `A` that `p` was computed with, when valid.
    a: Option<Mat<f64>>,
}

impl Mttkrp {
    /// Forgets the cached `P` (the data changed).
    pub(crate) fn invalidate(&mut self) {
        self.a = None;
    }

    /// `out = X_(mode) (F_b (.) F_a)` (`d_mode x R`), `a < b` the other modes.
    pub(crate) fn compute(
        &mut self,
        data: &[f64],
        shape: [usize; 3],
        mode: usize,
        f: [MatRef<'_, f64>; 3],
        out: MatMut<'_, f64>,
    ) {
        if mode == 0 {
            mttkrp_mode0(data, shape, f[1], f[2], out);
            return;
        }
        if self.a.as_ref().is_none_or(|a| a.as_ref() != f[0]) {
            self.rp = project_mode0(data, shape, f[0], &mut self.p);
            self.a = Some(f[0].to_owned());
        }
        let (_, other) = crate::tensor::other_modes(mode);
        mttkrp_from_projection(&self.p, self.rp, shape, mode, f[other], out);
    }
}

/// `out = data x_0 M_0 x_1 M_1 x_2 M_2` (mode products in turn; `out` holds
/// `M_0.nrows() M_1.nrows() M_2.nrows()` entries). The data is read in place and the last
/// product is written straight into `out` (no copy of the input or of the result).
pub(crate) fn multilinear_product_into(
    data: &[f64],
    shape: [usize; 3],
    mats: [MatRef<'_, f64>; 3],
    out: &mut [f64],
) {
    let [m0, m1, m2] = mats;
    let s0 = [m0.nrows(), shape[1], shape[2]];
    let t0 = mode_product(data, shape, 0, m0);
    let s1 = [s0[0], m1.nrows(), s0[2]];
    let t1 = mode_product(&t0, s0, 1, m1);
    mode_product_into(&t1, s1, 2, m2, out, Par::Seq);
}

/// `data x_mode M` (`M` is `p x d_mode`); mode 0 through the parallel
/// [`project_mode0`].
pub(crate) fn mode_product(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    m: MatRef<'_, f64>,
) -> Vec<f64> {
    let mut ns = shape;
    ns[mode] = m.nrows();
    let len = ns.iter().product();
    if mode == 0 {
        // (X x_0 M)_(0) = M X_(0) = P^T with P = X_(0)^T M^T: the rows of P (`rp`
        // apart) moved together in place (row g to g q <= g rp, in increasing g).
        let mut p = Vec::new();
        let rp = project_mode0(data, shape, m.transpose(), &mut p);
        let q = ns[0];
        if rp == 0 {
            return vec![0.0; len];
        }
        for g in 0..ns[1] * ns[2] {
            p.copy_within(g * rp..g * rp + q, g * q);
        }
        p.truncate(len);
        return p;
    }
    let mut out = vec![0.0; len];
    mode_product_into(data, shape, mode, m, &mut out, Par::Seq);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{Tensor, khatri_rao, other_modes};

    fn random_tensor(shape: [usize; 3], seed: u64) -> Tensor {
        let mut rng = bl_core::random::seeded_rng(seed);
        let data = (0..shape.iter().product::<usize>())
            .map(|_| bl_core::random::standard_normal(&mut rng))
            .collect();
        Tensor::from_vec(shape, data).expect("finite data")
    }

    /// `X_(n) (F_b (.) F_a)` by the textbook formula: the unfolding times the explicit
    /// Khatri–Rao product.
    fn reference(x: &Tensor, mode: usize, f: &[Mat<f64>; 3]) -> Mat<f64> {
        let (a, b) = other_modes(mode);
        let kr = khatri_rao(f[b].as_ref(), f[a].as_ref()).expect("same rank");
        x.unfold(mode).expect("valid mode") * kr
    }

    /// `kernel.compute` for `x` along `mode` into a new matrix.
    fn compute(kernel: &mut Mttkrp, x: &Tensor, mode: usize, f: &[Mat<f64>; 3]) -> Mat<f64> {
        let mut out = Mat::zeros(x.shape()[mode], f[0].ncols());
        kernel.compute(
            x.data(),
            x.shape(),
            mode,
            f.each_ref().map(Mat::as_ref),
            out.as_mut(),
        );
        out
    }

    fn max_abs_diff(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
        let mut m = 0.0_f64;
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                m = m.max((a[(i, j)] - b[(i, j)]).abs());
            }
        }
        m
    }

    // Shapes with one slab per chunk, many slabs per chunk, ragged last chunks, and chunks
    // of an odd number of columns (the kernels pair column c with c + ceil(n/2)).
    const SHAPES: [[usize; 3]; 6] = [
        [4, 5, 6],
        [1, 7, 3],
        [300, 250, 3],
        [9, 1, 40],
        [2, 2, 1],
        [30, 45, 97],
    ];

    #[test]
    fn mttkrp_matches_the_khatri_rao_formula_in_every_mode() {
        // Rank 3: one block of SIMD vectors per padded row; rank 21: several (24 padded
        // entries: 6 AVX2 vectors, done as blocks of 4 and 2).
        for rank in [3, 21] {
            for (t, &shape) in SHAPES.iter().enumerate() {
                let x = random_tensor(shape, t as u64);
                let mut rng = bl_core::random::seeded_rng(100 + t as u64);
                let f =
                    shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, rank).unwrap());
                let mut kernel = Mttkrp::default();
                for mode in [0, 1, 2, 2, 1] {
                    let out = compute(&mut kernel, &x, mode, &f);
                    let want = reference(&x, mode, &f);
                    let scale = 1.0 + want.norm_max();
                    assert!(
                        max_abs_diff(out.as_ref(), want.as_ref()) <= 1e-12 * scale,
                        "shape {shape:?} rank {rank} mode {mode}"
                    );
                }
            }
        }
    }

    std::thread_local! {
        /// Which SIMD type the kernels of this thread use: 0 the dispatched one, 1-4
        /// `pulp::Scalar` with 1, 2, 4, 8 lanes.
        pub(super) static SIMD_OVERRIDE: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn kernels_are_bit_identical_for_every_simd_width() {
        let shape = [23, 17, 31];
        let x = random_tensor(shape, 12);
        let mut rng = bl_core::random::seeded_rng(13);
        let f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 21).unwrap());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("thread pool");
        let run = |simd: u8| {
            pool.broadcast(|_| SIMD_OVERRIDE.set(simd));
            let out = pool.install(|| {
                let mut kernel = Mttkrp::default();
                [0, 1, 2].map(|mode| compute(&mut kernel, &x, mode, &f))
            });
            let projected = pool.install(|| mode_product(x.data(), shape, 0, f[0].transpose()));
            (out, projected)
        };
        let dispatched = run(0);
        for simd in 1..=4 {
            assert_eq!(dispatched, run(simd), "pulp scalar type {simd}");
        }
    }

    #[test]
    fn the_cached_projection_follows_a_change_of_the_first_factor() {
        let shape = [5, 4, 3];
        let x = random_tensor(shape, 7);
        let mut rng = bl_core::random::seeded_rng(8);
        let mut f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 2).unwrap());
        let mut kernel = Mttkrp::default();
        compute(&mut kernel, &x, 1, &f);
        f[0][(0, 0)] += 1.0;
        let out = compute(&mut kernel, &x, 1, &f);
        assert!(max_abs_diff(out.as_ref(), reference(&x, 1, &f).as_ref()) < 1e-12);
    }

    #[test]
    fn kernels_are_bit_identical_for_any_thread_count() {
        let shape = [40, 30, 50];
        let x = random_tensor(shape, 3);
        let mut rng = bl_core::random::seeded_rng(4);
        let f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 5).unwrap());
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            pool.install(|| [0, 1, 2].map(|mode| compute(&mut Mttkrp::default(), &x, mode, &f)))
        };
        let one = run(1);
        for threads in [2, 3] {
            assert_eq!(one, run(threads), "{threads} threads");
        }
    }

    #[test]
    fn unfolding_grams_match_the_copied_unfoldings() {
        for (t, &shape) in SHAPES.iter().enumerate() {
            let x = random_tensor(shape, 50 + t as u64);
            for mode in 0..3 {
                let unf = x.unfold(mode).expect("valid mode");
                let want = &unf * unf.transpose();
                let got = unfolding_gram(x.data(), shape, mode);
                let scale = 1.0 + want.norm_max();
                assert!(
                    max_abs_diff(got.as_ref(), want.as_ref()) <= 1e-12 * scale,
                    "shape {shape:?} mode {mode}"
                );
            }
        }
    }

    #[test]
    fn multilinear_products_match_the_sum_over_all_indices() {
        for (t, &shape) in SHAPES.iter().take(5).enumerate() {
            let x = random_tensor(shape, 70 + t as u64);
            let mut rng = bl_core::random::seeded_rng(80 + t as u64);
            let rows = [3, 1, 4];
            let m: [Mat<f64>; 3] = std::array::from_fn(|n| {
                bl_core::random::standard_normal_mat(&mut rng, rows[n], shape[n]).unwrap()
            });
            let mut out = vec![0.0; rows.iter().product()];
            multilinear_product_into(x.data(), shape, m.each_ref().map(Mat::as_ref), &mut out);
            let [d0, d1, d2] = shape;
            let mut scale = 1.0_f64;
            let mut worst = 0.0_f64;
            for s in 0..rows[2] {
                for q in 0..rows[1] {
                    for p in 0..rows[0] {
                        let mut want = 0.0;
                        for k in 0..d2 {
                            for j in 0..d1 {
                                for i in 0..d0 {
                                    want += m[0][(p, i)]
                                        * m[1][(q, j)]
                                        * m[2][(s, k)]
                                        * x.data()[i + d0 * (j + d1 * k)];
                                }
                            }
                        }
                        let got = out[p + rows[0] * (q + rows[1] * s)];
                        scale = scale.max(want.abs());
                        worst = worst.max((got - want).abs());
                    }
                }
            }
            assert!(worst <= 1e-12 * scale, "shape {shape:?}: {worst}");
        }
    }
}
