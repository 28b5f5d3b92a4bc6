//! The fully corrective step of BMP (eq. (9) of Chang et al.) and the residual updates.

use bl_core::linalg::LinearOperator;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};

use crate::atom::{Atom, atom_factor_mats};
use crate::common::check_atom_buffers;
use crate::error::Result;
use crate::linalg::solve_right_spd_ridged;
use crate::tensor::{Tensor, cp_reconstruct_into};
use bl_core::error::build::{invalid, shape_mismatch};

/// `data += sum_t c_t M_t` over all entries for the `(M_t, c_t)` in `terms`; with a mask,
/// the missing entries are then set to zero (`data = P_Omega(data + sum_t c_t M_t)`). One
/// pass over `data`.
pub(super) fn add_atoms_in_place(
    data: &mut [f64],
    shape: [usize; 3],
    terms: &[(&Atom, f64)],
    mask: Option<&[bool]>,
) {
    let [d0, d1, d2] = shape;
    for k in 0..d2 {
        for j in 0..d1 {
            let range = d0 * (j + d1 * k)..d0 * (j + d1 * k + 1);
            let col = &mut data[range.clone()];
            for &(atom, c) in terms {
                let s = c * atom.factor(1)[j] * atom.factor(2)[k];
                if s != 0.0 {
                    for (x, &a) in col.iter_mut().zip(atom.factor(0)) {
                        *x += s * a;
                    }
                }
            }
            if let Some(mask) = mask {
                for (x, &o) in col.iter_mut().zip(&mask[range]) {
                    if !o {
                        *x = 0.0;
                    }
                }
            }
        }
    }
}

/// Rebuilds the model `W = sum_i c_i M_i` and the residual `P_Omega(X - W)`; returns
/// `||P_Omega(X - W)||^2`.
pub(super) fn update_residual(
    x: &Tensor,
    atoms: &[Atom],
    c: &[f64],
    kr: &mut Mat<f64>,
    model: &mut [f64],
    residual: &mut [f64],
    par: Par,
) -> f64 {
    let shape = x.shape();
    let f = atom_factor_mats(atoms, c, shape);
    cp_reconstruct_into(f.each_ref().map(Mat::as_ref), kr, model, par);
    let mut sq = 0.0;
    for (idx, ((r, &xv), &wv)) in residual
        .iter_mut()
        .zip(x.data())
        .zip(model.iter())
        .enumerate()
    {
        *r = if x.is_observed(idx) { xv - wv } else { 0.0 };
        sq += *r * *r;
    }
    sq
}

/// `<X, M>` over the stored data (zeros at missing entries, so this is `<X, M>_Omega`),
/// as `f0^T X_(0) (f2 (x) f1)` with `X_(0)` a view of the data.
pub(crate) fn inner_with_data(x: &Tensor, atom: &Atom) -> f64 {
    let [d0, d1, d2] = x.shape();
    let mut y = vec![0.0; d1 * d2];
    // y = X_(0)^T f0.
    MatRef::from_column_major_slice(x.data(), d0, d1 * d2).apply_transpose(atom.factor(0), &mut y);
    let (f1, f2) = (atom.factor(1), atom.factor(2));
    let mut s = 0.0;
    for k in 0..d2 {
        let col = &y[k * d1..(k + 1) * d1];
        let dot: f64 = col.iter().zip(f1).map(|(a, b)| a * b).sum();
        s += f2[k] * dot;
    }
    s
}

/// The entries over which masked inner products are corrected.
pub(crate) enum EntrySet {
    /// Fully observed.
    All,
    /// Inner products over all entries minus those over these (missing) entries.
    Missing(Vec<usize>),
    /// Inner products over these (observed) entries.
    Observed(Vec<usize>),
}

impl EntrySet {
    /// The number of entries whose inner products are corrected (0 without a mask).
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::All => 0,
            Self::Missing(idx) | Self::Observed(idx) => idx.len(),
        }
    }

    pub(crate) fn new(x: &Tensor) -> Self {
        match x.mask() {
            None => Self::All,
            Some(mask) => {
                let n_obs = x.n_observed();
                if n_obs >= x.len() - n_obs {
                    Self::Missing((0..x.len()).filter(|&i| !mask[i]).collect())
                } else {
                    Self::Observed((0..x.len()).filter(|&i| mask[i]).collect())
                }
            }
        }
    }
}

/// The Gram matrix `Q_ij = <M_i, M_j>_Omega` of the atoms.
pub(crate) fn masked_gram(atoms: &[Atom], shape: [usize; 3], entries: &EntrySet) -> Mat<f64> {
    let k = atoms.len();
    let ones = vec![1.0; k];
    let f = atom_factor_mats(atoms, &ones, shape);
    let full = || {
        let g: Vec<Mat<f64>> = f
            .iter()
            .map(|fm| crate::linalg::gram(fm.as_ref()))
            .collect();
        Mat::from_fn(k, k, |i, j| g[0][(i, j)] * g[1][(i, j)] * g[2][(i, j)])
    };
    let entry_values = |idx: &[usize]| {
        let [d0, d1, _] = shape;
        Mat::from_fn(idx.len(), k, |s, a| {
            let e = idx[s];
            let (i, j, l) = (e % d0, (e / d0) % d1, e / (d0 * d1));
            f[0][(i, a)] * f[1][(j, a)] * f[2][(l, a)]
        })
    };
    match entries {
        EntrySet::All => full(),
        EntrySet::Missing(idx) => {
            let mut q = full();
            let e = entry_values(idx);
            matmul(
                q.as_mut(),
                Accum::Add,
                e.transpose(),
                e.as_ref(),
                -1.0,
                Par::Seq,
            );
            q
        }
        EntrySet::Observed(idx) => {
            let e = entry_values(idx);
            e.transpose() * &e
        }
    }
}

/// The fully corrective coefficients (eq. (9)): `argmin_c 1/2 ||P_Omega(X - sum_i c_i
/// M_i)||^2` given `b_i = <X, M_i>_Omega`, i.e. `Q c = b` by Cholesky, with a tiny ridge
/// (`1e-12` times the largest diagonal entry, then `1e-8`) if `Q` is singular (repeated
/// atoms).
pub(crate) fn fully_corrective(
    atoms: &[Atom],
    b: &[f64],
    shape: [usize; 3],
    entries: &EntrySet,
) -> Result<Vec<f64>> {
    let q = masked_gram(atoms, shape, entries);
    // Q is symmetric: c^T Q = b^T.
    let rhs = Mat::from_fn(1, b.len(), |_, j| b[j]);
    let c = solve_right_spd_ridged(
        q.as_ref(),
        rhs.as_ref(),
        &[0.0, 1e-12, 1e-8],
        "fully corrective least squares",
    )?;
    Ok((0..b.len()).map(|j| c[(0, j)]).collect())
}

/// The fully corrective coefficients of `atoms` for the data `x` (its mask respected):
/// `argmin_c 1/2 ||P_Omega(X - sum_i c_i M_i)||_F^2` (eq. (9) of Chang et al.).
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when an atom's shape differs from `x`'s;
/// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) for no atoms, or for so many atoms that a buffer
/// of the solve (`K x K`, `d1 d2 x K`, the masked entries `x K`) would exceed
/// [`bl_core::limits::MAX_ELEMENTS`] values or cannot be reserved;
/// [`BlError::Numerical`](bl_core::BlError::Numerical) when the Gram matrix of the atoms on
/// the observed entries cannot be factored even with the ridges of the solve (atoms that
/// are linearly dependent there get the ridge-regularized coefficients, not an error).
pub fn fully_corrective_coefficients(x: &Tensor, atoms: &[Atom]) -> Result<Vec<f64>> {
    if atoms.is_empty() {
        return Err(invalid("atoms", "[]", "at least one atom"));
    }
    if let Some(a) = atoms.iter().find(|a| a.shape() != x.shape()) {
        return Err(shape_mismatch(
            "fully_corrective_coefficients: atom shape",
            format!("{:?}", x.shape()),
            format!("{:?}", a.shape()),
        ));
    }
    let entries = EntrySet::new(x);
    check_atom_buffers("atoms", x.shape(), entries.len(), atoms.len())?;
    let b: Vec<f64> = atoms.iter().map(|a| inner_with_data(x, a)).collect();
    fully_corrective(atoms, &b, x.shape(), &entries)
}
