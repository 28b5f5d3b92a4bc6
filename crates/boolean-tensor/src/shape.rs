//! The plumbing every method of the crate shares (CONTRIBUTING.md, "the shape of every
//! crate"), written once: the checked-parameters newtype with its
//! [`bl_core::ParamGuard`] impl, and [`bl_core::Fitted`] for a fitted model that keeps
//! its report in a `report` field. Trait impls and methods cannot come from a function,
//! hence macros. (Builder setters come from [`bl_core::params::setters`].)

/// `Params => ValidParams; fn check(&self) { validations }` declares the newtype
/// `ValidParams(Params)` and implements [`bl_core::ParamGuard`] for `Params`: the
/// validations run (each returns early with its error), then the parameters are wrapped.
macro_rules! param_guard {
    (
        $(#[$sattr:meta])*
        $params:ident => $valid:ident;
        $(#[$cattr:meta])*
        fn check(&$this:ident) $body:block
    ) => {
        $(#[$sattr])*
        #[derive(Debug, Clone)]
        pub struct $valid($params);

        impl bl_core::ParamGuard for $params {
            type Checked = $valid;
            type Error = crate::TensorError;

            $(#[$cattr])*
            fn check(&$this) -> crate::Result<$valid> {
                $body
                Ok($valid($this.clone()))
            }
        }
    };
}

/// `Params -> Fitted by method` implements [`bl_core::Fit`] on tensors for `Params`:
/// check the parameters ([`bl_core::ParamGuard`]), then run the inherent
/// `method(&self, x, observers)` of the checked parameters (so a fit never reads an
/// unchecked value). The doc lines document `fit_observed`.
macro_rules! fit_checked {
    ($(#[$attr:meta])* $params:ident -> $fitted:ident by $method:ident) => {
        impl bl_core::Fit<crate::Tensor> for $params {
            type Fitted = $fitted;
            type Error = crate::TensorError;

            $(#[$attr])*
            fn fit_observed(
                &self,
                x: &crate::Tensor,
                observers: &mut [&mut dyn bl_core::Observer],
            ) -> crate::Result<$fitted> {
                bl_core::ParamGuard::check(self)?.0.$method(x, observers)
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
