//! bol, the paper's Algorithm 2: `Theta += C DeltaPhi` on a mistake, then, with the
//! default [`Reading::PerBlock`], `R` warm-started power steps on each touched block
//! ([`crate::rank_one::BlockRankOne::update`]); `alpha_k = sqrt(sigma_k) u_k`,
//! `beta_k = sqrt(sigma_k) v_k`. The paper's literal readings are in [`crate::spectral`].
//! 0-order weights (Sec. 4.3) are the gradient of `1/2 ||theta_w||^2`, i.e.
//! `w += C DeltaPhi_0`.

use super::dense::{add_zero, check_shape, check_update, zero_order_update};
use super::{OnlineLearner, OnlineWeights, Snapshot};
use crate::error::Result;
use crate::features::EncodedSentence;
use crate::rank_one::{BlockRankOne, BlockUpdate};
use crate::scoring::bilinear_table;
use crate::settings::{LearnerSettings, Reading};
use crate::sparse::SparseRows;
use crate::spectral::{SpectralMode, SpectralRankOne};

/// bol's dual state under one of the [`Reading`]s.
#[derive(Debug)]
enum BolState {
    PerBlock(BlockRankOne),
    Spectral(SpectralRankOne),
}

/// bol: Algorithm 2.
#[derive(Debug)]
pub struct Bol {
    n_features: usize,
    l: usize,
    c: f64,
    steps: usize,
    state: BolState,
    delta: BlockUpdate,
    zero: Option<SparseRows>,
    averaging: bool,
}

impl Bol {
    /// bol for `n_features` features and `l` tags with `settings` (`c`, `power_steps`,
    /// `reading`, `averaging`, `zero_order`).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for
    /// `settings` out of range ([`LearnerSettings::check`]), a zero size, more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags,
    /// `n_features (l + 1)` above [`bl_core::limits::MAX_ELEMENTS`], or a state that
    /// cannot be allocated.
    pub fn new(n_features: usize, l: usize, settings: &LearnerSettings) -> Result<Self> {
        settings.check()?;
        check_shape(n_features, l)?;
        let spectral = |mode| {
            SpectralRankOne::new(n_features, l, l + 1, mode, settings.averaging)
                .map(BolState::Spectral)
        };
        let state = match settings.reading {
            Reading::PerBlock => {
                BolState::PerBlock(BlockRankOne::new(n_features, l, l + 1, settings.averaging)?)
            }
            Reading::SpectralExact => spectral(SpectralMode::Exact)?,
            Reading::SpectralAlgorithm2 => spectral(SpectralMode::Algorithm2)?,
        };
        Ok(Self {
            n_features,
            l,
            c: settings.c,
            steps: settings.power_steps,
            state,
            delta: BlockUpdate::new(l, l + 1),
            zero: settings
                .zero_order
                .then(|| SparseRows::new(n_features, l, settings.averaging))
                .transpose()?,
            averaging: settings.averaging,
        })
    }
}

impl Bol {
    /// The state's raw parts (for [`crate::distributed`]): the rank-1 state of the
    /// default [`Reading::PerBlock`] and the 0-order store; `None` under another reading.
    pub(crate) fn into_parts(self) -> Option<(crate::rank_one::RankOneParts, Option<SparseRows>)> {
        match self.state {
            BolState::PerBlock(s) => Some((s.into_parts(), self.zero)),
            BolState::Spectral(_) => None,
        }
    }

    /// bol as [`new`](Self::new) builds it (under [`Reading::PerBlock`]), holding the state
    /// of `parts` and the 0-order store `zero`. The caller gives parts of `n_features`
    /// blocks of `l x (l + 1)` and a store of `n_features` rows of width `l` when
    /// `settings.zero_order`, averaging as `settings` say.
    ///
    /// # Errors
    /// As [`new`](Self::new); an invalid-parameter error for another reading.
    pub(crate) fn from_parts(
        n_features: usize,
        l: usize,
        settings: &LearnerSettings,
        (parts, zero): (crate::rank_one::RankOneParts, Option<SparseRows>),
    ) -> Result<Self> {
        if settings.reading != Reading::PerBlock {
            return Err(bl_core::params::invalid(
                "reading",
                settings.reading.name(),
                "per-block (the only reading distributed training runs)",
            )
            .into());
        }
        let mut bol = Self::new(n_features, l, settings)?;
        bol.state = BolState::PerBlock(BlockRankOne::from_parts(
            l,
            l + 1,
            settings.averaging,
            parts,
        )?);
        bol.zero = zero;
        Ok(bol)
    }
}

impl OnlineLearner for Bol {
    fn begin_pass(&mut self, _pass: usize) {
        if let BolState::Spectral(s) = &mut self.state {
            s.renormalize();
        }
    }

    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        enc.check_feature_ids("scores: sentence feature id", "n_features", self.n_features)?;
        match &self.state {
            BolState::PerBlock(s) => s.scores_table(enc, out),
            BolState::Spectral(s) => {
                let (alpha, beta, factor) = s.raw();
                bilinear_table(enc, self.l, alpha, beta, factor, None, out);
            }
        }
        add_zero(enc, self.l, self.zero.as_ref(), out);
        Ok(())
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        check_update(enc, gold, pred, self.n_features, self.l)?;
        let c = self.c;
        self.delta.set_delta_phi(enc, gold, pred, c);
        match &mut self.state {
            BolState::PerBlock(s) => s.update(&self.delta, self.steps)?,
            BolState::Spectral(s) => s.update(&self.delta, self.steps)?,
        }
        zero_order_update(&mut self.zero, enc, gold, pred, c);
        Ok(())
    }

    fn record(&mut self) {
        match &mut self.state {
            BolState::PerBlock(s) => s.record_step(),
            BolState::Spectral(s) => s.record_step(),
        }
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn take_sparse_zero_order(&mut self) -> Option<crate::sparse::SparseWeights> {
        self.zero.take().map(SparseRows::into_snapshot)
    }

    fn snapshot(&self) -> Snapshot {
        let (alpha, beta) = match &self.state {
            BolState::PerBlock(s) => match s.averaged_alpha_beta() {
                Some(averaged) if self.averaging => averaged,
                _ => (s.alpha(), s.beta()),
            },
            BolState::Spectral(s) => match s.averaged_alpha_beta() {
                Some(averaged) if self.averaging => averaged,
                _ => s.alpha_beta(),
            },
        };
        Snapshot {
            weights: OnlineWeights::Bilinear { alpha, beta },
            zero_order: self.zero.as_ref().map(SparseRows::snapshot_dense),
        }
    }

    fn into_snapshot(self: Box<Self>) -> Snapshot {
        let Bol {
            state,
            zero,
            averaging,
            ..
        } = *self;
        let (alpha, beta) = match state {
            BolState::PerBlock(s) => s.into_alpha_beta(averaging),
            BolState::Spectral(s) => match s.averaged_alpha_beta() {
                Some(averaged) if averaging => averaged,
                _ => s.alpha_beta(),
            },
        };
        Snapshot {
            weights: OnlineWeights::Bilinear { alpha, beta },
            zero_order: zero.map(SparseRows::into_snapshot_dense),
        }
    }
}
