//! Sequences of items, each item a list of `(attribute, value)` pairs (CRFsuite's
//! `attr:value`), and labelled data sets, stored compactly.
//!
//! An item is the observation at one position: attribute ids with real values (a binary
//! feature has value 1). [`Items`] is a borrowed view of a sequence in CSR layout;
//! [`Sequence`] owns one (what tagging takes); [`Dataset`] holds many labelled sequences
//! in one set of arrays, with the attribute and label [`Dictionary`]s, and is built one
//! attribute at a time by [`DatasetBuilder`], so a caller streaming its data never holds
//! more than one sequence of its own representation.

use crate::dict::{Dictionary, Full};
use crate::error::{CrfError, Result, input};
use bl_core::error::build::invalid;

/// What [`DatasetBuilder`] and [`Sequence`] name when the memory for one more attribute
/// value, item or sequence, or one more name of a dictionary, is refused.
const ATTRIBUTE_VALUES: &str = "attribute values";
const ITEMS: &str = "items";
const SEQUENCES: &str = "sequences";
const ATTRIBUTE_NAMES: &str = "attribute dictionary";
const LABEL_NAMES: &str = "label dictionary";

/// The error of a data set's buffer `what` that holds `len` entries and could not grow by
/// one (`Vec::push` would abort the process instead): [`bl_core::BlError::InvalidParameter`]
/// naming `what`, as [`CrfError::Core`].
pub(crate) fn refused(what: &'static str, len: usize) -> CrfError {
    invalid(
        what,
        format!("{len} stored"),
        "a data set that fits in memory: no room for one more (memory refused)",
    )
}

/// Makes room for one more entry in `v` with `try_reserve` (one check per push; the
/// growth doubles, as `push`'s does), or [`refused`] naming `what`.
#[inline]
fn room_for_one<T>(v: &mut Vec<T>, what: &'static str) -> Result<()> {
    #[cfg(test)]
    if tests::refuses(what) {
        return Err(refused(what, v.len()));
    }
    v.try_reserve(1).map_err(|_| refused(what, v.len()))
}

/// The label id of a held-out item whose label the training data did not have
/// ([`DatasetBuilder::frozen`]).
pub const UNKNOWN_LABEL: u32 = u32::MAX;

/// A borrowed sequence: item `t` has the attributes `ids[off[t]..off[t + 1]]` with the
/// values `values[..]` at the same indices.
#[derive(Debug, Clone, Copy)]
pub struct Items<'a> {
    off: &'a [u32],
    ids: &'a [u32],
    values: &'a [f64],
}

impl<'a> Items<'a> {
    /// Number of items (positions).
    #[inline]
    pub fn len(&self) -> usize {
        self.off.len().saturating_sub(1)
    }

    /// Whether the sequence has no item.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Attribute ids and values of item `t`.
    ///
    /// # Panics
    /// When `t >= len()`, as slice indexing does.
    #[inline]
    pub fn item(&self, t: usize) -> (&'a [u32], &'a [f64]) {
        let base = self.off[0] as usize;
        let (s, e) = (self.off[t] as usize - base, self.off[t + 1] as usize - base);
        (&self.ids[s..e], &self.values[s..e])
    }

    /// Number of `(attribute, value)` pairs over all items.
    pub fn n_attributes(&self) -> usize {
        self.ids.len()
    }
}

/// An owned sequence of items (see [`Items`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sequence {
    off: Vec<u32>,
    ids: Vec<u32>,
    values: Vec<f64>,
}

impl Sequence {
    /// An empty sequence.
    pub fn new() -> Self {
        Self {
            off: vec![0],
            ids: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Appends one item of `(attribute id, value)` pairs.
    ///
    /// # Errors
    /// [`CrfError::Input`] (sequence 0) for a non-finite value, or past `u32::MAX`
    /// attributes in the sequence; [`CrfError::Core`]
    /// ([`bl_core::BlError::InvalidParameter`] naming `attribute values` or `items`, the
    /// only `Core` error it returns) when the memory for one more attribute value or item
    /// is refused (an endless or too large input). The sequence is then left as it was.
    pub fn push_item(&mut self, attributes: impl IntoIterator<Item = (u32, f64)>) -> Result<()> {
        let t = self.len();
        let start = self.ids.len();
        let pushed = self.push_attributes(t, attributes);
        if pushed.is_err() {
            self.ids.truncate(start);
            self.values.truncate(start);
        }
        pushed
    }

    /// The attributes of item `t`, then its end offset.
    fn push_attributes(
        &mut self,
        t: usize,
        attributes: impl IntoIterator<Item = (u32, f64)>,
    ) -> Result<()> {
        for (id, v) in attributes {
            if !v.is_finite() {
                return Err(input(0, t, format!("attribute value {v} is not finite")));
            }
            room_for_one(&mut self.ids, ATTRIBUTE_VALUES)?;
            room_for_one(&mut self.values, ATTRIBUTE_VALUES)?;
            self.ids.push(id);
            self.values.push(v);
        }
        let end = u32::try_from(self.ids.len())
            .map_err(|_| input(0, t, "more than 2^32 - 1 attributes in one sequence"))?;
        room_for_one(&mut self.off, ITEMS)?;
        self.off.push(end);
        Ok(())
    }

    /// The borrowed view.
    pub fn items(&self) -> Items<'_> {
        Items {
            off: &self.off,
            ids: &self.ids,
            values: &self.values,
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.off.len() - 1
    }

    /// Whether there is no item.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Labelled sequences with their attribute and label dictionaries (see the module docs).
///
/// Memory: 4 bytes per item for the label, 4 per item offset, 12 per `(attribute,
/// value)` pair, 8 per sequence offset, plus the dictionaries' strings.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Item offsets of each sequence: `seq[s]..seq[s + 1]` (length `n_sequences + 1`).
    seq: Vec<usize>,
    /// Attribute offsets of each item (length `n_items + 1`).
    item: Vec<u32>,
    ids: Vec<u32>,
    values: Vec<f64>,
    labels: Vec<u32>,
    attributes: Dictionary,
    label_names: Dictionary,
}

/// One labelled sequence of a [`Dataset`].
#[derive(Debug, Clone, Copy)]
pub struct Instance<'a> {
    /// The items.
    pub items: Items<'a>,
    /// The label id of each item.
    pub labels: &'a [u32],
}

impl Dataset {
    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.seq.len().saturating_sub(1)
    }

    /// Whether there is no sequence.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of items over all sequences.
    pub fn n_items(&self) -> usize {
        self.labels.len()
    }

    /// Number of `(attribute, value)` pairs over all items.
    pub fn n_pairs(&self) -> usize {
        self.ids.len()
    }

    /// Sequence `s`.
    ///
    /// # Panics
    /// When `s >= len()`, as slice indexing does; [`get`](Self::get) returns `None`
    /// instead.
    pub fn instance(&self, s: usize) -> Instance<'_> {
        let (a, b) = (self.seq[s], self.seq[s + 1]);
        let (lo, hi) = (self.item[a] as usize, self.item[b] as usize);
        Instance {
            items: Items {
                off: &self.item[a..=b],
                ids: &self.ids[lo..hi],
                values: &self.values[lo..hi],
            },
            labels: &self.labels[a..b],
        }
    }

    /// Sequence `s`, or `None` when `s >= len()`.
    pub fn get(&self, s: usize) -> Option<Instance<'_>> {
        (s < self.len()).then(|| self.instance(s))
    }

    /// The sequences in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Instance<'_>> + '_ {
        (0..self.len()).map(|s| self.instance(s))
    }

    /// The attribute dictionary.
    pub fn attributes(&self) -> &Dictionary {
        &self.attributes
    }

    /// The label dictionary.
    pub fn labels(&self) -> &Dictionary {
        &self.label_names
    }

    /// Checks that every item's label is in the label dictionary (its id is below
    /// `labels().len()`), as training and feature generation need; a data set built by
    /// [`DatasetBuilder::frozen`] can hold [`UNKNOWN_LABEL`], which may be held out but
    /// not trained on. One pass over the items, no allocation.
    ///
    /// # Errors
    /// [`CrfError::Input`] naming the sequence and position of the first item whose label
    /// is not in the dictionary.
    pub fn check_labels(&self) -> Result<()> {
        let n_labels = self.label_names.len();
        for s in 0..self.len() {
            let labels = &self.labels[self.seq[s]..self.seq[s + 1]];
            if let Some(t) = labels.iter().position(|&y| y as usize >= n_labels) {
                return Err(input(
                    s,
                    t,
                    "the label is not in the data set's label dictionary (a data set built \
                     with DatasetBuilder::frozen can be held out, not trained on)",
                ));
            }
        }
        Ok(())
    }
}

/// Builds a [`Dataset`] one attribute, item and sequence at a time (module docs).
///
/// ```
/// use chain_crf::DatasetBuilder;
/// let mut b = DatasetBuilder::new();
/// b.attribute("word=the", 1.0)?;
/// b.end_item("DT")?;
/// b.attribute("word=cat", 1.0)?;
/// b.attribute("len", 3.0)?;
/// b.end_item("NN")?;
/// b.end_sequence()?;
/// let data = b.finish();
/// assert_eq!((data.len(), data.n_items(), data.labels().len()), (1, 2, 2));
/// # Ok::<(), chain_crf::CrfError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DatasetBuilder {
    data: Dataset,
    /// Sequences whose items are complete.
    done: usize,
    /// The dictionaries are fixed (see [`DatasetBuilder::frozen`]).
    frozen: bool,
}

impl Default for DatasetBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// The id of `name` in `dict` (called `what` in a memory error): with a `frozen`
/// dictionary its id if it has one (`None` otherwise), else its id, added when new;
/// `full()` when a new name finds no id left, [`refused`] when its memory is refused.
fn id_of(
    dict: &mut Dictionary,
    (name, what): (&str, &'static str),
    frozen: bool,
    full: impl FnOnce() -> CrfError,
) -> Result<Option<u32>> {
    if frozen {
        return Ok(dict.get(name));
    }
    #[cfg(test)]
    if dict.get(name).is_none() && tests::refuses(what) {
        return Err(refused(what, dict.len()));
    }
    match dict.try_get_or_insert(name) {
        Ok(id) => Ok(Some(id)),
        Err(Full::Ids) => Err(full()),
        Err(Full::Memory) => Err(refused(what, dict.len())),
    }
}

impl DatasetBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            data: Dataset {
                seq: vec![0],
                item: vec![0],
                ..Dataset::default()
            },
            done: 0,
            frozen: false,
        }
    }

    /// A builder that encodes with fixed dictionaries (a held-out set for a model trained
    /// on a data set with these dictionaries): attributes not in `attributes` are dropped,
    /// and a label not in `labels` is stored as [`UNKNOWN_LABEL`], which no prediction
    /// equals.
    pub fn frozen(attributes: Dictionary, labels: Dictionary) -> Self {
        let mut b = Self::new();
        b.data.attributes = attributes;
        b.data.label_names = labels;
        b.frozen = true;
        b
    }

    /// Where the next attribute goes: (sequence, position).
    fn here(&self) -> (usize, usize) {
        (self.done, self.data.labels.len() - self.data.seq[self.done])
    }

    /// Adds an attribute with its value to the current item.
    ///
    /// # Errors
    /// [`CrfError::Input`] for a non-finite value, or when the data set already holds
    /// `u32::MAX` attributes or attribute names; [`CrfError::Core`]
    /// ([`bl_core::BlError::InvalidParameter`] naming `attribute values` or `attribute
    /// dictionary`, the only `Core` errors it returns) when the memory for one more is
    /// refused (an endless or too large input): nothing is stored then, the new name
    /// included.
    pub fn attribute(&mut self, name: &str, value: f64) -> Result<()> {
        let (s, t) = self.here();
        if !value.is_finite() {
            return Err(input(
                s,
                t,
                format!("attribute {name:?} has the value {value}: values must be finite"),
            ));
        }
        if self.data.ids.len() >= u32::MAX as usize {
            return Err(input(
                s,
                t,
                "more than 2^32 - 1 attribute values in the data set",
            ));
        }
        room_for_one(&mut self.data.ids, ATTRIBUTE_VALUES)?;
        room_for_one(&mut self.data.values, ATTRIBUTE_VALUES)?;
        let Some(id) = id_of(
            &mut self.data.attributes,
            (name, ATTRIBUTE_NAMES),
            self.frozen,
            || input(s, t, "more than 2^32 - 1 distinct attributes"),
        )?
        else {
            return Ok(());
        };
        self.data.ids.push(id);
        self.data.values.push(value);
        Ok(())
    }

    /// Ends the current item with its label.
    ///
    /// # Errors
    /// [`CrfError::Input`] for an empty label or past `u32::MAX` labels;
    /// [`CrfError::Core`] ([`bl_core::BlError::InvalidParameter`] naming `items` or
    /// `label dictionary`, the only `Core` errors it returns) when the memory for one
    /// more is refused: the item is then not ended.
    pub fn end_item(&mut self, label: &str) -> Result<()> {
        let (s, t) = self.here();
        if label.is_empty() {
            return Err(input(s, t, "the label is an empty string"));
        }
        room_for_one(&mut self.data.labels, ITEMS)?;
        room_for_one(&mut self.data.item, ITEMS)?;
        let id = id_of(
            &mut self.data.label_names,
            (label, LABEL_NAMES),
            self.frozen,
            || input(s, t, "more than 2^32 - 1 distinct labels"),
        )?
        .unwrap_or(UNKNOWN_LABEL);
        self.data.labels.push(id);
        self.data.item.push(self.data.ids.len() as u32);
        Ok(())
    }

    /// Ends the current sequence.
    ///
    /// # Errors
    /// [`CrfError::Input`] if attributes were added after the last item ended (they
    /// have no label), or the sequence has no item; [`CrfError::Core`]
    /// ([`bl_core::BlError::InvalidParameter`] naming `sequences`, the only `Core` error
    /// it returns) when the memory for one more sequence is refused: the sequence is then
    /// not ended.
    pub fn end_sequence(&mut self) -> Result<()> {
        let (s, t) = self.here();
        if *self.data.item.last().unwrap_or(&0) as usize != self.data.ids.len() {
            return Err(input(
                s,
                t,
                "attributes were given after the last labelled item",
            ));
        }
        if t == 0 {
            return Err(input(s, 0, "the sequence has no item"));
        }
        room_for_one(&mut self.data.seq, SEQUENCES)?;
        self.data.seq.push(self.data.labels.len());
        self.done += 1;
        Ok(())
    }

    /// Drops the items and attributes of the current, unfinished sequence (after an error
    /// in it). The names it added stay in the dictionaries.
    pub fn discard_sequence(&mut self) {
        let start = self.data.seq[self.done];
        self.data.labels.truncate(start);
        self.data.item.truncate(start + 1);
        self.data.ids.truncate(self.data.item[start] as usize);
        self.data.values.truncate(self.data.item[start] as usize);
    }

    /// Number of completed sequences.
    pub fn len(&self) -> usize {
        self.done
    }

    /// Whether no sequence is complete.
    pub fn is_empty(&self) -> bool {
        self.done == 0
    }

    /// The data set of the completed sequences (an unfinished one is dropped).
    pub fn finish(mut self) -> Dataset {
        self.discard_sequence();
        self.data.ids.shrink_to_fit();
        self.data.values.shrink_to_fit();
        self.data
    }
}

impl Dataset {
    /// The data set of the sequences `which` (in that order), sharing the dictionaries
    /// (for held-out splits).
    ///
    /// # Errors
    /// [`CrfError::Core`] when an index is out of range, or when the subset would hold
    /// `u32::MAX` or more attribute values (indices may repeat), as a
    /// [`DatasetBuilder`] refuses them; both are checked before anything is copied, and
    /// then the subset's memory is reserved fallibly (an error naming the attribute
    /// values, items or sequences when it is refused).
    pub fn subset(&self, which: &[usize]) -> Result<Dataset> {
        let mut values = 0usize;
        let mut items = 0usize;
        for &s in which {
            if s >= self.len() {
                return Err(invalid(
                    "sequence index",
                    s,
                    format!("below the number of sequences, {}", self.len()),
                ));
            }
            let (a, b) = (self.seq[s], self.seq[s + 1]);
            values = values.saturating_add((self.item[b] - self.item[a]) as usize);
            items = items.saturating_add(b - a);
        }
        if values >= u32::MAX as usize {
            return Err(invalid(
                "which",
                format!("{} sequences with {values} attribute values", which.len()),
                "fewer than 2^32 - 1 attribute values in the subset",
            ));
        }
        let mut out = DatasetBuilder::new().data;
        let too_big = |what: &str| -> CrfError {
            invalid(
                "which",
                format!(
                    "{} sequences with {items} items and {values} attribute values",
                    which.len()
                ),
                format!("a subset that fits in memory (its {what} could not be reserved)"),
            )
        };
        out.ids
            .try_reserve_exact(values)
            .and(out.values.try_reserve_exact(values))
            .map_err(|_| too_big(ATTRIBUTE_VALUES))?;
        out.item
            .try_reserve_exact(items)
            .and(out.labels.try_reserve_exact(items))
            .map_err(|_| too_big(ITEMS))?;
        out.seq
            .try_reserve_exact(which.len())
            .map_err(|_| too_big(SEQUENCES))?;
        out.attributes = self.attributes.clone();
        out.label_names = self.label_names.clone();
        for &s in which {
            let x = self.instance(s);
            for t in 0..x.items.len() {
                let (ids, vals) = x.items.item(t);
                out.ids.extend_from_slice(ids);
                out.values.extend_from_slice(vals);
                out.item.push(out.ids.len() as u32);
            }
            out.labels.extend_from_slice(x.labels);
            out.seq.push(out.labels.len());
        }
        Ok(out)
    }
}

impl Dataset {
    /// Rewrites the attribute and label ids through `attributes[local id]` and
    /// `labels[local id]` (one entry per name of this data set's dictionaries) and drops
    /// the dictionaries, which the new ids no longer index (a shard of a distributed fit).
    ///
    /// # Errors
    /// [`CrfError::Core`] when a table's length differs from its dictionary's, and
    /// [`CrfError::Input`] for an item whose label is not in the dictionary (a data set
    /// built with [`DatasetBuilder::frozen`]).
    pub(crate) fn remap(&mut self, attributes: &[u32], labels: &[u32]) -> Result<()> {
        for (what, table, dict) in [
            ("attribute id table", attributes, &self.attributes),
            ("label id table", labels, &self.label_names),
        ] {
            if table.len() != dict.len() {
                return Err(CrfError::Core(bl_core::BlError::ShapeMismatch {
                    context: what,
                    expected: format!("{} entries (the shard's names)", dict.len()),
                    found: table.len().to_string(),
                }));
            }
        }
        for s in 0..self.len() {
            let (a, b) = (self.seq[s], self.seq[s + 1]);
            for (t, y) in self.labels[a..b].iter_mut().enumerate() {
                *y = *labels.get(*y as usize).ok_or_else(|| {
                    input(s, t, "the label is not in the training data's dictionary")
                })?;
            }
        }
        for id in &mut self.ids {
            // Ids come from this data set's own dictionary, which has `attributes.len()`
            // names.
            *id = attributes[*id as usize];
        }
        self.attributes = Dictionary::new();
        self.label_names = Dictionary::new();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// The buffer whose growth [`room_for_one`] and `id_of` refuse, as an allocator
        /// that is out of memory would.
        static REFUSED: Cell<Option<&'static str>> = const { Cell::new(None) };
    }

    pub(super) fn refuses(what: &str) -> bool {
        REFUSED.with(|r| r.get() == Some(what))
    }

    fn refusing<T>(what: &'static str, f: impl FnOnce() -> T) -> T {
        REFUSED.with(|r| r.set(Some(what)));
        let out = f();
        REFUSED.with(|r| r.set(None));
        out
    }

    /// `e` is the memory refusal naming `what`.
    fn assert_refused(e: &CrfError, what: &str) {
        let text = e.to_string();
        assert!(
            matches!(e, CrfError::Core(bl_core::BlError::InvalidParameter { name, .. }) if *name == what),
            "{text}"
        );
        assert!(text.contains("memory refused"), "{text}");
    }

    /// One sequence `a b` / `X Y` in `b`.
    fn add_sequence(b: &mut DatasetBuilder) {
        b.attribute("a", 1.0).unwrap();
        b.end_item("X").unwrap();
        b.attribute("b", 2.0).unwrap();
        b.end_item("Y").unwrap();
        b.end_sequence().unwrap();
    }

    #[test]
    fn a_refused_growth_of_the_builder_is_an_error_naming_the_buffer_and_stores_nothing() {
        let mut b = DatasetBuilder::new();
        add_sequence(&mut b);
        let e = refusing(ATTRIBUTE_VALUES, || b.attribute("a", 1.0)).unwrap_err();
        assert_refused(&e, "attribute values");
        let e = refusing(ATTRIBUTE_NAMES, || b.attribute("new", 1.0)).unwrap_err();
        assert_refused(&e, "attribute dictionary");
        // A known name needs no room in the dictionary.
        refusing(ATTRIBUTE_NAMES, || b.attribute("a", 1.0)).unwrap();
        let e = refusing(ITEMS, || b.end_item("X")).unwrap_err();
        assert_refused(&e, "items");
        let e = refusing(LABEL_NAMES, || b.end_item("Z")).unwrap_err();
        assert_refused(&e, "label dictionary");
        b.end_item("X").unwrap();
        let e = refusing(SEQUENCES, || b.end_sequence()).unwrap_err();
        assert_refused(&e, "sequences");
        assert_eq!(b.len(), 1);
        // The refusals left the builder consistent: the sequence ends once memory is
        // granted, with one item of one value, and the rejected names were not added.
        b.end_sequence().unwrap();
        add_sequence(&mut b);
        let data = b.finish();
        assert_eq!((data.len(), data.n_items(), data.n_pairs()), (3, 5, 5));
        assert_eq!(data.attributes().names(), ["a", "b"]);
        assert_eq!(data.labels().names(), ["X", "Y"]);
        assert_eq!(data.instance(1).labels, [0]);
        assert_eq!(data.instance(1).items.item(0), (&[0][..], &[1.0][..]));
        data.check_labels().unwrap();
    }

    #[test]
    fn a_frozen_builder_never_grows_its_dictionaries() {
        let mut b = DatasetBuilder::new();
        add_sequence(&mut b);
        let data = b.finish();
        let mut f = DatasetBuilder::frozen(data.attributes().clone(), data.labels().clone());
        refusing(ATTRIBUTE_NAMES, || f.attribute("new", 1.0)).unwrap();
        refusing(LABEL_NAMES, || f.end_item("Z")).unwrap();
        f.end_sequence().unwrap();
        assert_eq!(f.finish().instance(0).labels, [UNKNOWN_LABEL]);
    }

    #[test]
    fn a_refused_growth_of_a_sequence_is_an_error_and_leaves_it_as_it_was() {
        let mut seq = Sequence::new();
        seq.push_item([(0, 1.0), (1, 2.0)]).unwrap();
        let before = seq.clone();
        let e = refusing(ATTRIBUTE_VALUES, || seq.push_item([(2, 1.0)])).unwrap_err();
        assert_refused(&e, "attribute values");
        assert_eq!(seq, before);
        let e = refusing(ITEMS, || seq.push_item([(2, 1.0)])).unwrap_err();
        assert_refused(&e, "items");
        assert_eq!(seq, before);
        seq.push_item([(2, 1.0)]).unwrap();
        assert_eq!(seq.len(), 2);
        assert_eq!(seq.items().item(1), (&[2][..], &[1.0][..]));
    }

    #[test]
    fn get_or_insert_and_try_get_or_insert_agree_on_ids() {
        let mut d = Dictionary::new();
        assert_eq!(d.try_get_or_insert("a"), Ok(0));
        assert_eq!(d.get_or_insert("b"), Some(1));
        assert_eq!(d.try_get_or_insert("a"), Ok(0));
        assert_eq!((d.len(), d.get("b")), (2, Some(1)));
    }
}
