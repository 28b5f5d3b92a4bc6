//! The paper's literal reading of the rank-1 constraint, kept to measure it against the
//! per-block reading of [`crate::rank_one`] (see [`crate::Reading`]).
//!
//! Wu and Sun (2015) take `F_1(W) = 1/2 ||W||_F^2` on `Omega_1 = {rank W <= 1}` for the
//! whole `|S|K x |S|K` matrix `W = alpha beta^T` (Sec. 4.1), so that
//! `F_1*(Theta) = 1/2 ||Theta||_2^2` (Proposition 1) and `W_t = grad F_1*(Theta_t) =
//! sigma_1 u_1 v_1^T` (Proposition 2). This module implements two readings of that:
//!
//! - [`SpectralMode::Exact`]: `W_t` is the exact gradient. `Theta` is block diagonal (one
//!   block per feature, Sec. 3.3), so its leading singular triple is the leading triple of
//!   the block with the largest `sigma_1(Theta_k)`, and `W_t` is that block's best rank-1
//!   approximation with every other block zero: the model keeps one feature. A block that
//!   may lead (its Frobenius norm, an upper bound of `sigma_1`, exceeds the largest known
//!   value) is decomposed to convergence (power steps until `sigma` changes by less than
//!   `1e-12` relatively, warm-started).
//! - [`SpectralMode::Algorithm2`]: Algorithm 2 as printed. `alpha` and `beta` are single unit
//!   vectors of the whole space (line 1: `1 / ||1||`); a mistake runs `R` steps of eqs.
//!   (9)-(12), `Delta alpha = (C DeltaPhi beta + Theta_t Delta beta) / sigma_1` and
//!   `Delta beta = (C DeltaPhi^T alpha + Theta_t^T Delta alpha) / sigma_1` with
//!   `sigma_1 = sigma_1(Theta_{t-1})`, then normalizes `alpha + Delta alpha` and
//!   `beta + Delta beta` (line 12). `Delta alpha`, `Delta beta` live on the touched blocks
//!   only, and the normalization is a global scale, so an update costs time in the touched
//!   blocks only. `sigma_1(Theta_{t-1})` is the largest block value, each computed to convergence; at the
//!   first mistake, where `Theta_0 = 0` leaves the division undefined, `sigma_1(Theta_1)`
//!   is used. The prediction uses `W_t = sigma_1(Theta_t) alpha beta^T`: line 12 itself
//!   gives unit `alpha`, `beta`, and we read its comment `W_t = grad F_1*(Theta_t)`
//!   (Proposition 2: `sigma_1 u_1 v_1^T`), on the scale of `Theta` and of Sec. 4.3's
//!   0-order weights. With averaging the averages are of `sqrt(sigma_1) alpha` and
//!   `sqrt(sigma_1) beta`. Alone the scale does not change a prediction; beside 0-order
//!   weights it sets the bilinear part's weight, and with averaging each step's weight in
//!   the average (the effect of the unit-vector reading is not measured: see
//!   `docs/papers/bol.md`).
//!
//! Eqs. (9)-(12) are the power iteration `Theta_t^T Theta_t` from `beta_{t-1}` only when
//! `alpha_{t-1}, beta_{t-1}` are the exact leading singular pair of `Theta_{t-1}` with value
//! `sigma_1` (the derivation of Sec. 4.2 uses `Theta_{t-1} beta_{t-1} = sigma_1
//! alpha_{t-1}`); the unit tests check that identity. In training that premise fails from the
//! first round, and the update is then a normalized bilinear perceptron step of size
//! `C / sigma_1(Theta_{t-1})`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::average::LazyAverage;
use crate::error::Result;
use crate::rank_one::{BlockDiagonal, BlockRef, BlockUpdate, block_power_steps, check_dimensions};

/// Which literal reading [`SpectralRankOne`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SpectralMode {
    /// The exact gradient `sigma_1 u_1 v_1^T` of `1/2 ||Theta||_2^2`: one block.
    Exact,
    /// Algorithm 2 with eqs. (9)-(12) as printed.
    Algorithm2,
}

/// `Theta` and the rank-1 `W` read from it by `1/2 ||Theta||_2^2` (see the module docs).
#[derive(Debug, Clone)]
pub struct SpectralRankOne {
    mode: SpectralMode,
    theta: BlockDiagonal,
    /// `sigma_1(Theta_k)` of every block (`exact[k]`) or an upper bound of it, and the
    /// singular vectors `u_k`, `v_k` (concatenated) of the blocks whose value is exact,
    /// computed to convergence. The largest entry of `order` is always exact.
    sigma: Vec<f64>,
    exact: Vec<bool>,
    u: Vec<f64>,
    v: Vec<f64>,
    /// A fixed generic vector added to each warm start.
    mix: Vec<f64>,
    /// The blocks with `sigma_1 > 0` ordered by their entry of `sigma`: `(sigma bits, u32::MAX - k)`, so the
    /// last entry is the largest value, ties broken towards the smallest block index.
    order: BTreeSet<(u64, u32)>,
    /// `alpha = scale_a * a`, `beta = scale_b * b`.
    a: Vec<f64>,
    b: Vec<f64>,
    scale_a: f64,
    scale_b: f64,
    /// `||a||^2`, `||b||^2` (Algorithm 2; kept up to date incrementally).
    norm_a2: f64,
    norm_b2: f64,
    /// The block `W` keeps (exact mode).
    top: Option<usize>,
    averages: Option<(LazyAverage, LazyAverage)>,
}

/// Power steps on one block until `sigma` changes by less than `1e-12` relatively (at most
/// 10,000), from `v` plus a fixed generic vector `mix` (so that the start is not orthogonal
/// to the leading right singular vector). On return `u`, `v` hold the vectors.
fn converged_triple(
    block: &BlockRef<'_>,
    norm: f64,
    u: &mut [f64],
    v: &mut [f64],
    mix: &[f64],
) -> Result<f64> {
    if norm == 0.0 {
        u.fill(0.0);
        return Ok(0.0);
    }
    for (x, m) in v.iter_mut().zip(mix) {
        *x += m;
    }
    block_power_steps(block, u, v, 10_000, 1e-12)
}

impl SpectralRankOne {
    /// The start state for `n_blocks` blocks of `rows x cols`: `Theta = 0`; in
    /// [`SpectralMode::Algorithm2`] `alpha = beta = 1 / ||1||` (Algorithm 2, line 1), in
    /// [`SpectralMode::Exact`] `W = 0`. With `average`, running averages of `alpha` and
    /// `beta` are kept.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a zero
    /// dimension, `n_blocks x rows` or `n_blocks x cols` above
    /// [`bl_core::limits::MAX_ELEMENTS`], a block of more than `u32::MAX` entries, or
    /// `n_blocks` row headers that cannot be allocated.
    pub fn new(
        n_blocks: usize,
        rows: usize,
        cols: usize,
        mode: SpectralMode,
        average: bool,
    ) -> Result<Self> {
        check_dimensions(n_blocks, rows, cols)?;
        let (m, n) = (n_blocks * rows, n_blocks * cols);
        let start = match mode {
            SpectralMode::Algorithm2 => 1.0,
            SpectralMode::Exact => 0.0,
        };
        Ok(Self {
            mode,
            theta: BlockDiagonal::new(n_blocks, rows, cols, 0.0)?,
            sigma: vec![0.0; n_blocks],
            exact: vec![true; n_blocks],
            u: vec![0.0; m],
            v: vec![0.0; n],
            mix: {
                let mut rng = bl_core::random::seeded_rng(0x5eed);
                (0..cols)
                    .map(|_| 1e-3 * (1.0 + bl_core::random::standard_normal(&mut rng).abs()))
                    .collect()
            },
            order: BTreeSet::new(),
            a: vec![start; m],
            b: vec![start; n],
            scale_a: if start == 0.0 {
                1.0
            } else {
                1.0 / (m as f64).sqrt()
            },
            scale_b: if start == 0.0 {
                1.0
            } else {
                1.0 / (n as f64).sqrt()
            },
            norm_a2: start * m as f64,
            norm_b2: start * n as f64,
            top: None,
            averages: average.then(|| (LazyAverage::new(m), LazyAverage::new(n))),
        })
    }

    /// The reading.
    pub fn mode(&self) -> SpectralMode {
        self.mode
    }

    /// The accumulated dual matrix `Theta`.
    pub fn theta(&self) -> &BlockDiagonal {
        &self.theta
    }

    /// `sigma_1(Theta) = max_k sigma_1(Theta_k)` (each block to convergence).
    pub fn sigma_max(&self) -> f64 {
        self.order
            .last()
            .map_or(0.0, |&(bits, _)| f64::from_bits(bits))
    }

    /// The block of the largest `sigma_1(Theta_k)` (the smallest index on ties), or `None`
    /// while `Theta = 0`.
    pub fn top_block(&self) -> Option<usize> {
        match self.order.last() {
            Some(&(bits, k)) if f64::from_bits(bits) > 0.0 => Some((u32::MAX - k) as usize),
            _ => None,
        }
    }

    /// How many blocks of `W` are nonzero.
    pub fn nonzero_blocks(&self) -> usize {
        let (l, p) = (self.theta.block_rows(), self.theta.block_cols());
        (0..self.theta.n_blocks())
            .filter(|&k| {
                self.a[k * l..(k + 1) * l].iter().any(|&x| x != 0.0)
                    && self.b[k * p..(k + 1) * p].iter().any(|&x| x != 0.0)
            })
            .count()
    }

    /// The raw vectors and the factor of the score: `alpha^T Phi beta` as used for
    /// prediction is `factor * a^T Phi b`.
    pub(crate) fn raw(&self) -> (&[f64], &[f64], f64) {
        (&self.a, &self.b, self.factor())
    }

    /// `W = factor * a b^T`: exact mode `1`; Algorithm 2 `sigma_1(Theta_t) * scale_a *
    /// scale_b`, i.e. `W_t = sigma_1 alpha beta^T` with unit `alpha`, `beta`.
    fn factor(&self) -> f64 {
        match self.mode {
            SpectralMode::Exact => 1.0,
            SpectralMode::Algorithm2 => {
                let s = self.sigma_max();
                if s > 0.0 {
                    s * self.scale_a * self.scale_b
                } else {
                    self.scale_a * self.scale_b
                }
            }
        }
    }

    /// The scale of `a` and of `b` in `W = (s_a a)(s_b b)^T`.
    fn split_scales(&self) -> (f64, f64) {
        match self.mode {
            SpectralMode::Exact => (1.0, 1.0),
            SpectralMode::Algorithm2 => {
                // As in `factor`: before the first update (`sigma_1 = 0`) the score is
                // `a^T Phi b` of the start vectors, so the split must give them unscaled.
                let s = self.sigma_max();
                let root = if s > 0.0 { s.sqrt() } else { 1.0 };
                (root * self.scale_a, root * self.scale_b)
            }
        }
    }

    /// `alpha` and `beta` with `W = alpha beta^T` (Algorithm 2: `sqrt(sigma_1)` times the
    /// unit vectors).
    pub fn alpha_beta(&self) -> (Vec<f64>, Vec<f64>) {
        let (sa, sb) = self.split_scales();
        (
            self.a.iter().map(|x| sa * x).collect(),
            self.b.iter().map(|x| sb * x).collect(),
        )
    }

    /// The averages of `alpha` and `beta` over the recorded steps, or `None` when averaging
    /// is off.
    pub fn averaged_alpha_beta(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        self.averages
            .as_ref()
            .map(|(aa, ab)| (aa.average(&self.a), ab.average(&self.b)))
    }

    /// Ends one online step: the current `alpha`, `beta` enter the running averages.
    pub fn record_step(&mut self) {
        let (sa, sb) = self.split_scales();
        if let Some((aa, ab)) = self.averages.as_mut() {
            aa.record(sa);
            ab.record(sb);
        }
    }

    /// Folds the global scales into the stored vectors and recomputes their norms exactly
    /// (Algorithm 2; a full pass, to be called rarely, e.g. once per epoch).
    pub fn renormalize(&mut self) {
        if self.mode != SpectralMode::Algorithm2 {
            return;
        }
        if let Some((aa, ab)) = self.averages.as_mut() {
            for (j, &x) in self.a.iter().enumerate() {
                aa.touch(j, x);
            }
            for (j, &x) in self.b.iter().enumerate() {
                ab.touch(j, x);
            }
        }
        // The averages saw `s_a a` through the recorded scales: rescaling `a` by `r` needs
        // later scales divided by `r`, which `split_scales` gives since `scale_a` becomes 1.
        let na: f64 = self.a.iter().map(|x| x * x).sum::<f64>().sqrt();
        let nb: f64 = self.b.iter().map(|x| x * x).sum::<f64>().sqrt();
        if na > 0.0 && nb > 0.0 {
            self.a.iter_mut().for_each(|x| *x /= na);
            self.b.iter_mut().for_each(|x| *x /= nb);
            self.norm_a2 = 1.0;
            self.norm_b2 = 1.0;
            self.scale_a = 1.0;
            self.scale_b = 1.0;
        }
    }

    /// Sets block `k`'s entry in the order: its exact `sigma_1`, or an upper bound.
    fn set_sigma(&mut self, k: usize, sigma: f64, exact: bool) {
        let key = u32::MAX - k as u32;
        self.order.remove(&(self.sigma[k].to_bits(), key));
        self.sigma[k] = sigma;
        self.exact[k] = exact;
        if sigma > 0.0 {
            self.order.insert((sigma.to_bits(), key));
        }
    }

    /// `Theta += D`, then the new `W` (see the module docs); `steps` is `R` of eqs.
    /// (9)-(12) (unused by the exact reading). An empty `D` changes nothing.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `D`'s
    /// block shape differs from `Theta`'s, `D` was given an entry outside the block shape,
    /// a block index is out of range or `steps == 0`; non-finite values in `D`;
    /// `bl_core::BlError::Numerical` when the power steps meet a non-finite iterate (a
    /// `Theta` grown beyond the range of `f64`).
    pub fn update(&mut self, d: &BlockUpdate, steps: usize) -> Result<()> {
        let (l, p) = (self.theta.block_rows(), self.theta.block_cols());
        d.check_against(&self.theta, steps)?;
        if d.is_empty() {
            return Ok(());
        }
        let sigma_prev = self.sigma_max();
        // A touched block enters the order with the upper bound ||Theta_k||_F >= sigma_1;
        // then the largest entries are made exact until the largest is exact, so that only
        // blocks that may lead are decomposed.
        for (i, &k) in d.blocks().iter().enumerate() {
            let k = k as usize;
            self.theta.add_entries(k, d.entries(i));
            let bound = self.theta.block_norm(k);
            self.set_sigma(k, bound, false);
        }
        while let Some(&(_, key)) = self.order.last() {
            let k = (u32::MAX - key) as usize;
            if self.exact[k] {
                break;
            }
            let sigma = converged_triple(
                &self.theta.block_ref(k),
                self.theta.block_norm(k),
                &mut self.u[k * l..(k + 1) * l],
                &mut self.v[k * p..(k + 1) * p],
                &self.mix,
            )?;
            self.set_sigma(k, sigma, true);
        }
        match self.mode {
            SpectralMode::Exact => self.set_top_block(),
            SpectralMode::Algorithm2 => {
                let sigma = if sigma_prev > 0.0 {
                    sigma_prev
                } else {
                    self.sigma_max()
                };
                if sigma > 0.0 {
                    self.algorithm2_step(d, steps, sigma);
                }
            }
        }
        Ok(())
    }

    /// Writes `alpha_k`, `beta_k` of block `k` (raw, scale 1), through the averages.
    fn write_block(&mut self, k: usize, alpha_k: &[f64], beta_k: &[f64]) {
        let (l, p) = (self.theta.block_rows(), self.theta.block_cols());
        for (a, &x) in alpha_k.iter().enumerate() {
            let j = k * l + a;
            if let Some((aa, _)) = self.averages.as_mut() {
                aa.touch(j, self.a[j]);
            }
            self.a[j] = x;
        }
        for (b, &x) in beta_k.iter().enumerate() {
            let j = k * p + b;
            if let Some((_, ab)) = self.averages.as_mut() {
                ab.touch(j, self.b[j]);
            }
            self.b[j] = x;
        }
        debug_assert_eq!(alpha_k.len(), l);
        debug_assert_eq!(beta_k.len(), p);
    }

    /// Exact reading: `W` becomes the top block's `sigma u v^T`, every other block zero.
    fn set_top_block(&mut self) {
        let (l, p) = (self.theta.block_rows(), self.theta.block_cols());
        let new_top = self.top_block();
        if let Some(old) = self.top
            && Some(old) != new_top
        {
            self.write_block(old, &vec![0.0; l], &vec![0.0; p]);
        }
        self.top = new_top;
        let Some(k) = new_top else { return };
        let root = self.sigma[k].sqrt();
        let alpha_k: Vec<f64> = self.u[k * l..(k + 1) * l]
            .iter()
            .map(|x| root * x)
            .collect();
        let beta_k: Vec<f64> = self.v[k * p..(k + 1) * p]
            .iter()
            .map(|x| root * x)
            .collect();
        self.write_block(k, &alpha_k, &beta_k);
    }

    /// Algorithm 2, lines 7-12, with eqs. (9)-(12) on the touched blocks.
    fn algorithm2_step(&mut self, d: &BlockUpdate, steps: usize, sigma: f64) {
        let (l, p) = (self.theta.block_rows(), self.theta.block_cols());
        let blocks: Vec<usize> = d.blocks().iter().map(|&k| k as usize).collect();
        let nb = blocks.len();
        // alpha_{t-1}, beta_{t-1} on the touched blocks.
        let alpha: Vec<f64> = blocks
            .iter()
            .flat_map(|&k| self.a[k * l..(k + 1) * l].iter().map(|x| x * self.scale_a))
            .collect();
        let beta: Vec<f64> = blocks
            .iter()
            .flat_map(|&k| self.b[k * p..(k + 1) * p].iter().map(|x| x * self.scale_b))
            .collect();
        let mut theta = vec![0.0; nb * l * p];
        for (i, &k) in blocks.iter().enumerate() {
            self.theta
                .copy_block_unchecked(k, &mut theta[i * l * p..(i + 1) * l * p]);
        }
        // The constant parts C DeltaPhi beta_{t-1} and C DeltaPhi^T alpha_{t-1}.
        let mut d_beta = vec![0.0; nb * l];
        let mut dt_alpha = vec![0.0; nb * p];
        let mut v = vec![0.0; l * p];
        for i in 0..nb {
            d.dense_values_unchecked(i, &mut v);
            for r in 0..l {
                for c in 0..p {
                    d_beta[i * l + r] += v[r * p + c] * beta[i * p + c];
                    dt_alpha[i * p + c] += v[r * p + c] * alpha[i * l + r];
                }
            }
        }
        let mut delta_a = vec![0.0; nb * l];
        let mut delta_b = vec![0.0; nb * p];
        for _ in 0..steps {
            // Eq. (9): Delta alpha = (C DeltaPhi beta + Theta_t Delta beta) / sigma_1.
            for i in 0..nb {
                let t = &theta[i * l * p..(i + 1) * l * p];
                for r in 0..l {
                    let tb: f64 = (0..p).map(|c| t[r * p + c] * delta_b[i * p + c]).sum();
                    delta_a[i * l + r] = (d_beta[i * l + r] + tb) / sigma;
                }
            }
            // Eq. (11): Delta beta = (C DeltaPhi^T alpha + Theta_t^T Delta alpha) / sigma_1.
            for i in 0..nb {
                let t = &theta[i * l * p..(i + 1) * l * p];
                for c in 0..p {
                    let ta: f64 = (0..l).map(|r| t[r * p + c] * delta_a[i * l + r]).sum();
                    delta_b[i * p + c] = (dt_alpha[i * p + c] + ta) / sigma;
                }
            }
        }
        // Eqs. (10), (12) and line 12: alpha = (alpha + Delta alpha) / ||.||, through the raw
        // vectors: a_k += Delta alpha_k / scale_a, then scale_a = 1 / ||a||.
        let (sa, sb) = (self.scale_a, self.scale_b);
        let (mut avg_a, mut avg_b) = match self.averages.as_mut() {
            Some((aa, ab)) => (Some(aa), Some(ab)),
            None => (None, None),
        };
        for (i, &k) in blocks.iter().enumerate() {
            let da = &delta_a[i * l..(i + 1) * l];
            add_to_raw(
                &mut self.a,
                k * l,
                da,
                sa,
                &mut self.norm_a2,
                avg_a.as_deref_mut(),
            );
            let db = &delta_b[i * p..(i + 1) * p];
            add_to_raw(
                &mut self.b,
                k * p,
                db,
                sb,
                &mut self.norm_b2,
                avg_b.as_deref_mut(),
            );
        }
        if self.norm_a2 > 0.0 {
            self.scale_a = 1.0 / self.norm_a2.sqrt();
        }
        if self.norm_b2 > 0.0 {
            self.scale_b = 1.0 / self.norm_b2.sqrt();
        }
    }
}

/// `x[offset + i] += delta[i] / scale` for every `i` (eqs. (10), (12) on raw vectors),
/// through the running average, keeping `norm2 = ||x||^2` up to date.
fn add_to_raw(
    x: &mut [f64],
    offset: usize,
    delta: &[f64],
    scale: f64,
    norm2: &mut f64,
    mut average: Option<&mut LazyAverage>,
) {
    for (i, d) in delta.iter().enumerate() {
        let j = offset + i;
        let new = x[j] + d / scale;
        if let Some(avg) = average.as_deref_mut() {
            avg.touch(j, x[j]);
        }
        *norm2 += new * new - x[j] * x[j];
        x[j] = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bl_core::linalg::LinearOperator;

    /// When `alpha_{t-1}, beta_{t-1}` are the exact leading singular pair of `Theta_{t-1}`
    /// (the premise of Sec. 4.2), `R` steps of eqs. (9)-(12) and the normalization of line
    /// 12 equal `R` dense power steps on `Theta_t` from `beta_{t-1}`.
    #[test]
    fn eqs_9_to_12_are_the_power_iteration_under_their_premise() {
        let (n_blocks, l, p) = (3, 2, 3);
        for steps in [1, 2, 4, 7] {
            let mut s =
                SpectralRankOne::new(n_blocks, l, p, SpectralMode::Algorithm2, false).unwrap();
            // Theta_{t-1}: block 0 = 2 * x y^T (rank 1) with unit x, y; the rest zero.
            let x = [0.6, 0.8];
            let y = [2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0];
            let sigma = 2.0;
            let block: Vec<(u32, f64)> = (0..l * p)
                .map(|j| (j as u32, sigma * x[j / p] * y[j % p]))
                .collect();
            s.theta.add_entries(0, &block);
            s.set_sigma(0, sigma, true);
            s.a.fill(0.0);
            s.b.fill(0.0);
            s.a[..l].copy_from_slice(&x);
            s.b[..p].copy_from_slice(&y);
            s.norm_a2 = 1.0;
            s.norm_b2 = 1.0;
            s.scale_a = 1.0;
            s.scale_b = 1.0;
            // D touches blocks 0 and 2.
            let mut d = BlockUpdate::new(l, p);
            d.add(0, 0, 1, 0.5);
            d.add(0, 1, 2, -0.3);
            d.add(2, 1, 0, 0.7);
            d.add(2, 0, 2, 0.2);
            let theta_before = s.theta.to_dense();
            s.update(&d, steps).unwrap();
            // Dense power iteration on Theta_t = Theta_{t-1} + D from beta_{t-1}.
            let mut theta_t = theta_before.clone();
            for (i, &k) in d.blocks().iter().enumerate() {
                let k = k as usize;
                for &(code, value) in d.entries(i) {
                    let (r, c) = (code as usize / p, code as usize % p);
                    theta_t[(k * l + r, k * p + c)] += value;
                }
            }
            let mut beta = vec![0.0; n_blocks * p];
            beta[..p].copy_from_slice(&y);
            let mut alpha = vec![0.0; n_blocks * l];
            for _ in 0..steps {
                theta_t.apply(&beta, &mut alpha);
                theta_t.apply_transpose(&alpha, &mut beta);
            }
            let norm = |v: &mut Vec<f64>| {
                let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                v.iter_mut().for_each(|x| *x /= n);
            };
            norm(&mut alpha);
            norm(&mut beta);
            let got_a: Vec<f64> = s.a.iter().map(|x| x * s.scale_a).collect();
            let got_b: Vec<f64> = s.b.iter().map(|x| x * s.scale_b).collect();
            for (g, e) in got_a.iter().zip(&alpha) {
                assert!(
                    (g - e).abs() < 1e-12,
                    "R = {steps}: alpha {got_a:?} vs {alpha:?}"
                );
            }
            for (g, e) in got_b.iter().zip(&beta) {
                assert!(
                    (g - e).abs() < 1e-12,
                    "R = {steps}: beta {got_b:?} vs {beta:?}"
                );
            }
        }
    }

    #[test]
    fn renormalize_keeps_alpha_beta_and_the_norm_bookkeeping_exact() {
        let mut s = SpectralRankOne::new(4, 2, 3, SpectralMode::Algorithm2, false).unwrap();
        let mut d = BlockUpdate::new(2, 3);
        for t in 0..20u32 {
            d.clear();
            d.add(t % 4, (t % 2) as usize, (t % 3) as usize, 1.0);
            d.add((t + 1) % 4, 1, 2, -1.0);
            s.update(&d, 4).unwrap();
            let na: f64 = s.a.iter().map(|x| x * x).sum();
            assert!((na - s.norm_a2).abs() < 1e-9 * na);
        }
        let before = s.alpha_beta();
        s.renormalize();
        let after = s.alpha_beta();
        for (x, y) in before
            .0
            .iter()
            .zip(&after.0)
            .chain(before.1.iter().zip(&after.1))
        {
            assert!((x - y).abs() < 1e-12 * (1.0 + x.abs()));
        }
        let unit: f64 = s.a.iter().map(|x| x * x).sum();
        assert!((unit - 1.0).abs() < 1e-12);
    }
}
