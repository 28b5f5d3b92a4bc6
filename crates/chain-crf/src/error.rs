//! The error type of `chain-crf`.

/// Everything that can go wrong in `chain-crf`.
///
/// Input errors name the sequence and the position (both 0-based) so the message says
/// where to look.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CrfError {
    /// An error of `bl-core` (parameters, shapes, numerics, limits).
    #[error(transparent)]
    Core(#[from] bl_core::BlError),
    /// Bad training or tagging input at a known place.
    #[error("sequence {sequence}, position {position}: {message}")]
    Input {
        /// 0-based sequence index.
        sequence: usize,
        /// 0-based item (position) index within the sequence.
        position: usize,
        /// What is wrong and what to give instead.
        message: String,
    },
    /// A label that the model does not know.
    #[error("label {label:?} is not one of the model's {n_labels} labels")]
    UnknownLabel {
        /// The label.
        label: String,
        /// How many labels the model has.
        n_labels: usize,
    },
    /// A saved model that cannot be read, or parts given to [`crate::Model::new`] that do
    /// not make a model (sizes that disagree, a non-finite weight).
    #[error("not a chain-crf model: {0}")]
    Model(String),
    /// Bytes of the distributed training API ([`crate::distributed`]) that cannot be
    /// read: another kind, another version, a truncated or malformed message.
    #[error("not readable chain-crf distributed data: {0}")]
    Serialized(String),
}

/// `Result` with [`CrfError`].
pub type Result<T, E = CrfError> = std::result::Result<T, E>;

/// An [`CrfError::Input`].
pub(crate) fn input(sequence: usize, position: usize, message: impl Into<String>) -> CrfError {
    CrfError::Input {
        sequence,
        position,
        message: message.into(),
    }
}
