//! The dual state of the bilinear online learner (Wu and Sun 2015, Sec. 4, Algorithm 2):
//! the accumulated matrix `Theta` and the primal rank-1 parameters read from it by
//! `W = grad F*(Theta)`, computed by warm-started power iteration.
//!
//! # Structure
//!
//! With the matrix feature of Sec. 3.3 for first-order sequence labelling, every feature
//! `k` owns one block: `Phi(x, y) = sum_i sum_{k active at i} E_k(y_i, y_{i-1})`, where
//! `E_k(a, b)` is the unit matrix of block `k` at row `a` (current tag) and column `b`
//! (previous tag, or the start state). So `Phi`, and `Theta = C sum_t DeltaPhi_t`, are block
//! diagonal with `K` blocks of `L x (L + 1)`, and the score
//! `alpha^T Phi beta = sum_i sum_k alpha_k[y_i] beta_k[y_{i-1}]` reads only the diagonal
//! blocks `alpha_k beta_k^T` of `W = alpha beta^T`.
//!
//! # Which rank-1 constraint
//!
//! The diagonal blocks of a rank-1 `alpha beta^T` are exactly the families of rank-1 blocks
//! `(alpha_k beta_k^T)_k` with free scales, so the rank-1 model is a rank-1 constraint on
//! every block. We therefore take `F(W) = sum_k (1/2 ||W_k||_F^2 + [rank W_k <= 1])` on the
//! part of `W` the model reads; its conjugate is `F*(Theta) = 1/2 sum_k sigma_1(Theta_k)^2`
//! and `grad F*(Theta) = blockdiag(sigma_1(Theta_k) u_k v_k^T)`, i.e.
//! `alpha_k = sqrt(sigma_k) u_k`, `beta_k = sqrt(sigma_k) v_k`.
//!
//! The paper reads `F` on the whole of `W` (`F_1*(Theta) = 1/2 ||Theta||_2^2`,
//! Proposition 1). Its exact gradient is degenerate for a block-diagonal `Theta`: the
//! leading singular pair lives in the single block of largest `sigma_1(Theta_k)`, so `W`
//! keeps one feature. (Both readings agree on that block; the tests check it against a
//! dense SVD of the whole `Theta`.) That reading, and Algorithm 2's eqs. (9)-(12) as
//! printed, are kept in [`crate::spectral`] for comparison ([`crate::Reading`]); the crate
//! README and `docs/papers/bol.md` give the measured effect.
//!
//! # The update
//!
//! A mistake adds `D = C DeltaPhi_t`, which touches only the blocks of the features active
//! where the decoded transition differs from the gold one. For each touched block, `R` power
//! steps ([`bl_core::linalg::power_iteration_in_place`] on the `L x (L + 1)` block, warm-started at the
//! previous `v_k`; a new block starts from the uniform vector) give `(sigma_k, u_k, v_k)`.
//! Cost per mistake: `O(|B| R L^2)` for `|B|` touched blocks, independent of `K`; memory:
//! blocks are allocated when first touched.

use bl_core::linalg::{LinearOperator, PowerIterationParams, power_iteration_in_place};

use crate::average::LazyAverage;
use crate::error::Result;

const UNALLOCATED: u32 = u32::MAX;

/// The stored entries of one block: sorted codes `r * cols + c` and their values.
#[derive(Debug, Clone, Default)]
struct SparseBlock {
    codes: Vec<u32>,
    values: Vec<f64>,
}

impl SparseBlock {
    /// `entry(code) += value`, an absent entry starting at `prior`.
    #[inline]
    fn add(&mut self, code: u32, value: f64, prior: f64) {
        match self.codes.binary_search(&code) {
            Ok(i) => self.values[i] += value,
            Err(i) => {
                self.codes.insert(i, code);
                self.values.insert(i, prior + value);
            }
        }
    }
}

/// A block-diagonal matrix of `n_blocks` blocks of `rows x cols`, stored sparsely: a block
/// keeps only the entries that were written (sorted, row-major codes), every other entry
/// equals `prior`.
#[derive(Debug, Clone)]
pub struct BlockDiagonal {
    n_blocks: usize,
    rows: usize,
    cols: usize,
    prior: f64,
    slot: Vec<u32>,
    blocks: Vec<SparseBlock>,
}

impl BlockDiagonal {
    /// A block-diagonal matrix whose blocks all equal `prior * 1 1^T`.
    pub fn new(n_blocks: usize, rows: usize, cols: usize, prior: f64) -> Self {
        Self {
            n_blocks,
            rows,
            cols,
            prior,
            slot: vec![UNALLOCATED; n_blocks],
            blocks: Vec::new(),
        }
    }

    /// Number of blocks.
    pub fn n_blocks(&self) -> usize {
        self.n_blocks
    }

    /// Rows of one block.
    pub fn block_rows(&self) -> usize {
        self.rows
    }

    /// Columns of one block.
    pub fn block_cols(&self) -> usize {
        self.cols
    }

    /// Number of blocks that were written.
    pub fn n_allocated(&self) -> usize {
        self.blocks.len()
    }

    /// Number of stored entries (memory is proportional to it).
    pub fn n_stored(&self) -> usize {
        self.blocks.iter().map(|b| b.codes.len()).sum()
    }

    fn block(&self, k: usize) -> Option<&SparseBlock> {
        match self.slot[k] {
            UNALLOCATED => None,
            s => Some(&self.blocks[s as usize]),
        }
    }

    /// Entry `(r, c)` of block `k` (`k < n_blocks`, `r < rows`, `c < cols`).
    pub fn get(&self, k: usize, r: usize, c: usize) -> f64 {
        let code = (r * self.cols + c) as u32;
        self.block(k)
            .and_then(|b| b.codes.binary_search(&code).ok().map(|i| b.values[i]))
            .unwrap_or(self.prior)
    }

    /// Adds `entries` (`(r * cols + c, value)`, codes distinct) to block `k`.
    pub fn add_entries(&mut self, k: usize, entries: &[(u32, f64)]) {
        if self.slot[k] == UNALLOCATED {
            self.slot[k] = self.blocks.len() as u32;
            self.blocks.push(SparseBlock::default());
        }
        let block = &mut self.blocks[self.slot[k] as usize];
        for &(code, value) in entries {
            block.add(code, value, self.prior);
        }
    }

    /// The Frobenius norm of block `k`.
    pub fn block_norm(&self, k: usize) -> f64 {
        let size = self.rows * self.cols;
        let (stored, sum2) = self.block(k).map_or((0, 0.0), |b| {
            (b.codes.len(), b.values.iter().map(|x| x * x).sum::<f64>())
        });
        (sum2 + (size - stored) as f64 * self.prior * self.prior).sqrt()
    }

    /// Block `k` copied into `out` (row-major, `rows * cols` entries).
    pub fn copy_block(&self, k: usize, out: &mut [f64]) {
        let size = self.rows * self.cols;
        out[..size].fill(self.prior);
        if let Some(b) = self.block(k) {
            for (&c, &v) in b.codes.iter().zip(&b.values) {
                out[c as usize] = v;
            }
        }
    }

    /// Block `k` as a linear operator.
    pub(crate) fn block_ref(&self, k: usize) -> BlockRef<'_> {
        let (codes, values) = self
            .block(k)
            .map_or((&[][..], &[][..]), |b| (&b.codes[..], &b.values[..]));
        BlockRef {
            codes,
            values,
            rows: self.rows,
            cols: self.cols,
            prior: self.prior,
        }
    }

    /// The dense `(n_blocks rows) x (n_blocks cols)` matrix (for tests on small sizes).
    pub fn to_dense(&self) -> faer::Mat<f64> {
        let (r, c) = (self.rows, self.cols);
        let mut m = faer::Mat::<f64>::zeros(self.n_blocks * r, self.n_blocks * c);
        for k in 0..self.n_blocks {
            for i in 0..r {
                for j in 0..c {
                    m[(k * r + i, k * c + j)] = self.get(k, i, j);
                }
            }
        }
        m
    }
}

impl LinearOperator for BlockDiagonal {
    fn nrows(&self) -> usize {
        self.n_blocks * self.rows
    }
    fn ncols(&self) -> usize {
        self.n_blocks * self.cols
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        let (r, c) = (self.rows, self.cols);
        for k in 0..self.n_blocks {
            self.block_ref(k)
                .apply(&x[k * c..(k + 1) * c], &mut out[k * r..(k + 1) * r]);
        }
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        let (r, c) = (self.rows, self.cols);
        for k in 0..self.n_blocks {
            self.block_ref(k)
                .apply_transpose(&y[k * r..(k + 1) * r], &mut out[k * c..(k + 1) * c]);
        }
    }
}

/// A sparse update `D` of a [`BlockDiagonal`]: for a list of distinct blocks, the entries
/// added to each (codes `r * cols + c`, each once per block).
///
/// Blocks are found through a dense position table indexed by block id (a sparse set):
/// it grows to the largest id seen (4 bytes per feature, allocated once) and [`clear`]
/// resets only the touched entries; each block's entry list keeps its capacity, so once
/// warm an update allocates nothing and costs O(entries), with no hashing.
///
/// [`clear`]: BlockUpdate::clear
#[derive(Debug, Clone, Default)]
pub struct BlockUpdate {
    rows: usize,
    cols: usize,
    blocks: Vec<u32>,
    /// `entries[i]`: the entries of the `i`-th touched block (lists beyond `blocks.len()`
    /// are spare, kept for their capacity).
    entries: Vec<Vec<(u32, f64)>>,
    /// `position[k]` = index of block `k` in `blocks`, or [`UNTOUCHED`].
    position: Vec<u32>,
}

/// Marks a block that the current update does not touch.
const UNTOUCHED: u32 = u32::MAX;

impl BlockUpdate {
    /// An empty update for blocks of `rows x cols`.
    pub fn new(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            ..Self::default()
        }
    }

    /// Clears the update, then sets it to `c DeltaPhi` of one sentence of `L = rows` tags
    /// (`cols = L + 1`), `DeltaPhi = Phi(x, gold) - Phi(x, predicted)` with the matrix
    /// features of Sec. 3.3: at each position whose (tag, previous tag) differs, `+c` at
    /// (gold tag, gold previous) and `-c` at (predicted tag, predicted previous) of the block
    /// of every active feature, the previous state of the first position being the start
    /// state `L`. Both paths have `sentence.len()` tags below `L`.
    pub fn set_delta_phi(
        &mut self,
        sentence: &crate::features::EncodedSentence,
        gold: &[usize],
        predicted: &[usize],
        c: f64,
    ) {
        self.clear();
        crate::train::for_each_difference(
            sentence,
            gold,
            predicted,
            self.rows,
            |_, k, (ag, bg), (ap, bp)| {
                self.add(k as u32, ag, bg, c);
                self.add(k as u32, ap, bp, -c);
            },
        );
    }

    /// Removes every entry (keeps the allocations).
    pub fn clear(&mut self) {
        for (i, &k) in self.blocks.iter().enumerate() {
            self.position[k as usize] = UNTOUCHED;
            self.entries[i].clear();
        }
        self.blocks.clear();
    }

    /// Adds `value` at `(r, c)` of block `k`.
    pub fn add(&mut self, k: u32, r: usize, c: usize, value: f64) {
        let k_index = k as usize;
        if k_index >= self.position.len() {
            self.position.resize(k_index + 1, UNTOUCHED);
        }
        let mut slot = self.position[k_index];
        if slot == UNTOUCHED {
            // Fewer than 2^32 - 1 blocks: ids are u32 and the feature dictionary keeps
            // fewer than u32::MAX features.
            slot = self.blocks.len() as u32;
            self.position[k_index] = slot;
            self.blocks.push(k);
            if self.entries.len() < self.blocks.len() {
                self.entries.push(Vec::new());
            }
        }
        let code = (r * self.cols + c) as u32;
        let entries = &mut self.entries[slot as usize];
        match entries.iter_mut().find(|(c, _)| *c == code) {
            Some((_, x)) => *x += value,
            None => entries.push((code, value)),
        }
    }

    /// The shape `(rows, cols)` of one block.
    pub fn block_shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The blocks touched, in order of first addition.
    pub fn blocks(&self) -> &[u32] {
        &self.blocks
    }

    /// The entries `(r * cols + c, value)` of the `i`-th touched block, in order of first
    /// addition.
    pub fn entries(&self, i: usize) -> &[(u32, f64)] {
        &self.entries[i]
    }

    /// The `i`-th touched block as a dense row-major `rows x cols` matrix in `out`.
    pub fn dense_values(&self, i: usize, out: &mut [f64]) {
        out[..self.rows * self.cols].fill(0.0);
        for &(code, value) in self.entries(i) {
            out[code as usize] += value;
        }
    }

    /// Whether no block is touched.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// One block of `Theta` (sorted row-major codes, values, and the value `prior` of every
/// other entry) as a linear operator. The sums run over the stored entries in the order of
/// a dense row-major loop, so they equal the dense block's sums.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockRef<'a> {
    codes: &'a [u32],
    values: &'a [f64],
    rows: usize,
    cols: usize,
    prior: f64,
}

impl BlockRef<'_> {
    /// `out = B x` (or `B^T x` with `transpose`): every stored entry at (row, column) adds
    /// `(value - prior) x[column]` to `out[row]` (roles swapped for the transpose).
    fn product(&self, x: &[f64], out: &mut [f64], transpose: bool) {
        out.fill(self.prior * x.iter().sum::<f64>());
        for (&code, &v) in self.codes.iter().zip(self.values) {
            let (r, c) = (code as usize / self.cols, code as usize % self.cols);
            let (to, from) = if transpose { (c, r) } else { (r, c) };
            out[to] += (v - self.prior) * x[from];
        }
    }
}

impl LinearOperator for BlockRef<'_> {
    fn nrows(&self) -> usize {
        self.rows
    }
    fn ncols(&self) -> usize {
        self.cols
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        self.product(x, out, false);
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        self.product(y, out, true);
    }
}

/// Checks the sizes of a bol state: every dimension at least 1.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a zero dimension.
pub(crate) fn check_dimensions(n_blocks: usize, rows: usize, cols: usize) -> Result<()> {
    if n_blocks == 0 || rows == 0 || cols == 0 {
        return Err(crate::error::invalid(
            "dimensions",
            format!("{n_blocks} blocks of {rows} x {cols}"),
            "all >= 1",
        ));
    }
    Ok(())
}

/// At most `max_iter` power steps on one block of a [`BlockDiagonal`], warm-started at `v`, stopping when `sigma` changes by at most
/// `tol` relatively; on return `u`, `v` hold the unit singular vectors. Returns `sigma`. The
/// step of both bol states ([`BlockRankOne`] and [`crate::spectral::SpectralRankOne`]).
pub(crate) fn block_power_steps(
    block: &BlockRef<'_>,
    u: &mut [f64],
    v: &mut [f64],
    max_iter: usize,
    tol: f64,
) -> Result<f64> {
    let params = PowerIterationParams {
        max_iter,
        tol,
        seed: 0,
    };
    Ok(power_iteration_in_place(block, u, v, &params)?.sigma)
}

impl BlockUpdate {
    /// Checks that `self` can update `theta` with `steps` power steps.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the
    /// block shapes differ, a block index is out of range or `steps == 0`;
    /// [`bl_core::BlError::NonFinite`] for a non-finite value.
    pub(crate) fn check_against(&self, theta: &BlockDiagonal, steps: usize) -> Result<()> {
        if self.block_shape() != (theta.block_rows(), theta.block_cols()) {
            let (r, c) = self.block_shape();
            return Err(crate::error::invalid(
                "update",
                format!("blocks of {r} x {c}"),
                "blocks of the same shape as Theta's",
            ));
        }
        if steps == 0 {
            return Err(crate::error::invalid("power_steps", 0, ">= 1"));
        }
        if let Some(&k) = self
            .blocks
            .iter()
            .find(|&&k| k as usize >= theta.n_blocks())
        {
            return Err(crate::error::invalid(
                "update",
                format!("block {k}"),
                "block indices below the number of features",
            ));
        }
        if let Some((code, value)) = self.blocks.iter().enumerate().find_map(|(i, _)| {
            self.entries[i]
                .iter()
                .copied()
                .find(|(_, v)| !v.is_finite())
        }) {
            return Err(bl_core::error::build::non_finite(
                "update values",
                code as usize,
                value,
            ));
        }
        Ok(())
    }
}

/// `Theta` and the rank-1 blocks read from it, with optional running averages of `alpha` and
/// `beta` (Sec. 4.3): see the module docs.
#[derive(Debug, Clone)]
pub struct BlockRankOne {
    theta: BlockDiagonal,
    sigma: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
    alpha: Vec<f64>,
    beta: Vec<f64>,
    averages: Option<(LazyAverage, LazyAverage)>,
}

impl BlockRankOne {
    /// The zero state (`Theta = 0`, `W = 0`) for `n_blocks` blocks of `rows x cols`; with
    /// `average`, running averages of `alpha` and `beta` are kept.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a zero dimension.
    pub fn new(n_blocks: usize, rows: usize, cols: usize, average: bool) -> Result<Self> {
        check_dimensions(n_blocks, rows, cols)?;
        let (m, n) = (n_blocks * rows, n_blocks * cols);
        Ok(Self {
            theta: BlockDiagonal::new(n_blocks, rows, cols, 0.0),
            sigma: vec![0.0; n_blocks],
            u: vec![0.0; m],
            v: vec![1.0 / (cols as f64).sqrt(); n],
            alpha: vec![0.0; m],
            beta: vec![0.0; n],
            averages: average.then(|| (LazyAverage::new(m), LazyAverage::new(n))),
        })
    }

    /// The accumulated dual matrix `Theta`.
    pub fn theta(&self) -> &BlockDiagonal {
        &self.theta
    }

    /// `sigma_k`, the leading singular value estimate of each block.
    pub fn sigmas(&self) -> &[f64] {
        &self.sigma
    }

    /// The unit left vectors `u_k`, concatenated (`K x rows`).
    pub fn u(&self) -> &[f64] {
        &self.u
    }

    /// The unit right vectors `v_k`, concatenated (`K x cols`); a block never touched holds
    /// the uniform start vector.
    pub fn v(&self) -> &[f64] {
        &self.v
    }

    /// `alpha` (`alpha_k = sqrt(sigma_k) u_k`), so that block `k` of `W` is
    /// `alpha_k beta_k^T`.
    pub fn alpha(&self) -> &[f64] {
        &self.alpha
    }

    /// `beta` (`beta_k = sqrt(sigma_k) v_k`).
    pub fn beta(&self) -> &[f64] {
        &self.beta
    }

    /// The averages of `alpha` and `beta` over the recorded steps, or `None` when averaging
    /// is off.
    pub fn averaged_alpha_beta(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        self.averages
            .as_ref()
            .map(|(aa, ab)| (aa.average(&self.alpha), ab.average(&self.beta)))
    }

    /// `alpha`, `beta` to predict with, consuming the state: with `averaged` (and averages
    /// kept) the averages of [`averaged_alpha_beta`](Self::averaged_alpha_beta), computed in
    /// place; otherwise [`alpha`](Self::alpha), [`beta`](Self::beta).
    pub fn into_alpha_beta(self, averaged: bool) -> (Vec<f64>, Vec<f64>) {
        let Self {
            theta,
            sigma,
            u,
            v,
            alpha,
            beta,
            averages,
        } = self;
        // Free the dual state before the averages are formed.
        drop((theta, sigma, u, v));
        match averages {
            Some((aa, ab)) if averaged => (aa.into_average(alpha), ab.into_average(beta)),
            _ => (alpha, beta),
        }
    }

    /// Ends one online step: the current `alpha`, `beta` enter the running averages.
    pub fn record_step(&mut self) {
        if let Some((aa, ab)) = self.averages.as_mut() {
            aa.record(1.0);
            ab.record(1.0);
        }
    }

    /// `Theta += D`, then `steps` power steps on every block `D` touches, warm-started at
    /// the block's previous `v_k` (see the module docs). An empty `D` changes nothing.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `D`'s block shape differs from `Theta`'s, a
    /// block index is out of range or `steps == 0`; `bl_core::BlError::NonFinite` (as
    /// [`crate::OblError::Core`]) when `D` has a non-finite value.
    pub fn update(&mut self, d: &BlockUpdate, steps: usize) -> Result<()> {
        let (l, p) = (self.theta.rows, self.theta.cols);
        d.check_against(&self.theta, steps)?;
        for (i, &k) in d.blocks.iter().enumerate() {
            let k = k as usize;
            self.theta.add_entries(k, d.entries(i));
            // The previous u_k, v_k are only needed as the warm start v_k: iterate in place.
            let sigma = block_power_steps(
                &self.theta.block_ref(k),
                &mut self.u[k * l..(k + 1) * l],
                &mut self.v[k * p..(k + 1) * p],
                steps,
                1e-14,
            )?;
            let root = sigma.sqrt();
            self.sigma[k] = sigma;
            for a in 0..l {
                let j = k * l + a;
                if let Some((aa, _)) = self.averages.as_mut() {
                    aa.touch(j, self.alpha[j]);
                }
                self.alpha[j] = root * self.u[j];
            }
            for b in 0..p {
                let j = k * p + b;
                if let Some((_, ab)) = self.averages.as_mut() {
                    ab.touch(j, self.beta[j]);
                }
                self.beta[j] = root * self.v[j];
            }
        }
        Ok(())
    }
}
