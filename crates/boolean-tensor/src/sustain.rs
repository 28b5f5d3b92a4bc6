//! SUSTain-style ALS: the baseline of Sec. 6 of Chang et al. after Perros et al.,
//! "SUSTain: Scalable Unsupervised Scoring for Tensors and its Application to
//! Phenotyping" (KDD 2018), simplified to a CP model of rank `R` whose factor along one
//! mode is Boolean.
//!
//! Alternating updates: the two real factors by exact least squares (as in CP-ALS; this
//! is the fixed point of hierarchical column-by-column sweeps over them). The Boolean
//! factor, by default, **hierarchically** as the paper describes SUSTain ("hierarchical
//! ALS tensor decomposition with Boolean projection", Sec. 6): one column at a time, the
//! least-squares value of each entry for the other columns fixed, projected onto
//! `{0, 1}` (`>= 1/2` becomes 1). For one entry with all else fixed the loss is a
//! quadratic in that entry, so this projection is its exact Boolean minimizer and a
//! column update never raises the loss on a fully observed tensor. With
//! `hierarchical(false)` the whole Boolean factor is solved by least squares and then
//! projected at once (our earlier variant; the projection of a joint solve can raise the
//! loss). The best iterate is kept either way.
//! Starts: the Boolean factor drawn Bernoulli(1/2); each of the three modes is tried as
//! the Boolean mode, `n_starts` starts each, and the fit with the lowest loss on the
//! observed entries is kept. Missing entries are imputed from the current model before
//! every sweep (EM).

use bl_core::engine::{FitReport, IterationParams, Observer, Progress, run};

use faer::{Mat, MatMut, MatRef};
use rand::RngExt;

use crate::atom::{BooleanFactor, Decomposition};
use crate::common::{
    Workers, als_update, check_als_budget, check_rank_buffers, combine_reports, cp_em_step,
    cp_loss_from_mttkrp,
};
use crate::error::Result;
use crate::kernels::Mttkrp;
use crate::linalg::{gram, hadamard};
use crate::tensor::{Tensor, check_modes, cp_entry, cp_to_tensor, other_modes};
use bl_core::error::build::invalid;

/// SUSTain-style ALS. Start with [`Sustain::params`].
#[derive(Debug, Clone, Copy)]
pub struct Sustain;

impl Sustain {
    /// Default hyperparameters (table at [`SustainParams`]).
    pub fn params() -> SustainParams {
        SustainParams::default()
    }
}

/// Hyperparameters of SUSTain-style ALS.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `rank` | `10` | `R` | `>= 1` |
/// | `max_iter` | `100` | sweeps per start (one engine iteration per sweep) | `>= 1` |
/// | `tol` | `1e-7` | stop a start when the loss changes by a fraction `<= tol` | finite, `>= 0` |
/// | `time_limit` | `None` | wall-clock limit of each start | any |
/// | `threads` | `None` | worker threads of the kernels (`None`: rayon's global pool) | `1 ..= 1024` |
/// | `trace` | `true` | keep one trace record per sweep in the report | any |
/// | `n_starts` | `2` | starts per Boolean mode | `>= 1` |
/// | `boolean_modes` | `[0, 1, 2]` | modes tried as the Boolean mode, in this order (a repeated mode is tried once) | non-empty subset of `{0, 1, 2}` |
/// | `hierarchical` | `true` | Boolean factor updated column by column (`false`: joint least squares, then projected) | |
/// | `seed` | `0` | seeds the starts | any |
///
/// `max_iter`, `tol`, `time_limit`, `threads` and `trace` are the shared
/// [`IterationParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct SustainParams {
    rank: usize,
    hierarchical: bool,
    iteration: IterationParams,
    n_starts: usize,
    boolean_modes: Vec<usize>,
    seed: u64,
}

impl Default for SustainParams {
    fn default() -> Self {
        Self {
            rank: 10,
            iteration: IterationParams::new(100, 1e-7),
            n_starts: 2,
            boolean_modes: vec![0, 1, 2],
            hierarchical: true,
            seed: 0,
        }
    }
}

bl_core::params::knobs! {
    SustainParams => SustainValidParams in params;
    /// The iteration knobs (`max_iter` counts sweeps per start; defaults 100 sweeps,
    /// tolerance `1e-7`).
    ..iteration;
    /// The rank `R` (default 10, `>= 1`).
    rank: usize;
    /// The starts per Boolean mode (default 2, `>= 1`).
    n_starts: usize;
    /// Whether the Boolean factor is updated column by column (`true`, the default) or
    /// jointly by least squares and then projected (`false`).
    hierarchical: bool;
    /// The seed of the starts (default 0).
    seed: u64;
}

impl SustainParams {
    /// Sets the modes tried as the Boolean mode.
    #[must_use]
    pub fn boolean_modes(mut self, modes: &[usize]) -> Self {
        self.boolean_modes = modes.to_vec();
        self
    }
}

param_guard! {
    /// [`SustainParams`] after [`ParamGuard::check`](bl_core::ParamGuard::check).
    SustainParams => SustainValidParams;
    /// Checks the parameters.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`], [`TensorError::InvalidMode`](crate::TensorError::InvalidMode).
    fn check(&self) {
        check_als_budget(self.rank, self.n_starts, &self.iteration)?;
        check_modes("boolean_modes", &self.boolean_modes)?;
    }
}

impl SustainValidParams {
    bl_core::params::getters! {
        in params;
        /// The modes tried as the Boolean mode.
        boolean_modes: &[usize];
    }
}

fit_checked! {
    /// Fits the model to `x`. Every (Boolean mode, start) pair runs on the engine, one
    /// iteration per sweep (objective: the observed loss; extras `boolean_mode`, `start`);
    /// the report holds the sweeps of all runs in order, the termination of the kept one,
    /// and the wall-clock time of the whole fit (`elapsed`, every start's initialisation
    /// included).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] naming `rank` when a buffer sized by the
    /// rank (`d_a d_b x R`, `d_n x R`, `R x R`) would exceed
    /// [`bl_core::limits::MAX_ELEMENTS`] values or cannot be reserved (checked before the
    /// fit allocates anything); a failed least-squares solve.
    SustainValidParams -> FittedSustain by fit_checked
}

impl SustainValidParams {
    fn fit_checked(
        &self,
        x: &Tensor,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedSustain> {
        let p = &self.params;
        let workers = p.iteration.pool()?;
        check_rank_buffers("rank", x.shape(), p.rank)?;
        let mut best: Option<(usize, FittedSustain)> = None;
        let mut reports = Vec::new();
        // A mode listed again would repeat the same runs (same seeds): each is tried once,
        // in the order given.
        let mut modes: Vec<usize> = Vec::with_capacity(3);
        for &bm in &p.boolean_modes {
            if !modes.contains(&bm) {
                modes.push(bm);
            }
        }
        for bm in modes {
            for start in 0..p.n_starts {
                let seed = p
                    .seed
                    .wrapping_add(1000 * bm as u64)
                    .wrapping_add(start as u64);
                let f = p.fit_one(x, bm, seed, start, observers, &workers)?;
                if best.as_ref().is_none_or(|(_, b)| f.loss < b.loss) {
                    best = Some((reports.len(), f.clone()));
                }
                reports.push(f.report);
            }
        }
        let (kept, mut fitted) = best.ok_or_else(|| {
            invalid::<crate::TensorError>("boolean_modes", "[]", "at least one mode")
        })?;
        fitted.report = combine_reports(reports, kept);
        Ok(fitted)
    }
}

impl SustainParams {
    fn fit_one(
        &self,
        x: &Tensor,
        bm: usize,
        seed: u64,
        start: usize,
        observers: &mut [&mut dyn Observer],
        workers: &Workers,
    ) -> Result<FittedSustain> {
        let shape = x.shape();
        let rank = self.rank;
        let par = faer::get_global_parallelism();
        let mut rng = bl_core::random::seeded_rng(seed);
        let mut f: [Mat<f64>; 3] = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
        for (m, f) in f.iter_mut().enumerate() {
            *f = bl_core::random::standard_normal_mat(&mut rng, shape[m], rank)?;
        }
        for i in 0..shape[bm] {
            for r in 0..rank {
                f[bm][(i, r)] = f64::from(u8::from(rng.random_bool(0.5)));
            }
        }
        // Without missing entries the data is read in place and the loss comes from the
        // last MTTKRP (as in CP-ALS): no imputed copy, no model tensor, no loss pass.
        let masked = x.mask().is_some();
        let norm_sq: f64 = if masked {
            0.0 // unused: the EM step computes the loss over the observed entries
        } else {
            x.data().iter().map(|v| v * v).sum()
        };
        let mut filled = if masked {
            x.data().to_vec()
        } else {
            Vec::new()
        };
        let mut model = if masked {
            vec![0.0; x.len()]
        } else {
            Vec::new()
        };
        let mut kr = Mat::zeros(0, 0);
        let mut work = Mttkrp::default();
        let mut m = Mat::zeros(0, 0);
        let mut best_loss = f64::INFINITY;
        let mut best_f = f.clone();
        let mut prev = f64::INFINITY;
        let (a0, b0) = other_modes(bm);
        let order = [a0, b0, bm];
        let report = run(&self.iteration, observers, |_| -> Result<Progress> {
            workers.install(|| {
                work.invalidate();
                let data = if masked { &filled[..] } else { x.data() };
                for &n in &order {
                    if n == bm && self.hierarchical {
                        m.resize_with(shape[n], rank, |_, _| 0.0);
                        work.compute(data, shape, n, f.each_ref().map(Mat::as_ref), m.as_mut());
                        let h =
                            hadamard(gram(f[a0].as_ref()).as_ref(), gram(f[b0].as_ref()).as_ref());
                        boolean_column_sweep(m.as_ref(), h.as_ref(), f[n].as_mut());
                        continue;
                    }
                    f[n] = als_update(data, shape, n, &f, &mut work, &mut m)?;
                    if n == bm {
                        for j in 0..rank {
                            for i in 0..shape[n] {
                                f[n][(i, j)] = f64::from(u8::from(f[n][(i, j)] >= 0.5));
                            }
                        }
                    }
                }
                // `m` is the MTTKRP of mode `bm`, the last one updated.
                let loss = if masked {
                    cp_em_step(x, &f, &mut kr, &mut model, &mut filled, par)
                } else {
                    cp_loss_from_mttkrp(norm_sq, &f, bm, m.as_ref())
                };
                if loss < best_loss {
                    best_loss = loss;
                    best_f = f.clone();
                }
                let change = if prev.is_finite() {
                    (prev - loss).abs() / prev.max(f64::MIN_POSITIVE)
                } else {
                    f64::INFINITY
                };
                prev = loss;
                Ok(Progress::new(loss, change)
                    .with("boolean_mode", bm as f64)
                    .with("start", start as f64))
            })
        })?;
        Ok(FittedSustain {
            shape,
            boolean_mode: bm,
            factors: best_f,
            loss: best_loss,
            report,
        })
    }
}

/// One hierarchical sweep over the columns of the Boolean factor `z` (`d x R`): for
/// column `r` in turn, every entry becomes the exact Boolean minimizer of the loss with
/// everything else fixed, `z_ir = [t_ir >= 1/2]`,
/// `t_ir = (m_ir - sum_{s != r} z_is h_sr) / h_rr`, where `m` is the MTTKRP of the
/// (imputed) data and `h` the Hadamard product of the other factors' Gram matrices. A
/// column with `h_rr = 0` has no effect on the model and is left as it is.
fn boolean_column_sweep(m: MatRef<'_, f64>, h: MatRef<'_, f64>, mut z: MatMut<'_, f64>) {
    for r in 0..z.ncols() {
        boolean_column_step(m, h, z.as_mut(), r);
    }
}

/// The step of [`boolean_column_sweep`] for column `r`.
fn boolean_column_step(m: MatRef<'_, f64>, h: MatRef<'_, f64>, mut z: MatMut<'_, f64>, r: usize) {
    let hrr = h[(r, r)];
    if hrr.is_nan() || hrr <= 0.0 {
        return;
    }
    for i in 0..z.nrows() {
        let mut t = m[(i, r)];
        for s in 0..z.ncols() {
            if s != r {
                t -= z[(i, s)] * h[(s, r)];
            }
        }
        z[(i, r)] = f64::from(u8::from(t / hrr >= 0.5));
    }
}

/// A fitted SUSTain-style model: CP factors, the one along `boolean_mode` Boolean.
#[derive(Debug, Clone)]
pub struct FittedSustain {
    shape: [usize; 3],
    boolean_mode: usize,
    factors: [Mat<f64>; 3],
    loss: f64,
    report: FitReport,
}

impl FittedSustain {
    /// The Boolean mode.
    pub fn boolean_mode(&self) -> usize {
        self.boolean_mode
    }
    /// The factors (`d_n x R`); the one along [`FittedSustain::boolean_mode`] is 0/1.
    pub fn factors(&self) -> [MatRef<'_, f64>; 3] {
        self.factors.each_ref().map(Mat::as_ref)
    }
    /// `1/2 ||P_Omega(X - W)||^2` of the kept iterate.
    pub fn loss(&self) -> f64 {
        self.loss
    }
}

fitted_report! {
    /// The sweeps of every (Boolean mode, start) run in order (extras `boolean_mode`,
    /// `start`), the termination of the kept run. Its objective is the loss of the last
    /// sweep; the model is the best sweep's ([`FittedSustain::loss`]).
    FittedSustain
}

impl FittedSustain {
    /// The model's value at `[i, j, k]` (inside the shape).
    fn entry(&self, index: [usize; 3]) -> f64 {
        cp_entry(&self.factors, index)
    }
}

predict_entries!(FittedSustain);

impl Decomposition for FittedSustain {
    fn reconstruct(&self) -> Result<Tensor> {
        cp_to_tensor(self.factors())
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        let z = &self.factors[self.boolean_mode];
        (0..z.ncols())
            .map(|j| BooleanFactor {
                mode: self.boolean_mode,
                z: (0..z.nrows()).map(|i| z[(i, j)]).collect(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loss of the Boolean factor for fixed other factors, up to a constant:
    /// `sum_i 1/2 z_i^T H z_i - z_i^T m_i` (rows `z_i`, `m_i`).
    fn loss(z: MatRef<'_, f64>, m: MatRef<'_, f64>, h: MatRef<'_, f64>) -> f64 {
        let rank = z.ncols();
        let mut total = 0.0;
        for i in 0..z.nrows() {
            for a in 0..rank {
                total -= z[(i, a)] * m[(i, a)];
                for b in 0..rank {
                    total += 0.5 * z[(i, a)] * h[(a, b)] * z[(i, b)];
                }
            }
        }
        total
    }

    #[test]
    fn each_column_step_is_the_exact_boolean_minimizer_of_its_entries() {
        let mut rng = bl_core::random::seeded_rng(3);
        let (d, rank) = (7, 4);
        for trial in 0..20 {
            let a = bl_core::random::standard_normal_mat(&mut rng, 9, rank).unwrap();
            let h = gram(a.as_ref());
            let m = bl_core::random::standard_normal_mat(&mut rng, d, rank).unwrap();
            let mut z = Mat::from_fn(d, rank, |i, j| {
                f64::from(u8::from((i + j + trial) % 3 == 0))
            });
            let start = loss(z.as_ref(), m.as_ref(), h.as_ref());
            for r in 0..rank {
                let before = loss(z.as_ref(), m.as_ref(), h.as_ref());
                boolean_column_step(m.as_ref(), h.as_ref(), z.as_mut(), r);
                let after = loss(z.as_ref(), m.as_ref(), h.as_ref());
                assert!(after <= before + 1e-12, "column {r}: {after} > {before}");
                // Brute force: no single flip in column r lowers the loss.
                for i in 0..d {
                    let mut flipped = z.clone();
                    flipped[(i, r)] = 1.0 - flipped[(i, r)];
                    assert!(after <= loss(flipped.as_ref(), m.as_ref(), h.as_ref()) + 1e-12);
                }
            }
            let mut z2 = Mat::from_fn(d, rank, |i, j| {
                f64::from(u8::from((i + j + trial) % 3 == 0))
            });
            boolean_column_sweep(m.as_ref(), h.as_ref(), z2.as_mut());
            assert_eq!(z, z2);
            assert!(loss(z.as_ref(), m.as_ref(), h.as_ref()) <= start + 1e-12);
        }
    }
}
