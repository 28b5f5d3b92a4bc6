//! The parameter convention of the workspace, and the shared validators.
//!
//! Every algorithm has a builder of unchecked parameters (`XParams`: `Default`, or for
//! chain-crf a constructor taking the trainer, `CrfParams::new(algorithm)`; one setter per
//! field) and a checked form (`XValidParams`, one getter per field). A knob whose setter
//! only stores and whose getter only reads is declared once, for both sides, by
//! [`knobs!`] ([`setters!`] and [`getters!`] write the others).
//! [`ParamGuard::check`] validates every field with the functions below and returns the
//! checked form, so a fit never reads an unchecked value. `Fit` (see [`crate::fit`]) is
//! implemented on the checked form; the builder fits through a blanket implementation that
//! checks first. Errors are [`BlError::InvalidParameter`], naming the field, the value and
//! the valid range.
//!
//! The conventions every params type follows:
//! - **Setters** on the builder are the field's name (`.rank(3)`); **getters** on the
//!   checked type are the field's name too (`.rank()`): no `get_`, no `.0`, no `Deref`.
//!   The builder has no getters (it is read after `check()`).
//! - **Iterative fits** embed an [`IterationParams`](crate::IterationParams) (budget,
//!   tolerance, time limit, threads, trace) with the setters of
//!   [`iteration_setters!`](crate::iteration_setters) and the getter `iteration()`
//!   (both written by the `..iteration;` entry of [`knobs!`]).
//! - **Plug-ins** are `Arc<dyn Trait>` fields (see [`crate::extension`]); `check()` calls
//!   their own `check()`.
//!
//! ```
//! use bl_core::params::{self, ParamGuard};
//!
//! #[derive(Debug, Clone)]
//! struct RidgeParams { alpha: f64, max_iter: usize }
//! #[derive(Debug, Clone)]
//! struct RidgeValidParams(RidgeParams);
//!
//! impl ParamGuard for RidgeParams {
//!     type Checked = RidgeValidParams;
//!     type Error = bl_core::BlError;
//!     fn check(&self) -> bl_core::Result<RidgeValidParams> {
//!         params::positive("alpha", self.alpha)?;
//!         params::at_least("max_iter", self.max_iter, 1)?;
//!         Ok(RidgeValidParams(self.clone()))
//!     }
//! }
//!
//! assert!(RidgeParams { alpha: 1.0, max_iter: 10 }.check().is_ok());
//! let err = RidgeParams { alpha: -1.0, max_iter: 10 }.check().unwrap_err();
//! assert_eq!(err.to_string(), "invalid parameter `alpha` = -1: must be finite and > 0");
//! ```

use crate::error::{BlError, Result};

/// Builder setters, written once: each `field: Type;` (after its doc lines) becomes
/// `#[must_use] pub fn field(mut self, field: Type) -> Self`, which stores the value in
/// the field of the same name. Used inside an `impl` block of a parameter builder.
///
/// ```
/// #[derive(Debug, Default)]
/// struct RidgeParams { alpha: f64, max_iter: usize }
///
/// impl RidgeParams {
///     bl_core::params::setters! {
///         /// Sets the penalty.
///         alpha: f64;
///         /// Sets the iteration budget.
///         max_iter: usize;
///     }
/// }
///
/// let params = RidgeParams::default().alpha(0.5).max_iter(7);
/// assert_eq!((params.alpha, params.max_iter), (0.5, 7));
/// ```
#[macro_export]
macro_rules! setters {
    ($($(#[$attr:meta])* $field:ident: $ty:ty;)*) => {
        $(
            $(#[$attr])*
            #[must_use]
            pub fn $field(mut self, $field: $ty) -> Self {
                self.$field = $field;
                self
            }
        )*
    };
}

pub use crate::setters;

/// Plain-name getters of a checked params type, written once: each `field: Type;` (after
/// its doc lines) becomes `#[must_use] pub fn field(&self) -> Type { self.field }` (a copy),
/// each `field: &Type;` becomes `pub fn field(&self) -> &Type { &self.field }`, and
/// `..field;` (the embedded [`IterationParams`](crate::IterationParams)) becomes
/// `pub fn iteration(&self) -> &IterationParams { &self.field }`: the entries of
/// [`knobs!`], so a list written for it also gives the getters of a second checked type.
/// Used inside an `impl` block of a checked type.
///
/// ```
/// #[derive(Debug)]
/// struct RidgeValidParams { alpha: f64, names: Vec<String> }
///
/// impl RidgeValidParams {
///     bl_core::params::getters! {
///         /// The penalty.
///         alpha: f64;
///         /// The feature names.
///         names: &[String];
///     }
/// }
///
/// let p = RidgeValidParams { alpha: 0.5, names: vec!["a".into()] };
/// assert_eq!((p.alpha(), p.names()), (0.5, &["a".to_string()][..]));
/// ```
///
/// A checked type that wraps its builder (or any struct) in a field reads through it with
/// `in field;` first: `getters! { in params; alpha: f64; }` writes
/// `pub fn alpha(&self) -> f64 { self.params.alpha }` (`in 0;` for a newtype).
///
/// ```
/// #[derive(Debug, Clone)]
/// struct RidgeParams { alpha: f64 }
/// #[derive(Debug)]
/// struct RidgeValidParams(RidgeParams);
///
/// impl RidgeValidParams {
///     bl_core::params::getters! {
///         in 0;
///         /// The penalty.
///         alpha: f64;
///     }
/// }
///
/// assert_eq!(RidgeValidParams(RidgeParams { alpha: 2.0 }).alpha(), 2.0);
/// ```
#[macro_export]
macro_rules! getters {
    (in $inner:tt;) => {};
    (in $inner:tt; $(#[$attr:meta])* ..$field:ident; $($rest:tt)*) => {
        $(#[$attr])*
        #[must_use]
        pub fn iteration(&self) -> &$crate::IterationParams {
            &self.$inner.$field
        }
        $crate::getters! { in $inner; $($rest)* }
    };
    (in $inner:tt; $(#[$attr:meta])* $field:ident: &$ty:ty; $($rest:tt)*) => {
        $(#[$attr])*
        #[must_use]
        pub fn $field(&self) -> &$ty {
            &self.$inner.$field
        }
        $crate::getters! { in $inner; $($rest)* }
    };
    (in $inner:tt; $(#[$attr:meta])* $field:ident: $ty:ty; $($rest:tt)*) => {
        $(#[$attr])*
        #[must_use]
        pub fn $field(&self) -> $ty {
            self.$inner.$field
        }
        $crate::getters! { in $inner; $($rest)* }
    };
    () => {};
    ($(#[$attr:meta])* ..$field:ident; $($rest:tt)*) => {
        $(#[$attr])*
        #[must_use]
        pub fn iteration(&self) -> &$crate::IterationParams {
            &self.$field
        }
        $crate::getters! { $($rest)* }
    };
    ($(#[$attr:meta])* $field:ident: &$ty:ty; $($rest:tt)*) => {
        $(#[$attr])*
        #[must_use]
        pub fn $field(&self) -> &$ty {
            &self.$field
        }
        $crate::getters! { $($rest)* }
    };
    ($(#[$attr:meta])* $field:ident: $ty:ty; $($rest:tt)*) => {
        $(#[$attr])*
        #[must_use]
        pub fn $field(&self) -> $ty {
            self.$field
        }
        $crate::getters! { $($rest)* }
    };
}

pub use crate::getters;

/// The knobs of a parameter builder and of its checked type, each declared once: one
/// list of `field: Type;` entries (each after its doc lines) writes the builder's setter
/// (as [`setters!`] does) and the checked type's getter (as [`getters!`] does), both with
/// the same doc. Write the doc as a noun phrase that reads right on both sides, with the
/// default and the valid range (`/// The penalty (default 1.0, finite and > 0).`), so
/// they are stated once. Used at item level (it writes the two `impl` blocks).
///
/// The first line names the two types and how the checked type reaches the builder's
/// fields: `Builder => Checked in params;` (the builder is held in the field `params`),
/// `Builder => Checked in 0;` (a newtype), or `Builder => Checked;` (the checked type has
/// the builder's fields itself). Then the entries:
/// - `field: Type;` — `pub fn field(mut self, field: Type) -> Self` on the builder and
///   `pub fn field(&self) -> Type` (a copy) on the checked type;
/// - `field: &Type;` — the setter takes `Type`, the getter lends `&Type`;
/// - `..field;` — the embedded [`IterationParams`](crate::IterationParams) in `field`:
///   the setters of [`iteration_setters!`](crate::iteration_setters) on the builder (the
///   doc goes to its `iteration(IterationParams)`) and `pub fn iteration(&self) ->
///   &IterationParams` on the checked type.
///
/// Every method is `#[must_use]`. A knob whose setter does more than store its argument,
/// whose getter is computed, or that exists on one side only is written with [`setters!`],
/// [`getters!`] or by hand.
///
/// ```
/// use bl_core::IterationParams;
///
/// #[derive(Debug, Clone)]
/// struct RidgeParams { alpha: f64, names: Vec<String>, iteration: IterationParams }
/// #[derive(Debug)]
/// struct RidgeValidParams { params: RidgeParams }
///
/// bl_core::params::knobs! {
///     RidgeParams => RidgeValidParams in params;
///     /// The penalty (default 1.0, finite and > 0).
///     alpha: f64;
///     /// The feature names (default none).
///     names: &Vec<String>;
///     /// The iteration knobs (default 100 iterations, tolerance 1e-6).
///     ..iteration;
/// }
///
/// let params = RidgeParams {
///     alpha: 1.0,
///     names: Vec::new(),
///     iteration: IterationParams::new(100, 1e-6),
/// }
/// .alpha(0.5)
/// .names(vec!["a".into()])
/// .max_iter(20);
/// let checked = RidgeValidParams { params };
/// assert_eq!((checked.alpha(), checked.names().len()), (0.5, 1));
/// assert_eq!((checked.iteration().max_iter, checked.iteration().tol), (20, 1e-6));
/// ```
#[macro_export]
macro_rules! knobs {
    (@setters) => {};
    (@setters $(#[$attr:meta])* ..$field:ident; $($rest:tt)*) => {
        $crate::iteration_setters!($(#[$attr])* $field);
        $crate::knobs! { @setters $($rest)* }
    };
    (@setters $(#[$attr:meta])* $field:ident: &$ty:ty; $($rest:tt)*) => {
        $crate::setters! { $(#[$attr])* $field: $ty; }
        $crate::knobs! { @setters $($rest)* }
    };
    (@setters $(#[$attr:meta])* $field:ident: $ty:ty; $($rest:tt)*) => {
        $crate::setters! { $(#[$attr])* $field: $ty; }
        $crate::knobs! { @setters $($rest)* }
    };
    ($builder:ident => $checked:ident in $inner:tt; $($entries:tt)*) => {
        impl $builder {
            $crate::knobs! { @setters $($entries)* }
        }

        impl $checked {
            $crate::getters! { in $inner; $($entries)* }
        }
    };
    ($builder:ident => $checked:ident; $($entries:tt)*) => {
        impl $builder {
            $crate::knobs! { @setters $($entries)* }
        }

        impl $checked {
            $crate::getters! { $($entries)* }
        }
    };
}

pub use crate::knobs;

/// Unchecked parameters that validate into a checked form.
pub trait ParamGuard {
    /// The checked parameters a fit reads.
    type Checked;
    /// The error of a failed check; [`BlError`] converts into it.
    type Error: From<BlError>;

    /// Validates every field and returns the checked parameters.
    ///
    /// # Errors
    /// The first invalid field, as [`BlError::InvalidParameter`] (or a crate error
    /// wrapping it).
    fn check(&self) -> std::result::Result<Self::Checked, Self::Error>;
}

pub use crate::error::invalid;

/// `value` must be finite.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn finite(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(invalid(name, value, "finite"))
    }
}

/// `value` must be finite and `> 0`.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn positive(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(invalid(name, value, "finite and > 0"))
    }
}

/// `value` must be finite and `>= 0`.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn nonnegative(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(name, value, "finite and >= 0"))
    }
}

/// `value` must lie in the closed interval `[low, high]`.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise (NaN included).
pub fn in_range(name: &'static str, value: f64, low: f64, high: f64) -> Result<()> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(invalid(name, value, format!("in [{low}, {high}]")))
    }
}

/// `value` must be a probability, in `[0, 1]`.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn probability(name: &'static str, value: f64) -> Result<()> {
    in_range(name, value, 0.0, 1.0)
}

/// A count must be at least `min`.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn at_least(name: &'static str, value: usize, min: usize) -> Result<()> {
    if value >= min {
        Ok(())
    } else {
        Err(invalid(name, value, format!(">= {min}")))
    }
}

/// A count must lie in `[min, max]`.
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn count_in(name: &'static str, value: usize, min: usize, max: usize) -> Result<()> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(invalid(name, value, format!("in {min} ..= {max}")))
    }
}
