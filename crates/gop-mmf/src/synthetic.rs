//! The synthetic instances of the paper's Sec. 5, `K = 2`, `y = x* theta*` (the paper
//! states no noise).
//!
//! Table 1 (Sec. 5.3.2), [`table1_instance`]: `x*` (`M x 2`): the first quarter of the rows
//! is `(1, 0)`, the second quarter `(0, -1)`, and every entry of the second half is
//! `N(0, 0.5^2)` (drawn column by column from a seeded generator). `theta*` (`2 x N`):
//! component 1 is `N` evenly spaced samples over `[0, 1]`, component 2 over `[1, 0]`, so
//! every column lies on the simplex. The paper does not state the l1 budget `P`; we use
//! `||x*||_1`, so `x*` is feasible.
//!
//! The illustrative example (Sec. 5.1), [`illustrative`]: `y = [0, -1, -0.5]` (`M = 1`,
//! `N = 3`), `K = 2`, `P = 1`, `eps = 0.01`; its global optimum is 0.
//!
//! Fig. 3 (Sec. 5.2), [`fig3_instance`]: `M = 1`, `x* = (0, -1)` (the caption of Fig. 3b),
//! `theta*_1n` uniform on `[0, 1]` (seeded; the paper says only that the data are "randomly
//! generated" and that "the true theta is (0.22, 0.78)" in the plot of one `theta_n`),
//! `theta*_2n = 1 - theta*_1n`, `P = ||x*||_1 = 1`.

use faer::{Mat, MatRef};

use rand::RngExt;

use bl_core::limits;
use bl_core::params::{at_least, nonnegative};

use crate::error::Result;

/// A planted instance: the data and the factors that generated it.
#[derive(Debug, Clone)]
pub struct Planted {
    /// `y = x* theta*` (`M x N`).
    pub y: Mat<f64>,
    /// The planted `x*` (`M x 2`).
    pub x_star: Mat<f64>,
    /// The planted `theta*` (`2 x N`).
    pub theta_star: Mat<f64>,
    /// `P = ||x*||_1`.
    pub budget: f64,
}

/// The instances of Table 1 are [`Planted`] instances.
pub type Table1Instance = Planted;

fn planted(x_star: Mat<f64>, theta_star: Mat<f64>) -> Planted {
    let budget = (0..x_star.nrows())
        .flat_map(|j| (0..x_star.ncols()).map(move |k| (j, k)))
        .map(|(j, k)| x_star[(j, k)].abs())
        .sum();
    Planted {
        y: &x_star * &theta_star,
        x_star,
        theta_star,
        budget,
    }
}

/// The illustrative example of Sec. 5.1: the data `y = [0, -1, -0.5]` (`1 x 3`) and the
/// paper's settings `K = 2`, `P = 1`, `eps = 0.01` (`tol`), on one thread (the caller sets the
/// seed and anything else).
///
/// ```
/// use gop_mmf::{Fit, Fitted};
/// let (y, params) = gop_mmf::synthetic::illustrative();
/// let fit = params.seed(3).fit(&y.as_ref())?;
/// assert!(fit.certificate().certified);
/// # Ok::<(), gop_mmf::GopError>(())
/// ```
#[must_use]
pub fn illustrative() -> (Mat<f64>, crate::GopParams) {
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let params = crate::GopParams::default()
        .k(2)
        .budget(1.0)
        .tol(0.01)
        .threads(Some(1));
    (y, params)
}

/// The Fig. 3 instance with `n` samples (the paper: `n = 10`), drawn with `seed`.
///
/// # Errors
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) for `n < 1`, or an
/// `n` whose `2 x N` factor exceeds [`bl_core::limits::MAX_ELEMENTS`] values (checked
/// before anything is allocated).
pub fn fig3_instance(n: usize, seed: u64) -> Result<Planted> {
    at_least("N", n, 1)?;
    limits::buffer_len("N", &[2, n])?;
    let mut rng = bl_core::random::seeded_rng(seed);
    let first: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..1.0)).collect();
    let theta_star = Mat::from_fn(2, n, |k, s| if k == 0 { first[s] } else { 1.0 - first[s] });
    let x_star = Mat::from_fn(1, 2, |_, k| if k == 0 { 0.0 } else { -1.0 });
    Ok(planted(x_star, theta_star))
}

/// The Table 1 instance with `m` features and `n` samples, drawn with `seed`.
///
/// # Errors
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) for `m < 4` (the quarters would be empty) or `n < 2`
/// (`theta*` is evenly spaced over at least two samples), or sizes whose data (`M x N`)
/// or factors exceed [`bl_core::limits::MAX_ELEMENTS`] values (checked before anything is
/// allocated).
pub fn table1_instance(m: usize, n: usize, seed: u64) -> Result<Table1Instance> {
    at_least("M", m, 4)?;
    at_least("N", n, 2)?;
    limits::buffer_len("M", &[m, 2])?;
    limits::buffer_len("N", &[2, n])?;
    limits::buffer_len("M x N", &[m, n])?;
    let mut rng = bl_core::random::seeded_rng(seed);
    let x_star = Mat::from_fn(m, 2, |j, k| {
        if j < m / 4 {
            if k == 0 { 1.0 } else { 0.0 }
        } else if j < m / 2 {
            if k == 1 { -1.0 } else { 0.0 }
        } else {
            0.5 * bl_core::random::standard_normal(&mut rng)
        }
    });
    let theta_star = Mat::from_fn(2, n, |k, s| {
        let t = s as f64 / (n - 1) as f64;
        if k == 0 { t } else { 1.0 - t }
    });
    Ok(planted(x_star, theta_star))
}

/// `y` plus independent `N(0, sd^2)` noise on every entry, drawn column by column from a
/// generator seeded with `seed` (the noisy variant of the Table 1 data).
///
/// # Errors
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) for a negative or
/// non-finite `sd`.
pub fn with_noise(y: MatRef<'_, f64>, sd: f64, seed: u64) -> Result<Mat<f64>> {
    nonnegative("sd", sd)?;
    let mut rng = bl_core::random::seeded_rng(seed);
    Ok(Mat::from_fn(y.nrows(), y.ncols(), |j, s| {
        y[(j, s)] + sd * bl_core::random::standard_normal(&mut rng)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_instance_matches_its_definition() {
        let (m, n) = (20, 5);
        let inst = table1_instance(m, n, 3).unwrap();
        assert_eq!(inst.y.shape(), (m, n));
        for s in 0..n {
            let (a, b) = (inst.theta_star[(0, s)], inst.theta_star[(1, s)]);
            assert!(a >= 0.0 && b >= 0.0 && (a + b - 1.0).abs() < 1e-15);
            for j in 0..m {
                let direct = inst.x_star[(j, 0)] * a + inst.x_star[(j, 1)] * b;
                assert!((inst.y[(j, s)] - direct).abs() < 1e-15);
            }
        }
        assert_eq!(inst.x_star[(0, 0)], 1.0);
        assert_eq!(inst.x_star[(m / 4, 1)], -1.0);
        assert_eq!(inst.x_star[(m / 4, 0)], 0.0);
        let l1: f64 = (0..m)
            .map(|j| inst.x_star[(j, 0)].abs() + inst.x_star[(j, 1)].abs())
            .sum();
        assert_eq!(inst.budget, l1);
        // Seeded: the same seed gives the same data, another seed other noise.
        assert_eq!(table1_instance(m, n, 3).unwrap().y, inst.y);
        assert_ne!(table1_instance(m, n, 4).unwrap().y, inst.y);
        assert!(matches!(
            table1_instance(3, n, 0).map_err(|e| e.invalid_parameter()),
            Err(Some("M"))
        ));
        assert!(matches!(
            table1_instance(m, 1, 0).map_err(|e| e.invalid_parameter()),
            Err(Some("N"))
        ));
    }

    #[test]
    fn fig3_instance_matches_its_definition() {
        let inst = fig3_instance(10, 5).unwrap();
        assert_eq!(inst.y.shape(), (1, 10));
        assert_eq!((inst.x_star[(0, 0)], inst.x_star[(0, 1)]), (0.0, -1.0));
        assert_eq!(inst.budget, 1.0);
        for s in 0..10 {
            let (a, b) = (inst.theta_star[(0, s)], inst.theta_star[(1, s)]);
            assert!((0.0..=1.0).contains(&a) && (a + b - 1.0).abs() < 1e-15);
            // y_n = x* theta*_n = -theta*_2n.
            assert!((inst.y[(0, s)] + b).abs() < 1e-15);
        }
        assert_eq!(fig3_instance(10, 5).unwrap().y, inst.y);
        assert_ne!(fig3_instance(10, 6).unwrap().y, inst.y);
        assert!(fig3_instance(0, 5).is_err());
    }

    #[test]
    fn noise_is_seeded_and_has_the_asked_scale() {
        let y = fig3_instance(400, 1).unwrap().y;
        assert_eq!(with_noise(y.as_ref(), 0.0, 9).unwrap(), y);
        let a = with_noise(y.as_ref(), 0.1, 9).unwrap();
        assert_eq!(with_noise(y.as_ref(), 0.1, 9).unwrap(), a);
        assert_ne!(with_noise(y.as_ref(), 0.1, 10).unwrap(), a);
        // The sample standard deviation of 400 draws is within 20 % of 0.1.
        let d: Vec<f64> = (0..400).map(|s| a[(0, s)] - y[(0, s)]).collect();
        let mean = d.iter().sum::<f64>() / 400.0;
        let sd = (d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 399.0).sqrt();
        assert!((sd - 0.1).abs() < 0.02, "{sd}");
        assert!(with_noise(y.as_ref(), -1.0, 9).is_err());
        assert!(with_noise(y.as_ref(), f64::NAN, 9).is_err());
    }
}
