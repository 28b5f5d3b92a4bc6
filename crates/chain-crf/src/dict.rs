//! String dictionaries: attribute and label names to dense ids `0..len`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Names to dense ids in insertion order (CRFsuite's `quark`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub struct Dictionary {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Dictionary {
    /// An empty dictionary.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The id of `name`, adding it if new; `None` when the dictionary already holds
    /// `u32::MAX` names.
    pub fn get_or_insert(&mut self, name: &str) -> Option<u32> {
        if let Some(&id) = self.ids.get(name) {
            return Some(id);
        }
        let id = u32::try_from(self.names.len())
            .ok()
            .filter(|&i| i < u32::MAX)?;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        Some(id)
    }

    /// The name of `id` (panics if `id >= len`; ids come from this dictionary).
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// All names, in id order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no name.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Whether a name occurs twice (only possible in a dictionary read from a list).
    pub fn has_duplicates(&self) -> bool {
        self.ids.len() != self.names.len()
    }
}

impl From<Vec<String>> for Dictionary {
    /// A later duplicate of a name keeps the first id ([`has_duplicates`] tells; a saved
    /// model with one is refused).
    ///
    /// [`has_duplicates`]: Dictionary::has_duplicates
    fn from(names: Vec<String>) -> Self {
        let mut ids = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            ids.entry(n.clone()).or_insert(i as u32);
        }
        Self { names, ids }
    }
}

impl From<Dictionary> for Vec<String> {
    fn from(d: Dictionary) -> Self {
        d.names
    }
}
