//! Linear algebra on faer: Frobenius products, top singular vectors, power iteration for any
//! linear operator, least squares.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::matmul::matmul;
use faer::linalg::solvers::SolveLstsq;
use faer::matrix_free::eigen::{PartialEigenParams, partial_svd, partial_svd_scratch};
use faer::{Accum, Col, ColMut, ColRef, Mat, MatMut, MatRef, Par};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};

use crate::error::{BlError, Result, ensure_len};

/// Largest `m n k` for which [`product`] computes an `m x k` by `k x n` product with a
/// plain loop instead of faer's `matmul`. Above `16^3` faer hands a product to its
/// large-matrix kernel (`private-gemm-x86`), whose first use on a thread reserves two
/// packing buffers of the L3 cache's size (64 MiB on a machine with 32 MiB of L3), kept
/// by that thread for good: a fit of a 40 x 40 max-cut problem held 64 MiB that way. Up
/// to this size the loop costs microseconds; above it the blocked kernel pays for its
/// buffers.
pub const SMALL_PRODUCT: usize = 1 << 16;

/// `dst = lhs rhs` or `dst += lhs rhs` ([`Accum`]): a plain loop up to
/// [`SMALL_PRODUCT`] multiply-adds, faer's `matmul` (with `par`) above it. The two agree
/// up to rounding (tested to `1e-12` relative).
///
/// # Panics
/// When the shapes do not agree (as faer's `matmul`): a caller's bug, not an input.
pub fn product(
    mut dst: MatMut<'_, f64>,
    accum: Accum,
    lhs: MatRef<'_, f64>,
    rhs: MatRef<'_, f64>,
    par: Par,
) {
    let (m, k, n) = (lhs.nrows(), lhs.ncols(), rhs.ncols());
    assert!(
        rhs.nrows() == k && dst.nrows() == m && dst.ncols() == n,
        "product: {m} x {k} times {} x {n} into {} x {}",
        rhs.nrows(),
        dst.nrows(),
        dst.ncols()
    );
    if m.saturating_mul(n).saturating_mul(k) > SMALL_PRODUCT {
        matmul(dst, accum, lhs, rhs, 1.0, par);
        return;
    }
    for j in 0..n {
        for i in 0..m {
            let mut s = 0.0;
            for l in 0..k {
                s += lhs[(i, l)] * rhs[(l, j)];
            }
            match accum {
                Accum::Replace => dst[(i, j)] = s,
                Accum::Add => dst[(i, j)] += s,
            }
        }
    }
}

fn shape(r: usize, c: usize) -> String {
    format!("{r} x {c}")
}

fn ensure_same_shape(context: &'static str, a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Result<()> {
    if a.nrows() == b.nrows() && a.ncols() == b.ncols() {
        Ok(())
    } else {
        Err(BlError::ShapeMismatch {
            context,
            expected: shape(a.nrows(), a.ncols()),
            found: shape(b.nrows(), b.ncols()),
        })
    }
}

/// Returns an error at the first non-finite entry of a matrix.
///
/// # Errors
/// [`BlError::NonFinite`] with the column-major flat index of the entry.
pub fn ensure_finite_mat(what: &'static str, a: MatRef<'_, f64>) -> Result<()> {
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            let value = a[(i, j)];
            if !value.is_finite() {
                return Err(BlError::NonFinite {
                    what,
                    index: j * a.nrows() + i,
                    value,
                });
            }
        }
    }
    Ok(())
}

/// The Frobenius inner product `<A, B> = tr(A^T B) = sum_ij A_ij B_ij`.
///
/// # Errors
/// Shapes differ.
pub fn frobenius_inner(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Result<f64> {
    ensure_same_shape("frobenius_inner", a, b)?;
    let mut sum = 0.0;
    for j in 0..a.ncols() {
        let (ca, cb) = (a.col(j), b.col(j));
        for i in 0..a.nrows() {
            sum += ca[i] * cb[i];
        }
    }
    Ok(sum)
}

/// The Frobenius norm `||A||_F`, computed without overflow.
#[must_use]
pub fn frobenius_norm(a: MatRef<'_, f64>) -> f64 {
    a.norm_l2()
}

/// The leading `r` singular triplets of a dense matrix.
#[derive(Debug, Clone)]
pub struct TopSvd {
    /// Left singular vectors, `m x r`, orthonormal columns.
    pub u: Mat<f64>,
    /// Singular values, non-increasing.
    pub s: Vec<f64>,
    /// Right singular vectors, `n x r`, orthonormal columns.
    pub v: Mat<f64>,
}

/// Below this smaller dimension a full thin SVD is cheaper than a Krylov partial SVD.
const DENSE_SVD_CUTOFF: usize = 512;

/// The leading `r` singular values and vectors of `a` (`A ≈ U diag(s) V^T`).
///
/// Uses faer's thin SVD when `min(m, n)` is small or `r` is a large fraction of it, and
/// faer's restarted Krylov partial SVD (`faer::matrix_free::eigen::partial_svd`) otherwise,
/// falling back to the thin SVD if the partial SVD does not converge. Singular vectors are
/// defined up to sign.
///
/// # Errors
/// `r == 0` or `r > min(m, n)`; non-finite entries; the SVD failing to converge.
pub fn top_singular_vectors(a: MatRef<'_, f64>, r: usize) -> Result<TopSvd> {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    if r == 0 || r > k {
        return Err(BlError::InvalidParameter {
            name: "r",
            value: r.to_string(),
            expected: "in 1..=min(nrows, ncols)".into(),
        });
    }
    ensure_finite_mat("top_singular_vectors: a", a)?;
    if k > DENSE_SVD_CUTOFF && 4 * r <= k {
        let mut u = Mat::<f64>::zeros(m, r);
        let mut v = Mat::<f64>::zeros(n, r);
        let mut s = vec![0.0; r];
        // Deterministic, generic start vector: a fixed-seed Gaussian.
        let mut rng = StdRng::seed_from_u64(0x5eed_5fd0);
        let v0 = Col::<f64>::from_fn(n, |_| StandardNormal.sample(&mut rng));
        // Few restarts: on exactly low-rank input the Krylov method can restart for minutes;
        // when it has not converged by then, the thin SVD below takes over.
        let params = PartialEigenParams {
            max_restarts: 20,
            ..PartialEigenParams::default()
        };
        let par = Par::Seq;
        let mut mem = MemBuffer::new(partial_svd_scratch::<f64>(&a, r, par, params));
        let info = partial_svd(
            u.as_mut(),
            v.as_mut(),
            &mut s,
            &a,
            v0.as_ref(),
            f64::EPSILON * 128.0,
            par,
            MemStack::new(&mut mem),
            params,
        );
        if info.n_converged_eigen >= r && s.iter().all(|x| x.is_finite()) {
            return Ok(TopSvd { u, s, v });
        }
    }
    let mut svd = thin_svd(a, "top_singular_vectors")?;
    svd.s.truncate(r);
    Ok(TopSvd {
        u: svd.u.subcols(0, r).to_owned(),
        s: svd.s,
        v: svd.v.subcols(0, r).to_owned(),
    })
}

/// The thin SVD of `a` (`m x n`): all `min(m, n)` singular triplets, values
/// non-increasing, computed on the calling thread.
///
/// faer's `thin_svd` and `self_adjoint_eigen` take their parallelism from the rayon pool
/// they run on, and at many sizes (seen from 80 rows) their results change, by rounding,
/// with that pool's size. This one (and [`symmetric_eigen`]) gives the same bits on every
/// pool, so that a fit's result depends on its `threads` setting only where its docs say
/// so.
///
/// # Errors
/// [`BlError::Numerical`] with `context` when the SVD does not converge.
pub fn thin_svd(a: MatRef<'_, f64>, context: &'static str) -> Result<TopSvd> {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let (mut u, mut v) = (Mat::<f64>::zeros(m, k), Mat::<f64>::zeros(n, k));
    let mut s = faer::diag::Diag::<f64>::zeros(k);
    let thin = faer::linalg::svd::ComputeSvdVectors::Thin;
    let mut mem = MemBuffer::new(faer::linalg::svd::svd_scratch::<f64>(
        m,
        n,
        thin,
        thin,
        Par::Seq,
        Default::default(),
    ));
    faer::linalg::svd::svd(
        a,
        s.as_mut(),
        Some(u.as_mut()),
        Some(v.as_mut()),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(failed(context))?;
    let s = s.column_vector().iter().copied().collect();
    Ok(TopSvd { u, s, v })
}

/// A decomposition's failure as [`BlError::Numerical`] with `context`.
fn failed<E: std::fmt::Debug>(context: &'static str) -> impl FnOnce(E) -> BlError {
    move |e| BlError::Numerical {
        context,
        message: format!("{e:?}"),
    }
}

/// The eigenvalues (non-decreasing) of the symmetric `a` (`n x n`, its lower triangle is
/// read) and its eigenvectors (column `j` belongs to value `j`), computed on the calling
/// thread (see [`thin_svd`]).
///
/// # Errors
/// [`BlError::Numerical`] with `context` when the decomposition does not converge.
///
/// # Panics
/// `a` is not square (a caller bug).
pub fn symmetric_eigen(a: MatRef<'_, f64>, context: &'static str) -> Result<(Vec<f64>, Mat<f64>)> {
    let mut u = Mat::<f64>::zeros(a.nrows(), a.nrows());
    let values = self_adjoint_evd(a, Some(u.as_mut()), context)?;
    Ok((values, u))
}

/// The eigenvalues (non-decreasing) of the symmetric `a`, as [`symmetric_eigen`] computes
/// them, without the eigenvectors.
///
/// # Errors
/// As [`symmetric_eigen`].
///
/// # Panics
/// As [`symmetric_eigen`].
pub fn symmetric_eigenvalues(a: MatRef<'_, f64>, context: &'static str) -> Result<Vec<f64>> {
    self_adjoint_evd(a, None, context)
}

/// faer's self-adjoint eigendecomposition of `a` on the calling thread: the values, and
/// the vectors into `u` when given.
fn self_adjoint_evd(
    a: MatRef<'_, f64>,
    u: Option<MatMut<'_, f64>>,
    context: &'static str,
) -> Result<Vec<f64>> {
    use faer::linalg::evd::{self, ComputeEigenvectors};
    let n = a.nrows();
    let mut s = faer::diag::Diag::<f64>::zeros(n);
    let compute = if u.is_some() {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let mut mem = MemBuffer::new(evd::self_adjoint_evd_scratch::<f64>(
        n,
        compute,
        Par::Seq,
        Default::default(),
    ));
    evd::self_adjoint_evd(
        a,
        s.as_mut(),
        u,
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(failed(context))?;
    Ok(s.column_vector().iter().copied().collect())
}

/// A linear map `R^ncols -> R^nrows` given by its action and the action of its transpose,
/// so that power iteration works on sparse or implicit matrices.
pub trait LinearOperator {
    /// Dimension of the output of [`apply`](Self::apply).
    fn nrows(&self) -> usize;
    /// Dimension of the input of [`apply`](Self::apply).
    fn ncols(&self) -> usize;
    /// `out = A x`, with `x.len() == ncols()` and `out.len() == nrows()`.
    ///
    /// # Panics
    /// The implementations for faer's `Mat` and `MatRef` panic (faer's dimension check)
    /// for other lengths: a caller passes these lengths ([`power_iteration`] and
    /// [`power_iteration_in_place`] check them and return `ShapeMismatch`).
    fn apply(&self, x: &[f64], out: &mut [f64]);
    /// `out = A^T y`, with `y.len() == nrows()` and `out.len() == ncols()`.
    ///
    /// # Panics
    /// As [`apply`](Self::apply), for other lengths.
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]);
}

impl LinearOperator for MatRef<'_, f64> {
    fn nrows(&self) -> usize {
        MatRef::nrows(self)
    }
    fn ncols(&self) -> usize {
        MatRef::ncols(self)
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        matmul(
            ColMut::from_slice_mut(out).as_mat_mut(),
            Accum::Replace,
            *self,
            ColRef::from_slice(x).as_mat(),
            1.0,
            Par::Seq,
        );
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        matmul(
            ColMut::from_slice_mut(out).as_mat_mut(),
            Accum::Replace,
            self.transpose(),
            ColRef::from_slice(y).as_mat(),
            1.0,
            Par::Seq,
        );
    }
}

impl LinearOperator for Mat<f64> {
    fn nrows(&self) -> usize {
        Mat::nrows(self)
    }
    fn ncols(&self) -> usize {
        Mat::ncols(self)
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        self.as_ref().apply(x, out);
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        self.as_ref().apply_transpose(y, out);
    }
}

/// Parameters of [`power_iteration`].
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `max_iter` | 1000 | maximum number of `A^T A` steps | `>= 1` |
/// | `tol` | 1e-10 | stop when `|sigma_k - sigma_{k-1}| <= tol * sigma_k` | `> 0` |
/// | `seed` | 0 | seed of the random start when no warm start is given | any |
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerIterationParams {
    /// Maximum number of iterations.
    pub max_iter: usize,
    /// Relative tolerance on the change of the singular value estimate.
    pub tol: f64,
    /// Seed of the random start vector (used when no warm start is given).
    pub seed: u64,
}

impl Default for PowerIterationParams {
    fn default() -> Self {
        Self {
            max_iter: 1000,
            tol: 1e-10,
            seed: 0,
        }
    }
}

/// The leading singular triplet found by [`power_iteration`].
#[derive(Debug, Clone, PartialEq)]
pub struct SingularTriplet {
    /// The singular value estimate `sigma = ||A^T u||`.
    pub sigma: f64,
    /// Left singular vector (unit norm, or zero when `sigma == 0`).
    pub u: Vec<f64>,
    /// Right singular vector (unit norm).
    pub v: Vec<f64>,
    /// Iterations performed.
    pub iterations: usize,
    /// Whether the tolerance was met within `max_iter` iterations (or `A v = 0`: `sigma = 0`).
    pub converged: bool,
}

fn normalize(x: &mut [f64]) -> f64 {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 {
        x.iter_mut().for_each(|v| *v /= norm);
    }
    norm
}

/// Power iteration on `A^T A` for the leading singular triplet `(sigma, u, v)` of a linear
/// operator, optionally warm-started at a right vector `v0` (e.g. the previous solution when
/// `A` changes a little between calls, as in the online bilinear learner).
///
/// Each iteration computes `u = A v / ||A v||`, `v = A^T u / ||A^T u||`, `sigma = ||A^T u||`.
/// Convergence is linear with ratio `(sigma_2 / sigma_1)^2`.
///
/// # Errors
/// An operator with a zero dimension; `v0` of the wrong length, non-finite or zero;
/// invalid parameters; a non-finite iterate.
pub fn power_iteration<A: LinearOperator + ?Sized>(
    a: &A,
    v0: Option<&[f64]>,
    params: &PowerIterationParams,
) -> Result<SingularTriplet> {
    let (m, n) = (a.nrows(), a.ncols());
    let mut v = match v0 {
        Some(v0) => {
            ensure_len("power_iteration: v0", n, v0.len())?;
            v0.to_vec()
        }
        None => {
            let mut rng = StdRng::seed_from_u64(params.seed);
            (0..n).map(|_| StandardNormal.sample(&mut rng)).collect()
        }
    };
    let mut u = vec![0.0; m];
    let info = power_iteration_in_place(a, &mut u, &mut v, params)?;
    Ok(SingularTriplet {
        sigma: info.sigma,
        u,
        v,
        iterations: info.iterations,
        converged: info.converged,
    })
}

/// What [`power_iteration_in_place`] reports; the singular vectors are in the caller's
/// buffers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerIterationInfo {
    /// The singular value estimate `sigma = ||A^T u||`.
    pub sigma: f64,
    /// Iterations performed.
    pub iterations: usize,
    /// Whether the tolerance was met within `max_iter` iterations (or `A v = 0`: `sigma = 0`).
    pub converged: bool,
}

/// [`power_iteration`] in caller-provided buffers, allocating nothing (for hot loops such as
/// the online bilinear learner's per-block updates): `v` (length `A.ncols()`) holds the
/// start vector on entry, and on success `u` (length `A.nrows()`) and `v` hold the left and
/// right singular vectors. `params.seed` is unused: the start is always `v`.
///
/// # Errors
/// As [`power_iteration`]; also buffers of the wrong length. On error the contents of `u`
/// and `v` are unspecified.
pub fn power_iteration_in_place<A: LinearOperator + ?Sized>(
    a: &A,
    u: &mut [f64],
    v: &mut [f64],
    params: &PowerIterationParams,
) -> Result<PowerIterationInfo> {
    let (m, n) = (a.nrows(), a.ncols());
    if m == 0 || n == 0 {
        return Err(BlError::Empty {
            what: "power_iteration: operator",
        });
    }
    if params.max_iter == 0 {
        return Err(BlError::InvalidParameter {
            name: "max_iter",
            value: "0".into(),
            expected: ">= 1".into(),
        });
    }
    crate::params::positive("tol", params.tol)?;
    ensure_len("power_iteration: u", m, u.len())?;
    ensure_len("power_iteration: v0", n, v.len())?;
    crate::error::ensure_finite("power_iteration: v0", v)?;
    if normalize(v) == 0.0 {
        return Err(BlError::InvalidParameter {
            name: "v0",
            value: "zero vector".into(),
            expected: "a nonzero start vector".into(),
        });
    }
    let mut sigma = 0.0;
    for iter in 1..=params.max_iter {
        a.apply(v, u);
        if normalize(u) == 0.0 {
            // v lies in the null space: A v = 0. For a zero operator sigma = 0 is exact.
            return Ok(PowerIterationInfo {
                sigma: 0.0,
                iterations: iter,
                converged: true,
            });
        }
        a.apply_transpose(u, v);
        let new_sigma = normalize(v);
        if !new_sigma.is_finite() {
            return Err(BlError::Numerical {
                context: "power_iteration",
                message: "non-finite iterate: check the operator for NaN/inf".into(),
            });
        }
        let done = (new_sigma - sigma).abs() <= params.tol * new_sigma;
        sigma = new_sigma;
        if done {
            return Ok(PowerIterationInfo {
                sigma,
                iterations: iter,
                converged: true,
            });
        }
    }
    Ok(PowerIterationInfo {
        sigma,
        iterations: params.max_iter,
        converged: false,
    })
}

/// Least-squares solution `argmin_X ||A X - B||_F` by Householder QR (faer).
///
/// Unlike [`thin_svd`], it runs faer's QR with faer's own parallelism, so its bits can
/// change with the size of the pool it runs on (no fit of the workspace calls it).
///
/// # Errors
/// `A` with fewer rows than columns or no columns; row counts of `A` and `B` differ;
/// non-finite entries; a solution that is not finite (an exactly zero pivot of the QR
/// factor). Rank deficiency is not detected otherwise: a numerically rank-deficient `A`
/// gives `Ok` with a large, meaningless solution.
pub fn least_squares(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Result<Mat<f64>> {
    if a.ncols() == 0 {
        return Err(BlError::Empty {
            what: "least_squares: columns of A",
        });
    }
    if a.nrows() < a.ncols() {
        return Err(BlError::ShapeMismatch {
            context: "least_squares: A must have at least as many rows as columns",
            expected: format!("nrows >= {}", a.ncols()),
            found: shape(a.nrows(), a.ncols()),
        });
    }
    ensure_len("least_squares: rows of B", a.nrows(), b.nrows())?;
    ensure_finite_mat("least_squares: A", a)?;
    ensure_finite_mat("least_squares: B", b)?;
    let x = a.qr().solve_lstsq(b);
    if let Err(e) = ensure_finite_mat("least_squares: solution", x.as_ref()) {
        return Err(BlError::Numerical {
            context: "least_squares",
            message: format!("A is rank deficient ({e})"),
        });
    }
    Ok(x)
}
