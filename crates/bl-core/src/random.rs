//! Seeded random generators and standard-normal draws, shared by the crates' synthetic data.
//!
//! Every random choice in the workspace takes a `u64` seed (or a fixed one) and draws from
//! a [`Rng`] (`StdRng`) seeded by `StdRng::seed_from_u64`, as [`seeded_rng`] builds it, so
//! the same seed gives the same draws with the same build on the same platform. Across
//! versions of `rand` the stream may change (its `StdRng` is not promised to be portable),
//! and the normal draws use the platform's `exp` and `ln`, so a seed is not promised to
//! give the same bits on every platform.

use faer::Mat;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};

/// The workspace's random generator type.
pub type Rng = StdRng;

/// A generator seeded from `seed` (`StdRng::seed_from_u64`).
#[must_use]
pub fn seeded_rng(seed: u64) -> Rng {
    StdRng::seed_from_u64(seed)
}

/// A standard normal draw.
pub fn standard_normal<R: rand::Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

/// Fills `out` with independent standard normal draws.
pub fn fill_standard_normal<R: rand::Rng + ?Sized>(rng: &mut R, out: &mut [f64]) {
    for v in out.iter_mut() {
        *v = StandardNormal.sample(rng);
    }
}

/// A `rows x cols` matrix of independent standard normal entries (drawn column by column).
///
/// # Errors
/// [`BlError::InvalidParameter`](crate::BlError::InvalidParameter) when `rows x cols`
/// exceeds [`MAX_ELEMENTS`](crate::limits::MAX_ELEMENTS) values or cannot be allocated
/// ([`crate::limits::reservable`], checked before anything is allocated or drawn).
pub fn standard_normal_mat<R: rand::Rng + ?Sized>(
    rng: &mut R,
    rows: usize,
    cols: usize,
) -> crate::Result<Mat<f64>> {
    crate::limits::reservable::<f64>("standard_normal_mat: rows x cols", &[rows, cols])?;
    let mut m = Mat::<f64>::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            m[(i, j)] = StandardNormal.sample(rng);
        }
    }
    Ok(m)
}

/// A uniformly random unit vector in `R^n` (a normalized Gaussian); `n == 0` gives an empty
/// vector.
///
/// # Errors
/// [`BlError::InvalidParameter`](crate::BlError::InvalidParameter) when `n` exceeds
/// [`MAX_ELEMENTS`](crate::limits::MAX_ELEMENTS) or cannot be allocated
/// ([`crate::limits::try_zeroed`], checked before anything is drawn).
pub fn random_unit_vector<R: rand::Rng + ?Sized>(rng: &mut R, n: usize) -> crate::Result<Vec<f64>> {
    let mut v = crate::limits::try_zeroed::<f64>("random_unit_vector: n", &[n])?;
    loop {
        fill_standard_normal(rng, &mut v);
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n == 0 {
            return Ok(v);
        }
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
            return Ok(v);
        }
    }
}
