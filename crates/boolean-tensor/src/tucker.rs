//! Tucker decomposition by the truncated HOSVD (De Lathauwer, De Moor, Vandewalle 2000),
//! the Tucker baseline of Sec. 6 of Chang et al.
//!
//! `U_n` = the `r_n` leading left singular vectors of `X_(n)`; core
//! `G = X x_0 U_0^T x_1 U_1^T x_2 U_2^T`; model `W = G x_0 U_0 x_1 U_1 x_2 U_2`. With a
//! mask, the missing entries are imputed from the current model and the HOSVD is
//! repeated (EM, at most `max_iter` rounds, starting from zeros; the observed loss need
//! not decrease from round to round, and the last round's model is returned).
//!
//! **Atoms ↔ multilinear rank.** A tensor of model (1) with `k` atoms has multilinear
//! rank at most `(k, k, k)` (each unfolding is a sum of `k` rank-1 matrices), so the
//! baseline "with `k` atoms" is the HOSVD of multilinear rank
//! `(min(k, d0), min(k, d1), min(k, d2))` ([`TuckerParams::for_atoms`]). Its core has up
//! to `k^3` entries, so it has more parameters than `k` atoms; it is the Tucker model
//! that can represent `k` atoms exactly.
//!
//! Tucker has no Boolean factors: [`Decomposition::boolean_factors`] is empty.

use std::time::Duration;

use bl_core::engine::{FitReport, IterationParams, Observer, Progress, run};

use faer::{Mat, MatRef};

use crate::atom::{BooleanFactor, Decomposition};
use crate::common::{impute, masked_loss};
use crate::error::Result;
use crate::hosvd::check_gram_size;
use crate::kernels::{multilinear_product_into, unfolding_gram};
use crate::linalg::leading_eigenvectors;
use crate::tensor::Tensor;
use bl_core::error::build::{invalid, numerical};

/// Tucker by HOSVD. Start with [`Tucker::params`].
#[derive(Debug, Clone, Copy)]
pub struct Tucker;

impl Tucker {
    /// Default hyperparameters (table at [`TuckerParams`]).
    pub fn params() -> TuckerParams {
        TuckerParams::default()
    }
}

/// Hyperparameters of the HOSVD.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `ranks` | `(5, 5, 5)` | multilinear rank `(r0, r1, r2)`, capped at the shape | each `>= 1` |
/// | `max_iter` | `30` | EM rounds (one HOSVD each) when entries are missing; not read without a mask (one HOSVD) | `>= 1` |
/// | `tol` | `1e-6` | stop EM when the loss no longer decreases by more than a fraction `tol`: `(F_prev - F) / F_prev <= tol`, an EM round that raises the loss included (the last model is kept) | finite, `>= 0` |
/// | `time_limit` | `None` | wall-clock limit of the EM rounds | any |
/// | `threads` | `None` | worker threads (`None`: rayon's global pool) | `1 ..= 1024` |
/// | `trace` | `true` | keep one trace record per EM round in the report | any |
///
/// All but `ranks` are the shared [`IterationParams`].
///
/// ```
/// use bl_core::{Predict, TerminationReason};
/// use boolean_tensor::{Decomposition, Fit, Fitted, SyntheticParams, Tucker};
/// let data = SyntheticParams::default().shape([9, 8, 7]).n_atoms(2).seed(3).generate()?;
/// let fitted = Tucker::params().for_atoms(2).fit(data.observed())?;
/// // A fully observed tensor takes one HOSVD: a single-shot fit.
/// assert_eq!(fitted.report().termination, TerminationReason::Solved);
/// assert_eq!(fitted.report().iterations, 1);
/// // The model's value at chosen entries; an index outside the shape is an error.
/// let w = fitted.reconstruct()?;
/// let at = fitted.predict(&[[8, 7, 6]][..])?;
/// assert!((at[0] - w.get(8, 7, 6)).abs() <= 1e-12 * (1.0 + w.get(8, 7, 6).abs()));
/// assert!(fitted.predict(&[[9, 0, 0]][..]).is_err());
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TuckerParams {
    ranks: [usize; 3],
    iteration: IterationParams,
}

impl Default for TuckerParams {
    fn default() -> Self {
        Self {
            ranks: [5, 5, 5],
            iteration: IterationParams::new(30, 1e-6),
        }
    }
}

bl_core::params::knobs! {
    TuckerParams => TuckerValidParams in params;
    /// The iteration knobs (`max_iter` counts EM rounds; defaults 30 rounds, tolerance
    /// `1e-6`).
    ..iteration;
    /// The multilinear rank `(r0, r1, r2)`, capped at the shape by the fit (default
    /// `(5, 5, 5)`, each `>= 1`).
    ranks: [usize; 3];
}

impl TuckerParams {
    /// The multilinear rank `(k, k, k)` that represents `k` atoms (see the module docs).
    #[must_use]
    pub fn for_atoms(self, k: usize) -> Self {
        self.ranks([k, k, k])
    }
}

param_guard! {
    /// [`TuckerParams`] after [`ParamGuard::check`](bl_core::ParamGuard::check).
    TuckerParams => TuckerValidParams;
    /// Checks the parameters.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`].
    fn check(&self) {
        if self.ranks.contains(&0) {
            return Err(invalid("ranks", format!("{:?}", self.ranks), "each >= 1"));
        }
        self.iteration.check()?;
    }
}

fit_checked! {
    /// The truncated HOSVD of `x`. A fully observed tensor takes one HOSVD: a single-shot
    /// fit ([`FitReport::single_shot`]: one iteration, `Solved`, no trace, observers not
    /// called). With a mask, EM rounds on the engine, one iteration per HOSVD (objective:
    /// the observed loss `F`, change: its signed relative decrease
    /// `(F_prev - F) / F_prev`), until the loss no longer decreases by more than a
    /// fraction `tol` (`Converged`) or `max_iter` rounds. The truncated HOSVD of the
    /// imputed tensor is not the best model of its rank on the observed entries, so an EM
    /// round can raise the observed loss (EM is not monotone here): such a round has a
    /// negative change and also ends the fit `Converged`. The fitted model is always the
    /// last round's (its [`FittedTucker::loss`] is the last trace objective, which can be
    /// above the one before). The report's `elapsed` is the wall-clock time of the whole
    /// fit.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] when a mode is so long that its Gram matrix
    /// `d_n x d_n` would exceed [`bl_core::limits::MAX_ELEMENTS`] values (a mode longer
    /// than 65,536) or cannot be reserved (checked before the fit allocates anything); a
    /// failed eigendecomposition; [`bl_core::BlError::Numerical`] for a non-finite loss.
    TuckerValidParams -> FittedTucker by fit_checked
}

impl TuckerValidParams {
    fn fit_checked(&self, x: &Tensor, observers: &mut [&mut dyn Observer]) -> Result<FittedTucker> {
        let p = &self.params;
        let workers = p.iteration.pool()?;
        let shape = x.shape();
        for m in 0..3 {
            check_gram_size(shape, m)?;
        }
        let ranks = [0, 1, 2].map(|m| p.ranks[m].min(shape[m]));
        let mut filled = x.data().to_vec();
        let mut model = vec![0.0; x.len()];
        let mut factors: [Mat<f64>; 3] = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
        let mut core = Vec::new();
        let (loss, report) = if x.mask().is_none() {
            workers
                .install(|| hosvd(&filled, shape, ranks, &mut factors, &mut core, &mut model))?;
            let loss = masked_loss(x, &model);
            if !loss.is_finite() {
                return Err(numerical("Tucker", format!("the loss is {loss}")));
            }
            // (its time: set by `fit_checked!`, around the whole fit)
            (loss, FitReport::single_shot(loss, Duration::ZERO))
        } else {
            let mut loss = f64::INFINITY;
            let report = run(&p.iteration, observers, |_| -> Result<Progress> {
                workers.install(|| {
                    hosvd(&filled, shape, ranks, &mut factors, &mut core, &mut model)
                })?;
                let new_loss = masked_loss(x, &model);
                let change = if !loss.is_finite() {
                    f64::INFINITY
                } else if loss > 0.0 {
                    (loss - new_loss) / loss
                } else {
                    0.0
                };
                loss = new_loss;
                impute(x, &model, &mut filled);
                Ok(Progress::new(loss, change))
            })?;
            (loss, report)
        };
        Ok(FittedTucker {
            shape,
            ranks,
            factors,
            core,
            loss,
            report,
        })
    }
}

/// One HOSVD of `filled` (of shape `shape`): the factors, the core and the model `W`.
fn hosvd(
    filled: &[f64],
    shape: [usize; 3],
    ranks: [usize; 3],
    factors: &mut [Mat<f64>; 3],
    core: &mut Vec<f64>,
    model: &mut [f64],
) -> Result<()> {
    for m in 0..3 {
        let gram = unfolding_gram(filled, shape, m);
        factors[m] = leading_eigenvectors(gram.as_ref(), ranks[m])?;
    }
    *core = project(filled, shape, factors);
    expand(core, ranks, factors, model);
    Ok(())
}

/// The core `G = X x_0 U_0^T x_1 U_1^T x_2 U_2^T`.
fn project(data: &[f64], shape: [usize; 3], u: &[Mat<f64>; 3]) -> Vec<f64> {
    let mut core = vec![0.0; u.iter().map(|m| m.ncols()).product()];
    multilinear_product_into(data, shape, u.each_ref().map(|m| m.transpose()), &mut core);
    core
}

/// `W = G x_0 U_0 x_1 U_1 x_2 U_2` into `out`.
fn expand(core: &[f64], ranks: [usize; 3], u: &[Mat<f64>; 3], out: &mut [f64]) {
    multilinear_product_into(core, ranks, u.each_ref().map(Mat::as_ref), out);
}

/// A fitted Tucker model.
#[derive(Debug, Clone)]
pub struct FittedTucker {
    shape: [usize; 3],
    ranks: [usize; 3],
    factors: [Mat<f64>; 3],
    core: Vec<f64>,
    loss: f64,
    report: FitReport,
}

impl FittedTucker {
    /// The orthonormal factors `U_n` (`d_n x r_n`).
    pub fn factors(&self) -> [MatRef<'_, f64>; 3] {
        self.factors.each_ref().map(Mat::as_ref)
    }
    /// The multilinear rank used (capped at the shape).
    pub fn ranks(&self) -> [usize; 3] {
        self.ranks
    }
    /// The core `G` (`r0 x r1 x r2`, mode 0 fastest).
    pub fn core(&self) -> &[f64] {
        &self.core
    }
    /// `1/2 ||P_Omega(X - W)||^2`.
    pub fn loss(&self) -> f64 {
        self.loss
    }
}

fitted_report! {
    /// Without missing entries, the single-shot report of one HOSVD; with a mask, one
    /// iteration per EM round, the last one's model returned (a round that raised the
    /// loss ends the fit `Converged`, see [`TuckerParams`]' fit).
    FittedTucker
}

impl FittedTucker {
    /// The model's value at `[i, j, k]` (inside the shape):
    /// `sum_{a, b, c} G_abc U0_ia U1_jb U2_kc`.
    fn entry(&self, [i, j, k]: [usize; 3]) -> f64 {
        let [r0, r1, r2] = self.ranks;
        let [u0, u1, u2] = &self.factors;
        let mut total = 0.0;
        for c in 0..r2 {
            for b in 0..r1 {
                let s = u1[(j, b)] * u2[(k, c)];
                for a in 0..r0 {
                    total += self.core[a + r0 * (b + r1 * c)] * u0[(i, a)] * s;
                }
            }
        }
        total
    }
}

predict_entries!(FittedTucker);

impl Decomposition for FittedTucker {
    fn reconstruct(&self) -> Result<Tensor> {
        let mut out = vec![0.0; self.shape.iter().product()];
        expand(&self.core, self.ranks, &self.factors, &mut out);
        Tensor::from_vec(self.shape, out)
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        Vec::new()
    }
}
