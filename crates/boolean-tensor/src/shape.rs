//! The plumbing every method of the crate shares (CONTRIBUTING.md, "the shape of every
//! crate"), written once: the checked parameters with their [`bl_core::ParamGuard`] impl
//! and plain-name getters, [`bl_core::Fit`] on the checked parameters, and
//! [`bl_core::Fitted`] for a fitted model that keeps its report in a `report` field.
//! Trait impls and methods cannot come from a function, hence macros. (The builder's
//! setters and the checked type's getters come from [`bl_core::params::knobs`], one doc per
//! knob; a knob on one side only from [`bl_core::params::setters`] or
//! [`bl_core::params::getters`].)

/// `Params => ValidParams; fn check(&self) { validations }` declares the checked type
/// `ValidParams` (one private field, `params`, holding the builder it was checked from)
/// and implements [`bl_core::ParamGuard`] for `Params`: the validations run (each returns
/// early with its error), then the parameters are wrapped. The getters of the checked type
/// come from [`bl_core::params::knobs!`] (with the builder's setters).
macro_rules! param_guard {
    (
        $(#[$sattr:meta])*
        $params:ident => $valid:ident;
        $(#[$cattr:meta])*
        fn check(&$this:ident) $body:block
    ) => {
        $(#[$sattr])*
        #[derive(Debug, Clone)]
        pub struct $valid {
            params: $params,
        }

        impl bl_core::ParamGuard for $params {
            type Checked = $valid;
            type Error = crate::TensorError;

            $(#[$cattr])*
            fn check(&$this) -> crate::Result<$valid> {
                $body
                Ok($valid { params: $this.clone() })
            }
        }
    };
}

/// `ValidParams -> Fitted by method` implements [`bl_core::Fit`] on tensors for the
/// checked parameters by the inherent `method(&self, x, observers)`; the builder fits
/// through bl-core's blanket implementation (check, then fit). The report's `elapsed` is
/// set here, the wall-clock time of the whole call (set-up, every start or mode, runs in
/// parallel counted once), whatever `method` put there. The doc lines document
/// `fit_observed`.
macro_rules! fit_checked {
    ($(#[$attr:meta])* $valid:ident -> $fitted:ident by $method:ident) => {
        impl bl_core::Fit<crate::Tensor> for $valid {
            type Fitted = $fitted;
            type Error = crate::TensorError;

            $(#[$attr])*
            fn fit_observed(
                &self,
                x: &crate::Tensor,
                observers: &mut [&mut dyn bl_core::Observer],
            ) -> crate::Result<$fitted> {
                let started = std::time::Instant::now();
                let mut fitted = self.$method(x, observers)?;
                fitted.report.elapsed = started.elapsed();
                Ok(fitted)
            }
        }
    };
}

/// Implements [`bl_core::Fitted`] for a type whose `report` field holds its
/// [`bl_core::FitReport`]; the doc lines document `report()`.
macro_rules! fitted_report {
    ($(#[$attr:meta])* $fitted:ident) => {
        impl bl_core::Fitted for $fitted {
            $(#[$attr])*
            fn report(&self) -> &bl_core::FitReport {
                &self.report
            }
        }
    };
}

/// Implements [`bl_core::PredictInplace`] from a list of entries `[i, j, k]` to their
/// values for a fitted model with an inherent `entry(&self, [usize; 3]) -> f64` and a
/// `shape` field: every index is checked against the shape first.
macro_rules! predict_entries {
    ($fitted:ident) => {
        impl bl_core::PredictInplace<[[usize; 3]], Vec<f64>> for $fitted {
            type Error = crate::TensorError;

            /// The model's value at each entry `[i, j, k]` (the completed entries of a
            /// tensor with missing values).
            ///
            /// # Errors
            /// An index outside the fitted shape, or `targets` of another length than
            /// `entries`.
            fn predict_inplace(
                &self,
                entries: &[[usize; 3]],
                targets: &mut Vec<f64>,
            ) -> crate::Result<()> {
                crate::predict::check_entries(self.shape, entries, targets.len())?;
                for (t, &e) in targets.iter_mut().zip(entries) {
                    *t = self.entry(e);
                }
                Ok(())
            }

            fn default_target(&self, entries: &[[usize; 3]]) -> crate::Result<Vec<f64>> {
                Ok(bl_core::limits::try_zeroed("entries", &[entries.len()])?)
            }
        }
    };
}
