//! Rank-1 atoms with one Boolean factor, Boolean factors, and the common interface of
//! fitted decompositions.

use faer::Mat;

use crate::error::{Result, TensorError};
use crate::tensor::{Tensor, check_mode, check_shape, cp_to_tensor, other_modes};
use bl_core::error::build::{invalid, shape_mismatch};

/// A rank-1 atom `z (x) u (x) w` of model (1) of Chang et al., placed in a 3-way tensor:
/// the Boolean factor `z` lies along mode [`Atom::mode`], `u` along the lower of the two
/// other modes and `w` along the higher one. For `mode = 1` the atom is `u (x) z (x) w`
/// (entry `(i, j, k)` is `u_i z_j w_k`).
///
/// ```
/// use boolean_tensor::Atom;
/// let atom = Atom::new(1, vec![1.0, 0.0], vec![2.0], vec![1.0, -1.0])?;
/// let t = atom.to_tensor(3.0)?; // 3 * u (x) z (x) w, shape (1, 2, 2)
/// assert_eq!(t.shape(), [1, 2, 2]);
/// assert_eq!(t.get(0, 0, 1), -6.0);
/// assert_eq!(t.get(0, 1, 0), 0.0);
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Atom {
    mode: usize,
    z: Vec<f64>,
    u: Vec<f64>,
    w: Vec<f64>,
}

impl Atom {
    /// An atom with Boolean `z` along `mode`, `u` along the lower other mode and `w`
    /// along the higher other mode.
    ///
    /// # Errors
    /// [`TensorError::InvalidMode`]; [`TensorError::EmptyMode`] for an empty vector;
    /// [`TensorError::NotBoolean`] for an entry of `z` other than `0.0`/`1.0`;
    /// [`TensorError::Core`] for non-finite `u` or `w`.
    pub fn new(mode: usize, z: Vec<f64>, u: Vec<f64>, w: Vec<f64>) -> Result<Self> {
        check_mode(mode)?;
        let (a, b) = other_modes(mode);
        let mut shape = [0; 3];
        shape[mode] = z.len();
        shape[a] = u.len();
        shape[b] = w.len();
        if let Some(m) = shape.iter().position(|&d| d == 0) {
            return Err(TensorError::EmptyMode { mode: m, shape });
        }
        check_boolean("z", &z)?;
        bl_core::error::ensure_finite("atom u", &u)?;
        bl_core::error::ensure_finite("atom w", &w)?;
        Ok(Self { mode, z, u, w })
    }

    pub(crate) fn new_unchecked(mode: usize, z: Vec<f64>, u: Vec<f64>, w: Vec<f64>) -> Self {
        Self { mode, z, u, w }
    }

    /// The mode of the Boolean factor.
    pub fn mode(&self) -> usize {
        self.mode
    }

    /// The Boolean factor (entries `0.0` or `1.0`).
    pub fn z(&self) -> &[f64] {
        &self.z
    }

    /// The real factor along the lower of the two other modes.
    pub fn u(&self) -> &[f64] {
        &self.u
    }

    /// The real factor along the higher of the two other modes.
    pub fn w(&self) -> &[f64] {
        &self.w
    }

    /// The factor along tensor mode `m` (`z`, `u` or `w`).
    ///
    /// # Panics
    /// When `m > 2` (a tensor has the modes 0, 1 and 2), as indexing an array of three
    /// does.
    pub fn factor(&self, m: usize) -> &[f64] {
        assert!(
            m < 3,
            "mode {m} out of range: a tensor has the modes 0, 1 and 2"
        );
        let (a, _) = other_modes(self.mode);
        if m == self.mode {
            &self.z
        } else if m == a {
            &self.u
        } else {
            &self.w
        }
    }

    /// The tensor shape this atom lives in.
    pub fn shape(&self) -> [usize; 3] {
        [
            self.factor(0).len(),
            self.factor(1).len(),
            self.factor(2).len(),
        ]
    }

    /// `||z (x) u (x) w||_F = sqrt(|z|) ||u|| ||w||`.
    pub fn norm(&self) -> f64 {
        let n = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        n(&self.z) * n(&self.u) * n(&self.w)
    }

    /// The Boolean factor with its mode.
    pub fn boolean_factor(&self) -> BooleanFactor {
        BooleanFactor {
            mode: self.mode,
            z: self.z.clone(),
        }
    }

    /// The dense tensor `coefficient * z (x) u (x) w`.
    ///
    /// # Errors
    /// [`BlError::NonFinite`](bl_core::BlError::NonFinite) when the product overflows (or
    /// `coefficient` is not finite); [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch)
    /// when the tensor has more than [`bl_core::limits::MAX_ELEMENTS`] entries or does not
    /// fit in memory.
    pub fn to_tensor(&self, coefficient: f64) -> Result<Tensor> {
        atoms_to_tensor(std::slice::from_ref(self), &[coefficient])
    }
}

pub(crate) fn check_boolean(what: &'static str, z: &[f64]) -> Result<()> {
    match z.iter().position(|&v| v != 0.0 && v != 1.0) {
        Some(index) => Err(TensorError::NotBoolean {
            what,
            index,
            value: z[index],
        }),
        None => Ok(()),
    }
}

/// The factor matrices `F_n` (`d_n x K`) of a list of atoms, coefficients folded into
/// the mode-0 factor: `sum_i c_i M_i = sum_i F0[:, i] (x) F1[:, i] (x) F2[:, i]`.
pub(crate) fn atom_factor_mats(
    atoms: &[Atom],
    coefficients: &[f64],
    shape: [usize; 3],
) -> [Mat<f64>; 3] {
    let k = atoms.len();
    let mut f: [Mat<f64>; 3] = [
        Mat::zeros(shape[0], k),
        Mat::zeros(shape[1], k),
        Mat::zeros(shape[2], k),
    ];
    for (i, atom) in atoms.iter().enumerate() {
        for (m, fm) in f.iter_mut().enumerate() {
            let scale = if m == 0 { coefficients[i] } else { 1.0 };
            for (r, &v) in atom.factor(m).iter().enumerate() {
                fm[(r, i)] = scale * v;
            }
        }
    }
    f
}

/// The tensor `sum_i c_i z_i (x) u_i (x) w_i` (fully observed), built as
/// [`cp_to_tensor`] builds a CP model: the size of the tensor is
/// checked before it is allocated, and the atoms are added in blocks whose workspace is
/// no larger than the tensor.
///
/// # Errors
/// [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when the atoms live in different shapes, the number
/// of coefficients differs from the number of atoms, or the tensor has more than
/// [`bl_core::limits::MAX_ELEMENTS`] entries (or more than fit in memory, or a number of
/// entries that overflows `usize`); [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
/// for an empty list; [`BlError::NonFinite`](bl_core::BlError::NonFinite).
pub fn atoms_to_tensor(atoms: &[Atom], coefficients: &[f64]) -> Result<Tensor> {
    let Some(first) = atoms.first() else {
        return Err(invalid("atoms", "[]", "at least one atom"));
    };
    if coefficients.len() != atoms.len() {
        return Err(shape_mismatch(
            "atoms_to_tensor: coefficients",
            atoms.len(),
            coefficients.len(),
        ));
    }
    let shape = first.shape();
    if let Some(bad) = atoms.iter().find(|a| a.shape() != shape) {
        return Err(shape_mismatch(
            "atoms_to_tensor: atom shapes",
            format!("{shape:?}"),
            format!("{:?}", bad.shape()),
        ));
    }
    // Refused before the factor matrices are built (they are no larger than the atoms).
    check_shape(shape)?;
    let f = atom_factor_mats(atoms, coefficients, shape);
    cp_to_tensor(f.each_ref().map(Mat::as_ref))
}

/// A Boolean factor `z` and the tensor mode it lies along.
#[derive(Debug, Clone, PartialEq)]
pub struct BooleanFactor {
    /// Tensor mode (0, 1 or 2).
    pub mode: usize,
    /// Entries `0.0` or `1.0` (kept as `f64` to combine with real factors).
    pub z: Vec<f64>,
}

/// What every fitted decomposition of this crate offers to the metrics and the
/// experiments. (The model's values at chosen entries, e.g. the missing entries of a
/// completion, come from [`bl_core::Predict`]: every fitted model implements
/// `PredictInplace<[[usize; 3]], Vec<f64>>`, which checks the indices.)
pub trait Decomposition {
    /// The whole fitted tensor `W`, every entry (missing entries of the data are
    /// predicted).
    ///
    /// # Errors
    /// [`BlError::NonFinite`](bl_core::BlError::NonFinite) if the model overflows.
    fn reconstruct(&self) -> Result<Tensor>;
    /// The model's Boolean factors: empty for Tucker; for CP-ALS, which has none, every
    /// factor column binarized by its best scaled Boolean fit (see [`crate::cp`]).
    fn boolean_factors(&self) -> Vec<BooleanFactor>;
}
