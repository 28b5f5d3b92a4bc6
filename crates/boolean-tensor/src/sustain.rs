//! SUSTain-style ALS: the baseline of Sec. 6 of Chang et al. after Perros et al.,
//! "SUSTain: Scalable Unsupervised Scoring for Tensors and its Application to
//! Phenotyping" (KDD 2018), simplified to a CP model of rank `R` whose factor along one
//! mode is Boolean.
//!
//! Alternating updates: the two real factors by exact least squares (as in CP-ALS), the
//! Boolean factor by least squares followed by the projection onto `{0, 1}` (entries
//! `>= 1/2` become 1). The projection can raise the loss, so the best iterate is kept.
//! Starts: the Boolean factor drawn Bernoulli(1/2); each of the three modes is tried as
//! the Boolean mode, `n_starts` starts each, and the fit with the lowest loss on the
//! observed entries is kept. Missing entries are imputed from the current model before
//! every sweep (EM).

use faer::{Mat, MatRef};
use rand::RngExt;

use crate::atom::{BooleanFactor, Decomposition};
use crate::common::{MttkrpWork, als_update, cp_em_step};
use crate::error::{Result, check_count, check_modes, check_tol, invalid};
use crate::tensor::{Tensor, cp_to_tensor, other_modes};

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
/// | `max_iter` | `100` | sweeps per start | `>= 1` |
/// | `tol` | `1e-7` | stop a start when the loss changes by a fraction `<= tol` | finite, `>= 0` |
/// | `n_starts` | `2` | starts per Boolean mode | `>= 1` |
/// | `boolean_modes` | `[0, 1, 2]` | modes tried as the Boolean mode | non-empty subset of `{0, 1, 2}` |
/// | `seed` | `0` | seeds the starts | any |
#[derive(Debug, Clone, PartialEq)]
pub struct SustainParams {
    rank: usize,
    max_iter: usize,
    tol: f64,
    n_starts: usize,
    boolean_modes: Vec<usize>,
    seed: u64,
}

impl Default for SustainParams {
    fn default() -> Self {
        Self {
            rank: 10,
            max_iter: 100,
            tol: 1e-7,
            n_starts: 2,
            boolean_modes: vec![0, 1, 2],
            seed: 0,
        }
    }
}

impl SustainParams {
    /// Sets the rank.
    #[must_use]
    pub fn rank(mut self, rank: usize) -> Self {
        self.rank = rank;
        self
    }
    /// Sets the sweeps per start.
    #[must_use]
    pub fn max_iter(mut self, n: usize) -> Self {
        self.max_iter = n;
        self
    }
    /// Sets the tolerance.
    #[must_use]
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }
    /// Sets the starts per Boolean mode.
    #[must_use]
    pub fn n_starts(mut self, n: usize) -> Self {
        self.n_starts = n;
        self
    }
    /// Sets the modes tried as the Boolean mode.
    #[must_use]
    pub fn boolean_modes(mut self, modes: &[usize]) -> Self {
        self.boolean_modes = modes.to_vec();
        self
    }
    /// Sets the seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`crate::TensorError::InvalidParameter`], [`crate::TensorError::InvalidMode`].
    pub fn check(&self) -> Result<()> {
        check_count("rank", self.rank)?;
        check_count("max_iter", self.max_iter)?;
        check_count("n_starts", self.n_starts)?;
        check_tol("tol", self.tol)?;
        check_modes("boolean_modes", &self.boolean_modes)
    }

    /// Fits the model to `x`.
    ///
    /// # Errors
    /// Invalid parameters; a failed least-squares solve.
    pub fn fit(&self, x: &Tensor) -> Result<FittedSustain> {
        self.check()?;
        let mut best: Option<FittedSustain> = None;
        for &bm in &self.boolean_modes {
            for start in 0..self.n_starts {
                let seed = self
                    .seed
                    .wrapping_add(1000 * bm as u64)
                    .wrapping_add(start as u64);
                let f = self.fit_one(x, bm, seed)?;
                if best.as_ref().is_none_or(|b| f.loss < b.loss) {
                    best = Some(f);
                }
            }
        }
        best.ok_or_else(|| invalid("boolean_modes", "[]", "at least one mode"))
    }

    fn fit_one(&self, x: &Tensor, bm: usize, seed: u64) -> Result<FittedSustain> {
        let shape = x.shape();
        let rank = self.rank;
        let par = faer::get_global_parallelism();
        let mut rng = bl_core::random::seeded_rng(seed);
        let mut f: [Mat<f64>; 3] =
            [0, 1, 2].map(|m| bl_core::random::standard_normal_mat(&mut rng, shape[m], rank));
        for i in 0..shape[bm] {
            for r in 0..rank {
                f[bm][(i, r)] = f64::from(u8::from(rng.random_bool(0.5)));
            }
        }
        let mut filled = x.data().to_vec();
        let mut model = vec![0.0; x.len()];
        let mut kr = Mat::zeros(0, 0);
        let mut work = MttkrpWork::default();
        let mut m = Mat::zeros(0, 0);
        let mut best_loss = f64::INFINITY;
        let mut best_f = f.clone();
        let mut prev = f64::INFINITY;
        let (a0, b0) = other_modes(bm);
        let order = [a0, b0, bm];
        for _ in 0..self.max_iter {
            for &n in &order {
                f[n] = als_update(&filled, shape, n, &f, &mut work, &mut m, par)?;
                if n == bm {
                    for j in 0..rank {
                        for i in 0..shape[n] {
                            f[n][(i, j)] = f64::from(u8::from(f[n][(i, j)] >= 0.5));
                        }
                    }
                }
            }
            let loss = cp_em_step(x, &f, &mut kr, &mut model, &mut filled, par);
            if loss < best_loss {
                best_loss = loss;
                best_f = f.clone();
            }
            if prev.is_finite() && (prev - loss).abs() <= self.tol * prev.max(f64::MIN_POSITIVE) {
                break;
            }
            prev = loss;
        }
        Ok(FittedSustain {
            boolean_mode: bm,
            factors: best_f,
            loss: best_loss,
        })
    }
}

/// A fitted SUSTain-style model: CP factors, the one along `boolean_mode` Boolean.
#[derive(Debug, Clone)]
pub struct FittedSustain {
    boolean_mode: usize,
    factors: [Mat<f64>; 3],
    loss: f64,
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
