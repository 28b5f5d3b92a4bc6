//! The sweep kernels of the mixing method, one per form of `C`: the blocked dense sweep,
//! the SIMD sparse sweep, the implicit low-rank sweep through `W = G^T V^T`, and the
//! coordinate update `v_i <- g_i / ||g_i||` they share.

use faer::{Accum, MatMut, MatRef, Par};
use pulp::{Simd, WithSimd};

use super::SweepForm;
use crate::cost::{CostView, LowRankFactor, SparseSym, axpy, dot, matvec, product};

#[derive(Debug)]
pub(crate) enum Kernel<'a> {
    Dense {
        n: usize,
        c: &'a [f64],
    },
    /// `C` formed densely from a low-rank factor or (`from_sparse`) a sparse `C`.
    Formed {
        n: usize,
        c: Vec<f64>,
        from_sparse: bool,
    },
    Sparse(&'a SparseSym),
    /// `w` is `W = G^T V^T`, `m x k` column-major.
    Implicit {
        lr: &'a LowRankFactor,
        w: Vec<f64>,
    },
}

impl Kernel<'_> {
    pub(crate) fn view(&self) -> CostView<'_> {
        match self {
            Kernel::Dense { n, c } => CostView::Dense { n: *n, c },
            Kernel::Formed { n, c, .. } => CostView::Dense { n: *n, c },
            Kernel::Sparse(s) => CostView::Sparse(s),
            Kernel::Implicit { lr, .. } => CostView::LowRank(lr),
        }
    }

    pub(super) fn form(&self) -> SweepForm {
        match self {
            Kernel::Dense { .. } => SweepForm::Dense,
            Kernel::Formed {
                from_sparse: true, ..
            } => SweepForm::SparseFormed,
            Kernel::Formed { .. } => SweepForm::LowRankFormed,
            Kernel::Sparse(_) => SweepForm::Sparse,
            Kernel::Implicit { .. } => SweepForm::LowRankImplicit,
        }
    }

    pub(super) fn diag_sum(&self) -> f64 {
        match self {
            Kernel::Dense { n, c } => (0..*n).map(|i| c[i + i * n]).sum(),
            Kernel::Formed { n, c, .. } => (0..*n).map(|i| c[i + i * n]).sum(),
            Kernel::Sparse(s) => s.diag.iter().sum(),
            Kernel::Implicit { lr, .. } => lr.row_sq.iter().sum(),
        }
    }

    /// `g = sum_{j != i} C_ij v_j` for `V` (`k x n`, column-major).
    pub(super) fn field(&self, v: &[f64], k: usize, i: usize, g: &mut [f64]) {
        let vi = &v[i * k..(i + 1) * k];
        match self {
            Kernel::Dense { n, c } => dense_field(c, *n, v, k, i, g),
            Kernel::Formed { n, c, .. } => dense_field(c, *n, v, k, i, g),
            Kernel::Sparse(s) => {
                g.fill(0.0);
                for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                    let j = s.col_idx[p];
                    axpy(g, s.values[p], &v[j * k..(j + 1) * k]);
                }
            }
            Kernel::Implicit { lr, w } => {
                matvec(
                    g,
                    MatRef::from_column_major_slice(w, lr.m, k).transpose(),
                    lr.row(i),
                );
                axpy(g, -lr.row_sq[i], vi);
            }
        }
    }
}

pub(super) fn dense_field(c: &[f64], n: usize, v: &[f64], k: usize, i: usize, g: &mut [f64]) {
    let col = &c[i * n..(i + 1) * n];
    matvec(g, MatRef::from_column_major_slice(v, k, n), col);
    axpy(g, -col[i], &v[i * k..(i + 1) * k]);
}

/// Columns per block of the dense sweep.
pub(super) const DENSE_BLOCK: usize = 32;

/// One sweep over a dense symmetric `C`, blocked: for each block `B` of `b` consecutive
/// coordinates (in sweep order), `G_B = V C_{:,B}` is one matrix product with the current
/// `V`; coordinate `i` of the block then corrects its column for the updates made
/// earlier in the same block, `g_i += sum_{u in B, before i} C_ui (v_u^new - v_u^old)`,
/// and removes `C_ii v_i`. The iterates are exactly those of the plain cyclic sweep (up to
/// rounding); `V` is read `n / b` times per sweep instead of `n` times.
pub(super) fn dense_block_sweep(
    c: &[f64],
    n: usize,
    v: &mut [f64],
    k: usize,
    order: &[usize],
    contiguous: bool,
    block_g: &mut [f64],
    block_dv: &mut [f64],
    block_c: &mut [f64],
) -> f64 {
    let mut increase = 0.0;
    let mut start = 0;
    while start < n {
        let len = DENSE_BLOCK.min(n - start);
        let idx = &order[start..start + len];
        let cols: &[f64] = if contiguous {
            &c[start * n..(start + len) * n]
        } else {
            for (t, &i) in idx.iter().enumerate() {
                block_c[t * n..(t + 1) * n].copy_from_slice(&c[i * n..(i + 1) * n]);
            }
            &block_c[..len * n]
        };
        product(
            MatMut::from_column_major_slice_mut(&mut block_g[..k * len], k, len),
            Accum::Replace,
            MatRef::from_column_major_slice(v, k, n),
            MatRef::from_column_major_slice(cols, n, len),
            Par::Seq,
        );
        for t in 0..len {
            let i = idx[t];
            let g = &mut block_g[t * k..(t + 1) * k];
            let (done, rest) = block_dv.split_at_mut(t * k);
            for (u, dv_u) in done.chunks_exact(k).enumerate() {
                let cui = c[idx[u] + i * n];
                if cui != 0.0 {
                    axpy(g, cui, dv_u);
                }
            }
            let vi = &mut v[i * k..(i + 1) * k];
            axpy(g, -c[i + i * n], vi);
            increase += move_to_field(g, vi, &mut rest[..k]);
        }
        start += len;
    }
    increase
}

/// The coordinate update `v_i <- g / ||g||` with `dv = v_i^new - v_i^old`; returns the
/// objective increase `2 (||g|| - g^T v_i^old)`. For `g = 0` every unit `v_i` is optimal:
/// `v_i` is kept, `dv = 0` and the increase is 0.
#[inline]
pub(super) fn move_to_field(g: &[f64], vi: &mut [f64], dv: &mut [f64]) -> f64 {
    let norm = dot(g, g).sqrt();
    if !(norm > 0.0 && norm.is_finite()) {
        dv.fill(0.0);
        return 0.0;
    }
    let before = dot(g, vi);
    for ((vr, dr), gr) in vi.iter_mut().zip(dv.iter_mut()).zip(g) {
        let new = gr / norm;
        *dr = new - *vr;
        *vr = new;
    }
    2.0 * (norm - before)
}

/// One sweep over a sparse symmetric `C` (CSR rows without the diagonal) in `order`,
/// one vertex after the other, with the kernel of [`accumulate`]: the iterates are
/// bit-identical to the plain loop (`Mixing::sweep_reference`, feature `probes`).
pub(super) fn sparse_sweep(
    s: &SparseSym,
    v: &mut [f64],
    k: usize,
    order: &[usize],
    g: &mut [f64],
) -> f64 {
    struct Op<'a> {
        s: &'a SparseSym,
        v: &'a mut [f64],
        k: usize,
        order: &'a [usize],
        g: &'a mut [f64],
    }
    impl WithSimd for Op<'_> {
        type Output = f64;
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) -> f64 {
            let Op { s, v, k, order, g } = self;
            let mut increase = 0.0;
            for &i in order {
                let range = s.row_ptr[i]..s.row_ptr[i + 1];
                g.fill(0.0);
                let current: &[f64] = v;
                accumulate(simd, &s.col_idx[range.clone()], &s.values[range], g, |j| {
                    &current[j * k..j * k + k]
                });
                let vi = &mut v[i * k..(i + 1) * k];
                increase += unit_field(g, vi);
                vi.copy_from_slice(g);
            }
            increase
        }
    }
    pulp::Arch::new().dispatch(Op { s, v, k, order, g })
}

/// `g = sum_p values[p] v_{cols[p]}` (`V` is `k x n`, column-major); see [`accumulate`].
pub(super) fn sparse_field(cols: &[usize], values: &[f64], v: &[f64], k: usize, g: &mut [f64]) {
    struct Op<'a> {
        cols: &'a [usize],
        values: &'a [f64],
        v: &'a [f64],
        k: usize,
        g: &'a mut [f64],
    }
    impl WithSimd for Op<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            let Op {
                cols,
                values,
                v,
                k,
                g,
            } = self;
            g.fill(0.0);
            accumulate(simd, cols, values, g, |j| &v[j * k..j * k + k]);
        }
    }
    pulp::Arch::new().dispatch(Op {
        cols,
        values,
        v,
        k,
        g,
    });
}

/// `g += sum_p values[p] col(cols[p])`, the kernel of every sparse sweep. Four stored
/// entries per pass over `g`, in `pulp`'s vector registers (the widest the CPU offers,
/// chosen at run time): `g <- (((g + a_0 x_0) + a_1 x_1) + a_2 x_2) + a_3 x_3`
/// elementwise, a multiply then an add, no fused multiply-add. That is the same
/// sequence of roundings as one `axpy` per entry in the order of the entries, so the
/// result is bit-identical to the plain loop on every CPU. The rows of `g` past the last
/// full vector are done one by one with the same operations.
#[inline(always)]
pub(super) fn accumulate<'v, S: Simd>(
    simd: S,
    cols: &[usize],
    values: &[f64],
    g: &mut [f64],
    col: impl Fn(usize) -> &'v [f64],
) {
    let k = g.len();
    let (head, tail) = S::as_mut_simd_f64s(g);
    let madd = |acc: S::f64s, a: S::f64s, x: S::f64s| simd.add_f64s(acc, simd.mul_f64s(a, x));
    let mut cols4 = cols.chunks_exact(4);
    let mut values4 = values.chunks_exact(4);
    for (j, a) in (&mut cols4).zip(&mut values4) {
        let x: [(&[S::f64s], &[f64]); 4] =
            std::array::from_fn(|e| S::as_simd_f64s(&col(j[e])[..k]));
        let s: [S::f64s; 4] = std::array::from_fn(|e| simd.splat_f64s(a[e]));
        for (r, gr) in head.iter_mut().enumerate() {
            let mut acc = *gr;
            acc = madd(acc, s[0], x[0].0[r]);
            acc = madd(acc, s[1], x[1].0[r]);
            acc = madd(acc, s[2], x[2].0[r]);
            acc = madd(acc, s[3], x[3].0[r]);
            *gr = acc;
        }
        for (r, gr) in tail.iter_mut().enumerate() {
            *gr = *gr + a[0] * x[0].1[r] + a[1] * x[1].1[r] + a[2] * x[2].1[r] + a[3] * x[3].1[r];
        }
    }
    for (&j, &a) in cols4.remainder().iter().zip(values4.remainder()) {
        let (xh, xt) = S::as_simd_f64s(&col(j)[..k]);
        let s = simd.splat_f64s(a);
        for (gr, &x) in head.iter_mut().zip(xh) {
            *gr = madd(*gr, s, x);
        }
        for (gr, &x) in tail.iter_mut().zip(xt) {
            *gr += a * x;
        }
    }
}

/// `W = G^T V^T` (`m x k`).
pub(super) fn implicit_w(lr: &LowRankFactor, v: &[f64], k: usize, w: &mut [f64], par: Par) {
    product(
        MatMut::from_column_major_slice_mut(w, lr.m, k),
        Accum::Replace,
        lr.gt_ref(),
        MatRef::from_column_major_slice(v, k, lr.n).transpose(),
        par,
    );
}

/// Turns the field `g` of coordinate `i` into the new `v_i = g / ||g||` in place and
/// returns the increase `2 (||g|| - g^T v_i^old)`; for `g = 0`, `v_i^old` is kept
/// (copied into `g`) and the increase is 0. The same arithmetic as [`move_to_field`].
#[inline(always)]
pub(super) fn unit_field(g: &mut [f64], vi: &[f64]) -> f64 {
    let norm = dot(g, g).sqrt();
    if !(norm > 0.0 && norm.is_finite()) {
        g.copy_from_slice(vi);
        return 0.0;
    }
    let before = dot(g, vi);
    for gr in g.iter_mut() {
        *gr /= norm;
    }
    2.0 * (norm - before)
}

/// One plain coordinate sweep in `order`: `g_i` from [`Kernel::field`], then the update
/// (and, for the implicit form, `W += G_i^T dv^T`).
pub(super) fn coordinate_sweep(
    kernel: &mut Kernel<'_>,
    v: &mut [f64],
    k: usize,
    order: &[usize],
    g: &mut [f64],
    dv: &mut [f64],
) -> f64 {
    {
        let mut increase = 0.0;
        for &i in order.iter() {
            kernel.field(v, k, i, g);
            increase += move_to_field(g, &mut v[i * k..(i + 1) * k], dv);
            if let Kernel::Implicit { lr, w } = kernel {
                product(
                    MatMut::from_column_major_slice_mut(w, lr.m, k),
                    Accum::Add,
                    MatRef::from_column_major_slice(lr.row(i), lr.m, 1),
                    MatRef::from_column_major_slice(dv, k, 1).transpose(),
                    Par::Seq,
                );
            }
        }
        increase
    }
}
