//! Hyperparameters of the taggers.
//!
//! One parameter set serves every learner; each field says which learners read it (a
//! custom learner reads what it wants through the getters). A value other than the default
//! given to a built-in learner that does not read it is an error of the check (e.g.
//! averaging for a CRF, `power_steps` for sp), never silently ignored; `epochs`, `shuffle`,
//! `seed`, `templates`, `cutoff` and `crf_max_iterations` are exempt (shared settings of
//! an experiment over several learners).
//!
//! | name | default | meaning | learners | valid range |
//! |---|---|---|---|---|
//! | `learner` | | [`Learner::Bol`], [`Learner::Bcd`], [`Learner::Sp`], [`Learner::CrfL2`], [`Learner::CrfL1`], [`Learner::Custom`] (with [`TaggerParams::custom`]) | | a custom implementation exactly when `Custom` |
//! | `epochs` | 20 | `T`, passes over the training data (bcd: one pass for `alpha` then one for `beta` per epoch) | bol, bcd, sp | `>= 1` |
//! | `c` | 1.0 | bol: step `eta_t = C` of eq. (8) (a pure scale of bol's model: predictions do not depend on it, up to rounding); bcd: the SVM constant `C` of the dual updates; CRF: the L2 (`c2`) or L1 (`c1`) weight | bol, bcd, CRF (sp: 1 only) | finite, `> 0` |
//! | `power_steps` | 4 | `R`, warm-started power steps per mistake | bol | `>= 1` |
//! | `reading` | [`Reading::PerBlock`] | which `F*` bol reads `W` from: per block (ours), or the paper's `1/2 \|\|Theta\|\|_2^2` exactly or through eqs. (9)-(12) as printed | bol | |
//! | `bcd_solver` | [`BcdSolver::Hamming`] | bcd's start and dual step: ours (Hamming loss, `alpha = 0`, `beta = 1`) or Algorithm 1 with the SVM (7) as printed | bcd | |
//! | `averaging` | false | average the parameters over all steps (bol and bcd: `alpha` and `beta` separately, Sec. 4.3) | bol, bcd, sp | |
//! | `zero_order` | false | add 0-order features `w[k, y_i]` with linear weights (Sec. 4.3) | bol, bcd, sp | |
//! | `transitions_only` | false | keep first-order (tag-pair) weights only for the bias feature, i.e. label transitions: with `zero_order` this is a linear-chain CRF's feature set (state features per feature and tag, transitions per tag pair) instead of the paper's first-order features | sp | needs `zero_order` and a [`Template::Bias`](crate::Template::Bias) in the templates |
//! | `templates` | [`Templates::segmentation`] | feature templates | all | non-empty |
//! | `cutoff` | 1 | keep features seen at least this often in training | all | `>= 1` |
//! | `shuffle` | true | visit the training sentences in a fresh random order each epoch | bol, bcd, sp | |
//! | `seed` | 0 | seed of the shuffles | bol, bcd, sp | any |
//! | `crf_max_iterations` | 100 | L-BFGS / OWL-QN iteration budget | CRF | `>= 1` |
//! | `crf_backend` | [`CrfBackend::Rust`] | which implementation trains the CRF: ours, or CRFsuite (Cargo feature `crfsuite`) | CRF | available in this build |
//!
//! A user's own update rule runs through the same fit: give it with
//! [`TaggerParams::custom`] (see [`crate::learner`]); the learner is then
//! [`Learner::Custom`] and reads the fields it wants.
//!
//! # Errors
//! [`TaggerParams::check`](bl_core::ParamGuard::check) (called first by every fit) returns
//! [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for any value out
//! of range.
//!
//! # References
//! Y. Wu and S. Sun, *An Online Learning Algorithm for Bilinear Models*, ICML 2015.

use std::sync::Arc;

use bl_core::ParamGuard;
use bl_core::params::{at_least, invalid, positive};
use serde::{Deserialize, Serialize};

use crate::crf::CrfBackend;
use crate::error::{OblError, Result};
use crate::features::Templates;
use crate::learner::LearnerFactory;

/// Which learning algorithm fits the tagger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Learner {
    /// The paper's Algorithm 2: online dual ascent on the rank-1 bilinear model with the
    /// gradient of `1/2 ||Theta||_2^2` from warm-started sparse power iteration.
    Bol,
    /// The paper's Algorithm 1: block coordinate descent alternating two linear structured
    /// SVMs (in `alpha` with `beta` fixed, then in `beta`), each solved online in the dual.
    Bcd,
    /// The structured perceptron on the same (full, not rank-1) matrix features.
    Sp,
    /// A linear-chain CRF with L2 regularization trained by L-BFGS ([`crate::crf`]).
    CrfL2,
    /// A linear-chain CRF with L1 regularization trained by OWL-QN ([`crate::crf`]).
    CrfL1,
    /// A user's online learner, given with [`TaggerParams::custom`].
    Custom,
}

impl Learner {
    /// Short lower-case name: `bol`, `bcd`, `sp`, `crf-l2`, `crf-l1`.
    pub fn name(self) -> &'static str {
        match self {
            Learner::Bol => "bol",
            Learner::Bcd => "bcd",
            Learner::Sp => "sp",
            Learner::CrfL2 => "crf-l2",
            Learner::CrfL1 => "crf-l1",
            Learner::Custom => "custom",
        }
    }

    /// Whether this learner is an online learner (bol, bcd, sp, or a custom one).
    pub fn is_online(self) -> bool {
        matches!(
            self,
            Learner::Bol | Learner::Bcd | Learner::Sp | Learner::Custom
        )
    }
}

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

/// Hyperparameters of a tagger: see the [module docs](self) for the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaggerParams {
    pub(crate) learner: Learner,
    pub(crate) epochs: usize,
    pub(crate) c: f64,
    pub(crate) power_steps: usize,
    #[serde(default)]
    pub(crate) reading: Reading,
    #[serde(default)]
    pub(crate) bcd_solver: BcdSolver,
    pub(crate) averaging: bool,
    pub(crate) zero_order: bool,
    #[serde(default)]
    pub(crate) transitions_only: bool,
    pub(crate) templates: Templates,
    pub(crate) cutoff: usize,
    pub(crate) shuffle: bool,
    pub(crate) seed: u64,
    pub(crate) crf_max_iterations: usize,
    #[serde(default)]
    pub(crate) crf_backend: CrfBackend,
    /// The user's learner of [`Learner::Custom`] (not saved with a model).
    #[serde(skip)]
    pub(crate) custom: Option<CustomLearner>,
}

/// A shared handle on a user's [`LearnerFactory`]: parameters stay `Clone` and one
/// `TaggerParams` type serves every learner, so a list of parameter sets can mix built-in
/// and custom learners.
#[derive(Clone)]
pub(crate) struct CustomLearner(pub(crate) Arc<dyn LearnerFactory>);

impl std::fmt::Debug for CustomLearner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CustomLearner({:?})", self.0.name())
    }
}

impl PartialEq for CustomLearner {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl TaggerParams {
    /// Defaults for `learner`.
    pub fn new(learner: Learner) -> Self {
        Self {
            learner,
            epochs: 20,
            c: 1.0,
            power_steps: 4,
            reading: Reading::PerBlock,
            bcd_solver: BcdSolver::Hamming,
            averaging: false,
            zero_order: false,
            transitions_only: false,
            templates: Templates::segmentation(),
            cutoff: 1,
            shuffle: true,
            seed: 0,
            crf_max_iterations: 100,
            custom: None,
            crf_backend: CrfBackend::Rust,
        }
    }

    /// Defaults for [`Learner::Bol`] (`T = 20`, `C = 1`, `R = 4`, the paper's values).
    pub fn bol() -> Self {
        Self::new(Learner::Bol)
    }

    /// Defaults for [`Learner::Bcd`].
    pub fn bcd() -> Self {
        Self::new(Learner::Bcd)
    }

    /// Defaults for [`Learner::Sp`].
    pub fn sp() -> Self {
        Self::new(Learner::Sp)
    }

    /// Defaults for [`Learner::CrfL2`].
    pub fn crf_l2() -> Self {
        Self::new(Learner::CrfL2)
    }

    /// Defaults for [`Learner::CrfL1`].
    pub fn crf_l1() -> Self {
        Self::new(Learner::CrfL1)
    }

    bl_core::params::setters! {
        /// Sets the learner. [`Learner::Custom`] also needs [`custom`](Self::custom).
        learner: Learner;
        /// Sets `T`, the number of epochs.
        epochs: usize;
        /// Sets `C` (bol step, bcd SVM constant, CRF regularization weight).
        c: f64;
        /// Sets `R`, the power steps per mistake of bol.
        power_steps: usize;
        /// Sets which `F*` bol reads its parameters from ([`Reading`]).
        reading: Reading;
        /// Sets bcd's start and dual step ([`BcdSolver`]).
        bcd_solver: BcdSolver;
        /// Turns parameter averaging on or off.
        averaging: bool;
        /// Turns the 0-order feature extension on or off.
        zero_order: bool;
        /// sp only: keeps first-order (tag-pair) weights for the bias feature alone (label
        /// transitions), so that with [`zero_order`](Self::zero_order) the model has a
        /// linear-chain CRF's features. Needs `zero_order(true)` and a
        /// [`Template::Bias`](crate::Template::Bias) in the templates.
        transitions_only: bool;
        /// Sets the feature templates.
        templates: Templates;
        /// Sets the feature frequency cutoff.
        cutoff: usize;
        /// Turns per-epoch shuffling on or off.
        shuffle: bool;
        /// Sets the seed of the shuffles.
        seed: u64;
        /// Sets the iteration budget of the CRF baselines.
        crf_max_iterations: usize;
        /// Sets which implementation trains the CRF learners ([`CrfBackend`]).
        crf_backend: CrfBackend;
    }

    /// Defaults with a user's online learner ([`Learner::Custom`]): `factory` builds the
    /// learner at the start of each fit, and the fit runs it through the same epochs,
    /// decoding, observers and fitted model as the built-in learners.
    pub fn custom(factory: impl LearnerFactory + 'static) -> Self {
        let mut params = Self::new(Learner::Custom);
        params.custom = Some(CustomLearner(Arc::new(factory)));
        params
    }

    /// The learner.
    pub fn get_learner(&self) -> Learner {
        self.learner
    }

    /// Which `F*` bol reads its parameters from.
    pub fn get_reading(&self) -> Reading {
        self.reading
    }

    /// The number of epochs.
    pub fn get_epochs(&self) -> usize {
        self.epochs
    }

    /// `C`.
    pub fn get_c(&self) -> f64 {
        self.c
    }

    /// `R`, the power steps per mistake of bol.
    pub fn get_power_steps(&self) -> usize {
        self.power_steps
    }

    /// Whether the parameters are averaged.
    pub fn get_averaging(&self) -> bool {
        self.averaging
    }

    /// Whether the 0-order features are on.
    pub fn get_zero_order(&self) -> bool {
        self.zero_order
    }

    /// Whether sp keeps first-order weights for the bias feature alone.
    pub fn get_transitions_only(&self) -> bool {
        self.transitions_only
    }

    /// The checks that do not need the learner's implementation (also run when a saved
    /// model is loaded, whose custom learner is not saved).
    pub(crate) fn check_values(&self) -> Result<()> {
        at_least("epochs", self.epochs, 1)?;
        positive("c", self.c)?;
        at_least("power_steps", self.power_steps, 1)?;
        at_least("cutoff", self.cutoff, 1)?;
        at_least("crf_max_iterations", self.crf_max_iterations, 1)?;
        if !self.crf_backend.is_available() {
            return Err(invalid(
                "crf_backend",
                self.crf_backend.name(),
                "`rust` (this build lacks the `crfsuite` Cargo feature)",
            )
            .into());
        }
        if self.templates.as_slice().is_empty() {
            return Err(invalid("templates", "[]", "at least one template").into());
        }
        if self.transitions_only && !self.zero_order {
            return Err(invalid(
                "transitions_only",
                "true with zero_order false",
                "zero_order(true): without the 0-order features only the transitions would be left",
            )
            .into());
        }
        if self.transitions_only
            && !self
                .templates
                .as_slice()
                .contains(&crate::features::Template::Bias)
        {
            return Err(invalid(
                "transitions_only",
                "true without a bias template",
                "a Template::Bias in the templates (its feature carries the transitions)",
            )
            .into());
        }
        Ok(())
    }

    /// A parameter that the learner does not read must keep its default: a value given to a
    /// learner that ignores it is an error, not silently dropped. A custom learner reads
    /// what it wants, so it is not checked.
    fn check_applies(&self) -> Result<()> {
        let defaults = Self::new(self.learner);
        let is_crf = matches!(self.learner, Learner::CrfL2 | Learner::CrfL1);
        let online_only = "only for the online learners bol, bcd, sp";
        let not_read: [(bool, &'static str, String, &'static str); 8] = [
            (
                is_crf && self.averaging,
                "averaging",
                "true".into(),
                online_only,
            ),
            (
                is_crf && self.zero_order,
                "zero_order",
                "true".into(),
                online_only,
            ),
            (
                self.learner == Learner::Sp && self.c != defaults.c,
                "c",
                self.c.to_string(),
                "1 for sp (the perceptron's step is 1; `c` is bol's step, bcd's SVM \
                 constant and the CRFs' regularization weight)",
            ),
            (
                !matches!(self.learner, Learner::Bol | Learner::Custom)
                    && self.power_steps != defaults.power_steps,
                "power_steps",
                self.power_steps.to_string(),
                "the default 4 (only bol reads `R`)",
            ),
            (
                !matches!(self.learner, Learner::Bol | Learner::Custom)
                    && self.reading != defaults.reading,
                "reading",
                self.reading.name().into(),
                "per-block (only bol reads it)",
            ),
            (
                !matches!(self.learner, Learner::Bcd | Learner::Custom)
                    && self.bcd_solver != defaults.bcd_solver,
                "bcd_solver",
                self.bcd_solver.name().into(),
                "hamming (only bcd reads it)",
            ),
            (
                !matches!(self.learner, Learner::Sp | Learner::Custom) && self.transitions_only,
                "transitions_only",
                "true".into(),
                "false (only sp reads it)",
            ),
            (
                !is_crf && self.crf_backend != defaults.crf_backend,
                "crf_backend",
                self.crf_backend.name().into(),
                "rust (only the CRF learners read it)",
            ),
        ];
        match not_read.into_iter().find(|(given, ..)| *given) {
            Some((_, name, value, expected)) => Err(invalid(
                name,
                format!("{value} for {}", self.learner.name()),
                expected,
            )
            .into()),
            None => Ok(()),
        }
    }
}

impl Default for TaggerParams {
    /// [`TaggerParams::bol`].
    fn default() -> Self {
        Self::bol()
    }
}

/// Checked [`TaggerParams`]: every value in range, and a custom learner present exactly
/// when the learner is [`Learner::Custom`].
#[derive(Debug, Clone, PartialEq)]
pub struct TaggerValidParams(pub(crate) TaggerParams);

impl TaggerValidParams {
    /// The parameters.
    pub fn params(&self) -> &TaggerParams {
        &self.0
    }
}

impl ParamGuard for TaggerParams {
    type Checked = TaggerValidParams;
    type Error = OblError;

    fn check(&self) -> Result<TaggerValidParams> {
        self.check_values()?;
        // Not part of `check_values`: a model saved with a value its learner ignored still
        // loads.
        self.check_applies()?;
        match (self.learner, &self.custom) {
            (Learner::Custom, None) => Err(invalid(
                "learner",
                "custom",
                "given with TaggerParams::custom (no implementation was set)",
            )
            .into()),
            (learner, Some(_)) if learner != Learner::Custom => Err(invalid(
                "learner",
                learner.name(),
                "custom when a custom implementation is set",
            )
            .into()),
            _ => Ok(TaggerValidParams(self.clone())),
        }
    }
}
