//! The weights to mix ([`IpmWeights`]) and the learner that holds them while a shard
//! runs.

use bl_core::error::build::invalid;

use crate::error::{OblError, Result};
use crate::learner::{Bcd, Bol, BuiltIn, DenseParts, OnlineLearner, Sp};
use crate::rank_one::RankOneParts;
use crate::sparse::SparseRows;

/// What identifies the weights of a plan, and where in the run they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) learner: BuiltIn,
    pub(super) averaging: bool,
    pub(super) zero_order: bool,
    pub(super) n_features: u64,
    pub(super) n_tags: u64,
    pub(super) n_shards: u64,
    pub(super) fingerprint: u64,
    /// Epochs run.
    pub(super) epoch: u64,
    /// Recorded steps `T` (sentence visits counted by the averages).
    pub(super) steps: u64,
}

/// The learner's state.
#[derive(Debug, Clone)]
pub(super) enum Body {
    /// sp's weights (multiplied by the shard count) and 0-order weights.
    Sp {
        w: SparseRows,
        zero: Option<SparseRows>,
    },
    /// bol's `Theta`, factors and 0-order weights.
    Bol {
        rank_one: RankOneParts,
        zero: Option<SparseRows>,
    },
    /// bcd's factors and 0-order weights.
    Bcd {
        alpha: DenseParts,
        beta: DenseParts,
        zero: Option<SparseRows>,
    },
}

/// The weights to mix: the full training state of a learner after an epoch of a shard,
/// or mixed ([`IpmPlan::mix`](super::IpmPlan::mix)): sp's sparse weights, bol's `Theta`
/// (sparse) and factors of its touched blocks, bcd's dense factors, the 0-order weights
/// (sparse), and, when averaging, the accumulators of each (see the
/// [module docs](super)).
#[derive(Debug, Clone)]
pub struct IpmWeights {
    pub(super) header: Header,
    pub(super) body: Body,
}

/// A learner of one of the three kinds.
pub(super) enum Live {
    Sp(Box<Sp>),
    Bol(Box<Bol>),
    Bcd(Box<Bcd>),
}

impl Live {
    pub(super) fn as_online(&mut self) -> &mut dyn OnlineLearner {
        match self {
            Live::Sp(x) => &mut **x,
            Live::Bol(x) => &mut **x,
            Live::Bcd(x) => &mut **x,
        }
    }

    pub(super) fn into_online(self) -> Box<dyn OnlineLearner> {
        match self {
            Live::Sp(x) => x,
            Live::Bol(x) => x,
            Live::Bcd(x) => x,
        }
    }

    /// The state and its recorded steps.
    pub(super) fn into_body(self) -> Result<(Body, u64)> {
        Ok(match self {
            Live::Sp(x) => {
                let (w, zero, _) = x.into_parts();
                let steps = w.steps();
                (Body::Sp { w, zero }, steps)
            }
            Live::Bol(x) => {
                // Plans run bol under the per-block reading only.
                let (rank_one, zero) = x
                    .into_parts()
                    .ok_or_else(|| invalid::<OblError>("reading", "not per-block", "per-block"))?;
                let steps = rank_one.steps;
                (Body::Bol { rank_one, zero }, steps)
            }
            Live::Bcd(x) => {
                let (alpha, beta, zero, steps) = x.into_parts();
                (Body::Bcd { alpha, beta, zero }, steps)
            }
        })
    }
}

impl IpmWeights {
    /// The epochs run (0 for [`IpmPlan::initial_weights`](super::IpmPlan::initial_weights)).
    pub fn epoch(&self) -> u64 {
        self.header.epoch
    }

    /// The learner.
    pub fn learner(&self) -> BuiltIn {
        self.header.learner
    }

    /// The recorded steps `T` (sentence visits the averages count).
    pub fn steps(&self) -> u64 {
        self.header.steps
    }

    /// Every part of the state as a named dense array, for inspection and tests on small
    /// models: sp `w` (`K x P L`, by code), bol `theta` (`K x L P`, row-major blocks),
    /// `sigma` (`K`), `v` (`K x P`; the uniform start vector for an untouched block) and
    /// `alpha` (`K x L`), bcd `alpha` (`K x L`) and `beta` (`K x P`); `zero` (`K x L`) with
    /// 0-order weights; and with averaging the accumulator of each averaged part (`w_acc`,
    /// `alpha_acc`, `beta_acc`, `zero_acc`). sp's values are those of the scaled weights
    /// (multiplied by the shard count).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`OblError::Core`]) for arrays beyond
    /// [`bl_core::limits::MAX_ELEMENTS`] or that cannot be allocated.
    pub fn to_dense(&self) -> Result<Vec<(&'static str, Vec<f64>)>> {
        let (k, l) = (self.header.n_features as usize, self.header.n_tags as usize);
        let p = l + 1;
        let rows =
            |name: &'static str, r: &SparseRows, acc: bool| -> Result<(&'static str, Vec<f64>)> {
                let mut out: Vec<f64> =
                    bl_core::limits::try_zeroed(name, &[r.n_rows(), r.width()])?;
                for row in 0..r.n_rows() {
                    let (codes, values) = r.row(row);
                    let values = if acc { r.row_acc(row) } else { values };
                    for (&c, &x) in codes.iter().zip(values) {
                        out[row * r.width() + c as usize] = x;
                    }
                }
                Ok((name, out))
            };
        let mut out = Vec::new();
        let zero = match &self.body {
            Body::Sp { w, zero } => {
                out.push(rows("w", w, false)?);
                if w.averaging() {
                    out.push(rows("w_acc", w, true)?);
                }
                zero
            }
            Body::Bol { rank_one: r, zero } => {
                out.push(rows("theta", &r.theta, false)?);
                let mut sigma: Vec<f64> = bl_core::limits::try_zeroed("sigma", &[k])?;
                let mut v: Vec<f64> = bl_core::limits::try_zeroed("v", &[k, p])?;
                v.fill(1.0 / (p as f64).sqrt());
                let mut alpha: Vec<f64> = bl_core::limits::try_zeroed("alpha", &[k, l])?;
                let mut acc_a: Vec<f64> = bl_core::limits::try_zeroed("alpha_acc", &[k, l])?;
                let mut acc_b: Vec<f64> = bl_core::limits::try_zeroed("beta_acc", &[k, p])?;
                for (j, &b) in r.blocks.iter().enumerate() {
                    let b = b as usize;
                    sigma[b] = r.sigma[j];
                    v[b * p..(b + 1) * p].copy_from_slice(&r.v[j * p..(j + 1) * p]);
                    alpha[b * l..(b + 1) * l].copy_from_slice(&r.alpha[j * l..(j + 1) * l]);
                    if let Some((a, bb)) = &r.averages {
                        acc_a[b * l..(b + 1) * l].copy_from_slice(&a[j * l..(j + 1) * l]);
                        acc_b[b * p..(b + 1) * p].copy_from_slice(&bb[j * p..(j + 1) * p]);
                    }
                }
                out.extend([("sigma", sigma), ("v", v), ("alpha", alpha)]);
                if r.averages.is_some() {
                    out.extend([("alpha_acc", acc_a), ("beta_acc", acc_b)]);
                }
                zero
            }
            Body::Bcd { alpha, beta, zero } => {
                for ((name, acc_name), (x, acc)) in [
                    (("alpha", "alpha_acc"), alpha),
                    (("beta", "beta_acc"), beta),
                ] {
                    out.push((name, x.clone()));
                    if let Some(acc) = acc {
                        out.push((acc_name, acc.clone()));
                    }
                }
                zero
            }
        };
        if let Some(z) = zero {
            out.push(rows("zero", z, false)?);
            if z.averaging() {
                out.push(rows("zero_acc", z, true)?);
            }
        }
        Ok(out)
    }
}
