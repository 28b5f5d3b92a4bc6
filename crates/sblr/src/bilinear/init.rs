//! The starting point of the binary model (Sec. 7.1 and the other [`Init`] options).

use bl_core::data::Element;
use bl_core::linalg::top_singular_vectors;
use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::MatRef;

use crate::error::Result;
use crate::params::Init;
use crate::passes::Stacked;
use bl_core::error::build::{invalid, shape_mismatch};

/// The first `r` singular pairs of `m`, each pair signed so that the largest-magnitude
/// entry of the right vector is positive. Returns `(U, V)` column-major.
pub(crate) fn signed_top_pairs(m: MatRef<'_, f64>, r: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let (s, t) = (m.nrows(), m.ncols());
    let svd = top_singular_vectors(m, r)?;
    let mut u = vec![0.0; s * r];
    let mut v = vec![0.0; t * r];
    for k in 0..r {
        let mut best = 0;
        for j in 0..t {
            if svd.v[(j, k)].abs() > svd.v[(best, k)].abs() {
                best = j;
            }
        }
        let sign = if svd.v[(best, k)] < 0.0 { -1.0 } else { 1.0 };
        for a in 0..s {
            u[k * s + a] = sign * svd.u[(a, k)];
        }
        for j in 0..t {
            v[k * t + j] = sign * svd.v[(j, k)];
        }
    }
    Ok((u, v))
}

/// The starting point `(U^0 (s x r), V^0 (t x r), b^0)` of [`Init`], column-major.
///
/// # Errors
/// [`SblrError::InvalidRank`](crate::SblrError::InvalidRank) for a rank outside
/// `1..=min(s, t)` (checked before anything is allocated); a warm start of the wrong
/// shape; `BlError::InvalidParameter` for [`Init::WarmMultinomial`] (the multinomial
/// model's start); stacked data that are not `y.len()` samples of `s x t` with contiguous
/// columns (`BlError::Empty` for no label); an SVD failure.
pub fn initial_point<T: Element>(
    init: &Init,
    stacked: MatRef<'_, T>,
    s: usize,
    t: usize,
    y: &[f64],
    rank: usize,
    seed: u64,
) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    super::check_rank(rank, s, t)?;
    let data = Stacked::new(stacked, s, t, y.len())?;
    initial_point_with(init, s, t, y, rank, seed, |weights| {
        let mut m = vec![0.0; s * t];
        data.add_weighted_sum(weights, &mut m);
        let scale = 1.0 / y.len() as f64;
        m.iter_mut().for_each(|v| *v *= scale);
        Ok(m)
    })
}

/// [`initial_point`] with the weighted mean `(1/n) sum_i w_i X_i` (`s x t` column-major)
/// of the spectral starts computed by `weighted_mean` (one pass over the samples, wherever
/// they are). The rank must already be checked.
pub(crate) fn initial_point_with(
    init: &Init,
    s: usize,
    t: usize,
    y: &[f64],
    rank: usize,
    seed: u64,
    mut weighted_mean: impl FnMut(&[f64]) -> Result<Vec<f64>>,
) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    let mut mean = |weights: &[f64]| {
        let m = weighted_mean(weights)?;
        signed_top_pairs(MatRef::from_column_major_slice(&m, s, t), rank)
    };
    match init {
        Init::MeanSvd => {
            let (mut u, v) = mean(&vec![1.0; y.len()])?;
            u.iter_mut().for_each(|x| *x = -*x);
            Ok((u, v, 0.0))
        }
        Init::LabelWeightedSvd => {
            let (u, v) = mean(y)?;
            Ok((u, v, 0.0))
        }
        Init::Random => {
            let mut rng = seeded_rng(seed);
            let mut u = vec![0.0; s * rank];
            let mut v = vec![0.0; t * rank];
            fill_standard_normal(&mut rng, &mut u);
            fill_standard_normal(&mut rng, &mut v);
            let (cu, cv) = (1.0 / (s as f64).sqrt(), 1.0 / (t as f64).sqrt());
            u.iter_mut().for_each(|x| *x *= cu);
            v.iter_mut().for_each(|x| *x *= cv);
            Ok((u, v, 0.0))
        }
        Init::Warm { u, v, intercept } => {
            if u.len() != s * rank {
                return Err(shape_mismatch(
                    "warm start U",
                    format!("{s} x {rank} = {} values", s * rank),
                    format!("{} values", u.len()),
                ));
            }
            if v.len() != t * rank {
                return Err(shape_mismatch(
                    "warm start V",
                    format!("{t} x {rank} = {} values", t * rank),
                    format!("{} values", v.len()),
                ));
            }
            Ok((u.clone(), v.clone(), *intercept))
        }
        Init::WarmMultinomial { .. } => Err(invalid(
            "init",
            "WarmMultinomial",
            "MeanSvd, LabelWeightedSvd, Random or Warm for the binary model",
        )),
    }
}
