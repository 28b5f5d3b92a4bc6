//! What the fits of the crate share: the ALS factor update, the size checks before a fit
//! allocates, the EM imputation of missing entries and the masked loss, and the report of
//! a fit made of several engine runs.

use faer::{Mat, MatRef, Par};

use crate::error::Result;
use crate::kernels::Mttkrp;
use crate::linalg::{gram, hadamard, solve_right_spd};
use crate::tensor::{Tensor, cp_reconstruct_into, other_modes};
use bl_core::limits::buffer_len;

/// One ALS update of the CP factor along `mode` for fixed other factors (Kolda & Bader
/// 2009, Fig. 3.3): `F_n = X_(n) (F_b (.) F_a) [(F_a^T F_a) * (F_b^T F_b)]^{-1}`, with `m`
/// the buffer of the MTTKRP (in-place kernel of [`crate::kernels`]).
pub(crate) fn als_update(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    f: &[Mat<f64>; 3],
    work: &mut Mttkrp,
    m: &mut Mat<f64>,
) -> Result<Mat<f64>> {
    let (a, b) = other_modes(mode);
    m.resize_with(shape[mode], f[0].ncols(), |_, _| 0.0);
    work.compute(data, shape, mode, f.each_ref().map(Mat::as_ref), m.as_mut());
    let g = hadamard(gram(f[a].as_ref()).as_ref(), gram(f[b].as_ref()).as_ref());
    solve_right_spd(g.as_ref(), m.as_ref())
}

/// The budget of an ALS fit (CP-ALS, SUSTain): `rank` and `n_starts` at least 1, and the
/// iteration knobs.
pub(crate) fn check_als_budget(
    rank: usize,
    n_starts: usize,
    iteration: &bl_core::IterationParams,
) -> Result<()> {
    bl_core::params::at_least("rank", rank, 1)?;
    iteration.check()?;
    bl_core::params::at_least("n_starts", n_starts, 1)?;
    Ok(())
}

/// The columns a fit of rank `R` stores per row, at most: `R` rounded up to the SIMD
/// lanes of the kernels (at most 8 more), or `R + OVERSAMPLING` for the sketches of the
/// HOSVD start.
fn padded_rank(rank: usize) -> usize {
    rank.saturating_add(crate::hosvd::OVERSAMPLING.max(8))
}

/// The size checks of a CP-form fit of rank `rank` on a tensor of shape `shape` (CP-ALS,
/// SUSTain, the HOSVD start), before anything is sized from the rank: the buffers with
/// `R` columns (factors `d_n x R`, the projections and Khatri–Rao products
/// `d_a d_b x R`, the partial sums of the MTTKRP, `REDUCTION_GROUPS + 1` of `d_n x R`,
/// the Gram matrices `R x R`; `R` padded as the kernels pad it) hold at most
/// [`bl_core::limits::MAX_ELEMENTS`] values each, and the largest one can be reserved.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] naming `name`.
pub(crate) fn check_rank_buffers(name: &'static str, shape: [usize; 3], rank: usize) -> Result<()> {
    let padded = padded_rank(rank);
    let partials = crate::kernels::REDUCTION_GROUPS + 1;
    let mut largest = buffer_len(name, &[padded, padded])?;
    for mode in 0..3 {
        let (a, b) = other_modes(mode);
        largest = largest.max(buffer_len(name, &[shape[a], shape[b], padded])?);
        largest = largest.max(buffer_len(name, &[partials, shape[mode], padded])?);
    }
    bl_core::limits::reservable::<f64>(name, &[largest])?;
    Ok(())
}

/// The size checks of a fit that adds up to `n_atoms` components to a tensor of shape
/// `shape` along the modes `modes` (LFM, LFMmix: Boolean columns `d_n x K`, weights
/// `K x d_a d_b`, Gram matrices `K x K`), as [`check_rank_buffers`].
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] naming `name`.
pub(crate) fn check_column_buffers(
    name: &'static str,
    shape: [usize; 3],
    modes: &[usize],
    n_atoms: usize,
) -> Result<()> {
    let mut largest = buffer_len(name, &[n_atoms, n_atoms])?;
    for &mode in modes {
        let (a, b) = other_modes(mode);
        largest = largest.max(buffer_len(name, &[shape[a], shape[b], n_atoms])?);
        largest = largest.max(buffer_len(name, &[shape[mode], n_atoms])?);
    }
    bl_core::limits::reservable::<f64>(name, &[largest])?;
    Ok(())
}

/// The size checks of a sum of `k` atoms fitted to a tensor of shape `shape` with
/// `corrected_entries` entries in the masked inner products (BMP, the fully corrective
/// coefficients): the factor matrices `d_n x K`, the Khatri–Rao workspace of the model
/// `d1 d2 x K`, the masked entries' values `|entries| x K` and the Gram matrix `K x K`
/// hold at most [`bl_core::limits::MAX_ELEMENTS`] values each, and the largest one can
/// be reserved.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] naming `name`.
pub(crate) fn check_atom_buffers(
    name: &'static str,
    shape: [usize; 3],
    corrected_entries: usize,
    k: usize,
) -> Result<()> {
    let mut largest = buffer_len(name, &[k, k])?;
    largest = largest.max(buffer_len(name, &[shape[1], shape[2], k])?);
    largest = largest.max(buffer_len(name, &[corrected_entries, k])?);
    for &d in &shape {
        largest = largest.max(buffer_len(name, &[d, k])?);
    }
    bl_core::limits::reservable::<f64>(name, &[largest])?;
    Ok(())
}

/// `1/2 ||X - W||^2` of a CP model `W = [[F_0, F_1, F_2]]` on a tensor without missing
/// entries, from `norm_sq = ||X||^2` and `m`, the MTTKRP of mode `last` computed with the
/// current other factors: `||X||^2 - 2 <X, W> + ||W||^2` with `<X, W> = sum(F_last .* m)`
/// (the MTTKRP does not depend on `F_last`) and `||W||^2` the sum of the Hadamard product
/// of the three Gram matrices. No pass over the tensor; clamped at 0 (the formula cancels
/// to rounding when the fit is exact).
pub(crate) fn cp_loss_from_mttkrp(
    norm_sq: f64,
    f: &[Mat<f64>; 3],
    last: usize,
    m: MatRef<'_, f64>,
) -> f64 {
    let rank = f[0].ncols();
    let g01 = hadamard(gram(f[0].as_ref()).as_ref(), gram(f[1].as_ref()).as_ref());
    let ww = hadamard(g01.as_ref(), gram(f[2].as_ref()).as_ref());
    let w_sq: f64 = (0..rank)
        .flat_map(|i| (0..rank).map(move |j| (i, j)))
        .map(|(i, j)| ww[(i, j)])
        .sum();
    let xw: f64 = (0..rank)
        .flat_map(|r| (0..m.nrows()).map(move |k| (k, r)))
        .map(|(k, r)| f[last][(k, r)] * m[(k, r)])
        .sum();
    0.5 * (norm_sq - 2.0 * xw + w_sq).max(0.0)
}

/// One EM step of a CP model with missing entries: rebuilds `model` from the factors,
/// refills the missing entries of `filled` from it, and returns the loss
/// `1/2 ||P_Omega(X - W)||^2` on the observed entries. `filled` holds the observed
/// entries of `x` already (a copy of its data, or the output of [`impute`]); without a
/// mask it is left as it is.
pub(crate) fn cp_em_step(
    x: &Tensor,
    f: &[Mat<f64>; 3],
    kr: &mut Mat<f64>,
    model: &mut [f64],
    filled: &mut [f64],
    par: Par,
) -> f64 {
    cp_reconstruct_into(f.each_ref().map(Mat::as_ref), kr, model, par);
    impute(x, model, filled);
    masked_loss(x, model)
}

/// Fills the missing entries of `out` from `model` and keeps the observed entries of `x`
/// (the EM imputation step used by the baselines for completion). `out` holds the observed
/// entries already (every caller starts it as a copy of the data and this step keeps
/// them), so without a mask there is nothing to do.
pub(crate) fn impute(x: &Tensor, model: &[f64], out: &mut [f64]) {
    if let Some(mask) = x.mask() {
        for (((o, &xv), &mv), &m) in out.iter_mut().zip(x.data()).zip(model).zip(mask) {
            *o = if m { xv } else { mv };
        }
    }
}

/// `1/2 ||P_Omega(X - W)||^2`, summed in eight fixed partial sums (entry `i` into sum
/// `i mod 8`, the sums added pairwise at the end): one chain of additions was bound by
/// the latency of the addition. The loop runs through `pulp::Arch::dispatch` (compiled
/// for AVX2 when the CPU has it): legacy-SSE code right after faer's AVX-512 products
/// (the model is rebuilt just before) can run on a dirty upper register state.
pub(crate) fn masked_loss(x: &Tensor, model: &[f64]) -> f64 {
    pulp::Arch::new().dispatch(MaskedLoss {
        data: x.data(),
        mask: x.mask(),
        model,
    })
}

/// The loop of [`masked_loss`].
struct MaskedLoss<'a> {
    data: &'a [f64],
    mask: Option<&'a [bool]>,
    model: &'a [f64],
}

impl pulp::WithSimd for MaskedLoss<'_> {
    type Output = f64;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> f64 {
        const LANES: usize = 8;
        let (data, model, mask) = (self.data, self.model, self.mask);
        let mut acc = [0.0_f64; LANES];
        let full = data.len() / LANES * LANES;
        for (c, (xs, ms)) in data[..full]
            .chunks_exact(LANES)
            .zip(model[..full].chunks_exact(LANES))
            .enumerate()
        {
            let mut add = [0.0_f64; LANES];
            for l in 0..LANES {
                let d = xs[l] - ms[l];
                add[l] = d * d;
            }
            if let Some(mask) = mask {
                for (a, &o) in add.iter_mut().zip(&mask[c * LANES..(c + 1) * LANES]) {
                    if !o {
                        *a = 0.0;
                    }
                }
            }
            for l in 0..LANES {
                acc[l] += add[l];
            }
        }
        for i in full..data.len() {
            if mask.is_none_or(|m| m[i]) {
                acc[i - full] += (data[i] - model[i]) * (data[i] - model[i]);
            }
        }
        let [a, b, c, d, e, f, g, h] = acc;
        0.5 * (((a + b) + (c + d)) + ((e + f) + (g + h)))
    }
}

/// One report for a fit made of several engine runs (starts, modes): every run's
/// iterations in order (each run numbers its own from 1 and tags them with an extra, e.g.
/// `start`; each record's time counts from the start of its run), their total count, the
/// termination and objective of the run `kept`. `elapsed` is left at zero: `fit_checked!`
/// sets it to the wall-clock time of the whole fit (the runs' own times would leave out
/// the work between runs, such as a start's initialisation, and count runs made in
/// parallel more than once).
pub(crate) fn combine_reports(
    reports: Vec<bl_core::engine::FitReport>,
    kept: usize,
) -> bl_core::engine::FitReport {
    let mut trace = bl_core::engine::Trace::default();
    let mut iterations = 0;
    let (mut termination, mut objective) = (bl_core::TerminationReason::MaxIterations, f64::NAN);
    for (i, report) in reports.into_iter().enumerate() {
        iterations += report.iterations;
        if i == kept {
            termination = report.termination;
            objective = report.objective;
        }
        for record in report.trace.records() {
            trace.push(record.clone());
        }
    }
    bl_core::engine::FitReport {
        iterations,
        termination,
        objective,
        elapsed: std::time::Duration::ZERO,
        trace,
    }
}

/// The worker threads of one fit: [`bl_core::IterationParams::pool`].
pub(crate) use bl_core::iteration::Pool as Workers;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_loss_matches_the_plain_sum() {
        // 3 * 5 * 7 = 105 entries: 13 full groups of eight and a tail of one.
        let shape = [3, 5, 7];
        let n = 105;
        let mut rng = bl_core::random::seeded_rng(21);
        let data: Vec<f64> = (0..n)
            .map(|_| bl_core::random::standard_normal(&mut rng))
            .collect();
        let model: Vec<f64> = (0..n)
            .map(|_| bl_core::random::standard_normal(&mut rng))
            .collect();
        let mask: Vec<bool> = (0..n).map(|i| i % 3 != 1).collect();
        let full = Tensor::from_vec(shape, data.clone()).expect("finite");
        let masked = Tensor::from_vec_masked(shape, data.clone(), mask.clone()).expect("valid");
        let plain = |observed: &dyn Fn(usize) -> bool| {
            0.5 * (0..n)
                .filter(|&i| observed(i))
                .map(|i| (data[i] - model[i]).powi(2))
                .sum::<f64>()
        };
        let want_full = plain(&|_| true);
        let want_masked = plain(&|i| mask[i]);
        assert!((masked_loss(&full, &model) - want_full).abs() <= 1e-12 * want_full);
        assert!((masked_loss(&masked, &model) - want_masked).abs() <= 1e-12 * want_masked);
        assert!(want_masked < want_full);
    }
}
