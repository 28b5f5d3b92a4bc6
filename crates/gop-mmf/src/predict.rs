//! Prediction with a fitted model: the memberships `theta` of new samples at the fitted
//! `x`, by the exact primal problem of Sec. 3.2 (see [`crate::primal`]), in the manner of a
//! factorization's `transform`.

use bl_core::error::build::shape_mismatch;
use bl_core::predict::PredictInplace;
use faer::{Mat, MatRef};

use crate::error::{GopError, Result};
use crate::fitted::FittedGop;
use crate::primal::solve_primal;

/// The memberships of new samples `y` (`M x N'`, the `M` of the fit): for each column
/// `y_n`, the `theta_n` on the simplex that minimizes `||y_n - x theta_n||^2` at the fitted
/// `x` (`K x N'`). On the training data it gives the fitted [`FittedGop::theta`] back.
///
/// ```
/// use bl_core::Predict;
/// use faer::Mat;
/// use gop_mmf::{Fit, GopParams};
///
/// let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
/// let fit = GopParams::default().seed(7).threads(Some(1)).fit(&y.as_ref())?;
/// let new = Mat::from_fn(1, 2, |_, n| [-0.25, 0.0][n]);
/// let theta: Mat<f64> = fit.predict(&new.as_ref())?;
/// assert_eq!(theta.shape(), (2, 2));
/// for n in 0..2 {
///     assert!(((theta[(0, n)] + theta[(1, n)]) - 1.0).abs() < 1e-12);
/// }
/// // Samples with another number of rows are refused.
/// assert!(fit.predict(&Mat::<f64>::zeros(2, 1).as_ref()).is_err());
/// # Ok::<(), gop_mmf::GopError>(())
/// ```
impl<'a> PredictInplace<MatRef<'a, f64>, Mat<f64>> for FittedGop {
    type Error = GopError;

    /// # Errors
    /// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) (in [`GopError::Core`])
    /// when `y` does not have `M` rows or `theta` is not `K x N'`; a non-finite `y`; a
    /// primal without a KKT point ([`GopError::Primal`]).
    fn predict_inplace(&self, y: &MatRef<'a, f64>, theta: &mut Mat<f64>) -> Result<()> {
        let (m, k) = self.x.shape();
        let n = y.ncols();
        if y.nrows() != m {
            return Err(shape_mismatch(
                "y (samples to predict)",
                format!("{m} rows (the fitted x is {m} x {k})"),
                format!("{} rows", y.nrows()),
            ));
        }
        if theta.shape() != (k, n) {
            return Err(shape_mismatch(
                "theta (prediction target)",
                format!("{k} x {n}"),
                format!("{} x {}", theta.nrows(), theta.ncols()),
            ));
        }
        bl_core::linalg::ensure_finite_mat("y", *y)?;
        let x: Vec<f64> = (0..k)
            .flat_map(|a| (0..m).map(move |j| (a, j)))
            .map(|(a, j)| self.x[(j, a)])
            .collect();
        let mut ycol = bl_core::limits::try_with_capacity("y (M x N')", &[m, n])?;
        for s in 0..n {
            ycol.extend((0..m).map(|j| y[(j, s)]));
        }
        let primal = solve_primal(&x, &ycol, m, k, n)?;
        for s in 0..n {
            for a in 0..k {
                theta[(a, s)] = primal.theta[s * k + a];
            }
        }
        Ok(())
    }

    /// A `K x N'` target.
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) (in
    /// [`GopError::Core`]) when `K N'` exceeds [`bl_core::limits::MAX_ELEMENTS`].
    fn default_target(&self, y: &MatRef<'a, f64>) -> Result<Mat<f64>> {
        let k = self.x.ncols();
        bl_core::limits::buffer_len("theta (K x N')", &[k, y.ncols()])?;
        Ok(Mat::zeros(k, y.ncols()))
    }
}
