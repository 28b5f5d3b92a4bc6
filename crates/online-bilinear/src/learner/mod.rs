//! The plug-in point of the crate: the [`Learner`] trait, one protocol for every learner.
//!
//! A learner is an [`Extension`] (a name and a `check()` hook) that
//! says which settings it reads ([`Learner::reads`]), its default iteration budget
//! ([`Learner::default_iteration`]) and how it trains ([`Learner::start`]): online, with an
//! [`OnlineLearner`] state the fit runs through its epochs, or as a linear-chain CRF. The
//! built-in learners are the values of [`BuiltIn`] (bol, bcd, sp, crf-l2, crf-l1); a
//! user's learner is any other implementation. Either is set on the parameters as an
//! `Arc<dyn Learner>` ([`TaggerParams::learner`](crate::TaggerParams::learner)), checked
//! by the parameters' `check()`, and run through the same fit, observers and fitted
//! model. [`crate::conformance::conformance`] runs the checks every implementation must
//! pass.
//!
//! The fit owns everything but the update rule: the epochs (one epoch is one iteration of
//! [`bl_core::engine`]), the seeded shuffles, decoding (through
//! [`OnlineLearner::decode`], which a learner may replace by a faster computation of the
//! same path), the observers, the trace and the fitted model.
//!
//! ```
//! use std::sync::Arc;
//! use online_bilinear::learner::{Learner, LearnerShape, OnlineLearner, OnlineWeights, Snapshot, Training};
//! use online_bilinear::{EncodedSentence, Fit, Fitted, LearnerSettings, TaggerParams, viterbi::score_index};
//!
//! /// The structured perceptron on the matrix features, written outside the crate.
//! struct Perceptron { l: usize, w: Vec<f64> }
//!
//! impl OnlineLearner for Perceptron {
//!     fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> online_bilinear::Result<()> {
//!         let (l, p) = (self.l, self.l + 1);
//!         // A sentence encoded with another dictionary reads features past the weights.
//!         let n_features = self.w.len() / (l * p);
//!         if let Some(&k) = (0..s.len()).flat_map(|i| s.at(i)).find(|&&k| k as usize >= n_features) {
//!             return Err(bl_core::error::invalid("feature id", k, format!("below {n_features}")).into());
//!         }
//!         out.clear();
//!         out.resize(s.len() * p * l, 0.0);
//!         for i in 0..s.len() {
//!             let previous = if i == 0 { l..p } else { 0..l };
//!             for &k in s.at(i) {
//!                 for b in previous.clone() {
//!                     for a in 0..l {
//!                         out[score_index(i, b, a, l)] += self.w[k as usize * l * p + a * p + b];
//!                     }
//!                 }
//!             }
//!         }
//!         Ok(())
//!     }
//!     fn update(&mut self, s: &EncodedSentence, gold: &[usize], pred: &[usize]) -> online_bilinear::Result<()> {
//!         let (l, p) = (self.l, self.l + 1);
//!         for i in 0..s.len() {
//!             let (bg, bp) = if i == 0 { (l, l) } else { (gold[i - 1], pred[i - 1]) };
//!             for &k in s.at(i) {
//!                 self.w[k as usize * l * p + gold[i] * p + bg] += 1.0;
//!                 self.w[k as usize * l * p + pred[i] * p + bp] -= 1.0;
//!             }
//!         }
//!         Ok(())
//!     }
//!     fn snapshot(&self) -> Snapshot {
//!         Snapshot { weights: OnlineWeights::Linear { w: self.w.clone() }, zero_order: None }
//!     }
//! }
//!
//! #[derive(Debug)]
//! struct MyPerceptron;
//! impl bl_core::Extension for MyPerceptron {
//!     fn name(&self) -> &str { "my-perceptron" }
//! }
//! impl Learner for MyPerceptron {
//!     fn reads(&self) -> &[online_bilinear::Setting] { &[] }
//!     fn start(&self, shape: LearnerShape, _: &LearnerSettings) -> online_bilinear::Result<Training> {
//!         let size = shape.n_features * shape.n_tags * (shape.n_tags + 1);
//!         Ok(Training::Online(Box::new(Perceptron { l: shape.n_tags, w: vec![0.0; size] })))
//!     }
//! }
//!
//! let corpus = online_bilinear::synthetic::segmentation(30, 40, 20, 1)?;
//! let model = TaggerParams::new(Arc::new(MyPerceptron)).max_iter(3).fit(&corpus)?;
//! assert_eq!(model.learner(), "my-perceptron");
//! assert_eq!(model.report().iterations, model.report().trace.len());
//! assert!(model.evaluate(&corpus)?.label_error_rate < 0.5);
//! assert!(online_bilinear::conformance::conformance(&MyPerceptron).passed());
//! # Ok::<(), online_bilinear::OblError>(())
//! ```

mod bcd;
mod bol;
mod builtin;
mod dense;
mod online;
mod sp;

use bl_core::{Extension, IterationParams};

use crate::error::Result;
pub use crate::settings::CrfPenalty;
use crate::settings::{LearnerSettings, Setting};

pub use bcd::Bcd;
pub(crate) use bcd::DenseParts;
pub use bol::Bol;
pub use builtin::BuiltIn;
pub(crate) use online::check_snapshot;
pub use online::{OnlineLearner, OnlineWeights, Snapshot};
pub use sp::Sp;

/// The sizes a learner is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LearnerShape {
    /// `K`, the number of features of the dictionary.
    pub n_features: usize,
    /// `L`, the number of tags (tag `L` in a score table's previous-tag rows is the start
    /// state).
    pub n_tags: usize,
    /// The id of the bias feature ([`crate::Template::Bias`]) in the dictionary, if the
    /// templates have one ([`crate::FeatureDict::bias_id`]).
    pub bias_feature: Option<usize>,
}

/// How a learner trains: what [`Learner::start`] gives the fit.
pub enum Training {
    /// An online update rule: the fit runs its epochs with this state.
    Online(Box<dyn OnlineLearner>),
    /// A first-order linear-chain CRF with this penalty and weight `c` ([`crate::crf`]).
    Crf(CrfPenalty),
}

impl std::fmt::Debug for Training {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Training::Online(_) => f.write_str("Training::Online(..)"),
            Training::Crf(penalty) => write!(f, "Training::Crf({penalty:?})"),
        }
    }
}

/// A learning algorithm of the tagger: the plug-in point (see the [module docs](self)).
///
/// [`check`](Extension::check) (from [`Extension`]) checks the learner's own settings;
/// the parameters' `check()` calls it, and refuses a value other than the default of a
/// setting the learner does not [`read`](Self::reads).
pub trait Learner: Extension {
    /// The settings of [`LearnerSettings`] this learner reads. The parameters' check
    /// refuses a non-default value of any other (a value given to a learner that ignores
    /// it is an error, not silently dropped). The default: every setting.
    fn reads(&self) -> &[Setting] {
        &Setting::ALL
    }

    /// The iteration knobs [`TaggerParams::new`](crate::TaggerParams::new) starts from: the
    /// budget `max_iter` (epochs for an online learner, optimizer iterations for a CRF)
    /// and the tolerance. The default: 20 epochs (the paper's `T`), tolerance 0 (stop
    /// early only after an epoch without a mistake).
    fn default_iteration(&self) -> IterationParams {
        IterationParams::new(20, 0.0)
    }

    /// Starts a fit for `shape` with `settings`: the online state, or the CRF to train.
    /// The fit gives it settings that passed [`LearnerSettings::check`]; called directly,
    /// the built-ins run that check first, and an implementation should too.
    ///
    /// # Errors
    /// A shape or setting the learner cannot work with.
    fn start(&self, shape: LearnerShape, settings: &LearnerSettings) -> Result<Training>;

    /// Which built-in learner this is: `Some` for [`BuiltIn`] only. What iterative
    /// parameter mixing ([`crate::distributed`]), which runs the built-in online learners
    /// only, goes by. Leave the default, `None`, in a learner of yours.
    fn built_in(&self) -> Option<BuiltIn> {
        None
    }
}
