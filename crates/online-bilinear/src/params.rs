//! Hyperparameters of the taggers: the builder [`TaggerParams`], checked into
//! [`TaggerValidParams`], which fits ([`bl_core::Fit`]).
//!
//! One parameter set serves every learner. The learner is a plug-in
//! (`Arc<dyn` [`Learner`]`>`: a [`BuiltIn`] or a user's own); it says which of the
//! learner settings below it reads ([`Learner::reads`]), and a value other than the
//! default of a setting the learner does not read is an error of the check (e.g.
//! averaging for a CRF, `power_steps` for sp), never silently ignored.
//!
//! | name | default | meaning | read by | valid range |
//! |---|---|---|---|---|
//! | `learner` | [`BuiltIn::Bol`] | the learning algorithm, `Arc<dyn Learner>`: [`BuiltIn::Bol`], [`BuiltIn::Bcd`], [`BuiltIn::Sp`], [`BuiltIn::CrfL2`], [`BuiltIn::CrfL1`], or a user's [`Learner`] | | its own [`check`](bl_core::Extension::check) |
//! | `max_iter` | 20 (online), 100 (CRF) | the budget: `T`, epochs (passes over the training data; bcd: one pass for `alpha` then one for `beta` per epoch) for an online learner; L-BFGS / OWL-QN iterations for a CRF | all | `>= 1` |
//! | `tol` | 0 (online), `1e-5` (CRF) | online: stop after an epoch in which at most this fraction of the sentences caused an update (0: none); CRF: CRFsuite's `delta`, the relative decrease of the objective over the last 10 iterations (see [`crate::crf`]) | all | finite, `>= 0` |
//! | `time_limit` | `None` | wall-clock limit of the epochs (online) or of the optimizer (CRF) | all | |
//! | `threads` | `None` (all cores) | threads of the feature extraction and encoding ([`prepare`](TaggerValidParams::prepare), also inside a fit) and of the Rust CRF's gradient; the online learners' epochs run on the calling thread | all | `1 ..= 1024` |
//! | `trace` | true | keep every epoch in the report's trace | all | |
//! | `c` | 1.0 | bol: step `eta_t = C` of eq. (8) (a pure scale of bol's model: a power of two gives the same predictions bit for bit; other values round differently, and a changed mistake changes the later updates: chunking, 1 epoch, F1 84.19 for `C` = 0.25 to 4, 84.37 at 0.1, 82.04 at 10); bcd: the SVM constant `C` of the dual updates; CRF: the L2 (`c2`) or L1 (`c1`) weight | bol, bcd, CRF | finite, `> 0` |
//! | `power_steps` | 4 | `R`, warm-started power steps per mistake | bol | `1 ..=` [`MAX_POWER_STEPS`](crate::settings::MAX_POWER_STEPS) |
//! | `reading` | [`Reading::PerBlock`] | which `F*` bol reads `W` from: per block (ours), or the paper's `1/2 \|\|Theta\|\|_2^2` exactly or through eqs. (9)-(12) as printed | bol | |
//! | `bcd_solver` | [`BcdSolver::Hamming`] | bcd's start and dual step: ours (Hamming loss, `alpha = 0`, `beta = 1`) or Algorithm 1 with the SVM (7) as printed | bcd | |
//! | `averaging` | false | average the parameters over all steps (bol and bcd: `alpha` and `beta` separately, Sec. 4.3) | bol, bcd, sp | |
//! | `zero_order` | false | add 0-order features `w[k, y_i]` with linear weights (Sec. 4.3) | bol, bcd, sp | |
//! | `transitions_only` | false | keep first-order (tag-pair) weights only for the bias feature, i.e. label transitions: with `zero_order` this is a linear-chain CRF's feature set (state features per feature and tag, transitions per tag pair and from the start state to each tag) instead of the paper's first-order features | sp | needs `zero_order` and a [`Template::Bias`] in the templates |
//! | `shuffle` | true | visit the training sentences in a fresh random order each epoch | online | |
//! | `seed` | 0 | seed of the shuffles | online | any |
//! | `templates` | unset: the data decides | feature templates, read when the features are built: see below | all | non-empty |
//! | `cutoff` | unset: 1, or the prepared one | keep features seen at least this often in training | all | `>= 1` |
//!
//! # Templates and cutoff: one place
//! Features are built once per fit from a [`Corpus`](crate::Corpus), or once for several
//! fits by [`TaggerValidParams::prepare`] into a [`PreparedCorpus`](crate::PreparedCorpus).
//! The templates and the cutoff are the parameters' (`.templates(..)`, `.cutoff(..)`); a fit
//! on a prepared corpus reads the prepared ones, and parameters that set other ones are an
//! error ([`OblError::Core`] with the parameter's name), never silently ignored. Left
//! unset on a fit from a corpus, the templates follow the data
//! ([`default_templates`](crate::default_templates)): one observation column of single
//! characters gets [`Templates::segmentation`], one column of words gets the word-tagging
//! preset [`Templates::word_tagging`], and a corpus of several columns must be given its
//! templates.
//!
//! # Errors
//! [`TaggerParams::check`](bl_core::ParamGuard::check) (called first by every fit of the
//! builder) returns [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) for any
//! value out of range.
//!
//! # References
//! Y. Wu and S. Sun, *An Online Learning Algorithm for Bilinear Models*, ICML 2015.

use std::sync::Arc;

use bl_core::params::{at_least, invalid};
use bl_core::{IterationParams, ParamGuard};

use crate::error::{OblError, Result};
use crate::features::{Template, Templates};
use crate::learner::{BuiltIn, Learner};
use crate::settings::{BcdSolver, LearnerSettings, Reading, Setting};

/// Hyperparameters of a tagger (unchecked): see the [module docs](self) for the table.
#[derive(Debug, Clone)]
pub struct TaggerParams {
    learner: Arc<dyn Learner>,
    iteration: IterationParams,
    /// `c` to `transitions_only` of the table: what the learner is started with.
    learner_settings: LearnerSettings,
    shuffle: bool,
    seed: u64,
    templates: Option<Templates>,
    cutoff: Option<usize>,
}

/// The accessors of the learner settings, written from one list: each `field: Type;`
/// (after its doc lines, the setter's) becomes a setter on [`TaggerParams`], which stores
/// the value in `self.learner_settings.field` (as [`bl_core::params::setters!`] does for
/// a field of the builder itself), and a getter of the checked value on
/// [`TaggerValidParams`].
macro_rules! settings_accessors {
    ($($(#[$attr:meta])* $field:ident: $ty:ty;)*) => {
        impl TaggerParams {
            $(
                $(#[$attr])*
                #[must_use]
                pub fn $field(mut self, $field: $ty) -> Self {
                    self.learner_settings.$field = $field;
                    self
                }
            )*
        }

        impl TaggerValidParams {
            $(
                #[doc = concat!(
                    "The checked `", stringify!($field), "` (see [`TaggerParams::",
                    stringify!($field), "`])."
                )]
                #[must_use]
                pub fn $field(&self) -> $ty {
                    self.params.learner_settings.$field
                }
            )*
        }
    };
}

impl TaggerParams {
    /// Defaults for `learner`, with its iteration budget and tolerance
    /// ([`Learner::default_iteration`]).
    pub fn new(learner: Arc<dyn Learner>) -> Self {
        Self {
            iteration: learner.default_iteration(),
            learner,
            learner_settings: LearnerSettings::default(),
            shuffle: true,
            seed: 0,
            templates: None,
            cutoff: None,
        }
    }

    /// Defaults for a built-in learner.
    pub fn builtin(learner: BuiltIn) -> Self {
        Self::new(Arc::new(learner))
    }

    /// Defaults for [`BuiltIn::Bol`] (`T = 20`, `C = 1`, `R = 4`, the paper's values).
    pub fn bol() -> Self {
        Self::builtin(BuiltIn::Bol)
    }

    /// Defaults for [`BuiltIn::Bcd`].
    pub fn bcd() -> Self {
        Self::builtin(BuiltIn::Bcd)
    }

    /// Defaults for [`BuiltIn::Sp`].
    pub fn sp() -> Self {
        Self::builtin(BuiltIn::Sp)
    }

    /// Defaults for [`BuiltIn::CrfL2`] (100 iterations).
    pub fn crf_l2() -> Self {
        Self::builtin(BuiltIn::CrfL2)
    }

    /// Defaults for [`BuiltIn::CrfL1`] (100 iterations).
    pub fn crf_l1() -> Self {
        Self::builtin(BuiltIn::CrfL1)
    }

    /// Sets the feature templates (unset: the data decides; see the
    /// [module docs](self)).
    #[must_use]
    pub fn templates(mut self, templates: Templates) -> Self {
        self.templates = Some(templates);
        self
    }

    /// Sets the feature frequency cutoff (unset: 1, or the prepared corpus's).
    #[must_use]
    pub fn cutoff(mut self, cutoff: usize) -> Self {
        self.cutoff = Some(cutoff);
        self
    }
}

impl Default for TaggerParams {
    /// [`TaggerParams::bol`].
    fn default() -> Self {
        Self::bol()
    }
}

/// Checked [`TaggerParams`]: every value in range, every learner setting read by the
/// learner or at its default. It fits ([`bl_core::Fit`]) on a [`Corpus`](crate::Corpus)
/// or a [`PreparedCorpus`](crate::PreparedCorpus).
#[derive(Debug, Clone)]
pub struct TaggerValidParams {
    params: TaggerParams,
}

bl_core::params::knobs! {
    TaggerParams => TaggerValidParams in params;
    /// The iteration knobs (`max_iter`: epochs or CRF iterations; the defaults are the
    /// learner's, [`Learner::default_iteration`]).
    ..iteration;
    /// The learner (default [`BuiltIn::Bol`]). Setting it leaves the iteration knobs as
    /// they are (the budget of [`TaggerParams::new`] is the first learner's: start from
    /// `TaggerParams::new(learner)` to get the new learner's).
    learner: &Arc<dyn Learner>;
    /// Whether the training sentences are visited in a fresh random order each epoch
    /// (default on).
    shuffle: bool;
    /// The seed of the shuffles (default 0).
    seed: u64;
}

impl TaggerValidParams {
    bl_core::params::getters! {
        in params;
        /// The cutoff, if set (unset: 1, or the prepared corpus's).
        cutoff: Option<usize>;
        /// The settings the learner is started with.
        learner_settings: LearnerSettings;
    }

    /// The templates, if set (unset: the data decides).
    #[must_use]
    pub fn templates(&self) -> Option<&Templates> {
        self.params.templates.as_ref()
    }
}

settings_accessors! {
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
    /// [`Template::Bias`] in the templates.
    transitions_only: bool;
}

/// `transitions_only` needs a bias template among `templates`.
pub(crate) fn check_transitions(settings: &LearnerSettings, templates: &Templates) -> Result<()> {
    if settings.transitions_only && !templates.as_slice().contains(&Template::Bias) {
        return Err(invalid(
            "transitions_only",
            "true without a bias template",
            "a Template::Bias in the templates (its feature carries the transitions)",
        )
        .into());
    }
    Ok(())
}

impl ParamGuard for TaggerParams {
    type Checked = TaggerValidParams;
    type Error = OblError;

    fn check(&self) -> Result<TaggerValidParams> {
        self.iteration.check()?;
        self.learner.check()?;
        // A learner of the user's may not take a built-in's name: saved models and
        // distributed training would take it for that built-in.
        let name = self.learner.name();
        if self.learner.built_in().is_none() && BuiltIn::from_name(name).is_some() {
            return Err(invalid(
                "learner",
                name,
                "a name other than the built-in learners' (sp, bol, bcd, crf-l2, crf-l1)",
            )
            .into());
        }
        let settings = self.learner_settings;
        settings.check()?;
        if let Some(cutoff) = self.cutoff {
            at_least("cutoff", cutoff, 1)?;
        }
        if let Some(templates) = &self.templates {
            check_transitions(&settings, templates)?;
        }
        // A setting the learner does not read must keep its default.
        let reads = self.learner.reads();
        if let Some(setting) = Setting::ALL
            .into_iter()
            .find(|s| !reads.contains(s) && !settings.is_default(*s))
        {
            return Err(invalid(
                setting.name(),
                format!("{} for {}", settings.value(setting), self.learner.name()),
                format!(
                    "the default {} ({} does not read `{}`; among the built-in learners \
                     only {} do)",
                    LearnerSettings::default().value(setting),
                    self.learner.name(),
                    setting.name(),
                    BuiltIn::ALL
                        .iter()
                        .filter(|b| b.reads().contains(&setting))
                        .map(|b| b.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .into());
        }
        Ok(TaggerValidParams {
            params: self.clone(),
        })
    }
}
