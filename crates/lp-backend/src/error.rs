//! The error type of `lp-backend`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::status::LpStatus;

/// Everything that can go wrong when building or solving a linear program.
///
/// A solve that *finishes* with an infeasible or unbounded verdict is not an error: it is an
/// [`LpOutcome`](crate::LpOutcome). Errors are malformed models, solver failures and (through
/// [`LpOutcome::into_optimal`](crate::LpOutcome::into_optimal)) a verdict the caller cannot
/// use, each with the context needed to find the cause. Invalid parameters of the helpers
/// (e.g. the slack cap of [`interior_point`](crate::interior_point)) are `bl-core`'s
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter), wrapped as
/// [`LpError::Core`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LpError {
    /// A generic input check failed (see [`bl_core::BlError`]).
    #[error(transparent)]
    Core(#[from] bl_core::BlError),
    /// The model is malformed: a non-finite coefficient, an unknown variable, crossed bounds.
    #[error("invalid LP model: {message}")]
    InvalidModel {
        /// What is wrong and where (row or variable index).
        message: String,
    },
    /// The backend failed (numerical trouble, internal error, a panic inside the solver).
    #[error("LP backend `{backend}` failed: {message}")]
    Failed {
        /// Name of the backend.
        backend: &'static str,
        /// The backend's message.
        message: String,
    },
    /// The LP finished, but not with the optimum the caller needed.
    #[error("LP in {context} finished with status {status:?}, an optimum was required")]
    NotOptimal {
        /// Which LP (e.g. `"relaxed dual of node 7, cell 3"`).
        context: String,
        /// The status it ended with.
        status: LpStatus,
    },
}

impl LpError {
    /// [`LpError::Failed`]: `backend` failed with `message`.
    pub(crate) fn failed(backend: &'static str, message: impl Into<String>) -> Self {
        Self::Failed {
            backend,
            message: message.into(),
        }
    }

    /// The status this error stands for: [`LpStatus::Failed`] for malformed models, invalid
    /// parameters and backend failures, the verdict itself for [`LpError::NotOptimal`].
    #[must_use]
    pub fn status(&self) -> LpStatus {
        match self {
            Self::NotOptimal { status, .. } => *status,
            _ => LpStatus::Failed,
        }
    }
}

/// Runs `f`, the work of `backend`, turning a panic inside the solver into
/// [`LpError::Failed`] with the panic's message.
pub(crate) fn guarded<T>(
    backend: &'static str,
    f: impl FnOnce() -> Result<T, LpError>,
) -> Result<T, LpError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message =
            bl_core::error::panic_message(payload.as_ref()).unwrap_or("panic inside the solver");
        Err(LpError::failed(
            backend,
            format!("solver panicked: {message}"),
        ))
    })
}
