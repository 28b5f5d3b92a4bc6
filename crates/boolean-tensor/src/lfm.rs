//! LFM and LFMmix: the latent-feature-model baselines of Sec. 6 of Chang et al.
//!
//! **LFM** factorizes one unfolding `X_(n) ≈ Z S` with Boolean `Z` (`d_n x k`) and real
//! `S` (`k x prod_{m != n} d_m`), by greedy Boolean atoms with fully corrective weights
//! (the matrix version of BMP): each step picks `z` maximizing `||R_(n)^T z||^2` with the
//! same Boolean QP ([`crate::QpSolver`]), refines it by alternating `v = R^T z / |z|` with
//! the exact row-wise update `z_i = [2 r_i . v > ||v||^2]` (both minimize
//! `||R - z v^T||^2`), appends it to `Z`, and solves `S = (Z^T Z)^{-1} Z^T X_(n)`. Run on
//! every mode (the default, `mode(None)`), the mode with the lowest loss **on the observed
//! entries** is kept (no peeking at the ground truth). Each atom carries a whole real row `v` (`d_a d_b`
//! numbers), not a rank-1 pair.
//!
//! **LFMmix** ([`LfmParams::mix`]) mixes LFM components of all three modes: `W = sum_n refold_n(Z_n S_n)`.
//! Each step searches all modes (in parallel) on the residual and adds the Boolean column
//! with the largest loss decrease `||R_(n)^T z||^2 / |z|` to its mode; the weights are
//! then refitted by block coordinate descent over the three modes (`sweeps` rounds of
//! `S_n = (Z_n^T Z_n)^{-1} Z_n^T (X - sum_{m != n} W_m)_(n)`).
//!
//! With a mask, both impute the missing entries from the current model before every
//! least-squares solve (EM).

use std::sync::Arc;

use bl_core::ParamGuard;
use bl_core::engine::{FitReport, IterationParams, Observer, Progress, Stop, relative_change, run};
use faer::linalg::matmul::matmul;
use faer::{Accum, ColMut, ColRef, Mat, MatRef, Par};
use rayon::prelude::*;

use crate::atom::{BooleanFactor, Decomposition};
use crate::common::{Workers, check_column_buffers, combine_reports, impute, masked_loss};
use crate::error::{Result, TensorError};
use crate::linalg::solve_right_spd;
use crate::qp::{MixingQp, QpSolver, maximize_checked};
use crate::tensor::{
    Tensor, check_mode, refold_into, unfold_into, unfolded_position, unfolded_shape,
};
use bl_core::error::build::numerical;

/// LFM and LFMmix. Start with [`Lfm::params`].
#[derive(Debug, Clone, Copy)]
pub struct Lfm;

impl Lfm {
    /// Default hyperparameters (table at [`LfmParams`]).
    pub fn params() -> LfmParams {
        LfmParams::default()
    }
}

/// Hyperparameters of LFM (and, through [`LfmParams::mix`], LFMmix).
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `max_iter` | `10` | Boolean columns in total (one engine iteration per column, and one final iteration that adds none when the residual is zero, see the fits) | `>= 1` |
/// | `tol` | `0` | stop when the observed loss changes by `\|F_prev - F\| / max(1, \|F_prev\|) <= tol` ([`relative_change`], the engine's convention: a change relative to the loss when it is above 1, an absolute change below 1) | finite, `>= 0` |
/// | `time_limit` | `None` | wall-clock limit, checked after each column (per mode tried) | any |
/// | `threads` | `None` | worker threads (`None`: rayon's global pool) | `1 ..= 1024` |
/// | `trace` | `true` | keep one trace record per column in the report | any |
/// | `mode` | `None` | LFM: the mode factorized (`None`: every mode, the lowest observed loss kept); LFMmix does not use it (its check still refuses a mode above 2) | `None` or `Some(0..=2)` |
/// | `alternations` | `10` | `z` / `v` alternations per atom | any |
/// | `em_iter` | `5` | EM rounds per least-squares solve when entries are missing | `>= 1` |
/// | `sweeps` | `3` | LFMmix: block sweeps of the weight refit per step | `>= 1` |
/// | `solver` | [`MixingQp::default`] | Boolean QP solver (any `Arc<dyn QpSolver>`) | passes its own `check` |
/// | `seed` | `0` | seeds the QP solver | any |
///
/// The first five are the shared [`IterationParams`].
///
/// ```
/// use bl_core::Predict;
/// use boolean_tensor::{Decomposition, Fit, Fitted, Lfm, SyntheticParams};
/// let data = SyntheticParams::default().shape([8, 7, 6]).n_atoms(2).seed(2).generate()?;
/// let lfm = Lfm::params().max_iter(4).fit(data.observed())?;
/// let mix = Lfm::params().max_iter(4).mix().fit(data.observed())?;
/// assert_eq!(lfm.report().iterations, lfm.report().trace.len());
/// assert!(mix.loss() <= 0.5 * data.observed().frobenius_norm().powi(2));
/// let w = mix.reconstruct()?;
/// let at = mix.predict(&[[1, 2, 3]][..])?;
/// assert!((at[0] - w.get(1, 2, 3)).abs() <= 1e-12 * (1.0 + w.get(1, 2, 3).abs()));
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LfmParams {
    iteration: IterationParams,
    mode: Option<usize>,
    alternations: usize,
    em_iter: usize,
    sweeps: usize,
    solver: Arc<dyn QpSolver>,
    seed: u64,
}

impl Default for LfmParams {
    fn default() -> Self {
        Self {
            iteration: IterationParams::new(10, 0.0),
            mode: None,
            alternations: 10,
            em_iter: 5,
            sweeps: 3,
            solver: Arc::new(MixingQp::default()),
            seed: 0,
        }
    }
}

/// The knobs of LFM, declared once: the setters of [`LfmParams`] and the getters of
/// [`LfmValidParams`]; the checked LFMmix parameters [`LfmMixValidParams`] have the same
/// getters but `mode`'s.
macro_rules! lfm_knobs {
    ($(#[$mode_attr:meta])* mode: $mode_ty:ty; $($shared:tt)*) => {
        bl_core::params::knobs! {
            LfmParams => LfmValidParams in params;
            $(#[$mode_attr])*
            mode: $mode_ty;
            $($shared)*
        }

        impl LfmMixValidParams {
            bl_core::params::getters! { in params; $($shared)* }
        }
    };
}

lfm_knobs! {
    /// The mode LFM factorizes (default `None`: every mode, the lowest observed loss kept;
    /// else `Some(0 ..= 2)`). LFMmix does not use it (its check still refuses a mode
    /// above 2).
    mode: Option<usize>;
    /// The iteration knobs (`max_iter` counts Boolean columns; defaults 10 columns,
    /// tolerance 0).
    ..iteration;
    /// The `z` / `v` alternations per atom (default 10).
    alternations: usize;
    /// The EM rounds per least-squares solve when entries are missing (default 5, `>= 1`).
    em_iter: usize;
    /// The LFMmix block sweeps of the weight refit per step (default 3, `>= 1`).
    sweeps: usize;
    /// The seed of the QP solver (default 0).
    seed: u64;
    /// The Boolean QP solver (default [`MixingQp::default`]): a built-in one or any user
    /// type implementing [`QpSolver`] (it should pass [`crate::conformance::conformance`]).
    solver: &Arc<dyn QpSolver>;
}

impl LfmParams {
    /// LFMmix with these parameters (`mode` is not used, but still checked).
    #[must_use]
    pub fn mix(self) -> LfmMixParams {
        LfmMixParams { lfm: self }
    }

    /// The checks shared by LFM and LFMmix.
    fn validate(&self) -> Result<()> {
        self.iteration.check()?;
        bl_core::params::at_least("em_iter", self.em_iter, 1)?;
        bl_core::params::at_least("sweeps", self.sweeps, 1)?;
        if let Some(mode) = self.mode {
            check_mode(mode)?;
        }
        self.solver.check()?;
        Ok(())
    }
}

param_guard! {
    /// [`LfmParams`] after [`ParamGuard::check`].
    LfmParams => LfmValidParams;
    /// Checks the parameters, the QP solver's own settings included.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`], [`TensorError::InvalidMode`] or the QP
    /// solver's parameter error.
    fn check(&self) {
        self.validate()?;
    }
}

fit_checked! {
    /// LFM on `mode`, or on every mode (in parallel when no observer is attached, in turn
    /// otherwise; the result is the same) with the lowest observed loss kept. One engine
    /// iteration per Boolean column (objective: the observed loss `F`; change:
    /// [`relative_change`] of `F`, compared with `tol`; extra `mode`). When the residual
    /// of a mode is zero, its next iteration adds no column and ends its run `Solved`
    /// (that run then has one iteration more than columns). The report holds the
    /// iterations of every mode tried, in order, the termination and objective of the
    /// kept one, and the wall-clock time of the whole fit (`elapsed`, modes run in
    /// parallel counted once).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] naming `max_iter` when the model at
    /// `max_iter` columns (`d_n x K`, `K x d_a d_b`, `K x K`) would exceed
    /// [`bl_core::limits::MAX_ELEMENTS`] values or cannot be reserved (checked before the
    /// fit allocates anything); QP or least-squares failures;
    /// [`bl_core::BlError::InvalidParameter`] naming `solver` for an answer that is not a
    /// 0/1 vector of the unfolding's row count; data that are zero.
    LfmValidParams -> FittedLfm by fit_checked
}

impl LfmValidParams {
    fn fit_checked(&self, x: &Tensor, observers: &mut [&mut dyn Observer]) -> Result<FittedLfm> {
        let p = &self.params;
        let workers = p.iteration.pool()?;
        let modes: Vec<usize> = p.mode.map_or_else(|| vec![0, 1, 2], |m| vec![m]);
        check_column_buffers("max_iter", x.shape(), &modes, p.iteration.max_iter)?;
        let fits: Vec<Result<FittedLfm>> = if observers.is_empty() {
            workers.install(|| {
                modes
                    .par_iter()
                    .map(|&m| p.fit_mode(x, m, &mut [], &workers))
                    .collect()
            })
        } else {
            modes
                .iter()
                .map(|&m| p.fit_mode(x, m, observers, &workers))
                .collect()
        };
        let mut best: Option<(usize, FittedLfm)> = None;
        let mut reports = Vec::with_capacity(fits.len());
        for (i, f) in fits.into_iter().enumerate() {
            let f = f?;
            if best.as_ref().is_none_or(|(_, b)| f.loss < b.loss) {
                best = Some((i, f.clone()));
            }
            reports.push(f.report);
        }
        let (kept, mut fitted) =
            best.ok_or_else(|| numerical::<crate::TensorError>("LFM", "no mode was fitted"))?;
        fitted.report = combine_reports(reports, kept);
        Ok(fitted)
    }
}

impl LfmParams {
    /// LFM on one mode (parameters checked).
    fn fit_mode(
        &self,
        x: &Tensor,
        mode: usize,
        observers: &mut [&mut dyn Observer],
        workers: &Workers,
    ) -> Result<FittedLfm> {
        let shape = x.shape();
        let (d, m) = unfolded_shape(shape, mode);
        let par = Par::Seq;
        let mut filled = x.data().to_vec();
        let mut model = vec![0.0; x.len()];
        let mut xu = Mat::zeros(d, m);
        let mut r = Mat::zeros(d, m);
        let mut z = Mat::<f64>::zeros(d, 0);
        let mut s = Mat::<f64>::zeros(0, m);
        let mut loss = masked_loss(x, &model);
        let report = run(&self.iteration, observers, |t| -> Result<Progress> {
            workers.install(|| {
                // R = X~_(n) - Z S.
                unfold_into(&filled, shape, mode, xu.as_mut());
                r.copy_from(&xu);
                if z.ncols() > 0 {
                    matmul(r.as_mut(), Accum::Add, z.as_ref(), s.as_ref(), -1.0, par);
                }
                let Some((zc, _)) = matrix_atom(
                    r.as_ref(),
                    self.solver.as_ref(),
                    self.alternations,
                    self.seed.wrapping_add(t as u64 - 1),
                )?
                else {
                    // R = 0: nothing is left to explain.
                    let done = Progress::new(loss, 0.0).with("mode", mode as f64);
                    return Ok(done.stop_if(Some(Stop::Solved)));
                };
                let mut nz = Mat::zeros(d, z.ncols() + 1);
                nz.as_mut().subcols_mut(0, z.ncols()).copy_from(&z);
                for i in 0..d {
                    nz[(i, z.ncols())] = zc[i];
                }
                z = nz;
                let rounds = if x.mask().is_some() { self.em_iter } else { 1 };
                for _ in 0..rounds {
                    unfold_into(&filled, shape, mode, xu.as_mut());
                    s = fit_weights(z.as_ref(), xu.as_ref())?;
                    let w = z.as_ref() * s.as_ref();
                    refold_into(w.as_ref(), shape, mode, &mut model);
                    impute(x, &model, &mut filled);
                }
                Ok(observed_progress(x, &model, &mut loss, mode))
            })
        })?;
        if z.ncols() == 0 {
            return Err(numerical(
                "LFM",
                "no Boolean atom found (the data are zero)",
            ));
        }
        Ok(FittedLfm {
            shape,
            mode,
            z,
            s,
            loss,
            report,
        })
    }
}

/// LFMmix parameters: [`LfmParams`] read by the LFMmix fit (start with
/// [`LfmParams::mix`]; the table of knobs is at [`LfmParams`], `mode` is not used).
#[derive(Debug, Clone)]
pub struct LfmMixParams {
    lfm: LfmParams,
}

/// [`LfmMixParams`] after [`ParamGuard::check`].
#[derive(Debug, Clone)]
pub struct LfmMixValidParams {
    params: LfmParams,
}

impl ParamGuard for LfmMixParams {
    type Checked = LfmMixValidParams;
    type Error = TensorError;

    /// Checks the parameters (as [`LfmParams`]).
    ///
    /// # Errors
    /// As [`LfmParams`]' check.
    fn check(&self) -> Result<LfmMixValidParams> {
        self.lfm.validate()?;
        Ok(LfmMixValidParams {
            params: self.lfm.clone(),
        })
    }
}

fit_checked! {
    /// LFMmix: LFM components of all three modes, added greedily (module docs). One
    /// engine iteration per Boolean column (objective: the observed loss `F`; change:
    /// [`relative_change`] of `F`, compared with `tol`; extra `mode`, the mode the column
    /// was added to). When the residual is zero, the next iteration adds no column and
    /// ends the run `Solved` (one iteration more than columns; that record has no extra
    /// `mode`). The report's `elapsed` is the wall-clock time of the whole fit.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] naming `max_iter` as for [`LfmParams`]'
    /// fit; QP or least-squares failures, and answers of the solver as for [`LfmParams`]'
    /// fit.
    LfmMixValidParams -> FittedLfmMix by fit_mix
}

impl LfmMixValidParams {
    fn fit_mix(&self, x: &Tensor, observers: &mut [&mut dyn Observer]) -> Result<FittedLfmMix> {
        let p = &self.params;
        let workers = p.iteration.pool()?;
        let shape = x.shape();
        check_column_buffers("max_iter", shape, &[0, 1, 2], p.iteration.max_iter)?;
        let n = x.len();
        let mut filled = x.data().to_vec();
        let mut parts: Vec<Vec<f64>> = vec![vec![0.0; n]; 3];
        let mut zs: Vec<Mat<f64>> = (0..3).map(|m| Mat::zeros(shape[m], 0)).collect();
        let mut ss: Vec<Mat<f64>> = (0..3)
            .map(|m| Mat::zeros(0, unfolded_shape(shape, m).1))
            .collect();
        let mut model = vec![0.0; n];
        let mut resid = vec![0.0; n];
        let mut work: Vec<Mat<f64>> = (0..3)
            .map(|m| {
                let (r, c) = unfolded_shape(shape, m);
                Mat::zeros(r, c)
            })
            .collect();
        let mut loss = masked_loss(x, &model);
        let report = run(&p.iteration, observers, |it| -> Result<Progress> {
            workers.install(|| {
                let t = it - 1;
                for (i, r) in resid.iter_mut().enumerate() {
                    *r = filled[i] - model[i];
                }
                let cands: Vec<Result<Option<MatrixAtom>>> = work
                    .par_iter_mut()
                    .enumerate()
                    .map(|(m, g)| {
                        unfold_into(&resid, shape, m, g.as_mut());
                        matrix_atom(
                            g.as_ref(),
                            p.solver.as_ref(),
                            p.alternations,
                            p.seed.wrapping_add(3 * t as u64 + m as u64),
                        )
                    })
                    .collect();
                let mut best: Option<(usize, Vec<f64>, f64)> = None;
                for (m, c) in cands.into_iter().enumerate() {
                    if let Some((z, gain)) = c?
                        && best.as_ref().is_none_or(|b| gain > b.2)
                    {
                        best = Some((m, z, gain));
                    }
                }
                let Some((mode, zc, _)) = best else {
                    // R = 0: nothing is left to explain.
                    return Ok(Progress::new(loss, 0.0).stop_if(Some(Stop::Solved)));
                };
                let old = &zs[mode];
                let mut nz = Mat::zeros(old.nrows(), old.ncols() + 1);
                nz.as_mut().subcols_mut(0, old.ncols()).copy_from(old);
                for i in 0..old.nrows() {
                    nz[(i, old.ncols())] = zc[i];
                }
                zs[mode] = nz;
                let rounds =
                    p.sweeps
                        .saturating_mul(if x.mask().is_some() { p.em_iter } else { 1 });
                for _ in 0..rounds {
                    for m in 0..3 {
                        if zs[m].ncols() == 0 {
                            continue;
                        }
                        // Target: X~ minus the other modes' parts.
                        for i in 0..n {
                            resid[i] = filled[i] - model[i] + parts[m][i];
                        }
                        let g = &mut work[m];
                        unfold_into(&resid, shape, m, g.as_mut());
                        ss[m] = fit_weights(zs[m].as_ref(), g.as_ref())?;
                        let w = zs[m].as_ref() * ss[m].as_ref();
                        let old_part = parts[m].clone();
                        refold_into(w.as_ref(), shape, m, &mut parts[m]);
                        for i in 0..n {
                            model[i] += parts[m][i] - old_part[i];
                        }
                    }
                    impute(x, &model, &mut filled);
                }
                Ok(observed_progress(x, &model, &mut loss, mode))
            })
        })?;
        Ok(FittedLfmMix {
            shape,
            z: zs,
            s: ss,
            loss,
            report,
        })
    }
}

/// The progress of a step that ends with `model`: the observed loss (kept in `loss`), its
/// relative change, and the mode the step worked on.
fn observed_progress(x: &Tensor, model: &[f64], loss: &mut f64, mode: usize) -> Progress {
    let new_loss = masked_loss(x, model);
    let change = relative_change(*loss, new_loss);
    *loss = new_loss;
    Progress::new(new_loss, change).with("mode", mode as f64)
}

/// A Boolean column and its loss decrease.
type MatrixAtom = (Vec<f64>, f64);

/// `S = (Z^T Z)^{-1} Z^T X` (`k x m`).
fn fit_weights(z: MatRef<'_, f64>, x: MatRef<'_, f64>) -> Result<Mat<f64>> {
    let gram = z.transpose() * z;
    let rhs = x.transpose() * z; // m x k
    let st = solve_right_spd(gram.as_ref(), rhs.as_ref())?; // m x k
    Ok(st.transpose().to_owned())
}

/// A Boolean column for the matrix residual `r` (`d x m`): the QP start, then the
/// alternation of the module docs. Returns `(z, ||R^T z||^2 / |z|)`, or `None` when
/// `R = 0`.
fn matrix_atom(
    r: MatRef<'_, f64>,
    solver: &dyn QpSolver,
    alternations: usize,
    seed: u64,
) -> Result<Option<MatrixAtom>> {
    let (d, m) = (r.nrows(), r.ncols());
    let mut z = maximize_checked(solver, r, seed)?;
    if z.iter().all(|&v| v == 0.0) {
        let row = (0..d)
            .max_by(|&i, &j| r.row(i).norm_l2().total_cmp(&r.row(j).norm_l2()))
            .unwrap_or(0);
        z[row] = 1.0;
    }
    let mut v = vec![0.0; m];
    let mut rv = vec![0.0; d];
    let mut gain = 0.0;
    // One engine iteration per alternation: the gain of the current z, then (budget
    // left) its exact update; a fixed point (or an empty z) ends the run as solved.
    let rule = IterationParams::new(alternations.saturating_add(1), 0.0).untraced();
    run(&rule, &mut [], |iteration| -> Result<Progress> {
        let k = z.iter().sum::<f64>();
        matmul(
            ColMut::from_slice_mut(&mut v).as_mat_mut(),
            Accum::Replace,
            r.transpose(),
            ColRef::from_slice(&z).as_mat(),
            1.0 / k,
            Par::Seq,
        );
        let vv: f64 = v.iter().map(|a| a * a).sum();
        gain = k * vv;
        // A non-finite gain (an overflow) ends the run with a numerical error.
        let progress = Progress::new(gain, 1.0);
        if iteration > alternations {
            return Ok(progress);
        }
        matmul(
            ColMut::from_slice_mut(&mut rv).as_mat_mut(),
            Accum::Replace,
            r,
            ColRef::from_slice(&v).as_mat(),
            1.0,
            Par::Seq,
        );
        let new: Vec<f64> = rv
            .iter()
            .map(|&p| f64::from(u8::from(2.0 * p > vv)))
            .collect();
        if new == z || new.iter().all(|&x| x == 0.0) {
            return Ok(progress.stop_if(Some(Stop::Solved)));
        }
        z = new;
        Ok(progress)
    })?;
    if gain <= 0.0 {
        return Ok(None);
    }
    Ok(Some((z, gain)))
}

/// A fitted LFM: `X_(mode) ≈ Z S`.
#[derive(Debug, Clone)]
pub struct FittedLfm {
    shape: [usize; 3],
    mode: usize,
    z: Mat<f64>,
    s: Mat<f64>,
    loss: f64,
    report: FitReport,
}

impl FittedLfm {
    /// The mode factorized.
    pub fn mode(&self) -> usize {
        self.mode
    }
    /// The Boolean factor `Z` (`d_mode x k`).
    pub fn z(&self) -> MatRef<'_, f64> {
        self.z.as_ref()
    }
    /// The real weights `S` (`k x prod_{m != mode} d_m`).
    pub fn s(&self) -> MatRef<'_, f64> {
        self.s.as_ref()
    }
    /// `1/2 ||P_Omega(X - W)||^2`.
    pub fn loss(&self) -> f64 {
        self.loss
    }
}

fitted_report! {
    /// One iteration per Boolean column of every mode tried, in order (extra `mode`; a
    /// mode whose residual became zero has one final iteration that adds no column), the
    /// termination of the kept mode, and the wall-clock time of the whole fit.
    FittedLfm
}

impl FittedLfm {
    /// The model's value at `[i, j, k]` (inside the shape): row `i_mode` of `Z` times the
    /// column of `S` at the unfolded position.
    fn entry(&self, [i, j, k]: [usize; 3]) -> f64 {
        let (row, col) = unfolded_position(self.shape, self.mode, i, j, k);
        (0..self.z.ncols())
            .map(|r| self.z[(row, r)] * self.s[(r, col)])
            .sum()
    }
}

predict_entries!(FittedLfm);

impl Decomposition for FittedLfm {
    fn reconstruct(&self) -> Result<Tensor> {
        let w = self.z.as_ref() * self.s.as_ref();
        let mut out = vec![0.0; self.shape.iter().product()];
        refold_into(w.as_ref(), self.shape, self.mode, &mut out);
        Tensor::from_vec(self.shape, out)
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        columns(self.mode, &self.z)
    }
}

fn columns(mode: usize, z: &Mat<f64>) -> Vec<BooleanFactor> {
    (0..z.ncols())
        .map(|j| BooleanFactor {
            mode,
            z: (0..z.nrows()).map(|i| z[(i, j)]).collect(),
        })
        .collect()
}

/// A fitted LFMmix: `W = sum_n refold_n(Z_n S_n)`.
#[derive(Debug, Clone)]
pub struct FittedLfmMix {
    shape: [usize; 3],
    z: Vec<Mat<f64>>,
    s: Vec<Mat<f64>>,
    loss: f64,
    report: FitReport,
}

impl FittedLfmMix {
    /// The Boolean factor `Z_n` of mode `n` (`d_n x k_n`, possibly no column).
    pub fn z(&self, mode: usize) -> Option<MatRef<'_, f64>> {
        self.z.get(mode).map(|m| m.as_ref())
    }
    /// `1/2 ||P_Omega(X - W)||^2`.
    pub fn loss(&self) -> f64 {
        self.loss
    }
}

fitted_report! {
    /// One iteration per Boolean column (extra `mode`: where it was added), and one final
    /// iteration that adds none when the residual became zero.
    FittedLfmMix
}

impl FittedLfmMix {
    /// The model's value at `[i, j, k]` (inside the shape): the sum of the three modes'
    /// parts.
    fn entry(&self, [i, j, k]: [usize; 3]) -> f64 {
        (0..3)
            .map(|m| {
                let (row, col) = unfolded_position(self.shape, m, i, j, k);
                (0..self.z[m].ncols())
                    .map(|r| self.z[m][(row, r)] * self.s[m][(r, col)])
                    .sum::<f64>()
            })
            .sum()
    }
}

predict_entries!(FittedLfmMix);

impl Decomposition for FittedLfmMix {
    fn reconstruct(&self) -> Result<Tensor> {
        let mut out = vec![0.0; self.shape.iter().product()];
        let mut part = vec![0.0; out.len()];
        for m in 0..3 {
            if self.z[m].ncols() == 0 {
                continue;
            }
            let w = self.z[m].as_ref() * self.s[m].as_ref();
            refold_into(w.as_ref(), self.shape, m, &mut part);
            for (o, p) in out.iter_mut().zip(&part) {
                *o += p;
            }
        }
        Tensor::from_vec(self.shape, out)
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        (0..3).flat_map(|m| columns(m, &self.z[m])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A "solver" that returns the Boolean vector of one seeded coin flip per row, so the
    /// alternation has work to do.
    #[derive(Debug)]
    struct CoinStart;

    impl bl_core::Extension for CoinStart {
        fn name(&self) -> &str {
            "coin start"
        }
    }

    impl QpSolver for CoinStart {
        fn maximize(&self, g: MatRef<'_, f64>, seed: u64) -> Result<Vec<f64>> {
            let mut rng = bl_core::random::seeded_rng(seed);
            Ok((0..g.nrows())
                .map(|_| f64::from(u8::from(rand::RngExt::random_bool(&mut rng, 0.5))))
                .collect())
        }
    }

    /// The alternation as a plain loop (as before it ran on the engine).
    fn loop_reference(r: MatRef<'_, f64>, alternations: usize, seed: u64) -> Option<MatrixAtom> {
        let (d, m) = (r.nrows(), r.ncols());
        let mut z = CoinStart.maximize(r, seed).expect("coin start");
        if z.iter().all(|&v| v == 0.0) {
            let row = (0..d)
                .max_by(|&i, &j| r.row(i).norm_l2().total_cmp(&r.row(j).norm_l2()))
                .unwrap_or(0);
            z[row] = 1.0;
        }
        let mut made = 0;
        loop {
            let k = z.iter().sum::<f64>();
            let v: Vec<f64> = (0..m)
                .map(|j| (0..d).map(|i| r[(i, j)] * z[i]).sum::<f64>() / k)
                .collect();
            let vv: f64 = v.iter().map(|a| a * a).sum();
            let gain = k * vv;
            if made >= alternations {
                return (gain > 0.0).then_some((z, gain));
            }
            let new: Vec<f64> = (0..d)
                .map(|i| {
                    let p: f64 = (0..m).map(|j| r[(i, j)] * v[j]).sum();
                    f64::from(u8::from(2.0 * p > vv))
                })
                .collect();
            if new == z || new.iter().all(|&x| x == 0.0) {
                return (gain > 0.0).then_some((z, gain));
            }
            z = new;
            made += 1;
        }
    }

    #[test]
    fn matrix_atom_on_the_engine_matches_the_plain_loop() {
        let mut rng = bl_core::random::seeded_rng(21);
        for trial in 0..12 {
            let r = bl_core::random::standard_normal_mat(&mut rng, 9, 14).unwrap();
            for alternations in [0, 1, 3, 10] {
                let seed = 100 + trial;
                let got = matrix_atom(r.as_ref(), &CoinStart, alternations, seed).expect("runs");
                let want = loop_reference(r.as_ref(), alternations, seed);
                let (Some((z, gain)), Some((wz, wgain))) = (got, want) else {
                    panic!("trial {trial}: no atom for a nonzero residual");
                };
                assert_eq!(z, wz, "trial {trial}, {alternations} alternations");
                assert!((gain - wgain).abs() <= 1e-12 * wgain);
                // Independent check of the gain: ||R^T z||^2 / |z|.
                let k = z.iter().sum::<f64>();
                let direct: f64 = (0..r.ncols())
                    .map(|j| {
                        (0..r.nrows())
                            .map(|i| r[(i, j)] * z[i])
                            .sum::<f64>()
                            .powi(2)
                    })
                    .sum::<f64>()
                    / k;
                assert!((gain - direct).abs() <= 1e-12 * direct);
            }
        }
    }
}
