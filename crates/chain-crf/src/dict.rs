//! String dictionaries: attribute and label names to dense ids `0..len`.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Names to dense ids in insertion order (CRFsuite's `quark`).
///
/// Clones share their storage (a fitted model keeps its training data's dictionaries
/// without copying millions of names); a clone that is then changed copies first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub struct Dictionary {
    inner: Arc<Names>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Names {
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
        self.inner.ids.get(name).copied()
    }

    /// The id of `name`, adding it if new; `None` when the dictionary already holds
    /// `u32::MAX` names.
    pub fn get_or_insert(&mut self, name: &str) -> Option<u32> {
        if let Some(&id) = self.inner.ids.get(name) {
            return Some(id);
        }
        let inner = Arc::make_mut(&mut self.inner);
        let id = u32::try_from(inner.names.len())
            .ok()
            .filter(|&i| i < u32::MAX)?;
        inner.names.push(name.to_owned());
        inner.ids.insert(name.to_owned(), id);
        Some(id)
    }

    /// The name of `id` (ids come from this dictionary).
    ///
    /// # Panics
    /// When `id >= len()`, as slice indexing does; `names().get(id as usize)` returns
    /// `None` instead.
    pub fn name(&self, id: u32) -> &str {
        &self.inner.names[id as usize]
    }

    /// All names, in id order.
    pub fn names(&self) -> &[String] {
        &self.inner.names
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.inner.names.len()
    }

    /// Whether there is no name.
    pub fn is_empty(&self) -> bool {
        self.inner.names.is_empty()
    }

    /// Whether a name occurs twice (only possible in a dictionary read from a list).
    pub fn has_duplicates(&self) -> bool {
        self.inner.ids.len() != self.inner.names.len()
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
        Self {
            inner: Arc::new(Names { names, ids }),
        }
    }
}

impl From<Dictionary> for Vec<String> {
    fn from(d: Dictionary) -> Self {
        Arc::try_unwrap(d.inner).map_or_else(|shared| shared.names.clone(), |n| n.names)
    }
}
