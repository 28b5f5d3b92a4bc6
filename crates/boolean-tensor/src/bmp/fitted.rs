//! The fitted BMP model and its per-step diagnostics.

use bl_core::engine::FitReport;

use crate::atom::{Atom, BooleanFactor, Decomposition, atoms_to_tensor};
use crate::error::Result;
use crate::tensor::{Tensor, other_modes};
use bl_core::error::build::invalid;

/// Diagnostics of one BMP step.
#[derive(Debug, Clone, PartialEq)]
pub struct AtomStep {
    /// Mode of the chosen atom's Boolean factor.
    pub mode: usize,
    /// Its score `<R, M> / ||M||_F`.
    pub score: f64,
    /// `z` updates made by the alternation.
    pub alternations: usize,
    /// Refit sweeps made after the fully corrective step (iterations of the inner engine
    /// run).
    pub refit_sweeps: usize,
    /// Why the refit sweeps stopped (`None` with `refit_sweeps(0)`): `Converged` at a
    /// relative decrease `<= refit_tol`, `Solved` when the loss vanished, `MaxIterations`
    /// at the budget.
    pub refit_termination: Option<bl_core::TerminationReason>,
    /// Leading singular pairs of this step (atom searches and refit sweeps) whose power
    /// iteration ran out of iterations before its tolerance (only unfoldings whose other
    /// two modes are both longer than 32 use power iteration; `0` otherwise). Such a pair
    /// is the last iterate, a valid pair whose value lower-bounds the leading singular
    /// value: the step goes on with it and the count is reported here and as the trace
    /// extra `unconverged_power`.
    pub unconverged_power: usize,
    /// `F` after the fully corrective step and the refit sweeps.
    pub loss: f64,
}

/// A fitted BMP model.
#[derive(Debug, Clone)]
pub struct FittedBmp {
    pub(super) shape: [usize; 3],
    pub(super) atoms: Vec<Atom>,
    pub(super) coefficients: Vec<f64>,
    pub(super) path: Vec<Vec<f64>>,
    pub(super) snapshots: Vec<Vec<Atom>>,
    pub(super) steps: Vec<AtomStep>,
    pub(super) report: FitReport,
    pub(super) initial_loss: f64,
}

impl FittedBmp {
    /// The atoms in the order they were added (`u`, `w` of unit norm).
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }
    /// The final coefficients `c_i`.
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }
    /// The coefficients after each step: entry `t` holds the `t + 1` coefficients of the
    /// model after step `t + 1` (see [`FittedBmp::atoms_at`] for its atoms, which the
    /// refit sweeps may have changed since).
    pub fn coefficient_path(&self) -> &[Vec<f64>] {
        &self.path
    }
    /// Per-step diagnostics.
    pub fn steps(&self) -> &[AtomStep] {
        &self.steps
    }
    /// RMSE on the observed entries after each engine iteration (the trace extra `rmse`):
    /// after each atom, and once more, unchanged, when the fit ended with an iteration
    /// that added no atom (no candidate scored above 0; a zero tensor gives one entry and
    /// no atom). Empty with `trace(false)`.
    pub fn rmse_path(&self) -> Vec<f64> {
        self.report
            .trace
            .extra("rmse")
            .into_iter()
            .map(|(_, v)| v)
            .collect()
    }
    /// `F` at `W = 0`.
    pub fn initial_loss(&self) -> f64 {
        self.initial_loss
    }
    /// Number of atoms.
    pub fn n_atoms(&self) -> usize {
        self.atoms.len()
    }
    /// The atoms of the model after step `k` (`1 <= k <= n_atoms()`): the first `k`
    /// atoms as they were then (later refit sweeps change earlier atoms).
    pub fn atoms_at(&self, k: usize) -> Option<&[Atom]> {
        k.checked_sub(1)
            .and_then(|i| self.snapshots.get(i))
            .map(Vec::as_slice)
    }
    /// The Boolean factors of the model after step `k` (empty for `k = 0` or too large).
    pub fn boolean_factors_at(&self, k: usize) -> Vec<BooleanFactor> {
        self.atoms_at(k)
            .map(|a| a.iter().map(Atom::boolean_factor).collect())
            .unwrap_or_default()
    }
    /// The model after step `k` (its atoms and coefficients; `k = 0` gives the zero
    /// tensor).
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`](bl_core::BlError::InvalidParameter) for `k > n_atoms()`.
    pub fn reconstruct_first(&self, k: usize) -> Result<Tensor> {
        if k > self.atoms.len() {
            return Err(invalid("k", k, "<= the number of fitted atoms"));
        }
        if k == 0 {
            return Tensor::zeros(self.shape);
        }
        atoms_to_tensor(&self.snapshots[k - 1], &self.path[k - 1])
    }
}

impl FittedBmp {
    /// The model's value at `[i, j, k]` (inside the shape).
    fn entry(&self, index: [usize; 3]) -> f64 {
        self.atoms
            .iter()
            .zip(&self.coefficients)
            .map(|(atom, &c)| {
                let mode = atom.mode();
                let (a, b) = other_modes(mode);
                c * atom.z()[index[mode]] * atom.u()[index[a]] * atom.w()[index[b]]
            })
            .sum()
    }
}

predict_entries!(FittedBmp);

impl Decomposition for FittedBmp {
    fn reconstruct(&self) -> Result<Tensor> {
        self.reconstruct_first(self.atoms.len())
    }
    fn boolean_factors(&self) -> Vec<BooleanFactor> {
        self.atoms.iter().map(Atom::boolean_factor).collect()
    }
}

fitted_report! {
    /// One iteration per atom: objective `F` after the step, extras `rmse` (on the observed
    /// entries), `mode` and `score` of the chosen atom; and one final iteration that adds
    /// no atom (`Solved`, extras `rmse` and `unconverged_power` only) when no candidate
    /// scored above 0. The time is the wall-clock time of the whole fit.
    FittedBmp
}
