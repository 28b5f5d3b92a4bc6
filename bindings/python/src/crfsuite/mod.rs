//! Linear-chain CRFs of the `chain-crf` crate behind `bilinear.crfsuite`, a drop-in for
//! sklearn-crfsuite: training from Python feature dicts, tagging, marginals, sequence
//! probabilities, inspection by name and the saved form.
//!
//! # How items are read
//!
//! `X` is an iterable of sequences, a sequence an iterable of items, and every item is
//! turned into `(attribute, value)` pairs exactly as python-crfsuite's `ItemSequence`
//! turns it (checked against python-crfsuite 0.9.12), walking the Python objects here
//! and feeding [`DatasetBuilder`] directly, so neither `X` nor a sequence is ever copied
//! into a Python list and a generator's dicts can be freed as soon as they are read:
//!
//! | item | attributes |
//! |---|---|
//! | `{"w": "the"}` (a `str` or UTF-8 `bytes` value) | `"w:the"` with value 1 |
//! | `{"n": 2.5}` (anything `float()` accepts without a string: `int`, `float`, NumPy scalars) | `"n"` with value 2.5 |
//! | `{"b": True}` / `{"b": False}` | `"b"` with value 1 / 0 (a bool is a number) |
//! | `{"p": {"q": v, ...}}` (a nested `dict`) | the nested dict's attributes, each prefixed `"p:"` (`"p:q:..."`), recursively, at most 64 dicts deep (`items::MAX_ITEM_DEPTH`; a deeper item, or a dict that contains itself, is a `ValueError`) |
//! | `{"p": ["x", "y"]}` (a `list` or `set` of `str`) | `"p:x"`, `"p:y"`, each with value 1 |
//! | `["x", "y"]` (an item that is not a `dict`: a list, tuple, set, ... of `str`) | `"x"`, `"y"`, each with value 1 |
//!
//! A string value is joined to its key with `:`, as python-crfsuite does (its docstring
//! says `=`, its code and tests `:`). A name that occurs twice in one item counts twice.
//! The walk of one item reads at most 2^20 entries (keys and list names, counted at every
//! level: `items::MAX_ITEM_ENTRIES`, so that nested dicts that share their children are
//! not walked as exponentially many attributes) and builds names of at most 2^20 bytes
//! with their prefixes (`items::MAX_NAME_BYTES`); past either it is a `ValueError`.
//! Keys are `str` or UTF-8 `bytes`; an item that is a `str` is read as python-crfsuite
//! reads it, one attribute per character. Everything else is a `ValueError` naming the
//! data (`X`, `y`, `X_dev`, `y_dev`), the sequence and the position: a value of another
//! type (`None`, a tuple, a frozenset, a complex number), NaN or infinite values (CRFsuite
//! accepts them and trains on garbage), a label that is not a `str`, an empty label, a
//! sequence and its labels of different lengths, an empty training sequence, and `X` and
//! `y` of different lengths (checked first when both have a length, else when the shorter
//! one ends). At prediction attributes the model does not know are dropped, and an empty
//! sequence gets an empty prediction.

use chain_crf::CrfError;
// What the module docs link to.
#[cfg(doc)]
use chain_crf::DatasetBuilder;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::ToPyErr;

mod fit;
mod items;
mod model;
mod params;

mod dask;

pub use fit::crfsuite_fit;
pub use model::{CrfModel, CrfSequence};
pub use params::crfsuite_parameters;

// What `dask` (a child of this module) takes from its siblings.
use fit::{FitOutput, OnIteration, crf_output, read_dev, score_holdout};
use items::{iterate, read_sequence, type_name};
use params::crf_params;

impl ToPyErr for CrfError {
    fn to_py(&self) -> PyErr {
        match self {
            CrfError::Core(e) => e.to_py(),
            other => PyValueError::new_err(other.to_string()),
        }
    }
}

/// Adds the CRF items to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CrfModel>()?;
    m.add_class::<CrfSequence>()?;
    m.add_function(wrap_pyfunction!(crfsuite_fit, m)?)?;
    m.add_function(wrap_pyfunction!(crfsuite_parameters, m)?)?;
    dask::register(m)?;
    Ok(())
}
