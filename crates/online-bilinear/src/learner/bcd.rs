//! bcd, the paper's Algorithm 1: within each epoch one pass updates `alpha` with `beta`
//! fixed and a second pass updates `beta` with `alpha` fixed. Each is a linear structured
//! SVM solved online in the dual (Shalev-Shwartz and Singer 2006): with
//! `g = DeltaPhi beta` (or `DeltaPhi^T alpha`) and margin `m = <params, g>`, the dual step
//! is `tau = min(C / lambda, (l - m) / ||g||^2)` when `l > m`. With the default
//! [`BcdSolver::Hamming`], `l` is the Hamming loss, `lambda = 1`, and it starts from
//! `alpha = 0`, `beta = 1`; with [`BcdSolver::Algorithm1`] (the paper as printed), `l = 1`
//! (the hinge of eq. (7)), `lambda` is the squared norm of the fixed factor (the
//! regularizer `1/2 ||alpha beta^T||_F^2`), and it starts from `alpha = beta = 1 / ||1||`.

use super::dense::{Linear, SparseSum, add_zero, check_shape, check_update, try_filled};
use super::{OnlineLearner, OnlineWeights, Snapshot};
use crate::delta::for_each_difference;
use crate::error::Result;
use crate::features::EncodedSentence;
use crate::scoring::bilinear_table;
use crate::settings::{BcdSolver, LearnerSettings};
use crate::sparse::SparseRows;

/// bcd: Algorithm 1.
#[derive(Debug)]
pub struct Bcd {
    n_features: usize,
    l: usize,
    c: f64,
    solver: BcdSolver,
    /// `||beta||^2` during an `alpha` pass, `||alpha||^2` during a `beta` pass (the scale of
    /// the regularizer of the SVM (7) with the other factor fixed).
    fixed_norm2: f64,
    alpha: Linear,
    beta: Linear,
    zero: Option<SparseRows>,
    update_alpha: bool,
    g: SparseSum,
    g0: SparseSum,
}

impl Bcd {
    /// bcd for `n_features` features and `l` tags with `settings` (`c`, `bcd_solver`,
    /// `averaging`, `zero_order`).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for
    /// `settings` out of range ([`LearnerSettings::check`]), no tag,
    /// more than [`MAX_TAGS`](crate::viterbi::MAX_TAGS) tags, `n_features (l + 1)` above
    /// [`bl_core::limits::MAX_ELEMENTS`], or weights that cannot be allocated.
    pub fn new(n_features: usize, l: usize, settings: &LearnerSettings) -> Result<Self> {
        settings.check()?;
        check_shape(n_features, l)?;
        let (m, n) = (n_features * l, n_features * (l + 1));
        let (alpha0, beta0) = match settings.bcd_solver {
            BcdSolver::Hamming => (0.0, 1.0),
            BcdSolver::Algorithm1 => (1.0 / (m as f64).sqrt(), 1.0 / (n as f64).sqrt()),
        };
        Ok(Self {
            n_features,
            l,
            c: settings.c,
            solver: settings.bcd_solver,
            fixed_norm2: 1.0,
            alpha: Linear::new(try_filled("bcd alpha", m, alpha0)?, settings.averaging)?,
            beta: Linear::new(try_filled("bcd beta", n, beta0)?, settings.averaging)?,
            zero: settings
                .zero_order
                .then(|| SparseRows::new(n_features, l, settings.averaging))
                .transpose()?,
            update_alpha: true,
            g: SparseSum::default(),
            g0: SparseSum::default(),
        })
    }
}

/// A dense factor of bcd: its values and, when averaging, its accumulators.
pub(crate) type DenseParts = (Vec<f64>, Option<Vec<f64>>);

impl Bcd {
    /// The state's raw parts (for [`crate::distributed`]): `alpha`, `beta`, the 0-order
    /// store and the recorded steps.
    pub(crate) fn into_parts(self) -> (DenseParts, DenseParts, Option<SparseRows>, u64) {
        let (alpha, acc_alpha, steps) = self.alpha.into_parts();
        let (beta, acc_beta, _) = self.beta.into_parts();
        ((alpha, acc_alpha), (beta, acc_beta), self.zero, steps)
    }

    /// bcd as [`new`](Self::new) builds it, holding the state of
    /// [`into_parts`](Self::into_parts)'s parts. The caller gives `alpha` of
    /// `n_features l` values, `beta` of `n_features (l + 1)`, accumulators of the same
    /// lengths exactly when `settings.averaging`, and a store of `n_features` rows of
    /// width `l` when `settings.zero_order`.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub(crate) fn from_parts(
        n_features: usize,
        l: usize,
        settings: &LearnerSettings,
        (alpha, beta, zero, steps): (DenseParts, DenseParts, Option<SparseRows>, u64),
    ) -> Result<Self> {
        check_shape(n_features, l)?;
        Ok(Self {
            n_features,
            l,
            c: settings.c,
            solver: settings.bcd_solver,
            fixed_norm2: 1.0,
            alpha: Linear::from_parts(alpha.0, alpha.1, steps),
            beta: Linear::from_parts(beta.0, beta.1, steps),
            zero,
            update_alpha: true,
            g: SparseSum::default(),
            g0: SparseSum::default(),
        })
    }
}

impl OnlineLearner for Bcd {
    fn passes_per_epoch(&self) -> usize {
        2
    }

    fn begin_pass(&mut self, pass: usize) {
        self.update_alpha = pass.is_multiple_of(2);
        let fixed = if self.update_alpha {
            &self.beta.w
        } else {
            &self.alpha.w
        };
        self.fixed_norm2 = fixed.iter().map(|x| x * x).sum();
    }

    fn scores(&self, enc: &EncodedSentence, out: &mut Vec<f64>) -> Result<()> {
        enc.check_feature_ids("scores: sentence feature id", "n_features", self.n_features)?;
        bilinear_table(enc, self.l, &self.alpha.w, &self.beta.w, 1.0, None, out);
        add_zero(enc, self.l, self.zero.as_ref(), out);
        Ok(())
    }

    fn update(&mut self, enc: &EncodedSentence, gold: &[usize], pred: &[usize]) -> Result<()> {
        check_update(enc, gold, pred, self.n_features, self.l)?;
        let (l, p) = (self.l, self.l + 1);
        let (alpha, beta, g) = (&self.alpha.w, &self.beta.w, &mut self.g);
        if self.update_alpha {
            // g = DeltaPhi beta, indexed like alpha.
            for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
                g.push(k * l + ag, beta[k * p + bg]);
                g.push(k * l + ap, -beta[k * p + bp]);
            });
        } else {
            // g = DeltaPhi^T alpha, indexed like beta.
            for_each_difference(enc, gold, pred, l, |_, k, (ag, bg), (ap, bp)| {
                g.push(k * p + bg, alpha[k * l + ag]);
                g.push(k * p + bp, -alpha[k * l + ap]);
            });
        }
        self.g.finish();
        if self.zero.is_some() {
            for i in 0..enc.len() {
                if gold[i] != pred[i] {
                    for &k in enc.at(i) {
                        self.g0.push(k as usize * l + gold[i], 1.0);
                        self.g0.push(k as usize * l + pred[i], -1.0);
                    }
                }
            }
        }
        self.g0.finish();
        let params = if self.update_alpha {
            &self.alpha.w
        } else {
            &self.beta.w
        };
        let mut margin: f64 = self.g.iter().map(|&(j, x)| params[j] * x).sum();
        let mut norm2: f64 = self.g.iter().map(|(_, x)| x * x).sum();
        if let Some(z) = self.zero.as_ref() {
            margin += self
                .g0
                .iter()
                .map(|&(j, x)| z.get(j / l, (j % l) as u32) * x)
                .sum::<f64>();
            norm2 += self.g0.iter().map(|(_, x)| x * x).sum::<f64>();
        }
        // The dual step on the concatenation (params, w) whose regularizer is
        // `lambda/2 ||params||^2 + 1/2 ||w||^2` (lambda = 1 for ours, the fixed factor's
        // squared norm for Algorithm 1): `eta = min(C, (loss - margin) / (||g||^2 / lambda +
        // ||g0||^2))`, `params += eta / lambda g`, `w += eta g0`.
        let (loss, lambda) = match self.solver {
            BcdSolver::Hamming => (
                gold.iter().zip(pred).filter(|(a, b)| a != b).count() as f64,
                1.0,
            ),
            BcdSolver::Algorithm1 => (1.0, self.fixed_norm2),
        };
        let norm2_g: f64 = self.g.iter().map(|(_, x)| x * x).sum();
        let norm2_g0 = norm2 - norm2_g;
        let denominator = norm2_g / lambda + norm2_g0;
        if loss > margin && denominator > 0.0 && lambda > 0.0 {
            let eta = self.c.min((loss - margin) / denominator);
            let target = if self.update_alpha {
                &mut self.alpha
            } else {
                &mut self.beta
            };
            for &(j, x) in self.g.iter() {
                target.add(j, eta / lambda * x);
            }
            if let Some(z) = self.zero.as_mut() {
                for &(j, x) in self.g0.iter() {
                    z.add(j / l, (j % l) as u32, eta * x);
                }
            }
        }
        Ok(())
    }

    fn record(&mut self) {
        self.alpha.record();
        self.beta.record();
        self.zero.iter_mut().for_each(SparseRows::record);
    }

    fn take_sparse_zero_order(&mut self) -> Option<crate::sparse::SparseWeights> {
        self.zero.take().map(SparseRows::into_snapshot)
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            weights: OnlineWeights::Bilinear {
                alpha: self.alpha.value(),
                beta: self.beta.value(),
            },
            zero_order: self.zero.as_ref().map(SparseRows::snapshot_dense),
        }
    }

    fn into_snapshot(self: Box<Self>) -> Snapshot {
        let Bcd {
            alpha, beta, zero, ..
        } = *self;
        let alpha = alpha.into_value();
        let beta = beta.into_value();
        Snapshot {
            weights: OnlineWeights::Bilinear { alpha, beta },
            zero_order: zero.map(SparseRows::into_snapshot_dense),
        }
    }
}
