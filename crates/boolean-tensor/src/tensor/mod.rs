//! Dense order-3 tensors with an observation mask; Kolda–Bader unfolding and refolding;
//! mode-n products; the Khatri–Rao product; CP-form reconstruction.
//!
//! # Layout and the Kolda–Bader convention
//!
//! A tensor of shape `(d0, d1, d2)` stores entry `(i, j, k)` at
//! `i + d0 (j + d1 k)` (mode 0 fastest, "column-major" like faer). The mode-`n`
//! unfolding `X_(n)` (Kolda & Bader, *Tensor decompositions and applications*, SIAM
//! Review 2009, Sec. 2.4) has `d_n` rows; entry `(i_0, i_1, i_2)` goes to row `i_n` and
//! column `sum_{m != n} i_m J_m` with `J_m = prod_{l < m, l != n} d_l`:
//!
//! | mode | `X_(n)` shape | column of `(i, j, k)` |
//! |---|---|---|
//! | 0 | `d0 x d1 d2` | `j + d1 k` |
//! | 1 | `d1 x d0 d2` | `i + d0 k` |
//! | 2 | `d2 x d0 d1` | `i + d0 j` |
//!
//! With this layout `X_(0)` is the data itself and `X_(2)^T` is the data viewed as a
//! `d0 d1 x d2` matrix; only `X_(1)` needs a copy. For a rank-1 tensor
//! `a (x) b (x) c`, `X_(0) = a (c (.) b)^T`, `X_(1) = b (c (.) a)^T`,
//! `X_(2) = c (b (.) a)^T`, with `(.)` the Khatri–Rao product ([`khatri_rao`]).

use faer::{Mat, MatRef, Par};

mod products;
mod unfold;

pub(crate) use products::{cp_entry, cp_reconstruct_into};
pub use products::{cp_to_tensor, khatri_rao};
pub(crate) use unfold::{
    mode_product_into, refold_into, unfold_into, unfolded_position, unfolded_shape, unfolded_view,
};

use crate::error::{Result, TensorError};
use bl_core::error::build::shape_mismatch;

/// A dense 3-way tensor of `f64` with an optional observation mask.
///
/// Entries marked missing by the mask hold `0.0`: every constructor stores it whatever value
/// it is given there, and the one mutation, [`Tensor::map_observed`], writes observed
/// entries only. The fits rely on it (they read the missing entries as `0.0`), so a value
/// given at a missing entry never influences a fit (the loss of every method is
/// `1/2 ||P_Omega(X - W)||_F^2`, eqs. (2)–(3) of Chang et al.).
///
/// ```
/// use boolean_tensor::Tensor;
/// let x = Tensor::from_fn([2, 3, 4], |i, j, k| (i + 10 * j + 100 * k) as f64)?;
/// assert_eq!(x.get(1, 2, 3), 321.0);
/// let x1 = x.unfold(1)?; // 3 x 8, column i + 2 k
/// assert_eq!(x1[(2, 1 + 2 * 3)], 321.0);
/// assert_eq!(Tensor::refold(1, x1.as_ref(), [2, 3, 4])?, x);
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    shape: [usize; 3],
    data: Vec<f64>,
    mask: Option<Vec<bool>>,
    n_observed: usize,
}

/// The number of entries of `shape`, after checking that no mode is empty and that the
/// entries, as `f64`, fit in the address space (so no size computation overflows). A
/// tensor allocated from a shape (rather than from given data) is also bounded by
/// [`bl_core::limits::MAX_ELEMENTS`], in [`try_zeros`].
pub(crate) fn check_shape(shape: [usize; 3]) -> Result<usize> {
    if let Some(mode) = shape.iter().position(|&d| d == 0) {
        return Err(TensorError::EmptyMode { mode, shape });
    }
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize / 8)
        .ok_or_else(|| too_large("tensor shape", format!("{shape:?}")))
}

fn too_large(what: &'static str, found: String) -> TensorError {
    shape_mismatch(
        what,
        format!(
            "a size of at most {} f64 entries (bl_core::limits::MAX_ELEMENTS) that fits in memory",
            bl_core::limits::MAX_ELEMENTS
        ),
        found,
    )
}

/// `n` zeros, or a typed error when `n` exceeds [`bl_core::limits::MAX_ELEMENTS`] or the
/// memory is refused (instead of an abort).
pub(crate) fn try_zeros(n: usize, what: &'static str) -> Result<Vec<f64>> {
    if n > bl_core::limits::MAX_ELEMENTS {
        return Err(too_large(what, format!("{n} entries")));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| too_large(what, format!("{n} entries")))?;
    v.resize(n, 0.0);
    Ok(v)
}

/// Checks that an `rows x cols` matrix of `f64` can be allocated (at most
/// [`bl_core::limits::MAX_ELEMENTS`] entries), by reserving and releasing it, so that
/// faer's allocation that follows cannot abort on a refused size.
fn check_matrix_size(rows: usize, cols: usize, what: &'static str) -> Result<()> {
    let n = rows
        .checked_mul(cols)
        .filter(|&n| n <= bl_core::limits::MAX_ELEMENTS)
        .ok_or_else(|| too_large(what, format!("{rows} x {cols}")))?;
    let mut probe: Vec<f64> = Vec::new();
    probe
        .try_reserve_exact(n)
        .map_err(|_| too_large(what, format!("{rows} x {cols}")))?;
    Ok(())
}

pub(crate) fn check_mode(mode: usize) -> Result<()> {
    if mode < 3 {
        Ok(())
    } else {
        Err(TensorError::InvalidMode { mode })
    }
}

/// A non-empty list of valid modes (each in `{0, 1, 2}`).
pub(crate) fn check_modes(name: &'static str, modes: &[usize]) -> Result<()> {
    if modes.is_empty() {
        return Err(bl_core::error::build::invalid(
            name,
            "[]",
            "a non-empty subset of {0, 1, 2}",
        ));
    }
    modes.iter().try_for_each(|&m| check_mode(m))
}

/// The two modes other than `mode`, in increasing order.
pub(crate) fn other_modes(mode: usize) -> (usize, usize) {
    match mode {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

impl Tensor {
    /// A fully observed tensor from its entries in the layout above (`i` fastest).
    ///
    /// # Errors
    /// [`TensorError::EmptyMode`] for a zero-length mode; [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch)
    /// when `data.len() != d0 d1 d2`; [`BlError::NonFinite`](bl_core::BlError::NonFinite) at the first NaN or
    /// infinite entry.
    pub fn from_vec(shape: [usize; 3], data: Vec<f64>) -> Result<Self> {
        let n = check_shape(shape)?;
        if data.len() != n {
            return Err(shape_mismatch(
                "tensor data",
                format!("{n} = {} x {} x {}", shape[0], shape[1], shape[2]),
                data.len(),
            ));
        }
        let t = Self {
            shape,
            data,
            mask: None,
            n_observed: n,
        };
        t.check_finite("tensor data (flat index i + d0 (j + d1 k))")?;
        Ok(t)
    }

    /// A tensor with observation mask (`true` = observed). Values at missing entries are
    /// ignored (they may be NaN) and stored as `0.0`.
    ///
    /// # Errors
    /// As [`Tensor::from_vec`] for the shape and the observed values;
    /// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when the mask length differs from the data length;
    /// [`TensorError::AllMissing`] when nothing is observed.
    pub fn from_vec_masked(shape: [usize; 3], data: Vec<f64>, mask: Vec<bool>) -> Result<Self> {
        let n = check_shape(shape)?;
        if data.len() != n {
            return Err(shape_mismatch("tensor data", n, data.len()));
        }
        let mut t = Self {
            shape,
            data,
            mask: None,
            n_observed: n,
        };
        t.set_mask(mask)?;
        Ok(t)
    }

    /// A fully observed tensor with entries `f(i, j, k)`.
    ///
    /// # Errors
    /// As [`Tensor::from_vec`]; [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch)
    /// when the shape has more than [`bl_core::limits::MAX_ELEMENTS`] entries or they do
    /// not fit in memory (checked before `f` is called).
    pub fn from_fn(
        shape: [usize; 3],
        mut f: impl FnMut(usize, usize, usize) -> f64,
    ) -> Result<Self> {
        let n = check_shape(shape)?;
        let mut data = try_zeros(n, "tensor shape")?;
        data.clear();
        for k in 0..shape[2] {
            for j in 0..shape[1] {
                for i in 0..shape[0] {
                    data.push(f(i, j, k));
                }
            }
        }
        Self::from_vec(shape, data)
    }

    /// The zero tensor, fully observed.
    ///
    /// # Errors
    /// [`TensorError::EmptyMode`]; [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when the entries are more
    /// than [`bl_core::limits::MAX_ELEMENTS`] or do not fit in memory.
    pub fn zeros(shape: [usize; 3]) -> Result<Self> {
        let n = check_shape(shape)?;
        Ok(Self {
            shape,
            data: try_zeros(n, "tensor shape")?,
            mask: None,
            n_observed: n,
        })
    }

    /// This tensor with the mask `mask` (`true` = observed); missing entries are set to
    /// `0.0`.
    ///
    /// # Errors
    /// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) for a mask of the wrong length,
    /// [`TensorError::AllMissing`] when nothing is observed, [`BlError::NonFinite`](bl_core::BlError::NonFinite)
    /// at a non-finite observed entry.
    pub fn with_mask(mut self, mask: Vec<bool>) -> Result<Self> {
        self.set_mask(mask)?;
        Ok(self)
    }

    fn set_mask(&mut self, mask: Vec<bool>) -> Result<()> {
        let n = self.data.len();
        if mask.len() != n {
            return Err(shape_mismatch(
                "mask",
                format!(
                    "{n} = {} x {} x {} entries",
                    self.shape[0], self.shape[1], self.shape[2]
                ),
                mask.len(),
            ));
        }
        let n_observed = mask.iter().filter(|&&m| m).count();
        if n_observed == 0 {
            return Err(TensorError::AllMissing { n });
        }
        for (x, &m) in self.data.iter_mut().zip(&mask) {
            if !m {
                *x = 0.0;
            }
        }
        self.n_observed = n_observed;
        self.mask = if n_observed == n { None } else { Some(mask) };
        self.check_finite("tensor data (flat index i + d0 (j + d1 k))")
    }

    fn check_finite(&self, what: &'static str) -> Result<()> {
        if let Some(idx) = self.data.iter().position(|v| !v.is_finite()) {
            return Err(bl_core::BlError::NonFinite {
                what,
                index: idx,
                value: self.data[idx],
            }
            .into());
        }
        Ok(())
    }

    /// The shape `(d0, d1, d2)`.
    pub fn shape(&self) -> [usize; 3] {
        self.shape
    }

    /// Number of entries `d0 d1 d2`.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Always `false`: a tensor has at least one entry.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The entries in the layout above (missing entries are `0.0`).
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// Replaces every observed entry `v` (flat index `i`, in index order) by `f(i, v)`; the
    /// missing entries stay `0.0` and `f` is not called for them.
    ///
    /// ```
    /// use boolean_tensor::Tensor;
    /// let mut x = Tensor::from_vec_masked([2, 1, 1], vec![4.0, 7.0], vec![true, false])?;
    /// x.map_observed(|_, v| v / 2.0)?;
    /// assert_eq!(x.data(), &[2.0, 0.0]);
    /// # Ok::<(), boolean_tensor::TensorError>(())
    /// ```
    ///
    /// # Errors
    /// [`BlError::NonFinite`](bl_core::BlError::NonFinite) for the first entry whose new
    /// value is not finite; that entry keeps its old value, the entries before it hold
    /// their new ones and `f` is not called again.
    pub fn map_observed(&mut self, mut f: impl FnMut(usize, f64) -> f64) -> Result<()> {
        for (i, v) in self.data.iter_mut().enumerate() {
            if self.mask.as_ref().is_some_and(|m| !m[i]) {
                continue;
            }
            let new = f(i, *v);
            if !new.is_finite() {
                return Err(bl_core::BlError::NonFinite {
                    what: "a value from map_observed (flat index i + d0 (j + d1 k))",
                    index: i,
                    value: new,
                }
                .into());
            }
            *v = new;
        }
        Ok(())
    }

    /// The mask (`true` = observed), or `None` when every entry is observed.
    pub fn mask(&self) -> Option<&[bool]> {
        self.mask.as_deref()
    }

    /// Whether the flat entry `index` is observed (`true` for any `index` without a mask).
    ///
    /// # Panics
    /// With a mask, when `index >= len()`, as slice indexing does.
    pub fn is_observed(&self, index: usize) -> bool {
        self.mask.as_ref().is_none_or(|m| m[index])
    }

    /// Number of observed entries.
    pub fn n_observed(&self) -> usize {
        self.n_observed
    }

    /// Flat index of `(i, j, k)`, for coordinates inside the shape (it does not check
    /// them: others give an index of another entry or past the end, and [`get`](Self::get)
    /// is the checked read).
    ///
    /// # Panics
    /// In builds with overflow checks, when the index overflows `usize` (coordinates far
    /// outside the shape).
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.shape[0] * (j + self.shape[1] * k)
    }

    /// `(i, j, k)` of the flat index `index`.
    pub fn coords(&self, index: usize) -> (usize, usize, usize) {
        let [d0, d1, _] = self.shape;
        (index % d0, (index / d0) % d1, index / (d0 * d1))
    }

    /// Entry `(i, j, k)` (panics when an index is past its mode's length, like slice
    /// indexing).
    pub fn get(&self, i: usize, j: usize, k: usize) -> f64 {
        let [d0, d1, d2] = self.shape;
        assert!(
            i < d0 && j < d1 && k < d2,
            "index ({i}, {j}, {k}) out of range for shape {:?}",
            self.shape
        );
        self.data[self.index(i, j, k)]
    }

    /// `||P_Omega(X)||_F` over the observed entries.
    pub fn frobenius_norm(&self) -> f64 {
        match &self.mask {
            None => self.data.iter().map(|v| v * v).sum::<f64>().sqrt(),
            Some(m) => self
                .data
                .iter()
                .zip(m)
                .filter(|(_, o)| **o)
                .map(|(v, _)| v * v)
                .sum::<f64>()
                .sqrt(),
        }
    }

    /// The mode-`mode` unfolding `X_(n)` (Kolda–Bader column order, see the module docs).
    ///
    /// # Errors
    /// [`TensorError::InvalidMode`] for `mode > 2`.
    pub fn unfold(&self, mode: usize) -> Result<Mat<f64>> {
        check_mode(mode)?;
        let (r, c) = unfolded_shape(self.shape, mode);
        let mut out = Mat::zeros(r, c);
        unfold_into(&self.data, self.shape, mode, out.as_mut());
        Ok(out)
    }

    /// The tensor of shape `shape` whose mode-`mode` unfolding is `m` (inverse of
    /// [`Tensor::unfold`]); fully observed.
    ///
    /// # Errors
    /// [`TensorError::InvalidMode`], [`TensorError::EmptyMode`],
    /// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when `m` is not `d_n x prod_{other}` or
    /// the shape has more than [`bl_core::limits::MAX_ELEMENTS`] entries,
    /// [`BlError::NonFinite`](bl_core::BlError::NonFinite).
    pub fn refold(mode: usize, m: MatRef<'_, f64>, shape: [usize; 3]) -> Result<Self> {
        check_mode(mode)?;
        let n = check_shape(shape)?;
        let (r, c) = unfolded_shape(shape, mode);
        if (m.nrows(), m.ncols()) != (r, c) {
            return Err(shape_mismatch(
                "refold: unfolded matrix",
                format!("{r} x {c}"),
                format!("{} x {}", m.nrows(), m.ncols()),
            ));
        }
        let mut data = try_zeros(n, "refold: tensor shape")?;
        let [d0, d1, d2] = shape;
        for k in 0..d2 {
            for j in 0..d1 {
                for i in 0..d0 {
                    let (row, col) = unfolded_position(shape, mode, i, j, k);
                    data[i + d0 * (j + d1 * k)] = m[(row, col)];
                }
            }
        }
        Self::from_vec(shape, data)
    }

    /// The mode-`mode` product `X x_n M` (`M` of size `p x d_n`): the tensor `Y` with
    /// `Y_(n) = M X_(n)`, of shape `d` with `d_n` replaced by `p`. Missing entries enter
    /// as their stored `0.0`; the result is fully observed.
    ///
    /// # Errors
    /// [`TensorError::InvalidMode`]; [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when
    /// `M.ncols() != d_n` or the result has more than [`bl_core::limits::MAX_ELEMENTS`]
    /// entries (or does not fit in memory); [`TensorError::EmptyMode`] for `p = 0`;
    /// [`BlError::NonFinite`](bl_core::BlError::NonFinite) for a non-finite entry of the
    /// result (a non-finite `M`, or an overflow).
    pub fn mode_product(&self, mode: usize, m: MatRef<'_, f64>) -> Result<Self> {
        check_mode(mode)?;
        if m.ncols() != self.shape[mode] {
            return Err(shape_mismatch(
                "mode_product: matrix columns",
                self.shape[mode],
                m.ncols(),
            ));
        }
        let mut shape = self.shape;
        shape[mode] = m.nrows();
        let n = check_shape(shape)?;
        let mut out = try_zeros(n, "mode_product: result shape")?;
        mode_product_into(&self.data, self.shape, mode, m, &mut out, Par::Seq);
        Self::from_vec(shape, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfolded_view_equals_the_copied_unfolding() {
        let shape = [4, 3, 5];
        let t = Tensor::from_fn(shape, |i, j, k| (i + 10 * j + 100 * k) as f64).unwrap();
        for mode in 0..3 {
            let copied = t.unfold(mode).unwrap();
            let mut buf = Mat::zeros(0, 0);
            let view = unfolded_view(t.data(), shape, mode, &mut buf);
            assert_eq!(view.shape(), copied.shape(), "mode {mode}");
            for j in 0..view.ncols() {
                for i in 0..view.nrows() {
                    assert_eq!(view[(i, j)], copied[(i, j)], "mode {mode} ({i}, {j})");
                }
            }
        }
    }

    /// Sizes taken from the caller are checked before anything is allocated from them.
    #[test]
    fn absurd_shapes_are_typed_errors_not_aborts() {
        let huge = [1usize << 21, 1 << 21, 1 << 21]; // product overflows usize
        let refused = [1usize << 20, 1 << 20, 1 << 10]; // 2^53 bytes: refused by the system
        for shape in [huge, refused] {
            assert!(
                matches!(
                    Tensor::zeros(shape),
                    Err(TensorError::Core(bl_core::BlError::ShapeMismatch { .. }))
                ),
                "{shape:?}"
            );
            assert!(
                matches!(
                    Tensor::from_fn(shape, |_, _, _| 0.0),
                    Err(TensorError::Core(bl_core::BlError::ShapeMismatch { .. }))
                ),
                "{shape:?}"
            );
        }
        // 8 MB tensor times a 8 MB matrix would be 8 TB
        let t = Tensor::zeros([1000, 1000, 1]).unwrap();
        let m = Mat::<f64>::zeros(1_000_000, 1);
        assert!(matches!(
            t.mode_product(2, m.as_ref()),
            Err(TensorError::Core(bl_core::BlError::ShapeMismatch { .. }))
        ));
        assert!(matches!(
            khatri_rao(m.as_ref(), m.as_ref()),
            Err(TensorError::Core(bl_core::BlError::ShapeMismatch { .. }))
        ));
        let f = Mat::<f64>::zeros(100_000, 1);
        assert!(matches!(
            cp_to_tensor([f.as_ref(), f.as_ref(), f.as_ref()]),
            Err(TensorError::Core(bl_core::BlError::ShapeMismatch { .. }))
        ));
    }

    /// `cp_to_tensor` in rank blocks (rank above d0) equals the sum of outer products.
    #[test]
    fn cp_to_tensor_with_rank_above_the_first_mode_matches_brute_force() {
        let shape = [2usize, 3, 4];
        let r = 7;
        let value = |n: usize, i: usize, c: usize| ((n * 31 + i * 7 + c * 3) % 11) as f64 - 5.0;
        let f: Vec<Mat<f64>> = (0..3)
            .map(|n| Mat::from_fn(shape[n], r, |i, c| value(n, i, c)))
            .collect();
        let t = cp_to_tensor([f[0].as_ref(), f[1].as_ref(), f[2].as_ref()]).unwrap();
        for k in 0..4 {
            for j in 0..3 {
                for i in 0..2 {
                    let want: f64 = (0..r)
                        .map(|c| f[0][(i, c)] * f[1][(j, c)] * f[2][(k, c)])
                        .sum();
                    assert!((t.get(i, j, k) - want).abs() < 1e-12, "({i}, {j}, {k})");
                }
            }
        }
    }
}
