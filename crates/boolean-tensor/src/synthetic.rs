//! Synthetic data of model (1) of Chang et al.:
//! `X = sum_n sum_r z_n^r (x) u_n^r (x) w_n^r + E`.
//!
//! | name | default | meaning | valid range |
//! |---|---|---|---|
//! | `shape` | `(30, 30, 30)` | tensor shape | every mode `>= 1` |
//! | `n_atoms` | `3` | `K`, atoms spread over the modes round-robin (atom `r` along mode `r mod 3`) | `>= 1` |
//! | `p_one` | `0.5` | `P(z_i = 1)` (Bernoulli) | `(0, 1]` |
//! | `noise_std` | `0.0` | `sigma` of the Gaussian noise `E ~ N(0, sigma^2)` | finite, `>= 0` |
//! | `missing_fraction` | `0.0` | fraction of entries hidden by the mask (chosen uniformly, exactly `round(f d0 d1 d2)` of them, at most `d0 d1 d2 - 1`: one entry stays observed) | `[0, 1)` |
//! | `seed` | `0` | seeds every draw | any |
//!
//! `u, w ~ N(0, I)`. A drawn `z` with no nonzero entry is redrawn (an all-zero Boolean
//! factor carries no atom). Draw order (for reproducibility): atoms in order (`z`, `u`,
//! `w`), then the noise entry by entry, then the mask.

use rand::RngExt;
use rand::seq::SliceRandom;

use crate::atom::{Atom, atoms_to_tensor};
use crate::error::{Result, TensorError};
use crate::tensor::{Tensor, other_modes};
use bl_core::error::build::invalid;

/// The smallest chance of a nonzero Boolean factor [`SyntheticParams::check`] accepts
/// (an all-zero factor is redrawn).
const MIN_NONZERO_CHANCE: f64 = 1e-6;

/// The memory of an atom besides its values, in `f64` values, for the size check of
/// [`SyntheticParams::check`].
const ATOM_OVERHEAD: usize = 16;

/// Parameters of the synthetic generator (table in the module docs).
///
/// ```
/// use boolean_tensor::SyntheticParams;
/// let data = SyntheticParams::default().shape([10, 12, 14]).n_atoms(3).noise_std(0.1).seed(7).generate()?;
/// assert_eq!(data.clean().shape(), [10, 12, 14]);
/// assert_eq!(data.atoms().len(), 3);
/// assert_eq!(data.atoms()[1].mode(), 1);
/// # Ok::<(), boolean_tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticParams {
    shape: [usize; 3],
    n_atoms: usize,
    p_one: f64,
    noise_std: f64,
    missing_fraction: f64,
    seed: u64,
}

impl Default for SyntheticParams {
    fn default() -> Self {
        Self {
            shape: [30, 30, 30],
            n_atoms: 3,
            p_one: 0.5,
            noise_std: 0.0,
            missing_fraction: 0.0,
            seed: 0,
        }
    }
}

impl SyntheticParams {
    bl_core::params::setters! {
        /// Sets the tensor shape.
        shape: [usize; 3];
        /// Sets the number of atoms `K`.
        n_atoms: usize;
        /// Sets `P(z_i = 1)`.
        p_one: f64;
        /// Sets the noise standard deviation `sigma`.
        noise_std: f64;
        /// Sets the fraction of missing entries.
        missing_fraction: f64;
        /// Sets the seed.
        seed: u64;
    }

    /// Checks the parameters, before anything is allocated: the tensor's `d0 d1 d2`
    /// entries and the atoms' `n_atoms (d0 + d1 + d2 + 16)` values (16 for each atom's
    /// bookkeeping) are each at most
    /// [`bl_core::limits::MAX_ELEMENTS`], and a Boolean factor has a nonzero entry with
    /// probability `1 - (1 - p_one)^d >= 1e-6` on every mode (a factor is redrawn until it
    /// has one, so a smaller chance would take millions of draws).
    ///
    /// # Errors
    /// [`TensorError::EmptyMode`] or [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter).
    pub fn check(&self) -> Result<()> {
        if let Some(mode) = self.shape.iter().position(|&d| d == 0) {
            return Err(TensorError::EmptyMode {
                mode,
                shape: self.shape,
            });
        }
        bl_core::params::at_least("n_atoms", self.n_atoms, 1)?;
        bl_core::limits::buffer_len("shape", &self.shape)?;
        // An atom holds d0 + d1 + d2 values, plus its own bookkeeping (counted as
        // ATOM_OVERHEAD values: the struct and its three allocations).
        let atom_len = self
            .shape
            .iter()
            .fold(ATOM_OVERHEAD, |a, &d| a.saturating_add(d));
        bl_core::limits::buffer_len("n_atoms", &[self.n_atoms, atom_len])?;
        if !(self.p_one > 0.0 && self.p_one <= 1.0) {
            return Err(invalid("p_one", self.p_one, "in (0, 1]"));
        }
        // P(a factor of length d has a nonzero entry) = 1 - (1 - p)^d, for the shortest
        // mode an atom lies along.
        let shortest = self.shape[..self.n_atoms.min(3)]
            .iter()
            .copied()
            .min()
            .unwrap_or(1);
        let nonzero = -((shortest as f64) * (-self.p_one).ln_1p()).exp_m1();
        if nonzero < MIN_NONZERO_CHANCE {
            return Err(invalid(
                "p_one",
                self.p_one,
                format!(
                    "large enough that a Boolean factor of length {shortest} has a nonzero \
                     entry with probability >= {MIN_NONZERO_CHANCE} (it is {nonzero:e})"
                ),
            ));
        }
        bl_core::params::nonnegative("noise_std", self.noise_std)?;
        if !(self.missing_fraction >= 0.0 && self.missing_fraction < 1.0) {
            return Err(invalid(
                "missing_fraction",
                self.missing_fraction,
                "in [0, 1)",
            ));
        }
        Ok(())
    }

    /// Draws the data.
    ///
    /// # Errors
    /// As [`SyntheticParams::check`]; [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter)
    /// or [`BlError::ShapeMismatch`](bl_core::BlError::ShapeMismatch) when the tensor's
    /// memory is not available.
    pub fn generate(&self) -> Result<SyntheticData> {
        self.check()?;
        let mut rng = bl_core::random::seeded_rng(self.seed);
        let mut atoms = Vec::new();
        atoms.try_reserve_exact(self.n_atoms).map_err(|_| {
            invalid::<TensorError>("n_atoms", self.n_atoms, "as many atoms as fit in memory")
        })?;
        for r in 0..self.n_atoms {
            let mode = r % 3;
            let (a, b) = other_modes(mode);
            let z = loop {
                let z: Vec<f64> = (0..self.shape[mode])
                    .map(|_| f64::from(u8::from(rng.random_bool(self.p_one))))
                    .collect();
                if z.contains(&1.0) {
                    break z;
                }
            };
            let mut u = vec![0.0; self.shape[a]];
            let mut w = vec![0.0; self.shape[b]];
            bl_core::random::fill_standard_normal(&mut rng, &mut u);
            bl_core::random::fill_standard_normal(&mut rng, &mut w);
            atoms.push(Atom::new_unchecked(mode, z, u, w));
        }
        let ones = vec![1.0; atoms.len()];
        let clean = atoms_to_tensor(&atoms, &ones)?;
        let n = clean.len();
        let mut noisy = bl_core::limits::try_zeroed::<f64>("shape", &[n])?;
        noisy.copy_from_slice(clean.data());
        if self.noise_std > 0.0 {
            for v in noisy.iter_mut() {
                *v += self.noise_std * bl_core::random::standard_normal(&mut rng);
            }
        }
        let n_missing = ((self.missing_fraction * n as f64).round() as usize).min(n - 1);
        let observed = if n_missing > 0 {
            let mut idx = bl_core::limits::try_zeroed::<usize>("shape", &[n])?;
            idx.iter_mut().enumerate().for_each(|(i, v)| *v = i);
            idx.shuffle(&mut rng);
            let mut mask = bl_core::limits::try_zeroed::<bool>("shape", &[n])?;
            mask.fill(true);
            for &i in &idx[..n_missing] {
                mask[i] = false;
            }
            Tensor::from_vec_masked(self.shape, noisy, mask)?
        } else {
            Tensor::from_vec(self.shape, noisy)?
        };
        Ok(SyntheticData {
            clean,
            observed,
            atoms,
        })
    }
}

/// A draw of model (1): the clean tensor, the observed (noisy, masked) tensor and the
/// true atoms (coefficient 1 each).
#[derive(Debug, Clone)]
pub struct SyntheticData {
    clean: Tensor,
    observed: Tensor,
    atoms: Vec<Atom>,
}

impl SyntheticData {
    /// The noiseless, fully observed tensor `sum_r z_r (x) u_r (x) w_r`.
    pub fn clean(&self) -> &Tensor {
        &self.clean
    }
    /// The tensor given to the methods: clean plus noise, with the mask.
    pub fn observed(&self) -> &Tensor {
        &self.observed
    }
    /// The true atoms.
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }
    /// The true Boolean factors.
    pub fn boolean_factors(&self) -> Vec<crate::atom::BooleanFactor> {
        self.atoms.iter().map(Atom::boolean_factor).collect()
    }
    /// `F(W*) = 1/2 sum over the observed entries of (X - W*)^2`, with `W*` the clean
    /// tensor: the reference loss of the gap `F(W^k) - F(W*)` in Theorem 1 of Chang et al.
    pub fn clean_loss(&self) -> f64 {
        let mask = self.observed.mask();
        let pairs = self
            .observed
            .data()
            .iter()
            .zip(self.clean.data())
            .enumerate();
        let observed = pairs.filter(|(i, _)| mask.is_none_or(|m| m.get(*i) == Some(&true)));
        0.5 * observed.map(|(_, (a, b))| (a - b).powi(2)).sum::<f64>()
    }
    /// The sum of the true atoms' norms: a bound on the clean tensor's atomic norm over
    /// unit-norm atoms (`||W*||_A` in Theorem 1).
    pub fn atom_norm_sum(&self) -> f64 {
        self.atoms.iter().map(Atom::norm).sum()
    }
}

/// `x` rebuilt by [`Tensor::from_vec_masked`] with its observed values, its mask and
/// `value(i)` given at each missing entry `i` (flat index). The constructor stores `0.0`
/// at every missing entry, so the values given are dropped and the result equals `x`,
/// whatever they were (NaN included): a probe of the constructor (see [`Tensor`]). A fully
/// observed `x` is returned as it is.
///
/// # Errors
/// Those of [`Tensor::from_vec_masked`] (none for a valid `x`: its mask is kept).
pub fn with_values_at_missing(x: &Tensor, value: impl Fn(usize) -> f64) -> Result<Tensor> {
    let Some(mask) = x.mask() else {
        return Ok(x.clone());
    };
    let data = x
        .data()
        .iter()
        .enumerate()
        .map(|(i, &v)| if mask[i] { v } else { value(i) })
        .collect();
    Tensor::from_vec_masked(x.shape(), data, mask.to_vec())
}
