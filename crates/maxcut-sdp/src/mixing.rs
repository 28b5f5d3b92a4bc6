//! The mixing method: low-rank coordinate ascent for diagonal-constrained SDPs.
//!
//! Wang, Chang, Kolter, "The mixing method: low-rank coordinate descent for semidefinite
//! programming with diagonal constraints" (2017), Alg. 1. For
//! `max <C, V^T V> s.t. ||v_i|| = 1` the objective restricted to column `v_i` is
//! `2 v_i^T g_i + const` with `g_i = sum_{j != i} C_ij v_j`, maximized over the unit
//! sphere by `v_i = g_i / ||g_i||` (their eq. (4), with the sign flipped for
//! maximization). Each update raises the objective by `2 (||g_i|| - g_i^T v_i^old) >= 0`,
//! which is how the objective is tracked without an extra pass.
//!
//! Cost of one sweep (`k` = rank): dense `C`: `2 n^2 k` flops (`g_i = V C_{:,i}`,
//! computed for blocks of 32 coordinates at once by one matrix product and corrected
//! for the updates inside the block, see `dense_block_sweep`);
//! sparse `C`: `2 nnz k`; implicit `C = G G^T`: `4 n m k`, by keeping `W = G^T V^T`
//! (`m x k`) current: `g_i = W^T G_i^T - ||G_i||^2 v_i` (the `j = i` term removed), then
//! `W += G_i^T (v_i^new - v_i^old)^T`. A sweep allocates nothing.

mod coloring;
mod kernels;
mod levels;

use std::sync::{Arc, OnceLock};

use bl_core::engine::{FitReport, IterationParams, Observer, Progress, run};
use bl_core::params::{ParamGuard, invalid};
use faer::{MatRef, Par};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::cost::{CostView, Repr, axpy, dot};
use crate::error::{MaxcutError, Result};
use crate::params::{
    AUTO_FORM_MAX_N, LowRankMode, MixingParams, MixingValidParams, SPARSE_FORM_DENSITY, SparseSweep,
};
use crate::problem::Problem;
use crate::rounding::{Rounding, hyperplane_rounding};
use crate::sweep_order::{SweepOrder, first_non_permutation};
use bl_core::error::build::{non_finite, numerical, shape_mismatch};
use bl_core::iteration::Pool as Workers;
use coloring::Coloring;
use kernels::{DENSE_BLOCK, Kernel, coordinate_sweep, dense_block_sweep, implicit_w, sparse_sweep};
use levels::Levels;

/// Seed offsets of the independent random streams derived from [`MixingParams::seed`].
pub(crate) const ORDER_STREAM: u64 = 0x5851_F42D_4C95_7F2D;
pub(crate) const ROUNDING_STREAM: u64 = 0x2545_F491_4F6C_DD1D;

/// How the sweeps of a solve access `C`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SweepForm {
    /// Dense `C` given by the user.
    Dense,
    /// Sparse `C`.
    Sparse,
    /// `C = G G^T` kept implicit through `W = G^T V^T`.
    LowRankImplicit,
    /// `C = G G^T` formed densely once before the sweeps.
    LowRankFormed,
    /// Sparse `C` formed densely once before the sweeps (a dense graph, where the dense
    /// sweep is faster; see [`LowRankMode`]).
    SparseFormed,
}

/// The state of the mixing method: the factor `V`, its workspace and the tracked
/// objective. A lower-level stepping API, not a fit: [`Mixing::sweep`] runs exactly one
/// sweep and allocates nothing, so a sweep can be benchmarked, tested against a reference
/// or interleaved with other work. Fitting a [`Problem`] with [`MixingParams`] (through
/// [`bl_core::Fit`]) is the one way to run the method to its stop rule: the fit builds a
/// `Mixing`, runs its sweeps on the shared engine ([`bl_core::engine::run`], with the
/// iteration knobs, the observers and the report), then rounds.
///
/// `Mixing` reads the rank, the seed, the order, `low_rank` and `sparse_sweep`; the
/// iteration knobs belong to the fit, and `trials`, `local_search` and `certify` to the
/// steps after the sweeps (the rounding takes its trials and seed as arguments of
/// [`Mixing::round`]). Its parallel schedules run on the current rayon pool.
///
/// ```
/// use maxcut_sdp::{Mixing, MixingParams, Problem};
/// let problem = Problem::maxcut(4, &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 0, 1.0)])?;
/// let mut mixing = Mixing::new(&problem, &MixingParams::default().seed(3))?;
/// let before = mixing.objective();
/// let increase = mixing.sweep()?;
/// assert!(increase >= 0.0 && mixing.objective() >= before);
/// assert_eq!(mixing.sweeps(), 1);
/// # Ok::<(), maxcut_sdp::MaxcutError>(())
/// ```
#[derive(Debug)]
pub struct Mixing<'a> {
    kernel: Kernel<'a>,
    n: usize,
    k: usize,
    /// `V`, `k x n` column-major (column `i` is `v_i`).
    v: Vec<f64>,
    g: Vec<f64>,
    dv: Vec<f64>,
    order: Vec<usize>,
    order_rule: Arc<dyn SweepOrder>,
    order_rng: StdRng,
    /// Scratch of the permutation check of each sweep's order.
    seen: Vec<bool>,
    /// Workspace of the blocked dense sweep: `G_B` (`k x b`), `dV_B` (`k x b`) and the
    /// gathered columns `C_{:,B}` (`n x b`, random order only).
    block_g: Vec<f64>,
    block_dv: Vec<f64>,
    block_c: Vec<f64>,
    /// The color classes of [`crate::Colored`] on a sparse `C`.
    coloring: Option<Coloring>,
    /// The dependency levels of the cyclic sweep on a sparse `C`
    /// ([`SparseSweep::Levels`]); while set, `v` holds the columns by position
    /// (sorted by level) and `natural` caches them in the natural order.
    levels: Option<Levels>,
    natural: OnceLock<Vec<f64>>,
    objective: f64,
    sweeps: usize,
}

impl<'a> Mixing<'a> {
    /// Starts the mixing method on `problem` from a seeded random `V` with unit columns
    /// (i.i.d. Gaussian, normalized).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] from [`ParamGuard::check`], or when the
    /// factor `V` (`rank x n` values), a dense `C` (`n x n`, formed under
    /// [`LowRankMode::Formed`] or [`LowRankMode::Auto`]) or `W` (`m x rank`) would exceed
    /// `2^32` values ([`bl_core::limits::MAX_ELEMENTS`]) or cannot be allocated: checked
    /// before the sweeps start, e.g. the default rank `ceil(sqrt(2 n))` refuses `n` above
    /// about `2^21`; [`bl_core::BlError::Numerical`] if the objective at the initial `V`
    /// is not finite (input too large).
    pub fn new(problem: &'a Problem, params: &MixingParams) -> Result<Self> {
        Self::start(problem, &params.check()?)
    }

    /// [`Mixing::new`] with checked parameters.
    pub(crate) fn start(problem: &'a Problem, params: &MixingValidParams) -> Result<Self> {
        let n = problem.n();
        let k = params.rank_for(n);
        let mut rng = StdRng::seed_from_u64(params.seed());
        let mut v = bl_core::limits::try_zeroed::<f64>("V (rank x n)", &[k, n])?;
        for col in v.chunks_exact_mut(k) {
            for x in col.iter_mut() {
                *x = StandardNormal.sample(&mut rng);
            }
            normalize_or_e1(col);
        }
        Self::from_parts(problem, params, k, v)
    }

    /// Starts from a given `V` (`k x n`, warm start); its columns are normalized. The
    /// rank is `v0.nrows()`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] if `v0` does not have `n` columns, has no rows,
    /// or has a row count different from an explicitly set [`MixingParams::rank`];
    /// [`bl_core::BlError::NonFinite`] (column-major flat index);
    /// [`bl_core::BlError::InvalidParameter`] for a zero column, an invalid parameter, or
    /// buffers that cannot be allocated (as [`Mixing::new`]);
    /// [`bl_core::BlError::Numerical`] if the objective at `v0` is not finite.
    pub fn with_start(
        problem: &'a Problem,
        params: &MixingParams,
        v0: MatRef<'_, f64>,
    ) -> Result<Self> {
        let params = params.check()?;
        let n = problem.n();
        let k = v0.nrows();
        if v0.ncols() != n || k == 0 || params.rank().is_some_and(|r| r != k) {
            return Err(shape_mismatch(
                "v0",
                format!("{} x {n}", params.rank().unwrap_or(k).max(1)),
                format!("{} x {}", v0.nrows(), v0.ncols()),
            ));
        }
        let mut v = bl_core::limits::try_zeroed::<f64>("V (rank x n)", &[k, n])?;
        for i in 0..n {
            let col = &mut v[i * k..(i + 1) * k];
            for (r, x) in col.iter_mut().enumerate() {
                let value = v0[(r, i)];
                if !value.is_finite() {
                    return Err(non_finite("v0", r + i * k, value));
                }
                *x = value;
            }
            let norm = dot(col, col).sqrt();
            if !(norm > 0.0 && norm.is_finite()) {
                return Err(invalid(
                    "v0",
                    format!("column {i} with norm {norm}"),
                    "columns with finite nonzero norm",
                )
                .into());
            }
            col.iter_mut().for_each(|x| *x /= norm);
        }
        Self::from_parts(problem, &params, k, v)
    }

    fn from_parts(
        problem: &'a Problem,
        params: &MixingValidParams,
        k: usize,
        v: Vec<f64>,
    ) -> Result<Self> {
        let n = problem.n();
        let kernel = match &problem.repr {
            Repr::Dense { n, c } => Kernel::Dense { n: *n, c },
            Repr::Sparse(s) => {
                let form = match params.low_rank() {
                    LowRankMode::Formed => true,
                    LowRankMode::Implicit => false,
                    LowRankMode::Auto => {
                        s.n <= AUTO_FORM_MAX_N
                            && s.values.len() as f64
                                >= SPARSE_FORM_DENSITY * (s.n * s.n.saturating_sub(1)) as f64
                    }
                };
                if form {
                    Kernel::Formed {
                        n,
                        c: CostView::Sparse(s).dense_copy()?,
                        from_sparse: true,
                    }
                } else {
                    Kernel::Sparse(s)
                }
            }
            Repr::LowRank(lr) => {
                let form = match params.low_rank() {
                    LowRankMode::Formed => true,
                    LowRankMode::Implicit => false,
                    LowRankMode::Auto => 2 * lr.m >= lr.n && lr.n <= AUTO_FORM_MAX_N,
                };
                if form {
                    Kernel::Formed {
                        n,
                        c: lr.form(faer::get_global_parallelism())?,
                        from_sparse: false,
                    }
                } else {
                    let mut w = bl_core::limits::try_zeroed::<f64>("W (m x rank)", &[lr.m, k])?;
                    implicit_w(lr, &v, k, &mut w, faer::get_global_parallelism());
                    Kernel::Implicit { lr, w }
                }
            }
        };
        let is_dense = matches!(kernel, Kernel::Dense { .. } | Kernel::Formed { .. });
        let block = if is_dense { DENSE_BLOCK.min(n) } else { 0 };
        let order_rule = Arc::clone(params.order());
        let gather = if is_dense && !order_rule.is_identity() {
            n * block
        } else {
            0
        };
        let coloring = match &kernel {
            Kernel::Sparse(s) if order_rule.by_color() => Some(Coloring::new(s, k)),
            _ => None,
        };
        let gather_f32 = params.sparse_sweep() == SparseSweep::LevelsF32Gather;
        let mut levels = match &kernel {
            Kernel::Sparse(s)
                if order_rule.is_identity() && params.sparse_sweep() != SparseSweep::Sequential =>
            {
                Some(Levels::new(s, k, rayon::current_num_threads(), gather_f32))
            }
            _ => None,
        };
        let v = match &mut levels {
            Some(levels) => levels.arrange_by_position(&v),
            None => v,
        };
        let mut mixing = Self {
            coloring,
            levels,
            natural: OnceLock::new(),
            kernel,
            block_g: vec![0.0; k * block],
            block_dv: vec![0.0; k * block],
            block_c: vec![0.0; gather],
            n,
            k,
            v,
            g: vec![0.0; k],
            dv: vec![0.0; k],
            order: (0..n).collect(),
            order_rule,
            order_rng: StdRng::seed_from_u64(params.seed() ^ ORDER_STREAM),
            seen: vec![false; n],
            objective: 0.0,
            sweeps: 0,
        };
        mixing.objective = mixing.exact_objective();
        if !mixing.objective.is_finite() {
            return Err(numerical(
                "mixing method",
                "the initial objective is not finite",
            ));
        }
        Ok(mixing)
    }

    /// Runs one sweep over all `n` columns (in the order given by the configured
    /// [`SweepOrder`]) and returns the increase of the objective. Allocates nothing.
    ///
    /// # Errors
    /// [`MaxcutError::InvalidSweepOrder`] if the sweep order did not give a permutation
    /// of `0..n` (or claimed to be the identity and was not); `V` is then unchanged.
    pub fn sweep(&mut self) -> Result<f64> {
        if let (Some(coloring), Kernel::Sparse(s)) = (&mut self.coloring, &self.kernel) {
            let increase = coloring.sweep(s, &mut self.v, self.k);
            self.objective += increase;
            self.sweeps += 1;
            return Ok(increase);
        }
        let identity = self.next_order()?;
        if let Some(levels) = &mut self.levels {
            self.natural.take();
            let increase = levels.sweep(&mut self.v);
            self.objective += increase;
            self.sweeps += 1;
            return Ok(increase);
        }
        Ok(self.sweep_in_order(identity))
    }

    /// Arranges `self.order` for the next sweep and checks it; returns whether the order
    /// claims to be the identity.
    fn next_order(&mut self) -> Result<bool> {
        let sweep = self.sweeps + 1;
        self.order_rule
            .arrange(sweep, &mut self.order_rng, &mut self.order);
        let identity = self.order_rule.is_identity();
        let bad = if identity {
            self.order
                .iter()
                .enumerate()
                .find(|&(position, &i)| position != i)
                .map(|(position, &i)| (position, i))
        } else {
            first_non_permutation(&self.order, &mut self.seen)
        };
        match bad {
            Some((index, value)) => Err(MaxcutError::InvalidSweepOrder {
                order: self.order_rule.name().to_string(),
                sweep,
                n: self.n,
                index,
                value,
            }),
            None => Ok(identity),
        }
    }

    /// One sweep in the order held in `self.order`.
    fn sweep_in_order(&mut self, contiguous: bool) -> f64 {
        let Self {
            kernel,
            k,
            v,
            g,
            dv,
            order,
            ..
        } = self;
        let k = *k;
        let dense = match kernel {
            Kernel::Dense { n, c } => Some((*n, &**c)),
            Kernel::Formed { n, c, .. } => Some((*n, c.as_slice())),
            _ => None,
        };
        if let Some((n, c)) = dense {
            let increase = dense_block_sweep(
                c,
                n,
                v,
                k,
                order,
                contiguous,
                &mut self.block_g,
                &mut self.block_dv,
                &mut self.block_c,
            );
            self.objective += increase;
            self.sweeps += 1;
            return increase;
        }
        if let Kernel::Sparse(s) = kernel {
            let increase = sparse_sweep(s, v, k, order, g);
            self.objective += increase;
            self.sweeps += 1;
            return increase;
        }
        let increase = coordinate_sweep(kernel, v, k, order, g, dv);
        self.objective += increase;
        self.sweeps += 1;
        increase
    }

    /// The sweep of the first sparse kernel (one `axpy` per stored entry, no SIMD
    /// dispatch), kept as the yardstick of the benches and the reference of the tests:
    /// the same iterates as [`Mixing::sweep`] in the same order. Not part of the stable
    /// API: behind the non-default feature `probes`.
    ///
    /// The yardstick proper is this sweep with [`SparseSweep::Sequential`] (`V` in
    /// natural order, one thread). With [`SparseSweep::Levels`] it runs the same
    /// arithmetic sequentially on the level-sorted `V` (same iterates, other memory
    /// layout).
    ///
    /// # Errors
    /// As [`Mixing::sweep`].
    #[cfg(feature = "probes")]
    pub fn sweep_reference(&mut self) -> Result<f64> {
        if !matches!(self.kernel, Kernel::Sparse(_)) {
            return self.sweep();
        }
        self.next_order()?;
        if let Some(levels) = &mut self.levels {
            self.natural.take();
            let increase = levels.sweep_plain(&mut self.v, &mut self.g, &mut self.dv);
            self.objective += increase;
            self.sweeps += 1;
            return Ok(increase);
        }
        let Self {
            kernel,
            k,
            v,
            g,
            dv,
            order,
            ..
        } = self;
        let increase = coordinate_sweep(kernel, v, *k, order, g, dv);
        self.objective += increase;
        self.sweeps += 1;
        Ok(increase)
    }
}

impl Mixing<'_> {
    /// The loop of the fit: runs the sweeps on the shared engine
    /// ([`bl_core::engine::run`]), one sweep per iteration, each on `workers`, until one
    /// sweep raises the objective by at most `tol * |objective|` (reported as
    /// [`bl_core::TerminationReason::Converged`]), the time limit passes, or `max_iter`
    /// sweeps have run. Each iteration reports the tracked objective, the change measure
    /// `increase / |objective|` and the extra `"increase"`, and is shown to `observers`.
    /// Refreshes the tracked objective (and `W`) exactly at the end.
    ///
    /// # Errors
    /// [`bl_core::BlError::Numerical`] if the objective stops being finite (input too
    /// large); [`MaxcutError::InvalidSweepOrder`] from [`Mixing::sweep`].
    pub(crate) fn run(
        &mut self,
        iteration: &IterationParams,
        workers: &Workers,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FitReport> {
        let tol = iteration.tol;
        let report = run(iteration, observers, |_| {
            let increase = workers.install(|| self.sweep())?;
            let objective = self.objective;
            let change = sweep_change(increase, objective, tol);
            Ok::<_, MaxcutError>(Progress::new(objective, change).with("increase", increase))
        })
        .map_err(|e| match e {
            MaxcutError::Core(bl_core::BlError::Numerical {
                context: "iteration",
                ..
            }) => numerical(
                "mixing method",
                "the objective became non-finite during a sweep; rescale the input",
            ),
            other => other,
        })?;
        workers.install(|| self.refresh());
        if !self.objective.is_finite() {
            return Err(numerical(
                "mixing method",
                "the final objective is not finite; rescale the input",
            ));
        }
        Ok(report)
    }

    /// Recomputes `W = G^T V^T` (implicit form) and the objective from `V`, removing the
    /// drift of the incremental updates.
    pub fn refresh(&mut self) {
        let k = self.k;
        if let Kernel::Implicit { lr, w } = &mut self.kernel {
            implicit_w(lr, &self.v, k, w, faer::get_global_parallelism());
        }
        self.objective = self.exact_objective();
    }

    /// The objective `<C, V^T V>` as tracked through the sweeps.
    pub fn objective(&self) -> f64 {
        self.objective
    }

    /// The objective `<C, V^T V>` recomputed from `V` (one pass, `O(nnz k)`).
    pub fn exact_objective(&self) -> f64 {
        let (n, k) = (self.n, self.k);
        if let Kernel::Implicit { lr, .. } = &self.kernel {
            let mut w = vec![0.0; lr.m * k];
            implicit_w(lr, &self.v, k, &mut w, Par::Seq);
            return dot(&w, &w);
        }
        let mut g = vec![0.0; k];
        let mut total = self.kernel.diag_sum();
        if let (Some(levels), Kernel::Sparse(s)) = (&self.levels, &self.kernel) {
            // The same arithmetic as `Kernel::field` on the natural order.
            let col = |j: usize| {
                let p = levels.pos(j);
                &self.v[p * k..(p + 1) * k]
            };
            for i in 0..n {
                g.fill(0.0);
                for p in s.row_ptr[i]..s.row_ptr[i + 1] {
                    axpy(&mut g, s.values[p], col(s.col_idx[p]));
                }
                total += dot(&g, col(i));
            }
            return total;
        }
        for i in 0..n {
            self.kernel.field(&self.v, k, i, &mut g);
            total += dot(&g, &self.v[i * k..(i + 1) * k]);
        }
        total
    }

    /// The factor `V` (`k x n`); column `i` is the unit vector `v_i`.
    pub fn v(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(self.natural_v(), self.k, self.n)
    }

    /// `V` in the natural column order (rebuilt once after the sweeps when the columns
    /// are stored by level).
    fn natural_v(&self) -> &[f64] {
        match &self.levels {
            Some(levels) => self.natural.get_or_init(|| levels.to_natural(&self.v)),
            None => &self.v,
        }
    }

    /// Number of dependency levels of the cyclic sweep on a sparse `C` (see
    /// [`SparseSweep::Levels`]); `None` if that schedule is not in use.
    pub fn levels(&self) -> Option<usize> {
        self.levels.as_ref().map(Levels::count)
    }

    /// The rank `k`.
    pub fn rank(&self) -> usize {
        self.k
    }

    /// Number of variables `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Sweeps run so far.
    pub fn sweeps(&self) -> usize {
        self.sweeps
    }

    /// How the sweeps access `C`.
    pub fn form(&self) -> SweepForm {
        self.kernel.form()
    }

    /// Goemans–Williamson rounding: `y = sign(V^T r)` for `trials` Gaussian directions
    /// `r` (seeded by `seed`), keeping the best `y^T C y` (lowest trial index on ties).
    /// Trials run in parallel; the result does not depend on the number of threads.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] for `trials = 0`, or when the `trials x rank`
    /// directions exceed `2^32` values ([`bl_core::limits::MAX_ELEMENTS`]) or cannot be
    /// allocated (checked before drawing any).
    pub fn round(&self, trials: usize, seed: u64) -> Result<Rounding> {
        bl_core::params::at_least("trials", trials, 1)?;
        hyperplane_rounding(
            self.kernel.view(),
            self.natural_v(),
            self.k,
            trials,
            seed ^ ROUNDING_STREAM,
        )
    }

    pub(crate) fn cost_view(&self) -> CostView<'_> {
        self.kernel.view()
    }
}

fn normalize_or_e1(col: &mut [f64]) {
    let norm = dot(col, col).sqrt();
    if norm > 0.0 && norm.is_finite() {
        col.iter_mut().for_each(|x| *x /= norm);
    } else {
        col.fill(0.0);
        col[0] = 1.0;
    }
}

/// The change measure of a sweep for the engine's `change <= tol` test: the relative
/// gain `increase / |objective|`, clamped at `tol` so that the engine's decision is
/// exactly the stop rule `increase <= tol * |objective|` (also at `objective = 0`).
fn sweep_change(increase: f64, objective: f64, tol: f64) -> f64 {
    let scale = objective.abs();
    let ratio = if scale > 0.0 {
        increase / scale
    } else if increase <= 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    if increase <= tol * scale {
        ratio.min(tol)
    } else if ratio.is_nan() {
        ratio
    } else {
        ratio.max(tol.next_up())
    }
}
