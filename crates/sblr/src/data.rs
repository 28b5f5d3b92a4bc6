//! Building data sets of matrix samples with the checks a fit needs.

use bl_core::data::{Element, MatrixDataset};
use faer::MatRef;

use crate::error::Result;
use bl_core::error::build::shape_mismatch;

/// A [`MatrixDataset`] from separate samples and one class name per sample (classes are
/// the sorted distinct names, as [`MatrixDataset::from_label_names`]).
///
/// # Errors
/// [`SblrError::Core`](crate::SblrError::Core) for no samples, a non-finite entry or fewer than two distinct
/// labels; [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when the samples do not all have the shape of the
/// first one, or the number of labels differs from the number of samples;
/// [`bl_core::BlError::InvalidParameter`] (as `SblrError::Core`) for samples with no row
/// or no column, or when the copy (`n s t` values) exceeds
/// [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated.
pub fn dataset_from_samples<S: AsRef<str>>(
    samples: &[MatRef<'_, f64>],
    labels: &[S],
) -> Result<MatrixDataset> {
    bl_core::error::ensure_nonempty("samples", samples.len())?;
    if labels.len() != samples.len() {
        return Err(shape_mismatch(
            "dataset_from_samples: labels",
            format!("{} labels (one per sample)", samples.len()),
            format!("{} labels", labels.len()),
        ));
    }
    let (s, t) = (samples[0].nrows(), samples[0].ncols());
    // The views may share their storage (one matrix given many times): the copy is sized
    // by the caller's counts, so it is checked and reserved before it is made.
    let mut data = bl_core::limits::try_with_capacity(
        "dataset_from_samples: n x s x t",
        &[samples.len(), s, t],
    )?;
    for (i, x) in samples.iter().enumerate() {
        if (x.nrows(), x.ncols()) != (s, t) {
            return Err(shape_mismatch(
                "dataset_from_samples: sample shape",
                format!("{s} x {t} (the shape of sample 0)"),
                format!("{} x {} at sample {i}", x.nrows(), x.ncols()),
            ));
        }
        for j in 0..t {
            for a in 0..s {
                data.push(x[(a, j)]);
            }
        }
    }
    Ok(MatrixDataset::with_label_names(s, t, data, labels)?)
}

/// A [`MatrixDataset`] from an `n x s x t` array in C (row-major) order, as NumPy stores a
/// stack of matrices (`X[i, a, j]` at `i*s*t + a*t + j`), and one class name per sample.
/// The data set keeps the precision of `values` (`f64` or `f32`, e.g. the
/// `bl_core::io::npy::NativeNpyArray::F32` of an `f4` file).
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) when `values.len() != n s t` or the labels are not `n`;
/// otherwise as [`MatrixDataset::from_label_names`].
pub fn dataset_from_c_order<T: Element, S: AsRef<str>>(
    s: usize,
    t: usize,
    values: &[T],
    labels: &[S],
) -> Result<MatrixDataset<T>> {
    let n = labels.len();
    if s.checked_mul(t).and_then(|st| st.checked_mul(n)) != Some(values.len()) {
        return Err(shape_mismatch(
            "dataset_from_c_order",
            format!("{n} samples of {s} x {t}"),
            format!("{} values", values.len()),
        ));
    }
    let mut data = vec![T::default(); values.len()];
    for i in 0..n {
        for a in 0..s {
            for j in 0..t {
                data[i * s * t + j * s + a] = values[i * s * t + a * t + j];
            }
        }
    }
    Ok(MatrixDataset::with_label_names(s, t, data, labels)?)
}
