//! The built-in learners: bol, bcd, sp and the two CRFs, each a value of [`BuiltIn`],
//! which implements [`Learner`].

use bl_core::{Extension, IterationParams};
use serde::{Deserialize, Serialize};

use super::{Bcd, Bol, CrfPenalty, Learner, LearnerShape, Sp, Training};
use crate::error::Result;
use crate::settings::{LearnerSettings, Setting};

/// The built-in learners, each an implementation of [`Learner`]: give one to
/// [`TaggerParams::new`](crate::TaggerParams::new) (or use the shortcuts
/// [`TaggerParams::bol`](crate::TaggerParams::bol), ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BuiltIn {
    /// The paper's Algorithm 2: online dual ascent on the rank-1 bilinear model, its
    /// parameters the gradient of a conjugate `F*(Theta)` from warm-started sparse power
    /// iteration: by default `1/2 sum_k sigma_1(Theta_k)^2`, one rank-1 block per feature;
    /// the paper's `1/2 ||Theta||_2^2` with another [`Reading`](crate::Reading) ([`Bol`]).
    /// Reads `c`, `power_steps`, `reading`, `averaging`, `zero_order`.
    Bol,
    /// The paper's Algorithm 1: block coordinate descent alternating two linear structured
    /// SVMs (in `alpha` with `beta` fixed, then in `beta`), each solved online in the dual
    /// ([`Bcd`]). Reads `c`, `bcd_solver`, `averaging`, `zero_order`.
    Bcd,
    /// The structured perceptron on the same (full, not rank-1) matrix features ([`Sp`]).
    /// Reads `averaging`, `zero_order`, `transitions_only` (its step is 1: not `c`).
    Sp,
    /// A linear-chain CRF with L2 regularization trained by L-BFGS ([`crate::crf`]).
    /// Reads `c`.
    CrfL2,
    /// A linear-chain CRF with L1 regularization trained by OWL-QN ([`crate::crf`]).
    /// Reads `c`.
    CrfL1,
}

impl BuiltIn {
    /// Every built-in learner.
    pub const ALL: [BuiltIn; 5] = [
        BuiltIn::Bol,
        BuiltIn::Bcd,
        BuiltIn::Sp,
        BuiltIn::CrfL2,
        BuiltIn::CrfL1,
    ];

    /// Short lower-case name: `bol`, `bcd`, `sp`, `crf-l2`, `crf-l1`.
    pub fn name(self) -> &'static str {
        match self {
            BuiltIn::Bol => "bol",
            BuiltIn::Bcd => "bcd",
            BuiltIn::Sp => "sp",
            BuiltIn::CrfL2 => "crf-l2",
            BuiltIn::CrfL1 => "crf-l1",
        }
    }

    /// The built-in learner of this [`name`](Self::name), if any.
    pub fn from_name(name: &str) -> Option<BuiltIn> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether this learner is an online learner (bol, bcd, sp).
    pub fn is_online(self) -> bool {
        matches!(self, BuiltIn::Bol | BuiltIn::Bcd | BuiltIn::Sp)
    }
}

impl Extension for BuiltIn {
    fn name(&self) -> &str {
        BuiltIn::name(*self)
    }
}

impl Learner for BuiltIn {
    fn reads(&self) -> &[Setting] {
        use Setting::*;
        match self {
            BuiltIn::Bol => &[C, PowerSteps, Reading, Averaging, ZeroOrder],
            BuiltIn::Bcd => &[C, BcdSolver, Averaging, ZeroOrder],
            BuiltIn::Sp => &[Averaging, ZeroOrder, TransitionsOnly],
            BuiltIn::CrfL2 | BuiltIn::CrfL1 => &[C],
        }
    }

    /// 20 epochs and tolerance 0 for the online learners (the paper's `T`); for the CRFs,
    /// 100 optimizer iterations and CRFsuite's `delta = 1e-5` on the relative decrease of
    /// the objective over the last 10 iterations ([`crate::crf`]).
    fn default_iteration(&self) -> IterationParams {
        if self.is_online() {
            IterationParams::new(20, 0.0)
        } else {
            IterationParams::new(100, crate::crf::DELTA)
        }
    }

    fn built_in(&self) -> Option<BuiltIn> {
        Some(*self)
    }

    /// Checks `settings` ([`LearnerSettings::check`]), then builds the learner ([`Bol::new`],
    /// [`Bcd::new`], [`Sp::new`]) or names the CRF penalty.
    fn start(&self, shape: LearnerShape, settings: &LearnerSettings) -> Result<Training> {
        settings.check()?;
        let (k, l) = (shape.n_features, shape.n_tags);
        Ok(match self {
            BuiltIn::Bol => Training::Online(Box::new(Bol::new(k, l, settings)?)),
            BuiltIn::Bcd => Training::Online(Box::new(Bcd::new(k, l, settings)?)),
            BuiltIn::Sp => Training::Online(Box::new(Sp::new(k, l, settings, shape.bias_feature)?)),
            BuiltIn::CrfL2 => Training::Crf(CrfPenalty::L2),
            BuiltIn::CrfL1 => Training::Crf(CrfPenalty::L1),
        })
    }
}

impl From<BuiltIn> for std::sync::Arc<dyn Learner> {
    fn from(learner: BuiltIn) -> Self {
        std::sync::Arc::new(learner)
    }
}

#[cfg(test)]
mod tests {
    use super::{BuiltIn, Learner, LearnerShape, Training};
    use crate::settings::LearnerSettings;

    /// The CRF learners are not online learners: starting one must give the CRF, not
    /// silently the perceptron; sp with transitions only needs the bias feature's id, in
    /// range.
    #[test]
    fn each_built_in_starts_its_own_training() {
        let shape = LearnerShape {
            n_features: 10,
            n_tags: 3,
            bias_feature: None,
        };
        let settings = LearnerSettings::default();
        for crf in [BuiltIn::CrfL2, BuiltIn::CrfL1] {
            assert!(matches!(crf.start(shape, &settings), Ok(Training::Crf(_))));
        }
        assert!(matches!(
            BuiltIn::Sp.start(shape, &settings),
            Ok(Training::Online(_))
        ));
        let transitions = LearnerSettings {
            zero_order: true,
            transitions_only: true,
            ..settings
        };
        assert!(BuiltIn::Sp.start(shape, &transitions).is_err());
        let out_of_range = LearnerShape {
            bias_feature: Some(10),
            ..shape
        };
        assert!(BuiltIn::Sp.start(out_of_range, &transitions).is_err());
        let with_bias = LearnerShape {
            bias_feature: Some(9),
            ..shape
        };
        assert!(BuiltIn::Sp.start(with_bias, &transitions).is_ok());
    }
}
