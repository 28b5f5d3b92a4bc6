//! The data access of every fit: the two data passes of an SBLR iteration over the stacked
//! samples, and the products of the linear baseline over the vectorized samples
//! ([`Samples`]), for samples stored as `f64` or `f32`.
//!
//! With the stacked data `A = [X_1 ... X_n]` (`s x t n`) and factors of `k` columns
//! (`k = r` for the binary model, `m r` for the multinomial one):
//!
//! - pass 1: `Z_u[i] = X_i V` (`s x k`, column-major) for every sample, from `V^T`
//!   stored `k x t` column-major;
//! - pass 2: `Z_v[i] = U^T X_i` (`k x t`, column-major) for every sample.
//!
//! Both read each sample once, in its stored precision, and accumulate in `f64`. The
//! samples are split across the threads of a pool; each sample's output is computed by one
//! thread, in a fixed order of operations, so the results are bit-identical for any number
//! of threads and any instruction set. With the non-default cargo feature `probes`,
//! `SamplePasses` runs them on a data set (for the speed probes of `examples/`).

#[cfg(feature = "probes")]
mod probe;
mod samples;
mod source;

#[cfg(feature = "probes")]
pub use probe::SamplePasses;
pub use samples::Samples;
pub(crate) use source::ensure_finite_samples;
pub use source::{DataPasses, InMemory};

use bl_core::data::Element;
use faer::{ContiguousFwd, MatRef};
use rayon::prelude::*;

use crate::error::{Result, SblrError};
use bl_core::error::build::invalid;

/// The most threads a pool of the data passes may have (a larger request is an error, not
/// an attempt to spawn them): the workspace's one bound, [`bl_core::limits::MAX_THREADS`].
pub use bl_core::limits::MAX_THREADS;

/// The worker threads of the data passes: bl-core's `Pool`, as every fit builds it once
/// from its `IterationParams` ([`bl_core::IterationParams::pool`]).
pub use bl_core::iteration::Pool;

/// The pool of `threads` threads (`None`: rayon's global pool).
///
/// # Errors
/// `BlError::InvalidParameter` (as `SblrError::Core`) for `Some(0)` or more than
/// [`MAX_THREADS`] threads; `BlError::Numerical` when the pool cannot be built.
pub(crate) fn pool(threads: Option<usize>) -> Result<Pool> {
    Ok(Pool::new(threads)?)
}

/// The stacked samples `[X_1 ... X_n]` as contiguous columns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stacked<'a, T> {
    columns: MatRef<'a, T, usize, usize, ContiguousFwd>,
    pub(crate) s: usize,
    pub(crate) t: usize,
    pub(crate) n: usize,
}

impl<'a, T: Element> Stacked<'a, T> {
    /// A view of `stacked` (`s x t n`, columns contiguous, as
    /// [`bl_core::data::MatrixDataset::stacked`] gives).
    ///
    /// # Errors
    /// `BlError::Empty` for `n = 0`; `BlError::ShapeMismatch` for another shape;
    /// `BlError::InvalidParameter` for a view whose columns are not contiguous (e.g. a
    /// transposed matrix).
    pub(crate) fn new(stacked: MatRef<'a, T>, s: usize, t: usize, n: usize) -> Result<Self> {
        bl_core::error::ensure_nonempty("labels", n)?;
        crate::error::ensure_shape(
            "stacked samples",
            (s, t * n),
            (stacked.nrows(), stacked.ncols()),
        )?;
        let columns = stacked.try_as_col_major().ok_or_else(|| {
            invalid::<SblrError>(
                "stacked",
                "a view with row stride != 1",
                "a view whose columns are contiguous (as MatrixDataset::stacked gives)",
            )
        })?;
        Ok(Self { columns, s, t, n })
    }

    /// Column `j` of sample `i`.
    #[inline]
    fn column(&self, i: usize, j: usize) -> &'a [T] {
        self.columns.col(i * self.t + j).as_slice()
    }

    /// Pass 1: `out[i] = X_i V` (`s x k` column-major, `s k` values per sample), with
    /// `vt = V^T` stored `k x t` column-major.
    ///
    /// Every entry is `((0 + x_0 w_0) + x_1 w_1) + ... + x_{t-1} w_{t-1}` (column order).
    pub(crate) fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) {
        self.run(Pass::TimesV, vt, k, out, threads);
    }

    /// One pass over every sample, each sample's output (`s k` values for pass 1, `k t`
    /// for pass 2) computed by one thread through the runtime SIMD dispatch.
    pub(crate) fn run(&self, pass: Pass, w: &[f64], k: usize, out: &mut [f64], threads: &Pool) {
        let per_sample = match pass {
            Pass::TimesV => self.s * k,
            Pass::UTimes => k * self.t,
        };
        threads.install(|| {
            out.par_chunks_exact_mut(per_sample)
                .enumerate()
                .for_each(|(i, zi)| {
                    pulp::Arch::new().dispatch(SampleKernel {
                        data: self,
                        i,
                        w,
                        k,
                        out: zi,
                        pass,
                    });
                });
        });
    }

    /// `zi = X_i V` for one sample: the columns of `X_i` in storage order, each added to
    /// every column of `zi` (see [`add_column`] for why one column at a time).
    #[inline(always)]
    fn sample_times_v(&self, i: usize, vt: &[f64], k: usize, zi: &mut [f64]) {
        zi.fill(0.0);
        for (j, vj) in vt.chunks_exact(k).enumerate() {
            let x = self.column(i, j);
            for (zc, &w) in zi.chunks_exact_mut(self.s).zip(vj) {
                add_column(zc, x, w);
            }
        }
    }

    /// `zi = U^T X_i` for one sample, one [`dot`] per entry.
    #[inline(always)]
    fn sample_u_times(&self, i: usize, u: &[f64], k: usize, zi: &mut [f64]) {
        for (j, zj) in zi.chunks_exact_mut(k).enumerate() {
            let x = self.column(i, j);
            for (z, uk) in zj.iter_mut().zip(u.chunks_exact(self.s)) {
                *z = dot(x, uk);
            }
        }
    }

    /// Pass 2: `out[i] = U^T X_i` (`k x t` column-major, `k t` values per sample), with
    /// `u` stored `s x k` column-major.
    pub(crate) fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) {
        self.run(Pass::UTimes, u, k, out, threads);
    }

    /// `m += sum_i w_i X_i` (`s x t` column-major), samples in order, those with
    /// `w_i = 0` skipped.
    pub(crate) fn add_weighted_sum(&self, weights: &[f64], m: &mut [f64]) {
        let s = self.s;
        for (i, &w) in weights.iter().enumerate().take(self.n) {
            if w == 0.0 {
                continue;
            }
            for (j, mj) in m.chunks_exact_mut(s).enumerate() {
                for (acc, &x) in mj.iter_mut().zip(self.column(i, j)) {
                    *acc += w * x.to_f64();
                }
            }
        }
    }
}

/// Which pass a [`SampleKernel`] computes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Pass {
    /// `out = X_i V`, `w = V^T`.
    TimesV,
    /// `out = U^T X_i`, `w = U`.
    UTimes,
}

/// One sample's share of a pass, run through `pulp::Arch::dispatch`: the loops are inlined
/// into a function compiled for the widest vector instructions the CPU has (AVX2 on x86-64
/// when available, detected at run time).
///
/// Besides the wider vectors, this keeps the passes at full speed on threads that inherited
/// a dirty upper AVX register state: a thread spawned while its parent's `ymm`/`zmm`
/// registers hold data (as after faer's SVD of the spectral start) keeps that state until
/// an AVX instruction clears it, and legacy-SSE instructions (the baseline x86-64
/// encoding) then wait on the stale upper halves. Measured: pass 1 at `s = t = 1000` ran
/// 4x slower on the thread pool of a `BinarySolver` than on a fresh pool. VEX-encoded
/// instructions do not depend on the upper halves.
///
/// The kernels do separate multiplies and adds in a fixed order (Rust never contracts them
/// to fused multiply-adds), and every vector lane computes one output entry (or one of the
/// fixed partial sums of [`dot`]), so the results are bit-identical on every CPU and
/// instruction set.
struct SampleKernel<'s, 'a, T> {
    data: &'s Stacked<'a, T>,
    i: usize,
    w: &'s [f64],
    k: usize,
    out: &'s mut [f64],
    pass: Pass,
}

impl<T: Element> pulp::WithSimd for SampleKernel<'_, '_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        match self.pass {
            Pass::TimesV => self.data.sample_times_v(self.i, self.w, self.k, self.out),
            Pass::UTimes => self.data.sample_u_times(self.i, self.w, self.k, self.out),
        }
    }
}

/// `z += x w` in `f64`, row by row.
///
/// Pass 1 adds the columns of `X_i` one at a time, in storage order, so the sample is read
/// as one sequential stream. Adding blocks of 2-8 columns per sweep with `z[a]` held in a
/// register (fewer loads and stores of `z`, same rounding) ran 1.3-2.5x slower on data
/// that does not fit in cache: a block reads its columns as that many interleaved streams
/// (`docs/measurements/sblr-passes.md`).
#[inline(always)]
fn add_column<T: Element>(z: &mut [f64], x: &[T], w: f64) {
    // A slice of exactly `z.len()` entries lets the compiler drop the bounds checks and
    // vectorize.
    let x = &x[..z.len()];
    for (za, &xa) in z.iter_mut().zip(x) {
        *za += xa.to_f64() * w;
    }
}

/// `sum_a x_a u_a` in `f64` over the `x.len()` entries of `x` (`u` at least as long), with
/// eight partial sums in a fixed order (so the compiler can keep them in vector registers,
/// and the result is the same on every thread). Shared by the data passes and the linear
/// baseline's [`Samples`].
#[inline(always)]
pub(crate) fn dot<T: Element>(x: &[T], u: &[f64]) -> f64 {
    let u = &u[..x.len()];
    let mut acc = [0.0f64; 8];
    let xs = x.chunks_exact(8);
    let us = u.chunks_exact(8);
    let (xr, ur) = (xs.remainder(), us.remainder());
    for (xc, uc) in xs.zip(us) {
        for l in 0..8 {
            acc[l] += xc[l].to_f64() * uc[l];
        }
    }
    let mut tail = 0.0;
    for (&xa, &ua) in xr.iter().zip(ur) {
        tail += xa.to_f64() * ua;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

#[cfg(test)]
mod reference_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use bl_core::random::{fill_standard_normal, seeded_rng};

    /// Brute-force products against the passes, for f64 and f32 storage, any k, odd sizes,
    /// and 1, 2 and 3 threads giving bit-identical results.
    #[test]
    fn passes_match_brute_force_products_for_any_thread_count() {
        let (s, t, n) = (13, 7, 5);
        let mut rng = seeded_rng(3);
        let mut x = vec![0.0; s * t * n];
        fill_standard_normal(&mut rng, &mut x);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        for k in [1, 3] {
            let mut vt = vec![0.0; k * t];
            let mut u = vec![0.0; s * k];
            fill_standard_normal(&mut rng, &mut vt);
            fill_standard_normal(&mut rng, &mut u);
            check(&x, s, t, n, k, &vt, &u);
            check(&x32, s, t, n, k, &vt, &u);
        }
    }

    fn check<T: Element>(x: &[T], s: usize, t: usize, n: usize, k: usize, vt: &[f64], u: &[f64]) {
        let a = MatRef::from_column_major_slice(x, s, t * n);
        let data = Stacked::new(a, s, t, n).unwrap();
        let xv = |i: usize, a: usize, j: usize| x[i * s * t + j * s + a].to_f64();
        let mut results = Vec::new();
        for threads in [Some(1), Some(2), Some(3), None] {
            let pool = pool(threads).unwrap();
            let mut zu = vec![f64::NAN; s * k * n];
            let mut zv = vec![f64::NAN; k * t * n];
            data.times_v(vt, k, &mut zu, &pool);
            data.u_times(u, k, &mut zv, &pool);
            results.push((zu, zv));
        }
        let (zu, zv) = &results[0];
        for (other_zu, other_zv) in &results[1..] {
            assert_eq!(zu, other_zu);
            assert_eq!(zv, other_zv);
        }
        for i in 0..n {
            for c in 0..k {
                for a in 0..s {
                    let want: f64 = (0..t).map(|j| xv(i, a, j) * vt[j * k + c]).sum();
                    let got = zu[i * s * k + c * s + a];
                    assert!(
                        (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                        "{got} {want}"
                    );
                }
                for j in 0..t {
                    let want: f64 = (0..s).map(|a| u[c * s + a] * xv(i, a, j)).sum();
                    let got = zv[i * k * t + j * k + c];
                    assert!(
                        (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                        "{got} {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn views_whose_columns_are_not_contiguous_are_refused() {
        let x = vec![1.0; 12];
        let a = MatRef::from_column_major_slice(&x, 6, 2).transpose();
        assert!(Stacked::new(a, 2, 3, 2).is_err());
        assert!(Stacked::new(MatRef::from_column_major_slice(&x, 2, 6), 2, 3, 2).is_ok());
        assert!(Stacked::new(MatRef::from_column_major_slice(&x, 2, 6), 2, 2, 2).is_err());
    }
}
