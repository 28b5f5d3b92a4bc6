//! Fitting on samples spread over the workers of a cluster (e.g. the chunks of a
//! `dask.distributed` array), with the one solver of the crate.
//!
//! The samples are split in chunks along the sample axis, each held by one worker. An
//! iteration of Alg. 1 / Alg. 2 needs from the data only the two passes (refreshing the
//! reduced features `Z_u = [vec(X_i V)]` or `Z_v = [vec(U^T X_i)]`) and, on those
//! features, the products `z^T w` (the decision values, one per sample) and `z c` (the
//! gradient, `sum_i c_i z_i`). So:
//!
//! - **on the workers**, each chunk's samples ([`ChunkSamples`]) keep their reduced
//!   features beside them ([`ChunkFeatures`]): [`ChunkFeatures::refresh`] runs a pass over
//!   the chunk (the same kernels as on one machine), [`ChunkFeatures::scores`] gives the
//!   chunk's `z^T w` (`n_chunk` values) and [`ChunkFeatures::weighted_sum`] its share of
//!   `z c` (`s r` or `r t` values); [`ChunkSamples::weighted_sample_sum`] its share of the
//!   spectral starts' weighted sum (`s t` values);
//! - **on the client**, [`fit_binary`] runs [`BinarySolverOn`] over [`DistributedFeatures`]:
//!   its [`ReducedFeatures`] implementation sends the factor to every chunk to refresh,
//!   and its block features are a [`Features::Operator`] whose products gather the
//!   chunks' results (decision values concatenated in chunk order, partial gradients
//!   summed in chunk order) through [`RemoteChunks`], which the caller implements (the
//!   Python binding: tasks pinned to the worker that holds each chunk). The block updates
//!   (Alg. 2's backtracking prox-linear step, Alg. 1's FISTA) run on the client on vectors
//!   of length `n`, `s r` and `r t`: the same code as on one machine.
//!
//! What travels per iteration: per block, the other factor and the block's variable to
//! every chunk and the decision values back (a refresh and the scores of the current
//! iterate, one exchange: [`RemoteChunks::refresh_and_scores`]), then per product either
//! a vector of length `d` to every chunk and `n` values back (scores), or `n` values out
//! and `d` per chunk back (gradient), with `d = s r` or `r t`. Alg. 2 does, per block, one
//! gradient and one scores product per step-size trial after the refresh.
//!
//! The fitted model is the in-memory fit's up to the order of the sums: `z c` is summed
//! chunk by chunk here, by faer's matrix-vector product on one machine, so the two agree
//! to rounding (the Python tests check the objectives to `1e-10`), not bit for bit.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use bl_core::data::Element;
use bl_core::engine::Observer;
use bl_core::iteration::Pool;
use bl_core::linalg::LinearOperator;
use faer::MatRef;

use crate::bilinear::{BinarySolverOn, check_rank};
use crate::block::Features;
use crate::error::{Result, SblrError};
use crate::features::{LocalFeatures, ReducedFeatures, Side, weighted_mean_of};
use crate::model::{FittedSblr, fit_solver};
use crate::ova::{FittedOneVsAll, assemble};
use crate::params::SblrValidParams;
use crate::passes::{DataPasses, Stacked, ensure_finite_samples};
use bl_core::error::build::{numerical, shape_mismatch};

/// The samples of one chunk, owned, stored column-major per sample as a
/// [`bl_core::data::MatrixDataset`] stores them.
#[derive(Debug, Clone)]
pub struct ChunkSamples<T> {
    s: usize,
    t: usize,
    n: usize,
    data: Vec<T>,
}

impl<T: Element> ChunkSamples<T> {
    /// Chunk `chunk` of samples, given as an `(n, s_found, t_found)` array in C order
    /// (`values[i * s t + a * t + j]` is entry `(a, j)` of sample `i`, as NumPy stores a
    /// stack of matrices) of `f64` or `f32`, whose first sample is sample `first_sample`
    /// of the data; the fit's samples are `s x t`. The values are converted to `T` as
    /// they are transposed: the chunk's own buffer is the only allocation.
    ///
    /// # Errors
    /// As [`ChunkSamples::transposed`], and [`SblrError::NonFiniteSample`] naming the
    /// chunk and the sample (numbered in the whole data) of the first non-finite entry
    /// (after the conversion: an `f64` beyond the `f32` range is infinite in an `f32`
    /// chunk).
    pub fn from_c_order<S: Element>(
        values: &[S],
        dims: (usize, usize, usize),
        shape: (usize, usize),
        chunk: usize,
        first_sample: usize,
    ) -> Result<Self> {
        let samples = Self::transposed(values, dims, shape, chunk)?;
        samples.ensure_finite(chunk, first_sample)?;
        Ok(samples)
    }

    /// [`ChunkSamples::from_c_order`] without the check of the values (for a chunk whose
    /// first sample's index in the data is not known yet, e.g. a chunk of a dask array of
    /// unknown chunk sizes): [`ChunkSamples::ensure_finite`] checks them once it is.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) naming the chunk when its samples
    /// are not `s x t`, when it has no samples, or when `values` does not hold `n` of
    /// them; `BlError::InvalidParameter` (as `SblrError::Core`) for more than
    /// [`bl_core::limits::MAX_ELEMENTS`] values.
    pub fn transposed<S: Element>(
        values: &[S],
        (n, s_found, t_found): (usize, usize, usize),
        (s, t): (usize, usize),
        chunk: usize,
    ) -> Result<Self> {
        if (s_found, t_found) != (s, t) {
            return Err(shape_mismatch(
                "distributed chunk: sample shape",
                format!("samples of {s} x {t} in every chunk"),
                format!("samples of {s_found} x {t_found} in chunk {chunk}"),
            ));
        }
        if n == 0 {
            return Err(shape_mismatch(
                "distributed chunk: samples",
                "at least one sample in every chunk",
                format!("no samples in chunk {chunk}"),
            ));
        }
        if n.checked_mul(s).and_then(|v| v.checked_mul(t)) != Some(values.len()) {
            return Err(shape_mismatch(
                "distributed chunk: values",
                format!("{n} x {s} x {t} values in chunk {chunk}"),
                format!("{} values", values.len()),
            ));
        }
        let mut data = bl_core::limits::try_zeroed("distributed chunk: n x s x t", &[n, s, t])?;
        let len = s * t;
        if len > 0 {
            for (x, out) in values.chunks_exact(len).zip(data.chunks_exact_mut(len)) {
                for a in 0..s {
                    for j in 0..t {
                        out[j * s + a] = T::from_f64(x[a * t + j].to_f64());
                    }
                }
            }
        }
        Ok(Self { s, t, n, data })
    }

    /// `Ok` when every value of the chunk is finite, else
    /// [`SblrError::NonFiniteSample`] naming chunk `chunk` and the sample of the first
    /// non-finite entry, numbered in the whole data (the chunk's first sample is sample
    /// `first_sample`).
    ///
    /// # Errors
    /// [`SblrError::NonFiniteSample`].
    pub fn ensure_finite(&self, chunk: usize, first_sample: usize) -> Result<()> {
        ensure_finite_samples(&self.data, self.s, self.t, first_sample, || {
            format!(" in chunk {chunk}")
        })
    }

    /// Bytes held by the chunk's values.
    #[must_use]
    pub fn nbytes(&self) -> usize {
        self.data.len() * size_of::<T>()
    }

    /// The samples as stacked columns (the shape was checked at construction, so this
    /// does not fail; `Stacked::new` checks it again).
    fn stacked(&self) -> Result<Stacked<'_, T>> {
        let columns = MatRef::from_column_major_slice(&self.data, self.s, self.t * self.n);
        Stacked::new(columns, self.s, self.t, self.n)
    }

    /// Samples in the chunk.
    #[must_use]
    pub fn n_samples(&self) -> usize {
        self.n
    }

    /// `sum_i w_i X_i` over the chunk's samples in order (`s x t` column-major, not
    /// scaled): the chunk's share of the spectral starts' weighted mean.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) for weights of another length.
    pub fn weighted_sample_sum(&self, weights: &[f64]) -> Result<Vec<f64>> {
        bl_core::error::ensure_len("chunk weights", self.n, weights.len())?;
        let mut acc = vec![0.0; self.s * self.t];
        self.stacked()?.add_weighted_sum(weights, &mut acc);
        Ok(acc)
    }
}

impl<T: Element> DataPasses for ChunkSamples<T> {
    fn sample_shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }

    fn n_samples(&self) -> usize {
        self.n
    }

    fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
        self.stacked()?.times_v(vt, k, out, threads);
        Ok(())
    }

    fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
        self.stacked()?.u_times(u, k, out, threads);
        Ok(())
    }

    fn add_weighted_sum(&self, weights: &[f64], acc: &mut [f64], _: &Pool) -> Result<()> {
        self.stacked()?.add_weighted_sum(weights, acc);
        Ok(())
    }
}

/// One chunk's reduced features of one fit (a worker holds one per fit running on its
/// chunk, e.g. one per class of one-vs-all), beside the chunk's samples.
#[derive(Debug)]
pub struct ChunkFeatures<T> {
    features: LocalFeatures<Arc<ChunkSamples<T>>>,
}

impl<T: Element> ChunkFeatures<T> {
    /// Buffers for the features of rank `rank` of `samples`, the passes run on
    /// `threads` threads (`None`: rayon's global pool).
    ///
    /// # Errors
    /// [`SblrError::InvalidRank`]; a bad thread count; buffers too large.
    pub fn new(samples: Arc<ChunkSamples<T>>, rank: usize, threads: Option<usize>) -> Result<Self> {
        Ok(Self {
            features: LocalFeatures::new(samples, rank, threads)?,
        })
    }

    /// The rank.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.features.rank()
    }

    /// Bytes held by the features (`(s + t) r n` `f64` values), the samples not counted.
    #[must_use]
    pub fn nbytes(&self) -> usize {
        self.features.bytes()
    }

    /// Recomputes the chunk's features of `side` from `w` (`V^T`, `r x t`, for
    /// [`Side::U`]; `U`, `s x r`, for [`Side::V`]; column-major).
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) for `w` of another length.
    pub fn refresh(&mut self, side: Side, w: &[f64]) -> Result<()> {
        self.features.refresh(side, w)
    }

    /// `z^T w` over the chunk: the decision values without intercept of the chunk's
    /// samples for the block variable `w` (`d` values: `s r` for [`Side::U`], `r t` for
    /// [`Side::V`]).
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` for `w` of another length.
    pub fn scores(&self, side: Side, w: &[f64]) -> Result<Vec<f64>> {
        let z = self.features.matrix(side);
        bl_core::error::ensure_len("chunk scores: w", z.nrows(), w.len())?;
        let mut out = vec![0.0; z.ncols()];
        z.apply_transpose(w, &mut out);
        Ok(out)
    }

    /// `z c = sum_i c_i z_i` over the chunk (`d` values), `c` one value per sample of the
    /// chunk: its share of a block gradient.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` for `c` of another length.
    pub fn weighted_sum(&self, side: Side, c: &[f64]) -> Result<Vec<f64>> {
        let z = self.features.matrix(side);
        bl_core::error::ensure_len("chunk weighted sum: c", z.ncols(), c.len())?;
        let mut out = vec![0.0; z.nrows()];
        z.apply(c, &mut out);
        Ok(out)
    }
}

/// What the client needs from the chunks (implemented by the caller: the Python binding
/// sends each call to the workers). Chunks are in sample order; every method covers all of
/// them.
pub trait RemoteChunks {
    /// `(s, t)`.
    fn sample_shape(&self) -> (usize, usize);

    /// Samples in all chunks.
    fn n_samples(&self) -> usize;

    /// [`ChunkFeatures::refresh`] on every chunk.
    ///
    /// # Errors
    /// Any chunk's, or a failure to reach it.
    fn refresh(&self, side: Side, w: &[f64]) -> Result<()>;

    /// [`ChunkFeatures::scores`] of every chunk, concatenated in chunk order into `out`
    /// (`n` values).
    ///
    /// # Errors
    /// Any chunk's, or a failure to reach it.
    fn scores(&self, side: Side, w: &[f64], out: &mut [f64]) -> Result<()>;

    /// The sum over the chunks, in chunk order, of [`ChunkFeatures::weighted_sum`] with
    /// each chunk's slice of `c` (`n` values), into `out` (`d` values).
    ///
    /// # Errors
    /// Any chunk's, or a failure to reach it.
    fn weighted_sum(&self, side: Side, c: &[f64], out: &mut [f64]) -> Result<()>;

    /// [`refresh`](Self::refresh), then [`scores`](Self::scores) of `x` on the new
    /// features: the start of every block. The provided method makes the two calls;
    /// implement it as one exchange with each chunk to save a round per block.
    ///
    /// # Errors
    /// Any chunk's, or a failure to reach it.
    fn refresh_and_scores(&self, side: Side, w: &[f64], x: &[f64], out: &mut [f64]) -> Result<()> {
        self.refresh(side, w)?;
        self.scores(side, x, out)
    }

    /// The sum over the chunks of [`ChunkSamples::weighted_sample_sum`] with each
    /// chunk's slice of `weights`, into `out` (`s t` values).
    ///
    /// # Errors
    /// Any chunk's, or a failure to reach it.
    fn weighted_sample_sum(&self, weights: &[f64], out: &mut [f64]) -> Result<()>;
}

/// The reduced features of samples held in chunks elsewhere, as the solver sees them:
/// refreshes go to every chunk, the block features are operators whose products gather
/// the chunks' results.
///
/// A product cannot return an error ([`LinearOperator`]): a failing one fills its output
/// with NaN (which makes the step fail) and keeps the error, which [`fit_binary`]
/// returns in place of the step's.
pub struct DistributedFeatures<C> {
    chunks: Rc<C>,
    rank: usize,
    failure: Rc<RefCell<Option<SblrError>>>,
    u_op: RemoteOperator<C>,
    v_op: RemoteOperator<C>,
}

impl<C> std::fmt::Debug for DistributedFeatures<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistributedFeatures")
            .field("rank", &self.rank)
            .finish_non_exhaustive()
    }
}

/// One block's features over the chunks.
struct RemoteOperator<C> {
    chunks: Rc<C>,
    side: Side,
    rows: usize,
    cols: usize,
    failure: Rc<RefCell<Option<SblrError>>>,
}

impl<C: RemoteChunks> RemoteOperator<C> {
    fn settle(&self, result: Result<()>, out: &mut [f64]) {
        if let Err(e) = result {
            out.fill(f64::NAN);
            self.failure.borrow_mut().get_or_insert(e);
        }
    }
}

impl<C: RemoteChunks> LinearOperator for RemoteOperator<C> {
    fn nrows(&self) -> usize {
        self.rows
    }
    fn ncols(&self) -> usize {
        self.cols
    }
    fn apply(&self, c: &[f64], out: &mut [f64]) {
        let result = self
            .chunks
            .weighted_sum(self.side, &c[..self.cols], &mut out[..self.rows]);
        self.settle(result, out);
    }
    fn apply_transpose(&self, w: &[f64], out: &mut [f64]) {
        let result = self
            .chunks
            .scores(self.side, &w[..self.rows], &mut out[..self.cols]);
        self.settle(result, out);
    }
}

impl<C: RemoteChunks> DistributedFeatures<C> {
    /// The features of rank `rank` of `chunks`.
    ///
    /// # Errors
    /// [`SblrError::InvalidRank`] for a rank outside `1..=min(s, t)`; `BlError::Empty`
    /// for chunks without samples; `BlError::InvalidParameter` (as `SblrError::Core`) when
    /// `s r`, `r t`, `s t` or `n` exceeds [`bl_core::limits::MAX_ELEMENTS`].
    pub fn new(chunks: C, rank: usize) -> Result<Self> {
        let (s, t) = chunks.sample_shape();
        let n = chunks.n_samples();
        bl_core::error::ensure_nonempty("distributed samples", n)?;
        check_sample_shape(rank, (s, t))?;
        bl_core::limits::buffer_len("distributed samples: n", &[n])?;
        let chunks = Rc::new(chunks);
        let failure = Rc::new(RefCell::new(None));
        let op = |side, rows| RemoteOperator {
            chunks: Rc::clone(&chunks),
            side,
            rows,
            cols: n,
            failure: Rc::clone(&failure),
        };
        Ok(Self {
            u_op: op(Side::U, s * rank),
            v_op: op(Side::V, rank * t),
            chunks,
            rank,
            failure,
        })
    }

    /// The first error of a product since the last call, if any.
    pub fn take_failure(&self) -> Option<SblrError> {
        self.failure.borrow_mut().take()
    }
}

impl<C: RemoteChunks> ReducedFeatures for DistributedFeatures<C> {
    fn sample_shape(&self) -> (usize, usize) {
        self.chunks.sample_shape()
    }

    fn n_samples(&self) -> usize {
        self.chunks.n_samples()
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn refresh(&mut self, side: Side, w: &[f64]) -> Result<()> {
        self.chunks.refresh(side, w)
    }

    fn features(&self, side: Side) -> Features<'_> {
        match side {
            Side::U => Features::Operator(&self.u_op),
            Side::V => Features::Operator(&self.v_op),
        }
    }

    fn refresh_and_score(
        &mut self,
        side: Side,
        w: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        self.chunks.refresh_and_scores(side, w, x, out)
    }

    fn weighted_mean(&mut self, weights: &[f64]) -> Result<Vec<f64>> {
        let chunks = &self.chunks;
        weighted_mean_of(chunks.sample_shape(), chunks.n_samples(), weights, |m| {
            chunks.weighted_sample_sum(weights, m)
        })
    }
}

/// `Ok` when a fit of rank `rank` can run on samples of `s x t`: the checks of
/// [`DistributedFeatures::new`] that need no data, for a caller to make before it builds
/// the chunks.
///
/// # Errors
/// [`SblrError::InvalidRank`] for a rank outside `1..=min(s, t)`;
/// `BlError::InvalidParameter` (as `SblrError::Core`) when `s r`, `r t` or `s t` exceeds
/// [`bl_core::limits::MAX_ELEMENTS`].
pub fn check_sample_shape(rank: usize, (s, t): (usize, usize)) -> Result<()> {
    check_rank(rank, s, t)?;
    // The solver's vectors have s r, r t and s t entries (and n, checked with the chunks):
    // sizes the caller gives, checked before anything is sized from them.
    bl_core::limits::buffer_len("distributed features: s x rank", &[s, rank])?;
    bl_core::limits::buffer_len("distributed features: rank x t", &[rank, t])?;
    bl_core::limits::buffer_len("distributed samples: s x t", &[s, t])?;
    Ok(())
}

/// Fits the binary model with labels `y` (`±1`, one per sample in chunk order) on the
/// samples held by `chunks`: [`BinarySolverOn`] over [`DistributedFeatures`] run by the
/// engine as every fit (observers see every iteration). Class names `["-1", "+1"]`.
///
/// # Errors
/// As the fit in memory (bad labels, rank, parameters, `BlError::Numerical`), and the
/// first error of `chunks` (a chunk that cannot be reached), which takes precedence over
/// the numerical failure it causes.
pub fn fit_binary<C: RemoteChunks>(
    chunks: C,
    y: Vec<f64>,
    params: &SblrValidParams,
    observers: &mut [&mut dyn Observer],
) -> Result<FittedSblr> {
    let features = DistributedFeatures::new(chunks, params.rank())?;
    let failure = Rc::clone(&features.failure);
    let first_failure = || failure.borrow_mut().take();
    let solver = match BinarySolverOn::with_features(features, y, params) {
        Ok(solver) => solver,
        Err(e) => return Err(first_failure().unwrap_or(e)),
    };
    match fit_solver(solver, params, observers) {
        Ok(model) => match first_failure() {
            // A failed product fills NaN, which ends the fit; this is a safety net.
            Some(e) => Err(e),
            None => Ok(model),
        },
        Err(e) => Err(first_failure().unwrap_or(e)),
    }
}

/// The one-vs-all model of binary models fitted class by class (e.g. by [`fit_binary`] in
/// parallel tasks), model `c` for class `c` against the rest, with the classes' names.
///
/// # Errors
/// `BlError::ShapeMismatch` (as `SblrError::Core`) when the number of models is not the
/// number of names or the models' sample shapes differ; `BlError::TooFewClasses` for
/// fewer than two.
pub fn one_vs_all(
    models: Vec<FittedSblr>,
    class_names: Vec<String>,
) -> Result<FittedOneVsAll<FittedSblr>> {
    if models.len() < 2 {
        return Err(bl_core::BlError::TooFewClasses {
            found: models.len(),
        }
        .into());
    }
    bl_core::error::ensure_len("one_vs_all: class names", models.len(), class_names.len())?;
    let shape = models[0].shape();
    for m in &models {
        crate::error::ensure_shape("one_vs_all: sample shape", shape, m.shape())?;
    }
    Ok(assemble(models, class_names, None))
}

/// A failure reaching the chunks, as an error of this crate (for implementations of
/// [`RemoteChunks`] whose own error type is not [`SblrError`]): `BlError::Numerical` with
/// context `"distributed"`.
#[must_use]
pub fn remote_failure(message: impl Into<String>) -> SblrError {
    numerical("distributed", message.into())
}
