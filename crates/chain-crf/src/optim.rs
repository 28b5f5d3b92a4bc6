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
//! the orthant of the current point, so weights become exact zeros. The step length is
//! found by backtracking (halving) under the Armijo condition with `ftol = 1e-4`, starting
//! from 1 (the first iteration: `1 / ||d||`), at most `max_linesearch` trials; a pair
//! `(s, y)` with `s . y <= 0` is not stored.
//!
//! This is the optimizer of the `lbfgs` trainer, public so that other crates of the
//! workspace (`online-bilinear`'s CRF baselines) run the same one.
//!
//! Vector operations run in parallel over fixed blocks of coordinates and reduce partial
//! sums in block order, so results do not depend on the number of threads; buffers are
//! allocated once and reused.

use std::collections::VecDeque;

use rayon::prelude::*;

/// Coordinates per parallel block of the vector operations.
const BLOCK: usize = 1 << 14;
/// Armijo constant.
const FTOL: f64 = 1e-4;

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
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            c1: 0.0,
            c2: 0.0,
            memory: 6,
            epsilon: 1e-5,
            max_linesearch: 20,
        }
    }
}

/// How one iteration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A step was taken; iterate again.
    Continue,
    /// A step was taken and the gradient test holds.
    GradientSmall,
    /// No step satisfied the Armijo condition; the point is unchanged.
    LineSearchFailed,
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
}

impl QuasiNewton {
    /// Starts at `x0`, evaluating `loss` (which returns the smooth loss and writes its
    /// gradient) once.
    pub fn new(
        settings: Settings,
        x0: Vec<f64>,
        loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    ) -> Self {
        let n = x0.len();
        let mut g = vec![0.0; n];
        let f = full(&settings, loss, &x0, &mut g);
        let mut qn = Self {
            settings,
            x: x0,
            g,
            f,
            pg: vec![0.0; n],
            d: vec![0.0; n],
            x_new: vec![0.0; n],
            g_new: vec![0.0; n],
            s: VecDeque::new(),
            y: VecDeque::new(),
            rho: VecDeque::new(),
            alpha: Vec::new(),
            spare: Vec::new(),
            iterations: 0,
            trials: 0,
        };
        qn.pseudo_gradient();
        qn
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

    /// One iteration: direction, line search, memory update.
    pub fn iterate(&mut self, loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64) -> Outcome {
        self.iterations += 1;
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
        if slope.is_nan() || slope >= 0.0 {
            return Outcome::GradientSmall;
        }
        let mut step = if self.iterations == 1 {
            1.0 / dot(&self.d, &self.d).sqrt()
        } else {
            1.0
        };
        let mut accepted = None;
        self.trials = 0;
        for _ in 0..self.settings.max_linesearch {
            self.trials += 1;
            let (x, d) = (&self.x, &self.d);
            self.x_new
                .par_chunks_mut(BLOCK)
                .zip(x.par_chunks(BLOCK).zip(d.par_chunks(BLOCK)))
                .for_each(|(xn, (x, d))| {
                    for j in 0..xn.len() {
                        let v = x[j] + step * d[j];
                        // OWL-QN: stay in the orthant of x (sign of x, or of -pg at 0);
                        // the direction already has that sign where x = 0.
                        let orthant = if x[j] != 0.0 { x[j] } else { d[j] };
                        xn[j] = if owl && v * orthant <= 0.0 { 0.0 } else { v };
                    }
                });
            let f_new = full(&self.settings, loss, &self.x_new, &mut self.g_new);
            // Armijo on the (pseudo-)gradient: F(x_new) <= F(x) + ftol pg . (x_new - x).
            let decrease = if owl {
                let parts: Vec<f64> = self
                    .pg
                    .par_chunks(BLOCK)
                    .zip(self.x_new.par_chunks(BLOCK).zip(self.x.par_chunks(BLOCK)))
                    .map(|(pg, (xn, x))| (0..pg.len()).map(|j| pg[j] * (xn[j] - x[j])).sum::<f64>())
                    .collect();
                parts.iter().sum::<f64>()
            } else {
                step * slope
            };
            if f_new.is_finite() && f_new <= self.f + FTOL * decrease {
                accepted = Some(f_new);
                break;
            }
            step *= 0.5;
        }
        let Some(f_new) = accepted else {
            return Outcome::LineSearchFailed;
        };
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
