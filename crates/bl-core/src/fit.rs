//! The fit convention of the workspace: `XParams -> check -> XValidParams -> fit(&data) ->
//! FittedX`, in the manner of linfa.
//!
//! [`Fit`] is implemented on the **checked** parameters, which never hold an invalid value;
//! a blanket implementation lets the unchecked builder fit too, by checking first
//! ([`ParamGuard::check`]) and handing over to the checked type. The fitted model
//! implements [`Fitted`], whose [`report`](Fitted::report) gives the iterations, the
//! termination reason, the time and the trace of the run. Observers (any [`Observer`], e.g.
//! a closure) see every iteration through [`fit_observed`](Fit::fit_observed); that is the
//! only way to watch or record a fit.
//!
//! ```
//! use bl_core::engine::{run, FitReport, IterationView, Observer, Progress};
//! use bl_core::fit::{Fit, Fitted};
//! use bl_core::{IterationParams, ParamGuard};
//!
//! /// The mean of some numbers, by averaging iterations (a toy).
//! #[derive(Debug, Clone, Default)]
//! struct MeanParams { iteration: IterationParams }
//! #[derive(Debug, Clone)]
//! struct MeanValidParams { iteration: IterationParams }
//! struct FittedMean { mean: f64, report: FitReport }
//!
//! impl ParamGuard for MeanParams {
//!     type Checked = MeanValidParams;
//!     type Error = bl_core::BlError;
//!     fn check(&self) -> bl_core::Result<MeanValidParams> {
//!         self.iteration.check()?;
//!         Ok(MeanValidParams { iteration: self.iteration })
//!     }
//! }
//!
//! impl Fit<[f64]> for MeanValidParams {
//!     type Fitted = FittedMean;
//!     type Error = bl_core::BlError;
//!     fn fit_observed(&self, data: &[f64], observers: &mut [&mut dyn Observer])
//!         -> bl_core::Result<FittedMean> {
//!         bl_core::error::ensure_nonempty("data", data.len())?;
//!         let target = data.iter().sum::<f64>() / data.len() as f64;
//!         let mut mean = 0.0;
//!         let report = run(&self.iteration, observers, |_| {
//!             let previous = mean;
//!             mean = 0.5 * (mean + target);
//!             Ok::<_, bl_core::BlError>(Progress::new((mean - target).abs(), (mean - previous).abs()))
//!         })?;
//!         Ok(FittedMean { mean, report })
//!     }
//! }
//! impl Fitted for FittedMean {
//!     fn report(&self) -> &FitReport { &self.report }
//! }
//!
//! let params = MeanParams { iteration: IterationParams::new(100, 1e-9) };
//! let mut objectives = Vec::new();
//! let mut watch = |v: &IterationView<'_>| objectives.push(v.objective);
//! // The builder fits through the blanket implementation: check, then fit.
//! let fitted = params.fit_observed(&[1.0, 2.0, 6.0], &mut [&mut watch])?;
//! assert!((fitted.mean - 3.0).abs() < 1e-8);
//! assert!(fitted.report().converged());
//! assert_eq!(objectives.len(), fitted.report().iterations);
//! // An invalid builder is refused before any work.
//! assert!(MeanParams { iteration: IterationParams::new(0, 1e-9) }.fit(&[1.0]).is_err());
//! # Ok::<(), bl_core::BlError>(())
//! ```

use crate::engine::{FitReport, Observer};
use crate::error::BlError;
use crate::params::ParamGuard;

/// Checked parameters that learn a model from data of type `D`.
///
/// Implement it on the checked type (`XValidParams`); the builder gets it by the blanket
/// implementation below.
pub trait Fit<D: ?Sized> {
    /// The fitted model.
    type Fitted;
    /// The error of a failed fit; [`BlError`] converts into it.
    type Error: From<BlError>;

    /// Checks the data, fits, and shows every iteration to `observers`.
    ///
    /// # Errors
    /// Invalid parameters or data, or a failure of the algorithm.
    fn fit_observed(
        &self,
        data: &D,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Self::Fitted, Self::Error>;

    /// Checks the data and fits.
    ///
    /// # Errors
    /// Invalid parameters or data, or a failure of the algorithm.
    fn fit(&self, data: &D) -> Result<Self::Fitted, Self::Error> {
        self.fit_observed(data, &mut [])
    }
}

/// The builder fits by checking itself and fitting the checked parameters.
impl<P, D> Fit<D> for P
where
    D: ?Sized,
    P: ParamGuard,
    P::Checked: Fit<D>,
    <P::Checked as Fit<D>>::Error: From<P::Error>,
{
    type Fitted = <P::Checked as Fit<D>>::Fitted;
    type Error = <P::Checked as Fit<D>>::Error;

    fn fit_observed(
        &self,
        data: &D,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Self::Fitted, Self::Error> {
        self.check()?.fit_observed(data, observers)
    }
}

/// A fitted model and the report of the run that produced it.
pub trait Fitted {
    /// Iterations, termination reason, time and trace of the fit (for models fitted by
    /// several runs, e.g. one per class, the documentation of the model says which).
    fn report(&self) -> &FitReport;
}
