//! Boolean Matching Pursuit (Chang, Zheng, Yen, Ravikumar, Yu, "Efficient Tensor
//! Decomposition with Boolean Factors", Algorithms 1 and 2).
//!
//! Minimizes `F(W) = 1/2 ||P_Omega(X - W)||_F^2` (eqs. (2)–(3)) over
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
//! 5. **Stop** at `n_atoms` atoms, when the relative decrease of `F` falls to `tol`, or
//!    when no atom has a positive score (`R = 0`). The trace records `F` and the RMSE
//!    on the observed entries after each atom.

use std::time::Duration;

use bl_core::engine::{FitReport, Progress, Stop, StoppingRule, TerminationReason, Trace, run};
use faer::linalg::matmul::matmul;
use faer::{Accum, ColMut, ColRef, Mat, MatMut, MatRef, Par};
use rayon::prelude::*;

use crate::atom::{Atom, BooleanFactor, Decomposition, atom_factor_mats, atoms_to_tensor};
use crate::common::solve_right_spd_ridged;
use crate::error::{Result, TensorError, check_count, check_modes, check_tol, invalid};
use crate::metrics::best_boolean_fit;
use crate::qp::QpSolver;
use crate::tensor::{Tensor, check_mode, cp_reconstruct_into, other_modes, unfolded_view};

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
/// | `n_atoms` | `10` | `K`, maximum number of atoms | `>= 1` |
/// | `tol` | `1e-6` | stop when `(F_prev - F) / F_prev <= tol` | finite, `>= 0` |
/// | `alternations` | `10` | rounds of the exact `z` update / singular pair alternation per candidate | any |
/// | `refit_sweeps` | `10` | at most this many sweeps refitting every atom's `(z, u, w)` after each step, fewer when a sweep lowers `F` by less than a fraction `refit_tol` or `F` vanishes (`<= 1e-26 F(0)`) (step 4b of the module docs; `0` = coefficients only, as in the paper) | any |
/// | `refit_tol` | `1e-6` | relative decrease of `F` below which the refit sweeps stop | finite, `>= 0` |
/// | `solver` | [`QpSolver::default_mixing`] | the Boolean QP solver of the atom search | |
/// | `modes` | `[0, 1, 2]` | modes whose atoms are searched | non-empty subset of `{0, 1, 2}` |
/// | `seed` | `0` | seeds the QP solver (atom `t`, mode `n` uses `seed + 3 t + n`) | any |
/// | `time_limit` | none | wall-clock limit | |
///
/// ```
/// use boolean_tensor::{Bmp, SyntheticParams, Decomposition};
/// let data = SyntheticParams::default().shape([12, 10, 8]).n_atoms(2).seed(1).generate()?;
/// let fitted = Bmp::params().n_atoms(2).fit(data.observed())?;
/// let rmse = boolean_tensor::metrics::rmse(&fitted.reconstruct()?, data.clean())?;
/// assert!(rmse < 1e-6);
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BmpParams {
    n_atoms: usize,
    tol: f64,
    alternations: usize,
    refit_sweeps: usize,
    refit_tol: f64,
    solver: QpSolver,
    modes: Vec<usize>,
    seed: u64,
    time_limit: Option<Duration>,
}

impl Default for BmpParams {
    fn default() -> Self {
        Self {
            n_atoms: 10,
            tol: 1e-6,
            alternations: 10,
            refit_sweeps: 10,
            refit_tol: 1e-6,
            solver: QpSolver::default(),
            modes: vec![0, 1, 2],
            seed: 0,
            time_limit: None,
        }
    }
}

impl BmpParams {
    /// Sets the maximum number of atoms `K`.
    #[must_use]
    pub fn n_atoms(mut self, k: usize) -> Self {
        self.n_atoms = k;
        self
    }
    /// Sets the tolerance on the relative decrease of the loss.
    #[must_use]
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }
    /// Sets the number of `z` / singular-pair alternations per candidate.
    #[must_use]
    pub fn alternations(mut self, n: usize) -> Self {
        self.alternations = n;
        self
    }
    /// Sets the number of refit sweeps after each fully corrective step (0 = the
    /// paper's Algorithm 1, which corrects the coefficients only).
    #[must_use]
    pub fn refit_sweeps(mut self, n: usize) -> Self {
        self.refit_sweeps = n;
        self
    }
    /// Sets the relative loss decrease below which the refit sweeps stop.
    #[must_use]
    pub fn refit_tol(mut self, tol: f64) -> Self {
        self.refit_tol = tol;
        self
    }
    /// Sets the Boolean QP solver.
    #[must_use]
    pub fn solver(mut self, solver: QpSolver) -> Self {
        self.solver = solver;
        self
    }
    /// Restricts the modes searched for atoms.
    #[must_use]
    pub fn modes(mut self, modes: &[usize]) -> Self {
        self.modes = modes.to_vec();
        self
    }
    /// Sets the seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Sets a wall-clock limit.
    #[must_use]
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }
    /// The maximum number of atoms.
    pub fn get_n_atoms(&self) -> usize {
        self.n_atoms
    }

    /// Checks every parameter.
    ///
    /// # Errors
    /// [`TensorError::InvalidParameter`], [`TensorError::InvalidMode`], or the QP
    /// solver's parameter error.
    pub fn check(&self) -> Result<()> {
        check_count("n_atoms", self.n_atoms)?;
        check_tol("tol", self.tol)?;
        check_tol("refit_tol", self.refit_tol)?;
        check_modes("modes", &self.modes)?;
        self.solver.check()
    }

    /// Fits BMP to `x` (its mask marks the observed entries).
    ///
    /// # Errors
    /// Invalid parameters ([`BmpParams::check`]); errors of the QP solver; a numerical
    /// failure of the fully corrective solve.
    pub fn fit(&self, x: &Tensor) -> Result<FittedBmp> {
        self.check()?;
        let mut modes = self.modes.clone();
        modes.sort_unstable();
        modes.dedup();
        let shape = x.shape();
        let entries = EntrySet::new(x);
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
        let mut trace = Trace::default();
        let rule = StoppingRule {
            max_iter: self.n_atoms,
            tol: self.tol,
            time_limit: self.time_limit,
        };
        let par = faer::get_global_parallelism();
        let info = run(&rule, &mut [&mut trace], |t| -> Result<Progress> {
            let seed = self.seed.wrapping_add(3 * (t as u64 - 1));
            let candidates: Vec<Result<Candidate>> = work
                .par_iter_mut()
                .map(|mw| {
                    search_in(
                        &residual,
                        shape,
                        mw.mode,
                        &mut mw.buf,
                        &self.solver,
                        self.alternations,
                        seed.wrapping_add(mw.mode as u64),
                    )
                })
                .collect();
            let mut best: Option<Candidate> = None;
            for c in candidates {
                let c = c?;
                if best.as_ref().is_none_or(|b| c.score > b.score) {
                    best = Some(c);
                }
            }
            let Some(best) = best.filter(|c| c.score > 0.0 && c.score.is_finite()) else {
                let p = Progress::new(loss, 0.0).with("rmse", (2.0 * loss / n_obs).sqrt());
                return Ok(p.stop_if(Some(Stop::Solved)));
            };
            b.push(inner_with_data(x, &best.atom));
            atoms.push(best.atom);
            let mut c = fully_corrective(&atoms, &b, shape, &entries)?;
            let mut sq = update_residual(x, &atoms, &c, &mut kr, &mut model, &mut residual, par);
            let mut sweeps_made = 0;
            for _ in 0..self.refit_sweeps {
                sweeps_made += 1;
                let before = sq;
                for i in 0..atoms.len() {
                    let mode = atoms[i].mode();
                    // Atom i re-searched on the partial residual T = R + c_i M_i (the
                    // model's values at the missing entries), read as R plus the rank-1
                    // correction; then R = P_Omega(T - c M) in one pass.
                    let g = unfolded_view(&residual, shape, mode, &mut refit_buf);
                    let cand = refine_all(
                        g,
                        Some((&atoms[i], c[i])),
                        shape,
                        mode,
                        vec![atoms[i].z().to_vec()],
                        self.alternations.max(1),
                    )?
                    .pop()
                    .ok_or_else(|| invalid("starts", "[]", "at least one start"))?;
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
                sq = update_residual(x, &atoms, &c, &mut kr, &mut model, &mut residual, par);
                if before - sq <= self.refit_tol * before || sq <= VANISHED * initial_sq {
                    break;
                }
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
                refit_sweeps: sweeps_made,
                loss,
            });
            path.push(c);
            snapshots.push(atoms.clone());
            // The residual vanished (to rounding): nothing is left to explain.
            let vanished = loss <= VANISHED * initial_loss;
            let progress = Progress::new(loss, change).stop_if(vanished.then_some(Stop::Solved));
            Ok(progress
                .with("rmse", (2.0 * loss / n_obs).sqrt())
                .with("mode", best.mode as f64)
                .with("score", best.score))
        })?;
        let coefficients = path.last().cloned().unwrap_or_default();
        Ok(FittedBmp {
            shape,
            atoms,
            coefficients,
            path,
            snapshots,
            steps,
            trace,
            info,
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

/// The result of one atom search along one mode.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The atom (`u`, `w` of unit norm).
    pub atom: Atom,
    /// `<R, M> / ||M||_F` (`= -<grad F, M / ||M||_F>`); larger is better.
    pub score: f64,
    /// The mode searched.
    pub mode: usize,
    /// The Boolean QP's `z` before the alternation.
    pub qp_z: Vec<f64>,
    /// Number of `z` updates made by the alternation.
    pub alternations: usize,
}

/// One atom search (Algorithm 2 plus the rank-1 refinement, see the module docs) along
/// `mode` for the residual `residual` (the negative gradient `P_Omega(X - W)`).
///
/// # Errors
/// [`TensorError::InvalidMode`]; errors of the QP solver and of the SVD.
pub fn search_atom(
    residual: &Tensor,
    mode: usize,
    solver: &QpSolver,
    alternations: usize,
    seed: u64,
) -> Result<Candidate> {
    check_mode(mode)?;
    solver.check()?;
    search_in(
        residual.data(),
        residual.shape(),
        mode,
        &mut Mat::zeros(0, 0),
        solver,
        alternations,
        seed,
    )
}

fn matvec(out: &mut [f64], a: MatRef<'_, f64>, x: &[f64]) {
    matmul(
        ColMut::from_slice_mut(out).as_mat_mut(),
        Accum::Replace,
        a,
        ColRef::from_slice(x).as_mat(),
        1.0,
        Par::Seq,
    );
}

fn search_in(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    buf: &mut Mat<f64>,
    solver: &QpSolver,
    alternations: usize,
    seed: u64,
) -> Result<Candidate> {
    let g = unfolded_view(data, shape, mode, buf);
    let dn = g.nrows();
    let mut z = solver.maximize(g, seed)?;
    let norms = row_norms(g);
    if z.iter().all(|&v| v == 0.0) {
        // Only when R_(n) = 0 (or the solver failed to move): take the heaviest row.
        let row = (0..dn)
            .max_by(|&i, &j| norms[i].total_cmp(&norms[j]))
            .unwrap_or(0);
        z[row] = 1.0;
    }
    let mut starts = vec![z.clone()];
    if alternations > 0 {
        // Extra starts from single heavy rows: a row of one atom alone is that atom's
        // slab, whose singular pair leads the alternation straight to it, while the QP's
        // `z` can be a union of several atoms on which the alternation stalls.
        let mut rows: Vec<(usize, f64)> = norms.iter().copied().enumerate().collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // Spread over the heavier half: the very heaviest rows tend to lie in overlaps.
        let picks = (0..ROW_STARTS).map(|j| rows[(j * dn / (2 * ROW_STARTS)).min(dn - 1)]);
        for (row, norm) in picks {
            if norm <= 0.0 {
                break;
            }
            let mut z0 = vec![0.0; dn];
            z0[row] = 1.0;
            starts.push(z0);
        }
    }
    // The QP's start first; a row start replaces it only when strictly better.
    let mut best: Option<Candidate> = None;
    for c in refine_all(g, None, shape, mode, starts, alternations)? {
        if best
            .as_ref()
            .is_none_or(|b| c.score > b.score * (1.0 + 1e-12))
        {
            best = Some(c);
        }
    }
    let mut cand = best.ok_or_else(|| invalid("starts", "[]", "at least one start"))?;
    cand.qp_z = z;
    Ok(cand)
}

/// Single-row starts of the alternation besides the QP's `z` (see `search_in`).
const ROW_STARTS: usize = 8;

/// The alternation of step 2 from each of `starts` (one candidate per start, in order),
/// on the unfolded target `T_(mode) = g + c M_(mode)`, where `(M, c)` is an optional
/// atom along `mode` and its coefficient (the refit adds the atom back this way without
/// a pass over the tensor: `M_(mode) = z_M (w_M (x) u_M)^T` is rank 1). The starts still
/// moving advance together: a round is two matrix products with `g` (`V = g^T Z`, then
/// `g K` for the rank-1 pairs `K`), so it reads `g` twice whatever the number of starts,
/// where one alternation per start would read it twice per start. Each start's result is
/// that of its own alternation (up to the rounding of the products).
fn refine_all(
    g: MatRef<'_, f64>,
    correction: Option<(&Atom, f64)>,
    shape: [usize; 3],
    mode: usize,
    mut starts: Vec<Vec<f64>>,
    alternations: usize,
) -> Result<Vec<Candidate>> {
    let (dn, m) = (g.nrows(), g.ncols());
    let (a, b) = other_modes(mode);
    let (da, db) = (shape[a], shape[b]);
    // The correction as `c z_M` and `w_M (x) u_M` (empty without one).
    let (cz, kron_m): (Vec<f64>, Vec<f64>) = match correction {
        Some((atom, c)) if atom.mode() == mode => (
            atom.z().iter().map(|&zi| c * zi).collect(),
            atom.w()
                .iter()
                .flat_map(|&wb| atom.u().iter().map(move |&ua| ua * wb))
                .collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    };
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
    let mut done: Vec<Option<Candidate>> = vec![None; starts.len()];
    let mut made = vec![0; starts.len()];
    let mut active: Vec<usize> = (0..starts.len()).collect();
    let (mut zmat, mut v, mut kron, mut r) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    while !active.is_empty() {
        let s = active.len();
        zmat.clear();
        for &i in &active {
            zmat.extend_from_slice(&starts[i]);
        }
        v.resize(m * s, 0.0);
        product(&mut v, g.transpose(), &zmat, s);
        if !cz.is_empty() {
            // + (c M_(mode))^T z = (c z_M . z) (w_M (x) u_M).
            for (j, &i) in active.iter().enumerate() {
                let t = dot(&cz, &starts[i]);
                for (vv, &km) in v[j * m..(j + 1) * m].iter_mut().zip(&kron_m) {
                    *vv += t * km;
                }
            }
        }
        // Singular pairs; the starts out of rounds are finished here.
        let mut moving = Vec::with_capacity(s);
        kron.clear();
        for (j, &i) in active.iter().enumerate() {
            let vj = MatRef::from_column_major_slice(&v[j * m..(j + 1) * m], da, db);
            let (u, w, sigma) = leading_pair(vj)?;
            if made[i] >= alternations {
                done[i] = Some(finish(
                    mode,
                    std::mem::take(&mut starts[i]),
                    u,
                    w,
                    sigma,
                    made[i],
                ));
                continue;
            }
            kron.extend(w.iter().flat_map(|&wb| u.iter().map(move |&ua| ua * wb)));
            moving.push((i, u, w, sigma));
        }
        // The exact z update of each moving start.
        r.resize(dn * moving.len(), 0.0);
        product(&mut r, g, &kron, moving.len());
        if !cz.is_empty() {
            // + c M_(mode) k = ((w_M (x) u_M) . k) c z_M.
            for j in 0..moving.len() {
                let t = dot(&kron_m, &kron[j * m..(j + 1) * m]);
                for (rr, &czi) in r[j * dn..(j + 1) * dn].iter_mut().zip(&cz) {
                    *rr += t * czi;
                }
            }
        }
        active.clear();
        for (j, (i, u, w, sigma)) in moving.into_iter().enumerate() {
            let (z_new, _) = best_boolean_fit(&r[j * dn..(j + 1) * dn]);
            if z_new == starts[i] || z_new.iter().all(|&x| x == 0.0) {
                done[i] = Some(finish(
                    mode,
                    std::mem::take(&mut starts[i]),
                    u,
                    w,
                    sigma,
                    made[i],
                ));
            } else {
                starts[i] = z_new;
                made[i] += 1;
                active.push(i);
            }
        }
    }
    Ok(done.into_iter().flatten().collect())
}

/// The candidate of a finished alternation: score `sigma / sqrt(|z|)`.
fn finish(
    mode: usize,
    z: Vec<f64>,
    u: Vec<f64>,
    w: Vec<f64>,
    sigma: f64,
    made: usize,
) -> Candidate {
    let size = z.iter().filter(|&&x| x != 0.0).count() as f64;
    Candidate {
        atom: Atom::new_unchecked(mode, z, u, w),
        score: sigma / size.sqrt(),
        mode,
        qp_z: Vec::new(),
        alternations: made,
    }
}

/// `out = a X` for `X` given column-major with `cols` columns (`out` likewise).
fn product(out: &mut [f64], a: MatRef<'_, f64>, x: &[f64], cols: usize) {
    matmul(
        MatMut::from_column_major_slice_mut(out, a.nrows(), cols),
        Accum::Replace,
        a,
        MatRef::from_column_major_slice(x, a.ncols(), cols),
        1.0,
        Par::Seq,
    );
}

/// The Euclidean norms of the rows of `g`, in one pass over its storage order.
fn row_norms(g: MatRef<'_, f64>) -> Vec<f64> {
    if g.row_stride() == 1 {
        // Column-major: accumulate column by column (a row is strided).
        let mut sq = vec![0.0; g.nrows()];
        for j in 0..g.ncols() {
            for (s, &v) in sq.iter_mut().zip(g.col(j).iter()) {
                *s += v * v;
            }
        }
        sq.into_iter().map(f64::sqrt).collect()
    } else {
        (0..g.nrows()).map(|i| g.row(i).norm_l2()).collect()
    }
}

/// `data += sum_t c_t M_t` over all entries for the `(M_t, c_t)` in `terms`; with a mask,
/// the missing entries are then set to zero (`data = P_Omega(data + sum_t c_t M_t)`). One
/// pass over `data`.
fn add_atoms_in_place(
    data: &mut [f64],
    shape: [usize; 3],
    terms: &[(&Atom, f64)],
    mask: Option<&[bool]>,
) {
    let [d0, d1, d2] = shape;
    for k in 0..d2 {
        for j in 0..d1 {
            let range = d0 * (j + d1 * k)..d0 * (j + d1 * k + 1);
            let col = &mut data[range.clone()];
            for &(atom, c) in terms {
                let s = c * atom.factor(1)[j] * atom.factor(2)[k];
                if s != 0.0 {
                    for (x, &a) in col.iter_mut().zip(atom.factor(0)) {
                        *x += s * a;
                    }
                }
            }
            if let Some(mask) = mask {
                for (x, &o) in col.iter_mut().zip(&mask[range]) {
                    if !o {
                        *x = 0.0;
                    }
                }
            }
        }
    }
}

/// Rebuilds the model `W = sum_i c_i M_i` and the residual `P_Omega(X - W)`; returns
/// `||P_Omega(X - W)||^2`.
fn update_residual(
    x: &Tensor,
    atoms: &[Atom],
    c: &[f64],
    kr: &mut Mat<f64>,
    model: &mut [f64],
    residual: &mut [f64],
    par: Par,
) -> f64 {
    let shape = x.shape();
    let f = atom_factor_mats(atoms, c, shape);
    cp_reconstruct_into(f.each_ref().map(Mat::as_ref), kr, model, par);
    let mut sq = 0.0;
    for (idx, ((r, &xv), &wv)) in residual
        .iter_mut()
        .zip(x.data())
        .zip(model.iter())
        .enumerate()
    {
        *r = if x.is_observed(idx) { xv - wv } else { 0.0 };
        sq += *r * *r;
    }
    sq
}

/// Above this smaller dimension the leading pair comes from power iteration instead of
/// a full thin SVD.
const THIN_SVD_MAX: usize = 32;

/// The leading singular triplet `(u, w, sigma)` with `u^T V w = sigma >= 0`.
///
/// A thin SVD up to `min(d_a, d_b) = 32`; power iteration on `V^T V` beyond (a few
/// matrix-vector products; exact after one step when `V` is rank 1, as for a true atom).
/// Not a Krylov partial SVD: those can stall on exactly low-rank `V` (noiseless data).
fn leading_pair(v: MatRef<'_, f64>) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    let (m, n) = (v.nrows(), v.ncols());
    if m.min(n) <= THIN_SVD_MAX {
        let svd = v.thin_svd().map_err(|e| TensorError::Numerical {
            context: "atom search: leading singular pair",
            message: format!("{e:?}"),
        })?;
        let u: Vec<f64> = (0..m).map(|i| svd.U()[(i, 0)]).collect();
        let w: Vec<f64> = (0..n).map(|i| svd.V()[(i, 0)]).collect();
        return Ok((u, w, svd.S()[0]));
    }
    let params = bl_core::linalg::PowerIterationParams {
        max_iter: 1000,
        tol: 1e-14,
        seed: 0,
    };
    let t = bl_core::linalg::power_iteration(&v, None, &params)?;
    Ok((t.u, t.v, t.sigma))
}

/// `<X, M>` over the stored data (zeros at missing entries, so this is `<X, M>_Omega`),
/// as `f0^T X_(0) (f2 (x) f1)` with `X_(0)` a view of the data.
pub(crate) fn inner_with_data(x: &Tensor, atom: &Atom) -> f64 {
    let [d0, d1, d2] = x.shape();
    let mut y = vec![0.0; d1 * d2];
    matvec(
        &mut y,
        MatRef::from_column_major_slice(x.data(), d0, d1 * d2).transpose(),
        atom.factor(0),
    );
    let (f1, f2) = (atom.factor(1), atom.factor(2));
    let mut s = 0.0;
    for k in 0..d2 {
        let col = &y[k * d1..(k + 1) * d1];
        let dot: f64 = col.iter().zip(f1).map(|(a, b)| a * b).sum();
        s += f2[k] * dot;
    }
    s
}

/// The entries over which masked inner products are corrected.
pub(crate) enum EntrySet {
    /// Fully observed.
    All,
    /// Inner products over all entries minus those over these (missing) entries.
    Missing(Vec<usize>),
    /// Inner products over these (observed) entries.
    Observed(Vec<usize>),
}

impl EntrySet {
    pub(crate) fn new(x: &Tensor) -> Self {
        match x.mask() {
            None => Self::All,
            Some(mask) => {
                let n_obs = x.n_observed();
                if n_obs >= x.len() - n_obs {
                    Self::Missing((0..x.len()).filter(|&i| !mask[i]).collect())
                } else {
                    Self::Observed((0..x.len()).filter(|&i| mask[i]).collect())
                }
            }
        }
    }
}

/// The Gram matrix `Q_ij = <M_i, M_j>_Omega` of the atoms.
pub(crate) fn masked_gram(atoms: &[Atom], shape: [usize; 3], entries: &EntrySet) -> Mat<f64> {
    let k = atoms.len();
    let ones = vec![1.0; k];
    let f = atom_factor_mats(atoms, &ones, shape);
    let full = || {
        let g: Vec<Mat<f64>> = f.iter().map(|fm| fm.transpose() * fm).collect();
        Mat::from_fn(k, k, |i, j| g[0][(i, j)] * g[1][(i, j)] * g[2][(i, j)])
    };
    let entry_values = |idx: &[usize]| {
        let [d0, d1, _] = shape;
        Mat::from_fn(idx.len(), k, |s, a| {
            let e = idx[s];
            let (i, j, l) = (e % d0, (e / d0) % d1, e / (d0 * d1));
            f[0][(i, a)] * f[1][(j, a)] * f[2][(l, a)]
        })
    };
    match entries {
        EntrySet::All => full(),
        EntrySet::Missing(idx) => {
            let mut q = full();
            let e = entry_values(idx);
            matmul(
                q.as_mut(),
                Accum::Add,
                e.transpose(),
                e.as_ref(),
                -1.0,
                Par::Seq,
            );
            q
        }
        EntrySet::Observed(idx) => {
            let e = entry_values(idx);
            e.transpose() * &e
        }
    }
}

/// The fully corrective coefficients (eq. (9)): `argmin_c 1/2 ||P_Omega(X - sum_i c_i
/// M_i)||^2` given `b_i = <X, M_i>_Omega`, i.e. `Q c = b` by Cholesky, with a tiny ridge
/// (`1e-12` times the largest diagonal entry, then `1e-8`) if `Q` is singular (repeated
/// atoms).
pub(crate) fn fully_corrective(
    atoms: &[Atom],
    b: &[f64],
    shape: [usize; 3],
    entries: &EntrySet,
) -> Result<Vec<f64>> {
    let q = masked_gram(atoms, shape, entries);
    // Q is symmetric: c^T Q = b^T.
    let rhs = Mat::from_fn(1, b.len(), |_, j| b[j]);
    let c = solve_right_spd_ridged(
        q.as_ref(),
        rhs.as_ref(),
        &[0.0, 1e-12, 1e-8],
        "fully corrective least squares",
    )?;
    Ok((0..b.len()).map(|j| c[(0, j)]).collect())
}

/// The fully corrective coefficients of `atoms` for the data `x` (its mask respected):
/// `argmin_c 1/2 ||P_Omega(X - sum_i c_i M_i)||_F^2` (eq. (9) of Chang et al.).
///
/// # Errors
/// [`TensorError::ShapeMismatch`] when an atom's shape differs from `x`'s;
/// [`TensorError::InvalidParameter`] for no atoms; [`TensorError::Numerical`] when the
/// atoms are linearly dependent on the observed entries.
pub fn fully_corrective_coefficients(x: &Tensor, atoms: &[Atom]) -> Result<Vec<f64>> {
    if atoms.is_empty() {
        return Err(invalid("atoms", "[]", "at least one atom"));
    }
    if let Some(a) = atoms.iter().find(|a| a.shape() != x.shape()) {
        return Err(TensorError::ShapeMismatch {
            what: "fully_corrective_coefficients: atom shape",
            expected: format!("{:?}", x.shape()),
            found: format!("{:?}", a.shape()),
        });
    }
    let b: Vec<f64> = atoms.iter().map(|a| inner_with_data(x, a)).collect();
    fully_corrective(atoms, &b, x.shape(), &EntrySet::new(x))
}

/// Diagnostics of one BMP step.
#[derive(Debug, Clone, PartialEq)]
pub struct AtomStep {
    /// Mode of the chosen atom's Boolean factor.
    pub mode: usize,
    /// Its score `<R, M> / ||M||_F`.
    pub score: f64,
    /// `z` updates made by the alternation.
    pub alternations: usize,
    /// Refit sweeps made after the fully corrective step.
    pub refit_sweeps: usize,
    /// `F` after the fully corrective step and the refit sweeps.
    pub loss: f64,
}

/// A fitted BMP model.
#[derive(Debug, Clone)]
pub struct FittedBmp {
    shape: [usize; 3],
    atoms: Vec<Atom>,
    coefficients: Vec<f64>,
    path: Vec<Vec<f64>>,
    snapshots: Vec<Vec<Atom>>,
    steps: Vec<AtomStep>,
    trace: Trace,
    info: FitReport,
    initial_loss: f64,
}

impl FittedBmp {
    /// The atoms in the order they were added (`u`, `w` of unit norm).
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }
    /// The final coefficients `c_i`.
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }
    /// The coefficients after each step: entry `t` holds the `t + 1` coefficients of the
    /// model after step `t + 1` (see [`FittedBmp::atoms_at`] for its atoms, which the
    /// refit sweeps may have changed since).
    pub fn coefficient_path(&self) -> &[Vec<f64>] {
        &self.path
    }
    /// Per-step diagnostics.
    pub fn steps(&self) -> &[AtomStep] {
        &self.steps
    }
    /// The engine trace (objective `F` per atom, extras `rmse`, `mode`, `score`).
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
    /// RMSE on the observed entries after each atom.
    pub fn rmse_path(&self) -> Vec<f64> {
        self.trace
            .extra("rmse")
            .into_iter()
            .map(|(_, v)| v)
            .collect()
    }
    /// `F` at `W = 0`.
    pub fn initial_loss(&self) -> f64 {
        self.initial_loss
    }
    /// Number of atoms.
    pub fn n_atoms(&self) -> usize {
        self.atoms.len()
    }
    /// Why the greedy loop stopped.
    pub fn termination(&self) -> TerminationReason {
        self.info.termination
    }
    /// Iterations and time of the run.
    pub fn run_info(&self) -> &FitReport {
        &self.info
    }
    /// The atoms of the model after step `k` (`1 <= k <= n_atoms()`): the first `k`
    /// atoms as they were then (later refit sweeps change earlier atoms).
    pub fn atoms_at(&self, k: usize) -> Option<&[Atom]> {
        k.checked_sub(1)
            .and_then(|i| self.snapshots.get(i))
            .map(Vec::as_slice)
    }
    /// The Boolean factors of the model after step `k` (empty for `k = 0` or too large).
    pub fn boolean_factors_at(&self, k: usize) -> Vec<BooleanFactor> {
        self.atoms_at(k)
            .map(|a| a.iter().map(Atom::boolean_factor).collect())
            .unwrap_or_default()
    }
    /// The model after step `k` (its atoms and coefficients; `k = 0` gives the zero
    /// tensor).
    ///
    /// # Errors
    /// [`TensorError::InvalidParameter`] for `k > n_atoms()`.
    pub fn reconstruct_first(&self, k: usize) -> Result<Tensor> {
        if k > self.atoms.len() {
            return Err(invalid("k", k, "<= the number of fitted atoms"));
        }
        if k == 0 {
            return Tensor::zeros(self.shape);
        }
        atoms_to_tensor(&self.snapshots[k - 1], &self.path[k - 1])
    }
}

impl Decomposition for FittedBmp {
    fn reconstruct(&self) -> Result<Tensor> {
        self.reconstruct_first(self.atoms.len())
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        self.atoms.iter().map(Atom::boolean_factor).collect()
    }
}
