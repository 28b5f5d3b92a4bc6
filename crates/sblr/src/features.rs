//! The reduced features of the binary solver: [`ReducedFeatures`], what one iteration of
//! Alg. 1 / Alg. 2 needs from the data, and [`LocalFeatures`], its implementation over any
//! [`DataPasses`] with the features in memory.
//!
//! With `V` fixed the `(U, b)` block's features are `Z_u[:, i] = vec(X_i V)` (`s r x n`),
//! with `U` fixed the `(V, b)` block's are `Z_v[:, i] = vec(U^T X_i)` (`r t x n`). The
//! solver asks for them to be recomputed once per block and iteration
//! ([`ReducedFeatures::refresh`], one pass over the data), then works on them only through
//! the two products of the block's [`Features`] (`z^T w` and `z c`).
//! [`LocalFeatures`] keeps them in memory beside the source of the samples (a data set
//! in memory, or a `.npy` file streamed in blocks); the Python binding's implementation
//! keeps each chunk's features on the worker that holds the chunk
//! ([`crate::distributed`]).

use bl_core::iteration::Pool;
use bl_core::linalg::LinearOperator;
use faer::MatRef;

use crate::block::Features;
use crate::error::{Result, check_rank};
use crate::passes::DataPasses;

/// Which block's features: `U`'s (`Z_u`, from `V`) or `V`'s (`Z_v`, from `U`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `Z_u[:, i] = vec(X_i V)`, `s r` features, recomputed from `V^T` (`r x t`
    /// column-major).
    U,
    /// `Z_v[:, i] = vec(U^T X_i)`, `r t` features, recomputed from `U` (`s x r`
    /// column-major).
    V,
}

/// What the binary solver ([`crate::bilinear::BinarySolverOn`]) needs from the data: `n`
/// samples of `s x t` at rank `r`, the two blocks' reduced features and the weighted mean
/// of the spectral starts.
pub trait ReducedFeatures {
    /// `(s, t)`.
    fn sample_shape(&self) -> (usize, usize);

    /// `n`.
    fn n_samples(&self) -> usize;

    /// The rank `r` the features are built for.
    fn rank(&self) -> usize;

    /// Recomputes the features of `side` from the other factor: `w = V^T` (`r x t`
    /// column-major) for [`Side::U`], `w = U` (`s x r` column-major) for [`Side::V`]. One
    /// pass over the samples.
    ///
    /// # Errors
    /// The source's (a read that fails, a non-finite entry, a lost worker).
    fn refresh(&mut self, side: Side, w: &[f64]) -> Result<()>;

    /// The features of `side` as of the last [`refresh`](Self::refresh): `s r x n` or
    /// `r t x n`.
    fn features(&self, side: Side) -> Features<'_>;

    /// [`refresh`](Self::refresh), then `out = z^T x` on the new features (`x`: the
    /// block's variable without intercept, `s r` or `r t` values; `out`: `n` values): what
    /// the solver does at the start of each block. The provided method does exactly that;
    /// features held elsewhere do both in one exchange ([`crate::distributed`]).
    ///
    /// # Errors
    /// As [`refresh`](Self::refresh).
    fn refresh_and_score(
        &mut self,
        side: Side,
        w: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        self.refresh(side, w)?;
        self.features(side).apply_transpose(x, out);
        Ok(())
    }

    /// `(1/n) sum_i w_i X_i` (`s x t` column-major), one pass over the samples.
    ///
    /// # Errors
    /// The source's.
    fn weighted_mean(&mut self, weights: &[f64]) -> Result<Vec<f64>>;
}

/// The reduced features in memory (`O((s + t) r n)` values) beside any source of samples,
/// the passes run on a pool of the params' `threads`.
#[derive(Debug)]
pub struct LocalFeatures<P> {
    passes: P,
    threads: Pool,
    s: usize,
    t: usize,
    n: usize,
    r: usize,
    zu: Vec<f64>,
    zv: Vec<f64>,
}

impl<P: DataPasses> LocalFeatures<P> {
    /// Buffers for the features of rank `r` of `passes`' samples, the passes run on
    /// `threads` threads (`None`: rayon's global pool).
    ///
    /// # Errors
    /// [`SblrError::InvalidRank`](crate::SblrError::InvalidRank) for a rank outside
    /// `1..=min(s, t)`; `BlError::InvalidParameter` (as `SblrError::Core`) for a bad
    /// thread count or buffers above [`bl_core::limits::MAX_ELEMENTS`] values (nothing is
    /// allocated then); `BlError::Numerical` when the thread pool cannot be built.
    pub fn new(passes: P, rank: usize, threads: Option<usize>) -> Result<Self> {
        let (s, t) = passes.sample_shape();
        let n = passes.n_samples();
        check_rank(rank, s, t)?;
        Ok(Self {
            threads: Pool::new(threads)?,
            zu: bl_core::limits::try_zeroed("reduced features: s x rank x n", &[s, rank, n])?,
            zv: bl_core::limits::try_zeroed("reduced features: rank x t x n", &[rank, t, n])?,
            passes,
            s,
            t,
            n,
            r: rank,
        })
    }

    /// The source of the samples.
    pub fn passes(&self) -> &P {
        &self.passes
    }

    /// The features of `side` as a matrix (`s r x n` or `r t x n`).
    #[must_use]
    pub fn matrix(&self, side: Side) -> MatRef<'_, f64> {
        match side {
            Side::U => MatRef::from_column_major_slice(&self.zu, self.s * self.r, self.n),
            Side::V => MatRef::from_column_major_slice(&self.zv, self.r * self.t, self.n),
        }
    }

    /// Bytes held by the two feature buffers.
    #[must_use]
    pub fn bytes(&self) -> usize {
        (self.zu.len() + self.zv.len()) * size_of::<f64>()
    }
}

impl<P: DataPasses> ReducedFeatures for LocalFeatures<P> {
    fn sample_shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }

    fn n_samples(&self) -> usize {
        self.n
    }

    fn rank(&self) -> usize {
        self.r
    }

    fn refresh(&mut self, side: Side, w: &[f64]) -> Result<()> {
        let k = self.r;
        match side {
            Side::U => {
                bl_core::error::ensure_len("refresh: V^T", k * self.t, w.len())?;
                self.passes.times_v(w, k, &mut self.zu, &self.threads)
            }
            Side::V => {
                bl_core::error::ensure_len("refresh: U", self.s * k, w.len())?;
                self.passes.u_times(w, k, &mut self.zv, &self.threads)
            }
        }
    }

    fn features(&self, side: Side) -> Features<'_> {
        Features::Matrix(self.matrix(side))
    }

    fn weighted_mean(&mut self, weights: &[f64]) -> Result<Vec<f64>> {
        let (passes, threads) = (&self.passes, &self.threads);
        weighted_mean_of((self.s, self.t), self.n, weights, |m| {
            passes.add_weighted_sum(weights, m, threads)
        })
    }
}

/// [`ReducedFeatures::weighted_mean`] of `n` samples of shape `(s, t)`: `sum` adds
/// `sum_i w_i X_i` to the zeroed `s x t` buffer it is given, which is then divided by `n`.
///
/// # Errors
/// `BlError::ShapeMismatch` (as `SblrError::Core`) for `weights` of a length other than
/// `n`; a buffer too large; `sum`'s.
pub(crate) fn weighted_mean_of(
    (s, t): (usize, usize),
    n: usize,
    weights: &[f64],
    sum: impl FnOnce(&mut [f64]) -> Result<()>,
) -> Result<Vec<f64>> {
    bl_core::error::ensure_len("weighted_mean: weights", n, weights.len())?;
    let mut m = bl_core::limits::try_zeroed("weighted mean: s x t", &[s, t])?;
    sum(&mut m)?;
    let scale = 1.0 / n as f64;
    m.iter_mut().for_each(|v| *v *= scale);
    Ok(m)
}
