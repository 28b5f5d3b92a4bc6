//! The versioned byte forms (module docs of [`super`], **Bytes.**): the `to_bytes` and
//! `from_bytes` of the messages ([`ShardSummary`], [`Remap`], [`OnlineState`],
//! [`EpochResult`]) and of vectors ([`vector_to_bytes`]), each read back with every
//! length and value checked.

use super::mixing::{EpochResult, OnlineState};
use super::plan::{Remap, ShardSummary};
use crate::error::Result;
use crate::train::online::Weights;
use crate::wire::{Kind, Reader, Writer, bad};

impl ShardSummary {
    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::Summary);
        w.strings(&self.attributes);
        w.strings(&self.labels);
        let (a, rest): (Vec<u32>, Vec<(u32, f64)>) =
            self.state.iter().map(|&(a, y, f)| (a, (y, f))).unzip();
        let (y, f): (Vec<u32>, Vec<f64>) = rest.into_iter().unzip();
        w.u32s(&a);
        w.u32s(&y);
        w.f64s(&f);
        w.f64s(&self.transitions);
        w.byte(u8::from(self.negative));
        w.u64(self.sequences);
        w.u64(self.items);
        w.finish()
    }

    /// Reads [`ShardSummary::to_bytes`], checking everything (ids in range, pairs sorted
    /// and distinct, an `L x L` transition table of nonnegative counts).
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::Summary)?;
        let attributes = r.strings("attribute names")?;
        let labels = r.strings("label names")?;
        let a = r.u32s("pair attributes")?;
        let y = r.u32s("pair labels")?;
        let f = r.f64s("pair frequencies")?;
        let transitions = r.f64s("transition counts")?;
        let negative = r.flag("the negative flag")?;
        let sequences = r.u64()?;
        let items = r.u64()?;
        r.finish()?;
        let l = labels.len();
        if a.len() != y.len() || a.len() != f.len() {
            return Err(bad("shard summary: pair arrays of different lengths"));
        }
        if l.checked_mul(l) != Some(transitions.len()) {
            return Err(bad(format!(
                "shard summary: {} transition counts for {l} labels",
                transitions.len()
            )));
        }
        if transitions.iter().any(|&c| c < 0.0) {
            return Err(bad("shard summary: a negative transition count"));
        }
        let state: Vec<(u32, u32, f64)> = (0..a.len()).map(|i| (a[i], y[i], f[i])).collect();
        for (i, p) in state.iter().enumerate() {
            if p.0 as usize >= attributes.len() || p.1 as usize >= l {
                return Err(bad(format!("shard summary: pair {i} is out of range")));
            }
            if i > 0 && (state[i - 1].0, state[i - 1].1) >= (p.0, p.1) {
                return Err(bad(format!("shard summary: pair {i} is out of order")));
            }
        }
        Ok(Self {
            attributes,
            labels,
            state,
            transitions,
            negative,
            sequences,
            items,
        })
    }
}

impl Remap {
    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::Remap);
        w.u32s(&self.attributes);
        w.u32s(&self.labels);
        w.u64(self.n_attributes as u64);
        w.u64(self.n_labels as u64);
        w.finish()
    }

    /// Reads [`Remap::to_bytes`], checking that every id is below the shared sizes.
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::Remap)?;
        let attributes = r.u32s("attribute ids")?;
        let labels = r.u32s("label ids")?;
        let n_attributes = r.count("the attribute count")?;
        let n_labels = r.count("the label count")?;
        r.finish()?;
        if attributes.iter().any(|&a| a as usize >= n_attributes)
            || labels.iter().any(|&y| y as usize >= n_labels)
        {
            return Err(bad("id remapping: an id beyond the shared dictionaries"));
        }
        Ok(Self {
            attributes,
            labels,
            n_attributes,
            n_labels,
        })
    }
}

/// `values` (weights, or a gradient) in the versioned byte form, with one real in front
/// (`head`: the loss of a gradient; anything for weights).
pub fn vector_to_bytes(head: f64, values: &[f64]) -> Vec<u8> {
    let mut w = Writer::new(Kind::Vector);
    w.f64(head);
    w.f64s(values);
    w.finish()
}

/// Reads [`vector_to_bytes`]: `(head, values)`, all finite.
///
/// # Errors
/// [`CrfError::Serialized`](crate::CrfError::Serialized).
pub fn vector_from_bytes(bytes: &[u8]) -> Result<(f64, Vec<f64>)> {
    let mut r = Reader::new(bytes, Kind::Vector)?;
    let head = r.f64("the head")?;
    let values = r.f64s("values")?;
    r.finish()?;
    Ok((head, values))
}

impl OnlineState {
    fn write(&self, w: &mut Writer) {
        w.u64(self.weights.seen);
        w.f64s(&self.weights.w);
        w.byte(u8::from(self.weights.sum.is_some()));
        if let Some(s) = &self.weights.sum {
            w.f64s(s);
        }
        w.byte(u8::from(self.cov.is_some()));
        if let Some(c) = &self.cov {
            w.f64s(c);
        }
    }

    fn read(r: &mut Reader<'_>) -> Result<Self> {
        let seen = r.u64()?;
        let w = r.f64s("weights")?;
        let sum = if r.flag("the averaging flag")? {
            Some(r.f64s("the average's sum")?)
        } else {
            None
        };
        let cov = if r.flag("the variance flag")? {
            Some(r.f64s("variances")?)
        } else {
            None
        };
        let n = w.len();
        if sum.as_ref().is_some_and(|s| s.len() != n) || cov.as_ref().is_some_and(|c| c.len() != n)
        {
            return Err(bad("online trainer state: vectors of different lengths"));
        }
        if cov.as_ref().is_some_and(|c| c.iter().any(|&v| v <= 0.0)) {
            return Err(bad("online trainer state: a variance is not positive"));
        }
        Ok(Self {
            weights: Weights { w, sum, seen },
            cov,
        })
    }

    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::OnlineState);
        self.write(&mut w);
        w.finish()
    }

    /// Reads [`OnlineState::to_bytes`] (finite values, equal lengths, positive variances).
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::OnlineState)?;
        let s = Self::read(&mut r)?;
        r.finish()?;
        Ok(s)
    }
}

impl EpochResult {
    /// The versioned byte form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::EpochResult);
        self.state.write(&mut w);
        w.f64(self.loss);
        w.u64(self.errors);
        w.u64(self.mistakes);
        w.u64(self.instances);
        w.finish()
    }

    /// Reads [`EpochResult::to_bytes`].
    ///
    /// # Errors
    /// [`CrfError::Serialized`](crate::CrfError::Serialized).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, Kind::EpochResult)?;
        let state = OnlineState::read(&mut r)?;
        let loss = r.f64("the loss")?;
        let errors = r.u64()?;
        let mistakes = r.u64()?;
        let instances = r.u64()?;
        r.finish()?;
        if mistakes > instances {
            return Err(bad("epoch result: more mistaken sequences than sequences"));
        }
        Ok(Self {
            state,
            loss,
            errors,
            mistakes,
            instances,
        })
    }
}
