//! Parameters (module docs of [`super`]): which parameters each algorithm takes, and a
//! fit's parameters read from sklearn-crfsuite's keyword names.

use chain_crf::{
    Algorithm, Arow, AveragedPerceptron, CrfParams, FeatureOptions, L2sgd, Lbfgs, LineSearch,
    PaType, PassiveAggressive,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::items::type_name;
use crate::errors::{choose, guarded};
use crate::keywords::set_if_given;

/// The parameters (sklearn-crfsuite's keyword names) each algorithm takes besides
/// [`COMMON`], as CRFsuite lists them; CRFsuite's trainers take all of [`COMMON`], the
/// bilinear learners only `max_iterations`.
pub(super) fn parameters_of(algorithm: &str) -> &'static [&'static str] {
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

/// The workspace's bilinear learners offered beside CRFsuite's trainers.
pub(super) const BILINEAR: [&str; 3] = ["bol", "bcd", "sp"];

/// The parameters `algorithm` takes besides [`parameters_of`]: all of [`COMMON`] for
/// CRFsuite's trainers (and for a name that is no algorithm), `max_iterations` alone for
/// the bilinear learners.
pub(super) fn common_of(algorithm: &str) -> &'static [&'static str] {
    if BILINEAR.contains(&algorithm) {
        &["max_iterations"]
    } else {
        &COMMON
    }
}

/// The parameters given to one fit, taken out one at a time with a typed getter.
pub(super) struct Given<'py> {
    pub(super) dict: Bound<'py, PyDict>,
}

impl<'py> Given<'py> {
    fn get(&self, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.dict.get_item(name)
    }

    pub(super) fn float(&self, name: &str) -> PyResult<Option<f64>> {
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

    pub(super) fn count(&self, name: &str) -> PyResult<Option<usize>> {
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

    pub(super) fn flag(&self, name: &str) -> PyResult<Option<bool>> {
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
pub(super) fn crf_params(
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
            return Err(PyValueError::new_err(format!(
                "parameter {key} does not apply to algorithm {algorithm:?} ({}): leave it None",
                takers(&key)
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

/// Every algorithm of `bilinear.crfsuite.CRF`: CRFsuite's trainers, then the bilinear
/// learners.
const ALGORITHMS: [&str; 8] = ["lbfgs", "l2sgd", "ap", "pa", "arow", "bol", "bcd", "sp"];

/// Which algorithms take the parameter `key` besides [`COMMON`], for the message of a
/// parameter given to an algorithm that does not take it: the list, and whether CRFsuite
/// refuses it too (a parameter of CRFsuite's other trainers) or it is not CRFsuite's at
/// all (a parameter of the bilinear learners alone).
fn takers(key: &str) -> String {
    let takers = algorithms_taking(key);
    if takers.is_empty() {
        "no algorithm takes it".to_owned()
    } else if takers.iter().all(|a| BILINEAR.contains(a)) {
        let verb = if takers.len() == 1 { "takes" } else { "take" };
        format!(
            "only {} {verb} it; it is not a parameter of CRFsuite's trainers",
            takers.join(", ")
        )
    } else {
        format!(
            "it applies to {}; CRFsuite refuses it too",
            takers.join(", ")
        )
    }
}

/// The algorithms of `CRF` that take parameter `key`, in [`ALGORITHMS`]' order.
pub(super) fn algorithms_taking(key: &str) -> Vec<&'static str> {
    ALGORITHMS
        .into_iter()
        .filter(|a| parameters_of(a).contains(&key))
        .collect()
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

/// The parameters `algorithm` takes (sklearn-crfsuite's names): those a fit of it accepts
/// when they are not `None` (for a name that is no algorithm: `min_freq`,
/// `all_possible_states`, `all_possible_transitions`, `max_iterations`).
#[pyfunction]
pub fn crfsuite_parameters(algorithm: &str) -> Vec<&'static str> {
    let own = parameters_of(algorithm);
    common_of(algorithm).iter().chain(own).copied().collect()
}
