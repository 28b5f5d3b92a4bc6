//! Reading Python items into attribute data (module docs of [`super`]): the walk of one
//! item, labelled data read into a [`DatasetBuilder`] and a sequence encoded with a
//! model's attribute ids.

use bl_core::BlError;
use chain_crf::{CrfError, DatasetBuilder, Dictionary, Sequence};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFrozenSet, PyIterator, PyList, PySet, PyString};

use crate::errors::ToPyErr;

/// Where an item is, for error messages: the data's name (`X`, `y`, `X_dev`, `y_dev`),
/// the sequence and the position (both 0-based).
#[derive(Debug, Clone, Copy)]
struct Place<'a> {
    data: &'a str,
    seq: usize,
    pos: usize,
}

impl Place<'_> {
    fn err(&self, message: impl std::fmt::Display) -> PyErr {
        PyValueError::new_err(format!(
            "{}: sequence {}, position {}: {message}",
            self.data, self.seq, self.pos
        ))
    }

    /// A `chain-crf` error of a [`DatasetBuilder`] or [`Sequence`] at this place (its own
    /// place, counted by the builder, is the same; the message says which data). Their
    /// only `InvalidParameter` is a buffer that could not grow (memory refused: the
    /// input is larger than the memory available, or endless), raised as `MemoryError`
    /// naming the data, as `list(x)` would raise, where `Vec::push` used to abort.
    fn crf(&self, e: &CrfError) -> PyErr {
        match e {
            CrfError::Input { message, .. } => self.err(message),
            CrfError::Core(BlError::InvalidParameter { name, value, .. }) => {
                PyMemoryError::new_err(format!(
                    "{}: sequence {}, position {}: out of memory: the {name} ({value}) could \
                     not grow (the input is larger than the memory available, or endless)",
                    self.data, self.seq, self.pos
                ))
            }
            other => other.to_py(),
        }
    }
}

/// The type name of `x`, for messages.
pub(super) fn type_name(x: &Bound<'_, PyAny>) -> String {
    x.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// Appends the name `key` (`str`, or `bytes` in UTF-8) to `name`.
fn push_name(
    name: &mut String,
    key: &Bound<'_, PyAny>,
    place: Place<'_>,
    what: &str,
) -> PyResult<()> {
    if let Ok(s) = key.cast::<PyString>() {
        let s = s
            .to_cow()
            .map_err(|e| place.err(format!("{what} is not valid Unicode: {e}")))?;
        name.push_str(&s);
    } else if let Ok(b) = key.cast::<PyBytes>() {
        let s = std::str::from_utf8(b.as_bytes())
            .map_err(|e| place.err(format!("{what} {b} is not UTF-8: {e}")))?;
        name.push_str(s);
    } else {
        return Err(place.err(format!(
            "{what} must be a str (or UTF-8 bytes), not {}",
            type_name(key)
        )));
    }
    Ok(())
}

/// How deep dicts may nest in one item (module docs): the walk recurses once per level,
/// so a deeper item, or a dict that contains itself, is refused before the stack runs out.
pub(super) const MAX_ITEM_DEPTH: usize = 64;

/// How many entries (a dict's keys, a list's or set's names, counted at every level) the
/// walk of one item reads: a few nested dicts that share their children would otherwise
/// be walked as exponentially many attributes.
pub(super) const MAX_ITEM_ENTRIES: usize = 1 << 20;

/// The longest attribute name (bytes, with its prefixes) the walk builds.
pub(super) const MAX_NAME_BYTES: usize = 1 << 20;

/// Counts `count` more entries of the item and checks the name built for them (module
/// docs).
fn spend(entries: &mut usize, count: usize, name: &str, place: Place<'_>) -> PyResult<()> {
    *entries += count;
    if *entries > MAX_ITEM_ENTRIES {
        return Err(place.err(format!(
            "the item has more than {MAX_ITEM_ENTRIES} feature entries (counted at every \
             level of its nested dicts: are dicts shared among its values?)"
        )));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(place.err(format!(
            "a feature name (with its prefixes) is longer than {MAX_NAME_BYTES} bytes"
        )));
    }
    Ok(())
}

/// Walks one item (module docs), calling `emit(name, value)` for every attribute; `name`
/// holds the prefix on entry and is restored on return.
fn walk_item<F>(
    x: &Bound<'_, PyAny>,
    name: &mut String,
    place: Place<'_>,
    emit: &mut F,
) -> PyResult<()>
where
    F: FnMut(&str, f64) -> PyResult<()>,
{
    walk_nested(x, name, place, (0, &mut 0), emit)
}

/// [`walk_item`] on a dict nested `depth` levels deep in the item, `entries` of which
/// have been read.
fn walk_nested<F>(
    x: &Bound<'_, PyAny>,
    name: &mut String,
    place: Place<'_>,
    (depth, entries): (usize, &mut usize),
    emit: &mut F,
) -> PyResult<()>
where
    F: FnMut(&str, f64) -> PyResult<()>,
{
    let base = name.len();
    if let Ok(d) = x.cast::<PyDict>() {
        for (k, v) in d.iter() {
            push_name(name, &k, place, "a feature name")?;
            spend(entries, 1, name, place)?;
            if v.is_instance_of::<PyDict>()
                || v.is_instance_of::<PyList>()
                || v.is_instance_of::<PySet>()
            {
                if depth + 1 > MAX_ITEM_DEPTH {
                    return Err(place.err(format!(
                        "features nest deeper than {MAX_ITEM_DEPTH} dicts (a dict that \
                         contains itself?)"
                    )));
                }
                name.push(':');
                walk_nested(&v, name, place, (depth + 1, &mut *entries), emit)?;
            } else if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
                name.push(':');
                push_name(name, &v, place, "a feature value")?;
                spend(entries, 0, name, place)?;
                emit(name, 1.0)?;
            } else {
                let value: f64 = v.extract().map_err(|_| {
                    place.err(format!(
                        "feature {name:?} has a value of type {}: give a str, a number, a \
                         bool, or a dict, list or set of them",
                        type_name(&v)
                    ))
                })?;
                if !value.is_finite() {
                    return Err(place.err(format!(
                        "feature {name:?} has the value {value}: values must be finite"
                    )));
                }
                emit(name, value)?;
            }
            name.truncate(base);
        }
    } else if x.is_instance_of::<PySet>() || x.is_instance_of::<PyFrozenSet>() {
        // A set's order follows its strings' hashes, which Python draws anew in every
        // process (`PYTHONHASHSEED`): its names are read sorted, so that attribute ids and
        // the order of every sum are the same from run to run. Only the names themselves
        // are kept (their bytes are the input's own), the prefix is added as each is read.
        let mut names = Vec::new();
        for k in x.try_iter()? {
            let mut own = String::new();
            push_name(&mut own, &k?, place, "a feature name in a set")?;
            spend(entries, 1, &own, place)?;
            names.push(own);
        }
        names.sort_unstable();
        for own in names {
            name.push_str(&own);
            spend(entries, 0, name, place)?;
            emit(name, 1.0)?;
            name.truncate(base);
        }
    } else {
        let items = x.try_iter().map_err(|_| {
            place.err(format!(
                "an item must be a dict of features or a list of feature names, not {}",
                type_name(x)
            ))
        })?;
        for k in items {
            push_name(name, &k?, place, "a feature name in a list")?;
            spend(entries, 1, name, place)?;
            emit(name, 1.0)?;
            name.truncate(base);
        }
    }
    Ok(())
}

/// An iterator over `x`, refusing strings and non-iterables with a message naming `what`.
pub(super) fn iterate<'py>(
    x: &Bound<'py, PyAny>,
    what: impl FnOnce() -> String,
    expected: &str,
) -> PyResult<Bound<'py, PyIterator>> {
    if x.is_instance_of::<PyString>() || x.is_instance_of::<PyBytes>() {
        return Err(PyValueError::new_err(format!(
            "{} is a string: give {expected}",
            what()
        )));
    }
    x.try_iter().map_err(|_| {
        PyValueError::new_err(format!(
            "{} must be {expected}, not {}",
            what(),
            type_name(x)
        ))
    })
}

/// Counts what is left in `it` (for the message of a length mismatch).
fn count_rest(it: &mut Bound<'_, PyIterator>) -> PyResult<usize> {
    let mut n = 0;
    for v in it {
        v?;
        n += 1;
    }
    Ok(n)
}

/// Reads one labelled sequence into `b`.
pub(super) fn read_sequence(
    b: &mut DatasetBuilder,
    xseq: &Bound<'_, PyAny>,
    yseq: &Bound<'_, PyAny>,
    names: (&str, &str),
    s: usize,
) -> PyResult<usize> {
    let (xname, yname) = names;
    let mut xi = xseq.try_iter().map_err(|_| {
        PyValueError::new_err(format!(
            "{xname}: sequence {s} must be an iterable of items, not {}",
            type_name(xseq)
        ))
    })?;
    let mut yi = iterate(
        yseq,
        || format!("{yname}: the labels of sequence {s}"),
        "a list of str labels",
    )?;
    let mut name = String::new();
    let mut t = 0;
    loop {
        let item = xi.next().transpose()?;
        let label = yi.next().transpose()?;
        let (item, label) = match (item, label) {
            (None, None) => break,
            (Some(_), None) => {
                let n = t + 1 + count_rest(&mut xi)?;
                return Err(PyValueError::new_err(format!(
                    "sequence {s}: {xname} has {n} items but {yname} has {t} labels"
                )));
            }
            (None, Some(_)) => {
                let n = t + 1 + count_rest(&mut yi)?;
                return Err(PyValueError::new_err(format!(
                    "sequence {s}: {xname} has {t} items but {yname} has {n} labels"
                )));
            }
            (Some(item), Some(label)) => (item, label),
        };
        let place = Place {
            data: xname,
            seq: s,
            pos: t,
        };
        walk_item(&item, &mut name, place, &mut |n, v| {
            b.attribute(n, v).map_err(|e| place.crf(&e))
        })?;
        let at = Place {
            data: yname,
            ..place
        };
        let label = label
            .cast::<PyString>()
            .map_err(|_| at.err(format!("a label must be a str, not {}", type_name(&label))))?
            .to_cow()
            .map_err(|e| at.err(format!("the label is not valid Unicode: {e}")))?;
        // A label's errors name `y` (a refused label dictionary too); a refused growth of
        // the items names the data, `X`, as the others.
        b.end_item(&label).map_err(|e| match &e {
            CrfError::Input { .. }
            | CrfError::Core(BlError::InvalidParameter {
                name: "label dictionary",
                ..
            }) => at.crf(&e),
            _ => place.crf(&e),
        })?;
        t += 1;
    }
    if t == 0 {
        return Err(PyValueError::new_err(format!(
            "{xname}: sequence {s} is empty: every sequence of {xname} needs at least one \
             item"
        )));
    }
    b.end_sequence().map_err(|e| {
        Place {
            data: xname,
            seq: s,
            pos: t,
        }
        .crf(&e)
    })?;
    Ok(t)
}

/// Counts of a labelled data set read by [`read_labelled`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) sequences: usize,
    pub(super) items: usize,
}

/// Reads `x` (sequences of items) and `y` (sequences of labels) into `b`, in step, so a
/// generator is read once and nothing is kept but the encoded data.
pub(super) fn read_labelled(
    b: &mut DatasetBuilder,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    names: (&str, &str),
) -> PyResult<Counts> {
    let (xname, yname) = names;
    let mut xi = iterate(x, || xname.to_owned(), "an iterable of sequences")?;
    let mut yi = iterate(y, || yname.to_owned(), "an iterable of label sequences")?;
    if let (Ok(nx), Ok(ny)) = (x.len(), y.len())
        && nx != ny
    {
        return Err(PyValueError::new_err(format!(
            "{xname} has {nx} sequences but {yname} has {ny}"
        )));
    }
    let mut counts = Counts::default();
    loop {
        let s = counts.sequences;
        let xseq = xi.next().transpose()?;
        let yseq = yi.next().transpose()?;
        match (xseq, yseq) {
            (None, None) => break,
            (Some(_), None) => {
                return Err(PyValueError::new_err(format!(
                    "{xname} and {yname} have different lengths: {yname} ended after {s} \
                     sequences, {xname} has more"
                )));
            }
            (None, Some(_)) => {
                return Err(PyValueError::new_err(format!(
                    "{xname} and {yname} have different lengths: {xname} ended after {s} \
                     sequences, {yname} has more"
                )));
            }
            (Some(xseq), Some(yseq)) => {
                counts.items += read_sequence(b, &xseq, &yseq, names, s)?;
                counts.sequences += 1;
            }
        }
    }
    Ok(counts)
}

/// Encodes one sequence with the attribute ids of `attributes` (unknown attributes
/// dropped).
pub(super) fn encode(
    attributes: &Dictionary,
    xseq: &Bound<'_, PyAny>,
    data: &str,
    s: usize,
) -> PyResult<Sequence> {
    let items = xseq.try_iter().map_err(|_| {
        PyValueError::new_err(format!(
            "{data}: sequence {s} must be an iterable of items, not {}",
            type_name(xseq)
        ))
    })?;
    let mut seq = Sequence::new();
    let mut pairs: Vec<(u32, f64)> = Vec::new();
    let mut name = String::new();
    for (t, item) in items.enumerate() {
        let place = Place {
            data,
            seq: s,
            pos: t,
        };
        pairs.clear();
        walk_item(&item?, &mut name, place, &mut |n, v| {
            if let Some(id) = attributes.get(n) {
                pairs.push((id, v));
            }
            Ok(())
        })?;
        seq.push_item(pairs.drain(..)).map_err(|e| place.crf(&e))?;
    }
    Ok(seq)
}
