//! Elastic-net logistic blocks and the two block solvers shared by every model here.
//!
//! With one factor fixed, each block of SBLR (Shi, Xu, Baraniuk 2014, eqs. (6a)/(6b)) is
//! an elastic-net logistic regression in the other factor and the intercept:
//!
//! ```text
//! min_{w, b}  (1/n) sum_i log(1 + exp(-y_i (<z_i, w> + b)))  +  l1 |w|_1 + l2/2 ||w||^2
//! ```
//!
//! with features `z_i = vec(X_i V)` for the `U` block and `z_i = vec(U^T X_i)` for the `V`
//! block (the variable is then `vec(V^T)`). The same problem with `z_i = vec(X_i)` is the
//! l1 / elastic-net / L2 logistic regression baseline. A [`LinearBlock`] holds the
//! features as the columns of a `d x n` matrix ([`Features`]: an `f64` matrix, or the
//! baseline's samples read in place in their stored precision, [`Samples`]); the variable
//! is a slice of length `d + 1` whose last entry is the intercept `b` (never penalized).
//!
//! Two solvers act on a block, behind the [`BlockUpdate`] trait:
//!
//! * [`ProxLinearStep`]: one proximal-linear step (Alg. 2, eqs. (7a)-(7d), (9), (10)) with
//!   the step rule (13)-(16): `L^k = max(L_min, L^{k-1} eta^{n^k})`, `n^k >= -1` the
//!   smallest integer for which the sufficient-decrease inequality (14)/(16) holds;
//! * [`ExactBlockSolve`]: FISTA (Beck & Teboulle 2009) with backtracking and gradient
//!   adaptive restart (O'Donoghue & Candès 2015), run until the norm of the gradient mapping
//!   `L ||x^+ - y||` is at most `tol * max(1, first value)` (Alg. 1, the exact block
//!   minimization of (6a)/(6b)).
//!
//! Every function here works in caller-provided buffers: nothing allocates per iteration.

use bl_core::logistic::{log1p_exp, sigmoid};
use bl_core::prox::{elastic_net_penalty, elastic_net_prox_step};
use faer::linalg::matmul::matmul;
use faer::{Accum, ColMut, ColRef, MatRef, Par};

use bl_core::engine::{FitReport, IterationParams, Observer, Progress, run};

use crate::error::{Result, SblrError};
use crate::passes::{Threads, dot};
use bl_core::data::{Element, MatrixDataset};
use bl_core::error::build::{numerical, shape_mismatch};
use rayon::prelude::*;

/// Relative slack in the sufficient-decrease tests (14)/(16) and in FISTA's backtracking.
///
/// The tests compare the loss change `loss(x+) - loss(x)`, computed term by term without
/// cancellation from the change of the decision values `z^T (x+ - x)`
/// ([`LinearBlock::loss_change`]), with the model decrease
/// `<g, x+ - x> + L/2 ||x+ - x||^2`; a trial is accepted when
/// `change <= model + DECREASE_SLACK * (|<g, x+ - x>| + L/2 ||x+ - x||^2)`. The slack only
/// absorbs rounding, so it is a few hundred ulps of the terms compared (not of the loss
/// itself: near a solution both sides are far below the rounding error of the loss, and a
/// slack on the loss scale would accept steps that are too long and make the iterates
/// oscillate).
pub const DECREASE_SLACK: f64 = 256.0 * f64::EPSILON;

/// Most step-size trials in one backtracking search before giving up with
/// [`bl_core::BlError::Numerical`] (as `SblrError::Core`); with `eta = 2` this spans a factor `2^100` in `L`.
pub const MAX_TRIALS: usize = 100;

/// The feature matrix of a [`LinearBlock`]: `d x n`, column `i` the feature vector `z_i`
/// of sample `i`, and the two products every block solver computes with it.
///
/// Implemented for `MatRef<'_, f64>` (the features the bilinear solvers build, multiplied
/// by faer's matrix-vector products) and for [`Samples`] (vectorized samples read in place
/// in their stored precision, `f32` or `f64`, with `f64` accumulation).
pub trait Features {
    /// Number of features `d` (rows).
    fn dim(&self) -> usize;
    /// Number of samples `n` (columns).
    fn n_samples(&self) -> usize;
    /// `out_i = <z_i, w>` for every sample (`w` of length `d`, `out` of length `n`).
    ///
    /// # Panics
    /// For slices of other lengths (as faer's products; the block solvers size them from
    /// [`Features::dim`] and [`Features::n_samples`]).
    fn transpose_times(&self, w: &[f64], out: &mut [f64]);
    /// `out = sum_i c_i z_i` (`c` of length `n`, `out` of length `d`).
    ///
    /// # Panics
    /// For slices of other lengths.
    fn times(&self, c: &[f64], out: &mut [f64]);
}

impl Features for MatRef<'_, f64> {
    fn dim(&self) -> usize {
        self.nrows()
    }

    fn n_samples(&self) -> usize {
        self.ncols()
    }

    fn transpose_times(&self, w: &[f64], out: &mut [f64]) {
        matmul(
            ColMut::from_slice_mut(out).as_mat_mut(),
            Accum::Replace,
            self.transpose(),
            ColRef::from_slice(w).as_mat(),
            1.0,
            Par::Seq,
        );
    }

    fn times(&self, c: &[f64], out: &mut [f64]) {
        matmul(
            ColMut::from_slice_mut(out).as_mat_mut(),
            Accum::Replace,
            *self,
            ColRef::from_slice(c).as_mat(),
            1.0,
            Par::Seq,
        );
    }
}

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
    threads: Threads,
}

/// Below this many stored values (`d n`) a product runs on the calling thread: a rayon
/// split costs more than it saves on small data, and the result is the same either way.
const PARALLEL_MIN_VALUES: usize = 1 << 16;

/// The rows of `out` one task of [`Samples::times`] computes (a multiple of 8 for the SIMD
/// lanes; the rows' results do not depend on it).
const ROWS_PER_TASK: usize = 1 << 14;

impl<T: Element> std::fmt::Debug for Samples<'_, T> {
    /// The shape and storage type, not the values.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Samples")
            .field("d", &self.d)
            .field("n", &self.n)
            .field("storage", &T::NAME)
            .field("threads", &self.threads.count())
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
            threads: Threads::default(),
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
        self.threads = Threads::new(threads)?;
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
        self.threads.install(|| {
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
    /// As [`Samples::new`] (a data set without samples).
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

impl<T: Element> Features for Samples<'_, T> {
    fn dim(&self) -> usize {
        self.d
    }

    fn n_samples(&self) -> usize {
        self.n
    }

    fn transpose_times(&self, w: &[f64], out: &mut [f64]) {
        self.product(&w[..self.d], &mut out[..self.n], true);
    }

    fn times(&self, c: &[f64], out: &mut [f64]) {
        self.product(&c[..self.n], &mut out[..self.d], false);
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

/// An elastic-net logistic problem on fixed features: the `d x n` matrix `z` (column `i`
/// is the feature vector of sample `i`), the labels `y_i in {-1, +1}` and the penalties.
///
/// The features are an `f64` matrix by default (what the bilinear solvers build, and what
/// a [`BlockUpdate`] receives); the linear baselines use [`Samples`], the data set's own
/// buffer in its stored precision.
#[derive(Debug, Clone, Copy)]
pub struct LinearBlock<'a, F = MatRef<'a, f64>> {
    /// Features, `d x n`.
    pub z: F,
    /// Labels `±1`, length `n`.
    pub y: &'a [f64],
    /// l1 weight (`mu1` or `nu1`).
    pub l1: f64,
    /// Squared-l2 weight (`mu2` or `nu2`); the penalty is `l2/2 ||w||^2`.
    pub l2: f64,
}

impl<F: Features> LinearBlock<'_, F> {
    /// Number of features `d` (the variable has `d + 1` entries, the last the intercept).
    #[must_use]
    pub fn dim(&self) -> usize {
        self.z.dim()
    }

    /// Number of samples `n`.
    #[must_use]
    pub fn n_samples(&self) -> usize {
        self.z.n_samples()
    }

    /// Decision values `f_i = <z_i, w> + b` of the variable `x = (w, b)` into `out`.
    pub fn scores(&self, x: &[f64], out: &mut [f64]) {
        let d = self.dim();
        let b = x[d];
        self.z.transpose_times(&x[..d], out);
        for v in out.iter_mut() {
            *v += b;
        }
    }

    /// The mean logistic loss `(1/n) sum_i log(1 + exp(-y_i f_i))` of decision values `f`.
    #[must_use]
    pub fn loss(&self, f: &[f64]) -> f64 {
        let n = f.len() as f64;
        f.iter()
            .zip(self.y)
            .map(|(&fi, &yi)| log1p_exp(-yi * fi))
            .sum::<f64>()
            / n
    }

    /// The loss of decision values `f` and `c_i = d loss / d f_i = -y_i w_i / n` with the
    /// weights `w_i = 1 / (1 + exp(y_i f_i))` of eq. (12).
    pub fn loss_and_dscores(&self, f: &[f64], c: &mut [f64]) -> f64 {
        let n = f.len() as f64;
        let mut sum = 0.0;
        for ((ci, &fi), &yi) in c.iter_mut().zip(f).zip(self.y) {
            let m = yi * fi;
            sum += log1p_exp(-m);
            *ci = -yi * sigmoid(-m) / n;
        }
        sum / n
    }

    /// `loss(f0 + df) - loss(f0)` without cancellation, from the decision values `f0` and
    /// their change `df`: each term is `log1p(sigmoid(-m0) * expm1(-y df))` with
    /// `m0 = y f0`, accurate to a few ulps of the difference itself however small `df` is.
    ///
    /// Callers compute `df = z^T (x+ - x)` from the step itself (see [`LinearBlock::scores`]
    /// applied to the difference), never as the difference of two separately rounded
    /// score vectors, whose rounding would swamp the tiny changes near a solution.
    #[must_use]
    pub fn loss_change(&self, f0: &[f64], df: &[f64]) -> f64 {
        let n = f0.len() as f64;
        let mut sum = 0.0;
        for ((&a, &da), &yi) in f0.iter().zip(df).zip(self.y) {
            let m0 = yi * a;
            let d = (sigmoid(-m0) * (-yi * da).exp_m1()).ln_1p();
            sum += if d.is_finite() {
                d
            } else {
                log1p_exp(-(m0 + yi * da)) - log1p_exp(-m0)
            };
        }
        sum / n
    }

    /// Gradient `(z c, sum_i c_i)` of the loss with respect to `(w, b)` into `g` (length
    /// `d + 1`), from `c = d loss / d f`.
    pub fn gradient(&self, c: &[f64], g: &mut [f64]) {
        let d = self.dim();
        let (gw, gb) = g.split_at_mut(d);
        self.z.times(c, gw);
        gb[0] = c.iter().sum();
    }

    /// The penalty `l1 |w|_1 + l2/2 ||w||^2` of `x = (w, b)`.
    #[must_use]
    pub fn penalty(&self, x: &[f64]) -> f64 {
        elastic_net_penalty(&x[..self.dim()], self.l1, self.l2)
    }

    /// The proximal-gradient point `out = prox_{h/L}(x - g/L)` of eq. (10) (closed form
    /// soft thresholding for `w`, a plain gradient step (9) for the intercept).
    ///
    /// # Errors
    /// `BlError` for slices of the wrong length or `lipschitz <= 0`.
    pub fn prox_point(&self, x: &[f64], g: &[f64], lipschitz: f64, out: &mut [f64]) -> Result<()> {
        let d = self.dim();
        elastic_net_prox_step(&x[..d], &g[..d], lipschitz, self.l1, self.l2, &mut out[..d])?;
        out[d] = x[d] - g[d] / lipschitz;
        Ok(())
    }

    /// `dist(0, grad + subdifferential of the penalty)` at `x`, from the loss gradient `g`:
    /// the first-order stationarity residual of the block problem (Euclidean norm over
    /// `w` and `b`).
    #[must_use]
    pub fn stationarity_residual(&self, x: &[f64], g: &[f64]) -> f64 {
        let d = self.dim();
        let mut sum = g[d] * g[d];
        for j in 0..d {
            let r = entry_residual(x[j], g[j], self.l1, self.l2);
            sum += r * r;
        }
        sum.sqrt()
    }
}

/// Distance from 0 to `g + l2 x + l1 * subgradient(|x|)` for one entry.
#[must_use]
pub fn entry_residual(x: f64, g: f64, l1: f64, l2: f64) -> f64 {
    if x > 0.0 {
        (g + l2 * x + l1).abs()
    } else if x < 0.0 {
        (g + l2 * x - l1).abs()
    } else {
        (g.abs() - l1).max(0.0)
    }
}

/// What a block update reports.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct BlockStepInfo {
    /// The accepted `L` (Alg. 2) or the last backtracking `L` (Alg. 1).
    pub lipschitz: f64,
    /// Step-size trials (loss evaluations at a trial point) in this update.
    pub trials: usize,
    /// Inner iterations (1 for a proximal-linear step).
    pub inner_iterations: usize,
    /// Loss at the start of the update.
    pub loss_before: f64,
    /// Loss after the update.
    pub loss_after: f64,
}

/// The state of a block solve: the variable, its decision values and the block's `L`.
///
/// `x` has length `d + 1` (intercept last), `scores` length `n` and must hold the decision
/// values of `x` on entry; both are updated in place.
#[derive(Debug)]
pub struct BlockState<'s> {
    /// The variable `(w, b)`.
    pub x: &'s mut [f64],
    /// Decision values `<z_i, w> + b` of `x`.
    pub scores: &'s mut [f64],
    /// The step parameter carried between iterations (`L^{k-1}` on entry, `L^k` on exit).
    pub lipschitz: &'s mut f64,
}

impl<'s> BlockState<'s> {
    /// The state of the variable `x` with decision values `scores` and step parameter
    /// `lipschitz`.
    pub(crate) fn new(x: &'s mut [f64], scores: &'s mut [f64], lipschitz: &'s mut f64) -> Self {
        Self {
            x,
            scores,
            lipschitz,
        }
    }
}

/// Scratch buffers for block updates, sized once for the largest block.
#[derive(Debug, Clone)]
pub struct BlockWork {
    c: Vec<f64>,
    g: Vec<f64>,
    trial: Vec<f64>,
    trial_scores: Vec<f64>,
    prev: Vec<f64>,
    prev_scores: Vec<f64>,
    y_point: Vec<f64>,
    y_scores: Vec<f64>,
    delta: Vec<f64>,
    start: Vec<f64>,
    start_scores: Vec<f64>,
}

impl BlockWork {
    /// Buffers for blocks of at most `max_dim` features and `n` samples.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` (as `SblrError::Core`) when `max_dim + 1` or `n`
    /// exceeds [`bl_core::limits::MAX_ELEMENTS`] or the buffers cannot be allocated
    /// (nothing is allocated then).
    pub fn new(max_dim: usize, n: usize) -> Result<Self> {
        let d1 = max_dim.saturating_add(1);
        bl_core::limits::buffer_len("BlockWork: max_dim + 1", &[d1])?;
        bl_core::limits::buffer_len("BlockWork: n", &[n])?;
        let features = || bl_core::limits::try_zeroed::<f64>("BlockWork: max_dim + 1", &[d1]);
        let samples = || bl_core::limits::try_zeroed::<f64>("BlockWork: n", &[n]);
        Ok(Self {
            c: samples()?,
            g: features()?,
            trial: features()?,
            trial_scores: samples()?,
            prev: features()?,
            prev_scores: samples()?,
            y_point: features()?,
            y_scores: samples()?,
            delta: features()?,
            start: features()?,
            start_scores: samples()?,
        })
    }

    /// The loss gradient at the last point where one was computed (length `d + 1`).
    #[must_use]
    pub fn last_gradient(&self, d: usize) -> &[f64] {
        &self.g[..d + 1]
    }
}

/// One way of updating a block: the plug-in point of the SBLR solvers.
///
/// The built-in implementations are [`ProxLinearStep`] (Alg. 2) and [`ExactBlockSolve`]
/// (Alg. 1), chosen by [`crate::Solver`]; a user's implementation is passed with
/// [`crate::SblrParams::block_update`] and runs through the normal `fit`, which then
/// returns a [`crate::FittedSblr`]. Implementations must never increase the block
/// objective `loss + penalty`, must leave `state.scores` equal to the decision values of
/// `state.x`, and repeated updates must reach the block minimizer:
/// [`crate::conformance::check_block_update`] checks all three.
pub trait BlockUpdate {
    /// Updates `state` for `block`, using `work` as scratch.
    ///
    /// # Errors
    /// [`bl_core::BlError::Numerical`] (as `SblrError::Core`) when no acceptable step is found or a value is not finite.
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> Result<BlockStepInfo>;
}

/// Alg. 2's block update: one proximal-linear step with the step rule (13)-(16).
///
/// With `L^{k-1}` in `state.lipschitz`, tries `L = max(l_min, L^{k-1} eta^m)` for
/// `m = -1, 0, 1, ...` and accepts the first `L` for which
/// `loss(x+) <= loss(x) + <g, x+ - x> + L/2 ||x+ - x||^2` (eq. (14), resp. (16)), up to
/// [`DECREASE_SLACK`]. The intercept takes its gradient step (9) with the same `L`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProxLinearStep {
    /// Lower bound `L_min > 0` of the step parameter.
    pub l_min: f64,
    /// Growth factor `eta > 1`.
    pub eta: f64,
}

impl BlockUpdate for ProxLinearStep {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> Result<BlockStepInfo> {
        let d = block.dim();
        let n = block.n_samples();
        let loss0 = block.loss_and_dscores(state.scores, &mut work.c[..n]);
        block.gradient(&work.c[..n], &mut work.g[..d + 1]);
        let mut trials = 0;
        let rule = Trials::StepRule {
            previous: *state.lipschitz,
            l_min: self.l_min,
            eta: self.eta,
        };
        let buffers = Buffers {
            trial: &mut work.trial[..d + 1],
            delta: &mut work.delta[..d + 1],
            dscores: &mut work.trial_scores[..n],
        };
        let Some((l, _, _)) = backtrack(
            block,
            state.x,
            state.scores,
            &work.g[..d + 1],
            rule,
            buffers,
            &mut trials,
        )?
        else {
            return Err(numerical(
                "ProxLinearStep",
                format!(
                    "no step size satisfied the sufficient-decrease test (14)/(16) after \
                     {trials} trials (from L = {}); check the data for huge values",
                    *state.lipschitz
                ),
            ));
        };
        state.x.copy_from_slice(&work.trial[..d + 1]);
        for (f, df) in state.scores.iter_mut().zip(&work.trial_scores[..n]) {
            *f += df;
        }
        let loss1 = block.loss(state.scores);
        *state.lipschitz = l;
        Ok(BlockStepInfo {
            lipschitz: l,
            trials,
            inner_iterations: 1,
            loss_before: loss0,
            loss_after: loss1,
        })
    }
}

/// Alg. 1's block update: minimize the block problem by FISTA with backtracking and
/// gradient adaptive restart, to a tight tolerance.
///
/// Stops when the gradient-mapping norm `L ||x^+ - y||` falls to
/// `tol * max(1, its first value)` or after `max_iter` iterations. Starts from the current
/// `state.x` (warm start) and from `L = max(l_min, state.lipschitz / eta)`; `L` only grows
/// within one solve. Each iteration costs one product with `z` for the gradient and one
/// per backtracking trial (the decision values are updated by `z^T (x+ - y)`, and those of
/// the extrapolated point combined from the last two iterates, since they are linear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactBlockSolve {
    /// Lower bound of the step parameter.
    pub l_min: f64,
    /// Backtracking growth factor `> 1`.
    pub eta: f64,
    /// Relative tolerance on the gradient-mapping norm.
    pub tol: f64,
    /// Iteration budget.
    pub max_iter: usize,
}

impl ExactBlockSolve {
    /// The block solve of [`BlockUpdate::update`], its FISTA iterations run by the engine
    /// (`bl_core::engine::run`: change measure `L ||x^+ - y|| / max(1, first value)`
    /// against `tol`, budget `max_iter`) and shown to `observers`; returns the engine's
    /// report beside the step information.
    ///
    /// # Errors
    /// `BlError::Numerical` when backtracking finds no step.
    pub fn solve<F: Features>(
        &self,
        block: &LinearBlock<'_, F>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
        observers: &mut [&mut dyn Observer],
    ) -> Result<(BlockStepInfo, FitReport)> {
        let d = block.dim();
        let n = block.n_samples();
        let d1 = d + 1;
        let loss_start = block.loss(state.scores);
        let obj_start = loss_start + block.penalty(state.x);
        let mut l = (self.l_min).max(*state.lipschitz / self.eta);
        // x = state.x (current), prev = previous iterate.
        work.prev[..d1].copy_from_slice(state.x);
        work.prev_scores[..n].copy_from_slice(state.scores);
        work.start[..d1].copy_from_slice(state.x);
        work.start_scores[..n].copy_from_slice(state.scores);
        let mut t = 1.0_f64;
        let mut trials = 0;
        let mut first_residual = f64::NAN;
        let rule = IterationParams::new(self.max_iter, self.tol);
        let report = run(&rule, observers, |_| {
            let t_next = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
            let beta = (t - 1.0) / t_next;
            for j in 0..d1 {
                work.y_point[j] = state.x[j] + beta * (state.x[j] - work.prev[j]);
            }
            for i in 0..n {
                work.y_scores[i] = state.scores[i] + beta * (state.scores[i] - work.prev_scores[i]);
            }
            let loss_y = block.loss_and_dscores(&work.y_scores[..n], &mut work.c[..n]);
            block.gradient(&work.c[..n], &mut work.g[..d1]);
            let (trial_l, sq, change) = backtrack(
                block,
                &work.y_point[..d1],
                &work.y_scores[..n],
                &work.g[..d1],
                Trials::Growing {
                    from: l,
                    eta: self.eta,
                },
                Buffers {
                    trial: &mut work.trial[..d1],
                    delta: &mut work.delta[..d1],
                    dscores: &mut work.trial_scores[..n],
                },
                &mut trials,
            )?
            .filter(|&(_, _, change)| (loss_y + change).is_finite())
            .ok_or_else(|| {
                numerical::<SblrError>(
                    "ExactBlockSolve",
                    format!(
                        "backtracking found no step (from L = {l}); check the data for huge \
                         values"
                    ),
                )
            })?;
            l = trial_l;
            let loss_trial = loss_y + change;
            for i in 0..n {
                work.trial_scores[i] += work.y_scores[i];
            }
            let residual = l * sq.sqrt();
            if first_residual.is_nan() {
                first_residual = residual;
            }
            // Gradient adaptive restart: momentum is reset when it points uphill,
            // <y - x+, x+ - x> > 0.
            let mut uphill = 0.0;
            for j in 0..d1 {
                uphill += (work.y_point[j] - work.trial[j]) * (work.trial[j] - state.x[j]);
            }
            work.prev[..d1].copy_from_slice(state.x);
            work.prev_scores[..n].copy_from_slice(state.scores);
            state.x.copy_from_slice(&work.trial[..d1]);
            state.scores.copy_from_slice(&work.trial_scores[..n]);
            t = if uphill > 0.0 { 1.0 } else { t_next };
            let objective = loss_trial + block.penalty(state.x);
            Ok::<_, SblrError>(
                Progress::new(objective, residual / first_residual.max(1.0)).with("lipschitz", l),
            )
        })?;
        let mut loss_x = block.loss(state.scores);
        // FISTA is not monotone: never return a point worse than the start (this can only
        // happen when the iteration budget ends the solve early).
        if loss_x + block.penalty(state.x) > obj_start {
            state.x.copy_from_slice(&work.start[..d1]);
            state.scores.copy_from_slice(&work.start_scores[..n]);
            loss_x = loss_start;
        }
        *state.lipschitz = l;
        let info = BlockStepInfo {
            lipschitz: l,
            trials,
            inner_iterations: report.iterations,
            loss_before: loss_start,
            loss_after: loss_x,
        };
        Ok((info, report))
    }
}

impl BlockUpdate for ExactBlockSolve {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> Result<BlockStepInfo> {
        self.solve(block, state, work, &mut [])
            .map(|(info, _)| info)
    }
}

/// Which step parameters a backtracking search tries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Trials {
    /// The step rule (13)/(15): `max(l_min, previous eta^m)` for `m = -1, 0, 1, ...`
    /// (repeated values skipped).
    StepRule {
        /// `L^{k-1}`.
        previous: f64,
        /// `L_min`.
        l_min: f64,
        /// Growth factor.
        eta: f64,
    },
    /// `from, from eta, from eta^2, ...` (FISTA's backtracking).
    Growing {
        /// The first `L`.
        from: f64,
        /// Growth factor.
        eta: f64,
    },
}

impl Trials {
    /// How many values are tried at most: `m = -1 ..= MAX_TRIALS - 1` for the step rule,
    /// [`MAX_TRIALS`] for FISTA.
    fn limit(self) -> usize {
        match self {
            Self::StepRule { .. } => MAX_TRIALS + 1,
            Self::Growing { .. } => MAX_TRIALS,
        }
    }

    /// The `k`-th (0-based) step parameter, given the previous one `last` (FISTA's values
    /// are products of the previous one and `eta`).
    fn nth(self, k: usize, last: f64) -> f64 {
        match self {
            Self::StepRule {
                previous,
                l_min,
                eta,
            } => l_min.max(previous * eta.powi(k as i32 - 1)),
            Self::Growing { from, eta } => {
                if k == 0 {
                    from
                } else {
                    last * eta
                }
            }
        }
    }
}

/// A block problem a backtracking proximal-gradient step can act on: the variable is
/// `(w, intercepts)`, the decision values are linear in it.
pub(crate) trait ProxBlock {
    /// `out = prox_{h/L}(x - g/L)` (soft thresholding on `w`, a gradient step on the
    /// intercepts).
    fn prox_point(&self, x: &[f64], g: &[f64], lipschitz: f64, out: &mut [f64]) -> Result<()>;
    /// The change of the decision values for a change `delta` of the variable.
    fn score_change(&self, delta: &[f64], out: &mut [f64]);
    /// `loss(x + delta) - loss(x)` from `base` (what the block keeps of `x`: its decision
    /// values or probabilities) and the change of the decision values.
    fn loss_change(&self, base: &[f64], dscores: &[f64]) -> f64;
}

impl<F: Features> ProxBlock for LinearBlock<'_, F> {
    fn prox_point(&self, x: &[f64], g: &[f64], lipschitz: f64, out: &mut [f64]) -> Result<()> {
        LinearBlock::prox_point(self, x, g, lipschitz, out)
    }
    fn score_change(&self, delta: &[f64], out: &mut [f64]) {
        self.scores(delta, out);
    }
    fn loss_change(&self, base: &[f64], dscores: &[f64]) -> f64 {
        LinearBlock::loss_change(self, base, dscores)
    }
}

/// Scratch of one backtracking search (lengths: the variable's, the variable's, the
/// decision values').
pub(crate) struct Buffers<'w> {
    /// The trial point `prox(x - g / L)`.
    pub(crate) trial: &'w mut [f64],
    /// `trial - x`.
    pub(crate) delta: &'w mut [f64],
    /// On success, the change of the decision values from `x` to the trial point.
    pub(crate) dscores: &'w mut [f64],
}

/// The backtracking proximal-gradient step shared by Alg. 1 (FISTA), Alg. 2 and the
/// multinomial model (Alg. 3): from `x` (kept by the block as `base`), loss gradient `g`,
/// tries `L` from `trials` until the sufficient-decrease test
/// `loss(x+) - loss(x) <= <g, x+ - x> + L/2 ||x+ - x||^2` holds (up to
/// [`DECREASE_SLACK`]), `x+ = prox_{h/L}(x - g/L)`.
///
/// Returns `(L, ||x+ - x||^2, loss(x+) - loss(x))` with `x+` in `buffers.trial` and the
/// change of the decision values in `buffers.dscores`, or `Ok(None)` when no trial passes
/// (budget spent, or a NaN loss change). `count` is increased by the number of trials.
///
/// # Errors
/// The prox step's (a non-positive or non-finite `L`).
pub(crate) fn backtrack<B: ProxBlock + ?Sized>(
    block: &B,
    x: &[f64],
    base: &[f64],
    g: &[f64],
    trials: Trials,
    buffers: Buffers<'_>,
    count: &mut usize,
) -> Result<Option<(f64, f64, f64)>> {
    let mut last_l = f64::NAN;
    for k in 0..trials.limit() {
        let l = trials.nth(k, last_l);
        if l == last_l {
            continue;
        }
        last_l = l;
        *count += 1;
        block.prox_point(x, g, l, buffers.trial)?;
        let (mut lin, mut sq) = (0.0, 0.0);
        for ((dj, &tj), (&xj, &gj)) in buffers
            .delta
            .iter_mut()
            .zip(buffers.trial.iter())
            .zip(x.iter().zip(g))
        {
            *dj = tj - xj;
            lin += gj * *dj;
            sq += *dj * *dj;
        }
        block.score_change(buffers.delta, buffers.dscores);
        let change = block.loss_change(base, buffers.dscores);
        if change <= lin + 0.5 * l * sq + DECREASE_SLACK * (lin.abs() + 0.5 * l * sq) {
            return Ok(Some((l, sq, change)));
        }
        if change.is_nan() {
            return Ok(None);
        }
    }
    Ok(None)
}
