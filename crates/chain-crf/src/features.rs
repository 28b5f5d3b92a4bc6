//! CRFsuite's feature generation for the first-order model (`crf1d`): state features
//! `(attribute, label)` and transition features `(label, label)`.
//!
//! Generation follows CRFsuite's `crf1df_generate`: a state feature `(a, y)` exists when
//! attribute `a` occurs in an item labelled `y`, and its frequency is the sum of the
//! attribute's values there; a transition `(y', y)` exists when label `y` follows `y'`,
//! its frequency the number of times. Features of frequency below `min_freq` are dropped.
//! `all_possible_states` adds every `(attribute, label)` pair and
//! `all_possible_transitions` every label pair (frequency 0, so kept only when
//! `min_freq <= 0`, as in CRFsuite).
//!
//! Feature ids: the state features first, grouped by attribute in attribute order and by
//! label within an attribute, then the transitions in `(previous, next)` order.

use bl_core::error::build::shape_mismatch;
use bl_core::limits;
use serde::{Deserialize, Serialize};

use crate::data::{Dataset, Items};
use crate::wire::{Kind, Reader, Writer, bad};

/// What [`FeatureSet::generate`] keeps (CRFsuite's `feature.*` parameters).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FeatureOptions {
    /// Drop features whose frequency is below this (`feature.minfreq`, default 0).
    pub min_freq: f64,
    /// Every `(attribute, label)` pair, seen or not (`feature.possible_states`).
    pub all_possible_states: bool,
    /// Every label pair, seen or not (`feature.possible_transitions`).
    pub all_possible_transitions: bool,
}

impl Default for FeatureOptions {
    fn default() -> Self {
        Self {
            min_freq: 0.0,
            all_possible_states: false,
            all_possible_transitions: false,
        }
    }
}

/// No transition feature for this label pair (in the `L x L` table).
pub const NONE: u32 = u32::MAX;

/// The features of a model (module docs): per attribute the labels it has a state
/// feature for, and per label pair its transition feature id, if it has one.
///
/// Every value is consistent: serde's deserialization checks a feature set in full, as
/// [`FeatureSet::from_bytes`] does (which lists the checks), and refuses an inconsistent
/// one with an error of the deserializer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawFeatureSet")]
pub struct FeatureSet {
    n_labels: usize,
    /// `state_off[a]..state_off[a + 1]` are the state features of attribute `a`; feature
    /// id = index into `state_label`.
    state_off: Vec<u32>,
    state_label: Vec<u32>,
    /// `L x L` (previous, next): feature id or [`NONE`].
    trans: Vec<u32>,
    n_trans: usize,
}

/// The fields of a [`FeatureSet`] as read, before their check.
#[derive(Deserialize)]
struct RawFeatureSet {
    n_labels: usize,
    state_off: Vec<u32>,
    state_label: Vec<u32>,
    trans: Vec<u32>,
    n_trans: usize,
}

impl TryFrom<RawFeatureSet> for FeatureSet {
    type Error = String;

    /// The feature set of `raw` if it is consistent (what `FeatureSet::from_bytes` checks).
    fn try_from(raw: RawFeatureSet) -> Result<Self, String> {
        let set = Self {
            n_labels: raw.n_labels,
            state_off: raw.state_off,
            state_label: raw.state_label,
            trans: raw.trans,
            n_trans: raw.n_trans,
        };
        set.validate()?;
        Ok(set)
    }
}

/// The state features of `all_possible_states` over `n_attrs` attributes and `l` labels
/// (`A L` of them) are numbered by `u32`, and held in memory: at most `u32::MAX` and
/// [`bl_core::limits::MAX_ELEMENTS`].
pub(crate) fn check_all_states(n_attrs: usize, l: usize) -> crate::Result<()> {
    let n = limits::buffer_len("attributes x labels (all_possible_states)", &[n_attrs, l])?;
    if n >= u32::MAX as usize {
        return Err(bl_core::BlError::InvalidParameter {
            name: "attributes x labels (all_possible_states)",
            value: format!("{n_attrs} x {l} = {n} state features"),
            expected: "fewer than 2^32 - 1 (they are numbered by u32)".into(),
        }
        .into());
    }
    Ok(())
}

/// The `L x L` transition table of a feature set, every entry [`NONE`], checked by
/// [`limits::buffer_len`] and reserved fallibly before it is filled.
fn transition_table(l: usize) -> crate::Result<Vec<u32>> {
    Ok(limits::try_filled(
        "labels x labels (transition table)",
        &[l, l],
        NONE,
    )?)
}

impl FeatureSet {
    /// Generates the features of `data` (module docs).
    ///
    /// Memory beyond the result: one bit per (attribute, label) pair (`L / 8` bytes per
    /// attribute, rounded up to 8), the `L x L` transition counts (`8 L^2` bytes), and one
    /// `f64` per state feature when frequencies decide (`min_freq > 0`, or a negative
    /// value in the data).
    ///
    /// Memory is quadratic in the number of labels `L`, as in CRFsuite: the feature set
    /// keeps the dense `L x L` transition table (`4 L^2` bytes, whether or not the
    /// transitions occur), and the trainers keep `L x L` tables of `f64` beside it (the
    /// transition weights and their exponentials; `lbfgs` two more per thread, `l2sgd`
    /// five). 8,000 labels take about 0.25 GB per table, whatever the size of the data.
    /// A table of more than [`bl_core::limits::MAX_ELEMENTS`] entries (`L > 65,536`) is
    /// refused, and so is one whose memory cannot be reserved, with an error naming it,
    /// before anything is filled.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` (as [`crate::CrfError::Core`]) when the `L x L`
    /// transition counts or table, the pair bits or, with `all_possible_states`, the `A x L` state
    /// features would exceed [`bl_core::limits::MAX_ELEMENTS`] values or cannot be
    /// reserved (checked before they are allocated: a data set of more than `2^16` labels
    /// is refused); [`crate::CrfError::Input`] naming the first item whose label is not
    /// in `data`'s label dictionary ([`Dataset::check_labels`]: the
    /// [`crate::UNKNOWN_LABEL`] of a [`crate::DatasetBuilder::frozen`] data set, which can
    /// be held out but not trained on), checked before any work.
    pub fn generate(data: &Dataset, options: &FeatureOptions) -> crate::Result<Self> {
        data.check_labels()?;
        let l = data.labels().len();
        let n_attrs = data.attributes().len();
        let words = l.div_ceil(64).max(1);
        // Which (attribute, label) pairs occur, one bit each; the transition counts. Both
        // are sized by the data's dictionaries, checked before anything is allocated.
        let mut seen =
            limits::try_zeroed::<u64>("attributes x labels / 64 (pairs seen)", &[n_attrs, words])?;
        let mut trans_freq = limits::try_zeroed::<f64>("labels x labels (transitions)", &[l, l])?;
        let mut negative = false;
        for x in data.iter() {
            for t in 0..x.items.len() {
                let y = x.labels[t] as usize;
                let (ids, vals) = x.items.item(t);
                for (&a, &v) in ids.iter().zip(vals) {
                    seen[a as usize * words + y / 64] |= 1 << (y % 64);
                    negative |= v < 0.0;
                }
                if t > 0 {
                    trans_freq[x.labels[t - 1] as usize * l + y] += 1.0;
                }
            }
        }
        let mut state_off = Vec::with_capacity(n_attrs + 1);
        let mut state_label = if options.all_possible_states {
            check_all_states(n_attrs, l)?;
            limits::try_with_capacity("attributes x labels (all_possible_states)", &[n_attrs, l])?
        } else {
            Vec::new()
        };
        state_off.push(0);
        for a in 0..n_attrs {
            if options.all_possible_states {
                state_label.extend(0..l as u32);
            } else {
                let row = &seen[a * words..(a + 1) * words];
                for (w, &bits) in row.iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        state_label.push((w * 64) as u32 + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                }
            }
            state_off.push(state_label.len() as u32);
        }
        drop(seen);
        let mut set = Self::with_states(l, state_off, state_label)?;
        // Frequencies decide only when a feature can fall below `min_freq`: seen pairs
        // of nonnegative values have frequency >= 0, unseen ones 0.
        if options.min_freq > 0.0 || negative {
            let mut freq = vec![0.0_f64; set.state_label.len()];
            for x in data.iter() {
                for t in 0..x.items.len() {
                    let (ids, vals) = x.items.item(t);
                    for (&a, &v) in ids.iter().zip(vals) {
                        if let Some(k) = set.state_feature(a, x.labels[t]) {
                            freq[k] += v;
                        }
                    }
                }
            }
            let mut off = Vec::with_capacity(n_attrs + 1);
            let mut labels = Vec::new();
            off.push(0);
            for a in 0..n_attrs as u32 {
                let (first, row) = set.state_features(a);
                labels.extend(
                    row.iter()
                        .zip(&freq[first..first + row.len()])
                        .filter(|(_, f)| **f >= options.min_freq)
                        .map(|(y, _)| *y),
                );
                off.push(labels.len() as u32);
            }
            set.state_off = off;
            set.state_label = labels;
        }
        set.add_transitions(&trans_freq, options);
        Ok(set)
    }

    /// The features of counts merged from several data sets (the distributed fit's
    /// shards), by the rules of [`FeatureSet::generate`] on their concatenation: `state`
    /// holds every seen `(attribute, label, frequency)`, sorted by attribute then label,
    /// each pair once; `trans_freq` is the `L x L` table of transition counts; `negative`
    /// says whether some value was negative. Frequencies summed in another order than
    /// one pass over the data may differ in the last bits.
    pub(crate) fn from_counts(
        n_attrs: usize,
        l: usize,
        state: &[(u32, u32, f64)],
        trans_freq: &[f64],
        negative: bool,
        options: &FeatureOptions,
    ) -> crate::Result<Self> {
        let test = options.min_freq > 0.0 || negative;
        let keep = |f: f64| !test || f >= options.min_freq;
        let mut state_off = Vec::with_capacity(n_attrs + 1);
        let mut state_label = Vec::new();
        state_off.push(0);
        let mut next = 0;
        for a in 0..n_attrs as u32 {
            let start = next;
            while next < state.len() && state[next].0 == a {
                next += 1;
            }
            let seen = &state[start..next];
            if options.all_possible_states {
                let mut j = 0;
                for y in 0..l as u32 {
                    let mut f = 0.0;
                    if j < seen.len() && seen[j].1 == y {
                        f = seen[j].2;
                        j += 1;
                    }
                    if keep(f) {
                        state_label.push(y);
                    }
                }
            } else {
                state_label.extend(seen.iter().filter(|p| keep(p.2)).map(|p| p.1));
            }
            state_off.push(state_label.len() as u32);
        }
        let mut set = Self::with_states(l, state_off, state_label)?;
        set.add_transitions(trans_freq, options);
        Ok(set)
    }

    /// The state features `state_off`/`state_label` over `l` labels, and no transitions.
    ///
    /// # Errors
    /// `BlError::InvalidParameter` naming the labels when the `L x L` transition table
    /// exceeds [`limits::MAX_ELEMENTS`] entries or cannot be reserved.
    fn with_states(l: usize, state_off: Vec<u32>, state_label: Vec<u32>) -> crate::Result<Self> {
        Ok(Self {
            n_labels: l,
            state_off,
            state_label,
            trans: transition_table(l)?,
            n_trans: 0,
        })
    }

    /// Numbers the transition features after the state features, in the order of the
    /// `L x L` table `trans_freq`: a transition seen (or every one with
    /// `all_possible_transitions`) whose count reaches `min_freq`.
    fn add_transitions(&mut self, trans_freq: &[f64], options: &FeatureOptions) {
        let mut next = self.state_label.len() as u32;
        for (j, &f) in trans_freq.iter().enumerate() {
            let exists = f > 0.0 || options.all_possible_transitions;
            if exists && f >= options.min_freq {
                self.trans[j] = next;
                next += 1;
                self.n_trans += 1;
            }
        }
    }

    /// The feature set in the byte form of the distributed fit ([`crate::distributed`]),
    /// versioned.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Kind::Features);
        w.u64(self.n_labels as u64);
        w.u32s(&self.state_off);
        w.u32s(&self.state_label);
        w.u32s(&self.trans);
        w.u64(self.n_trans as u64);
        w.finish()
    }

    /// Reads [`FeatureSet::to_bytes`], checking the version and the consistency of the
    /// whole set, as serde's deserialization does: state offsets that start at 0, never
    /// decrease and end at the number of state features; the labels of each attribute
    /// increasing and below `L`; an `L x L` transition table whose entries are
    /// `u32::MAX` (no feature) or the transition feature ids, numbered consecutively
    /// after the state features in table order; and a transition count equal to the
    /// number of those ids.
    ///
    /// # Errors
    /// [`crate::CrfError::Serialized`] for anything else.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<Self> {
        let mut r = Reader::new(bytes, Kind::Features)?;
        let raw = RawFeatureSet {
            n_labels: r.count("the label count")?,
            state_off: r.u32s("state offsets")?,
            state_label: r.u32s("state labels")?,
            trans: r.u32s("transitions")?,
            n_trans: r.count("the transition count")?,
        };
        r.finish()?;
        Self::try_from(raw).map_err(|m| bad(format!("feature set: {m}")))
    }

    /// Number of labels `L`.
    pub fn n_labels(&self) -> usize {
        self.n_labels
    }

    /// Number of attributes.
    pub fn n_attributes(&self) -> usize {
        self.state_off.len() - 1
    }

    /// Number of features (state, then transition).
    pub fn len(&self) -> usize {
        self.state_label.len() + self.n_trans
    }

    /// Whether there is no feature.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of state features.
    pub fn n_state(&self) -> usize {
        self.state_label.len()
    }

    /// The state features of attribute `a`: `(first feature id, labels)`; feature
    /// `first + j` is `(a, labels[j])`. An attribute id `>= n_attributes` (unknown to the
    /// set) has none: `(n_state, [])`.
    #[inline]
    pub fn state_features(&self, a: u32) -> (usize, &[u32]) {
        let a = a as usize;
        match self.state_off.get(a..a.saturating_add(2)) {
            Some(&[s, e]) => (s as usize, &self.state_label[s as usize..e as usize]),
            _ => (self.state_label.len(), &[]),
        }
    }

    /// The feature id of the state feature `(a, y)`, if there is one (none for an
    /// attribute id `>= n_attributes` or a label id `>= L`).
    pub fn state_feature(&self, a: u32, y: u32) -> Option<usize> {
        let (first, labels) = self.state_features(a);
        labels.binary_search(&y).ok().map(|j| first + j)
    }

    /// The transition feature id of `(previous, next)`, if there is one (none when a label
    /// id is `>= L`, such as [`crate::UNKNOWN_LABEL`]).
    #[inline]
    pub fn transition(&self, prev: u32, next: u32) -> Option<usize> {
        let l = self.n_labels;
        let (prev, next) = (prev as usize, next as usize);
        if prev >= l || next >= l {
            return None;
        }
        let f = self.trans[prev * l + next];
        (f != NONE).then_some(f as usize)
    }

    /// State scores `out[t * L + y] = sum_{(a, v) in item t} v w[(a, y)]` (resized to
    /// `n x L`), with `w` one weight per feature.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `w` does not
    /// have [`len`](Self::len) entries; `out` is then left as it was.
    pub fn state_scores(
        &self,
        items: Items<'_>,
        w: &[f64],
        out: &mut Vec<f64>,
    ) -> crate::Result<()> {
        self.check_weights("FeatureSet::state_scores: w (one weight per feature)", w)?;
        self.state_scores_unchecked(items, w, out);
        Ok(())
    }

    /// [`state_scores`](Self::state_scores) for a `w` known to have a weight per feature
    /// (the trainers'; a shorter `w` panics).
    pub(crate) fn state_scores_unchecked(&self, items: Items<'_>, w: &[f64], out: &mut Vec<f64>) {
        let l = self.n_labels;
        out.clear();
        out.resize(items.len() * l, 0.0);
        for t in 0..items.len() {
            let row = &mut out[t * l..(t + 1) * l];
            let (ids, vals) = items.item(t);
            for (&a, &v) in ids.iter().zip(vals) {
                // An attribute unknown to the set has no feature.
                let (first, labels) = self.state_features(a);
                for (j, &y) in labels.iter().enumerate() {
                    row[y as usize] += v * w[first + j];
                }
            }
        }
    }

    /// The dense `L x L` transition weights (0 where there is no feature) of `w`, one
    /// weight per feature.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `w` does not
    /// have [`len`](Self::len) entries.
    pub fn transition_weights(&self, w: &[f64]) -> crate::Result<Vec<f64>> {
        self.check_weights(
            "FeatureSet::transition_weights: w (one weight per feature)",
            w,
        )?;
        Ok(self.transition_weights_unchecked(w))
    }

    /// [`transition_weights`](Self::transition_weights) for a `w` known to have a weight
    /// per feature (the trainers'; a shorter `w` panics).
    pub(crate) fn transition_weights_unchecked(&self, w: &[f64]) -> Vec<f64> {
        self.trans
            .iter()
            .map(|&f| if f == NONE { 0.0 } else { w[f as usize] })
            .collect()
    }

    /// [`transition_weights_unchecked`](Self::transition_weights_unchecked) into a
    /// buffer reserved fallibly (the trainers' `L x L` copies).
    ///
    /// # Errors
    /// `BlError::InvalidParameter` naming the labels when the `L x L` table cannot be
    /// reserved.
    pub(crate) fn try_transition_weights(&self, w: &[f64]) -> crate::Result<Vec<f64>> {
        let l = self.n_labels;
        let mut out = limits::try_with_capacity("labels x labels (transition weights)", &[l, l])?;
        out.extend(
            self.trans
                .iter()
                .map(|&f| if f == NONE { 0.0 } else { w[f as usize] }),
        );
        Ok(out)
    }

    /// Calls `f(feature id, value)` for every feature of the label path `labels` (one
    /// label per item) on `items` (a feature firing twice is reported twice): state
    /// features `(a, y_t)` with the attribute's value, transitions `(y_{t-1}, y_t)` with
    /// the value 1. Attribute and label ids the set does not have (such as
    /// [`crate::UNKNOWN_LABEL`]) have no feature.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `labels`
    /// does not have one label per item, before `f` is called.
    pub fn for_each_feature(
        &self,
        items: Items<'_>,
        labels: &[u32],
        f: impl FnMut(usize, f64),
    ) -> crate::Result<()> {
        if labels.len() != items.len() {
            return Err(shape_mismatch(
                "FeatureSet::for_each_feature: labels (one per item)",
                items.len(),
                labels.len(),
            ));
        }
        self.for_each_feature_unchecked(items, labels, f);
        Ok(())
    }

    /// [`for_each_feature`](Self::for_each_feature) for `labels` known to have a label per
    /// item (the trainers'; a shorter `labels` panics).
    pub(crate) fn for_each_feature_unchecked(
        &self,
        items: Items<'_>,
        labels: &[u32],
        mut f: impl FnMut(usize, f64),
    ) {
        for t in 0..items.len() {
            let y = labels[t];
            let (ids, vals) = items.item(t);
            for (&a, &v) in ids.iter().zip(vals) {
                if let Some(k) = self.state_feature(a, y) {
                    f(k, v);
                }
            }
            if t > 0
                && let Some(k) = self.transition(labels[t - 1], y)
            {
                f(k, 1.0);
            }
        }
    }

    /// `Ok` when `w` has one weight per feature, else the `ShapeMismatch` of `context`.
    fn check_weights(&self, context: &'static str, w: &[f64]) -> crate::Result<()> {
        if w.len() == self.len() {
            Ok(())
        } else {
            Err(shape_mismatch(context, self.len(), w.len()))
        }
    }

    /// The `(attribute, label, feature id)` of every state feature, in feature order.
    pub fn iter_state(&self) -> impl Iterator<Item = (u32, u32, usize)> + '_ {
        (0..self.n_attributes() as u32).flat_map(move |a| {
            let (first, labels) = self.state_features(a);
            labels
                .iter()
                .enumerate()
                .map(move |(j, &y)| (a, y, first + j))
        })
    }

    /// The `(previous, next, feature id)` of every transition feature, in feature order.
    pub fn iter_transitions(&self) -> impl Iterator<Item = (u32, u32, usize)> + '_ {
        let l = self.n_labels;
        self.trans
            .iter()
            .enumerate()
            .filter(|(_, f)| **f != NONE)
            .map(move |(j, &f)| ((j / l) as u32, (j % l) as u32, f as usize))
    }

    /// Checks the internal consistency of a feature set as read (listed at
    /// [`FeatureSet::from_bytes`]), on which every method relies; a message on failure.
    fn validate(&self) -> Result<(), String> {
        let l = self.n_labels;
        if self.trans.len() != l.checked_mul(l).ok_or("too many labels")? {
            return Err("the transition table is not L x L".into());
        }
        if self.state_off.first() != Some(&0)
            || self.state_off.windows(2).any(|p| p[0] > p[1])
            || *self.state_off.last().unwrap_or(&0) as usize != self.state_label.len()
        {
            return Err(
                "state feature offsets do not increase from 0 to the number of state features"
                    .into(),
            );
        }
        for a in 0..self.n_attributes() as u32 {
            let (_, labels) = self.state_features(a);
            if labels.windows(2).any(|p| p[0] >= p[1]) || labels.iter().any(|&y| y as usize >= l) {
                return Err(format!("state features of attribute {a} are malformed"));
            }
        }
        let mut expect = self.state_label.len();
        for &f in self.trans.iter().filter(|f| **f != NONE) {
            if f as usize != expect {
                return Err("transition feature ids are not consecutive".into());
            }
            expect += 1;
        }
        if expect - self.state_label.len() != self.n_trans {
            return Err("transition count is wrong".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 70,000 labels: an `L x L` table of 4.9e9 entries, above `MAX_ELEMENTS`. It used to
    /// be allocated (and filled) at once, which aborts; it is refused before.
    #[test]
    fn a_transition_table_above_the_limit_is_refused_before_allocation() {
        let err = FeatureSet::from_counts(0, 70_000, &[], &[], false, &FeatureOptions::default())
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("labels x labels"), "{text}");
        assert!(text.contains("70000 x 70000"), "{text}");
        let table = transition_table(3).unwrap();
        assert_eq!(table, vec![NONE; 9]);
    }
}
