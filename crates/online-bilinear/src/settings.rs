//! The settings a learner reads: the paper's variants ([`Reading`], [`BcdSolver`]), the CRF
//! backend, and [`LearnerSettings`], the values a [`Learner`](crate::Learner) is built with.
//!
//! A leaf module: the parameters ([`crate::params`]) and the learners ([`crate::learner`])
//! both read it, neither is read by it.

use bl_core::params::{count_in, invalid, positive};
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// The largest [`LearnerSettings::power_steps`]: bol runs up to this many power steps per
/// touched block on every mistake (the paper's `R` is 4; the exact spectral reading stops
/// at the same number).
pub const MAX_POWER_STEPS: usize = 10_000;

/// Which conjugate `F*` bol reads its rank-1 parameters from (README, "Where we differ from
/// the paper").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Reading {
    /// `F*(Theta) = 1/2 sum_k sigma_1(Theta_k)^2`: one rank-1 block `alpha_k beta_k^T` per
    /// feature, `R` warm-started power steps per touched block ([`crate::rank_one`]).
    #[default]
    PerBlock,
    /// The paper's `F_1*(Theta) = 1/2 ||Theta||_2^2` (Proposition 1) with its exact gradient
    /// `sigma_1 u_1 v_1^T` (Proposition 2): for the block-diagonal `Theta` of Sec. 3.3 this
    /// keeps one feature's block ([`crate::spectral`]).
    SpectralExact,
    /// Algorithm 2 as printed: global unit `alpha`, `beta` updated by `R` steps of eqs.
    /// (9)-(12) with the normalization by `sigma_1(Theta_{t-1})` ([`crate::spectral`]).
    SpectralAlgorithm2,
}

impl Reading {
    /// Short name: `per-block`, `spectral-exact`, `spectral-algorithm2`.
    pub fn name(self) -> &'static str {
        match self {
            Reading::PerBlock => "per-block",
            Reading::SpectralExact => "spectral-exact",
            Reading::SpectralAlgorithm2 => "spectral-algorithm2",
        }
    }
}

/// How bcd (Algorithm 1) starts and which SVM its online dual steps solve (README, "Where
/// we differ from the paper").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BcdSolver {
    /// Ours: start at `alpha = 0`, `beta = 1` (all ones); each step is a PA-I dual step with
    /// the Hamming loss, `tau = min(C, (loss - margin) / ||g||^2)`.
    #[default]
    Hamming,
    /// Algorithm 1 and eq. (7) as printed: start at `alpha = beta = 1 / ||1||`; with `beta`
    /// fixed, the SVM `1/2 ||alpha beta^T||_F^2 + C sum [1 - <alpha beta^T, DeltaPhi>]_+`,
    /// whose dual step is `tau = min(C / ||beta||^2, (1 - margin) / ||g||^2)` (and the
    /// same with the roles swapped).
    Algorithm1,
}

impl BcdSolver {
    /// Short name: `hamming`, `algorithm1`.
    pub fn name(self) -> &'static str {
        match self {
            BcdSolver::Hamming => "hamming",
            BcdSolver::Algorithm1 => "algorithm1",
        }
    }
}

/// One of the settings of [`LearnerSettings`], named by [`Learner::reads`](crate::Learner::reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Setting {
    /// [`LearnerSettings::c`].
    C,
    /// [`LearnerSettings::power_steps`].
    PowerSteps,
    /// [`LearnerSettings::reading`].
    Reading,
    /// [`LearnerSettings::bcd_solver`].
    BcdSolver,
    /// [`LearnerSettings::averaging`].
    Averaging,
    /// [`LearnerSettings::zero_order`].
    ZeroOrder,
    /// [`LearnerSettings::transitions_only`].
    TransitionsOnly,
}

impl Setting {
    /// Every setting.
    pub const ALL: [Setting; 7] = [
        Setting::C,
        Setting::PowerSteps,
        Setting::Reading,
        Setting::BcdSolver,
        Setting::Averaging,
        Setting::ZeroOrder,
        Setting::TransitionsOnly,
    ];

    /// The parameter's name (the setter of [`crate::TaggerParams`]).
    pub fn name(self) -> &'static str {
        match self {
            Setting::C => "c",
            Setting::PowerSteps => "power_steps",
            Setting::Reading => "reading",
            Setting::BcdSolver => "bcd_solver",
            Setting::Averaging => "averaging",
            Setting::ZeroOrder => "zero_order",
            Setting::TransitionsOnly => "transitions_only",
        }
    }
}

/// The checked values a learner is built with ([`crate::TaggerValidParams::learner_settings`]).
/// The table of [`crate::params`] gives each one's meaning and range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LearnerSettings {
    /// `C`: bol's step, bcd's SVM constant, the CRFs' regularization weight.
    pub c: f64,
    /// `R`, bol's warm-started power steps per mistake.
    pub power_steps: usize,
    /// Which `F*` bol reads its parameters from.
    pub reading: Reading,
    /// bcd's start and dual step.
    pub bcd_solver: BcdSolver,
    /// Average the parameters over all steps.
    pub averaging: bool,
    /// Add 0-order features with linear weights.
    pub zero_order: bool,
    /// sp: first-order weights for the bias feature alone.
    pub transitions_only: bool,
}

impl Default for LearnerSettings {
    /// The paper's `C = 1`, `R = 4`; per-block reading, Hamming bcd, no averaging, no
    /// 0-order features, all transitions.
    fn default() -> Self {
        Self {
            c: 1.0,
            power_steps: 4,
            reading: Reading::PerBlock,
            bcd_solver: BcdSolver::Hamming,
            averaging: false,
            zero_order: false,
            transitions_only: false,
        }
    }
}

impl LearnerSettings {
    /// Whether `setting` has its default value.
    pub fn is_default(&self, setting: Setting) -> bool {
        let d = Self::default();
        match setting {
            Setting::C => self.c == d.c,
            Setting::PowerSteps => self.power_steps == d.power_steps,
            Setting::Reading => self.reading == d.reading,
            Setting::BcdSolver => self.bcd_solver == d.bcd_solver,
            Setting::Averaging => self.averaging == d.averaging,
            Setting::ZeroOrder => self.zero_order == d.zero_order,
            Setting::TransitionsOnly => self.transitions_only == d.transitions_only,
        }
    }

    /// The range checks of the settings, the ones the parameters' check runs (and a saved
    /// model's load, and every built-in learner's constructor): `c` finite and `> 0`,
    /// `power_steps` in `1 ..=` [`MAX_POWER_STEPS`], and `transitions_only` only with
    /// `zero_order`. A [`Learner`](crate::Learner)
    /// started directly (not through a fit) can call it first.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) naming the
    /// first setting out of range.
    pub fn check(&self) -> Result<()> {
        positive("c", self.c)?;
        count_in("power_steps", self.power_steps, 1, MAX_POWER_STEPS)?;
        if self.transitions_only && !self.zero_order {
            return Err(invalid(
                "transitions_only",
                "true with zero_order false",
                "zero_order(true): without the 0-order features only the transitions would be left",
            )
            .into());
        }
        Ok(())
    }

    /// The value of `setting`, for messages.
    pub fn value(&self, setting: Setting) -> String {
        match setting {
            Setting::C => self.c.to_string(),
            Setting::PowerSteps => self.power_steps.to_string(),
            Setting::Reading => self.reading.name().into(),
            Setting::BcdSolver => self.bcd_solver.name().into(),
            Setting::Averaging => self.averaging.to_string(),
            Setting::ZeroOrder => self.zero_order.to_string(),
            Setting::TransitionsOnly => self.transitions_only.to_string(),
        }
    }
}

/// The penalty of a linear-chain CRF ([`crate::learner::Training::Crf`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrfPenalty {
    /// `c ||w||_2^2` (CRFsuite's `c2`), trained by L-BFGS.
    L2,
    /// `c ||w||_1` (CRFsuite's `c1`), trained by OWL-QN.
    L1,
}
