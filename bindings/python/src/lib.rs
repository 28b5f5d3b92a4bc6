//! Python bindings of the bilinear workspace: the extension module `bilinear._native`.
//!
//! Each function converts NumPy arrays and parameters, calls a workspace crate with the
//! GIL released, and converts the result; errors become `ValueError` / `RuntimeError`
//! with the Rust message (see the `errors` module). The scikit-learn estimators are thin Python
//! classes in `python/bilinear/` over these functions.
//!
//! Everything is behind the `python` feature, which maturin enables: a plain `cargo build`
//! of the workspace compiles an empty crate and needs no Python.

#[cfg(feature = "python")]
pub mod arrays;
#[cfg(feature = "python")]
pub mod crfsuite;
#[cfg(feature = "python")]
pub mod errors;
#[cfg(feature = "python")]
pub mod gop;
#[cfg(feature = "python")]
pub mod keywords;
#[cfg(feature = "python")]
pub mod maxcut;
#[cfg(feature = "python")]
pub mod sblr;
#[cfg(feature = "python")]
pub mod tagger;
#[cfg(feature = "python")]
pub mod tensor;

#[cfg(feature = "python")]
use pyo3::prelude::*;

/// The extension module.
#[cfg(feature = "python")]
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    sblr::register(m)?;
    maxcut::register(m)?;
    gop::register(m)?;
    tagger::register(m)?;
    tensor::register(m)?;
    crfsuite::register(m)?;
    Ok(())
}
