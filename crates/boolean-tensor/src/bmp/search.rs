//! The atom search of BMP (Algorithm 2 of Chang et al. plus the rank-1 refinement of the
//! module docs of [`crate::bmp`]): the Boolean QP start, the single-row starts, the
//! alternation of the exact `z` update with the leading singular pair.

use bl_core::engine::{IterationParams, Progress, Stop, run};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use crate::atom::Atom;
use crate::error::Result;
use crate::metrics::best_boolean_fit;
use crate::qp::{QpSolver, maximize_checked};
use crate::tensor::{Tensor, check_mode, other_modes, unfolded_view};
use bl_core::error::build::{invalid, numerical};

/// The result of one atom search along one mode.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The atom (`u`, `w` of unit norm).
    pub atom: Atom,
    /// `<R, M> / ||M||_F` (`= -<grad F, M / ||M||_F>`); larger is better.
    pub score: f64,
    /// The mode searched.
    pub mode: usize,
    /// The Boolean QP's `z` before the alternation.
    pub qp_z: Vec<f64>,
    /// Number of `z` updates made by the alternation.
    pub alternations: usize,
    /// Leading singular pairs of this search whose power iteration ran out of iterations
    /// before its tolerance (see [`crate::bmp::AtomStep::unconverged_power`]); their
    /// pair is the last iterate, and the candidate's score is its singular value.
    pub unconverged_power: usize,
}

/// One atom search (Algorithm 2 plus the rank-1 refinement, see the module docs) along
/// `mode` for the residual `residual` (the negative gradient `P_Omega(X - W)`).
///
/// # Errors
/// [`crate::TensorError::InvalidMode`]; errors of the QP solver and of the SVD;
/// [`bl_core::BlError::InvalidParameter`] naming `solver` when its answer is not a 0/1
/// vector with one entry per row of `R_(mode)`.
pub fn search_atom(
    residual: &Tensor,
    mode: usize,
    solver: &dyn QpSolver,
    alternations: usize,
    seed: u64,
) -> Result<Candidate> {
    check_mode(mode)?;
    solver.check()?;
    search_in(
        residual.data(),
        residual.shape(),
        mode,
        &mut Mat::zeros(0, 0),
        solver,
        alternations,
        seed,
    )
}

pub(super) fn search_in(
    data: &[f64],
    shape: [usize; 3],
    mode: usize,
    buf: &mut Mat<f64>,
    solver: &dyn QpSolver,
    alternations: usize,
    seed: u64,
) -> Result<Candidate> {
    let g = unfolded_view(data, shape, mode, buf);
    let dn = g.nrows();
    let mut z = maximize_checked(solver, g, seed)?;
    let norms = row_norms(g);
    if z.iter().all(|&v| v == 0.0) {
        // Only when R_(n) = 0 (or the solver failed to move): take the heaviest row.
        let row = (0..dn)
            .max_by(|&i, &j| norms[i].total_cmp(&norms[j]))
            .unwrap_or(0);
        z[row] = 1.0;
    }
    let mut starts = vec![z.clone()];
    if alternations > 0 {
        // Extra starts from single heavy rows: a row of one atom alone is that atom's
        // slab, whose singular pair leads the alternation straight to it, while the QP's
        // `z` can be a union of several atoms on which the alternation stalls.
        let mut rows: Vec<(usize, f64)> = norms.iter().copied().enumerate().collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        // Spread over the heavier half: the very heaviest rows tend to lie in overlaps.
        let picks = (0..ROW_STARTS).map(|j| rows[(j * dn / (2 * ROW_STARTS)).min(dn - 1)]);
        for (row, norm) in picks {
            if norm <= 0.0 {
                break;
            }
            let mut z0 = vec![0.0; dn];
            z0[row] = 1.0;
            starts.push(z0);
        }
    }
    // The QP's start first; a row start replaces it only when strictly better.
    let mut best: Option<Candidate> = None;
    let mut unconverged = 0;
    for c in refine_all(Unfolded::Matrix(g), None, shape, mode, starts, alternations)? {
        unconverged += c.unconverged_power;
        if best
            .as_ref()
            .is_none_or(|b| c.score > b.score * (1.0 + 1e-12))
        {
            best = Some(c);
        }
    }
    let mut cand =
        best.ok_or_else(|| invalid::<crate::TensorError>("starts", "[]", "at least one start"))?;
    cand.qp_z = z;
    cand.unconverged_power = unconverged;
    Ok(cand)
}

/// Single-row starts of the alternation besides the QP's `z` (see `search_in`).
const ROW_STARTS: usize = 8;

/// The unfolded target `T_(mode)` the alternation multiplies with.
#[derive(Debug, Clone, Copy)]
pub(super) enum Unfolded<'a> {
    /// `T_(mode)` as a matrix (a view of the data, or a copy).
    Matrix(MatRef<'a, f64>),
    /// `X_(1) = [X_0^T, X_1^T, ...]` of column-major data of shape `shape`, `X_k` its
    /// `d0 x d1` mode-2 slab `k`, read in place (no copy of the unfolding).
    Mode1Slabs {
        /// The data, mode 0 fastest.
        data: &'a [f64],
        /// Its shape.
        shape: [usize; 3],
    },
}

impl Unfolded<'_> {
    fn nrows(&self) -> usize {
        match self {
            Self::Matrix(g) => g.nrows(),
            Self::Mode1Slabs { shape, .. } => shape[1],
        }
    }

    fn ncols(&self) -> usize {
        match self {
            Self::Matrix(g) => g.ncols(),
            Self::Mode1Slabs { shape, .. } => shape[0] * shape[2],
        }
    }

    /// Slab `k` of [`Unfolded::Mode1Slabs`] (`d0 x d1`).
    fn slab(data: &[f64], [d0, d1, _]: [usize; 3], k: usize) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&data[k * d0 * d1..(k + 1) * d0 * d1], d0, d1)
    }

    /// `out = T x` (`x`, `out` column-major with `cols` columns); for the slabs,
    /// `sum_k X_k^T x_k` with `x_k` rows `k d0..(k + 1) d0` of `x`.
    fn times(&self, out: &mut [f64], x: &[f64], cols: usize) {
        match *self {
            Self::Matrix(g) => product(out, g, x, cols),
            Self::Mode1Slabs { data, shape } => {
                let [d0, d1, d2] = shape;
                let mut o = MatMut::from_column_major_slice_mut(out, d1, cols);
                let x = MatRef::from_column_major_slice(x, d0 * d2, cols);
                o.fill(0.0);
                for k in 0..d2 {
                    matmul(
                        o.as_mut(),
                        Accum::Add,
                        Self::slab(data, shape, k).transpose(),
                        x.subrows(k * d0, d0),
                        1.0,
                        Par::Seq,
                    );
                }
            }
        }
    }

    /// `out = T^T x`; for the slabs, rows `k d0..(k + 1) d0` of `out` are `X_k x`.
    fn transpose_times(&self, out: &mut [f64], x: &[f64], cols: usize) {
        match *self {
            Self::Matrix(g) => product(out, g.transpose(), x, cols),
            Self::Mode1Slabs { data, shape } => {
                let [d0, d1, d2] = shape;
                let mut o = MatMut::from_column_major_slice_mut(out, d0 * d2, cols);
                let x = MatRef::from_column_major_slice(x, d1, cols);
                for k in 0..d2 {
                    matmul(
                        o.as_mut().subrows_mut(k * d0, d0),
                        Accum::Replace,
                        Self::slab(data, shape, k),
                        x,
                        1.0,
                        Par::Seq,
                    );
                }
            }
        }
    }
}

/// The alternation of step 2 from each of `starts` (one candidate per start, in order),
/// on the unfolded target `T_(mode) = g + c M_(mode)`, where `(M, c)` is an optional
/// atom along `mode` and its coefficient (the refit adds the atom back this way without
/// a pass over the tensor: `M_(mode) = z_M (w_M (x) u_M)^T` is rank 1). The starts still
/// moving advance together: a round is two matrix products with `g` (`V = g^T Z`, then
/// `g K` for the rank-1 pairs `K`), so it reads `g` twice whatever the number of starts,
/// where one alternation per start would read it twice per start. Each start's result is
/// that of its own alternation (up to the rounding of the products).
pub(super) fn refine_all(
    g: Unfolded<'_>,
    correction: Option<(&Atom, f64)>,
    shape: [usize; 3],
    mode: usize,
    mut starts: Vec<Vec<f64>>,
    alternations: usize,
) -> Result<Vec<Candidate>> {
    if starts.is_empty() {
        return Ok(Vec::new());
    }
    let (dn, m) = (g.nrows(), g.ncols());
    let (a, b) = other_modes(mode);
    let (da, db) = (shape[a], shape[b]);
    // The correction as `c z_M` and `w_M (x) u_M` (empty without one).
    let (cz, kron_m): (Vec<f64>, Vec<f64>) = match correction {
        Some((atom, c)) if atom.mode() == mode => (
            atom.z().iter().map(|&zi| c * zi).collect(),
            atom.w()
                .iter()
                .flat_map(|&wb| atom.u().iter().map(move |&ua| ua * wb))
                .collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    };
    let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
    let mut done: Vec<Option<Candidate>> = vec![None; starts.len()];
    let mut made = vec![0; starts.len()];
    let mut active: Vec<usize> = (0..starts.len()).collect();
    let (mut zmat, mut v, mut kron, mut r) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // One engine iteration per round: every start still moving is at its round-th
    // alternation, so `alternations + 1` rounds finish them all; the run is solved when
    // none is left.
    let mut unconverged = 0;
    let rule = IterationParams::new(alternations.saturating_add(1), 0.0).untraced();
    run(&rule, &mut [], |_| -> Result<Progress> {
        let s = active.len();
        zmat.clear();
        for &i in &active {
            zmat.extend_from_slice(&starts[i]);
        }
        v.resize(m * s, 0.0);
        g.transpose_times(&mut v, &zmat, s);
        if !cz.is_empty() {
            // + (c M_(mode))^T z = (c z_M . z) (w_M (x) u_M).
            for (j, &i) in active.iter().enumerate() {
                let t = dot(&cz, &starts[i]);
                for (vv, &km) in v[j * m..(j + 1) * m].iter_mut().zip(&kron_m) {
                    *vv += t * km;
                }
            }
        }
        // Singular pairs; the starts out of rounds are finished here.
        let mut moving = Vec::with_capacity(s);
        kron.clear();
        for (j, &i) in active.iter().enumerate() {
            let vj = MatRef::from_column_major_slice(&v[j * m..(j + 1) * m], da, db);
            let (u, w, sigma, converged) = leading_pair(vj)?;
            unconverged += usize::from(!converged);
            if made[i] >= alternations {
                done[i] = Some(finish(
                    mode,
                    std::mem::take(&mut starts[i]),
                    u,
                    w,
                    sigma,
                    made[i],
                ));
                continue;
            }
            kron.extend(w.iter().flat_map(|&wb| u.iter().map(move |&ua| ua * wb)));
            moving.push((i, u, w, sigma));
        }
        // The exact z update of each moving start.
        r.resize(dn * moving.len(), 0.0);
        g.times(&mut r, &kron, moving.len());
        if !cz.is_empty() {
            // + c M_(mode) k = ((w_M (x) u_M) . k) c z_M.
            for j in 0..moving.len() {
                let t = dot(&kron_m, &kron[j * m..(j + 1) * m]);
                for (rr, &czi) in r[j * dn..(j + 1) * dn].iter_mut().zip(&cz) {
                    *rr += t * czi;
                }
            }
        }
        active.clear();
        for (j, (i, u, w, sigma)) in moving.into_iter().enumerate() {
            let (z_new, _) = best_boolean_fit(&r[j * dn..(j + 1) * dn]);
            if z_new == starts[i] || z_new.iter().all(|&x| x == 0.0) {
                done[i] = Some(finish(
                    mode,
                    std::mem::take(&mut starts[i]),
                    u,
                    w,
                    sigma,
                    made[i],
                ));
            } else {
                starts[i] = z_new;
                made[i] += 1;
                active.push(i);
            }
        }
        let left = active.len() as f64;
        Ok(Progress::new(left, left).stop_if(active.is_empty().then_some(Stop::Solved)))
    })?;
    if done.iter().any(Option::is_none) {
        return Err(numerical::<crate::TensorError>(
            "atom search",
            "an alternation outlived its budget",
        ));
    }
    // The unconverged pairs are counted once per alternation, on the first candidate.
    let mut out: Vec<Candidate> = done.into_iter().flatten().collect();
    if let Some(first) = out.first_mut() {
        first.unconverged_power = unconverged;
    }
    Ok(out)
}

/// The candidate of a finished alternation: score `sigma / sqrt(|z|)`.
fn finish(
    mode: usize,
    z: Vec<f64>,
    u: Vec<f64>,
    w: Vec<f64>,
    sigma: f64,
    made: usize,
) -> Candidate {
    let size = z.iter().filter(|&&x| x != 0.0).count() as f64;
    Candidate {
        atom: Atom::new_unchecked(mode, z, u, w),
        score: sigma / size.sqrt(),
        mode,
        qp_z: Vec::new(),
        alternations: made,
        unconverged_power: 0,
    }
}

/// `out = a X` for `X` given column-major with `cols` columns (`out` likewise).
fn product(out: &mut [f64], a: MatRef<'_, f64>, x: &[f64], cols: usize) {
    matmul(
        MatMut::from_column_major_slice_mut(out, a.nrows(), cols),
        Accum::Replace,
        a,
        MatRef::from_column_major_slice(x, a.ncols(), cols),
        1.0,
        Par::Seq,
    );
}

/// The Euclidean norms of the rows of `g`, in one pass over its storage order.
fn row_norms(g: MatRef<'_, f64>) -> Vec<f64> {
    if g.row_stride() == 1 {
        // Column-major: accumulate column by column (a row is strided).
        let mut sq = vec![0.0; g.nrows()];
        for j in 0..g.ncols() {
            for (s, &v) in sq.iter_mut().zip(g.col(j).iter()) {
                *s += v * v;
            }
        }
        sq.into_iter().map(f64::sqrt).collect()
    } else {
        (0..g.nrows()).map(|i| g.row(i).norm_l2()).collect()
    }
}

/// Above this smaller dimension the leading pair comes from power iteration instead of
/// a full thin SVD.
const THIN_SVD_MAX: usize = 32;

/// The leading singular triplet `(u, w, sigma)` with `u^T V w = sigma >= 0`, and whether
/// it converged.
///
/// A thin SVD up to `min(d_a, d_b) = 32` (always converged, or an error); power iteration
/// on `V^T V` beyond (a few matrix-vector products; exact after one step when `V` is rank
/// 1, as for a true atom). Not a Krylov partial SVD: those can stall on exactly low-rank
/// `V` (noiseless data). A power iteration that runs out of its 1000 iterations before
/// the relative tolerance `1e-14` (a leading singular value almost repeated) returns its
/// last iterate with `false`: the pair is still a valid unit pair whose value lower-bounds
/// the leading singular value, so the search goes on with it, and the count reaches
/// the fit's report ([`crate::bmp::AtomStep::unconverged_power`]).
fn leading_pair(v: MatRef<'_, f64>) -> Result<(Vec<f64>, Vec<f64>, f64, bool)> {
    let (m, n) = (v.nrows(), v.ncols());
    if m.min(n) <= THIN_SVD_MAX {
        let svd = bl_core::linalg::thin_svd(v, "atom search: leading singular pair")?;
        let u: Vec<f64> = (0..m).map(|i| svd.u[(i, 0)]).collect();
        let w: Vec<f64> = (0..n).map(|i| svd.v[(i, 0)]).collect();
        return Ok((u, w, svd.s[0], true));
    }
    let params = bl_core::linalg::PowerIterationParams {
        max_iter: 1000,
        tol: 1e-14,
        seed: 0,
    };
    let t = bl_core::linalg::power_iteration(&v, None, &params)?;
    Ok((t.u, t.v, t.sigma, t.converged))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coin_starts(rng: &mut impl rand::Rng, n: usize, d: usize) -> Vec<Vec<f64>> {
        (0..n)
            .map(|_| {
                let mut z: Vec<f64> = (0..d)
                    .map(|_| f64::from(u8::from(rand::RngExt::random_bool(rng, 0.5))))
                    .collect();
                z[0] = 1.0;
                z
            })
            .collect()
    }

    #[test]
    fn refining_many_starts_together_equals_refining_each_alone() {
        let shape = [8, 5, 6];
        let mut rng = bl_core::random::seeded_rng(31);
        for trial in 0..6 {
            let g = bl_core::random::standard_normal_mat(&mut rng, 8, 30).unwrap();
            let starts = coin_starts(&mut rng, 5, 8);
            for alternations in [0, 2, 10] {
                let together = refine_all(
                    Unfolded::Matrix(g.as_ref()),
                    None,
                    shape,
                    0,
                    starts.clone(),
                    alternations,
                )
                .expect("runs");
                assert_eq!(together.len(), starts.len());
                for (start, cand) in starts.iter().zip(&together) {
                    let alone = refine_all(
                        Unfolded::Matrix(g.as_ref()),
                        None,
                        shape,
                        0,
                        vec![start.clone()],
                        alternations,
                    )
                    .expect("runs");
                    assert_eq!(alone[0].atom.z(), cand.atom.z(), "trial {trial}");
                    assert_eq!(alone[0].alternations, cand.alternations);
                    assert!(cand.alternations <= alternations);
                    assert!((alone[0].score - cand.score).abs() <= 1e-10 * cand.score);
                    // Independent check of the score: the largest singular value of
                    // g^T z (as a d1 x d2 matrix) over sqrt(|z|).
                    let z = cand.atom.z();
                    let v = Mat::from_fn(5, 6, |a, b| {
                        (0..8).map(|i| g[(i, a + 5 * b)] * z[i]).sum::<f64>()
                    });
                    let sigma = v.singular_values().expect("svd")[0];
                    let size = z.iter().sum::<f64>();
                    assert!((cand.score - sigma / size.sqrt()).abs() <= 1e-9 * cand.score);
                }
            }
        }
    }

    #[test]
    fn the_mode_1_slabs_equal_the_copied_unfolding() {
        let shape = [7, 9, 5];
        let mut rng = bl_core::random::seeded_rng(33);
        let data: Vec<f64> = (0..7 * 9 * 5)
            .map(|_| bl_core::random::standard_normal(&mut rng))
            .collect();
        let x = Tensor::from_vec(shape, data).expect("finite");
        let copy = x.unfold(1).expect("valid mode");
        let slabs = Unfolded::Mode1Slabs {
            data: x.data(),
            shape,
        };
        // The two products against the copied unfolding.
        let z = bl_core::random::standard_normal_mat(&mut rng, 9, 3).unwrap();
        let k = bl_core::random::standard_normal_mat(&mut rng, 35, 2).unwrap();
        let mut v = vec![0.0; 35 * 3];
        let zs: Vec<f64> = (0..3).flat_map(|c| z.col(c).iter().copied()).collect();
        slabs.transpose_times(&mut v, &zs, 3);
        let want_v = copy.transpose() * &z;
        let mut r = vec![0.0; 9 * 2];
        let ks: Vec<f64> = (0..2).flat_map(|c| k.col(c).iter().copied()).collect();
        slabs.times(&mut r, &ks, 2);
        let want_r = &copy * &k;
        for c in 0..3 {
            for i in 0..35 {
                assert!(
                    (v[i + 35 * c] - want_v[(i, c)]).abs() <= 1e-12 * (1.0 + want_v[(i, c)].abs())
                );
            }
        }
        for c in 0..2 {
            for j in 0..9 {
                assert!(
                    (r[j + 9 * c] - want_r[(j, c)]).abs() <= 1e-12 * (1.0 + want_r[(j, c)].abs())
                );
            }
        }
        // And the alternation on both gives the same atoms.
        let starts = coin_starts(&mut rng, 4, 9);
        let on_copy = refine_all(
            Unfolded::Matrix(copy.as_ref()),
            None,
            shape,
            1,
            starts.clone(),
            10,
        )
        .expect("runs");
        let on_slabs = refine_all(slabs, None, shape, 1, starts, 10).expect("runs");
        for (a, b) in on_copy.iter().zip(&on_slabs) {
            assert_eq!(a.atom.z(), b.atom.z());
            assert!((a.score - b.score).abs() <= 1e-10 * a.score);
        }
    }

    #[test]
    fn the_correction_equals_adding_the_atom_to_the_target() {
        let shape = [6, 4, 5];
        let mut rng = bl_core::random::seeded_rng(32);
        let g = bl_core::random::standard_normal_mat(&mut rng, 6, 20).unwrap();
        let atom = Atom::new(
            0,
            vec![1.0, 0.0, 1.0, 1.0, 0.0, 0.0],
            vec![0.5, -0.5, 0.5, 0.5],
            vec![0.2, 0.4, -0.4, 0.6, 0.28_f64.sqrt()],
        )
        .expect("valid atom");
        let c = 2.5;
        // g + c z (w (x) u)^T, formed explicitly.
        let target = Mat::from_fn(6, 20, |i, col| {
            let (a, b) = (col % 4, col / 4);
            g[(i, col)] + c * atom.z()[i] * atom.u()[a] * atom.w()[b]
        });
        let starts = coin_starts(&mut rng, 4, 6);
        let corrected = refine_all(
            Unfolded::Matrix(g.as_ref()),
            Some((&atom, c)),
            shape,
            0,
            starts.clone(),
            10,
        )
        .expect("runs");
        let explicit = refine_all(
            Unfolded::Matrix(target.as_ref()),
            None,
            shape,
            0,
            starts,
            10,
        )
        .expect("runs");
        for (x, y) in corrected.iter().zip(&explicit) {
            assert_eq!(x.atom.z(), y.atom.z());
            assert!((x.score - y.score).abs() <= 1e-10 * y.score);
        }
    }
}
