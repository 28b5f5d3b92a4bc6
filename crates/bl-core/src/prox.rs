//! Proximal operators and Euclidean projections.
//!
//! * [`soft_threshold`]: the prox of `tau |x|`, `S_tau(x) = sign(x) max(|x| - tau, 0)`.
//! * [`elastic_net_prox_step`]: the closed-form block update of SBLR (Shi, Xu, Baraniuk
//!   2014, eq. (10)): `argmin_U <G, U - Z> + L/2 ||U - Z||_F^2 + mu1 |U|_1 + mu2/2 ||U||_F^2
//!   = S_{mu1/(L+mu2)}((L Z - G)/(L + mu2))`.
//! * [`project_simplex`]: Euclidean projection onto `{x >= 0, sum x = radius}` by sorting
//!   (Held, Wolfe, Crowder 1974; Duchi et al. 2008), `O(n log n)`.
//! * [`project_l1_ball`]: Euclidean projection onto `{||x||_1 <= radius}` through the
//!   simplex projection of `|v|`.

use crate::error::{Result, ensure_finite, ensure_len, ensure_nonempty};

/// Soft-thresholding `S_tau(x) = sign(x) max(|x| - tau, 0)`, the prox of `tau |.|`.
///
/// `tau` must be `>= 0`; this scalar kernel does not check it (the slice versions do).
#[inline]
#[must_use]
pub fn soft_threshold(x: f64, tau: f64) -> f64 {
    if x > tau {
        x - tau
    } else if x < -tau {
        x + tau
    } else {
        0.0
    }
}

/// Writes `S_tau(x_i)` into `out_i` for every entry.
///
/// # Errors
/// Shape mismatch between `x` and `out`; `tau` negative or not finite.
pub fn soft_threshold_slice(x: &[f64], tau: f64, out: &mut [f64]) -> Result<()> {
    ensure_len("soft_threshold_slice: out", x.len(), out.len())?;
    crate::params::nonnegative("tau", tau)?;
    for (o, &v) in out.iter_mut().zip(x) {
        *o = soft_threshold(v, tau);
    }
    Ok(())
}

/// Replaces every entry `x_i` by `S_tau(x_i)`.
///
/// # Errors
/// `tau` negative or not finite.
pub fn soft_threshold_in_place(x: &mut [f64], tau: f64) -> Result<()> {
    crate::params::nonnegative("tau", tau)?;
    for v in x.iter_mut() {
        *v = soft_threshold(*v, tau);
    }
    Ok(())
}

/// The elastic-net proximal gradient step of SBLR eq. (10):
/// `out = S_{l1/(L+l2)}((L z - grad) / (L + l2))`.
///
/// This is the exact minimizer of `<grad, u - z> + L/2 ||u - z||^2 + l1 |u|_1 + l2/2 ||u||^2`,
/// i.e. one proximal gradient step of length `1/L` from `z` on the elastic-net penalty.
/// `z`, `grad` and `out` are flat views of matrices of the same shape (any layout, as long
/// as it is the same for all three).
///
/// # Errors
/// Length mismatch; `lipschitz <= 0`; `l1 < 0` or `l2 < 0`; any non-finite parameter.
pub fn elastic_net_prox_step(
    z: &[f64],
    grad: &[f64],
    lipschitz: f64,
    l1: f64,
    l2: f64,
    out: &mut [f64],
) -> Result<()> {
    ensure_len("elastic_net_prox_step: grad", z.len(), grad.len())?;
    ensure_len("elastic_net_prox_step: out", z.len(), out.len())?;
    crate::params::positive("lipschitz", lipschitz)?;
    crate::params::nonnegative("l1", l1)?;
    crate::params::nonnegative("l2", l2)?;
    let denom = lipschitz + l2;
    let tau = l1 / denom;
    for ((o, &zi), &gi) in out.iter_mut().zip(z).zip(grad) {
        *o = soft_threshold((lipschitz * zi - gi) / denom, tau);
    }
    Ok(())
}

/// The elastic-net penalty `l1 |x|_1 + l2/2 ||x||^2` of a flat slice.
#[must_use]
pub fn elastic_net_penalty(x: &[f64], l1: f64, l2: f64) -> f64 {
    let (abs, sq) = x
        .iter()
        .fold((0.0, 0.0), |(a, s), &v| (a + v.abs(), s + v * v));
    l1 * abs + 0.5 * l2 * sq
}

/// Euclidean projection of `v` onto the scaled simplex `{x >= 0, sum x = radius}`.
/// With `radius = 1` this is the probability simplex.
///
/// Sort-based, `O(n log n)`; allocates one sorted copy of `v`.
///
/// # Errors
/// Empty input, length mismatch, non-finite entries, `radius <= 0`.
pub fn project_simplex(v: &[f64], radius: f64, out: &mut [f64]) -> Result<()> {
    ensure_nonempty("project_simplex: v", v.len())?;
    ensure_len("project_simplex: out", v.len(), out.len())?;
    ensure_finite("project_simplex: v", v)?;
    crate::params::positive("radius", radius)?;
    let theta = simplex_threshold(v, radius);
    for (o, &x) in out.iter_mut().zip(v) {
        *o = (x - theta).max(0.0);
    }
    Ok(())
}

/// The threshold `theta` such that `sum max(v_i - theta, 0) = radius`.
fn simplex_threshold(v: &[f64], radius: f64) -> f64 {
    let mut sorted = v.to_vec();
    sorted.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut cumsum = 0.0;
    let mut theta = 0.0;
    for (j, &u) in sorted.iter().enumerate() {
        cumsum += u;
        let candidate = (cumsum - radius) / (j + 1) as f64;
        if u - candidate > 0.0 {
            theta = candidate;
        } else {
            break;
        }
    }
    theta
}

/// Euclidean projection of `v` onto the l1 ball `{||x||_1 <= radius}`.
///
/// Points already inside are copied unchanged; otherwise the projection is
/// `sign(v) * P_simplex(|v|)`.
///
/// # Errors
/// Empty input, length mismatch, non-finite entries, `radius <= 0`.
pub fn project_l1_ball(v: &[f64], radius: f64, out: &mut [f64]) -> Result<()> {
    ensure_nonempty("project_l1_ball: v", v.len())?;
    ensure_len("project_l1_ball: out", v.len(), out.len())?;
    ensure_finite("project_l1_ball: v", v)?;
    crate::params::positive("radius", radius)?;
    let norm1: f64 = v.iter().map(|x| x.abs()).sum();
    if norm1 <= radius {
        out.copy_from_slice(v);
        return Ok(());
    }
    let abs: Vec<f64> = v.iter().map(|x| x.abs()).collect();
    let theta = simplex_threshold(&abs, radius);
    for (o, &x) in out.iter_mut().zip(v) {
        *o = soft_threshold(x, theta);
    }
    Ok(())
}
