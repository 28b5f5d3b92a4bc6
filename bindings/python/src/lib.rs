//! Python bindings of the bilinear workspace: the extension module `bilinear._native`.
//!
//! Each function converts NumPy arrays and parameters, calls a workspace crate with the
//! GIL released, and converts the result; errors become `ValueError` / `RuntimeError`
//! with the Rust message (see [`errors`]). The scikit-learn estimators are thin Python
//! classes in `python/bilinear/` over these functions.

pub mod errors;
pub mod gop;
pub mod maxcut;
pub mod sblr;
pub mod tagger;
pub mod tensor;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    sblr::register(m)?;
    maxcut::register(m)?;
    gop::register(m)?;
    tagger::register(m)?;
    tensor::register(m)?;
    Ok(())
}
