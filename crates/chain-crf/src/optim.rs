//! L-BFGS (L2 or no regularization) and OWL-QN (L1) over a smooth loss, one iteration per
//! call of [`QuasiNewton::iterate`], with the settings and tests of CRFsuite's defaults.
//!
//! The minimized objective is `F(w) = loss(w) + c2 ||w||_2^2 + c1 ||w||_1` (CRFsuite's
//! scaling: the L2 term is `c2 ||w||^2`, whose gradient is `2 c2 w`). The direction comes
//! from the two-loop recursion over the last `m` pairs `(s, y)` (J. Nocedal and S. Wright,
//! *Numerical Optimization*, Algorithm 7.4). With `c1 > 0` it is OWL-QN (G. Andrew and
//! J. Gao, *Scalable Training of L1-Regularized Log-Linear Models*, ICML 2007): the
//! two-loop recursion runs on the pseudo-gradient, the direction is zeroed where its sign
//! disagrees with the steepest descent direction, and every trial point is projected onto
//! the orthant of the current point, so weights become exact zeros. A pair `(s, y)` with
//! `s . y <= 1e-10 y . y` (not safely positive) is not stored.
//!
//! The step length along `d` is found by one of the line searches of libLBFGS (N. Okazaki's
//! C port of L-BFGS, the optimizer of CRFsuite), chosen by [`Settings::line_search`]
//! ([`LineSearchMethod`]); each starts from step 1 (the first iteration: `1 / ||d||`) and
//! evaluates the objective at most `max_linesearch` times. With `phi(a) = F(x + a d)`:
//!
//! - [`LineSearchMethod::Armijo`] (the default of [`Settings`]): halving until the
//!   sufficient decrease (Armijo) condition `phi(a) <= phi(0) + ftol a phi'(0)` holds,
//!   `ftol = 1e-4`. This is libLBFGS's backtracking with the Armijo condition, without its
//!   step bounds (the trial budget bounds the halvings).
//! - [`LineSearchMethod::BacktrackingWolfe`], [`LineSearchMethod::BacktrackingStrongWolfe`]:
//!   libLBFGS's backtracking with a curvature condition too: a step that fails Armijo is
//!   multiplied by 0.5; one that satisfies Armijo but has `phi'(a) < wolfe phi'(0)` (too
//!   short) by 2.1; with the strong condition, one with `phi'(a) > -wolfe phi'(0)` (too
//!   long) by 0.5; `wolfe = 0.9`. The step stays in `[1e-20, 1e20]`.
//! - [`LineSearchMethod::MoreThuente`]: J. J. Moré and D. J. Thuente, *Line search
//!   algorithms with guaranteed sufficient decrease*, ACM TOMS 20(3), 1994, as libLBFGS runs
//!   it (`ftol = 1e-4`, `gtol = 0.9`, `xtol = 1e-16`, steps in `[1e-20, 1e20]`): the strong
//!   Wolfe conditions `phi(a) <= phi(0) + ftol a phi'(0)` and `|phi'(a)| <= gtol |phi'(0)|`,
//!   reached by safeguarded cubic and quadratic interpolation over an interval of
//!   uncertainty that is extrapolated (up to 4 times its width each trial) until it
//!   brackets a minimizer, so the accepted step can be far longer than the first one.
//!
//! OWL-QN (`c1 > 0`) always runs the Armijo search, on the projected trial points and with
//! the decrease measured by the pseudo-gradient, `F(x_new) <= F(x) + ftol pg . (x_new -
//! x)`, whatever [`Settings::line_search`] says: libLBFGS runs OWL-QN only with its
//! backtracking (whose OWL-QN form is this search), and CRFsuite asks for backtracking
//! whenever `c1 > 0`. The curvature conditions need `F` differentiable along `d`, which the
//! projection and `||w||_1` break.
//!
//! When no step is accepted (the budget is spent, a step bound is reached, or Moré-Thuente's
//! interval of uncertainty becomes narrower than rounding allows) the iteration reports
//! [`Outcome::LineSearchFailed`] and the point is unchanged, as libLBFGS returns its error
//! and the previous point. Unlike libLBFGS, a trial with a non-finite objective or
//! directional derivative is not an error: Moré-Thuente halves the step back towards the
//! best step so far and never tries that far again; the backtracking searches treat it as a
//! failed Armijo test. A NaN or infinite (pseudo-)gradient at the current point, or a line
//! search none of whose trials was finite, ends the run with [`Outcome::NonFinite`] (the
//! point is unchanged); the trainers report it as an error.
//!
//! This is the optimizer of the `lbfgs` trainer, public so that other crates of the
//! workspace (`online-bilinear`'s CRF baselines) run the same one.
//!
//! Vector operations run in parallel over fixed blocks of coordinates and reduce partial
//! sums in block order, so results do not depend on the number of threads; the vectors are
//! allocated once and reused (a dot product or norm allocates only its per-block partial
//! sums).

use std::collections::VecDeque;

use rayon::prelude::*;

/// Coordinates per parallel block of the vector operations.
const BLOCK: usize = 1 << 14;
/// Armijo constant (libLBFGS `ftol`).
const FTOL: f64 = 1e-4;
/// Curvature constant of Moré-Thuente (libLBFGS `gtol`).
const GTOL: f64 = 0.9;
/// Curvature constant of the Wolfe backtracking searches (libLBFGS `wolfe`).
const WOLFE: f64 = 0.9;
/// Relative width of Moré-Thuente's interval of uncertainty below which it stops (libLBFGS
/// `xtol`).
const XTOL: f64 = 1e-16;
/// Smallest and largest step of the Wolfe and Moré-Thuente searches (libLBFGS `min_step`,
/// `max_step`).
const MIN_STEP: f64 = 1e-20;
const MAX_STEP: f64 = 1e20;
/// Backtracking factors: shorten (libLBFGS `dec`) and lengthen (`inc`).
const DEC: f64 = 0.5;
const INC: f64 = 2.1;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    let parts: Vec<f64> = a
        .par_chunks(BLOCK)
        .zip(b.par_chunks(BLOCK))
        .map(|(x, y)| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>())
        .collect();
    parts.iter().sum()
}

/// `y += t x`.
fn axpy(t: f64, x: &[f64], y: &mut [f64]) {
    y.par_chunks_mut(BLOCK)
        .zip(x.par_chunks(BLOCK))
        .for_each(|(y, x)| y.iter_mut().zip(x).for_each(|(p, q)| *p += t * q));
}

fn l1_norm(x: &[f64]) -> f64 {
    let parts: Vec<f64> = x
        .par_chunks(BLOCK)
        .map(|x| x.iter().map(|v| v.abs()).sum::<f64>())
        .collect();
    parts.iter().sum()
}

/// Settings of the quasi-Newton iteration (CRFsuite's defaults in [`Default`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// L1 weight `c1` (OWL-QN when `> 0`).
    pub c1: f64,
    /// L2 weight `c2`.
    pub c2: f64,
    /// Number of stored pairs `m` (CRFsuite `num_memories`: 6).
    pub memory: usize,
    /// Gradient test: stop when `||g|| / max(1, ||w||) <= epsilon` (CRFsuite: 1e-5).
    pub epsilon: f64,
    /// Line-search trials per iteration (CRFsuite `max_linesearch`: 20).
    pub max_linesearch: usize,
    /// The line search of L-BFGS (module docs). OWL-QN (`c1 > 0`) runs
    /// [`LineSearchMethod::Armijo`] whatever this says. Default: `Armijo`; CRFsuite's own
    /// default is Moré-Thuente, which the `lbfgs` trainer asks for.
    pub line_search: LineSearchMethod,
}

/// The line searches (module docs; libLBFGS's names in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineSearchMethod {
    /// Halving under the Armijo condition (`LBFGS_LINESEARCH_BACKTRACKING_ARMIJO`).
    #[default]
    Armijo,
    /// Backtracking (factors 0.5 and 2.1) to the Armijo and the regular Wolfe curvature
    /// condition `phi'(a) >= 0.9 phi'(0)` (`LBFGS_LINESEARCH_BACKTRACKING_WOLFE`, which
    /// CRFsuite calls `Backtracking`).
    BacktrackingWolfe,
    /// Backtracking to the strong Wolfe conditions, `|phi'(a)| <= 0.9 |phi'(0)|`
    /// (`LBFGS_LINESEARCH_BACKTRACKING_STRONG_WOLFE`, CRFsuite's `StrongBacktracking`).
    BacktrackingStrongWolfe,
    /// Moré and Thuente's search to the strong Wolfe conditions
    /// (`LBFGS_LINESEARCH_MORETHUENTE`, CRFsuite's default `MoreThuente`).
    MoreThuente,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            c1: 0.0,
            c2: 0.0,
            memory: 6,
            epsilon: 1e-5,
            max_linesearch: 20,
            line_search: LineSearchMethod::Armijo,
        }
    }
}

impl Settings {
    /// Checks the settings: `c1`, `c2` and `epsilon` finite and `>= 0`, `memory` and
    /// `max_linesearch` at least 1.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] naming the first invalid field.
    pub fn check(&self) -> Result<(), bl_core::BlError> {
        use bl_core::params::{at_least, nonnegative};
        nonnegative("c1", self.c1)?;
        nonnegative("c2", self.c2)?;
        nonnegative("epsilon", self.epsilon)?;
        at_least("memory", self.memory, 1)?;
        at_least("max_linesearch", self.max_linesearch, 1)?;
        Ok(())
    }
}

/// The error a fit reports for [`Outcome::NonFinite`] ([`bl_core::BlError::Numerical`],
/// context `"lbfgs"`): the optimizer can take no step, and the point is not a minimum.
pub fn non_finite<E: From<bl_core::BlError>>() -> E {
    bl_core::error::build::numerical(
        "lbfgs",
        "the gradient at the current weights, or the loss or gradient at every trial step, \
         has a NaN or infinite entry",
    )
}

/// Splits the items `0..n_items` into `n_chunks.max(1)` contiguous ranges of nearly equal
/// total `cost`, in order: chunk `c` takes items until the running cost reaches
/// `total (c + 1) / n_chunks`, and the last chunk takes all that is left (a range can be
/// empty). How the CRF losses the optimizer runs on (`lbfgs`, `online-bilinear`'s CRF
/// baselines) share their sequences among a fixed number of chunks.
pub fn balanced_ranges(
    n_items: usize,
    n_chunks: usize,
    cost: impl Fn(usize) -> usize,
) -> Vec<std::ops::Range<usize>> {
    let total: usize = (0..n_items).map(&cost).sum();
    let n_chunks = n_chunks.max(1);
    let mut ranges = Vec::with_capacity(n_chunks);
    let (mut start, mut acc) = (0, 0);
    for c in 0..n_chunks {
        let target = total * (c + 1) / n_chunks;
        let mut end = start;
        while end < n_items && (acc < target || c + 1 == n_chunks) {
            acc += cost(end);
            end += 1;
        }
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// `out = sum_c parts[c]`, every entry summed in the order of `parts` (so the result does not
/// depend on the number of threads), in parallel over blocks of coordinates: the reduction
/// of the chunks' gradients of the CRF losses ([`balanced_ranges`]).
///
/// # Panics
/// When a part holds fewer than `out.len()` values.
pub fn sum_in_order(parts: &[&[f64]], out: &mut [f64]) {
    const SUM_BLOCK: usize = 4096;
    out.par_chunks_mut(SUM_BLOCK)
        .enumerate()
        .for_each(|(j, out)| {
            let base = j * SUM_BLOCK;
            out.fill(0.0);
            let len = out.len();
            for part in parts {
                for (o, g) in out.iter_mut().zip(&part[base..base + len]) {
                    *o += g;
                }
            }
        });
}

/// How one iteration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// A step was taken; iterate again.
    Continue,
    /// A step was taken and the gradient test holds; or no step was taken because even
    /// the steepest-descent direction is not a descent direction (a zero pseudo-gradient).
    /// The trainers end the run on it as solved ([`bl_core::TerminationReason::Solved`]).
    GradientSmall,
    /// The line search accepted no step (module docs); the point is unchanged. The
    /// trainers end the run on it as out of their budget
    /// ([`bl_core::TerminationReason::BudgetExhausted`], not converged).
    LineSearchFailed,
    /// No step was taken: the (pseudo-)gradient at the current point has a NaN or
    /// infinite entry, or every trial of the line search had a NaN or infinite objective
    /// or directional derivative (e.g. a loss that is finite where its gradient is not).
    /// The fits report it as a numerical error, not as convergence.
    NonFinite,
}

impl Outcome {
    /// The stop the trainers end a run with after this outcome: none to go on,
    /// [`Stop::Solved`](bl_core::engine::Stop::Solved) for the gradient test,
    /// [`Stop::BudgetExhausted`](bl_core::engine::Stop::BudgetExhausted) for a line search
    /// that found no step (the point is no optimum). [`Outcome::NonFinite`] is a numerical
    /// error, which the callers return before asking; it maps to `BudgetExhausted` here so
    /// that it can never pass for convergence.
    #[must_use]
    pub fn stop(self) -> Option<bl_core::engine::Stop> {
        use bl_core::engine::Stop;
        match self {
            Self::Continue => None,
            Self::GradientSmall => Some(Stop::Solved),
            Self::LineSearchFailed | Self::NonFinite => Some(Stop::BudgetExhausted),
        }
    }
}

/// The state of L-BFGS / OWL-QN.
#[derive(Debug, Clone)]
pub struct QuasiNewton {
    settings: Settings,
    x: Vec<f64>,
    /// Gradient of the smooth part `loss + c2 ||x||^2` at `x`.
    g: Vec<f64>,
    /// `F(x)`.
    f: f64,
    /// Pseudo-gradient (OWL-QN) or `g`.
    pg: Vec<f64>,
    d: Vec<f64>,
    x_new: Vec<f64>,
    g_new: Vec<f64>,
    s: VecDeque<Vec<f64>>,
    y: VecDeque<Vec<f64>>,
    rho: VecDeque<f64>,
    alpha: Vec<f64>,
    spare: Vec<(Vec<f64>, Vec<f64>)>,
    iterations: usize,
    /// Line-search trials of the last iteration.
    trials: usize,
    /// Trials of this iteration's line search with a finite objective (and, where the
    /// search read it, a finite directional derivative).
    finite_trials: usize,
    /// The step accepted by the last iteration (0 before the first).
    step: f64,
}

impl QuasiNewton {
    /// Starts at `x0`, evaluating `loss` (which returns the smooth loss and writes its
    /// gradient) once.
    ///
    /// Memory: `2 memory + 6` vectors of `x0.len()` values (the history of `memory`
    /// pairs, the point, gradients and directions).
    ///
    /// # Errors
    /// As [`Settings::check`], before anything is allocated or evaluated;
    /// [`bl_core::BlError::InvalidParameter`] naming the weights when
    /// `x0.len() x 2 memory` exceeds [`bl_core::limits::MAX_ELEMENTS`] values or the
    /// `x0.len() x (2 memory + 5)` values cannot be reserved, checked before any of them
    /// is allocated.
    pub fn new(
        settings: Settings,
        x0: Vec<f64>,
        loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    ) -> Result<Self, bl_core::BlError> {
        settings.check()?;
        let n = x0.len();
        let what = "weights x (2 memory + 5) (L-BFGS history and buffers)";
        bl_core::limits::buffer_len(what, &[n, settings.memory, 2])?;
        let vectors = settings.memory.saturating_mul(2).saturating_add(5);
        bl_core::limits::reservable::<f64>(what, &[n, vectors])?;
        let zeros = || bl_core::limits::try_zeroed::<f64>("weights (L-BFGS)", &[n]);
        let mut g = zeros()?;
        let f = full(&settings, loss, &x0, &mut g);
        let mut qn = Self {
            settings,
            x: x0,
            g,
            f,
            pg: zeros()?,
            d: zeros()?,
            x_new: zeros()?,
            g_new: zeros()?,
            s: VecDeque::new(),
            y: VecDeque::new(),
            rho: VecDeque::new(),
            alpha: Vec::new(),
            spare: Vec::new(),
            iterations: 0,
            trials: 0,
            finite_trials: 0,
            step: 0.0,
        };
        qn.pseudo_gradient();
        Ok(qn)
    }

    /// `F` at the current point.
    pub fn objective(&self) -> f64 {
        self.f
    }

    /// The current point.
    pub fn x(&self) -> &[f64] {
        &self.x
    }

    /// `||pg||_2`, the norm of the (pseudo-)gradient of `F` at the current point.
    pub fn gradient_norm(&self) -> f64 {
        dot(&self.pg, &self.pg).sqrt()
    }

    /// Line-search trials (objective evaluations) of the last iteration.
    pub fn trials(&self) -> usize {
        self.trials
    }

    /// The step length along the search direction accepted by the last iteration (0 before
    /// the first iteration, or when it accepted none).
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Takes the current point out.
    pub fn into_x(self) -> Vec<f64> {
        self.x
    }

    fn pseudo_gradient(&mut self) {
        let c1 = self.settings.c1;
        if c1 <= 0.0 {
            self.pg.copy_from_slice(&self.g);
            return;
        }
        self.pg
            .par_chunks_mut(BLOCK)
            .zip(self.x.par_chunks(BLOCK).zip(self.g.par_chunks(BLOCK)))
            .for_each(|(pg, (x, g))| {
                for j in 0..pg.len() {
                    pg[j] = if x[j] > 0.0 {
                        g[j] + c1
                    } else if x[j] < 0.0 {
                        g[j] - c1
                    } else if g[j] + c1 < 0.0 {
                        g[j] + c1
                    } else if g[j] - c1 > 0.0 {
                        g[j] - c1
                    } else if g[j].is_nan() {
                        // Kept, so that the iteration reports it (no comparison above holds).
                        g[j]
                    } else {
                        0.0
                    };
                }
            });
    }

    /// `d = -H pg` by the two-loop recursion, then (OWL-QN) zeroed where its sign differs
    /// from `-pg`.
    fn direction(&mut self) {
        let k = self.s.len();
        self.d.copy_from_slice(&self.pg);
        self.alpha.clear();
        self.alpha.resize(k, 0.0);
        for j in (0..k).rev() {
            let a = self.rho[j] * dot(&self.s[j], &self.d);
            self.alpha[j] = a;
            axpy(-a, &self.y[j], &mut self.d);
        }
        if k > 0 {
            let (s, y) = (&self.s[k - 1], &self.y[k - 1]);
            let gamma = dot(s, y) / dot(y, y);
            self.d.par_iter_mut().for_each(|v| *v *= gamma);
        }
        for j in 0..k {
            let b = self.rho[j] * dot(&self.y[j], &self.d);
            axpy(self.alpha[j] - b, &self.s[j], &mut self.d);
        }
        let pg = &self.pg;
        let owl = self.settings.c1 > 0.0;
        self.d
            .par_chunks_mut(BLOCK)
            .zip(pg.par_chunks(BLOCK))
            .for_each(|(d, pg)| {
                for j in 0..d.len() {
                    d[j] = -d[j];
                    if owl && d[j] * pg[j] >= 0.0 {
                        d[j] = 0.0;
                    }
                }
            });
    }

    /// Evaluates `F` at `x + step d` (OWL-QN: projected onto the orthant of `x`) into
    /// `x_new`, `g_new`, counting the trial.
    fn trial(&mut self, step: f64, loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64) -> f64 {
        self.trials += 1;
        let owl = self.settings.c1 > 0.0;
        let (x, d) = (&self.x, &self.d);
        self.x_new
            .par_chunks_mut(BLOCK)
            .zip(x.par_chunks(BLOCK).zip(d.par_chunks(BLOCK)))
            .for_each(|(xn, (x, d))| {
                for j in 0..xn.len() {
                    let v = x[j] + step * d[j];
                    // OWL-QN: stay in the orthant of x (sign of x, or of -pg at 0); the
                    // direction already has that sign where x = 0.
                    let orthant = if x[j] != 0.0 { x[j] } else { d[j] };
                    xn[j] = if owl && v * orthant <= 0.0 { 0.0 } else { v };
                }
            });
        full(&self.settings, loss, &self.x_new, &mut self.g_new)
    }

    /// The predicted first-order decrease from `x` to the trial point `x_new = x + step d`:
    /// `step phi'(0)`, or with OWL-QN's projection `pg . (x_new - x)`.
    fn first_order_decrease(&self, step: f64, slope: f64) -> f64 {
        if self.settings.c1 <= 0.0 {
            return step * slope;
        }
        let parts: Vec<f64> = self
            .pg
            .par_chunks(BLOCK)
            .zip(self.x_new.par_chunks(BLOCK).zip(self.x.par_chunks(BLOCK)))
            .map(|(pg, (xn, x))| (0..pg.len()).map(|j| pg[j] * (xn[j] - x[j])).sum::<f64>())
            .collect();
        parts.iter().sum()
    }

    /// Backtracking from `step` (module docs): Armijo only (`curvature` `None`: halving, no
    /// step bounds), or with the regular or strong Wolfe curvature condition. Returns the
    /// accepted step and `F` there (`x_new`, `g_new` hold the point).
    fn backtrack(
        &mut self,
        mut step: f64,
        slope: f64,
        curvature: Option<Curvature>,
        loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    ) -> Option<(f64, f64)> {
        for _ in 0..self.settings.max_linesearch {
            let f_new = self.trial(step, loss);
            let decrease = self.first_order_decrease(step, slope);
            let factor = if !(f_new.is_finite() && f_new <= self.f + FTOL * decrease) {
                self.finite_trials += usize::from(f_new.is_finite());
                DEC
            } else {
                // A non-finite directional derivative fails as a non-finite objective does.
                let dg = dot(&self.g_new, &self.d);
                self.finite_trials += usize::from(dg.is_finite());
                match curvature {
                    _ if !dg.is_finite() => DEC,
                    None => return Some((step, f_new)),
                    Some(_) if dg < WOLFE * slope => INC,
                    Some(Curvature::StrongWolfe) if dg > -WOLFE * slope => DEC,
                    Some(_) => return Some((step, f_new)),
                }
            };
            if curvature.is_some() && !(MIN_STEP..=MAX_STEP).contains(&step) {
                return None;
            }
            step *= factor;
        }
        None
    }

    /// Moré and Thuente's search from `step` (module docs), on `phi(a) = F(x + a d)` with
    /// `phi'(0) = slope < 0`. Returns the accepted step and `F` there (`x_new`, `g_new` hold
    /// the point).
    fn more_thuente(
        &mut self,
        mut step: f64,
        slope: f64,
        loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    ) -> Option<(f64, f64)> {
        let f0 = self.f;
        // Slope of the sufficient-decrease line: phi(a) <= f0 + a test.
        let test = FTOL * slope;
        // `best`: the trial with the least value so far (step 0 at the start); `other`: the
        // other end of the interval of uncertainty.
        let start = Point {
            step: 0.0,
            f: f0,
            d: slope,
        };
        let (mut best, mut other) = (start, start);
        let mut bracketed = false;
        // Stage 1 works on the auxiliary psi(a) = phi(a) - a test until a step with psi <= 0
        // and phi' >= min(ftol, gtol) phi'(0) is seen (the paper's Section 3).
        let mut stage1 = true;
        let mut width = MAX_STEP - MIN_STEP;
        let mut previous_width = 2.0 * width;
        // Steps at or beyond `limit` gave a non-finite value.
        let mut limit = f64::INFINITY;
        for _ in 0..self.settings.max_linesearch {
            let (lo, hi) = if bracketed {
                (best.step.min(other.step), best.step.max(other.step))
            } else {
                (best.step, step + 4.0 * (step - best.step))
            };
            step = step.clamp(MIN_STEP, MAX_STEP);
            if step >= limit {
                step = best.step + 0.5 * (limit - best.step);
            }
            // Rounding errors, or an interval narrower than xtol: libLBFGS tries the best
            // step once more and reports the error; no step is accepted either way.
            if bracketed && (step <= lo || step >= hi || hi - lo <= XTOL * hi) {
                return None;
            }
            let f = self.trial(step, loss);
            let dg = dot(&self.g_new, &self.d);
            if !(f.is_finite() && dg.is_finite()) {
                limit = step;
                step = best.step + 0.5 * (step - best.step);
                continue;
            }
            self.finite_trials += 1;
            let sufficient = f <= f0 + step * test;
            if sufficient && dg.abs() <= GTOL * -slope {
                return Some((step, f));
            }
            let at_max = step == MAX_STEP && sufficient && dg <= test;
            let at_min = step == MIN_STEP && (!sufficient || dg >= test);
            if at_max || at_min {
                return None;
            }
            if stage1 && sufficient && dg >= FTOL.min(GTOL) * slope {
                stage1 = false;
            }
            let t = Point { step, f, d: dg };
            let next = if stage1 && !sufficient && f <= best.f {
                // A lower value without sufficient decrease: interpolate psi, not phi.
                let (mut b, mut o) = (best.shifted(test), other.shifted(test));
                let next = next_trial(&mut b, &mut o, t.shifted(test), (lo, hi), &mut bracketed);
                (best, other) = (b.shifted(-test), o.shifted(-test));
                next
            } else {
                next_trial(&mut best, &mut other, t, (lo, hi), &mut bracketed)
            };
            step = next?;
            if bracketed {
                // Force the interval to shrink: bisect when the last two trials left it
                // wider than 0.66 of its width before them.
                let new_width = (other.step - best.step).abs();
                if new_width >= 0.66 * previous_width {
                    step = best.step + 0.5 * (other.step - best.step);
                }
                previous_width = width;
                width = new_width;
            }
        }
        None
    }

    /// One iteration: direction, line search, memory update.
    pub fn iterate(&mut self, loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64) -> Outcome {
        self.iterations += 1;
        self.trials = 0;
        self.finite_trials = 0;
        self.step = 0.0;
        self.direction();
        let owl = self.settings.c1 > 0.0;
        let slope = dot(&self.pg, &self.d);
        if slope.is_nan() || slope >= 0.0 {
            // Not a descent direction (e.g. pg = 0): restart from steepest descent.
            self.s.clear();
            self.y.clear();
            self.rho.clear();
            self.direction();
        }
        let slope = dot(&self.pg, &self.d);
        if !slope.is_finite() {
            return Outcome::NonFinite;
        }
        if slope >= 0.0 {
            return Outcome::GradientSmall;
        }
        let step = if self.iterations == 1 {
            1.0 / dot(&self.d, &self.d).sqrt()
        } else {
            1.0
        };
        let method = if owl {
            LineSearchMethod::Armijo
        } else {
            self.settings.line_search
        };
        let accepted = match method {
            LineSearchMethod::Armijo => self.backtrack(step, slope, None, loss),
            LineSearchMethod::BacktrackingWolfe => {
                self.backtrack(step, slope, Some(Curvature::Wolfe), loss)
            }
            LineSearchMethod::BacktrackingStrongWolfe => {
                self.backtrack(step, slope, Some(Curvature::StrongWolfe), loss)
            }
            LineSearchMethod::MoreThuente => self.more_thuente(step, slope, loss),
        };
        let Some((step, f_new)) = accepted else {
            return if self.finite_trials == 0 {
                Outcome::NonFinite
            } else {
                Outcome::LineSearchFailed
            };
        };
        self.step = step;
        // Memory update with s = x_new - x, y = g_new - g (smooth gradients).
        let (mut s, mut y) = if self.s.len() >= self.settings.memory {
            self.rho.pop_front();
            (
                self.s.pop_front().unwrap_or_default(),
                self.y.pop_front().unwrap_or_default(),
            )
        } else {
            self.spare.pop().unwrap_or_default()
        };
        s.resize(self.x.len(), 0.0);
        y.resize(self.x.len(), 0.0);
        s.par_chunks_mut(BLOCK)
            .zip(self.x_new.par_chunks(BLOCK).zip(self.x.par_chunks(BLOCK)))
            .for_each(|(s, (a, b))| (0..s.len()).for_each(|j| s[j] = a[j] - b[j]));
        y.par_chunks_mut(BLOCK)
            .zip(self.g_new.par_chunks(BLOCK).zip(self.g.par_chunks(BLOCK)))
            .for_each(|(y, (a, b))| (0..y.len()).for_each(|j| y[j] = a[j] - b[j]));
        let sy = dot(&s, &y);
        if sy > 1e-10 * dot(&y, &y).max(f64::MIN_POSITIVE) && sy > 0.0 {
            self.rho.push_back(1.0 / sy);
            self.s.push_back(s);
            self.y.push_back(y);
        } else {
            self.spare.push((s, y));
        }
        std::mem::swap(&mut self.x, &mut self.x_new);
        std::mem::swap(&mut self.g, &mut self.g_new);
        self.f = f_new;
        self.pseudo_gradient();
        let gnorm = dot(&self.pg, &self.pg).sqrt();
        let xnorm = dot(&self.x, &self.x).sqrt().max(1.0);
        if gnorm / xnorm <= self.settings.epsilon {
            Outcome::GradientSmall
        } else {
            Outcome::Continue
        }
    }
}

/// `F(x)`, writing the gradient of the smooth part (`loss + c2 ||x||^2`) into `g`.
fn full(
    settings: &Settings,
    loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    x: &[f64],
    g: &mut [f64],
) -> f64 {
    let mut f = loss(x, g);
    if settings.c2 > 0.0 {
        f += settings.c2 * dot(x, x);
        axpy(2.0 * settings.c2, x, g);
    }
    if settings.c1 > 0.0 {
        f += settings.c1 * l1_norm(x);
    }
    f
}

/// The curvature condition of a Wolfe backtracking search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curvature {
    /// `phi'(a) >= wolfe phi'(0)`.
    Wolfe,
    /// `|phi'(a)| <= wolfe |phi'(0)|`.
    StrongWolfe,
}

/// A step of a line search with the function value and the directional derivative there.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Point {
    step: f64,
    f: f64,
    d: f64,
}

impl Point {
    /// The point on `phi(a) - a slope` (Moré-Thuente's auxiliary function `psi` for
    /// `slope = ftol phi'(0)`, up to a constant; `-slope` shifts back).
    fn shifted(self, slope: f64) -> Self {
        Self {
            step: self.step,
            f: self.f - self.step * slope,
            d: self.d - slope,
        }
    }
}

/// The minimizer of the cubic that interpolates the values and derivatives at `a` and `b`
/// (Nocedal and Wright, *Numerical Optimization*, eq. (3.59)), with the discriminant
/// scaled by the largest magnitude as Moré and Thuente do against overflow. Also returns
/// whether the cubic has a local minimizer (a positive discriminant); without one the
/// discriminant is taken as 0 and the step returned means nothing (case 3 of
/// [`next_trial`] then takes a bound instead).
fn cubic_minimizer(a: Point, b: Point) -> (f64, bool) {
    let h = b.step - a.step;
    let theta = 3.0 * (a.f - b.f) / h + a.d + b.d;
    let scale = theta.abs().max(a.d.abs()).max(b.d.abs());
    let disc = (theta / scale) * (theta / scale) - (a.d / scale) * (b.d / scale);
    // gamma has the sign of b - a, so that the ratio below picks the minimizer.
    let gamma = (scale * disc.max(0.0).sqrt()).copysign(h);
    let ratio = (gamma - a.d + theta) / (2.0 * gamma - a.d + b.d);
    (a.step + ratio * h, disc > 0.0)
}

/// The minimizer of the quadratic through `a`'s value and derivative and `b`'s value.
fn quadratic_minimizer(a: Point, b: Point) -> f64 {
    let h = b.step - a.step;
    a.step + a.d / ((a.f - b.f) / h + a.d) / 2.0 * h
}

/// The zero of the line through the derivatives at `a` and `b` (the secant step).
fn secant_minimizer(a: Point, b: Point) -> f64 {
    b.step + b.d / (b.d - a.d) * (a.step - b.step)
}

/// Moré and Thuente's update of the interval of uncertainty and choice of the next trial
/// (their Section 4, cases 1 to 4). `best` is the end with the least value, whose
/// derivative points into the interval, `other` the other end, `t` the new trial and
/// `[lo, hi]` the range allowed for the next trial. Updates the ends and `bracketed` (the
/// interval is known to contain a minimizer) and returns the next step, or `None` when
/// the inputs break those invariants (which only rounding errors do).
fn next_trial(
    best: &mut Point,
    other: &mut Point,
    t: Point,
    (lo, hi): (f64, f64),
    bracketed: &mut bool,
) -> Option<f64> {
    if *bracketed {
        let inside = best.step.min(other.step) < t.step && t.step < best.step.max(other.step);
        let descends = best.d * (t.step - best.step) < 0.0;
        if !inside || !descends || hi < lo {
            return None;
        }
    }
    let opposite = (t.d < 0.0 && best.d > 0.0) || (t.d > 0.0 && best.d < 0.0);
    // The candidate, and whether it must stay within 0.66 of the bracket from `best`.
    let (candidate, guard) = if t.f > best.f {
        // Case 1, a higher value: a minimizer lies between best and t. Take the cubic step
        // if it is nearer best than the quadratic one, else their midpoint.
        *bracketed = true;
        let (cubic, _) = cubic_minimizer(*best, t);
        let quadratic = quadratic_minimizer(*best, t);
        let step = if (cubic - best.step).abs() < (quadratic - best.step).abs() {
            cubic
        } else {
            cubic + 0.5 * (quadratic - cubic)
        };
        (step, true)
    } else if opposite {
        // Case 2, a lower value and derivatives of opposite signs: bracketed too. Take the
        // step (cubic or secant) farther from t.
        *bracketed = true;
        let (cubic, _) = cubic_minimizer(*best, t);
        let secant = secant_minimizer(*best, t);
        let step = if (cubic - t.step).abs() > (secant - t.step).abs() {
            cubic
        } else {
            secant
        };
        (step, false)
    } else if t.d.abs() < best.d.abs() {
        // Case 3, a lower value, same signs, a smaller derivative: the cubic step only if
        // the cubic has its minimizer beyond t, else the bound in the direction of the
        // step; then the one nearer t when bracketed, the farther one when extrapolating.
        let (cubic, has_minimum) = cubic_minimizer(*best, t);
        let beyond = (cubic - t.step) * (t.step - best.step) > 0.0;
        let cubic = if has_minimum && beyond {
            cubic
        } else if t.step > best.step {
            hi
        } else {
            lo
        };
        let secant = secant_minimizer(*best, t);
        let (to_cubic, to_secant) = ((t.step - cubic).abs(), (t.step - secant).abs());
        let take_cubic = if *bracketed {
            to_cubic < to_secant
        } else {
            to_cubic > to_secant
        };
        (if take_cubic { cubic } else { secant }, true)
    } else {
        // Case 4, a lower value, same signs, no smaller derivative: the cubic step between
        // t and the other end when bracketed, else the bound in the direction of the step.
        let step = if *bracketed {
            cubic_minimizer(t, *other).0
        } else if t.step > best.step {
            hi
        } else {
            lo
        };
        (step, false)
    };
    // The new interval: t replaces the end on its side of the minimizer.
    if t.f > best.f {
        *other = t;
    } else {
        if opposite {
            *other = *best;
        }
        *best = t;
    }
    let mut step = if candidate.is_nan() {
        // Degenerate interpolation (e.g. equal values and zero derivatives): bisect.
        if *bracketed {
            best.step + 0.5 * (other.step - best.step)
        } else {
            hi
        }
    } else {
        candidate.max(lo).min(hi)
    };
    if *bracketed && guard {
        let cap = best.step + 0.66 * (other.step - best.step);
        step = if best.step < other.step {
            step.min(cap)
        } else {
            step.max(cap)
        };
    }
    Some(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    const METHODS: [LineSearchMethod; 4] = [
        LineSearchMethod::Armijo,
        LineSearchMethod::BacktrackingWolfe,
        LineSearchMethod::BacktrackingStrongWolfe,
        LineSearchMethod::MoreThuente,
    ];

    fn settings(line_search: LineSearchMethod, epsilon: f64) -> Settings {
        Settings {
            epsilon,
            line_search,
            ..Settings::default()
        }
    }

    /// `1/2 sum_j a_j (x_j - b_j)^2` with `a_j` from 1 to `cond` (log-spaced): minimizer `b`.
    fn quadratic(n: usize, cond: f64) -> (Vec<f64>, impl FnMut(&[f64], &mut [f64]) -> f64) {
        let a: Vec<f64> = (0..n)
            .map(|j| cond.powf(j as f64 / (n - 1) as f64))
            .collect();
        let b: Vec<f64> = (0..n).map(|j| ((j * 7 % 11) as f64 - 5.0) / 3.0).collect();
        let loss = {
            let b = b.clone();
            move |x: &[f64], g: &mut [f64]| {
                let mut f = 0.0;
                for j in 0..x.len() {
                    f += 0.5 * a[j] * (x[j] - b[j]).powi(2);
                    g[j] = a[j] * (x[j] - b[j]);
                }
                f
            }
        };
        (b, loss)
    }

    /// The extended Rosenbrock function `sum_i 100 (x_{2i+1} - x_{2i}^2)^2 + (1 - x_{2i})^2`:
    /// minimizer all ones, minimum 0.
    fn rosenbrock(x: &[f64], g: &mut [f64]) -> f64 {
        let mut f = 0.0;
        for i in (0..x.len()).step_by(2) {
            let (u, v) = (x[i], x[i + 1]);
            f += 100.0 * (v - u * u).powi(2) + (1.0 - u).powi(2);
            g[i] = -400.0 * u * (v - u * u) - 2.0 * (1.0 - u);
            g[i + 1] = 200.0 * (v - u * u);
        }
        f
    }

    /// Iterates to the optimizer's own stop (at most `max` iterations), checking after every
    /// step the conditions of `method` (with `c1 = 0`): the point is `x + step d`, `F` and
    /// the gradient there are the loss's, Armijo holds, and the curvature condition of the
    /// method. Returns the optimizer, the iterations and the last outcome.
    fn run_checked(
        settings: Settings,
        x0: Vec<f64>,
        loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
        max: usize,
    ) -> (QuasiNewton, usize, Outcome) {
        let mut qn = QuasiNewton::new(settings, x0, loss).unwrap();
        let mut scratch = vec![0.0; qn.x.len()];
        for k in 1..=max {
            let (x, g, f) = (qn.x.clone(), qn.g.clone(), qn.f);
            let outcome = qn.iterate(loss);
            if outcome == Outcome::LineSearchFailed || qn.step == 0.0 {
                assert_eq!(qn.x, x, "no step, same point");
                return (qn, k, outcome);
            }
            let (step, d) = (qn.step, &qn.d);
            for j in 0..x.len() {
                assert_eq!(qn.x[j], x[j] + step * d[j]);
            }
            assert_eq!(qn.f.to_bits(), loss(&qn.x, &mut scratch).to_bits());
            assert_eq!(qn.g, scratch);
            let slope: f64 = g.iter().zip(d).map(|(p, q)| p * q).sum();
            let dg: f64 = qn.g.iter().zip(d).map(|(p, q)| p * q).sum();
            assert!(slope < 0.0, "iteration {k}: ascent direction");
            let tol = 1e-12 * f.abs().max(1e-300);
            assert!(
                qn.f <= f + FTOL * step * slope + tol,
                "{:?}, iteration {k}: Armijo fails at step {step}",
                settings.line_search
            );
            let curvature_ok = match settings.line_search {
                LineSearchMethod::Armijo => true,
                LineSearchMethod::BacktrackingWolfe => dg >= WOLFE * slope * (1.0 + 1e-12),
                LineSearchMethod::BacktrackingStrongWolfe => {
                    dg.abs() <= WOLFE * slope.abs() * (1.0 + 1e-12)
                }
                LineSearchMethod::MoreThuente => dg.abs() <= GTOL * slope.abs() * (1.0 + 1e-12),
            };
            assert!(
                curvature_ok,
                "{:?}, iteration {k}: curvature fails at step {step}: {dg} vs {slope}",
                settings.line_search
            );
            if outcome != Outcome::Continue {
                return (qn, k, outcome);
            }
        }
        (qn, max, Outcome::Continue)
    }

    #[test]
    fn every_line_search_meets_its_conditions_and_reaches_a_badly_scaled_quadratic_minimum() {
        // Curvatures from 1 to cond: step 1 of L-BFGS is often far too short along the flat
        // directions, which halving accepts and Moré-Thuente extends (iterations here, with
        // halving, Wolfe backtracking and Moré-Thuente: 55, 55, 22 at cond 1e4; 83, 57, 19
        // at 1e5; 136, 109, 21 at 1e6).
        let n = 5;
        for cond in [1e4, 1e5, 1e6] {
            let mut iterations = Vec::new();
            for method in METHODS {
                let (b, mut loss) = quadratic(n, cond);
                let (qn, k, outcome) =
                    run_checked(settings(method, 1e-6), vec![0.0; n], &mut loss, 1000);
                assert_eq!(outcome, Outcome::GradientSmall, "{method:?}, cond {cond}");
                for j in 0..n {
                    assert!(
                        (qn.x[j] - b[j]).abs() < 1e-5,
                        "{method:?}, cond {cond}: {j}"
                    );
                }
                iterations.push(k);
            }
            let (halving, more_thuente) = (iterations[0], iterations[3]);
            assert!(
                2 * more_thuente < halving,
                "cond {cond}: Moré-Thuente {more_thuente} iterations, halving {halving}: \
                 {iterations:?}"
            );
        }
    }

    #[test]
    fn balanced_ranges_cover_the_items_in_order_and_sum_in_order_adds_the_parts() {
        let cost = |i: usize| [5, 1, 1, 1, 1, 1, 5, 1][i];
        assert_eq!(balanced_ranges(8, 2, cost), [0..4, 4..8]);
        assert_eq!(balanced_ranges(8, 0, cost), balanced_ranges(8, 1, cost));
        assert_eq!(balanced_ranges(8, 1, cost).len(), 1);
        assert_eq!(balanced_ranges(8, 1, cost)[0], 0..8);
        assert_eq!(balanced_ranges(2, 4, cost), [0..1, 1..1, 1..1, 1..2]);
        assert_eq!(balanced_ranges(0, 3, cost), [0..0, 0..0, 0..0]);
        let n = 10_000;
        let parts: Vec<Vec<f64>> = (0..3)
            .map(|p| (0..n).map(|j| (j * (p + 1)) as f64).collect())
            .collect();
        let parts: Vec<&[f64]> = parts.iter().map(Vec::as_slice).collect();
        let mut out = vec![f64::NAN; n];
        sum_in_order(&parts, &mut out);
        assert!(out.iter().enumerate().all(|(j, &v)| v == (6 * j) as f64));
    }

    #[test]
    fn every_line_search_meets_its_conditions_on_rosenbrock() {
        for method in METHODS {
            let x0 = [-1.2, 1.0, -1.2, 1.0, 0.5, -0.3].to_vec();
            let (qn, _, outcome) = run_checked(settings(method, 1e-8), x0, &mut rosenbrock, 500);
            assert_eq!(outcome, Outcome::GradientSmall, "{method:?}");
            for (j, v) in qn.x.iter().enumerate() {
                assert!((v - 1.0).abs() < 1e-6, "{method:?} {j}: {v}");
            }
        }
    }

    #[test]
    fn more_thuente_extrapolates_a_first_step_that_is_far_too_short() {
        // 1/2 1e-4 ||x - c||^2 from 0: d = 1e-4 c, ||c|| = 25. The first trial 1 / ||d|| =
        // 400 moves one unit along d, the minimizer is 25 units away (step 1e4). Halving
        // accepts 400 (phi' still 0.96 phi'(0)); Moré-Thuente extrapolates to 5 x 400 (the
        // interval's limit), where |phi'| = 0.8 |phi'(0)| satisfies the strong Wolfe
        // condition.
        let c = [10.0, -10.0, 20.0, 5.0];
        let calls = std::cell::Cell::new(0);
        let mut loss = |x: &[f64], g: &mut [f64]| {
            calls.set(calls.get() + 1);
            let mut f = 0.0;
            for j in 0..x.len() {
                f += 0.5e-4 * (x[j] - c[j]).powi(2);
                g[j] = 1e-4 * (x[j] - c[j]);
            }
            f
        };
        let first = 1.0 / (1e-4 * 25.0);
        let mut halving = QuasiNewton::new(
            settings(LineSearchMethod::Armijo, 1e-5),
            vec![0.0; 4],
            &mut loss,
        )
        .unwrap();
        assert_eq!(halving.iterate(&mut loss), Outcome::Continue);
        assert_eq!(halving.step(), first);
        assert_eq!(halving.trials(), 1);
        let mut mt = QuasiNewton::new(
            settings(LineSearchMethod::MoreThuente, 1e-5),
            vec![0.0; 4],
            &mut loss,
        )
        .unwrap();
        calls.set(0);
        mt.iterate(&mut loss);
        assert!(
            (mt.step() - 5.0 * first).abs() < 1e-9 * first,
            "{} vs {first}",
            mt.step()
        );
        assert_eq!(mt.trials(), 2);
        assert_eq!(
            mt.trials(),
            calls.get(),
            "every evaluation is a recorded trial"
        );
        // f = f0 (1 - a / 1e4)^2: 0.64 f0 against halving's 0.9216 f0.
        let f0 = 0.5e-4 * 625.0;
        assert!((mt.objective() - 0.64 * f0).abs() < 1e-12);
        assert!((halving.objective() - 0.9216 * f0).abs() < 1e-12);
    }

    #[test]
    fn a_non_finite_trial_shortens_the_step() {
        // exp(x - 40) - x, infinite beyond 50: from 0, Moré-Thuente extrapolates (x = 1, 5,
        // 21, 85) while the slope stays near -1, meets the infinite value at 85 and comes
        // back into the finite part.
        let infinite = std::cell::Cell::new(0);
        let mut loss = |x: &[f64], g: &mut [f64]| {
            if x[0] > 50.0 {
                infinite.set(infinite.get() + 1);
                g[0] = f64::NAN;
                return f64::INFINITY;
            }
            g[0] = (x[0] - 40.0).exp() - 1.0;
            (x[0] - 40.0).exp() - x[0]
        };
        // Every accepted step meets its conditions. Moré-Thuente and Wolfe backtracking
        // reach the minimizer; halving stalls at x = 3 (where y = g_new - g rounds to 1e-16,
        // so the next direction is ~1e16 and all 20 halvings stay in the infinite part: no
        // trial is finite, a numerical failure, not a minimum), and strong Wolfe
        // backtracking jumps over the narrow window of acceptable steps (near x = 40) both
        // ways, lengthening by 2.1 and shortening by 0.5, until its 20 trials are spent, as
        // libLBFGS's would.
        for method in METHODS {
            infinite.set(0);
            let (qn, _, outcome) = run_checked(settings(method, 1e-8), vec![0.0], &mut loss, 100);
            match method {
                LineSearchMethod::MoreThuente | LineSearchMethod::BacktrackingWolfe => {
                    assert_eq!(outcome, Outcome::GradientSmall, "{method:?}");
                    assert!((qn.x[0] - 40.0).abs() < 1e-6, "{method:?}: {}", qn.x[0]);
                }
                LineSearchMethod::Armijo => {
                    assert_eq!(outcome, Outcome::NonFinite, "{method:?}");
                    assert_eq!(qn.trials(), 20);
                    assert!((qn.x[0] - 3.0).abs() < 0.5, "{method:?}: {}", qn.x[0]);
                }
                LineSearchMethod::BacktrackingStrongWolfe => {
                    assert_eq!(outcome, Outcome::LineSearchFailed, "{method:?}");
                }
            }
            if method == LineSearchMethod::MoreThuente {
                assert!(infinite.get() > 0);
            }
        }
    }

    #[test]
    fn owlqn_backtracks_under_armijo_whatever_the_setting() {
        // 1/2 sum a_j (x_j - b_j)^2 + c1 ||x||_1: the same iterates, bit for bit, for every
        // line search.
        let runs: Vec<(Vec<f64>, Vec<usize>)> = METHODS
            .iter()
            .map(|&method| {
                let (_, mut loss) = quadratic(30, 100.0);
                let settings = Settings {
                    c1: 0.7,
                    ..settings(method, 1e-10)
                };
                let mut qn = QuasiNewton::new(settings, vec![0.0; 30], &mut loss).unwrap();
                let mut trials = Vec::new();
                for _ in 0..200 {
                    let outcome = qn.iterate(&mut loss);
                    trials.push(qn.trials());
                    if outcome != Outcome::Continue {
                        break;
                    }
                }
                (qn.into_x(), trials)
            })
            .collect();
        for run in &runs[1..] {
            assert_eq!(run, &runs[0]);
        }
        assert!(
            runs[0].0.contains(&0.0),
            "the L1 term should zero some weights"
        );
    }

    #[test]
    fn the_default_search_is_armijo_halving() {
        assert_eq!(Settings::default().line_search, LineSearchMethod::Armijo);
    }

    #[test]
    fn interpolation_steps_are_exact_on_cubics_and_quadratics() {
        // p(a) = (a - 1)(a - 3)(a + 2) = a^3 - 2a^2 - 5a + 6: local minimizer (2 + sqrt 19) / 3.
        let p = |a: f64| Point {
            step: a,
            f: a.powi(3) - 2.0 * a * a - 5.0 * a + 6.0,
            d: 3.0 * a * a - 4.0 * a - 5.0,
        };
        let exact = (2.0 + 19f64.sqrt()) / 3.0;
        for (u, v) in [(0.0, 4.0), (4.0, 0.5), (1.0, 2.0), (2.5, 3.5)] {
            let (m, has_minimum) = cubic_minimizer(p(u), p(v));
            assert!(has_minimum);
            assert!((m - exact).abs() < 1e-12, "{u} {v}: {m}");
        }
        // A monotone cubic has no minimizer.
        let q = |a: f64| Point {
            step: a,
            f: a.powi(3) + a,
            d: 3.0 * a * a + 1.0,
        };
        assert!(!cubic_minimizer(q(0.0), q(1.0)).1);
        // q(a) = 2 (a - 1.5)^2: the quadratic and secant steps are exact.
        let q = |a: f64| Point {
            step: a,
            f: 2.0 * (a - 1.5).powi(2),
            d: 4.0 * (a - 1.5),
        };
        for (u, v) in [(0.0, 4.0), (3.0, 2.0), (-1.0, 0.0)] {
            assert!((quadratic_minimizer(q(u), q(v)) - 1.5).abs() < 1e-12);
            assert!((secant_minimizer(q(u), q(v)) - 1.5).abs() < 1e-12);
            assert!((cubic_minimizer(q(u), q(v)).0 - 1.5).abs() < 1e-12);
        }
    }

    #[test]
    fn more_thuente_steps_stay_in_the_interval_of_uncertainty() {
        // A higher value at t brackets a minimizer between best and t; the next step lies
        // strictly inside and within 0.66 of the interval from best.
        let phi = |a: f64| Point {
            step: a,
            f: (a - 1.0).powi(2) - 1.0 + 0.3 * a.powi(3),
            d: 2.0 * (a - 1.0) + 0.9 * a * a,
        };
        let (mut best, mut other) = (phi(0.0), phi(0.0));
        let mut bracketed = false;
        let t = phi(5.0);
        let next = next_trial(&mut best, &mut other, t, (0.0, 25.0), &mut bracketed).unwrap();
        assert!(bracketed);
        assert_eq!((best, other), (phi(0.0), t));
        assert!(next > 0.0 && next <= 0.66 * 5.0 + 1e-12, "{next}");
        // A trial outside the bracketed interval is a rounding error.
        assert!(next_trial(&mut best, &mut other, phi(6.0), (0.0, 5.0), &mut bracketed).is_none());
    }

    /// Settings a caller builds by hand are checked before anything is allocated or the
    /// loss is evaluated.
    #[test]
    fn bad_settings_are_refused_before_the_loss_is_called() {
        let bad = [
            Settings {
                c1: -1.0,
                ..Settings::default()
            },
            Settings {
                c2: f64::NAN,
                ..Settings::default()
            },
            Settings {
                epsilon: f64::INFINITY,
                ..Settings::default()
            },
            Settings {
                memory: 0,
                ..Settings::default()
            },
            Settings {
                max_linesearch: 0,
                ..Settings::default()
            },
        ];
        let names = ["c1", "c2", "epsilon", "memory", "max_linesearch"];
        for (settings, name) in bad.into_iter().zip(names) {
            let mut calls = 0;
            let mut loss = |_: &[f64], _: &mut [f64]| {
                calls += 1;
                0.0
            };
            let err = QuasiNewton::new(settings, vec![0.0; 3], &mut loss).unwrap_err();
            assert!(
                matches!(err, bl_core::BlError::InvalidParameter { name: n, .. } if n == name),
                "{name}: {err}"
            );
            assert_eq!(calls, 0, "{name}");
        }
        assert!(Settings::default().check().is_ok());
    }

    #[test]
    fn a_non_finite_gradient_where_the_loss_is_finite_is_reported_not_taken_for_a_minimum()
    -> crate::Result<()> {
        // 1/2 ||x - 1||^2, whose gradient has a NaN or infinite entry at x0 = 0: every line
        // search, with and without the L1 term, reports it and leaves the point unchanged.
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for method in METHODS {
                for c1 in [0.0, 0.1] {
                    let mut loss = |x: &[f64], g: &mut [f64]| {
                        let mut f = 0.0;
                        for j in 0..x.len() {
                            f += 0.5 * (x[j] - 1.0).powi(2);
                            g[j] = x[j] - 1.0;
                        }
                        g[1] = bad;
                        f
                    };
                    let s = Settings {
                        c1,
                        ..settings(method, 1e-6)
                    };
                    let mut qn = QuasiNewton::new(s, vec![0.0; 3], &mut loss)?;
                    let case = format!("{bad} {method:?} c1 {c1}");
                    assert_eq!(qn.iterate(&mut loss), Outcome::NonFinite, "{case}");
                    assert_eq!(qn.x(), [0.0; 3], "{case}");
                    assert_eq!(qn.step(), 0.0, "{case}");
                }
            }
        }
        let err: bl_core::BlError = non_finite();
        assert!(
            matches!(
                err,
                bl_core::BlError::Numerical {
                    context: "lbfgs",
                    ..
                }
            ),
            "{err}"
        );
        Ok(())
    }

    /// `memory = MAX_ELEMENTS` pairs of 3 weights: `3 x 2^33` values, above the limit.
    /// It used to be accepted (and the history grown without a check); it is refused
    /// before anything is allocated or evaluated, naming the weights.
    #[test]
    fn a_history_above_the_limit_is_refused_before_allocation() {
        let mut calls = 0;
        let mut loss = |_: &[f64], g: &mut [f64]| {
            calls += 1;
            g.fill(0.0);
            0.0
        };
        let settings = Settings {
            memory: bl_core::limits::MAX_ELEMENTS,
            ..Settings::default()
        };
        let err = QuasiNewton::new(settings, vec![0.0; 3], &mut loss).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("weights x (2 memory + 5)"), "{text}");
        assert!(
            text.contains(&format!("3 x {} x 2", bl_core::limits::MAX_ELEMENTS)),
            "{text}"
        );
        // A usize::MAX memory overflows the product: refused the same way.
        let settings = Settings {
            memory: usize::MAX,
            ..Settings::default()
        };
        assert!(QuasiNewton::new(settings, vec![0.0; 3], &mut loss).is_err());
        assert_eq!(calls, 0);
    }
}
