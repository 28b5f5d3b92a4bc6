//! The input check of every fitted model's prediction ([`bl_core::PredictInplace`] from a
//! list of entries `[i, j, k]` to the model's values there).

use crate::error::{Result, TensorError};

/// Every entry lies inside `shape`, and `targets` has one slot per entry.
///
/// # Errors
/// [`TensorError::IndexOutOfBounds`] at the first entry outside the shape;
/// [`bl_core::BlError::ShapeMismatch`] for targets of another length.
pub(crate) fn check_entries(
    shape: [usize; 3],
    entries: &[[usize; 3]],
    targets: usize,
) -> Result<()> {
    bl_core::error::ensure_len("predicted entries", entries.len(), targets)?;
    match entries
        .iter()
        .position(|e| e.iter().zip(&shape).any(|(i, d)| i >= d))
    {
        Some(position) => Err(TensorError::IndexOutOfBounds {
            position,
            index: entries[position],
            shape,
        }),
        None => Ok(()),
    }
}
