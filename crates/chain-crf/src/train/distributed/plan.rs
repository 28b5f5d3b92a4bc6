//! The encoding of shards (module docs of [`super`]): what a shard tells the client
//! ([`ShardSummary`]), the client's merge of the summaries ([`Plan`]) and each shard's
//! translation of its ids into the shared ones ([`Remap`]).

use crate::data::Dataset;
use crate::dict::{Dictionary, Full};
use crate::error::Result;
use crate::features::{FeatureOptions, FeatureSet};
use bl_core::error::build::invalid;

/// What a shard tells the client before training (module docs): its attribute and label
/// names in id order, every `(attribute, label)` pair it has with the pair's frequency
/// (the sum of the attribute's values on items with that label), its transition counts,
/// whether a value is negative, and its sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardSummary {
    pub(super) attributes: Vec<String>,
    pub(super) labels: Vec<String>,
    /// `(attribute, label, frequency)`, sorted, each pair once.
    pub(super) state: Vec<(u32, u32, f64)>,
    /// `L x L` (previous, next), local label ids.
    pub(super) transitions: Vec<f64>,
    pub(super) negative: bool,
    pub(super) sequences: u64,
    pub(super) items: u64,
}

impl ShardSummary {
    /// The summary of a shard's data set (built by [`crate::DatasetBuilder::new`]).
    ///
    /// # Errors
    /// [`crate::CrfError::Input`] naming the first item whose label is not in `data`'s
    /// label dictionary ([`Dataset::check_labels`]: the [`crate::UNKNOWN_LABEL`] of a
    /// [`crate::DatasetBuilder::frozen`] data set), checked before any work.
    pub fn of(data: &Dataset) -> Result<Self> {
        let l = data.labels().len();
        // Every seen pair, whatever its frequency (no threshold applies here); this
        // checks the labels first.
        let seen = FeatureSet::generate(
            data,
            &FeatureOptions {
                min_freq: f64::NEG_INFINITY,
                all_possible_states: false,
                all_possible_transitions: false,
            },
        )?;
        let mut freq = vec![0.0; seen.n_state()];
        let mut transitions = vec![0.0; l * l];
        let mut negative = false;
        for x in data.iter() {
            for t in 0..x.items.len() {
                let y = x.labels[t];
                let (ids, vals) = x.items.item(t);
                for (&a, &v) in ids.iter().zip(vals) {
                    if let Some(k) = seen.state_feature(a, y) {
                        freq[k] += v;
                    }
                    negative |= v < 0.0;
                }
                if t > 0 {
                    transitions[x.labels[t - 1] as usize * l + y as usize] += 1.0;
                }
            }
        }
        let state = seen.iter_state().map(|(a, y, k)| (a, y, freq[k])).collect();
        Ok(Self {
            attributes: data.attributes().names().to_vec(),
            labels: data.labels().names().to_vec(),
            state,
            transitions,
            negative,
            sequences: data.len() as u64,
            items: data.n_items() as u64,
        })
    }

    /// Number of sequences of the shard.
    pub fn sequences(&self) -> u64 {
        self.sequences
    }

    /// Number of items of the shard.
    pub fn items(&self) -> u64 {
        self.items
    }
}

/// A shard's translation of its own attribute and label ids into the shared ones (module
/// docs), with the sizes of the shared dictionaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    pub(super) attributes: Vec<u32>,
    pub(super) labels: Vec<u32>,
    pub(super) n_attributes: usize,
    pub(super) n_labels: usize,
}

/// The client's merge of the shards' summaries (module docs): shared dictionaries, the
/// feature set, one [`Remap`] per shard.
#[derive(Debug, Clone)]
pub struct Plan {
    pub(super) attributes: Dictionary,
    pub(super) labels: Dictionary,
    pub(super) features: FeatureSet,
    pub(super) options: FeatureOptions,
    remaps: Vec<Remap>,
    pub(super) sequences: usize,
    items: usize,
}

impl Plan {
    /// Merges `summaries` (in shard order) with the feature options of the fit.
    ///
    /// # Errors
    /// [`bl_core::BlError::Empty`] without a shard or without a sequence;
    /// [`bl_core::BlError::InvalidParameter`] for a non-finite `min_freq`; `Input` past
    /// `u32::MAX` attribute or label names.
    pub fn merge(summaries: &[ShardSummary], options: &FeatureOptions) -> Result<Self> {
        bl_core::error::ensure_nonempty("shards", summaries.len())?;
        if !options.min_freq.is_finite() {
            return Err(invalid("min_freq", options.min_freq, "finite"));
        }
        let sequences: u64 = summaries.iter().map(|s| s.sequences).sum();
        bl_core::error::ensure_nonempty("training sequences", sequences as usize)?;
        let mut attributes = Dictionary::new();
        let mut labels = Dictionary::new();
        let mut remaps = Vec::with_capacity(summaries.len());
        let full = |e: Full, what: &'static str, len: usize| match e {
            Full::Ids => crate::error::input(0, 0, format!("more than 2^32 - 1 {what}")),
            Full::Memory => crate::data::refused(what, len),
        };
        for s in summaries {
            let a = s
                .attributes
                .iter()
                .map(|n| {
                    attributes
                        .try_get_or_insert(n)
                        .map_err(|e| full(e, "attributes", attributes.len()))
                })
                .collect::<Result<Vec<u32>>>()?;
            let y = s
                .labels
                .iter()
                .map(|n| {
                    labels
                        .try_get_or_insert(n)
                        .map_err(|e| full(e, "labels", labels.len()))
                })
                .collect::<Result<Vec<u32>>>()?;
            remaps.push(Remap {
                attributes: a,
                labels: y,
                n_attributes: 0,
                n_labels: 0,
            });
        }
        let (n_attrs, l) = (attributes.len(), labels.len());
        // The merged dictionaries can be larger than any shard's: the tables they size are
        // checked as `FeatureSet::generate` checks a shard's.
        let mut transitions =
            bl_core::limits::try_zeroed("labels x labels (transitions)", &[l, l])?;
        if options.all_possible_states {
            crate::features::check_all_states(n_attrs, l)?;
        }
        let mut state = Vec::with_capacity(summaries.iter().map(|s| s.state.len()).sum());
        for (s, m) in summaries.iter().zip(&mut remaps) {
            m.n_attributes = n_attrs;
            m.n_labels = l;
            state.extend(
                s.state
                    .iter()
                    .map(|&(a, y, f)| (m.attributes[a as usize], m.labels[y as usize], f)),
            );
            let ls = s.labels.len();
            for (j, &c) in s.transitions.iter().enumerate() {
                let (p, n) = (m.labels[j / ls] as usize, m.labels[j % ls] as usize);
                transitions[p * l + n] += c;
            }
        }
        // A stable sort keeps shard order among equal pairs: their frequencies are added
        // in shard order.
        state.sort_by_key(|p| (p.0, p.1));
        let mut merged: Vec<(u32, u32, f64)> = Vec::with_capacity(state.len());
        for p in state {
            match merged.last_mut() {
                Some(q) if (q.0, q.1) == (p.0, p.1) => q.2 += p.2,
                _ => merged.push(p),
            }
        }
        let negative = summaries.iter().any(|s| s.negative);
        let features =
            FeatureSet::from_counts(n_attrs, l, &merged, &transitions, negative, options)?;
        Ok(Self {
            attributes,
            labels,
            features,
            options: *options,
            remaps,
            sequences: sequences as usize,
            items: summaries.iter().map(|s| s.items as usize).sum(),
        })
    }

    /// The shared attribute dictionary.
    pub fn attributes(&self) -> &Dictionary {
        &self.attributes
    }

    /// The shared label dictionary.
    pub fn labels(&self) -> &Dictionary {
        &self.labels
    }

    /// The shared feature set.
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The remap of shard `i` (in the order of the summaries), if there is one.
    pub fn remap(&self, i: usize) -> Option<&Remap> {
        self.remaps.get(i)
    }

    /// Number of shards.
    pub fn n_shards(&self) -> usize {
        self.remaps.len()
    }

    /// Number of sequences over all shards.
    pub fn sequences(&self) -> usize {
        self.sequences
    }

    /// Number of items over all shards.
    pub fn items(&self) -> usize {
        self.items
    }
}
