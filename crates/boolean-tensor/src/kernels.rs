//! In-place MTTKRP kernels and the randomized HOSVD start of the CP-type baselines.
//!
//! The MTTKRP `M_n = X_(n) (F_b (.) F_a)` of CP-ALS (Kolda & Bader 2009, Sec. 3.4) is
//! computed without the Khatri–Rao product of the full tensor and without unfolding a
//! copy of it: the tensor is read in its memory order (mode 0 fastest), a chunk of
//! mode-2 slabs at a time.
//!
//! - Mode 0: `M_0 = sum_chunks X_chunk (C_chunk (.) B)`, one product per chunk with the
//!   chunk's rows of the Khatri–Rao product only.
//! - Modes 1 and 2 go through `P = X_(0)^T A` (`d1 d2 x R`, computed chunk by chunk),
//!   then `M_1[:, r] = P_r C[:, r]` and `M_2[:, r] = P_r^T B[:, r]`, with `P_r` column `r`
//!   of `P` seen as a `d1 x d2` matrix. `P` depends on `A` only, so one `P` serves both
//!   modes when `A` does not change between them (the "dimension tree" of Phan,
//!   Tichavský & Cichocki 2013): a CP-ALS sweep costs two passes over the tensor, not
//!   three.
//!
//! Parallelism: rayon over chunks whose boundaries depend on the shape only, with every
//! reduction in a fixed order, so the results are bit-identical for any thread count.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use rayon::prelude::*;

use crate::common::leading_eigenvectors;
use crate::error::Result;
use crate::tensor::{khatri_rao_into, mode_product_into};

/// Target number of tensor entries per parallel chunk.
const CHUNK_ENTRIES: usize = 1 << 16;
/// Number of partial sums of a reduction (fixed, so the summation order does not depend
/// on the thread count; bounds the memory of the partial sums).
const REDUCTION_GROUPS: usize = 16;
/// Oversampling of the randomized range finder (Halko, Martinsson & Tropp 2011, Sec. 4.2).
const OVERSAMPLING: usize = 10;

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
    /// Chunk `c` of `data` as the `d0 x d1 n` column-major matrix of its slabs.
    fn view(self, data: &[f64], c: usize) -> MatRef<'_, f64> {
        let [d0, d1, _] = self.shape;
        let (k0, n) = self.range(c);
        MatRef::from_column_major_slice(&data[k0 * d0 * d1..(k0 + n) * d0 * d1], d0, d1 * n)
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

/// `out = X_(0) (C (.) B)` (`d0 x R`) for the column-major data of shape `shape`.
pub(crate) fn mttkrp_mode0(
    data: &[f64],
    shape: [usize; 3],
    b: MatRef<'_, f64>,
    c: MatRef<'_, f64>,
    out: MatMut<'_, f64>,
) {
    let chunks = Chunks::new(shape);
    let (d0, d1, r) = (shape[0], shape[1], b.ncols());
    reduce(
        chunks.count(),
        d0,
        r,
        |ch, acc| {
            let (k0, n) = chunks.range(ch);
            let mut w = Mat::zeros(d1 * n, r);
            khatri_rao_into(c.subrows(k0, n), b, w.as_mut());
            matmul(
                acc,
                Accum::Add,
                chunks.view(data, ch),
                w.as_ref(),
                1.0,
                Par::Seq,
            );
        },
        out,
    );
}

/// `P = X_(0)^T A` (`d1 d2 x R`), written into `p` (resized), chunk by chunk in parallel.
pub(crate) fn project_mode0(data: &[f64], shape: [usize; 3], a: MatRef<'_, f64>, p: &mut Mat<f64>) {
    let chunks = Chunks::new(shape);
    let d1 = shape[1];
    p.resize_with(d1 * shape[2], a.ncols(), |_, _| 0.0);
    let mut blocks = Vec::with_capacity(chunks.count());
    let mut rest = p.as_mut();
    for ch in 0..chunks.count() {
        let (head, tail) = rest.split_at_row_mut(d1 * chunks.range(ch).1);
        blocks.push((ch, head));
        rest = tail;
    }
    blocks.into_par_iter().for_each(|(ch, block)| {
        matmul(
            block,
            Accum::Replace,
            chunks.view(data, ch).transpose(),
            a,
            1.0,
            Par::Seq,
        );
    });
}

/// The MTTKRP of mode 1 or 2 from `P = X_(0)^T A`, with `P_r` (column `r` of `P`) seen
/// as a `d1 x d2` matrix: mode 1, `out[:, r] = P_r C[:, r]` (`factor = C`); mode 2,
/// `out[:, r] = P_r^T B[:, r]` (`factor = B`).
fn mttkrp_from_projection(
    p: &Mat<f64>,
    shape: [usize; 3],
    mode: usize,
    factor: MatRef<'_, f64>,
    mut out: MatMut<'_, f64>,
) {
    out.fill(0.0);
    for r in 0..p.ncols() {
        let f = factor.col(r);
        let mut o = out.as_mut().col_mut(r);
        for (k, slab) in p.col_as_slice(r).chunks_exact(shape[1]).enumerate() {
            if mode == 1 {
                for (j, &v) in slab.iter().enumerate() {
                    o[j] += v * f[k];
                }
            } else {
                o[k] = slab.iter().enumerate().map(|(j, &v)| v * f[j]).sum();
            }
        }
    }
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
#[derive(Debug)]
pub(crate) struct Mttkrp {
    p: Mat<f64>,
    /// The `A` that `p` was computed with, when valid.
    a: Option<Mat<f64>>,
}

impl Default for Mttkrp {
    fn default() -> Self {
        Self {
            p: Mat::zeros(0, 0),
            a: None,
        }
    }
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
            project_mode0(data, shape, f[0], &mut self.p);
            self.a = Some(f[0].to_owned());
        }
        let (_, other) = crate::tensor::other_modes(mode);
        mttkrp_from_projection(&self.p, shape, mode, f[other], out);
    }
}

/// `data x_0 M_0 x_1 M_1 x_2 M_2` (mode products in turn) and its shape.
pub(crate) fn multilinear_product(
    data: &[f64],
    shape: [usize; 3],
    mats: [MatRef<'_, f64>; 3],
) -> (Vec<f64>, [usize; 3]) {
    let mut cur = data.to_vec();
    let mut s = shape;
    for (mode, m) in mats.into_iter().enumerate() {
        cur = mode_product(&cur, s, mode, m);
        s[mode] = m.nrows();
    }
    (cur, s)
}

/// The leading left singular vectors of every unfolding of a tensor, by a sequentially
/// truncated HOSVD (Vannieuwenhoven, Vandebril & Meerbergen 2012) with a randomized range
/// finder (Halko, Martinsson & Tropp 2011, Alg. 4.1) on each mode whose length exceeds
/// `rank + 10`: mode `n`'s `min(rank, d_n)` vectors are those of the tensor already
/// projected on the modes before it. The test matrix of the range finder is the
/// Khatri–Rao product of two Gaussian factors, so the sketch is one MTTKRP. Costs about
/// two passes of `rank + 10` columns over the tensor (an ALS sweep costs two passes of
/// `rank` columns); the exact HOSVD costs one Gram matrix `X_(n) X_(n)^T` per mode.
pub(crate) fn randomized_hosvd(
    data: &[f64],
    shape: [usize; 3],
    rank: usize,
    rng: &mut impl rand::Rng,
) -> Result<[Mat<f64>; 3]> {
    let mut cur = Vec::new();
    let mut s = shape;
    let mut out = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
    for (mode, u) in out.iter_mut().enumerate() {
        // Mode 0 reads the data in place; the later modes the projected tensor.
        let src = if mode == 0 { data } else { &cur };
        let (v, projected) = leading_vectors(src, s, mode, rank.min(shape[mode]), rng)?;
        s[mode] = v.ncols();
        (*u, cur) = (v, projected);
    }
    Ok(out)
}

/// `r` leading left singular vectors `U` of `X_(mode)` (exact when the mode is short,
/// randomized range finder otherwise) and the projected data `X x_mode U^T`.
fn leading_vectors(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    r: usize,
    rng: &mut impl rand::Rng,
) -> Result<(Mat<f64>, Vec<f64>)> {
    let (a, b) = crate::tensor::other_modes(mode);
    let k = r + OVERSAMPLING;
    if k >= shape[mode] || k >= shape[a] * shape[b] {
        let u = leading_eigenvectors(unfolding_gram(data, shape, mode).as_ref(), r)?;
        let projected = mode_product(data, shape, mode, u.transpose());
        return Ok((u, projected));
    }
    // Range finder: Y = X_(n) (G_b (.) G_a), Q = orth(Y).
    let mut g = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
    for m in [a, b] {
        g[m] = bl_core::random::standard_normal_mat(rng, shape[m], k);
    }
    let mut y = Mat::zeros(shape[mode], k);
    Mttkrp::default().compute(data, shape, mode, g.each_ref().map(Mat::as_ref), y.as_mut());
    let q = y.qr().compute_thin_Q();
    // Leading vectors V of Z_(n), Z = X x_n Q^T, mapped back by Q; the projection
    // X x_n U^T = Z x_n V^T follows from Z without another pass over X.
    let z = mode_product(data, shape, mode, q.transpose());
    let mut zs = shape;
    zs[mode] = k;
    let v = leading_eigenvectors(unfolding_gram(&z, zs, mode).as_ref(), r)?;
    let projected = mode_product(&z, zs, mode, v.transpose());
    Ok((&q * &v, projected))
}

/// `data x_mode M` (`M` is `p x d_mode`); mode 0 through the parallel
/// [`project_mode0`].
fn mode_product(data: &[f64], shape: [usize; 3], mode: usize, m: MatRef<'_, f64>) -> Vec<f64> {
    let mut ns = shape;
    ns[mode] = m.nrows();
    let mut out = vec![0.0; ns.iter().product()];
    if mode == 0 {
        // (X x_0 M)_(0) = M X_(0) = P^T with P = X_(0)^T M^T.
        let mut p = Mat::zeros(0, 0);
        project_mode0(data, shape, m.transpose(), &mut p);
        MatMut::from_column_major_slice_mut(&mut out, ns[0], ns[1] * ns[2])
            .copy_from(p.transpose());
    } else {
        mode_product_into(data, shape, mode, m, &mut out, Par::Seq);
    }
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

    fn max_abs_diff(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
        let mut m = 0.0_f64;
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                m = m.max((a[(i, j)] - b[(i, j)]).abs());
            }
        }
        m
    }

    // Shapes with one slab per chunk, many slabs per chunk, and ragged last chunks.
    const SHAPES: [[usize; 3]; 5] = [[4, 5, 6], [1, 7, 3], [300, 250, 3], [9, 1, 40], [2, 2, 1]];

    #[test]
    fn mttkrp_matches_the_khatri_rao_formula_in_every_mode() {
        for (t, &shape) in SHAPES.iter().enumerate() {
            let x = random_tensor(shape, t as u64);
            let mut rng = bl_core::random::seeded_rng(100 + t as u64);
            let f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 3));
            let mut kernel = Mttkrp::default();
            for mode in [0, 1, 2, 2, 1] {
                let mut out = Mat::zeros(shape[mode], 3);
                kernel.compute(
                    x.data(),
                    shape,
                    mode,
                    f.each_ref().map(Mat::as_ref),
                    out.as_mut(),
                );
                let want = reference(&x, mode, &f);
                let scale = 1.0 + max_abs_diff(want.as_ref(), Mat::zeros(shape[mode], 3).as_ref());
                assert!(
                    max_abs_diff(out.as_ref(), want.as_ref()) <= 1e-12 * scale,
                    "shape {shape:?} mode {mode}"
                );
            }
        }
    }

    #[test]
    fn the_cached_projection_follows_a_change_of_the_first_factor() {
        let shape = [5, 4, 3];
        let x = random_tensor(shape, 7);
        let mut rng = bl_core::random::seeded_rng(8);
        let mut f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 2));
        let mut kernel = Mttkrp::default();
        let mut out = Mat::zeros(4, 2);
        kernel.compute(
            x.data(),
            shape,
            1,
            f.each_ref().map(Mat::as_ref),
            out.as_mut(),
        );
        f[0][(0, 0)] += 1.0;
        kernel.compute(
            x.data(),
            shape,
            1,
            f.each_ref().map(Mat::as_ref),
            out.as_mut(),
        );
        assert!(max_abs_diff(out.as_ref(), reference(&x, 1, &f).as_ref()) < 1e-12);
    }

    #[test]
    fn kernels_are_bit_identical_for_any_thread_count() {
        let shape = [40, 30, 50];
        let x = random_tensor(shape, 3);
        let mut rng = bl_core::random::seeded_rng(4);
        let f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 5));
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            pool.install(|| {
                [0, 1, 2].map(|mode| {
                    let mut out = Mat::zeros(shape[mode], 5);
                    Mttkrp::default().compute(
                        x.data(),
                        shape,
                        mode,
                        f.each_ref().map(Mat::as_ref),
                        out.as_mut(),
                    );
                    out
                })
            })
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

    /// The projector `U U^T` onto the span of `u`'s columns.
    fn projector(u: &Mat<f64>) -> Mat<f64> {
        u * u.transpose()
    }

    #[test]
    fn randomized_hosvd_spans_the_exact_hosvd_subspaces_of_a_low_rank_tensor() {
        // Multilinear rank (3, 3, 3) with modes longer than rank + oversampling, so the
        // randomized path runs on mode 0 and 1; the range finder is exact there.
        let shape = [30, 25, 20];
        let mut rng = bl_core::random::seeded_rng(11);
        let f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 3));
        let x = crate::tensor::cp_to_tensor(f.each_ref().map(Mat::as_ref)).expect("valid");
        let u = randomized_hosvd(x.data(), shape, 3, &mut rng).expect("converges");
        for mode in 0..3 {
            let exact =
                crate::common::leading_left_vectors(x.unfold(mode).expect("valid").as_ref(), 3)
                    .expect("converges");
            let diff = max_abs_diff(projector(&u[mode]).as_ref(), projector(&exact).as_ref());
            assert!(diff < 1e-8, "mode {mode}: projectors differ by {diff}");
        }
    }
}
