#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

/// `Params => Fitted; fn(&self, data, observers) { body }` implements
/// [`bl_core::Fit`] on matrix data sets of any element type for `Params`; the doc lines
/// document `fit_observed`, whose body reads the data set and the observers by the given
/// names.
macro_rules! fit_matrix {
    (
        $(#[$doc:meta])*
        $params:ty => $fitted:ty;
        fn(&$this:ident, $data:ident, $observers:ident) $body:block
    ) => {
        impl<T: bl_core::data::Element> bl_core::Fit<bl_core::data::MatrixDataset<T>> for $params {
            type Fitted = $fitted;
            type Error = $crate::error::SblrError;

            $(#[$doc])*
            fn fit_observed(
                &$this,
                $data: &bl_core::data::MatrixDataset<T>,
                $observers: &mut [&mut dyn bl_core::Observer],
            ) -> $crate::error::Result<$fitted> $body
        }
    };
}

/// `impl PredictInplace<MatrixDataset<T>, Vec<usize>>` (class labels) for a fitted model:
/// `[generics] Model; fn(&self, data, targets) { body }`, the doc lines documenting
/// `predict_inplace`; the default target is one label per sample.
macro_rules! predict_labels {
    (
        $(#[$doc:meta])*
        [$($gen:tt)*] $model:ty;
        fn(&$this:ident, $data:ident, $targets:ident) $body:block
    ) => {
        impl<$($gen)* T: bl_core::data::Element>
            bl_core::PredictInplace<bl_core::data::MatrixDataset<T>, Vec<usize>> for $model
        {
            type Error = $crate::error::SblrError;

            $(#[$doc])*
            fn predict_inplace(
                &$this,
                $data: &bl_core::data::MatrixDataset<T>,
                $targets: &mut Vec<usize>,
            ) -> $crate::error::Result<()> $body

            fn default_target(
                &self,
                data: &bl_core::data::MatrixDataset<T>,
            ) -> $crate::error::Result<Vec<usize>> {
                Ok(vec![0; data.n_samples()])
            }
        }
    };
}

/// A checked type that wraps its builder in `.0`: `TryFrom<Builder> for Checked` (by
/// `ParamGuard::check`), `From<Checked> for Builder`, and serde through the builder:
/// serializing writes the builder's layout, deserializing (by any serde format) reads a
/// builder and checks it, so a deserialized checked type is always valid.
macro_rules! checked_conversions {
    ($checked:ident from $builder:ident) => {
        impl TryFrom<$builder> for $checked {
            type Error = $crate::error::SblrError;

            fn try_from(raw: $builder) -> $crate::error::Result<Self> {
                bl_core::ParamGuard::check(&raw)
            }
        }

        impl From<$checked> for $builder {
            fn from(valid: $checked) -> Self {
                valid.0
            }
        }

        impl serde::Serialize for $checked {
            fn serialize<S: serde::Serializer>(
                &self,
                serializer: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&self.0, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $checked {
            fn deserialize<D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> std::result::Result<Self, D::Error> {
                let raw = <$builder as serde::Deserialize>::deserialize(deserializer)?;
                Self::try_from(raw).map_err(serde::de::Error::custom)
            }
        }
    };
}

/// The knobs the binary and the multinomial parameters share, declared once, for a builder
/// and the checked type that wraps it in `.0` (`Builder => Checked`): the setters and
/// getters of `rank`, `mu1`, `mu2`, `nu1`, `nu2`, `stop`, `init`, `seed` and the iteration
/// knobs, the setters `penalties` and `unregularized`, and the getter `penalties`.
macro_rules! bilinear_knobs {
    ($builder:ident => $checked:ident) => {
        impl $builder {
            /// Sets all four penalties `(mu1, mu2, nu1, nu2)` of eq. (5) (eq. (31) for every
            /// class of the multinomial model).
            #[must_use]
            pub fn penalties(mut self, mu1: f64, mu2: f64, nu1: f64, nu2: f64) -> Self {
                (self.mu1, self.mu2, self.nu1, self.nu2) = (mu1, mu2, nu1, nu2);
                self
            }

            /// Sets all penalties to zero: unregularized bilinear logistic regression (BLR).
            #[must_use]
            pub fn unregularized(self) -> Self {
                self.penalties(0.0, 0.0, 0.0, 0.0)
            }
        }

        bl_core::params::knobs! {
            $builder => $checked in 0;
            /// The rank `r` of `U` and `V` (of every class's factors; default 1, `>= 1` and
            /// at most `min(s, t)`, checked at fit).
            rank: usize;
            /// The l1 weight on `U` (every `U_c`; default 0.01, finite and `>= 0`).
            mu1: f64;
            /// The squared-l2 weight on `U` (every `U_c`; default 0.5, finite and `>= 0`).
            mu2: f64;
            /// The l1 weight on `V` (every `V_c`; default 0.01, finite and `>= 0`).
            nu1: f64;
            /// The squared-l2 weight on `V` (every `V_c`; default 0.5, finite and `>= 0`).
            nu2: f64;
            /// The stopping quantity `q^k` (default
            /// [`StopCriterion::Eq8`](crate::params::StopCriterion::Eq8)).
            stop: $crate::params::StopCriterion;
            /// The initialization (default [`Init::MeanSvd`](crate::params::Init::MeanSvd)).
            init: &$crate::params::Init;
            /// The seed of [`Init::Random`](crate::params::Init::Random) (default 0).
            seed: u64;
            /// The iteration knobs: budget (`max_iter` outer iterations, default 500),
            /// tolerance on `q^k` (default `1e-3`), time limit, threads of the data passes
            /// and trace.
            ..iteration;
        }

        impl $checked {
            /// The four penalties `(mu1, mu2, nu1, nu2)`.
            #[must_use]
            pub fn penalties(&self) -> $crate::params::Penalties {
                $crate::params::Penalties::new(self.0.mu1, self.0.mu2, self.0.nu1, self.0.nu2)
            }
        }
    };
}

pub mod bilinear;
pub mod block;
pub mod conformance;
pub mod cv;
pub mod data;
pub mod distributed;
pub mod error;
pub mod features;
pub mod linear;
pub mod model;
pub mod multinomial;
pub mod ova;
pub mod params;
pub mod passes;
pub(crate) mod saved;
pub mod stream;
pub mod synthetic;
pub mod update;
#[cfg(feature = "probes")]
pub mod yardstick;

pub use bilinear::{BinarySolver, BinarySolverOn, Penalties, StepReport};
pub use block::LinearBlock;
pub use cv::{CvScores, CvStrategy, GridSearchResult, cross_val_score, grid_search};
pub use error::{Result, SblrError};
pub use linear::{
    FittedLogisticRegression, LogisticParams, LogisticRegression, LogisticValidParams,
};
pub use model::{FittedSblr, Sblr};
pub use multinomial::{
    FittedMultinomialSblr, MultinomialParams, MultinomialSblr, MultinomialValidParams,
};
pub use ova::{BinaryDecision, BinaryEstimator, FittedOneVsAll, OneVsAll, OneVsAllValidParams};
pub use params::{Init, SblrParams, SblrValidParams, StopCriterion};
pub use saved::SavedModel;
pub use update::{BlockUpdate, BuiltInUpdate, ExactBlockSolve, NotSaved, ProxLinearStep};

pub use bl_core::{Extension, Fit, FitReport, Fitted, Observer, ParamGuard, Predict};
