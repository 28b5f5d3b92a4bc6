//! Boolean Matching Pursuit (Chang, Zheng, Yen, Ravikumar, Yu, "Efficient Tensor
//! Decomposition with Boolean Factors", Algorithms 1 and 2).
//!
//! Minimizes `F(W) = 1/2 ||P_Omega(X - W)||_F^2` (eq. (2) is over all entries; Sec. 6.1
//! completes "solely based on observations", which we read as this masked loss) over
//! `W = sum_i c_i z_i (x) u_i (x) w_i`, one Boolean factor per atom, greedily:
//!
//! 1. **Atom search** (Algorithm 2), for each mode `n` in parallel: unfold the residual
//!    `R = -grad F = P_Omega(X - W)` to `R_(n)` (`d_n x d_a d_b`) and choose Boolean `z`
//!    **maximizing** `||R_(n)^T z||^2 = z^T R_(n) R_(n)^T z` with the Boolean QP of
//!    `maxcut-sdp` in its implicit `G G^T` form ([`crate::QpSolver`]). (The paper writes
//!    `C = -G G^T` and maximizes; that picks `z = 0`. See `docs/papers/bmp.md`, "Known
//!    traps".)
//! 2. **Rank-1 atom.** `v = R_(n)^T z` reshaped to `d_a x d_b` is not rank-1 in general;
//!    we take its leading singular pair `(u, w)` (unit vectors). We then **alternate**
//!    with the exact update of `z` for fixed `u, w`: with `r = R_(n) (w (x) u)`, the
//!    support `S` maximizing `(sum_S r_i)^2 / |S|` (the best scaled Boolean fit of `r`,
//!    [`crate::metrics::best_boolean_fit`]; exact by sorting), then the singular pair
//!    again, until `z` stops changing or `alternations` rounds were made. Both updates
//!    maximize the same quantity, `<R, M> / ||M||_F` for `M = z (x) u (x) w`, so the
//!    alternation never lowers it. Without this step the QP alone prefers supersets of
//!    the true support under noise (every added row adds its own squared norm to
//!    `||R^T z||^2`); with `alternations = 0` the QP's `z` is kept as is. The
//!    alternation is local: from a QP `z` that is the union of two atoms' supports it can
//!    stall on a mixture, so it is also started from 8 single rows of `R_(n)` spread
//!    over the heavier half by norm (a row of one atom alone leads straight to that
//!    atom; the very heaviest rows tend to lie where atoms overlap), and the start with
//!    the best score is kept. The nine alternations advance together, so a round reads
//!    `R_(n)` twice (two matrix products) rather than twice per start.
//! 3. **Selection.** Among the three modes' candidates keep the one with the most
//!    negative `<grad F, M / ||M||_F>` (= the largest `<R, M> / ||M||_F`, the score).
//! 4. **Fully corrective step** (eq. (9)): the coefficients `c` of all atoms solve
//!    `Q c = b`, `Q_ij = <M_i, M_j>_Omega`, `b_i = <X, M_i>_Omega`. Without a mask `Q` is
//!    the Hadamard product of the factor Gram matrices (`O(K^2 d)`); with a mask, the
//!    inner products over the missing entries are subtracted (or, when fewer entries are
//!    observed than missing, the observed ones summed).
//!
//!    **Refit (our addition, `refit_sweeps`, default at most 10).** Correcting only the
//!    coefficients leaves the real factors `u, w` of early atoms fitted to residuals
//!    that still held later atoms, so even noiseless data is not recovered exactly. After
//!    the fully corrective step we therefore sweep over the atoms (backfitting): atom `i`
//!    is re-searched from its current `z` by the same alternation on the partial
//!    residual `T = R + c_i M_i` (no QP), replaced by the result, and the coefficients
//!    are solved again. With a mask, `T` fills the missing entries with the current
//!    model (an EM / majorization step), so the masked loss still never increases.
//!    `refit_sweeps = 0` keeps only the coefficient correction of Algorithm 1 (the atom
//!    search of step 1-3 remains ours; the measured effect of each difference is in
//!    `docs/papers/bmp.md`).
//! 5. **Stop** at `max_iter` atoms, when the relative decrease of `F` falls to `tol`, or
//!    `Solved` when `F` vanishes (to rounding) after an atom or when no atom has a
//!    positive score (`R = 0`); the latter takes one more engine iteration that adds no
//!    atom. The trace records `F` and the RMSE on the observed entries after each
//!    iteration.

mod corrective;
mod fitted;
mod search;

use std::sync::Arc;

use bl_core::engine::{IterationParams, Observer, Progress, Stop, run};
use faer::Mat;
use rayon::prelude::*;

pub use corrective::fully_corrective_coefficients;
pub(crate) use corrective::{EntrySet, fully_corrective, inner_with_data};
pub use fitted::{AtomStep, FittedBmp};
pub use search::{Candidate, search_atom};

use crate::atom::Atom;
use crate::common::check_atom_buffers;
use crate::error::Result;
use crate::qp::{MixingQp, QpSolver};
use crate::tensor::{Tensor, check_modes, unfolded_view};
use bl_core::error::build::{invalid, numerical};
use corrective::{add_atoms_in_place, update_residual};
use search::{Unfolded, refine_all, search_in};

/// Boolean Matching Pursuit. Start with [`Bmp::params`].
#[derive(Debug, Clone, Copy)]
pub struct Bmp;

impl Bmp {
    /// Default hyperparameters (table at [`BmpParams`]).
    pub fn params() -> BmpParams {
        BmpParams::default()
    }
}

/// Hyperparameters of BMP.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `max_iter` | `10` | `K`, the maximum number of atoms (one engine iteration per atom, and one final iteration that adds none when no atom scores above 0) | `>= 1` |
/// | `tol` | `1e-6` | stop when `(F_prev - F) / F_prev <= tol` | finite, `>= 0` |
/// | `time_limit` | `None` | wall-clock limit, checked after each atom | any |
/// | `threads` | `None` | worker threads of the atom searches and the model updates (`None`: rayon's global pool) | `1 ..= 1024` |
/// | `trace` | `true` | keep one trace record per atom in the report | any |
/// | `alternations` | `10` | rounds of the exact `z` update / singular pair alternation per candidate | any |
/// | `refit_sweeps` | `10` | at most this many sweeps refitting every atom's `(z, u, w)` after each step, fewer when a sweep lowers `F` by less than a fraction `refit_tol` or `F` vanishes (`<= 1e-26 F(0)`) (the refit of step 4 of the module docs; `0` = coefficients only, as in the paper) | any |
/// | `refit_tol` | `1e-6` | relative decrease of `F` below which the refit sweeps stop | finite, `>= 0` |
/// | `solver` | [`MixingQp::default`] | the Boolean QP solver of the atom search (any `Arc<dyn QpSolver>`) | passes its own `check` |
/// | `modes` | `[0, 1, 2]` | modes whose atoms are searched | non-empty subset of `{0, 1, 2}` |
/// | `seed` | `0` | seeds the QP solver (atom `t`, counted from 0, mode `n` uses `seed + 3 t + n`) | any |
///
/// The first five are the shared [`IterationParams`] (setters of
/// [`bl_core::iteration_setters`]).
///
/// ```
/// use boolean_tensor::{Bmp, Decomposition, Fit, SyntheticParams};
/// let data = SyntheticParams::default().shape([12, 10, 8]).n_atoms(2).seed(1).generate()?;
/// let fitted = Bmp::params().max_iter(2).fit(data.observed())?;
/// let rmse = boolean_tensor::metrics::rmse(&fitted.reconstruct()?, data.clean())?;
/// assert!(rmse < 1e-6);
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone)]
pub struct BmpParams {
    iteration: IterationParams,
    alternations: usize,
    refit_sweeps: usize,
    refit_tol: f64,
    solver: Arc<dyn QpSolver>,
    modes: Vec<usize>,
    seed: u64,
}

impl Default for BmpParams {
    fn default() -> Self {
        Self {
            iteration: IterationParams::new(10, 1e-6),
            alternations: 10,
            refit_sweeps: 10,
            refit_tol: 1e-6,
            solver: Arc::new(MixingQp::default()),
            modes: vec![0, 1, 2],
            seed: 0,
        }
    }
}

bl_core::params::knobs! {
    BmpParams => BmpValidParams in params;
    /// The iteration knobs (`max_iter` counts atoms; defaults 10 atoms, tolerance `1e-6`).
    ..iteration;
    /// The `z` / singular-pair alternations per candidate (default 10).
    alternations: usize;
    /// The refit sweeps after each fully corrective step (default 10; 0 = the paper's
    /// Algorithm 1, which corrects the coefficients only).
    refit_sweeps: usize;
    /// The relative loss decrease below which the refit sweeps stop (default `1e-6`,
    /// finite and `>= 0`).
    refit_tol: f64;
    /// The seed of the QP solver (default 0; atom `t`, counted from 0, mode `n` uses
    /// `seed + 3 t + n`).
    seed: u64;
    /// The Boolean QP solver of the atom search (default [`MixingQp::default`]): a built-in
    /// one ([`crate::qp::MixingQp`], [`crate::qp::ExactQp`]) or any user type implementing
    /// [`QpSolver`] (it should pass [`crate::conformance::conformance`]).
    solver: &Arc<dyn QpSolver>;
}

impl BmpParams {
    /// Restricts the modes searched for atoms.
    #[must_use]
    pub fn modes(mut self, modes: &[usize]) -> Self {
        self.modes = modes.to_vec();
        self
    }
}

param_guard! {
    /// [`BmpParams`] after [`ParamGuard::check`](bl_core::ParamGuard::check): what a BMP fit reads.
    BmpParams => BmpValidParams;
    /// Checks every parameter, the QP solver's own settings included.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`], [`TensorError::InvalidMode`](crate::TensorError::InvalidMode), or the QP
    /// solver's parameter error.
    fn check(&self) {
        self.iteration.check()?;
        bl_core::params::nonnegative("refit_tol", self.refit_tol)?;
        check_modes("modes", &self.modes)?;
        self.solver.check()?;
    }
}

impl BmpValidParams {
    bl_core::params::getters! {
        in params;
        /// The modes searched for atoms.
        modes: &[usize];
    }
}

fit_checked! {
    /// Fits BMP to `x` (its mask marks the observed entries); one engine iteration per
    /// atom (objective `F`, extras `rmse`, `mode`, `score`, `unconverged_power`: the
    /// leading singular pairs of this step's searches and refits whose power iteration
    /// ran out of iterations, see [`AtomStep::unconverged_power`]). The run ends
    /// `Converged` when an atom lowers `F` by a fraction `<= tol`, `Solved` when `F`
    /// vanishes (`<= 1e-26 F(0)`) after an atom, or `Solved` after one final iteration
    /// that adds no atom when no candidate scores above 0 (the residual is zero on the
    /// searched modes; that record has extras `rmse` and `unconverged_power` only, and
    /// `report().iterations` is then `n_atoms() + 1`: a zero tensor gives no atom and one
    /// iteration). The report's `elapsed` is the wall-clock time of the whole fit.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] naming `max_iter` when the model at
    /// `max_iter` atoms (`K x K`, `d1 d2 x K`, the masked entries `x K`) would exceed
    /// [`bl_core::limits::MAX_ELEMENTS`] values or cannot be reserved (checked before the
    /// fit allocates anything); errors of the QP solver, or
    /// [`bl_core::BlError::InvalidParameter`] naming `solver` for an answer that is not a
    /// 0/1 vector of the unfolding's row count; a numerical failure of the fully corrective
    /// solve or of a leading singular pair, or a non-finite atom score.
    BmpValidParams -> FittedBmp by fit_checked
}

impl BmpValidParams {
    fn fit_checked(&self, x: &Tensor, observers: &mut [&mut dyn Observer]) -> Result<FittedBmp> {
        let p = &self.params;
        let workers = p.iteration.pool()?;
        let mut modes = p.modes.clone();
        modes.sort_unstable();
        modes.dedup();
        let shape = x.shape();
        let entries = EntrySet::new(x);
        check_atom_buffers("max_iter", shape, entries.len(), p.iteration.max_iter)?;
        let mut residual = x.data().to_vec();
        let mut model = vec![0.0; x.len()];
        let mut work: Vec<ModeWork> = modes
            .iter()
            .map(|&m| ModeWork {
                mode: m,
                buf: Mat::zeros(0, 0),
            })
            .collect();
        let mut refit_buf = Mat::zeros(0, 0);
        let mut atoms: Vec<Atom> = Vec::new();
        let mut b: Vec<f64> = Vec::new();
        let mut path: Vec<Vec<f64>> = Vec::new();
        let mut snapshots: Vec<Vec<Atom>> = Vec::new();
        let mut steps: Vec<AtomStep> = Vec::new();
        let mut kr = Mat::zeros(0, 0);
        let mut loss = 0.5 * x.frobenius_norm().powi(2);
        let initial_loss = loss;
        let initial_sq = 2.0 * loss;
        let n_obs = x.n_observed() as f64;
        let par = faer::get_global_parallelism();
        let report = run(&p.iteration, observers, |t| -> Result<Progress> {
            workers.install(|| {
                let seed = p.seed.wrapping_add(3 * (t as u64 - 1));
                let candidates: Vec<Result<Candidate>> = work
                    .par_iter_mut()
                    .map(|mw| {
                        search_in(
                            &residual,
                            shape,
                            mw.mode,
                            &mut mw.buf,
                            p.solver.as_ref(),
                            p.alternations,
                            seed.wrapping_add(mw.mode as u64),
                        )
                    })
                    .collect();
                let mut best: Option<Candidate> = None;
                let mut unconverged = 0;
                for c in candidates {
                    let c = c?;
                    unconverged += c.unconverged_power;
                    if !c.score.is_finite() {
                        return Err(numerical(
                            "BMP atom search",
                            format!("mode {} gave the score {}", c.mode, c.score),
                        ));
                    }
                    if best.as_ref().is_none_or(|b| c.score > b.score) {
                        best = Some(c);
                    }
                }
                let Some(best) = best.filter(|c| c.score > 0.0) else {
                    // R = 0 (every score is 0): nothing is left to explain.
                    let p = Progress::new(loss, 0.0)
                        .with("rmse", (2.0 * loss / n_obs).sqrt())
                        .with("unconverged_power", unconverged as f64);
                    return Ok(p.stop_if(Some(Stop::Solved)));
                };
                b.push(inner_with_data(x, &best.atom));
                atoms.push(best.atom);
                let mut c = fully_corrective(&atoms, &b, shape, &entries)?;
                let mut sq =
                    update_residual(x, &atoms, &c, &mut kr, &mut model, &mut residual, par);
                // The refit sweeps: an inner engine run (untraced: its report is summarized in
                // the step's AtomStep), one iteration per sweep over the atoms, until the loss
                // decreases by a fraction <= refit_tol or vanishes.
                let mut refit = None;
                if p.refit_sweeps > 0 {
                    let inner = IterationParams::new(p.refit_sweeps, p.refit_tol).untraced();
                    refit = Some(run(&inner, &mut [], |_| -> Result<Progress> {
                        let before = sq;
                        for i in 0..atoms.len() {
                            let mode = atoms[i].mode();
                            // Atom i re-searched on the partial residual T = R + c_i M_i (the
                            // model's values at the missing entries), read as R plus the
                            // rank-1 correction; then R = P_Omega(T - c M) in one pass.
                            // Mode 1 reads the slabs of the residual in place (its
                            // unfolding would be a copy); modes 0 and 2 are views.
                            let g = if mode == 1 {
                                Unfolded::Mode1Slabs {
                                    data: &residual,
                                    shape,
                                }
                            } else {
                                Unfolded::Matrix(unfolded_view(
                                    &residual,
                                    shape,
                                    mode,
                                    &mut refit_buf,
                                ))
                            };
                            let cand = refine_all(
                                g,
                                Some((&atoms[i], c[i])),
                                shape,
                                mode,
                                vec![atoms[i].z().to_vec()],
                                p.alternations.max(1),
                            )?
                            .pop()
                            .ok_or_else(|| {
                                invalid::<crate::TensorError>("starts", "[]", "at least one start")
                            })?;
                            unconverged += cand.unconverged_power;
                            let size = cand.atom.z().iter().filter(|&&v| v != 0.0).count() as f64;
                            let ci = cand.score / size.sqrt();
                            add_atoms_in_place(
                                &mut residual,
                                shape,
                                &[(&atoms[i], c[i]), (&cand.atom, -ci)],
                                x.mask(),
                            );
                            atoms[i] = cand.atom;
                            c[i] = ci;
                        }
                        for (bi, a) in b.iter_mut().zip(&atoms) {
                            *bi = inner_with_data(x, a);
                        }
                        c = fully_corrective(&atoms, &b, shape, &entries)?;
                        sq =
                            update_residual(x, &atoms, &c, &mut kr, &mut model, &mut residual, par);
                        let change = if before > 0.0 {
                            (before - sq) / before
                        } else {
                            0.0
                        };
                        let vanished = sq <= VANISHED * initial_sq;
                        Ok(Progress::new(0.5 * sq, change)
                            .stop_if(vanished.then_some(Stop::Solved)))
                    })?);
                }
                let new_loss = 0.5 * sq;
                let change = if loss > 0.0 {
                    (loss - new_loss) / loss
                } else {
                    0.0
                };
                loss = new_loss;
                steps.push(AtomStep {
                    mode: best.mode,
                    score: best.score,
                    alternations: best.alternations,
                    refit_sweeps: refit.as_ref().map_or(0, |r| r.iterations),
                    refit_termination: refit.map(|r| r.termination),
                    unconverged_power: unconverged,
                    loss,
                });
                path.push(c);
                snapshots.push(atoms.clone());
                // The residual vanished (to rounding): nothing is left to explain.
                let vanished = loss <= VANISHED * initial_loss;
                let progress =
                    Progress::new(loss, change).stop_if(vanished.then_some(Stop::Solved));
                Ok(progress
                    .with("rmse", (2.0 * loss / n_obs).sqrt())
                    .with("mode", best.mode as f64)
                    .with("score", best.score)
                    .with("unconverged_power", unconverged as f64))
            })
        })?;
        let coefficients = path.last().cloned().unwrap_or_default();
        Ok(FittedBmp {
            shape,
            atoms,
            coefficients,
            path,
            snapshots,
            steps,
            report,
            initial_loss,
        })
    }
}

/// The loss counts as vanished (exact fit to rounding) at this fraction of `F(0)`: the
/// greedy loop and the refit sweeps stop there.
const VANISHED: f64 = 1e-26;

/// A mode searched in parallel and its unfolding buffer (used by mode 1 only, see
/// [`unfolded_view`]).
struct ModeWork {
    mode: usize,
    buf: Mat<f64>,
}
