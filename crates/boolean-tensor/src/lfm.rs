//! LFM and LFMmix: the latent-feature-model baselines of Sec. 6 of Chang et al.
//!
//! **LFM** factorizes one unfolding `X_(n) ≈ Z S` with Boolean `Z` (`d_n x k`) and real
//! `S` (`k x prod_{m != n} d_m`), by greedy Boolean atoms with fully corrective weights
//! (the matrix version of BMP): each step picks `z` maximizing `||R_(n)^T z||^2` with the
//! same Boolean QP ([`crate::QpSolver`]), refines it by alternating `v = R^T z / |z|` with
//! the exact row-wise update `z_i = [2 r_i . v > ||v||^2]` (both minimize
//! `||R - z v^T||^2`), appends it to `Z`, and solves `S = (Z^T Z)^{-1} Z^T X_(n)`. Run on
//! every mode, the mode with the lowest loss **on the observed entries** is kept (no
//! peeking at the ground truth). Each atom carries a whole real row `v` (`d_a d_b`
//! numbers), not a rank-1 pair.
//!
//! **LFMmix** mixes LFM components of all three modes: `W = sum_n refold_n(Z_n S_n)`.
//! Each step searches all modes (in parallel) on the residual and adds the Boolean column
//! with the largest loss decrease `||R_(n)^T z||^2 / |z|` to its mode; the weights are
//! then refitted by block coordinate descent over the three modes (`sweeps` rounds of
//! `S_n = (Z_n^T Z_n)^{-1} Z_n^T (X - sum_{m != n} W_m)_(n)`).
//!
//! With a mask, both impute the missing entries from the current model before every
//! least-squares solve (EM).

use faer::linalg::matmul::matmul;
use faer::{Accum, ColMut, ColRef, Mat, MatRef, Par};
use rayon::prelude::*;

use crate::atom::{BooleanFactor, Decomposition};
use crate::common::{impute, masked_loss, solve_right_spd};
use crate::error::{Result, check_count, invalid};
use crate::qp::QpSolver;
use crate::tensor::{Tensor, check_mode, refold_into, unfold_into, unfolded_shape};

/// LFM and LFMmix. Start with [`Lfm::params`].
#[derive(Debug, Clone, Copy)]
pub struct Lfm;

impl Lfm {
    /// Default hyperparameters (table at [`LfmParams`]).
    pub fn params() -> LfmParams {
        LfmParams::default()
    }
}

/// Hyperparameters of LFM and LFMmix.
///
/// | name | default | meaning | valid range |
/// |---|---|---|---|
/// | `n_atoms` | `10` | Boolean columns in total | `>= 1` |
/// | `alternations` | `10` | `z` / `v` alternations per atom | any |
/// | `em_iter` | `5` | EM rounds per least-squares solve when entries are missing | `>= 1` |
/// | `sweeps` | `3` | LFMmix: block sweeps of the weight refit per step | `>= 1` |
/// | `solver` | [`QpSolver::default_mixing`] | Boolean QP solver | |
/// | `seed` | `0` | seeds the QP solver | any |
#[derive(Debug, Clone, PartialEq)]
pub struct LfmParams {
    n_atoms: usize,
    alternations: usize,
    em_iter: usize,
    sweeps: usize,
    solver: QpSolver,
    seed: u64,
}

impl Default for LfmParams {
    fn default() -> Self {
        Self {
            n_atoms: 10,
            alternations: 10,
            em_iter: 5,
            sweeps: 3,
            solver: QpSolver::default(),
            seed: 0,
        }
    }
}

impl LfmParams {
    /// Sets the number of Boolean columns.
    #[must_use]
    pub fn n_atoms(mut self, k: usize) -> Self {
        self.n_atoms = k;
        self
    }
    /// Sets the alternations per atom.
    #[must_use]
    pub fn alternations(mut self, n: usize) -> Self {
        self.alternations = n;
        self
    }
    /// Sets the EM rounds per solve.
    #[must_use]
    pub fn em_iter(mut self, n: usize) -> Self {
        self.em_iter = n;
        self
    }
    /// Sets the LFMmix refit sweeps.
    #[must_use]
    pub fn sweeps(mut self, n: usize) -> Self {
        self.sweeps = n;
        self
    }
    /// Sets the Boolean QP solver.
    #[must_use]
    pub fn solver(mut self, solver: QpSolver) -> Self {
        self.solver = solver;
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
    /// [`crate::TensorError::InvalidParameter`] or the QP solver's parameter error.
    pub fn check(&self) -> Result<()> {
        check_count("n_atoms", self.n_atoms)?;
        check_count("em_iter", self.em_iter)?;
        check_count("sweeps", self.sweeps)?;
        self.solver.check()
    }

    /// LFM on one mode.
    ///
    /// # Errors
    /// Invalid parameters or mode; QP or least-squares failures.
    pub fn fit_mode(&self, x: &Tensor, mode: usize) -> Result<FittedLfm> {
        self.check()?;
        check_mode(mode)?;
        let shape = x.shape();
        let (d, m) = unfolded_shape(shape, mode);
        let par = Par::Seq;
        let mut filled = x.data().to_vec();
        let mut model = vec![0.0; x.len()];
        let mut xu = Mat::zeros(d, m);
        let mut r = Mat::zeros(d, m);
        let mut z = Mat::<f64>::zeros(d, 0);
        let mut s = Mat::<f64>::zeros(0, m);
        for t in 0..self.n_atoms {
            // R = X~_(n) - Z S.
            unfold_into(&filled, shape, mode, xu.as_mut());
            r.copy_from(&xu);
            if z.ncols() > 0 {
                matmul(r.as_mut(), Accum::Add, z.as_ref(), s.as_ref(), -1.0, par);
            }
            let Some((zc, _)) = matrix_atom(
                r.as_ref(),
                &self.solver,
                self.alternations,
                self.seed.wrapping_add(t as u64),
            )?
            else {
                break;
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
        }
        if z.ncols() == 0 {
            return Err(crate::TensorError::Numerical {
                context: "LFM",
                message: "no Boolean atom found (the data are zero)".into(),
            });
        }
        let loss = masked_loss(x, &model);
        Ok(FittedLfm {
            shape,
            mode,
            z,
            s,
            loss,
        })
    }

    /// LFM on every mode (in parallel); the mode with the lowest observed loss is kept.
    ///
    /// # Errors
    /// As [`LfmParams::fit_mode`].
    pub fn fit_best_mode(&self, x: &Tensor) -> Result<FittedLfm> {
        let fits: Vec<Result<FittedLfm>> = (0..3)
            .into_par_iter()
            .map(|m| self.fit_mode(x, m))
            .collect();
        let mut best: Option<FittedLfm> = None;
        for f in fits {
            let f = f?;
            if best.as_ref().is_none_or(|b| f.loss < b.loss) {
                best = Some(f);
            }
        }
        best.ok_or_else(|| invalid("modes", "[]", "at least one mode"))
    }

    /// LFMmix: LFM components of all three modes, added greedily (module docs).
    ///
    /// # Errors
    /// As [`LfmParams::fit_mode`].
    pub fn fit_mix(&self, x: &Tensor) -> Result<FittedLfmMix> {
        self.check()?;
        let shape = x.shape();
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
        for t in 0..self.n_atoms {
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
                        &self.solver,
                        self.alternations,
                        self.seed.wrapping_add(3 * t as u64 + m as u64),
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
                break;
            };
            let old = &zs[mode];
            let mut nz = Mat::zeros(old.nrows(), old.ncols() + 1);
            nz.as_mut().subcols_mut(0, old.ncols()).copy_from(old);
            for i in 0..old.nrows() {
                nz[(i, old.ncols())] = zc[i];
            }
            zs[mode] = nz;
            let rounds = self.sweeps * if x.mask().is_some() { self.em_iter } else { 1 };
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
        }
        let loss = masked_loss(x, &model);
        Ok(FittedLfmMix {
            shape,
            z: zs,
            s: ss,
            loss,
        })
    }
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
    solver: &QpSolver,
    alternations: usize,
    seed: u64,
) -> Result<Option<MatrixAtom>> {
    let (d, m) = (r.nrows(), r.ncols());
    let mut z = solver.maximize(r, seed)?;
    if z.iter().all(|&v| v == 0.0) {
        let row = (0..d)
            .max_by(|&i, &j| r.row(i).norm_l2().total_cmp(&r.row(j).norm_l2()))
            .unwrap_or(0);
        z[row] = 1.0;
    }
    let mut v = vec![0.0; m];
    let mut rv = vec![0.0; d];
    let mut gain;
    let mut made = 0;
    loop {
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
        if made >= alternations {
            break;
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
            break;
        }
        z = new;
        made += 1;
    }
    if !(gain > 0.0 && gain.is_finite()) {
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
