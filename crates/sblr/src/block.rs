//! The elastic-net logistic block problem every model here solves, and the backtracking
//! proximal-gradient step every block update shares.
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
//! features as the columns of a `d x n` matrix (a [`LinearOperator`]: an `f64` matrix, or the
//! baseline's samples read in place in their stored precision,
//! [`Samples`](crate::passes::Samples)); the variable is a slice of length `d + 1` whose
//! last entry is the intercept `b` (never penalized).
//!
//! The updates that act on a block (Alg. 1 and Alg. 2, or a user's) are the
//! implementations of [`BlockUpdate`](crate::update::BlockUpdate), in [`crate::update`].
//! Every function here works in caller-provided buffers: nothing allocates per iteration.

use bl_core::linalg::LinearOperator;
use bl_core::logistic::{log1p_exp, sigmoid};
use bl_core::prox::{elastic_net_penalty, elastic_net_prox_step};
use faer::MatRef;

use crate::error::Result;

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

/// The budget of one backtracking search before giving up with
/// [`bl_core::BlError::Numerical`] (as `SblrError::Core`): FISTA's search tries at most
/// `MAX_TRIALS` values of `L`, the step rule (13)/(15) at most the `MAX_TRIALS + 1` values
/// `m = -1 ..= MAX_TRIALS - 1`, which with `eta = 2` span a factor `2^100` in `L`.
pub const MAX_TRIALS: usize = 100;

/// An elastic-net logistic problem on fixed features: the `d x n` matrix `z` (column `i`
/// is the feature vector of sample `i`), the labels `y_i in {-1, +1}` and the penalties.
///
/// The features are any [`LinearOperator`] of `d` rows and `n` columns: the block solvers
/// compute `z^T w` (its transposed action: `<z_i, w>` for every sample) and `z c` (its
/// action: `sum_i c_i z_i`). By default they are [`Features`]: the reduced features of the
/// bilinear solvers, an `f64` matrix in memory (multiplied by faer's matrix-vector
/// products) or an operator held elsewhere (the features of samples spread over the
/// workers of a cluster, [`crate::distributed`]); this is what a
/// [`BlockUpdate`](crate::update::BlockUpdate) receives. The linear baselines use
/// [`Samples`](crate::passes::Samples), the data set's own buffer in its stored precision
/// (`f32` or `f64`, with `f64` accumulation).
#[derive(Debug, Clone, Copy)]
pub struct LinearBlock<'a, F = Features<'a>> {
    /// Features, `d x n`.
    pub z: F,
    /// Labels `±1`, length `n`.
    pub y: &'a [f64],
    /// l1 weight (`mu1` or `nu1`).
    pub l1: f64,
    /// Squared-l2 weight (`mu2` or `nu2`); the penalty is `l2/2 ||w||^2`.
    pub l2: f64,
}

/// The features of a block of the bilinear solvers (the `z` of a [`LinearBlock`]): the
/// `d x n` reduced features in memory, or any operator with the same two products.
#[derive(Clone, Copy)]
pub enum Features<'a> {
    /// The features as an `f64` matrix, column `i` the features of sample `i`.
    Matrix(MatRef<'a, f64>),
    /// An operator computing `z c` ([`LinearOperator::apply`]) and `z^T w`
    /// ([`LinearOperator::apply_transpose`]) wherever the features are (e.g. by summing
    /// the products of the chunks of samples held by the workers of a cluster).
    Operator(&'a dyn LinearOperator),
}

impl<'a> From<MatRef<'a, f64>> for Features<'a> {
    fn from(z: MatRef<'a, f64>) -> Self {
        Self::Matrix(z)
    }
}

impl<'a> Features<'a> {
    /// The matrix, when the features are in memory.
    #[must_use]
    pub fn as_matrix(&self) -> Option<MatRef<'a, f64>> {
        match *self {
            Self::Matrix(z) => Some(z),
            Self::Operator(_) => None,
        }
    }
}

impl std::fmt::Debug for Features<'_> {
    /// The kind and shape, not the values.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            Self::Matrix(_) => "Matrix",
            Self::Operator(_) => "Operator",
        };
        write!(f, "Features::{kind}({} x {})", self.nrows(), self.ncols())
    }
}

impl LinearOperator for Features<'_> {
    fn nrows(&self) -> usize {
        match self {
            Self::Matrix(z) => z.nrows(),
            Self::Operator(z) => z.nrows(),
        }
    }
    fn ncols(&self) -> usize {
        match self {
            Self::Matrix(z) => z.ncols(),
            Self::Operator(z) => z.ncols(),
        }
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        match self {
            Self::Matrix(z) => z.apply(x, out),
            Self::Operator(z) => z.apply(x, out),
        }
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        match self {
            Self::Matrix(z) => z.apply_transpose(y, out),
            Self::Operator(z) => z.apply_transpose(y, out),
        }
    }
}

impl<F: LinearOperator> LinearBlock<'_, F> {
    /// Number of features `d` (the variable has `d + 1` entries, the last the intercept).
    #[must_use]
    pub fn dim(&self) -> usize {
        self.z.nrows()
    }

    /// Number of samples `n`.
    #[must_use]
    pub fn n_samples(&self) -> usize {
        self.z.ncols()
    }

    /// `x` has `d + 1` entries (intercept last).
    fn check_variable(&self, context: &'static str, x: &[f64]) -> Result<()> {
        Ok(bl_core::error::ensure_len(
            context,
            self.dim().saturating_add(1),
            x.len(),
        )?)
    }

    /// Every slice of `per_sample` and the labels have `n` entries.
    fn check_samples(&self, context: &'static str, per_sample: &[usize]) -> Result<()> {
        let n = self.n_samples();
        bl_core::error::ensure_len(context, n, self.y.len())?;
        for &len in per_sample {
            bl_core::error::ensure_len(context, n, len)?;
        }
        Ok(())
    }

    /// Decision values `f_i = <z_i, w> + b` of the variable `x = (w, b)` into `out`.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `x` does not have `d + 1`
    /// entries or `out` not `n` (`out` is then untouched).
    pub fn scores(&self, x: &[f64], out: &mut [f64]) -> Result<()> {
        self.check_variable("LinearBlock::scores: x (d + 1)", x)?;
        bl_core::error::ensure_len("LinearBlock::scores: out (n)", self.n_samples(), out.len())?;
        self.scores_unchecked(x, out);
        Ok(())
    }

    /// [`scores`](Self::scores) for lengths the caller guarantees.
    pub(crate) fn scores_unchecked(&self, x: &[f64], out: &mut [f64]) {
        let d = self.dim();
        let b = x[d];
        self.z.apply_transpose(&x[..d], out);
        for v in out.iter_mut() {
            *v += b;
        }
    }

    /// The mean logistic loss `(1/n) sum_i log(1 + exp(-y_i f_i))` of decision values `f`.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `f` or the labels `y` do not
    /// have `n` entries.
    pub fn loss(&self, f: &[f64]) -> Result<f64> {
        self.check_samples("LinearBlock::loss: f and y (n)", &[f.len()])?;
        Ok(self.loss_unchecked(f))
    }

    /// [`loss`](Self::loss) for lengths the caller guarantees.
    pub(crate) fn loss_unchecked(&self, f: &[f64]) -> f64 {
        let n = f.len() as f64;
        f.iter()
            .zip(self.y)
            .map(|(&fi, &yi)| log1p_exp(-yi * fi))
            .sum::<f64>()
            / n
    }

    /// The loss of decision values `f` and `c_i = d loss / d f_i = -y_i w_i / n` with the
    /// weights `w_i = 1 / (1 + exp(y_i f_i))` of eq. (12).
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `f`, `c` or the labels `y` do
    /// not have `n` entries (`c` is then untouched).
    pub fn loss_and_dscores(&self, f: &[f64], c: &mut [f64]) -> Result<f64> {
        self.check_samples(
            "LinearBlock::loss_and_dscores: f, c and y (n)",
            &[f.len(), c.len()],
        )?;
        Ok(self.loss_and_dscores_unchecked(f, c))
    }

    /// [`loss_and_dscores`](Self::loss_and_dscores) for lengths the caller guarantees.
    pub(crate) fn loss_and_dscores_unchecked(&self, f: &[f64], c: &mut [f64]) -> f64 {
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
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `f0`, `df` or the labels `y`
    /// do not have `n` entries.
    pub fn loss_change(&self, f0: &[f64], df: &[f64]) -> Result<f64> {
        self.check_samples(
            "LinearBlock::loss_change: f0, df and y (n)",
            &[f0.len(), df.len()],
        )?;
        Ok(self.loss_change_unchecked(f0, df))
    }

    /// [`loss_change`](Self::loss_change) for lengths the caller guarantees.
    pub(crate) fn loss_change_unchecked(&self, f0: &[f64], df: &[f64]) -> f64 {
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
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `c` does not have `n` entries
    /// or `g` not `d + 1` (`g` is then untouched).
    pub fn gradient(&self, c: &[f64], g: &mut [f64]) -> Result<()> {
        bl_core::error::ensure_len("LinearBlock::gradient: c (n)", self.n_samples(), c.len())?;
        self.check_variable("LinearBlock::gradient: g (d + 1)", g)?;
        self.gradient_unchecked(c, g);
        Ok(())
    }

    /// [`gradient`](Self::gradient) for lengths the caller guarantees.
    pub(crate) fn gradient_unchecked(&self, c: &[f64], g: &mut [f64]) {
        let d = self.dim();
        let (gw, gb) = g.split_at_mut(d);
        self.z.apply(c, gw);
        gb[0] = c.iter().sum();
    }

    /// The penalty `l1 |w|_1 + l2/2 ||w||^2` of `x = (w, b)`.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `x` does not have `d + 1`
    /// entries.
    pub fn penalty(&self, x: &[f64]) -> Result<f64> {
        self.check_variable("LinearBlock::penalty: x (d + 1)", x)?;
        Ok(self.penalty_unchecked(x))
    }

    /// [`penalty`](Self::penalty) for lengths the caller guarantees.
    pub(crate) fn penalty_unchecked(&self, x: &[f64]) -> f64 {
        elastic_net_penalty(&x[..self.dim()], self.l1, self.l2)
    }

    /// The proximal-gradient point `out = prox_{h/L}(x - g/L)` of eq. (10) (closed form
    /// soft thresholding for `w`, a plain gradient step (9) for the intercept).
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `x`, `g` or `out` does not
    /// have `d + 1` entries; `BlError::InvalidParameter` for a `lipschitz` that is not
    /// finite and `> 0`.
    pub fn prox_point(&self, x: &[f64], g: &[f64], lipschitz: f64, out: &mut [f64]) -> Result<()> {
        let d = self.dim();
        bl_core::error::ensure_len("prox_point: x", d + 1, x.len())?;
        bl_core::error::ensure_len("prox_point: g", d + 1, g.len())?;
        bl_core::error::ensure_len("prox_point: out", d + 1, out.len())?;
        elastic_net_prox_step(&x[..d], &g[..d], lipschitz, self.l1, self.l2, &mut out[..d])?;
        out[d] = x[d] - g[d] / lipschitz;
        Ok(())
    }

    /// `dist(0, grad + subdifferential of the penalty)` at `x`, from the loss gradient `g`:
    /// the first-order stationarity residual of the block problem (Euclidean norm over
    /// `w` and `b`).
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) when `x` or `g` does not have
    /// `d + 1` entries.
    pub fn stationarity_residual(&self, x: &[f64], g: &[f64]) -> Result<f64> {
        self.check_variable("LinearBlock::stationarity_residual: x (d + 1)", x)?;
        self.check_variable("LinearBlock::stationarity_residual: g (d + 1)", g)?;
        let d = self.dim();
        let mut sum = g[d] * g[d];
        for j in 0..d {
            let r = entry_residual(x[j], g[j], self.l1, self.l2);
            sum += r * r;
        }
        Ok(sum.sqrt())
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

    /// Checks that the state fits `block` (O(1)): `x` has `d + 1` entries, `scores` and
    /// the labels `block.y` one per sample. The built-in updates call it first; an update
    /// of yours can too.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) naming the first length that does
    /// not fit.
    pub fn check_against<F: LinearOperator>(&self, block: &LinearBlock<'_, F>) -> Result<()> {
        let (d, n) = (block.dim(), block.n_samples());
        bl_core::error::ensure_len("BlockState: x (d + 1)", d.saturating_add(1), self.x.len())?;
        bl_core::error::ensure_len("BlockState: scores (n)", n, self.scores.len())?;
        bl_core::error::ensure_len("LinearBlock: y (n)", n, block.y.len())?;
        Ok(())
    }
}

/// Scratch buffers for block updates, sized once for the largest block.
#[derive(Debug, Clone)]
pub struct BlockWork {
    pub(crate) c: Vec<f64>,
    pub(crate) g: Vec<f64>,
    pub(crate) trial: Vec<f64>,
    pub(crate) trial_scores: Vec<f64>,
    pub(crate) prev: Vec<f64>,
    pub(crate) prev_scores: Vec<f64>,
    pub(crate) y_point: Vec<f64>,
    pub(crate) y_scores: Vec<f64>,
    pub(crate) delta: Vec<f64>,
    pub(crate) start: Vec<f64>,
    pub(crate) start_scores: Vec<f64>,
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

    /// Checks that the buffers hold a block of `d` features and `n` samples (O(1)): they
    /// were made by [`new`](Self::new) with `max_dim >= d` and at least `n` samples.
    ///
    /// # Errors
    /// `BlError::ShapeMismatch` (as `SblrError::Core`) otherwise.
    pub fn check_fits(&self, d: usize, n: usize) -> Result<()> {
        let (d1, have_d1, have_n) = (d.saturating_add(1), self.g.len(), self.c.len());
        if d1 > have_d1 || n > have_n {
            return Err(bl_core::error::build::shape_mismatch(
                "BlockWork::check_fits",
                format!("buffers for at least {d} features and {n} samples"),
                format!(
                    "buffers for {} features and {have_n} samples",
                    have_d1.saturating_sub(1)
                ),
            ));
        }
        Ok(())
    }

    /// The loss gradient at the last point where one was computed (length `d + 1`).
    ///
    /// # Panics
    /// When `d` exceeds the `max_dim` the buffers were made for (as slice indexing does;
    /// [`check_fits`](Self::check_fits) tells).
    #[must_use]
    pub fn last_gradient(&self, d: usize) -> &[f64] {
        &self.g[..d + 1]
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

impl<F: LinearOperator> ProxBlock for LinearBlock<'_, F> {
    fn prox_point(&self, x: &[f64], g: &[f64], lipschitz: f64, out: &mut [f64]) -> Result<()> {
        LinearBlock::prox_point(self, x, g, lipschitz, out)
    }
    fn score_change(&self, delta: &[f64], out: &mut [f64]) {
        self.scores_unchecked(delta, out);
    }
    fn loss_change(&self, base: &[f64], dscores: &[f64]) -> f64 {
        self.loss_change_unchecked(base, dscores)
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
