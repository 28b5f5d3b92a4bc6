//! Rust errors and panics to Python exceptions.
//!
//! Invalid input (parameters, shapes, non-finite values, class counts, saved models)
//! becomes `ValueError`; numerical failures become `RuntimeError`; both carry the Rust
//! message. A panic inside a call run through [`guarded`] (the crates' fits and their
//! other fallible calls) is caught there and becomes `RuntimeError`; one anywhere else is
//! caught by pyo3 and raised as its `PanicException`. Neither unwinds into the
//! interpreter.

use std::panic::{AssertUnwindSafe, catch_unwind};

use bl_core::BlError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::{PyErr, PyResult};

/// `RuntimeError` for numerical failures, `ValueError` for everything else.
fn core_to_py(e: &BlError) -> PyErr {
    match e {
        BlError::Numerical { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// An error of one of the workspace crates, as a Python exception.
pub trait ToPyErr {
    /// The Python exception carrying this error's message.
    fn to_py(&self) -> PyErr;
}

impl ToPyErr for BlError {
    fn to_py(&self) -> PyErr {
        core_to_py(self)
    }
}

/// `ToPyErr` for a crate error wrapping `BlError` as `Core`: the wrapped error as above,
/// the variants the optional predicate accepts (failures of the algorithm, not of the
/// input) as `RuntimeError`, every other variant as `ValueError`.
macro_rules! wraps_core {
    (@failure) => { |_: &Self| false };
    (@failure $is_failure:expr) => { $is_failure };
    ($($ty:ty $(=> $is_failure:expr)?;)*) => {$(
        impl ToPyErr for $ty {
            fn to_py(&self) -> PyErr {
                let failure = (wraps_core!(@failure $($is_failure)?))(self);
                match self {
                    Self::Core(e) => core_to_py(e),
                    other if failure => PyRuntimeError::new_err(other.to_string()),
                    other => PyValueError::new_err(other.to_string()),
                }
            }
        }
    )*};
}

wraps_core!(
    sblr::SblrError;
    boolean_tensor::TensorError;
    maxcut_sdp::MaxcutError;
    gop_mmf::GopError => |e: &gop_mmf::GopError| matches!(
        e,
        gop_mmf::GopError::EmptyTree { .. }
            | gop_mmf::GopError::Lp(..)
            | gop_mmf::GopError::Primal { .. }
    );
    online_bilinear::OblError;
);

/// The value paired with `name` among `options`, or `ValueError` naming the parameter
/// `what` and listing the accepted names.
pub fn choose<T: Clone>(what: &str, name: &str, options: &[(&str, T)]) -> PyResult<T> {
    if let Some((_, value)) = options.iter().find(|(n, _)| *n == name) {
        return Ok(value.clone());
    }
    let quoted: Vec<String> = options.iter().map(|(n, _)| format!("'{n}'")).collect();
    let listed = match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "nothing".to_owned(),
    };
    Err(PyValueError::new_err(format!(
        "invalid {what} {name:?}: must be {listed}"
    )))
}

/// A `serde_json` error (a malformed or invalid saved model) as `ValueError`.
pub fn json_err(e: serde_json::Error) -> PyErr {
    PyValueError::new_err(format!("invalid saved model: {e}"))
}

/// Runs `f`, turning its error into a Python exception and a panic into `RuntimeError`.
pub fn guarded<T, E: ToPyErr>(f: impl FnOnce() -> Result<T, E>) -> Result<T, PyErr> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_py()),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(PyRuntimeError::new_err(format!(
                "internal error in the Rust library (please report): {msg}"
            )))
        }
    }
}
