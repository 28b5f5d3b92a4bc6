//! [`Samples`]: the vectorized samples of a data set read in place, in their stored
//! precision, and the two products of the linear baseline over them.

use bl_core::data::{Element, MatrixDataset};
use bl_core::error::build::shape_mismatch;
use bl_core::linalg::LinearOperator;
use rayon::prelude::*;

use std::sync::Arc;

use super::{Pool, dot, pool};
use crate::error::Result;

/// Vectorized samples read in place: the `d x n` column-major buffer of `n` samples of
/// `d` entries each (`vec(X_i)` one after the other, as [`MatrixDataset::as_slice`] holds
/// them), in their stored precision.
///
/// Both products widen each entry to `f64` as they read it and accumulate in `f64`, in an
/// order that does not depend on `T`: since widening `f32` to `f64` is exact, the products
/// on `f32` samples are bit-identical to those on an `f64` copy of them, and nothing of the
/// size of the data is allocated. The loops run through `pulp::Arch::dispatch` (compiled
/// for the widest vector instructions the CPU has, detected at run time), with separate
/// multiplies and adds in a fixed order, so the results are the same on every CPU.
///
/// [`MatrixDataset::as_slice`]: bl_core::data::MatrixDataset::as_slice
#[derive(Clone)]
pub struct Samples<'a, T> {
    data: &'a [T],
    d: usize,
    n: usize,
    /// The thread setting (`None`: rayon's global pool).
    threads: Option<usize>,
    pool: Arc<Pool>,
}

/// Below this many stored values (`d n`) a product runs on the calling thread: a rayon
/// split costs more than it saves on small data, and the result is the same either way.
const PARALLEL_MIN_VALUES: usize = 1 << 16;

/// The rows of `out` one task of [`Samples::apply`](LinearOperator::apply) computes (a multiple of 8 for the SIMD
/// lanes; the rows' results do not depend on it).
const ROWS_PER_TASK: usize = 1 << 14;

impl<T: Element> std::fmt::Debug for Samples<'_, T> {
    /// The shape and storage type, not the values.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Samples")
            .field("d", &self.d)
            .field("n", &self.n)
            .field("storage", &T::NAME)
            .field("threads", &self.threads)
            .finish()
    }
}

impl<'a, T: Element> Samples<'a, T> {
    /// The `d x n` column-major view of `data`.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` (as `SblrError::Core`) for `d = 0` or `n = 0`;
    /// `BlError::ShapeMismatch` when `data.len() != d n`.
    pub fn new(data: &'a [T], d: usize, n: usize) -> Result<Self> {
        bl_core::params::at_least("d", d, 1)?;
        bl_core::params::at_least("n", n, 1)?;
        if d.checked_mul(n) != Some(data.len()) {
            return Err(shape_mismatch(
                "Samples::new: data",
                format!("d x n = {d} x {n} values"),
                format!("{} values", data.len()),
            ));
        }
        Ok(Self {
            data,
            d,
            n,
            threads: None,
            pool: Arc::new(pool(None)?),
        })
    }

    /// The same samples, with the products split over `threads` threads (`None`: rayon's
    /// global pool, the default). `z^T w` is split over samples and `z c` over rows; every
    /// value is computed by one thread in the same order, so the products are
    /// bit-identical for any number of threads. Data of fewer than 2^16 values is not split.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` for `Some(0)` or more than
    /// [`crate::passes::MAX_THREADS`]; `BlError::Numerical` when the pool cannot be built.
    pub fn with_threads(mut self, threads: Option<usize>) -> Result<Self> {
        self.pool = Arc::new(pool(threads)?);
        self.threads = threads;
        Ok(self)
    }

    /// `out = z^T input` (`transpose`) or `out = z input`, split over the threads when
    /// the data is large: one sample per task for `z^T w`, [`ROWS_PER_TASK`] rows per task
    /// for `z c`.
    fn product(&self, input: &[f64], out: &mut [f64], transpose: bool) {
        let run = |first: usize, out: &mut [f64]| {
            pulp::Arch::new().dispatch(Product {
                z: self,
                input,
                first,
                out,
                transpose,
            });
        };
        if !self.parallel() {
            return run(0, out);
        }
        let per_task = if transpose { 1 } else { ROWS_PER_TASK };
        self.pool.install(|| {
            out.par_chunks_mut(per_task)
                .enumerate()
                .for_each(|(k, part)| run(k * per_task, part));
        });
    }

    /// Whether the products are split over the threads.
    fn parallel(&self) -> bool {
        self.d * self.n >= PARALLEL_MIN_VALUES
    }

    /// The samples of `data`, vectorized (`d = s t`), without a copy.
    ///
    /// # Errors
    /// Those of [`Samples::new`], which a `MatrixDataset` (never empty, `s, t >= 1`)
    /// cannot trigger.
    pub fn of(data: &'a MatrixDataset<T>) -> Result<Self> {
        let (s, t) = data.shape();
        Self::new(data.as_slice(), s * t, data.n_samples())
    }

    /// Sample `i`'s `d` entries.
    #[inline(always)]
    fn column(&self, i: usize) -> &'a [T] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// `out_k = <z_{first + k}, w>`, one [`dot`] per sample. (Two or four samples per
    /// sweep of `w`, with the same partial sums, were not faster on `f32` samples.)
    #[inline(always)]
    fn dots(&self, w: &[f64], first: usize, out: &mut [f64]) {
        for (k, o) in out.iter_mut().enumerate() {
            *o = dot(self.column(first + k), w);
        }
    }

    /// `out = sum_i c_i z_i`, each entry `((0 + z_0 c_0) + z_1 c_1) + ... + z_{n-1} c_{n-1}`
    /// (sample order). The samples are added four at a time, the partial sum of an entry
    /// held in a register across the four (same order, a quarter of the loads and stores
    /// of `out`); at `d = 250 000` and `10^6` this read `f32` samples in 0.45-0.6 of the
    /// time of one streaming read of the same values as `f64`, against 0.6-0.75 one sample
    /// at a time (and 1.0-1.5 in blocks of 2048-65 536 rows, which read `n` interleaved
    /// streams).
    ///
    /// `out` holds rows `first..first + out.len()`; each row's value does not depend on
    /// how the rows are split.
    #[inline(always)]
    fn weighted_sum(&self, c: &[f64], first: usize, out: &mut [f64]) {
        let rows = first..first + out.len();
        let c = &c[..self.n];
        out.fill(0.0);
        let groups = c.chunks_exact(4);
        let rest = groups.remainder();
        for (g, cg) in groups.enumerate() {
            let i = 4 * g;
            let (z0, z1, z2, z3) = (
                &self.column(i)[rows.clone()],
                &self.column(i + 1)[rows.clone()],
                &self.column(i + 2)[rows.clone()],
                &self.column(i + 3)[rows.clone()],
            );
            let (c0, c1, c2, c3) = (cg[0], cg[1], cg[2], cg[3]);
            for ((((o, &a0), &a1), &a2), &a3) in out.iter_mut().zip(z0).zip(z1).zip(z2).zip(z3) {
                *o = (((*o + a0.to_f64() * c0) + a1.to_f64() * c1) + a2.to_f64() * c2)
                    + a3.to_f64() * c3;
            }
        }
        let first_sample = c.len() - rest.len();
        for (k, &ci) in rest.iter().enumerate() {
            let z = &self.column(first_sample + k)[rows.clone()];
            for (o, &za) in out.iter_mut().zip(z) {
                *o += za.to_f64() * ci;
            }
        }
    }
}

/// The samples as the `d x n` matrix of the linear baseline's block: `apply` is
/// `sum_i c_i vec(X_i)`, `apply_transpose` gives `<vec(X_i), w>` for every sample.
///
/// # Panics
/// For input or output slices shorter than the products read or write.
impl<T: Element> LinearOperator for Samples<'_, T> {
    fn nrows(&self) -> usize {
        self.d
    }

    fn ncols(&self) -> usize {
        self.n
    }

    fn apply(&self, c: &[f64], out: &mut [f64]) {
        self.product(&c[..self.n], &mut out[..self.d], false);
    }

    fn apply_transpose(&self, w: &[f64], out: &mut [f64]) {
        self.product(&w[..self.d], &mut out[..self.n], true);
    }
}

/// One product of [`Samples`], run through `pulp::Arch::dispatch` so that its loops are
/// compiled for the CPU's widest vector instructions and, on x86-64, VEX-encoded (legacy
/// SSE code ran the data passes of `crate::passes` up to 4x slower on threads that had
/// inherited a dirty upper AVX register state; see `docs/measurements/sblr-passes.md`).
struct Product<'s, 'a, T> {
    z: &'s Samples<'a, T>,
    input: &'s [f64],
    /// The first sample (`transpose`) or row (else) of `out`.
    first: usize,
    out: &'s mut [f64],
    transpose: bool,
}

impl<T: Element> pulp::WithSimd for Product<'_, '_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        if self.transpose {
            self.z.dots(self.input, self.first, self.out);
        } else {
            self.z.weighted_sum(self.input, self.first, self.out);
        }
    }
}
