//! Sparse matrix-feature weights: per feature `k`, only the `(previous tag, tag)` cells that
//! training touched.
//!
//! A cell of feature `k` is addressed by its *code* `b * L + a` (previous state `b` in
//! `0..=L`, `L` being the start state; current tag `a` in `0..L`), which is also its offset
//! in one position's `(L + 1) x L` block of the Viterbi score table
//! ([`crate::viterbi::score_index`]). Codes below `L * L` are read after a tag, codes from
//! `L * L` on only at the first position.
//!
//! [`SparseRows`] is the training store: per feature a sorted list of codes with their
//! weights, grown when an update first touches a cell (the structured perceptron only ever
//! touches the cells of gold transitions and of the transitions of wrong predictions), and,
//! with averaging, one accumulator per stored weight (the lazy-timestamp trick: an update
//! `d` made after `t` recorded steps adds `t d` to the accumulator, so the average over `T`
//! steps is `w - acc / T`). [`SparseWeights`] is the compressed (CSR) form a fitted model
//! keeps and saves.

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// One feature's cells during training (sorted by code).
#[derive(Debug, Clone, Default)]
struct Row {
    codes: Vec<u32>,
    w: Vec<f64>,
    acc: Vec<f64>,
}

/// The training store of sparse matrix-feature weights (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct SparseRows {
    width: usize,
    rows: Vec<Row>,
    averaging: bool,
    steps: u64,
}

impl SparseRows {
    /// No cell yet, for `n_rows` features and codes below `width`.
    pub(crate) fn new(n_rows: usize, width: usize, averaging: bool) -> Self {
        Self {
            width,
            rows: vec![Row::default(); n_rows],
            averaging,
            steps: 0,
        }
    }

    /// `w[k, code] += value`, creating the cell on first touch.
    #[inline]
    pub(crate) fn add(&mut self, k: usize, code: u32, value: f64) {
        let t = self.steps as f64;
        let row = &mut self.rows[k];
        match row.codes.binary_search(&code) {
            Ok(i) => {
                row.w[i] += value;
                if self.averaging {
                    row.acc[i] += t * value;
                }
            }
            Err(i) => {
                row.codes.insert(i, code);
                row.w.insert(i, value);
                if self.averaging {
                    row.acc.insert(i, t * value);
                }
            }
        }
    }

    /// Ends one online step (for the averages).
    #[inline]
    pub(crate) fn record(&mut self) {
        self.steps += 1;
    }

    /// The current cells of feature `k`: codes and weights.
    #[inline]
    pub(crate) fn row(&self, k: usize) -> (&[u32], &[f64]) {
        let row = &self.rows[k];
        (&row.codes, &row.w)
    }

    /// The current weight of cell `code` of feature `k` (0 when not stored).
    #[inline]
    pub(crate) fn get(&self, k: usize, code: u32) -> f64 {
        let row = &self.rows[k];
        row.codes.binary_search(&code).map_or(0.0, |i| row.w[i])
    }

    /// [`snapshot`](Self::snapshot) with every cell: `K x width`, row-major.
    pub(crate) fn snapshot_dense(&self) -> Vec<f64> {
        self.snapshot().to_dense()
    }

    /// Number of stored cells.
    pub(crate) fn nnz(&self) -> usize {
        self.rows.iter().map(|r| r.codes.len()).sum()
    }

    /// The weights to predict with: the averages over the recorded steps when averaging
    /// (zero before the first step), the current weights otherwise.
    pub(crate) fn snapshot(&self) -> SparseWeights {
        let nnz = self.nnz();
        let mut out = SparseWeights {
            width: self.width,
            offsets: Vec::with_capacity(self.rows.len() + 1),
            codes: Vec::with_capacity(nnz),
            values: Vec::with_capacity(nnz),
        };
        out.offsets.push(0);
        let t = self.steps as f64;
        for row in &self.rows {
            out.codes.extend_from_slice(&row.codes);
            if !self.averaging {
                out.values.extend_from_slice(&row.w);
            } else if self.steps == 0 {
                out.values.extend(std::iter::repeat_n(0.0, row.w.len()));
            } else {
                out.values
                    .extend(row.w.iter().zip(&row.acc).map(|(w, acc)| w - acc / t));
            }
            out.offsets.push(out.codes.len());
        }
        out
    }
}

/// Sparse matrix-feature weights of a fitted model, compressed by rows: feature `k`'s cells
/// are `codes[offsets[k]..offsets[k + 1]]` (strictly increasing, each below `width`) with
/// `values` alongside (see the [module docs](self) for the codes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparseWeights {
    width: usize,
    offsets: Vec<usize>,
    codes: Vec<u32>,
    values: Vec<f64>,
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

    /// The cells of feature `k` (`k < n_rows`): codes and values.
    #[inline]
    pub fn row(&self, k: usize) -> (&[u32], &[f64]) {
        let range = self.offsets[k]..self.offsets[k + 1];
        (&self.codes[range.clone()], &self.values[range])
    }

    /// The weight of cell `code` of feature `k` (0 when not stored).
    pub fn get(&self, k: usize, code: u32) -> f64 {
        let (codes, values) = self.row(k);
        codes.binary_search(&code).map_or(0.0, |i| values[i])
    }

    /// The same weights with every cell stored: `K x width`, row-major.
    pub fn to_dense(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.n_rows() * self.width];
        for k in 0..self.n_rows() {
            let (codes, values) = self.row(k);
            for (&c, &v) in codes.iter().zip(values) {
                out[k * self.width + c as usize] = v;
            }
        }
        out
    }

    /// Bytes held by the weights (the model's own size).
    pub fn heap_bytes(&self) -> usize {
        self.offsets.len() * std::mem::size_of::<usize>()
            + self.codes.len() * std::mem::size_of::<u32>()
            + self.values.len() * std::mem::size_of::<f64>()
    }

    /// Checks the structure of weights read from outside (a saved model): `n_rows` rows,
    /// offsets from 0 to the cell count and non-decreasing, codes strictly increasing in
    /// each row and below `width`, values finite.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] or [`bl_core::BlError::InvalidParameter`] (in
    /// [`crate::OblError::Core`]) naming the first fault; `NonFinite` for a value.
    pub(crate) fn validate(&self, field: &'static str, n_rows: usize, width: usize) -> Result<()> {
        use crate::error::{invalid, shape};
        if self.width != width {
            return Err(shape(field, format!("width {width}"), self.width));
        }
        if self.offsets.len() != n_rows + 1 {
            return Err(shape(
                field,
                format!("{} offsets", n_rows + 1),
                self.offsets.len(),
            ));
        }
        if self.codes.len() != self.values.len() {
            return Err(shape(field, self.codes.len(), self.values.len()));
        }
        if self.offsets[0] != 0
            || self.offsets[n_rows] != self.codes.len()
            || self.offsets.windows(2).any(|w| w[0] > w[1])
        {
            return Err(invalid(
                field,
                "offsets",
                "non-decreasing from 0 to the number of cells",
            ));
        }
        for k in 0..n_rows {
            let (codes, _) = self.row(k);
            if codes.windows(2).any(|w| w[0] >= w[1])
                || codes.last().is_some_and(|&c| c as usize >= width)
            {
                return Err(invalid(
                    field,
                    format!("row {k}"),
                    "strictly increasing codes below the width",
                ));
            }
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
        let mut rows = SparseRows::new(n_rows, width, true);
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
        let averaged = rows.snapshot().to_dense();
        for (a, s) in averaged.iter().zip(&sum) {
            assert!((a - s / 40.0).abs() < 1e-12, "{a} vs {}", s / 40.0);
        }
        let mut plain = SparseRows::new(n_rows, width, false);
        plain.add(1, 4, 2.0);
        plain.add(1, 0, -1.0);
        plain.add(1, 4, 0.5);
        let snap = plain.snapshot();
        assert_eq!(snap.row(1), (&[0_u32, 4][..], &[-1.0, 2.5][..]));
        assert_eq!(snap.get(0, 3), 0.0);
        assert!(snap.validate("w", n_rows, width).is_ok());
        assert!(snap.validate("w", n_rows, width - 2).is_err());
    }
}
