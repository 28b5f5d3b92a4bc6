//! String dictionaries: attribute and label names to dense ids `0..len`.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Why [`Dictionary::try_get_or_insert`] did not add a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The dictionary holds `u32::MAX` names.
    Ids,
    /// The memory for one more name was refused.
    Memory,
}

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
    /// `u32::MAX` names, or when the memory for a new name cannot be reserved (the
    /// dictionary is then left as it was; [`DatasetBuilder`](crate::DatasetBuilder) tells
    /// the two apart in its errors).
    pub fn get_or_insert(&mut self, name: &str) -> Option<u32> {
        self.try_get_or_insert(name).ok()
    }

    /// [`get_or_insert`](Self::get_or_insert), saying why a new name was not added. The
    /// name's two copies, the id table and the name list are all reserved fallibly
    /// before anything is stored, so a refusal leaves the dictionary as it was (a shared
    /// dictionary is still copied first, as [`Clone`] does).
    pub(crate) fn try_get_or_insert(&mut self, name: &str) -> Result<u32, Full> {
        if let Some(&id) = self.inner.ids.get(name) {
            return Ok(id);
        }
        let id = u32::try_from(self.len())
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(Full::Ids)?;
        let inner = Arc::make_mut(&mut self.inner);
        let copy = || {
            let mut s = String::new();
            s.try_reserve_exact(name.len()).map(|()| {
                s.push_str(name);
                s
            })
        };
        let (key, owned) = (copy(), copy());
        let (Ok(key), Ok(owned)) = (key, owned) else {
            return Err(Full::Memory);
        };
        if inner.names.try_reserve(1).is_err() || inner.ids.try_reserve(1).is_err() {
            return Err(Full::Memory);
        }
        inner.names.push(owned);
        inner.ids.insert(key, id);
        Ok(id)
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
