//! The fit convention of the workspace: `Params -> fit(&data) -> Fitted*`.
//!
//! Every algorithm's parameter builder implements [`Fit`] for the data it learns from; the
//! fitted model implements [`Fitted`], whose [`report`](Fitted::report) gives the
//! iterations, the termination reason, the time and the trace of the run. Observers (any
//! [`Observer`], e.g. a closure) see every iteration through
//! [`fit_observed`](Fit::fit_observed).
//!
//! ```
//! use bl_core::engine::{run, FitReport, IterationView, Progress, StoppingRule};
//! use bl_core::fit::{Fit, Fitted};
//! use bl_core::engine::Observer;
//!
//! /// The mean of some numbers, by averaging iterations (a toy).
//! struct MeanParams { max_iter: usize }
//! struct FittedMean { mean: f64, report: FitReport }
//!
//! impl Fit<[f64]> for MeanParams {
//!     type Fitted = FittedMean;
//!     type Error = bl_core::BlError;
//!     fn fit_observed(&self, data: &[f64], observers: &mut [&mut dyn Observer])
//!         -> bl_core::Result<FittedMean> {
//!         bl_core::error::ensure_nonempty("data", data.len())?;
//!         let target = data.iter().sum::<f64>() / data.len() as f64;
//!         let mut mean = 0.0;
//!         let report = run(&StoppingRule::new(self.max_iter, 1e-9), observers, |_| {
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
//! let mut objectives = Vec::new();
//! let mut watch = |v: &IterationView<'_>| objectives.push(v.objective);
//! let fitted = MeanParams { max_iter: 100 }.fit_observed(&[1.0, 2.0, 6.0], &mut [&mut watch])?;
//! assert!((fitted.mean - 3.0).abs() < 1e-8);
//! assert!(fitted.report().converged());
//! assert_eq!(objectives.len(), fitted.report().iterations);
//! # Ok::<(), bl_core::BlError>(())
//! ```

use crate::engine::{FitReport, Observer};
use crate::error::BlError;

/// Parameters that learn a model from data of type `D`.
pub trait Fit<D: ?Sized> {
    /// The fitted model.
    type Fitted;
    /// The error of a failed fit; [`BlError`] converts into it.
    type Error: From<BlError>;

    /// Checks the parameters and the data, fits, and shows every iteration to `observers`.
    ///
    /// # Errors
    /// Invalid parameters or data, or a failure of the algorithm.
    fn fit_observed(
        &self,
        data: &D,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Self::Fitted, Self::Error>;

    /// Checks the parameters and the data and fits.
    ///
    /// # Errors
    /// Invalid parameters or data, or a failure of the algorithm.
    fn fit(&self, data: &D) -> Result<Self::Fitted, Self::Error> {
        self.fit_observed(data, &mut [])
    }
}

/// A fitted model and the report of the run that produced it.
pub trait Fitted {
    /// Iterations, termination reason, time and trace of the fit (for models fitted by
    /// several runs, e.g. one per class, the documentation of the model says which).
    fn report(&self) -> &FitReport;
}
