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

use crate::error::Result;
use crate::sparse::{SparseRows, grow};

/// A block-diagonal matrix of `n_blocks` blocks of `rows x cols`, stored sparsely: a block
/// keeps only the entries that were written (sorted, row-major codes, all blocks in one
/// arena), every other entry equals `prior`.
#[derive(Debug, Clone)]
pub struct BlockDiagonal {
    rows: usize,
    cols: usize,
    prior: f64,
    blocks: SparseRows,
}

impl BlockDiagonal {
    /// A block-diagonal matrix whose blocks all equal `prior * 1 1^T`.
    /// (`pub(crate)`: states build it through their checked constructors.)
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) as
    /// [`check_dimensions`] (a zero dimension, `n_blocks x rows` or `n_blocks x cols`
    /// above [`bl_core::limits::MAX_ELEMENTS`], a block of more than `u32::MAX` entries),
    /// or when the `n_blocks` row headers cannot be allocated.
    pub(crate) fn new(n_blocks: usize, rows: usize, cols: usize, prior: f64) -> Result<Self> {
        check_dimensions(n_blocks, rows, cols)?;
        Ok(Self {
            rows,
            cols,
            prior,
            // rows x cols <= u32::MAX: checked above.
            blocks: SparseRows::new(n_blocks, rows * cols, false)?,
        })
    }

    /// No block (what is left once a state's `Theta` is freed), for blocks of
    /// `rows x cols`.
    fn emptied(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            prior: 0.0,
            blocks: SparseRows::empty(),
        }
    }

    /// Number of blocks.
    pub fn n_blocks(&self) -> usize {
        self.blocks.n_rows()
    }

    /// Rows of one block.
    pub fn block_rows(&self) -> usize {
        self.rows
    }

    /// Columns of one block.
    pub fn block_cols(&self) -> usize {
        self.cols
    }

    /// Number of blocks with a written entry.
    pub fn n_allocated(&self) -> usize {
        self.blocks.n_nonempty()
    }

    /// Number of stored entries (memory is proportional to it).
    pub fn n_stored(&self) -> usize {
        self.blocks.nnz()
    }

    /// Entry `(r, c)` of block `k`.
    ///
    /// # Panics
    /// When `k >= n_blocks`, `r >= rows` or `c >= cols`, as slice indexing does.
    pub fn get(&self, k: usize, r: usize, c: usize) -> f64 {
        assert!(
            r < self.rows && c < self.cols,
            "entry ({r}, {c}) out of range for blocks of {} x {}",
            self.rows,
            self.cols
        );
        // r * cols + c < rows * cols <= u32::MAX (checked when the blocks were made).
        let code = (r * self.cols + c) as u32;
        let (codes, values) = self.blocks.row(k);
        codes.binary_search(&code).map_or(self.prior, |i| values[i])
    }

    /// Adds `entries` (`(r * cols + c, value)`, codes distinct and below `rows * cols`) to
    /// block `k < n_blocks` (the caller checks: the entries of a checked [`BlockUpdate`]).
    pub(crate) fn add_entries(&mut self, k: usize, entries: &[(u32, f64)]) {
        for &(code, value) in entries {
            self.blocks.add_from(k, code, value, self.prior);
        }
    }

    /// The Frobenius norm of block `k`.
    ///
    /// # Panics
    /// When `k >= n_blocks`, as slice indexing does.
    pub fn block_norm(&self, k: usize) -> f64 {
        let size = self.rows * self.cols;
        let (codes, values) = self.blocks.row(k);
        let sum2 = values.iter().map(|x| x * x).sum::<f64>();
        (sum2 + (size - codes.len()) as f64 * self.prior * self.prior).sqrt()
    }

    /// Block `k` copied into `out` (row-major, the first `rows * cols` entries).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when
    /// `k >= n_blocks`; [`bl_core::BlError::ShapeMismatch`] when `out` has fewer than
    /// `rows * cols` entries (`out` is then untouched).
    pub fn copy_block(&self, k: usize, out: &mut [f64]) -> Result<()> {
        if k >= self.n_blocks() {
            return Err(crate::error::invalid(
                "block",
                k,
                format!("below the number of blocks, {}", self.n_blocks()),
            ));
        }
        check_room(
            "BlockDiagonal::copy_block: out",
            self.rows * self.cols,
            out.len(),
        )?;
        self.copy_block_unchecked(k, out);
        Ok(())
    }

    /// [`copy_block`](Self::copy_block) for a block and a buffer the caller guarantees.
    pub(crate) fn copy_block_unchecked(&self, k: usize, out: &mut [f64]) {
        let size = self.rows * self.cols;
        out[..size].fill(self.prior);
        let (codes, values) = self.blocks.row(k);
        for (&c, &v) in codes.iter().zip(values) {
            out[c as usize] = v;
        }
    }

    /// Block `k` as a linear operator.
    pub(crate) fn block_ref(&self, k: usize) -> BlockRef<'_> {
        let (codes, values) = self.blocks.row(k);
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
        let n_blocks = self.n_blocks();
        let mut m = faer::Mat::<f64>::zeros(n_blocks * r, n_blocks * c);
        for k in 0..n_blocks {
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
        self.n_blocks() * self.rows
    }
    fn ncols(&self) -> usize {
        self.n_blocks() * self.cols
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        let (r, c) = (self.rows, self.cols);
        for k in 0..self.n_blocks() {
            self.block_ref(k)
                .apply(&x[k * c..(k + 1) * c], &mut out[k * r..(k + 1) * r]);
        }
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        let (r, c) = (self.rows, self.cols);
        for k in 0..self.n_blocks() {
            self.block_ref(k)
                .apply_transpose(&y[k * r..(k + 1) * r], &mut out[k * c..(k + 1) * c]);
        }
    }
}

/// A sparse update `D` of a [`BlockDiagonal`]: for a list of distinct blocks, the entries
/// added to each (codes `r * cols + c`, each once per block).
///
/// Blocks are found through a dense position table indexed by block id (a sparse set):
/// it grows to the largest id seen below [`DENSE_BLOCK_IDS`] (4 bytes per feature,
/// allocated once; a larger id is found by a scan of the touched blocks, so that one huge
/// id cannot make the table take gigabytes) and [`clear`] resets only the touched
/// entries; each block's entry list keeps its capacity, so once warm an update allocates
/// nothing, and adding an entry costs one scan of its block's list (at most `rows x cols`
/// entries), with no hashing.
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
    /// The first entry given outside the block shape `(block, r, c)`, not added (the
    /// update is refused by [`BlockUpdate::check_against`]).
    outside: Option<(u32, usize, usize)>,
}

/// Marks a block that the current update does not touch.
const UNTOUCHED: u32 = u32::MAX;

/// The block ids a [`BlockUpdate`] finds through its dense position table (so the table
/// takes at most 64 MiB); a larger id is found by a scan of the blocks the update touches
/// (the same result, in time proportional to their number).
pub const DENSE_BLOCK_IDS: usize = 1 << 24;

/// `out` has room for `needed` values.
fn check_room(context: &'static str, needed: usize, found: usize) -> Result<()> {
    if found < needed {
        return Err(bl_core::error::build::shape_mismatch(
            context,
            format!("at least {needed} values"),
            found,
        ));
    }
    Ok(())
}

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
        crate::delta::for_each_difference(
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
            if let Some(p) = self.position.get_mut(k as usize) {
                *p = UNTOUCHED;
            }
            self.entries[i].clear();
        }
        self.blocks.clear();
        self.outside = None;
    }

    /// Adds `value` at `(r, c)` of block `k`. An entry outside the block shape (`r >=
    /// rows` or `c >= cols`) is not added, and the update is then refused by
    /// [`BlockRankOne::update`] and [`crate::SpectralRankOne::update`] until
    /// [`clear`](Self::clear).
    pub fn add(&mut self, k: u32, r: usize, c: usize, value: f64) {
        if r >= self.rows || c >= self.cols {
            self.outside.get_or_insert((k, r, c));
            return;
        }
        let k_index = k as usize;
        let dense = k_index < DENSE_BLOCK_IDS;
        let mut slot = if dense {
            if k_index >= self.position.len() {
                self.position.resize(k_index + 1, UNTOUCHED);
            }
            self.position[k_index]
        } else {
            // Fewer than 2^32 - 1 touched blocks (their ids are distinct u32 values).
            self.blocks
                .iter()
                .position(|&b| b == k)
                .map_or(UNTOUCHED, |i| i as u32)
        };
        if slot == UNTOUCHED {
            // Fewer than 2^32 - 1 blocks: ids are u32 and the feature dictionary keeps
            // fewer than u32::MAX features.
            slot = self.blocks.len() as u32;
            if dense {
                self.position[k_index] = slot;
            }
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
    ///
    /// # Panics
    /// When `i >= blocks().len()`, as slice indexing does.
    pub fn entries(&self, i: usize) -> &[(u32, f64)] {
        &self.entries[i]
    }

    /// The `i`-th touched block as a dense row-major `rows x cols` matrix in the first
    /// `rows * cols` entries of `out`.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when
    /// `i >= blocks().len()`; [`bl_core::BlError::ShapeMismatch`] when `out` has fewer than
    /// `rows * cols` entries (`out` is then untouched).
    pub fn dense_values(&self, i: usize, out: &mut [f64]) -> Result<()> {
        if i >= self.blocks.len() {
            return Err(crate::error::invalid(
                "i",
                i,
                format!("below the number of touched blocks, {}", self.blocks.len()),
            ));
        }
        let size = self.rows.saturating_mul(self.cols);
        check_room("BlockUpdate::dense_values: out", size, out.len())?;
        self.dense_values_unchecked(i, out);
        Ok(())
    }

    /// [`dense_values`](Self::dense_values) for an index and a buffer the caller
    /// guarantees.
    pub(crate) fn dense_values_unchecked(&self, i: usize, out: &mut [f64]) {
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

/// Checks the sizes of a bol state: every dimension at least 1, the buffers of `n_blocks x
/// rows` and `n_blocks x cols` values within [`bl_core::limits::buffer_len`], and the
/// entry codes of one block (`rows x cols`) within `u32`.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a zero
/// dimension or a size above those bounds.
pub(crate) fn check_dimensions(n_blocks: usize, rows: usize, cols: usize) -> Result<()> {
    if n_blocks == 0 || rows == 0 || cols == 0 {
        return Err(crate::error::invalid(
            "dimensions",
            format!("{n_blocks} blocks of {rows} x {cols}"),
            "all >= 1",
        ));
    }
    bl_core::limits::buffer_len("n_blocks x rows", &[n_blocks, rows])?;
    bl_core::limits::buffer_len("n_blocks x cols", &[n_blocks, cols])?;
    match rows.checked_mul(cols) {
        Some(size) if size <= u32::MAX as usize => Ok(()),
        _ => Err(crate::error::invalid(
            "dimensions",
            format!("blocks of {rows} x {cols}"),
            "at most 2^32 - 1 entries per block (entry codes are u32)",
        )),
    }
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
    /// block shapes differ, an entry was given outside the block shape, a block index is
    /// out of range or `steps == 0`; [`bl_core::BlError::NonFinite`] for a non-finite
    /// value.
    pub(crate) fn check_against(&self, theta: &BlockDiagonal, steps: usize) -> Result<()> {
        if self.block_shape() != (theta.block_rows(), theta.block_cols()) {
            let (r, c) = self.block_shape();
            return Err(crate::error::invalid(
                "update",
                format!("blocks of {r} x {c}"),
                "blocks of the same shape as Theta's",
            ));
        }
        if let Some((k, r, c)) = self.outside {
            return Err(crate::error::invalid(
                "update",
                format!("an entry at ({r}, {c}) of block {k}"),
                format!("entries inside blocks of {} x {}", self.rows, self.cols),
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
///
/// Stored for each block an update touched (in order of first touch; a block never
/// touched has `sigma_k = 0`, `alpha_k = beta_k = 0` and the uniform `v_k`): `sigma_k`,
/// `alpha_k = sqrt(sigma_k) u_k` and the unit `v_k` (the warm start of the next power
/// steps). `beta_k = sqrt(sigma_k) v_k` is formed when read (the same product, so the same
/// bits as a stored copy), and `u_k` is only the power steps' output. The averages keep one
/// accumulator per entry (an entry changed by `d` after `t` recorded steps adds `t d` to
/// it; the average over `T` steps is `x - acc / T`).
#[derive(Debug, Clone)]
pub struct BlockRankOne {
    theta: BlockDiagonal,
    /// `slot[k]`: the index of block `k` among the touched blocks, or [`UNTOUCHED`].
    slot: Vec<u32>,
    sigma: Vec<f64>,
    v: Vec<f64>,
    alpha: Vec<f64>,
    /// Accumulators of `alpha` and `beta`, when averaging.
    averages: Option<(Vec<f64>, Vec<f64>)>,
    steps: u64,
    /// The power steps' `u` (one block).
    u: Vec<f64>,
    /// The previous `v_k` (one block), for the averages.
    v_old: Vec<f64>,
}

impl BlockRankOne {
    /// The zero state (`Theta = 0`, `W = 0`) for `n_blocks` blocks of `rows x cols`; with
    /// `average`, running averages of `alpha` and `beta` are kept.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a zero
    /// dimension, `n_blocks` of `u32::MAX` or more, `n_blocks x rows` or `n_blocks x cols`
    /// above [`bl_core::limits::MAX_ELEMENTS`], a block of more than `u32::MAX` entries, or
    /// `n_blocks` row headers that cannot be allocated.
    pub fn new(n_blocks: usize, rows: usize, cols: usize, average: bool) -> Result<Self> {
        check_dimensions(n_blocks, rows, cols)?;
        if n_blocks >= UNTOUCHED as usize {
            return Err(crate::error::invalid(
                "n_blocks",
                n_blocks,
                "below u32::MAX",
            ));
        }
        Ok(Self {
            theta: BlockDiagonal::new(n_blocks, rows, cols, 0.0)?,
            slot: vec![UNTOUCHED; n_blocks],
            sigma: Vec::new(),
            v: Vec::new(),
            alpha: Vec::new(),
            averages: average.then(|| (Vec::new(), Vec::new())),
            steps: 0,
            u: vec![0.0; rows],
            v_old: vec![0.0; cols],
        })
    }

    /// The accumulated dual matrix `Theta`.
    pub fn theta(&self) -> &BlockDiagonal {
        &self.theta
    }

    /// Number of blocks an update touched (those with stored factors).
    pub fn n_touched(&self) -> usize {
        self.sigma.len()
    }

    /// The slot of block `k`, when touched.
    #[inline]
    fn slot_of(&self, k: usize) -> Option<usize> {
        match self.slot[k] {
            UNTOUCHED => None,
            s => Some(s as usize),
        }
    }

    /// The uniform start vector's entry.
    fn v_start(&self) -> f64 {
        1.0 / (self.theta.cols as f64).sqrt()
    }

    /// `sigma_k`, the leading singular value estimate of each block.
    pub fn sigmas(&self) -> Vec<f64> {
        (0..self.slot.len())
            .map(|k| self.slot_of(k).map_or(0.0, |s| self.sigma[s]))
            .collect()
    }

    /// The unit left vectors `u_k`, concatenated (`K x rows`): `alpha_k / sqrt(sigma_k)`,
    /// zero for a block with `sigma_k = 0`.
    pub fn u(&self) -> Vec<f64> {
        let mut u = self.alpha();
        for (u_k, sigma) in u.chunks_exact_mut(self.theta.rows).zip(self.sigmas()) {
            let root = sigma.sqrt();
            u_k.iter_mut()
                .for_each(|x| *x = if root > 0.0 { *x / root } else { 0.0 });
        }
        u
    }

    /// The unit right vectors `v_k`, concatenated (`K x cols`); a block never touched holds
    /// the uniform start vector.
    pub fn v(&self) -> Vec<f64> {
        self.dense(self.theta.cols, self.v_start(), |s, b| {
            self.v[s * self.theta.cols + b]
        })
    }

    /// `alpha` (`alpha_k = sqrt(sigma_k) u_k`), so that block `k` of `W` is
    /// `alpha_k beta_k^T`.
    pub fn alpha(&self) -> Vec<f64> {
        self.dense(self.theta.rows, 0.0, |s, a| {
            self.alpha[s * self.theta.rows + a]
        })
    }

    /// `beta` (`beta_k = sqrt(sigma_k) v_k`), formed from `sigma` and `v`.
    pub fn beta(&self) -> Vec<f64> {
        let p = self.theta.cols;
        self.dense(p, 0.0, |s, b| self.sigma[s].sqrt() * self.v[s * p + b])
    }

    /// Entry `a` of `alpha_k`.
    ///
    /// # Panics
    /// When `k >= n_blocks` or `a >= rows`, as slice indexing does.
    pub fn alpha_at(&self, k: usize, a: usize) -> f64 {
        let rows = self.theta.rows;
        assert!(
            a < rows,
            "alpha entry {a} out of range for blocks of {rows} rows"
        );
        self.slot_of(k)
            .map_or(0.0, |s| self.alpha[s * self.theta.rows + a])
    }

    /// Entry `b` of `beta_k`.
    ///
    /// # Panics
    /// When `k >= n_blocks` or `b >= cols`, as slice indexing does.
    pub fn beta_at(&self, k: usize, b: usize) -> f64 {
        let cols = self.theta.cols;
        assert!(
            b < cols,
            "beta entry {b} out of range for blocks of {cols} columns"
        );
        self.slot_of(k).map_or(0.0, |s| {
            self.sigma[s].sqrt() * self.v[s * self.theta.cols + b]
        })
    }

    /// `K x width` values: `entry(slot, j)` for a touched block, `untouched` otherwise.
    fn dense(&self, width: usize, untouched: f64, entry: impl Fn(usize, usize) -> f64) -> Vec<f64> {
        let mut out = vec![untouched; self.slot.len() * width];
        for (k, out_k) in out.chunks_exact_mut(width).enumerate() {
            if let Some(s) = self.slot_of(k) {
                for (j, o) in out_k.iter_mut().enumerate() {
                    *o = entry(s, j);
                }
            }
        }
        out
    }

    /// Writes the score table of `sentence` (without 0-order weights) into `out`: the
    /// rank-1 blocks `alpha_k beta_k^T` of its active features
    /// ([`crate::scoring::bilinear_scores`] with `beta` formed on the fly).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the
    /// table exceeds [`crate::viterbi::MAX_SCORE_TABLE`] entries
    /// ([`crate::viterbi::score_table_len`]) or the sentence reads a feature id `>=
    /// n_blocks` (encoded with another dictionary). Nothing is allocated before.
    pub fn scores(
        &self,
        sentence: &crate::features::EncodedSentence,
        out: &mut Vec<f64>,
    ) -> Result<()> {
        crate::viterbi::score_table_len(sentence.len(), self.theta.rows)?;
        sentence.check_feature_ids("sentence feature id", "n_blocks", self.slot.len())?;
        self.scores_table(sentence, out);
        Ok(())
    }

    /// [`BlockRankOne::scores`] without the checks, for the bol learner (its dictionary
    /// gives the block count, and the fit loop checks every table).
    pub(crate) fn scores_table(
        &self,
        sentence: &crate::features::EncodedSentence,
        out: &mut Vec<f64>,
    ) {
        let (l, p) = (self.theta.rows, self.theta.cols);
        crate::scoring::scaled_bilinear_scores(
            sentence,
            l,
            |k| {
                self.slot_of(k).map(|s| {
                    (
                        &self.alpha[s * l..(s + 1) * l],
                        &self.v[s * p..(s + 1) * p],
                        self.sigma[s].sqrt(),
                    )
                })
            },
            out,
        );
    }

    /// The averages of `alpha` and `beta` over the recorded steps, or `None` when averaging
    /// is off.
    pub fn averaged_alpha_beta(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let (acc_alpha, acc_beta) = self.averages.as_ref()?;
        let (l, p) = (self.theta.rows, self.theta.cols);
        let alpha = self.dense(l, 0.0, |s, a| {
            average_of(self.alpha[s * l + a], acc_alpha[s * l + a], self.steps)
        });
        let beta = self.dense(p, 0.0, |s, b| {
            let x = self.sigma[s].sqrt() * self.v[s * p + b];
            average_of(x, acc_beta[s * p + b], self.steps)
        });
        Some((alpha, beta))
    }

    /// `alpha`, `beta` to predict with, consuming the state: with `averaged` (and averages
    /// kept) the averages of [`averaged_alpha_beta`](Self::averaged_alpha_beta);
    /// otherwise [`alpha`](Self::alpha), [`beta`](Self::beta). Each part of the state is
    /// freed as soon as the model's copy of it is made.
    pub fn into_alpha_beta(mut self, averaged: bool) -> (Vec<f64>, Vec<f64>) {
        let (l, p) = (self.theta.rows, self.theta.cols);
        // Free Theta (the shape is kept by `slot`).
        self.theta = BlockDiagonal::emptied(l, p);
        let averages = if averaged { self.averages.take() } else { None };
        let (acc_alpha, acc_beta) = averages.unzip();
        let steps = self.steps;
        let alpha = self.dense(l, 0.0, |s, a| match &acc_alpha {
            Some(acc) => average_of(self.alpha[s * l + a], acc[s * l + a], steps),
            None => self.alpha[s * l + a],
        });
        drop(acc_alpha);
        self.alpha = Vec::new();
        let beta = self.dense(p, 0.0, |s, b| {
            let x = self.sigma[s].sqrt() * self.v[s * p + b];
            match &acc_beta {
                Some(acc) => average_of(x, acc[s * p + b], steps),
                None => x,
            }
        });
        (alpha, beta)
    }

    /// Ends one online step: the current `alpha`, `beta` enter the running averages.
    pub fn record_step(&mut self) {
        self.steps += 1;
    }

    /// The slot of block `k`, giving it zero factors and the uniform `v_k` on first touch.
    fn touch(&mut self, k: usize) -> usize {
        if let Some(s) = self.slot_of(k) {
            return s;
        }
        let (l, p) = (self.theta.rows, self.theta.cols);
        let s = self.sigma.len();
        self.slot[k] = s as u32;
        let start = self.v_start();
        grow(&mut self.sigma, 1, 0.0);
        grow(&mut self.v, p, start);
        grow(&mut self.alpha, l, 0.0);
        if let Some((acc_alpha, acc_beta)) = self.averages.as_mut() {
            grow(acc_alpha, l, 0.0);
            grow(acc_beta, p, 0.0);
        }
        s
    }

    /// `Theta += D`, then `steps` power steps on every block `D` touches, warm-started at
    /// the block's previous `v_k` (see the module docs). An empty `D` changes nothing.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `D`'s
    /// block shape differs from `Theta`'s, `D` was given an entry outside the block shape,
    /// a block index is out of range or `steps == 0`; `bl_core::BlError::NonFinite` (as
    /// [`crate::OblError::Core`]) when `D` has a non-finite value;
    /// `bl_core::BlError::Numerical` when the power steps meet a non-finite iterate (a
    /// `Theta` grown beyond the range of `f64`).
    pub fn update(&mut self, d: &BlockUpdate, steps: usize) -> Result<()> {
        let (l, p) = (self.theta.rows, self.theta.cols);
        d.check_against(&self.theta, steps)?;
        let t = self.steps as f64;
        for (i, &k) in d.blocks.iter().enumerate() {
            let k = k as usize;
            self.theta.add_entries(k, d.entries(i));
            let s = self.touch(k);
            let v_k = &mut self.v[s * p..(s + 1) * p];
            self.v_old.copy_from_slice(v_k);
            let old_root = self.sigma[s].sqrt();
            // The previous u_k, v_k are only needed as the warm start v_k: iterate in place.
            let sigma =
                block_power_steps(&self.theta.block_ref(k), &mut self.u, v_k, steps, 1e-14)?;
            let root = sigma.sqrt();
            self.sigma[s] = sigma;
            let alpha_k = &mut self.alpha[s * l..(s + 1) * l];
            match self.averages.as_mut() {
                Some((acc_alpha, acc_beta)) => {
                    let acc_k = &mut acc_alpha[s * l..(s + 1) * l];
                    for ((x, acc), &u) in alpha_k.iter_mut().zip(acc_k).zip(&self.u) {
                        let new = root * u;
                        *acc += t * (new - *x);
                        *x = new;
                    }
                    let acc_k = &mut acc_beta[s * p..(s + 1) * p];
                    for ((acc, &v), &v_old) in acc_k.iter_mut().zip(v_k.iter()).zip(&self.v_old) {
                        *acc += t * (root * v - old_root * v_old);
                    }
                }
                None => {
                    for (x, &u) in alpha_k.iter_mut().zip(&self.u) {
                        *x = root * u;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The raw state of a [`BlockRankOne`] (for [`crate::distributed`]): `Theta`'s stored
/// entries, and for each touched block, in increasing block id, `sigma_k`, the unit `v_k`,
/// `alpha_k` and (when averaging) their accumulators.
#[derive(Debug, Clone)]
pub(crate) struct RankOneParts {
    /// `Theta`: `n_blocks` rows of width `rows x cols`, without averaging.
    pub(crate) theta: SparseRows,
    /// The touched blocks, increasing.
    pub(crate) blocks: Vec<u32>,
    pub(crate) sigma: Vec<f64>,
    /// `blocks.len() x cols`.
    pub(crate) v: Vec<f64>,
    /// `blocks.len() x rows`.
    pub(crate) alpha: Vec<f64>,
    /// Accumulators of `alpha` (`blocks.len() x rows`) and `beta` (`blocks.len() x cols`).
    pub(crate) averages: Option<(Vec<f64>, Vec<f64>)>,
    pub(crate) steps: u64,
}

impl BlockRankOne {
    /// The state's raw parts, touched blocks in increasing id (the slot order of the
    /// state does not change a value).
    pub(crate) fn into_parts(self) -> RankOneParts {
        let (l, p) = (self.theta.rows, self.theta.cols);
        let blocks: Vec<u32> = (0..self.slot.len() as u32)
            .filter(|&k| self.slot[k as usize] != UNTOUCHED)
            .collect();
        let gather = |values: &[f64], width: usize| -> Vec<f64> {
            let mut out = Vec::with_capacity(blocks.len() * width);
            for &k in &blocks {
                let s = self.slot[k as usize] as usize;
                out.extend_from_slice(&values[s * width..(s + 1) * width]);
            }
            out
        };
        RankOneParts {
            sigma: gather(&self.sigma, 1),
            v: gather(&self.v, p),
            alpha: gather(&self.alpha, l),
            averages: self
                .averages
                .as_ref()
                .map(|(a, b)| (gather(a, l), gather(b, p))),
            steps: self.steps,
            theta: self.theta.blocks,
            blocks,
        }
    }

    /// The state of `parts` for blocks of `rows x cols`. The caller gives parts of those
    /// sizes (`theta` of width `rows x cols`, without averaging; blocks increasing and
    /// below `theta`'s row count; arrays of the lengths [`RankOneParts`] says; averages
    /// when `average`).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub(crate) fn from_parts(
        rows: usize,
        cols: usize,
        average: bool,
        parts: RankOneParts,
    ) -> Result<Self> {
        let mut state = Self::new(parts.theta.n_rows(), rows, cols, average)?;
        for (s, &k) in parts.blocks.iter().enumerate() {
            state.slot[k as usize] = s as u32;
        }
        state.theta.blocks = parts.theta;
        state.sigma = parts.sigma;
        state.v = parts.v;
        state.alpha = parts.alpha;
        state.averages = parts.averages.filter(|_| average);
        state.steps = parts.steps;
        Ok(state)
    }
}

/// The average `x - acc / T` over `steps = T` recorded steps (zero before the first).
#[inline]
fn average_of(x: f64, acc: f64, steps: u64) -> f64 {
    if steps == 0 {
        0.0
    } else {
        x - acc / steps as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Block counts and shapes beyond the limits are typed errors before any allocation:
    /// `usize::MAX` blocks used to panic with a capacity overflow (the size of a block was
    /// only saturated), `2^40` to abort on the row headers.
    #[test]
    fn new_refuses_sizes_beyond_the_limits() {
        for (n_blocks, rows, cols) in [
            (usize::MAX, 2, 3),
            (1 << 40, 1, 1),
            ((1 << 32) + 1, 1, 1),
            (1, 1 << 20, 1 << 20),
            (1, usize::MAX, 2),
            (0, 2, 3),
        ] {
            let err = BlockDiagonal::new(n_blocks, rows, cols, 0.0).unwrap_err();
            assert!(err.to_string().len() < 400, "{err}");
        }
        let theta = BlockDiagonal::new(4, 2, 3, 0.5).unwrap();
        assert_eq!((theta.n_blocks(), theta.get(3, 1, 2)), (4, 0.5));
    }
}
