//! CP-ALS: the CANDECOMP/PARAFAC baseline of Sec. 6 of Chang et al., fitted by
//! alternating least squares (Kolda & Bader 2009, Fig. 3.3), with EM imputation of the
//! missing entries for completion.
//!
//! Each sweep updates `F_n = X_(n) (F_b (.) F_a) [(F_a^T F_a) * (F_b^T F_b)]^{-1}` for
//! `n = 0, 1, 2`, then moves the column norms of `F_0, F_1` into `F_2`. With a mask the
//! missing entries of `X` are replaced by the current model before every sweep (EM;
//! the observed loss never increases). Starts: the first from the HOSVD (leading left
//! singular vectors of each unfolding, padded with Gaussian columns when the rank
//! exceeds a mode's length), the others from Gaussian factors; the start with the lowest
//! loss on the observed entries is kept.
//!
//! Boolean factors (for the Hamming error): CP has none, so each factor column of each
//! mode is binarized by its best scaled Boolean fit
//! ([`crate::metrics::best_boolean_fit`]) and all `3 R` of them are offered to the
//! matching; the matching only pairs factors of the same mode.

use bl_core::engine::{FitReport, IterationParams, Observer, Progress, Stop, run};

use faer::{Mat, MatRef};

use crate::atom::{BooleanFactor, Decomposition};
use crate::common::{
    Workers, als_update, check_als_budget, check_rank_buffers, combine_reports, cp_em_step,
    cp_loss_from_mttkrp, masked_loss,
};
use crate::error::Result;
use crate::hosvd::randomized_hosvd;
use crate::kernels::Mttkrp;
use crate::metrics::best_boolean_fit;
use crate::tensor::{Tensor, cp_entry, cp_reconstruct_into, cp_to_tensor};
use bl_core::error::build::{invalid, numerical};

/// CP-ALS. Start with [`CpAls::params`].
#[derive(Debug, Clone, Copy)]
pub struct CpAls;

impl CpAls {
    /// Default hyperparameters (table at [`CpAlsParams`]).
    pub fn params() -> CpAlsParams {
        CpAlsParams::default()
    }
}

/// Hyperparameters of CP-ALS.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `rank` | `10` | `R`, number of rank-1 components | `>= 1` |
/// | `max_iter` | `300` | ALS sweeps per start (one engine iteration per sweep) | `>= 1` |
/// | `tol` | `1e-9` | stop a start when the loss decreases by a fraction `<= tol` | finite, `>= 0` |
/// | `time_limit` | `None` | wall-clock limit of each start | any |
/// | `threads` | `None` | worker threads of the kernels (`None`: rayon's global pool); the result is bit-identical for any count | `1 ..= 1024` |
/// | `trace` | `true` | keep one trace record per sweep in the report | any |
/// | `n_starts` | `3` | starts: HOSVD, then Gaussian | `>= 1` |
/// | `seed` | `0` | seeds the Gaussian starts | any |
///
/// `max_iter`, `tol`, `time_limit`, `threads` and `trace` are the shared
/// [`IterationParams`].
///
/// ```
/// use bl_core::Predict;
/// use boolean_tensor::{CpAls, Decomposition, Fit, Tensor, cp_to_tensor};
/// let a = faer::mat![[1.0, 0.5], [0.0, 1.0], [2.0, -1.0]];
/// let b = faer::mat![[1.0, 1.0], [-1.0, 0.0]];
/// let c = faer::mat![[0.5, 2.0], [1.0, 1.0], [0.0, 3.0], [1.0, -1.0]];
/// let x = cp_to_tensor([a.as_ref(), b.as_ref(), c.as_ref()])?;
/// let fit = CpAls::params().rank(2).fit(&x)?;
/// let err = boolean_tensor::metrics::rmse(&fit.reconstruct()?, &x)?;
/// assert!(err < 1e-6);
/// let at = fit.predict(&[[2, 1, 3]][..])?;
/// assert!((at[0] - x.get(2, 1, 3)).abs() < 1e-6);
/// assert!(fit.predict(&[[3, 0, 0]][..]).is_err());
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CpAlsParams {
    rank: usize,
    iteration: IterationParams,
    n_starts: usize,
    seed: u64,
}

impl Default for CpAlsParams {
    fn default() -> Self {
        Self {
            rank: 10,
            iteration: IterationParams::new(300, 1e-9),
            n_starts: 3,
            seed: 0,
        }
    }
}

bl_core::params::knobs! {
    CpAlsParams => CpAlsValidParams in params;
    /// The iteration knobs (`max_iter` counts ALS sweeps per start; defaults 300 sweeps,
    /// tolerance `1e-9`).
    ..iteration;
    /// The rank `R` (default 10, `>= 1`).
    rank: usize;
    /// The number of starts: the HOSVD, then Gaussian (default 3, `>= 1`).
    n_starts: usize;
    /// The seed of the Gaussian starts (default 0).
    seed: u64;
}

param_guard! {
    /// [`CpAlsParams`] after [`ParamGuard::check`](bl_core::ParamGuard::check).
    CpAlsParams => CpAlsValidParams;
    /// Checks the parameters.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`].
    fn check(&self) {
        check_als_budget(self.rank, self.n_starts, &self.iteration)?;
    }
}

fit_checked! {
    /// Fits CP-ALS to `x` (its mask marks the observed entries). Every start runs on the
    /// engine, one iteration per ALS sweep (objective: the observed loss; extra `start`;
    /// without a mask the sweep's loss comes from the last MTTKRP, a closed form clamped at
    /// 0 that cancels to rounding near an exact fit); the report holds the sweeps of all
    /// starts in order, the termination of the kept one, its `objective` the exact loss of
    /// the returned model ([`FittedCp::loss`]), and `elapsed` the wall-clock time of the
    /// whole fit (every start's initialisation included).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] naming `rank` when a buffer sized by the
    /// rank (`d_a d_b x R`, `d_n x R`, `R x R`) would exceed
    /// [`bl_core::limits::MAX_ELEMENTS`] values or cannot be reserved (checked before the
    /// fit allocates anything); [`bl_core::BlError::Numerical`] for a failed solve or a
    /// non-finite loss.
    CpAlsValidParams -> FittedCp by fit_checked
}

impl CpAlsValidParams {
    fn fit_checked(&self, x: &Tensor, observers: &mut [&mut dyn Observer]) -> Result<FittedCp> {
        let p = &self.params;
        let workers = p.iteration.pool()?;
        check_rank_buffers("rank", x.shape(), p.rank)?;
        let mut best: Option<(usize, StartFit)> = None;
        // One report per start, pushed as the starts run (n_starts is a count of runs,
        // not a size to reserve).
        let mut reports = Vec::new();
        for start in 0..p.n_starts {
            let init = if start == 0 {
                workers.install(|| hosvd_start(x, p.rank, p.seed))?
            } else {
                gaussian_init(x.shape(), p.rank, p.seed.wrapping_add(start as u64))?
            };
            let (fitted, report) = als(x, init, &p.iteration, &workers, start, observers)?;
            reports.push(report);
            if best.as_ref().is_none_or(|(_, b)| fitted.loss < b.loss) {
                best = Some((start, fitted));
            }
        }
        let (start, fitted) =
            best.ok_or_else(|| invalid::<crate::TensorError>("n_starts", 0, ">= 1"))?;
        Ok(FittedCp {
            shape: x.shape(),
            factors: fitted.factors,
            loss: fitted.loss,
            start,
            report: combine_reports(reports, start),
        })
    }
}

/// The result of one start.
struct StartFit {
    factors: [Mat<f64>; 3],
    loss: f64,
}

fn gaussian_init(shape: [usize; 3], rank: usize, seed: u64) -> Result<[Mat<f64>; 3]> {
    let mut rng = bl_core::random::seeded_rng(seed);
    let mut out = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
    for (m, f) in out.iter_mut().enumerate() {
        *f = bl_core::random::standard_normal_mat(&mut rng, shape[m], rank)?;
    }
    Ok(out)
}

/// The HOSVD start of CP-ALS: for each mode `n`, the `min(rank, d_n)` leading left
/// singular vectors of the unfolding `X_(n)` (of the data as stored; missing entries hold
/// `0.0`), by a sequentially truncated HOSVD with a seeded randomized range finder on
/// the long modes, padded with Gaussian columns up to `rank` when the rank exceeds a
/// mode's length. Costs about two passes of `rank + 10` columns over the tensor (2.5-6
/// ALS sweeps of the same rank, measured at 45^3-150^3).
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] for `rank == 0`, for a rank whose buffers would
/// exceed [`bl_core::limits::MAX_ELEMENTS`] values (as for [`CpAlsParams`]' fit), or for
/// a mode so long that its Gram matrix would (an exact HOSVD step on a mode of length
/// above 65,536 whose other modes are short);
/// [`bl_core::BlError::Numerical`] when an eigendecomposition fails.
pub fn hosvd_start(x: &Tensor, rank: usize, seed: u64) -> Result<[Mat<f64>; 3]> {
    bl_core::params::at_least("rank", rank, 1)?;
    check_rank_buffers("rank", x.shape(), rank)?;
    let mut rng = bl_core::random::seeded_rng(seed);
    let mut out = gaussian_init(x.shape(), rank, seed)?;
    let u = randomized_hosvd(x.data(), x.shape(), rank, &mut rng)?;
    for (f, u) in out.iter_mut().zip(&u) {
        f.subcols_mut(0, u.ncols()).copy_from(u);
    }
    Ok(out)
}

fn als(
    x: &Tensor,
    mut f: [Mat<f64>; 3],
    rule: &IterationParams,
    workers: &Workers,
    start: usize,
    observers: &mut [&mut dyn Observer],
) -> Result<(StartFit, FitReport)> {
    let par = faer::get_global_parallelism();
    let shape = x.shape();
    let rank = f[0].ncols();
    let masked = x.mask().is_some();
    let mut filled = x.data().to_vec();
    let mut model = vec![0.0; x.len()];
    let mut kr = Mat::zeros(0, 0);
    let mut work = Mttkrp::default();
    let norm_sq: f64 = x.data().iter().map(|v| v * v).sum();
    let mut m = Mat::zeros(0, 0);
    let mut loss = f64::INFINITY;
    let mut report = run(rule, observers, |_| -> Result<Progress> {
        workers.install(|| {
            work.invalidate();
            for n in 0..3 {
                f[n] = als_update(&filled, shape, n, &f, &mut work, &mut m)?;
            }
            let new_loss = if masked {
                cp_em_step(x, &f, &mut kr, &mut model, &mut filled, par)
            } else {
                // From M2, the last MTTKRP: no pass over the tensor.
                cp_loss_from_mttkrp(norm_sq, &f, 2, m.as_ref())
            };
            // Column norms of F0, F1 into F2 (keeps the factors balanced).
            for r in 0..rank {
                let mut scale = 1.0;
                for fm in f.iter_mut().take(2) {
                    let nrm = fm.col(r).norm_l2();
                    if nrm > 0.0 {
                        for i in 0..fm.nrows() {
                            fm[(i, r)] /= nrm;
                        }
                        scale *= nrm;
                    }
                }
                for i in 0..f[2].nrows() {
                    f[2][(i, r)] *= scale;
                }
            }
            // Relative decrease, with a floor at the rounding level of ||X||^2 (the cheap
            // loss formula cancels).
            let change = if loss.is_finite() {
                (loss - new_loss) / loss.max(1e-12 * norm_sq).max(f64::MIN_POSITIVE)
            } else {
                f64::INFINITY
            };
            loss = new_loss;
            if !loss.is_finite() {
                return Err(numerical("CP-ALS", "the loss became non-finite"));
            }
            // An exact fit (to rounding) is an optimum: nothing is left to explain.
            let exact = loss <= 1e-28 * norm_sq;
            Ok(Progress::new(loss, change.abs())
                .stop_if(exact.then_some(Stop::Solved))
                .with("start", start as f64))
        })
    })?;
    if !masked {
        // Report the exact observed loss, in the report too (the trace keeps the sweeps'
        // closed-form values).
        workers.install(|| {
            cp_reconstruct_into(f.each_ref().map(Mat::as_ref), &mut kr, &mut model, par);
        });
        loss = masked_loss(x, &model);
        report.objective = loss;
    }
    Ok((StartFit { factors: f, loss }, report))
}

/// A fitted CP model `W = sum_r F0[:, r] (x) F1[:, r] (x) F2[:, r]`.
#[derive(Debug, Clone)]
pub struct FittedCp {
    shape: [usize; 3],
    factors: [Mat<f64>; 3],
    loss: f64,
    start: usize,
    report: FitReport,
}

impl FittedCp {
    /// The factor matrices `F_n` (`d_n x R`); `F0`, `F1` have unit columns.
    pub fn factors(&self) -> [MatRef<'_, f64>; 3] {
        self.factors.each_ref().map(Mat::as_ref)
    }
    /// `1/2 ||P_Omega(X - W)||^2` of the kept start.
    pub fn loss(&self) -> f64 {
        self.loss
    }
    /// Index of the kept start (0 = HOSVD).
    pub fn start(&self) -> usize {
        self.start
    }
}

fitted_report! {
    /// The ALS sweeps of every start in order (extra `start`), the termination of the
    /// kept start, the exact loss of the returned model as the objective
    /// ([`FittedCp::loss`]) and the wall-clock time of the whole fit.
    FittedCp
}

impl FittedCp {
    /// The model's value at `[i, j, k]` (inside the shape).
    fn entry(&self, index: [usize; 3]) -> f64 {
        cp_entry(&self.factors, index)
    }
}

predict_entries!(FittedCp);

impl Decomposition for FittedCp {
    fn reconstruct(&self) -> Result<Tensor> {
        cp_to_tensor(self.factors())
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        let mut out = Vec::new();
        for (mode, f) in self.factors.iter().enumerate() {
            for r in 0..f.ncols() {
                let col: Vec<f64> = (0..f.nrows()).map(|i| f[(i, r)]).collect();
                let (z, _) = best_boolean_fit(&col);
                out.push(BooleanFactor { mode, z });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{gram, hadamard, solve_right_spd};
    use crate::tensor::{khatri_rao, other_modes};
    use bl_core::Fit;

    /// One ALS sweep by the textbook formulas: the explicit unfolding times the explicit
    /// Khatri–Rao product, then the normal equations.
    fn reference_sweep(x: &Tensor, f: &mut [Mat<f64>; 3]) {
        for n in 0..3 {
            let (a, b) = other_modes(n);
            let kr = khatri_rao(f[b].as_ref(), f[a].as_ref()).expect("same rank");
            let m = x.unfold(n).expect("valid mode") * kr;
            let g = hadamard(gram(f[a].as_ref()).as_ref(), gram(f[b].as_ref()).as_ref());
            f[n] = solve_right_spd(g.as_ref(), m.as_ref()).expect("solvable");
        }
    }

    #[test]
    fn sweeps_match_the_khatri_rao_formula() {
        let shape = [9, 7, 8];
        let mut rng = bl_core::random::seeded_rng(5);
        let truth = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 3).unwrap());
        let mut x = cp_to_tensor(truth.each_ref().map(Mat::as_ref)).expect("valid");
        x.map_observed(|_, v| v + 0.1 * bl_core::random::standard_normal(&mut rng))
            .expect("finite");
        let init = gaussian_init(shape, 3, 9).unwrap();
        let sweeps = 5;
        let rule = IterationParams::new(sweeps, 0.0);
        let one = IterationParams {
            threads: Some(1),
            ..rule
        };
        let workers = one.pool().expect("one thread");
        let (fit, report) = als(&x, init.clone(), &rule, &workers, 0, &mut []).expect("fits");
        assert_eq!(report.iterations, sweeps);
        let mut want = init;
        for _ in 0..sweeps {
            reference_sweep(&x, &mut want);
            // The same rebalancing of the column norms as the fit.
            for r in 0..3 {
                let scale: f64 = want[..2].iter().map(|f| f.col(r).norm_l2()).product();
                for f in want.iter_mut().take(2) {
                    let nrm = f.col(r).norm_l2();
                    for i in 0..f.nrows() {
                        f[(i, r)] /= nrm;
                    }
                }
                for i in 0..shape[2] {
                    want[2][(i, r)] *= scale;
                }
            }
        }
        for n in 0..3 {
            let diff = (&fit.factors[n] - &want[n]).norm_max();
            assert!(diff < 1e-9, "mode {n}: factors differ by {diff}");
        }
        let model = cp_to_tensor(want.each_ref().map(Mat::as_ref)).expect("valid");
        let want_loss = masked_loss(&x, model.data());
        assert!((fit.loss - want_loss).abs() <= 1e-10 * want_loss.max(1.0));
    }

    #[test]
    fn fits_are_bit_identical_for_any_thread_count() {
        let x = crate::synthetic::SyntheticParams::default()
            .shape([20, 30, 25])
            .n_atoms(4)
            .seed(3)
            .generate()
            .expect("valid");
        let fit = |threads: usize| {
            CpAls::params()
                .rank(4)
                .max_iter(20)
                .n_starts(2)
                .threads(Some(threads))
                .fit(x.observed())
                .expect("fits")
        };
        let one = fit(1);
        let two = fit(2);
        assert_eq!(one.factors, two.factors);
        assert_eq!(one.loss.to_bits(), two.loss.to_bits());
    }
}
