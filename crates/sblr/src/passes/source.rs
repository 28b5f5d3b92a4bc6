//! [`DataPasses`]: the data passes of the bilinear solver over any source of samples,
//! and [`InMemory`], the samples of a data set in memory.

use bl_core::data::{Element, MatrixDataset};
use bl_core::iteration::Pool;
use faer::MatRef;
use std::sync::Arc;

use super::Stacked;
use crate::error::Result;

/// The passes over the samples that an iteration of the binary solver needs: `n` samples
/// `X_i` of shape `s x t`, read once per pass.
///
/// With factors of `k` columns:
///
/// - [`times_v`](Self::times_v): `out[i] = X_i V` (`s x k` column-major, `s k` values per
///   sample, samples in order) from `vt = V^T` stored `k x t` column-major;
/// - [`u_times`](Self::u_times): `out[i] = U^T X_i` (`k x t` column-major, `k t` values
///   per sample) from `u = U` stored `s x k` column-major;
/// - [`add_weighted_sum`](Self::add_weighted_sum): `acc += sum_i w_i X_i` (`s x t`
///   column-major), the spectral starts' weighted mean before its scaling.
///
/// Implemented by [`InMemory`] (a data set's buffer) and by
/// [`NpySource`](crate::stream::NpySource) (a `.npy` file read in blocks within a memory
/// budget). The built-ins compute each sample's products with the same kernel in the same
/// order, and add the samples of the weighted sum one after the other in sample order,
/// so every implementation here gives bit-identical results. The methods take `&self`: a
/// source that keeps buffers or a file position holds them behind a lock.
pub trait DataPasses: Sync {
    /// `(s, t)`.
    fn sample_shape(&self) -> (usize, usize);

    /// `n`.
    fn n_samples(&self) -> usize;

    /// Pass 1 on the threads of `threads`.
    ///
    /// # Errors
    /// The source's (a read that fails, a non-finite entry).
    fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()>;

    /// Pass 2 on the threads of `threads`.
    ///
    /// # Errors
    /// The source's (a read that fails, a non-finite entry).
    fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()>;

    /// `acc += sum_i w_i X_i` over the samples in order (`acc` is `s x t` column-major;
    /// samples with `w_i = 0` are skipped). A source that reads its samples in parallel
    /// reads them on the threads of `threads`; the sum itself is sequential.
    ///
    /// # Errors
    /// The source's (a read that fails, a non-finite entry).
    fn add_weighted_sum(&self, weights: &[f64], acc: &mut [f64], threads: &Pool) -> Result<()>;
}

/// The samples of a data set in memory, read in place (never copied).
#[derive(Debug, Clone, Copy)]
pub struct InMemory<'a, T> {
    pub(crate) stacked: Stacked<'a, T>,
}

impl<'a, T: Element> InMemory<'a, T> {
    /// The samples of `data`.
    ///
    /// # Errors
    /// Those of [`InMemory::from_stacked`], which a `MatrixDataset` (never empty, its
    /// stacked view `s x t n` with contiguous columns) cannot trigger.
    pub fn new(data: &'a MatrixDataset<T>) -> Result<Self> {
        let (s, t) = data.shape();
        Self::from_stacked(data.stacked(), s, t, data.n_samples())
    }

    /// The stacked samples `[X_1 ... X_n]` (`s x t n`, columns contiguous).
    ///
    /// # Errors
    /// `BlError::Empty` (as `SblrError::Core`) for `n = 0`; `BlError::ShapeMismatch` for
    /// another shape; `BlError::InvalidParameter` for a view whose columns are not
    /// contiguous.
    pub fn from_stacked(stacked: MatRef<'a, T>, s: usize, t: usize, n: usize) -> Result<Self> {
        Ok(Self {
            stacked: Stacked::new(stacked, s, t, n)?,
        })
    }
}

/// [`DataPasses`] for pointers to a source (`impl[generics] for Pointer;`): every method
/// forwarded to the source, `(**self)`.
macro_rules! forward_data_passes {
    ($(impl[$($generics:tt)*] for $pointer:ty;)+) => {$(
        impl<$($generics)*> DataPasses for $pointer {
            fn sample_shape(&self) -> (usize, usize) {
                (**self).sample_shape()
            }
            fn n_samples(&self) -> usize {
                (**self).n_samples()
            }
            fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
                (**self).times_v(vt, k, out, threads)
            }
            fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
                (**self).u_times(u, k, out, threads)
            }
            fn add_weighted_sum(
                &self,
                weights: &[f64],
                acc: &mut [f64],
                threads: &Pool,
            ) -> Result<()> {
                (**self).add_weighted_sum(weights, acc, threads)
            }
        }
    )+};
}

forward_data_passes! {
    impl[P: DataPasses + ?Sized] for &P;
    impl[P: DataPasses + Send] for Arc<P>;
}

impl<T: Element> DataPasses for InMemory<'_, T> {
    fn sample_shape(&self) -> (usize, usize) {
        (self.stacked.s, self.stacked.t)
    }

    fn n_samples(&self) -> usize {
        self.stacked.n
    }

    fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
        self.stacked.times_v(vt, k, out, threads);
        Ok(())
    }

    fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
        self.stacked.u_times(u, k, out, threads);
        Ok(())
    }

    fn add_weighted_sum(&self, weights: &[f64], acc: &mut [f64], _: &Pool) -> Result<()> {
        self.stacked.add_weighted_sum(weights, acc);
        Ok(())
    }
}

/// `Ok` when every entry of the samples in `values` (column-major per sample, `s t`
/// values each) is finite, else [`SblrError::NonFiniteSample`](crate::SblrError::NonFiniteSample)
/// for the first offending entry, the sample numbered from `first_sample`.
pub(crate) fn ensure_finite_samples<T: Element>(
    values: &[T],
    s: usize,
    t: usize,
    first_sample: usize,
    origin: impl FnOnce() -> String,
) -> Result<()> {
    // `x * 0` is 0 for a finite `x` and NaN otherwise: a sum in eight lanes without an
    // early exit (vectorized), then the search for the first offending entry only when
    // there is one.
    let mut lanes = [0.0f64; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for l in 0..8 {
            lanes[l] += c[l].to_f64() * 0.0;
        }
    }
    let tail: f64 = rest.iter().map(|v| v.to_f64() * 0.0).sum();
    if (lanes.iter().sum::<f64>() + tail) == 0.0 {
        return Ok(());
    }
    let Some(p) = values.iter().position(|v| !v.to_f64().is_finite()) else {
        return Ok(());
    };
    let st = (s * t).max(1);
    let within = p % st;
    Err(crate::SblrError::NonFiniteSample {
        sample: first_sample + p / st,
        row: within % s.max(1),
        col: within / s.max(1),
        value: values[p].to_f64(),
        origin: origin(),
    })
}
