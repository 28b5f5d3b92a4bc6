//! Sparse matrix-feature weights: per feature `k`, only the `(previous tag, tag)` cells that
//! training touched.
//!
//! A cell of feature `k` is addressed by its *code* `b * L + a` (previous state `b` in
//! `0..=L`, `L` being the start state; current tag `a` in `0..L`), which is also its offset
//! in one position's `(L + 1) x L` block of the Viterbi score table
//! ([`crate::viterbi::score_index`]). Codes below `L * L` are read after a tag, codes from
//! `L * L` on only at the first position.
//!
//! `SparseRows` is the training store: per feature a sorted list of codes with their
//! weights, grown when an update first touches a cell (the structured perceptron only ever
//! touches the cells of gold transitions and of the transitions of wrong predictions), and,
//! with averaging, one accumulator per stored weight (the lazy-timestamp trick: an update
//! `d` made after `t` recorded steps adds `t d` to the accumulator, so the average over `T`
//! steps is `w - acc / T`). [`SparseWeights`] is the compressed (CSR) form a fitted model
//! keeps and saves.

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// The training store of sparse matrix-feature weights (see the module docs).
///
/// All rows live in one arena (three parallel arrays: codes, weights, accumulators): row
/// `k` holds `len[k]` sorted cells at `start[k]`, in a region of `capacity(len[k])` cells
/// (exact up to 4 cells, then growing by half). A cell added to a full row moves the row
/// to the end of the arena and leaves its old region as a hole; when the holes exceed an
/// eighth of the arena and an eighth of the row count, the rows are slid together (in
/// arena order, in place). The arena
/// grows by an eighth when full. So the store holds its cells with little slack, without
/// the header and minimum capacity of one `Vec` per row, and allocates nothing once every
/// cell exists.
#[derive(Debug, Clone)]
pub(crate) struct SparseRows {
    width: usize,
    averaging: bool,
    steps: u64,
    start: Vec<usize>,
    len: Vec<u32>,
    codes: Vec<u32>,
    w: Vec<f64>,
    /// Empty without averaging.
    acc: Vec<f64>,
    /// Cells of the arena that belong to no row.
    holes: usize,
}

/// Cells reserved for a row of `len` cells.
#[inline]
fn capacity(len: usize) -> usize {
    let mut cap = len.min(4);
    while cap < len {
        cap += cap / 2;
    }
    cap
}

/// Grows `v` by `extra` values `fill`, reserving an eighth more when it is full.
#[inline]
pub(crate) fn grow<T: Copy>(v: &mut Vec<T>, extra: usize, fill: T) {
    if v.len() + extra > v.capacity() {
        v.reserve_exact(extra.max(v.capacity() / 8));
    }
    v.resize(v.len() + extra, fill);
}

impl SparseRows {
    /// No cell yet, for `n_rows` features and codes below `width`.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when
    /// `width` exceeds `u32::MAX + 1` (codes are `u32`), or the `n_rows` row headers exceed
    /// [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated.
    pub(crate) fn new(n_rows: usize, width: usize, averaging: bool) -> Result<Self> {
        if width > u32::MAX as usize + 1 {
            return Err(crate::error::invalid(
                "width (codes per row)",
                width,
                format!("at most {} (codes are u32)", u32::MAX as usize + 1),
            ));
        }
        Ok(Self {
            width,
            averaging,
            steps: 0,
            start: bl_core::limits::try_zeroed("n_rows (row starts)", &[n_rows])?,
            len: bl_core::limits::try_zeroed("n_rows (row lengths)", &[n_rows])?,
            codes: Vec::new(),
            w: Vec::new(),
            acc: Vec::new(),
            holes: 0,
        })
    }

    /// No row and no cell (a freed store).
    pub(crate) fn empty() -> Self {
        Self {
            width: 0,
            averaging: false,
            steps: 0,
            start: Vec::new(),
            len: Vec::new(),
            codes: Vec::new(),
            w: Vec::new(),
            acc: Vec::new(),
            holes: 0,
        }
    }

    /// `w[k, code] += value`, creating the cell on first touch.
    #[inline]
    pub(crate) fn add(&mut self, k: usize, code: u32, value: f64) {
        let t = self.steps as f64;
        let (s, n) = (self.start[k], self.len[k] as usize);
        match self.codes[s..s + n].binary_search(&code) {
            Ok(i) => {
                self.w[s + i] += value;
                if self.averaging {
                    self.acc[s + i] += t * value;
                }
            }
            Err(i) => self.insert(k, i, code, value, t * value),
        }
    }

    /// `w[k, code] += value`, a new cell starting at `prior` (`prior + value`); without
    /// averaging.
    #[inline]
    pub(crate) fn add_from(&mut self, k: usize, code: u32, value: f64, prior: f64) {
        let (s, n) = (self.start[k], self.len[k] as usize);
        match self.codes[s..s + n].binary_search(&code) {
            Ok(i) => self.w[s + i] += value,
            Err(i) => self.insert(k, i, code, prior + value, 0.0),
        }
    }

    /// Number of rows with at least one cell.
    pub(crate) fn n_nonempty(&self) -> usize {
        self.len.iter().filter(|&&n| n > 0).count()
    }

    /// Inserts a cell at index `i` of row `k`.
    fn insert(&mut self, k: usize, i: usize, code: u32, value: f64, acc: f64) {
        let (mut s, n) = (self.start[k], self.len[k] as usize);
        if n == capacity(n) {
            // Full: move the row to the end of the arena.
            let (cap, to) = (capacity(n + 1), self.codes.len());
            grow(&mut self.codes, cap, 0);
            grow(&mut self.w, cap, 0.0);
            self.codes.copy_within(s..s + n, to);
            self.w.copy_within(s..s + n, to);
            if self.averaging {
                grow(&mut self.acc, cap, 0.0);
                self.acc.copy_within(s..s + n, to);
            }
            self.holes += n;
            s = to;
            self.start[k] = s;
        }
        self.codes.copy_within(s + i..s + n, s + i + 1);
        self.w.copy_within(s + i..s + n, s + i + 1);
        self.codes[s + i] = code;
        self.w[s + i] = value;
        if self.averaging {
            self.acc.copy_within(s + i..s + n, s + i + 1);
            self.acc[s + i] = acc;
        }
        self.len[k] += 1;
        // Both bounds keep the compactions' cost (O(rows) each) amortized.
        if self.holes > self.codes.len() / 8 && self.holes > self.len.len() / 8 {
            self.compact();
        }
    }

    /// Slides the rows together in arena order, removing the holes.
    fn compact(&mut self) {
        let mut order: Vec<u32> = (0..self.len.len() as u32)
            .filter(|&k| self.len[k as usize] > 0)
            .collect();
        order.sort_unstable_by_key(|&k| self.start[k as usize]);
        let mut to = 0;
        for &k in &order {
            let k = k as usize;
            let (s, n) = (self.start[k], self.len[k] as usize);
            self.codes.copy_within(s..s + n, to);
            self.w.copy_within(s..s + n, to);
            if self.averaging {
                self.acc.copy_within(s..s + n, to);
            }
            self.start[k] = to;
            to += capacity(n);
        }
        self.codes.truncate(to);
        self.w.truncate(to);
        if self.averaging {
            self.acc.truncate(to);
        }
        self.holes = 0;
    }

    /// Ends one online step (for the averages).
    #[inline]
    pub(crate) fn record(&mut self) {
        self.steps += 1;
    }

    /// The current cells of feature `k`: codes and weights.
    #[inline]
    pub(crate) fn row(&self, k: usize) -> (&[u32], &[f64]) {
        let (s, n) = (self.start[k], self.len[k] as usize);
        (&self.codes[s..s + n], &self.w[s..s + n])
    }

    /// The current weight of cell `code` of feature `k` (0 when not stored).
    #[inline]
    pub(crate) fn get(&self, k: usize, code: u32) -> f64 {
        let (codes, w) = self.row(k);
        codes.binary_search(&code).map_or(0.0, |i| w[i])
    }

    /// Number of rows.
    pub(crate) fn n_rows(&self) -> usize {
        self.len.len()
    }

    /// Number of stored cells.
    pub(crate) fn nnz(&self) -> usize {
        self.len.iter().map(|&n| n as usize).sum()
    }

    /// The weight to predict with of the cell at arena index `j`.
    #[inline]
    fn value(&self, j: usize) -> f64 {
        if !self.averaging {
            self.w[j]
        } else if self.steps == 0 {
            0.0
        } else {
            self.w[j] - self.acc[j] / self.steps as f64
        }
    }

    /// The weights to predict with: the averages over the recorded steps when averaging
    /// (zero before the first step), the current weights otherwise.
    pub(crate) fn snapshot(&self) -> SparseWeights {
        let nnz = self.nnz();
        let mut out = SparseWeights {
            width: self.width,
            offsets: Vec::with_capacity(self.len.len() + 1),
            codes: Vec::with_capacity(nnz),
            values: Vec::with_capacity(nnz),
        };
        out.offsets.push(0);
        for (&s, &n) in self.start.iter().zip(&self.len) {
            let range = s..s + n as usize;
            out.codes.extend_from_slice(&self.codes[range.clone()]);
            out.values.extend(range.map(|j| self.value(j)));
            out.offsets.push(out.codes.len());
        }
        out
    }

    /// [`snapshot`](Self::snapshot), consuming the store: the weights to predict with are
    /// formed in place and the accumulators freed before the copy is made.
    pub(crate) fn into_snapshot(mut self) -> SparseWeights {
        self.finish_in_place();
        self.snapshot()
    }

    /// [`snapshot_dense`](Self::snapshot_dense), consuming the store as
    /// [`into_snapshot`](Self::into_snapshot) does.
    pub(crate) fn into_snapshot_dense(mut self) -> Vec<f64> {
        self.finish_in_place();
        self.snapshot_dense()
    }

    /// Replaces every stored weight by its [`value`](Self::value) and frees the
    /// accumulators (the store no longer averages; the same arithmetic as `value`).
    fn finish_in_place(&mut self) {
        if self.averaging {
            for j in 0..self.w.len() {
                self.w[j] = self.value(j);
            }
            self.acc = Vec::new();
            self.averaging = false;
        }
    }

    /// [`snapshot`](Self::snapshot) with every cell: `K x width`, row-major.
    pub(crate) fn snapshot_dense(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.len.len() * self.width];
        for (k, (&s, &n)) in self.start.iter().zip(&self.len).enumerate() {
            for j in s..s + n as usize {
                out[k * self.width + self.codes[j] as usize] = self.value(j);
            }
        }
        out
    }
}

/// The raw parts of a [`SparseRows`] store (for [`crate::distributed`]): width, whether it
/// averages, the recorded steps, and per row its codes, weights and accumulators.
impl SparseRows {
    /// Codes are below this.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Whether the store keeps averaging accumulators.
    pub(crate) fn averaging(&self) -> bool {
        self.averaging
    }

    /// The recorded steps `T`.
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// The accumulators of row `k` (empty without averaging), alongside [`row`](Self::row).
    #[inline]
    pub(crate) fn row_acc(&self, k: usize) -> &[f64] {
        if !self.averaging {
            return &[];
        }
        let (s, n) = (self.start[k], self.len[k] as usize);
        &self.acc[s..s + n]
    }

    /// A store of `n_rows` rows of codes below `width` after `steps` recorded steps, with
    /// the cells `add(k, codes, weights, accumulators)` calls `fill` gives, row by row in
    /// increasing `k` (accumulators ignored without averaging). The caller gives sorted,
    /// distinct codes below `width` and rows below `n_rows` in increasing order.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub(crate) fn from_rows(
        n_rows: usize,
        width: usize,
        averaging: bool,
        steps: u64,
        fill: impl FnOnce(&mut dyn FnMut(usize, &[u32], &[f64], &[f64])),
    ) -> Result<Self> {
        let mut out = Self::new(n_rows, width, averaging)?;
        out.steps = steps;
        fill(&mut |k: usize, codes: &[u32], w: &[f64], acc: &[f64]| {
            let (n, to) = (codes.len(), out.codes.len());
            let cap = capacity(n);
            grow(&mut out.codes, cap, 0);
            grow(&mut out.w, cap, 0.0);
            out.codes[to..to + n].copy_from_slice(codes);
            out.w[to..to + n].copy_from_slice(w);
            if out.averaging {
                grow(&mut out.acc, cap, 0.0);
                out.acc[to..to + n].copy_from_slice(&acc[..n]);
            }
            out.start[k] = to;
            out.len[k] = n as u32;
        });
        Ok(out)
    }
}

impl SparseWeights {
    /// Divides every stored value by `divisor` (for [`crate::distributed`]: sp's mixed
    /// weights are kept multiplied by the number of shards).
    pub(crate) fn divide_values(&mut self, divisor: f64) {
        self.values.iter_mut().for_each(|v| *v /= divisor);
    }
}

/// Sparse matrix-feature weights of a fitted model, compressed by rows: feature `k`'s cells
/// are `codes[offsets[k]..offsets[k + 1]]` (strictly increasing, each below `width`) with
/// `values` alongside (see the [module docs](self) for the codes).
///
/// Deserializing checks the structure the methods index by, and refuses a value whose
/// `width` exceeds `2^32` (codes are `u32`), whose `offsets` are not non-decreasing from 0
/// to the number of codes, whose `values` are not one per code or not finite, or whose
/// codes are not strictly increasing in each row and below `width`; the error names the
/// field (`SparseWeights.offsets`, ...). A model's loader
/// ([`FittedTagger::from_json`](crate::FittedTagger::from_json)) then checks the row count
/// and width against the model's features and tags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSparseWeights")]
pub struct SparseWeights {
    width: usize,
    offsets: Vec<usize>,
    codes: Vec<u32>,
    values: Vec<f64>,
}

/// The serialized form of [`SparseWeights`], checked by its `TryFrom` on the way in.
#[derive(Deserialize)]
struct RawSparseWeights {
    width: usize,
    offsets: Vec<usize>,
    codes: Vec<u32>,
    values: Vec<f64>,
}

/// The widest rows: codes are `u32`, so none reaches a larger width.
const MAX_WIDTH: usize = u32::MAX as usize + 1;

impl TryFrom<RawSparseWeights> for SparseWeights {
    type Error = crate::error::OblError;

    /// Checks the width, the offsets, the number of values, each row's codes, then the
    /// values' finiteness, each in one pass over what was read (nothing is allocated but
    /// an error's message).
    fn try_from(raw: RawSparseWeights) -> Result<Self> {
        use crate::error::invalid;
        let RawSparseWeights {
            width,
            offsets,
            codes,
            values,
        } = raw;
        if width > MAX_WIDTH {
            return Err(invalid(
                "SparseWeights.width",
                width,
                format!("at most {MAX_WIDTH} (codes are u32)"),
            ));
        }
        let n = codes.len();
        if offsets.first() != Some(&0) {
            return Err(invalid(
                "SparseWeights.offsets",
                offsets
                    .first()
                    .map_or("no offset".to_string(), |o| format!("first offset {o}")),
                format!("non-decreasing offsets starting at 0 and ending at {n} (the codes)"),
            ));
        }
        if let Some(k) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(invalid(
                "SparseWeights.offsets",
                format!(
                    "offset {k} = {} above offset {} = {}",
                    offsets[k],
                    k + 1,
                    offsets[k + 1]
                ),
                "non-decreasing",
            ));
        }
        if let Some(&last) = offsets.last().filter(|&&last| last != n) {
            return Err(invalid(
                "SparseWeights.offsets",
                format!("last offset {last}"),
                format!("ending at {n} (the number of codes)"),
            ));
        }
        if values.len() != n {
            return Err(invalid(
                "SparseWeights.values",
                format!("{} values for {n} codes", values.len()),
                "one per code",
            ));
        }
        for (k, w) in offsets.windows(2).enumerate() {
            let row = &codes[w[0]..w[1]];
            if let Some(j) = row.windows(2).position(|c| c[0] >= c[1]) {
                return Err(invalid(
                    "SparseWeights.codes",
                    format!("row {k}: code {} then {}", row[j], row[j + 1]),
                    "strictly increasing in each row",
                ));
            }
            if let Some(&c) = row.last().filter(|&&c| c as usize >= width) {
                return Err(invalid(
                    "SparseWeights.codes",
                    format!("row {k}: code {c}"),
                    format!("below the width {width}"),
                ));
            }
        }
        bl_core::error::ensure_finite("SparseWeights.values", &values)?;
        Ok(Self {
            width,
            offsets,
            codes,
            values,
        })
    }
}

impl SparseWeights {
    /// Number of features (rows).
    pub fn n_rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Codes are below this (`(L + 1) L` for `L` tags).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of stored cells.
    pub fn nnz(&self) -> usize {
        self.codes.len()
    }

    /// The cells of feature `k`: codes and values.
    ///
    /// # Panics
    /// When `k >= n_rows()`, as slice indexing does.
    #[inline]
    pub fn row(&self, k: usize) -> (&[u32], &[f64]) {
        let range = self.offsets[k]..self.offsets[k + 1];
        (&self.codes[range.clone()], &self.values[range])
    }

    /// The weight of cell `code` of feature `k` (0 when not stored, and for a `code` at or
    /// past the width).
    ///
    /// # Panics
    /// When `k >= n_rows()`, as slice indexing does.
    pub fn get(&self, k: usize, code: u32) -> f64 {
        let (codes, values) = self.row(k);
        codes.binary_search(&code).map_or(0.0, |i| values[i])
    }

    /// The same weights with every cell stored: `K x width`, row-major.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when the
    /// `K x width` values exceed [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated
    /// (checked before allocating: weights of a few rows may be wide).
    pub fn to_dense(&self) -> Result<Vec<f64>> {
        let mut out: Vec<f64> = bl_core::limits::try_zeroed(
            "SparseWeights::to_dense (rows x width)",
            &[self.n_rows(), self.width],
        )?;
        for k in 0..self.n_rows() {
            let (codes, values) = self.row(k);
            for (&c, &v) in codes.iter().zip(values) {
                out[k * self.width + c as usize] = v;
            }
        }
        Ok(out)
    }

    /// Bytes held by the weights (the model's own size).
    pub fn heap_bytes(&self) -> usize {
        self.offsets.len() * std::mem::size_of::<usize>()
            + self.codes.len() * std::mem::size_of::<u32>()
            + self.values.len() * std::mem::size_of::<f64>()
    }

    /// Checks weights handed to a model (a saved model's, a learner's) against the model:
    /// `n_rows` rows of `width` codes, and finite values (the structure holds for every
    /// value: deserializing checks it, and the crate builds no other; a learner's arithmetic
    /// can still overflow to infinity).
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::OblError::Core`]) for another width
    /// or row count; `NonFinite` for a value.
    pub(crate) fn validate(&self, field: &'static str, n_rows: usize, width: usize) -> Result<()> {
        use crate::error::shape;
        if self.width != width {
            return Err(shape(field, format!("width {width}"), self.width));
        }
        if self.n_rows() != n_rows {
            return Err(shape(field, format!("{n_rows} rows"), self.n_rows()));
        }
        bl_core::error::ensure_finite(field, &self.values)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lazy average equals the average of the weights recorded after every step,
    /// computed by brute force.
    #[test]
    fn lazy_average_matches_brute_force() {
        let (n_rows, width) = (3, 5);
        let mut rows = SparseRows::new(n_rows, width, true).unwrap();
        let mut dense = vec![0.0; n_rows * width];
        let mut sum = vec![0.0; n_rows * width];
        for step in 0..40_u32 {
            if step % 3 != 1 {
                let k = (step as usize * 7) % n_rows;
                let code = (step * 5 + 2) % width as u32;
                let value = f64::from(step % 4) - 1.5;
                rows.add(k, code, value);
                dense[k * width + code as usize] += value;
            }
            rows.record();
            for (s, d) in sum.iter_mut().zip(&dense) {
                *s += d;
            }
        }
        let averaged = rows.snapshot().to_dense().unwrap();
        for (a, s) in averaged.iter().zip(&sum) {
            assert!((a - s / 40.0).abs() < 1e-12, "{a} vs {}", s / 40.0);
        }
        let mut plain = SparseRows::new(n_rows, width, false).unwrap();
        plain.add(1, 4, 2.0);
        plain.add(1, 0, -1.0);
        plain.add(1, 4, 0.5);
        let snap = plain.snapshot();
        assert_eq!(snap.row(1), (&[0_u32, 4][..], &[-1.0, 2.5][..]));
        assert_eq!(snap.get(0, 3), 0.0);
        assert!(snap.validate("w", n_rows, width).is_ok());
        assert!(snap.validate("w", n_rows, width - 2).is_err());
    }

    /// Row counts and widths beyond the limits are typed errors before any allocation
    /// (`usize::MAX` rows used to panic with a capacity overflow, `2^40` to abort).
    #[test]
    fn new_refuses_sizes_beyond_the_limits() {
        for (n_rows, width) in [
            (usize::MAX, 1),
            (1 << 40, 1),
            ((1 << 32) + 1, 1),
            (1, usize::MAX),
            (1, u32::MAX as usize + 2),
        ] {
            let err = SparseRows::new(n_rows, width, false).unwrap_err();
            assert!(
                err.to_string().contains("n_rows") || err.to_string().contains("width"),
                "{err}"
            );
        }
        assert_eq!(
            SparseRows::new(3, u32::MAX as usize + 1, true)
                .unwrap()
                .n_rows(),
            3
        );
    }

    /// Many rows filled in a scattered order (moving rows and compacting the arena many
    /// times) keep every cell: the weights, the averages and the dense snapshot equal
    /// those of a dense array updated alongside.
    #[test]
    fn the_arena_keeps_every_cell_through_moves_and_compactions() {
        let (n_rows, width) = (50, 30);
        for averaging in [false, true] {
            let mut rows = SparseRows::new(n_rows, width, averaging).unwrap();
            let mut dense = vec![0.0; n_rows * width];
            let mut sum = vec![0.0; n_rows * width];
            let mut moved = 0;
            for step in 0..3000_usize {
                let k = (step * 7919 + step / 13) % n_rows;
                let code = ((step * 104_729) % 997 % width) as u32;
                let value = ((step % 11) as f64 - 5.0) / 4.0;
                let before = rows.start[k];
                rows.add(k, code, value);
                moved += usize::from(rows.start[k] != before);
                dense[k * width + code as usize] += value;
                rows.record();
                for (s, d) in sum.iter_mut().zip(&dense) {
                    *s += d;
                }
                if step % 500 == 0 {
                    for r in 0..n_rows {
                        let (codes, _) = rows.row(r);
                        assert!(codes.windows(2).all(|w| w[0] < w[1]));
                        for c in 0..width as u32 {
                            assert_eq!(rows.get(r, c), dense[r * width + c as usize]);
                        }
                    }
                }
            }
            assert!(moved > 100, "{moved} moves");
            let want: Vec<f64> = if averaging {
                sum.iter().map(|s| s / 3000.0).collect()
            } else {
                dense.clone()
            };
            let snap = rows.snapshot();
            assert!(snap.validate("w", n_rows, width).is_ok());
            assert_eq!(snap.to_dense().unwrap(), rows.snapshot_dense());
            for (got, want) in snap.to_dense().unwrap().iter().zip(&want) {
                assert!((got - want).abs() < 1e-9, "{got} vs {want}");
            }
            assert!(
                rows.codes.len() <= 2 * rows.nnz() + n_rows,
                "arena {}",
                rows.codes.len()
            );
        }
    }
}
