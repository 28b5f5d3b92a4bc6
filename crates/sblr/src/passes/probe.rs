//! `SamplePasses`: the two data passes over a data set, for the speed probes of
//! `examples/` (cargo feature `probes`; not part of the stable API).

use bl_core::data::Element;
use bl_core::error::build::shape_mismatch;

use std::sync::Arc;

use super::{Pass, Pool, Stacked, pool};
use crate::error::Result;

/// The two data passes over a data set on a thread pool of their own: the products every
/// Alg. 2 iteration computes, for probes of their speed (cargo feature `probes`).
#[derive(Debug, Clone)]
pub struct SamplePasses<'a, T> {
    data: Stacked<'a, T>,
    threads: Arc<Pool>,
}

impl<'a, T: Element> SamplePasses<'a, T> {
    /// The passes over `data` on `threads` threads (`None`: rayon's global pool).
    ///
    /// # Errors
    /// `BlError::InvalidParameter` (as `SblrError::Core`) for `Some(0)` or more than
    /// [`super::MAX_THREADS`] threads; `BlError::Numerical` for a pool that cannot be built
    /// (a `MatrixDataset` always holds samples, so its view is never refused).
    pub fn new(data: &'a bl_core::data::MatrixDataset<T>, threads: Option<usize>) -> Result<Self> {
        let threads = Arc::new(pool(threads)?);
        let (s, t) = data.shape();
        Ok(Self {
            data: Stacked::new(data.stacked(), s, t, data.n_samples())?,
            threads,
        })
    }

    /// Pass 1: `out[i] = X_i V` (`s x k` column-major, `s k` values per sample, samples one
    /// after the other), with `vt = V^T` stored `k x t` column-major.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` for `k = 0`; `BlError::ShapeMismatch` when
    /// `vt.len() != k t` or `out.len() != s k n`.
    pub fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64]) -> Result<()> {
        self.checked(Pass::TimesV, vt, k, out)
    }

    /// Pass 2: `out[i] = U^T X_i` (`k x t` column-major, `k t` values per sample, samples
    /// one after the other), with `u` stored `s x k` column-major.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` for `k = 0`; `BlError::ShapeMismatch` when
    /// `u.len() != s k` or `out.len() != k t n`.
    pub fn u_times(&self, u: &[f64], k: usize, out: &mut [f64]) -> Result<()> {
        self.checked(Pass::UTimes, u, k, out)
    }

    /// `pass` after checking `k` and the lengths of `w` and `out`.
    fn checked(&self, pass: Pass, w: &[f64], k: usize, out: &mut [f64]) -> Result<()> {
        let Stacked { s, t, n, .. } = self.data;
        bl_core::params::at_least("k", k, 1)?;
        let (w_context, w_dims, out_context, out_dims) = match pass {
            Pass::TimesV => (
                "SamplePasses::times_v: vt",
                &[k, t][..],
                "SamplePasses::times_v: out",
                &[s, k, n][..],
            ),
            Pass::UTimes => (
                "SamplePasses::u_times: u",
                &[s, k][..],
                "SamplePasses::u_times: out",
                &[k, t, n][..],
            ),
        };
        ensure_product_len(w_context, w_dims, w.len())?;
        ensure_product_len(out_context, out_dims, out.len())?;
        self.data.run(pass, w, k, out, &self.threads);
        Ok(())
    }
}

/// `found == prod(dims)`, an overflowing product counting as a mismatch.
fn ensure_product_len(context: &'static str, dims: &[usize], found: usize) -> Result<()> {
    let expected = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if expected == Some(found) {
        return Ok(());
    }
    let shape: Vec<String> = dims.iter().map(ToString::to_string).collect();
    Err(shape_mismatch(
        context,
        format!("{} values", shape.join(" x ")),
        format!("{found} values"),
    ))
}
