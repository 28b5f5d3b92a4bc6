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
//! | `{"p": {"q": v, ...}}` (a nested `dict`) | the nested dict's attributes, each prefixed `"p:"` (`"p:q:..."`), recursively |
//! | `{"p": ["x", "y"]}` (a `list` or `set` of `str`) | `"p:x"`, `"p:y"`, each with value 1 |
//! | `["x", "y"]` (an item that is not a `dict`: a list, tuple, set, ... of `str`) | `"x"`, `"y"`, each with value 1 |
//!
//! A string value is joined to its key with `:`, as python-crfsuite does (its docstring
//! says `=`, its code and tests `:`). A name that occurs twice in one item counts twice.
//! Keys are `str` or UTF-8 `bytes`; an item that is a `str` is read as python-crfsuite
//! reads it, one attribute per character. Everything else is a `ValueError` naming the
//! data (`X`, `y`, `X_dev`, `y_dev`), the sequence and the position: a value of another
//! type (`None`, a tuple, a frozenset, a complex number), NaN or infinite values (CRFsuite
//! accepts them and trains on garbage), a label that is not a `str`, an empty label, a
//! sequence and its labels of different lengths, an empty training sequence, and `X` and
//! `y` of different lengths (checked first when both have a length, else when the shorter
//! one ends). At prediction attributes the model does not know are dropped, and an empty
//! sequence gets an empty prediction.

use bl_core::engine::{IterationView, Observer};
use bl_core::{Fit, FitReport, Fitted};
use chain_crf::{
    Algorithm, Arow, AveragedPerceptron, CrfError, CrfParams, Dataset, DatasetBuilder, Dictionary,
    FeatureOptions, FittedCrf, Items, IterationLog, L2sgd, Lbfgs, LineSearch, Model, PaType,
    ParamGuard, PassiveAggressive, Sequence, UNKNOWN_LABEL,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyList, PySet, PyString};

use online_bilinear::{BuiltIn, FittedTagger, TaggerParams};

use crate::errors::{ToPyErr, choose, guarded};
use crate::keywords::set_if_given;

#[path = "crfsuite_dask.rs"]
mod dask;

impl ToPyErr for CrfError {
    fn to_py(&self) -> PyErr {
        match self {
            CrfError::Core(e) => e.to_py(),
            other => PyValueError::new_err(other.to_string()),
        }
    }
}

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

    /// A `chain-crf` error at this place (its own place, counted by the builder, is the
    /// same; the message says which data).
    fn crf(&self, e: &CrfError) -> PyErr {
        match e {
            CrfError::Input { message, .. } => self.err(message),
            other => other.to_py(),
        }
    }
}

/// The type name of `x`, for messages.
fn type_name(x: &Bound<'_, PyAny>) -> String {
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
    let base = name.len();
    if let Ok(d) = x.cast::<PyDict>() {
        for (k, v) in d.iter() {
            push_name(name, &k, place, "a feature name")?;
            if v.is_instance_of::<PyDict>()
                || v.is_instance_of::<PyList>()
                || v.is_instance_of::<PySet>()
            {
                name.push(':');
                walk_item(&v, name, place, emit)?;
            } else if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
                name.push(':');
                push_name(name, &v, place, "a feature value")?;
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
    } else {
        let items = x.try_iter().map_err(|_| {
            place.err(format!(
                "an item must be a dict of features or a list of feature names, not {}",
                type_name(x)
            ))
        })?;
        for k in items {
            push_name(name, &k?, place, "a feature name in a list")?;
            emit(name, 1.0)?;
            name.truncate(base);
        }
    }
    Ok(())
}

/// An iterator over `x`, refusing strings and non-iterables with a message naming `what`.
fn iterate<'py>(
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
fn read_sequence(
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
        b.end_item(&label).map_err(|e| at.crf(&e))?;
        t += 1;
    }
    if t == 0 {
        return Err(PyValueError::new_err(format!(
            "{xname}: sequence {s} is empty: a training sequence needs at least one item"
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
struct Counts {
    sequences: usize,
    items: usize,
}

/// Reads `x` (sequences of items) and `y` (sequences of labels) into `b`, in step, so a
/// generator is read once and nothing is kept but the encoded data.
fn read_labelled(
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
fn encode(
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

// ---------------------------------------------------------------------------------------
// Parameters.

/// The parameters (sklearn-crfsuite's keyword names) each algorithm takes besides
/// [`COMMON`], as CRFsuite lists them; CRFsuite's trainers take all of [`COMMON`], the
/// bilinear learners only `max_iterations`.
fn parameters_of(algorithm: &str) -> &'static [&'static str] {
    match algorithm {
        "lbfgs" => &[
            "c1",
            "c2",
            "num_memories",
            "epsilon",
            "period",
            "delta",
            "linesearch",
            "max_linesearch",
        ],
        "l2sgd" => &[
            "c2",
            "period",
            "delta",
            "calibration_eta",
            "calibration_rate",
            "calibration_samples",
            "calibration_candidates",
            "calibration_max_trials",
        ],
        "ap" => &["epsilon"],
        "pa" => &["pa_type", "c", "error_sensitive", "averaging", "epsilon"],
        "arow" => &["variance", "gamma", "epsilon"],
        // The workspace's bilinear learners (online-bilinear): C (not read by sp),
        // averaging, the stopping threshold (the fraction of sequences with an update in
        // an epoch) and the feature set (0-order features; for sp, transitions for the
        // bias only).
        "bol" | "bcd" => &["c", "averaging", "epsilon", "zero_order"],
        "sp" => &["averaging", "epsilon", "zero_order", "transitions_only"],
        _ => &[],
    }
}

const COMMON: [&str; 4] = [
    "min_freq",
    "all_possible_states",
    "all_possible_transitions",
    "max_iterations",
];

/// The parameters `algorithm` takes besides [`parameters_of`]: all of [`COMMON`] for
/// CRFsuite's trainers (and for a name that is no algorithm), `max_iterations` alone for
/// the bilinear learners.
fn common_of(algorithm: &str) -> &'static [&'static str] {
    if BILINEAR.contains(&algorithm) {
        &["max_iterations"]
    } else {
        &COMMON
    }
}

/// The parameters given to one fit, taken out one at a time with a typed getter.
struct Given<'py> {
    dict: Bound<'py, PyDict>,
}

impl<'py> Given<'py> {
    fn get(&self, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.dict.get_item(name)
    }

    fn float(&self, name: &str) -> PyResult<Option<f64>> {
        let Some(v) = self.get(name)? else {
            return Ok(None);
        };
        if v.is_instance_of::<PyString>() {
            return Err(PyValueError::new_err(format!(
                "parameter {name} must be a number, not the str {v}"
            )));
        }
        let x: f64 = v.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "parameter {name} must be a number, not {}",
                type_name(&v)
            ))
        })?;
        if !x.is_finite() {
            return Err(PyValueError::new_err(format!(
                "parameter {name} must be finite, not {x}"
            )));
        }
        Ok(Some(x))
    }

    fn count(&self, name: &str) -> PyResult<Option<usize>> {
        let Some(x) = self.float(name)? else {
            return Ok(None);
        };
        if x < 0.0 || x.fract() != 0.0 || x > 1e15 {
            return Err(PyValueError::new_err(format!(
                "parameter {name} must be a nonnegative whole number, not {x}"
            )));
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(Some(x as usize))
    }

    fn flag(&self, name: &str) -> PyResult<Option<bool>> {
        let Some(v) = self.get(name)? else {
            return Ok(None);
        };
        if let Ok(b) = v.extract::<bool>() {
            return Ok(Some(b));
        }
        match v.extract::<i64>() {
            Ok(i) if !v.is_instance_of::<PyString>() => Ok(Some(i != 0)),
            _ => Err(PyValueError::new_err(format!(
                "parameter {name} must be a bool (or 0/1), not {}",
                type_name(&v)
            ))),
        }
    }

    fn text(&self, name: &str) -> PyResult<Option<String>> {
        let Some(v) = self.get(name)? else {
            return Ok(None);
        };
        v.extract::<String>().map(Some).map_err(|_| {
            PyValueError::new_err(format!(
                "parameter {name} must be a str, not {}",
                type_name(&v)
            ))
        })
    }
}

/// Copies each given parameter (`kind name`: read with `Given::kind`) into the field of
/// the same name of `s`.
macro_rules! given {
    ($g:ident, $s:ident, $($kind:ident $name:ident),+) => {
        $(
            if let Some(v) = $g.$kind(stringify!($name))? {
                $s.$name = v;
            }
        )+
    };
}

/// Sets the fields of `lbfgs` from the given parameters.
fn lbfgs_settings(g: &Given<'_>) -> PyResult<Lbfgs> {
    let mut s = Lbfgs::default();
    given!(g, s, float c1, float c2, count num_memories, float epsilon, count period);
    if let Some(v) = g.text("linesearch")? {
        s.linesearch = choose(
            "linesearch",
            &v,
            &[
                ("MoreThuente", LineSearch::MoreThuente),
                ("Backtracking", LineSearch::Backtracking),
                ("StrongBacktracking", LineSearch::StrongBacktracking),
            ],
        )?;
    }
    given!(g, s, count max_linesearch);
    Ok(s)
}

/// The fit's parameters: the algorithm by its CRFsuite name with CRFsuite's defaults,
/// then every given parameter. A parameter the algorithm does not take is a
/// `ValueError`, as CRFsuite refuses it.
fn crf_params(
    algorithm: &str,
    given: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<CrfParams> {
    let known = parameters_of(algorithm);
    if known.is_empty() {
        return Err(PyValueError::new_err(format!(
            "invalid algorithm {algorithm:?}: must be 'lbfgs', 'l2sgd', 'ap', 'pa' or 'arow'"
        )));
    }
    for key in given.keys() {
        let key: String = key.extract()?;
        if !COMMON.contains(&key.as_str()) && !known.contains(&key.as_str()) {
            let takers: Vec<&str> = ["lbfgs", "l2sgd", "ap", "pa", "arow"]
                .into_iter()
                .filter(|a| parameters_of(a).contains(&key.as_str()))
                .collect();
            let which = if takers.is_empty() {
                "no algorithm takes it".to_owned()
            } else {
                format!("it applies to {}", takers.join(", "))
            };
            return Err(PyValueError::new_err(format!(
                "parameter {key} does not apply to algorithm {algorithm:?} ({which}; CRFsuite \
                 refuses it too): leave it None"
            )));
        }
    }
    let g = Given {
        dict: given.clone(),
    };
    let chosen = match algorithm {
        "lbfgs" => Algorithm::Lbfgs(lbfgs_settings(&g)?),
        other => online_settings(other, &g)?,
    };
    let params = CrfParams::new(chosen).threads(threads);
    let params = set_if_given(params, g.count("max_iterations")?, CrfParams::max_iter);
    // CRFsuite's stopping threshold: `delta` for lbfgs and l2sgd, `epsilon` for the
    // online trainers (lbfgs's `epsilon` is its gradient test, set above).
    let tol_name = match algorithm {
        "lbfgs" | "l2sgd" => "delta",
        _ => "epsilon",
    };
    let params = set_if_given(params, g.float(tol_name)?, CrfParams::tol);
    let mut features = FeatureOptions::default();
    given!(g, features, float min_freq, flag all_possible_states, flag all_possible_transitions);
    Ok(params.features(features))
}

/// The settings of `l2sgd`, `ap`, `pa` and `arow` from the given parameters.
fn online_settings(algorithm: &str, g: &Given<'_>) -> PyResult<Algorithm> {
    Ok(match algorithm {
        "l2sgd" => {
            let mut s = L2sgd::default();
            given!(g, s, float c2, count period, float calibration_eta, float calibration_rate, count calibration_samples, count calibration_candidates, count calibration_max_trials);
            Algorithm::L2sgd(s)
        }
        "ap" => Algorithm::AveragedPerceptron(AveragedPerceptron::default()),
        "pa" => {
            let mut s = PassiveAggressive::default();
            if let Some(v) = g.count("pa_type")? {
                let code = i64::try_from(v).unwrap_or(i64::MAX);
                s.pa_type = guarded(|| PaType::from_code(code))?;
            }
            given!(g, s, float c, flag error_sensitive, flag averaging);
            Algorithm::PassiveAggressive(s)
        }
        _ => {
            let mut s = Arow::default();
            given!(g, s, float variance, float gamma);
            Algorithm::Arow(s)
        }
    })
}

// ---------------------------------------------------------------------------------------
// The fitted model.

/// A trained CRF (pickles through the crate's saved form, checked again on load), or a
/// bilinear tagger trained on the same items (`algorithm` `bol`, `bcd`, `sp`).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct CrfModel {
    inner: Inner,
}

/// What a [`CrfModel`] holds.
#[derive(Debug)]
enum Inner {
    /// A `chain-crf` model.
    Crf(Model),
    /// An `online-bilinear` tagger fitted on attribute data, with its attribute and label
    /// dictionaries (the training data's).
    Bilinear {
        tagger: Box<FittedTagger>,
        attributes: Dictionary,
        labels: Dictionary,
    },
}

impl Inner {
    fn attributes(&self) -> &Dictionary {
        match self {
            Inner::Crf(m) => m.attributes(),
            Inner::Bilinear { attributes, .. } => attributes,
        }
    }

    fn labels(&self) -> &Dictionary {
        match self {
            Inner::Crf(m) => m.labels(),
            Inner::Bilinear { labels, .. } => labels,
        }
    }

    /// The best label path (label ids).
    fn tag(&self, seq: &Sequence) -> PyResult<Vec<u32>> {
        match self {
            Inner::Crf(m) => Ok(m.tag(seq.items()).0),
            Inner::Bilinear { tagger, .. } => guarded(|| tagger.tag_items(seq.items())),
        }
    }

    /// The CRF, or a `ValueError` saying that a bilinear tagger has no `what`.
    fn crf(&self, what: &str) -> PyResult<&Model> {
        match self {
            Inner::Crf(m) => Ok(m),
            Inner::Bilinear { tagger, .. } => Err(PyValueError::new_err(format!(
                "a model trained with algorithm {:?} has no {what}: its scores are not a \
                 probability model and its weights are not CRFsuite's state and transition \
                 features (use algorithm 'lbfgs', 'l2sgd', 'ap', 'pa' or 'arow' for them)",
                tagger.learner()
            ))),
        }
    }

    fn to_bytes(&self) -> PyResult<Vec<u8>> {
        match self {
            Inner::Crf(m) => Ok(m.to_bytes()),
            Inner::Bilinear { tagger, .. } => guarded(|| tagger.to_json()).map(String::into_bytes),
        }
    }

    /// A saved CRF, or a saved bilinear tagger of attribute data.
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let crf = match Model::from_bytes(data) {
            Ok(m) => return Ok(Inner::Crf(m)),
            Err(e) => e,
        };
        let text = std::str::from_utf8(data)
            .map_err(|_| PyValueError::new_err(format!("not a saved model: {crf}")))?;
        let tagger = match FittedTagger::from_json(text) {
            Ok(t) => t,
            Err(_) => return Err(crf.to_py()),
        };
        let attributes = tagger.attribute_dictionary().ok_or_else(|| {
            PyValueError::new_err(
                "a tagger saved by bilinear.BilinearTagger (templates, not items): load it \
                 with BilinearTagger",
            )
        })?;
        let labels = tagger.label_dictionary();
        Ok(Inner::Bilinear {
            tagger: Box::new(tagger),
            attributes,
            labels,
        })
    }
}

/// A sequence encoded with a model's attribute ids (`CrfModel.encode`).
#[pyclass(module = "bilinear._native", frozen)]
#[derive(Debug)]
pub struct CrfSequence {
    seq: Sequence,
}

#[pymethods]
impl CrfSequence {
    fn __len__(&self) -> usize {
        self.seq.len()
    }
}

/// How many sequences prediction reads (holding the GIL) before tagging them (without).
const CHUNK: usize = 256;

impl CrfModel {
    /// Reads `x` in chunks, runs `work` on each chunk's encoded sequences without the GIL
    /// and appends `convert` of each result.
    fn map_chunks<R: Send, T>(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        work: impl Fn(&Inner, &Sequence) -> R + Sync,
        mut convert: impl FnMut(R) -> PyResult<T>,
    ) -> PyResult<Vec<T>> {
        let mut it = iterate(x, || "X".to_owned(), "an iterable of sequences")?;
        let mut out = Vec::new();
        let mut chunk: Vec<Sequence> = Vec::with_capacity(CHUNK);
        let mut s = 0;
        let mut done = false;
        while !done {
            chunk.clear();
            while chunk.len() < CHUNK {
                match it.next().transpose()? {
                    Some(xseq) => {
                        chunk.push(encode(self.inner.attributes(), &xseq, "X", s)?);
                        s += 1;
                    }
                    None => {
                        done = true;
                        break;
                    }
                }
            }
            let model = &self.inner;
            let results: Vec<R> = py.detach(|| chunk.iter().map(|q| work(model, q)).collect());
            for r in results {
                out.push(convert(r)?);
            }
        }
        Ok(out)
    }

    fn names(&self, path: &[u32]) -> Vec<String> {
        path.iter()
            .map(|&y| self.inner.labels().name(y).to_owned())
            .collect()
    }

    /// The label id of `label`, or `None` for a label the model does not know.
    fn label_id(&self, label: &str) -> Option<u32> {
        self.inner.labels().get(label)
    }
}

/// A feature's two names (attribute and label, or two labels) and its weight.
type WeightedPair = (String, String, f64);

/// The model's `(name, name, weight)` features with the names copied out.
fn owned_pairs<'a>(features: impl Iterator<Item = (&'a str, &'a str, f64)>) -> Vec<WeightedPair> {
    features
        .map(|(a, b, w)| (a.to_owned(), b.to_owned(), w))
        .collect()
}

#[pymethods]
impl CrfModel {
    /// The labels, in the model's order.
    fn labels(&self) -> Vec<String> {
        self.inner.labels().names().to_vec()
    }

    /// Every attribute the model knows, in id order.
    fn attributes(&self) -> Vec<String> {
        self.inner.attributes().names().to_vec()
    }

    /// Number of features (state and transition; a bilinear tagger's features).
    #[getter]
    fn n_features(&self) -> usize {
        match &self.inner {
            Inner::Crf(m) => m.features().len(),
            Inner::Bilinear { tagger, .. } => tagger.n_features(),
        }
    }

    /// The trainer's name for a bilinear tagger (`bol`, `bcd`, `sp`), `None` for a CRF.
    #[getter]
    fn bilinear_learner(&self) -> Option<String> {
        match &self.inner {
            Inner::Crf(_) => None,
            Inner::Bilinear { tagger, .. } => Some(tagger.learner().to_owned()),
        }
    }

    /// `(attribute, label, weight)` of every state feature.
    fn state_features(&self) -> PyResult<Vec<WeightedPair>> {
        let model = self.inner.crf("state features")?;
        Ok(owned_pairs(model.state_features()))
    }

    /// `(previous label, label, weight)` of every transition feature.
    fn transition_features(&self) -> PyResult<Vec<WeightedPair>> {
        let model = self.inner.crf("transition features")?;
        Ok(owned_pairs(model.transition_features()))
    }

    /// One sequence of items, encoded for [`tag`](Self::tag), [`marginals`](Self::marginals)
    /// and [`probability`](Self::probability).
    #[pyo3(signature = (xseq, sequence=0))]
    fn encode(&self, xseq: &Bound<'_, PyAny>, sequence: usize) -> PyResult<CrfSequence> {
        Ok(CrfSequence {
            seq: encode(self.inner.attributes(), xseq, "xseq", sequence)?,
        })
    }

    /// The most probable labels (Viterbi) of an encoded sequence.
    fn tag(&self, py: Python<'_>, seq: &CrfSequence) -> PyResult<Vec<String>> {
        let path = py.detach(|| self.inner.tag(&seq.seq))?;
        Ok(self.names(&path))
    }

    /// `p(y_t = label | x)`: one row per position, one column per label in
    /// [`labels`](Self::labels) order.
    fn marginals(&self, py: Python<'_>, seq: &CrfSequence) -> PyResult<Vec<Vec<f64>>> {
        let model = self.inner.crf("marginals")?;
        let l = model.n_labels();
        let m = py.detach(|| model.marginals(seq.seq.items()));
        Ok(m.chunks(l.max(1)).map(<[f64]>::to_vec).collect())
    }

    /// `p(labels | x)`; 0 when a label is one the model does not know (it never predicts
    /// it), as CRFsuite.
    fn probability(&self, py: Python<'_>, seq: &CrfSequence, labels: Vec<String>) -> PyResult<f64> {
        let model = self.inner.crf("sequence probabilities")?;
        let n = seq.seq.len();
        if labels.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} labels for a sequence of {n} items",
                labels.len()
            )));
        }
        let Some(ids) = labels
            .iter()
            .map(|s| self.label_id(s))
            .collect::<Option<Vec<u32>>>()
        else {
            return Ok(0.0);
        };
        py.detach(|| guarded(|| model.probability(seq.seq.items(), &ids)))
    }

    /// The labels of every sequence of `x`.
    fn predict(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<String>>> {
        self.map_chunks(py, x, |m, q| m.tag(q), |path| Ok(self.names(&path?)))
    }

    /// `{label: p(y_t = label | x)}` for every position of every sequence of `x`.
    fn predict_marginals<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Vec<Bound<'py, PyDict>>>> {
        self.inner.crf("marginals")?;
        let labels: Vec<Bound<'py, PyString>> = self
            .inner
            .labels()
            .names()
            .iter()
            .map(|s| PyString::new(py, s))
            .collect();
        let l = labels.len().max(1);
        self.map_chunks(
            py,
            x,
            |m, q| match m {
                Inner::Crf(m) => m.marginals(q.items()),
                Inner::Bilinear { .. } => Vec::new(),
            },
            |p| {
                p.chunks(l)
                    .map(|row| {
                        let d = PyDict::new(py);
                        for (name, &v) in labels.iter().zip(row) {
                            d.set_item(name, v)?;
                        }
                        Ok(d)
                    })
                    .collect()
            },
        )
    }

    /// The saved form (the crate's checked JSON, as bytes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.inner.to_bytes()?))
    }

    /// A model from [`to_bytes`](Self::to_bytes); the crate checks it in full.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(Self {
            inner: Inner::from_bytes(data)?,
        })
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = slf.get().to_bytes(slf.py())?;
        Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
    }
}

// ---------------------------------------------------------------------------------------
// The fit.

/// One iteration of the log as a dict of sklearn-crfsuite's log keys where the trainer
/// has them (`time` is the time since the start here; Python turns it into the
/// iteration's own time).
fn log_entry<'py>(py: Python<'py>, e: &IterationLog) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("num", e.iteration)?;
    d.set_item("loss", e.loss)?;
    d.set_item("feature_norm", e.feature_norm)?;
    d.set_item("active_features", e.active_features)?;
    d.set_item("time", e.time)?;
    if let Some(v) = e.error_norm {
        d.set_item("error_norm", v)?;
    }
    if let Some(v) = e.linesearch_trials {
        d.set_item("linesearch_trials", v)?;
    }
    if let Some(v) = e.learning_rate {
        d.set_item("learning_rate", v)?;
    }
    if let Some(v) = e.errors {
        d.set_item("errors", v)?;
    }
    if let Some(h) = e.holdout {
        d.set_item("item_accuracy_float", h.item_accuracy)?;
        d.set_item("instance_accuracy_float", h.instance_accuracy)?;
    }
    Ok(d)
}

/// `(match, model, ref)`: correct, predicted and true occurrences of one label.
type LabelCounts = (usize, usize, usize);

/// The returned model on held-out data: per label `(match, model, ref)` counts
/// (CRFsuite's evaluation: correct, predicted and true occurrences), item accuracy and
/// sequence accuracy. `tag` gives the label ids of a sequence.
struct Holdout {
    labels: Vec<LabelCounts>,
    item_accuracy: f64,
    instance_accuracy: f64,
}

fn score_holdout(
    n_labels: usize,
    dev: &Dataset,
    tag: impl Fn(Items<'_>) -> PyResult<Vec<u32>>,
) -> PyResult<Holdout> {
    let mut labels = vec![(0, 0, 0); n_labels];
    let (mut right, mut items, mut whole) = (0usize, 0usize, 0usize);
    for x in dev.iter() {
        let path = tag(x.items)?;
        let ok = path.iter().zip(x.labels).filter(|(p, y)| p == y).count();
        right += ok;
        items += x.labels.len();
        whole += usize::from(ok == x.labels.len());
        for (&p, &y) in path.iter().zip(x.labels) {
            labels[p as usize].1 += 1;
            if y != UNKNOWN_LABEL {
                labels[y as usize].2 += 1;
                if p == y {
                    labels[y as usize].0 += 1;
                }
            }
        }
    }
    Ok(Holdout {
        labels,
        item_accuracy: right as f64 / items.max(1) as f64,
        instance_accuracy: whole as f64 / dev.len().max(1) as f64,
    })
}

/// Reads the training data and, with both `X_dev` and `y_dev`, the held-out data with the
/// training data's dictionaries.
fn read_data(
    (x, y): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    dev: (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
) -> PyResult<(Dataset, Option<(Dataset, Counts)>)> {
    let mut b = DatasetBuilder::new();
    read_labelled(&mut b, x, y, ("X", "y"))?;
    let train = b.finish();
    let dev = read_dev(dev, train.attributes(), train.labels())?;
    Ok((train, dev))
}

/// Reads the held-out data (`X_dev` and `y_dev`, both or neither) with the training
/// data's dictionaries `attributes` and `labels`.
fn read_dev(
    (x_dev, y_dev): (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
    attributes: &Dictionary,
    labels: &Dictionary,
) -> PyResult<Option<(Dataset, Counts)>> {
    match (x_dev, y_dev) {
        (None, None) => Ok(None),
        (Some(xd), Some(yd)) => {
            let mut b = DatasetBuilder::frozen(attributes.clone(), labels.clone());
            let counts = read_labelled(&mut b, xd, yd, ("X_dev", "y_dev"))?;
            Ok(Some((b.finish(), counts)))
        }
        _ => Err(PyValueError::new_err(
            "Pass both X_dev and y_dev to use the holdout data",
        )),
    }
}

/// The facts of a fit: features, iterations, termination, seconds, and the held-out
/// counts per label.
fn fit_info<'py>(
    py: Python<'py>,
    n_features: usize,
    report: &FitReport,
    label_names: &[String],
    dev: Option<(Counts, &Holdout)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("n_features", n_features)?;
    d.set_item("iterations", report.iterations)?;
    d.set_item("termination", format!("{:?}", report.termination))?;
    d.set_item("seconds", report.elapsed.as_secs_f64())?;
    if let Some((counts, h)) = dev {
        d.set_item("dev_sequences", counts.sequences)?;
        d.set_item("dev_items", counts.items)?;
        let per = PyDict::new(py);
        for (name, c) in label_names.iter().zip(&h.labels) {
            per.set_item(name, c)?;
        }
        d.set_item("dev_label_counts", per)?;
    }
    Ok(d)
}

/// What [`crfsuite_fit`] returns: the model, the log and the facts of the fit.
type FitOutput<'py> = (CrfModel, Bound<'py, PyList>, Bound<'py, PyDict>);

/// Trains a CRF on `x` (sequences of items, module docs) with labels `y`; `x_dev` and
/// `y_dev` (both or neither) are scored after every iteration (`bol`, `bcd`, `sp`: once,
/// after the fit). `params` holds sklearn-crfsuite's keyword parameters that are not
/// `None`; `threads` the fit's worker threads; `on_iteration(num, loss, seconds)` is
/// called after every iteration (with the GIL, from the fit) by CRFsuite's trainers, never
/// for `bol`, `bcd`, `sp`. Returns the model, the log (one dict per iteration) and a dict of
/// facts about the fit. Releases the GIL while training.
#[pyfunction]
#[pyo3(signature = (x, y, x_dev=None, y_dev=None, *, algorithm, params, threads=None, on_iteration=None))]
#[allow(clippy::too_many_arguments)]
pub fn crfsuite_fit<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    x_dev: Option<&Bound<'py, PyAny>>,
    y_dev: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
    params: &Bound<'py, PyDict>,
    threads: Option<usize>,
    on_iteration: Option<Py<PyAny>>,
) -> PyResult<FitOutput<'py>> {
    if BILINEAR.contains(&algorithm) {
        return fit_bilinear(py, (x, y), (x_dev, y_dev), algorithm, params, threads);
    }
    let unchecked = crf_params(algorithm, params, threads)?;
    let checked = guarded(|| unchecked.check())?;
    let (train, dev) = read_data((x, y), (x_dev, y_dev))?;
    let mut callback = OnIteration::new(on_iteration);
    let (fitted, labels) = py.detach(|| {
        let holdout = dev.as_ref().map(|(d, _)| d);
        let fitted = guarded(|| checked.fit_with_holdout(&train, holdout, &mut [&mut callback]))?;
        let model = fitted.model();
        let labels = holdout
            .map(|d| score_holdout(model.n_labels(), d, |x| Ok(model.tag(x).0)))
            .transpose()?;
        Ok::<_, PyErr>((fitted, labels))
    })?;
    callback.finish()?;
    let dev_info = dev.map(|(_, c)| c).zip(labels.as_ref());
    crf_output(py, fitted, dev_info)
}

/// The observer of a fit that calls the Python `on_iteration(num, loss, seconds)` (when
/// given) after every iteration, with the GIL; after its first exception it is not
/// called again, and [`OnIteration::finish`] raises that exception.
struct OnIteration {
    callback: Option<Py<PyAny>>,
    error: Option<PyErr>,
}

impl OnIteration {
    fn new(callback: Option<Py<PyAny>>) -> Self {
        Self {
            callback,
            error: None,
        }
    }

    /// The exception of the callback, if it raised one.
    fn finish(self) -> PyResult<()> {
        self.error.map_or(Ok(()), Err)
    }
}

impl Observer for OnIteration {
    fn observe(&mut self, view: &IterationView<'_>) {
        if let (Some(cb), None) = (&self.callback, &self.error) {
            let seconds = view.elapsed.as_secs_f64();
            Python::attach(|py| {
                if let Err(e) = cb.call1(py, (view.iteration, view.objective, seconds)) {
                    self.error = Some(e);
                }
            });
        }
    }
}

/// What a CRF fit returns to Python (see [`FitOutput`]): the model, its log and the facts
/// of the fit, with the held-out counts `dev`.
fn crf_output<'py>(
    py: Python<'py>,
    fitted: FittedCrf,
    dev: Option<(Counts, &Holdout)>,
) -> PyResult<FitOutput<'py>> {
    let log = PyList::empty(py);
    for e in fitted.log() {
        log.append(log_entry(py, e)?)?;
    }
    let model = fitted.model();
    let info = fit_info(
        py,
        model.features().len(),
        fitted.report(),
        model.labels().names(),
        dev,
    )?;
    Ok((
        CrfModel {
            inner: Inner::Crf(fitted.into_model()),
        },
        log,
        info,
    ))
}

/// The workspace's bilinear learners offered beside CRFsuite's trainers.
const BILINEAR: [&str; 3] = ["bol", "bcd", "sp"];

/// Trains `online-bilinear`'s learner `algorithm` (`bol`, `bcd`, `sp`) on the same items:
/// attribute ids are its feature ids, a bias feature carries the label transitions, and
/// attribute values must be 0 or 1 (its features are binary). `max_iterations` (epochs),
/// `epsilon` (stop after an epoch in which at most this fraction of the sequences caused an
/// update) and the others of [`parameters_of`] (`c`, `averaging`, `zero_order`,
/// `transitions_only`) are read; any other parameter is a `ValueError`. The log has one
/// entry per epoch (`loss` is the epoch's token error rate); with held-out data, its
/// accuracy under the returned model is in the last entry.
fn fit_bilinear<'py>(
    py: Python<'py>,
    (x, y): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    dev: (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
    algorithm: &str,
    given: &Bound<'py, PyDict>,
    threads: Option<usize>,
) -> PyResult<FitOutput<'py>> {
    let known = parameters_of(algorithm);
    for key in given.keys() {
        let key: String = key.extract()?;
        if !common_of(algorithm).contains(&key.as_str()) && !known.contains(&key.as_str()) {
            return Err(PyValueError::new_err(format!(
                "parameter {key} does not apply to algorithm {algorithm:?} (it takes \
                 max_iterations and {}): leave it None",
                known.join(", ")
            )));
        }
    }
    let g = Given {
        dict: given.clone(),
    };
    let learner = BuiltIn::from_name(algorithm)
        .ok_or_else(|| PyValueError::new_err(format!("invalid algorithm {algorithm:?}")))?;
    let params = TaggerParams::builtin(learner).threads(threads).trace(true);
    let params = set_if_given(params, g.count("max_iterations")?, TaggerParams::max_iter);
    let params = set_if_given(params, g.float("epsilon")?, TaggerParams::tol);
    let params = set_if_given(params, g.float("c")?, TaggerParams::c);
    let params = set_if_given(params, g.flag("averaging")?, TaggerParams::averaging);
    let params = set_if_given(params, g.flag("zero_order")?, TaggerParams::zero_order);
    let params = set_if_given(
        params,
        g.flag("transitions_only")?,
        TaggerParams::transitions_only,
    );
    let checked = guarded(|| params.check())?;
    let (train, dev) = read_data((x, y), dev)?;
    let tagger = py.detach(|| guarded(|| checked.fit(&train)))?;
    let report = tagger.report().clone();
    let scored = dev
        .as_ref()
        .map(|(d, counts)| {
            let h = score_holdout(train.labels().len(), d, |x| {
                py.detach(|| guarded(|| tagger.tag_items(x)))
            })?;
            Ok::<_, PyErr>((*counts, h))
        })
        .transpose()?;
    let log = PyList::empty(py);
    let records = report.trace.records();
    for (k, r) in records.iter().enumerate() {
        let d = PyDict::new(py);
        d.set_item("num", r.iteration)?;
        d.set_item("loss", r.objective)?;
        d.set_item("time", r.elapsed_s)?;
        if let Some((_, v)) = r.extras.iter().find(|(n, _)| n == "token_errors") {
            d.set_item("errors", *v as usize)?;
        }
        if let (Some((_, h)), true) = (&scored, k + 1 == records.len()) {
            d.set_item("item_accuracy_float", h.item_accuracy)?;
            d.set_item("instance_accuracy_float", h.instance_accuracy)?;
        }
        log.append(d)?;
    }
    let dev_info = scored.as_ref().map(|(c, h)| (*c, h));
    let info = fit_info(
        py,
        tagger.n_features(),
        &report,
        train.labels().names(),
        dev_info,
    )?;
    let model = Inner::Bilinear {
        tagger: Box::new(tagger),
        attributes: train.attributes().clone(),
        labels: train.labels().clone(),
    };
    Ok((CrfModel { inner: model }, log, info))
}

/// The parameters `algorithm` takes (sklearn-crfsuite's names): those a fit of it accepts
/// when they are not `None` (for a name that is no algorithm: `min_freq`,
/// `all_possible_states`, `all_possible_transitions`, `max_iterations`).
#[pyfunction]
pub fn crfsuite_parameters(algorithm: &str) -> Vec<&'static str> {
    let own = parameters_of(algorithm);
    common_of(algorithm).iter().chain(own).copied().collect()
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
