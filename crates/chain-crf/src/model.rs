//! A trained model: dictionaries, features and weights; tagging, marginals, sequence
//! probability, inspection by name, and the saved form.

use serde::{Deserialize, Serialize};

use crate::data::{Items, Sequence};
use crate::dict::Dictionary;
use crate::error::{CrfError, Result};
use crate::features::FeatureSet;
use crate::lattice::{Lattice, exp_transitions};
use crate::viterbi::viterbi_unchecked;

/// The version written into saved models.
const FORMAT: u32 = 1;

/// A first-order linear-chain CRF: the attribute and label dictionaries, the feature
/// set and one weight per feature.
///
/// Every value is valid: serde's deserialization (which [`Model::from_bytes`] uses) checks
/// the feature set in full ([`FeatureSet`]), the format version and what [`Model::new`]
/// checks, and refuses an invalid model with an error of the deserializer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawModel")]
pub struct Model {
    format: u32,
    attributes: Dictionary,
    labels: Dictionary,
    features: FeatureSet,
    weights: Vec<f64>,
}

/// The fields of a [`Model`] as read, before their check.
#[derive(Deserialize)]
struct RawModel {
    format: u32,
    attributes: Dictionary,
    labels: Dictionary,
    features: FeatureSet,
    weights: Vec<f64>,
}

impl TryFrom<RawModel> for Model {
    type Error = String;

    /// The model of `raw` if it is valid (what `Model::new` checks).
    fn try_from(raw: RawModel) -> Result<Self, String> {
        let m = Self {
            format: raw.format,
            attributes: raw.attributes,
            labels: raw.labels,
            features: raw.features,
            weights: raw.weights,
        };
        m.validate()?;
        Ok(m)
    }
}

impl Model {
    /// A model of `features` with `weights`.
    ///
    /// # Errors
    /// [`CrfError::Model`] when a dictionary holds a name twice, the feature set has
    /// another number of attributes or labels than the dictionaries, the number of
    /// weights is not the number of features, or a weight is not finite.
    pub fn new(
        attributes: Dictionary,
        labels: Dictionary,
        features: FeatureSet,
        weights: Vec<f64>,
    ) -> Result<Self> {
        let m = Self {
            format: FORMAT,
            attributes,
            labels,
            features,
            weights,
        };
        m.validate().map_err(CrfError::Model)?;
        Ok(m)
    }

    /// Checks what [`Model::new`] lists and the format version (the feature set checks
    /// its own consistency when it is made or read); a message on failure.
    fn validate(&self) -> std::result::Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "format version {} (this library reads {FORMAT})",
                self.format
            ));
        }
        if self.attributes.has_duplicates() || self.labels.has_duplicates() {
            return Err("duplicate names in a dictionary".into());
        }
        if self.features.n_attributes() != self.attributes.len()
            || self.features.n_labels() != self.labels.len()
        {
            return Err(format!(
                "the feature set has {} attributes and {} labels, the dictionaries {} and {}",
                self.features.n_attributes(),
                self.features.n_labels(),
                self.attributes.len(),
                self.labels.len()
            ));
        }
        if self.weights.len() != self.features.len() {
            return Err(format!(
                "{} weights for {} features",
                self.weights.len(),
                self.features.len()
            ));
        }
        if let Some(j) = self.weights.iter().position(|w| !w.is_finite()) {
            return Err(format!("weight {j} is not finite"));
        }
        Ok(())
    }

    /// The attribute dictionary.
    pub fn attributes(&self) -> &Dictionary {
        &self.attributes
    }

    /// The label dictionary.
    pub fn labels(&self) -> &Dictionary {
        &self.labels
    }

    /// The features.
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The weights, by feature id.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Number of labels.
    pub fn n_labels(&self) -> usize {
        self.labels.len()
    }

    /// A sequence of this model's attribute ids from names and values; attributes the
    /// model does not know are dropped (they have no weight).
    ///
    /// # Errors
    /// [`CrfError::Input`] (sequence 0) for a non-finite value.
    pub fn encode<'s, I, J>(&self, items: I) -> Result<Sequence>
    where
        I: IntoIterator<Item = J>,
        J: IntoIterator<Item = (&'s str, f64)>,
    {
        let mut seq = Sequence::new();
        for (t, item) in items.into_iter().enumerate() {
            let mut pairs = Vec::new();
            for (name, v) in item {
                if !v.is_finite() {
                    return Err(crate::error::input(
                        0,
                        t,
                        format!("attribute {name:?} has the value {v}: values must be finite"),
                    ));
                }
                if let Some(id) = self.attributes.get(name) {
                    pairs.push((id, v));
                }
            }
            seq.push_item(pairs)?;
        }
        Ok(seq)
    }

    /// State scores (`n x L`) and dense transitions (`L x L`) of `items`.
    fn scores(&self, items: Items<'_>) -> (Vec<f64>, Vec<f64>) {
        let mut state = Vec::new();
        self.features
            .state_scores_unchecked(items, &self.weights, &mut state);
        (
            state,
            self.features.transition_weights_unchecked(&self.weights),
        )
    }

    /// The most probable label path (label ids) and its score.
    pub fn tag(&self, items: Items<'_>) -> (Vec<u32>, f64) {
        let (state, trans) = self.scores(items);
        let (mut path, mut back) = (Vec::new(), Vec::new());
        let score = viterbi_unchecked(&state, self.n_labels(), &trans, &mut path, &mut back);
        (path, score)
    }

    /// The most probable label path, as label names.
    pub fn tag_names(&self, items: Items<'_>) -> Vec<&str> {
        self.tag(items)
            .0
            .iter()
            .map(|&y| self.labels.name(y))
            .collect()
    }

    /// `p(y_t = y | x)` for every position and label: `n x L` row-major (label ids).
    pub fn marginals(&self, items: Items<'_>) -> Vec<f64> {
        let l = self.n_labels();
        let (state, trans) = self.scores(items);
        let (exp_trans, mt) = exp_transitions(&trans);
        let mut lat = Lattice::default();
        lat.forward_backward_unchecked(state, l, &exp_trans, mt);
        let n = items.len();
        let mut out = Vec::with_capacity(n * l);
        for t in 0..n {
            for a in 0..l {
                out.push(lat.state_marginal_unchecked(t, a));
            }
        }
        out
    }

    /// `log Z(x)` and the score of `labels` (label ids, one per item).
    ///
    /// # Errors
    /// [`CrfError::Input`] when `labels` has another length than `items` or holds an id
    /// `>= L`.
    fn log_z_and_score(&self, items: Items<'_>, labels: &[u32]) -> Result<(f64, f64)> {
        if labels.len() != items.len() {
            return Err(crate::error::input(
                0,
                labels.len().min(items.len()),
                format!("{} labels for {} items", labels.len(), items.len()),
            ));
        }
        let l = self.n_labels();
        if let Some(t) = labels.iter().position(|&y| y as usize >= l) {
            return Err(crate::error::input(0, t, "label id out of range"));
        }
        let (state, trans) = self.scores(items);
        let mut score = 0.0;
        for (t, &y) in labels.iter().enumerate() {
            score += state[t * l + y as usize];
            if t > 0 {
                score += trans[labels[t - 1] as usize * l + y as usize];
            }
        }
        let (exp_trans, mt) = exp_transitions(&trans);
        let log_z = Lattice::default().forward_backward_unchecked(state, l, &exp_trans, mt);
        Ok((log_z, score))
    }

    /// `p(labels | x)` (label ids).
    ///
    /// # Errors
    /// As [`log_probability`](Self::log_probability).
    pub fn probability(&self, items: Items<'_>, labels: &[u32]) -> Result<f64> {
        self.log_probability(items, labels).map(f64::exp)
    }

    /// `log p(labels | x)` (label ids).
    ///
    /// # Errors
    /// [`CrfError::Input`] when `labels` has another length than `items` or holds an id
    /// `>= L`.
    pub fn log_probability(&self, items: Items<'_>, labels: &[u32]) -> Result<f64> {
        let (log_z, score) = self.log_z_and_score(items, labels)?;
        Ok(score - log_z)
    }

    /// The label ids of label names.
    ///
    /// # Errors
    /// [`CrfError::UnknownLabel`] for a name the model does not know.
    pub fn label_ids<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<u32>> {
        names
            .iter()
            .map(|s| {
                self.labels
                    .get(s.as_ref())
                    .ok_or_else(|| CrfError::UnknownLabel {
                        label: s.as_ref().to_owned(),
                        n_labels: self.n_labels(),
                    })
            })
            .collect()
    }

    /// Every state feature by name: `(attribute, label, weight)`, in feature order.
    pub fn state_features(&self) -> impl Iterator<Item = (&str, &str, f64)> + '_ {
        self.features.iter_state().map(|(a, y, k)| {
            (
                self.attributes.name(a),
                self.labels.name(y),
                self.weights[k],
            )
        })
    }

    /// Every transition feature by name: `(previous label, label, weight)`.
    pub fn transition_features(&self) -> impl Iterator<Item = (&str, &str, f64)> + '_ {
        self.features
            .iter_transitions()
            .map(|(b, a, k)| (self.labels.name(b), self.labels.name(a), self.weights[k]))
    }

    /// The saved form (JSON; floats round-trip exactly).
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a model serializes")
    }

    /// Reads a saved model, checking it fully (the feature set's consistency as
    /// [`FeatureSet::from_bytes`] checks it, then what [`Model::new`] checks), as any
    /// deserialization of a `Model` does.
    ///
    /// # Errors
    /// [`CrfError::Model`] for anything that is not a valid saved model.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        serde_json::from_slice(bytes).map_err(|e| CrfError::Model(e.to_string()))
    }
}
