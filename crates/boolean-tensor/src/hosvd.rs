//! The randomized HOSVD start of the CP-type baselines: the leading left singular vectors
//! of every unfolding by a sequentially truncated HOSVD with a randomized range finder,
//! and the size check of an exact HOSVD step.

use faer::{Mat, Par};

use crate::error::Result;
use crate::kernels::{Mttkrp, mode_product, unfolding_gram};
use crate::linalg::leading_eigenvectors;
use bl_core::limits::buffer_len;

/// Oversampling of the randomized range finder (Halko, Martinsson & Tropp 2011, Sec. 4.2).
pub(crate) const OVERSAMPLING: usize = 10;

/// The Gram matrix `X_(mode) X_(mode)^T` (`d_mode x d_mode`) of an exact HOSVD step holds
/// at most [`bl_core::limits::MAX_ELEMENTS`] values and can be reserved (a tensor with one
/// long mode, e.g. `200,000 x 1 x 1`, would ask for 320 GB).
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`].
pub(crate) fn check_gram_size(shape: [usize; 3], mode: usize) -> Result<()> {
    const NAME: &str = "mode length x mode length (HOSVD Gram matrix)";
    let n = buffer_len(NAME, &[shape[mode], shape[mode]])?;
    bl_core::limits::reservable::<f64>(NAME, &[n])?;
    Ok(())
}

/// The leading left singular vectors of every unfolding of a tensor, by a sequentially
/// truncated HOSVD (Vannieuwenhoven, Vandebril & Meerbergen 2012) with a randomized range
/// finder (Halko, Martinsson & Tropp 2011, Alg. 4.1) on each mode whose length and the
/// product of the other two (current) lengths both exceed `min(rank, d_n) + 10`, an exact
/// step otherwise: mode `n`'s `min(rank, d_n)` vectors are those of the tensor already
/// projected on the modes before it. The test matrix of the range finder is the
/// Khatri–Rao product of two Gaussian factors, so the sketch is one MTTKRP. Costs about
/// two passes of `rank + 10` columns over the tensor (an ALS sweep costs two passes of
/// `rank` columns); the exact HOSVD costs one Gram matrix `X_(n) X_(n)^T` per mode.
pub(crate) fn randomized_hosvd(
    data: &[f64],
    shape: [usize; 3],
    rank: usize,
    rng: &mut impl rand::Rng,
) -> Result<[Mat<f64>; 3]> {
    let mut cur = Vec::new();
    let mut s = shape;
    let mut out = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
    for (mode, u) in out.iter_mut().enumerate() {
        // Mode 0 reads the data in place; the later modes the projected tensor.
        let src = if mode == 0 { data } else { &cur };
        let (v, projected) = leading_vectors(src, s, mode, rank.min(shape[mode]), rng)?;
        s[mode] = v.ncols();
        (*u, cur) = (v, projected);
    }
    Ok(out)
}

/// `r` leading left singular vectors `U` of `X_(mode)` (exact when the mode is short,
/// randomized range finder otherwise) and the projected data `X x_mode U^T`.
fn leading_vectors(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    r: usize,
    rng: &mut impl rand::Rng,
) -> Result<(Mat<f64>, Vec<f64>)> {
    let (a, b) = crate::tensor::other_modes(mode);
    let k = r + OVERSAMPLING;
    if k >= shape[mode] || k >= shape[a] * shape[b] {
        check_gram_size(shape, mode)?;
        let u = leading_eigenvectors(unfolding_gram(data, shape, mode).as_ref(), r)?;
        let projected = mode_product(data, shape, mode, u.transpose());
        return Ok((u, projected));
    }
    // Range finder: Y = X_(n) (G_b (.) G_a), Q = orth(Y).
    let mut g = [Mat::zeros(0, 0), Mat::zeros(0, 0), Mat::zeros(0, 0)];
    for m in [a, b] {
        g[m] = bl_core::random::standard_normal_mat(rng, shape[m], k)?;
    }
    let mut y = Mat::zeros(shape[mode], k);
    Mttkrp::default().compute(data, shape, mode, g.each_ref().map(Mat::as_ref), y.as_mut());
    let q = thin_q(y);
    // Leading vectors V of Z_(n), Z = X x_n Q^T, mapped back by Q; the projection
    // X x_n U^T = Z x_n V^T follows from Z without another pass over X.
    let z = mode_product(data, shape, mode, q.transpose());
    let mut zs = shape;
    zs[mode] = k;
    let v = leading_eigenvectors(unfolding_gram(&z, zs, mode).as_ref(), r)?;
    let projected = mode_product(&z, zs, mode, v.transpose());
    Ok((&q * &v, projected))
}

/// The orthonormal factor `Q` (`m x n`) of the thin QR decomposition of `y` (`m >= n`),
/// by faer's blocked Householder QR on one thread. faer's `Mat::qr` runs on the global
/// parallelism setting: on the sketches here (`d x (rank + 10)`) its rayon tasks cost
/// more than they save (measured 45 x 25 to 150 x 25: 53-320 us on 2 threads against
/// 15-43 us on one).
fn thin_q(mut y: Mat<f64>) -> Mat<f64> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::{householder, qr::no_pivoting::factor};
    let (m, n) = y.shape();
    let block = factor::recommended_block_size::<f64>(m, n);
    let mut coeff = Mat::zeros(block, n);
    factor::qr_in_place(
        y.as_mut(),
        coeff.as_mut(),
        Par::Seq,
        MemStack::new(&mut MemBuffer::new(factor::qr_in_place_scratch::<f64>(
            m,
            n,
            block,
            Par::Seq,
            Default::default(),
        ))),
        Default::default(),
    );
    // The Householder basis: the strictly lower part of the factored matrix with a unit
    // diagonal.
    for j in 0..n {
        for i in 0..j.min(m) {
            y[(i, j)] = 0.0;
        }
        if j < m {
            y[(j, j)] = 1.0;
        }
    }
    let mut q = Mat::identity(m, n.min(m));
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        y.as_ref(),
        coeff.as_ref(),
        faer::Conj::No,
        q.as_mut(),
        Par::Seq,
        MemStack::new(&mut MemBuffer::new(
            householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(
                m,
                block,
                n.min(m),
            ),
        )),
    );
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::MatRef;

    fn max_abs_diff(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
        let mut m = 0.0_f64;
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                m = m.max((a[(i, j)] - b[(i, j)]).abs());
            }
        }
        m
    }

    /// The projector `U U^T` onto the span of `u`'s columns.
    fn projector(u: &Mat<f64>) -> Mat<f64> {
        u * u.transpose()
    }

    #[test]
    fn thin_q_is_faers_thin_q_on_one_thread() {
        let mut rng = bl_core::random::seeded_rng(5);
        for (m, n) in [(45, 25), (7, 7), (150, 25), (33, 1)] {
            let y = bl_core::random::standard_normal_mat(&mut rng, m, n).unwrap();
            let want = y.qr().compute_thin_Q();
            let got = super::thin_q(y.clone());
            assert_eq!(got.shape(), (m, n));
            assert!(
                max_abs_diff(got.as_ref(), want.as_ref()) <= 1e-12,
                "{m} x {n}"
            );
            // Orthonormal columns spanning the columns of y: Q Q^T y = y.
            let qtq = got.transpose() * &got;
            assert!(max_abs_diff(qtq.as_ref(), Mat::<f64>::identity(n, n).as_ref()) <= 1e-12);
            let back = &got * (got.transpose() * &y);
            assert!(max_abs_diff(back.as_ref(), y.as_ref()) <= 1e-10 * (1.0 + y.norm_max()));
        }
    }

    #[test]
    fn randomized_hosvd_spans_the_exact_hosvd_subspaces_of_a_low_rank_tensor() {
        // Multilinear rank (3, 3, 3) with modes longer than rank + oversampling, so the
        // randomized path runs on mode 0 and 1; the range finder is exact there.
        let shape = [30, 25, 20];
        let mut rng = bl_core::random::seeded_rng(11);
        let f = shape.map(|d| bl_core::random::standard_normal_mat(&mut rng, d, 3).unwrap());
        let x = crate::tensor::cp_to_tensor(f.each_ref().map(Mat::as_ref)).expect("valid");
        let u = randomized_hosvd(x.data(), shape, 3, &mut rng).expect("converges");
        for mode in 0..3 {
            let exact =
                crate::linalg::leading_left_vectors(x.unfold(mode).expect("valid").as_ref(), 3)
                    .expect("converges");
            let diff = max_abs_diff(projector(&u[mode]).as_ref(), projector(&exact).as_ref());
            assert!(diff < 1e-8, "mode {mode}: projectors differ by {diff}");
        }
    }
}
