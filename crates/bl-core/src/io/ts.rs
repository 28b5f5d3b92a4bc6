//! UCR/UEA time-series classification files (`.ts`, the sktime text format).
//!
//! A file has header lines starting with `@`, comment lines starting with `#`, then one
//! case per line after `@data`:
//!
//! ```text
//! # comment
//! @problemName Toy
//! @timeStamps false
//! @missing false
//! @univariate false
//! @dimensions 2
//! @equalLength true
//! @seriesLength 3
//! @classLabel true up down
//! @data
//! 1,2,3:4,5,6:up
//! 3,2,1:6,5,4:down
//! ```
//!
//! The dimensions of a case are separated by `:`, the values of a dimension by `,`, and
//! the class label comes last. Each case becomes an `s x t` sample of a [`MatrixDataset`]
//! with `s` = number of dimensions (rows) and `t` = series length (columns). Header tags
//! are case-insensitive; unknown tags are ignored. Class indices follow the order of the
//! `@classLabel` header when it lists names (so a TRAIN and a TEST file agree), else the
//! sorted distinct labels. Series of different lengths are handled by a [`LengthPolicy`].
//!
//! Not supported (typed errors): time stamps (`@timeStamps true`), regression targets,
//! files without class labels, and missing values (`?`, `NaN`), which give
//! [`BlError::MissingValue`].

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::data::MatrixDataset;
use crate::error::{BlError, Result, io_error};
use crate::io::text::{decode_utf8, lines};
use crate::limits::quote;

/// What to do when series differ in length (between cases or between the dimensions of
/// one case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LengthPolicy {
    /// Every series must have the same length (and match `@seriesLength` when the header
    /// gives it, unless it declares `@equalLength false`); otherwise an error names the
    /// line.
    #[default]
    Error,
    /// Keep the first `len` values of every series; a shorter series is an error.
    Truncate(usize),
    /// Resample every series (each dimension separately) onto `len` evenly spaced points
    /// by linear interpolation, keeping the first and last values (for `len = 1`, the
    /// value at the middle of the series). `len` is at most [`MAX_RESAMPLE_LENGTH`].
    Resample(usize),
}

/// Longest series [`LengthPolicy::Resample`] produces (2^20 points, 8 MiB per series).
///
/// Resampling is the one policy whose output can be larger than the file, so its length
/// is capped: the longest series of the UCR and UEA archives have under 20,000 points.
pub const MAX_RESAMPLE_LENGTH: usize = 1 << 20;

/// Reads a `.ts` file into a labelled data set.
///
/// # Errors
/// [`BlError::Io`] when the file cannot be read; [`BlError::Parse`] with the line of the
/// first byte that is not UTF-8; otherwise as [`parse_ts`], with the path in the error.
pub fn read_ts(path: impl AsRef<Path>, policy: LengthPolicy) -> Result<MatrixDataset> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    let text = decode_utf8(&bytes).map_err(|e| BlError::Parse {
        path: path.to_owned(),
        line: e.line,
        message: e.to_string(),
    })?;
    parse_ts_impl(text, policy, path)
}

/// Parses the text of a `.ts` file into a labelled data set. Errors name the path `<input>`.
///
/// Lines may end in `\n`, `\r\n` or a lone `\r`. The policy length is checked against the
/// file before the data set is allocated: a truncation length longer than a series, or a
/// resampling length over [`MAX_RESAMPLE_LENGTH`], is an error, not an allocation.
///
/// # Errors
/// - [`BlError::Parse`] with the 1-based line number for a malformed header or case line,
///   a non-numeric or infinite value, a wrong number of dimensions, a label not declared
///   in `@classLabel`, a length that breaks the policy, or a missing `@data` section;
/// - [`BlError::MissingValue`] for a `?` or `NaN` value;
/// - [`BlError::InvalidParameter`] when the policy length is 0, a resampling length is
///   over [`MAX_RESAMPLE_LENGTH`], or the data set would not fit in memory;
/// - [`BlError::Empty`] when there are no cases;
/// - [`BlError::TooFewClasses`] when fewer than two classes are declared or found.
pub fn parse_ts(text: &str, policy: LengthPolicy) -> Result<MatrixDataset> {
    parse_ts_impl(text, policy, Path::new("<input>"))
}

/// Header facts gathered before `@data`.
#[derive(Debug, Default)]
struct Header {
    dimensions: Option<usize>,
    univariate: Option<bool>,
    equal_length: Option<bool>,
    series_length: Option<usize>,
    /// `Some(names)` after `@classLabel true ...` (names possibly empty).
    class_names: Option<Vec<String>>,
}

/// One parsed case: its line, values per dimension and class label.
#[derive(Debug)]
struct Case<'a> {
    line: usize,
    series: Vec<Vec<f64>>,
    label: &'a str,
}

fn parse_ts_impl(text: &str, policy: LengthPolicy, path: &Path) -> Result<MatrixDataset> {
    match policy {
        LengthPolicy::Truncate(0) | LengthPolicy::Resample(0) => {
            return Err(BlError::InvalidParameter {
                name: "LengthPolicy length",
                value: "0".into(),
                expected: ">= 1".into(),
            });
        }
        LengthPolicy::Resample(len) if len > MAX_RESAMPLE_LENGTH => {
            return Err(BlError::InvalidParameter {
                name: "LengthPolicy::Resample length",
                value: len.to_string(),
                expected: "<= MAX_RESAMPLE_LENGTH (2^20)".into(),
            });
        }
        _ => {}
    }
    let err = |line: usize, message: String| BlError::Parse {
        path: PathBuf::from(path),
        line,
        message,
    };

    let mut header = Header::default();
    let mut in_data = false;
    let mut cases = Vec::new();
    let mut last_line = 0;
    for (index, raw) in lines(text).enumerate() {
        let line_no = index + 1;
        last_line = line_no;
        let line = raw.trim_start_matches('\u{feff}').trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('@') {
            if in_data {
                return Err(err(
                    line_no,
                    format!("header line {} after @data", quote(line)),
                ));
            }
            in_data = parse_header_line(line, line_no, &mut header, &err)?;
            continue;
        }
        if !in_data {
            return Err(err(
                line_no,
                "data line before the @data header line".to_string(),
            ));
        }
        cases.push(parse_case(line, line_no, &header, path, &err)?);
    }
    if !in_data {
        return Err(err(last_line.max(1), "no @data section".to_string()));
    }
    if cases.is_empty() {
        return Err(BlError::Empty {
            what: "cases of the .ts file",
        });
    }

    let dims = cases[0].series.len();
    // Checks every series against the policy, so under Error and Truncate the data set
    // is no larger than the values read; only Resample can grow it (up to its cap).
    let length = target_length(&cases, &header, policy, &err)?;
    let mut data = allocate(dims, length, cases.len())?;
    for case in &cases {
        for j in 0..length {
            for values in &case.series {
                data.push(match policy {
                    LengthPolicy::Resample(_) => resample_at(values, length, j),
                    _ => values[j],
                });
            }
        }
    }

    let declared = header.class_names.unwrap_or_default();
    if declared.is_empty() {
        let names: Vec<&str> = cases.iter().map(|c| c.label).collect();
        return MatrixDataset::from_label_names(dims, length, data, &names);
    }
    let index: HashMap<&str, usize> = declared
        .iter()
        .enumerate()
        .map(|(k, name)| (name.as_str(), k))
        .collect();
    let labels = cases
        .iter()
        .map(|c| {
            index.get(c.label).copied().ok_or_else(|| {
                err(
                    c.line,
                    format!(
                        "class label {} is not declared in @classLabel ({} classes: {})",
                        quote(c.label),
                        declared.len(),
                        quote(&declared.join(" "))
                    ),
                )
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    MatrixDataset::new(dims, length, data, labels, declared)
}

/// Interprets one `@` line; returns whether it was `@data`.
fn parse_header_line(
    line: &str,
    line_no: usize,
    header: &mut Header,
    err: &impl Fn(usize, String) -> BlError,
) -> Result<bool> {
    let mut tokens = line.split_whitespace();
    let tag = tokens.next().unwrap_or_default().to_ascii_lowercase();
    let mut value = || {
        tokens
            .next()
            .ok_or_else(|| err(line_no, format!("{} needs a value", quote(&tag))))
    };
    let parse_bool = |v: &str| match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(err(
            line_no,
            format!(
                "{} after {} is not `true` or `false`",
                quote(v),
                quote(&tag)
            ),
        )),
    };
    let parse_count = |v: &str| {
        v.parse::<usize>().ok().filter(|&c| c > 0).ok_or_else(|| {
            err(
                line_no,
                format!(
                    "{} after {} is not a positive integer",
                    quote(v),
                    quote(&tag)
                ),
            )
        })
    };
    let unsupported_if = |flag: bool, what: &str| {
        if flag {
            Err(err(line_no, format!("{what} are not supported")))
        } else {
            Ok(())
        }
    };
    match tag.as_str() {
        "@data" => {
            return match header.class_names {
                Some(_) => Ok(true),
                None => Err(err(
                    line_no,
                    "no class labels: a `@classLabel true ...` line must precede @data".to_string(),
                )),
            };
        }
        "@timestamps" => {
            unsupported_if(
                parse_bool(value()?)?,
                "time-stamped series (`@timeStamps true`)",
            )?;
        }
        "@targetlabel" => {
            unsupported_if(
                parse_bool(value()?)?,
                "regression targets (`@targetLabel true`)",
            )?;
        }
        "@missing" => {
            parse_bool(value()?)?;
        }
        "@univariate" => header.univariate = Some(parse_bool(value()?)?),
        "@dimension" | "@dimensions" => header.dimensions = Some(parse_count(value()?)?),
        "@equallength" => header.equal_length = Some(parse_bool(value()?)?),
        "@serieslength" => header.series_length = Some(parse_count(value()?)?),
        "@classlabel" => {
            if parse_bool(value()?)? {
                let names: Vec<String> = tokens.map(str::to_owned).collect();
                let mut seen = BTreeSet::new();
                if let Some(dup) = names.iter().find(|n| !seen.insert(n.as_str())) {
                    return Err(err(
                        line_no,
                        format!("class {} is listed twice in @classLabel", quote(dup)),
                    ));
                }
                header.class_names = Some(names);
            } else {
                header.class_names = None;
            }
        }
        _ => {} // @problemName and unknown tags carry nothing we need
    }
    Ok(false)
}

/// Parses `v,v,...:v,v,...:label`.
fn parse_case<'a>(
    line: &'a str,
    line_no: usize,
    header: &Header,
    path: &Path,
    err: &impl Fn(usize, String) -> BlError,
) -> Result<Case<'a>> {
    let parts: Vec<&str> = line.split(':').collect();
    let Some((label, dimensions)) = parts.split_last().filter(|(_, d)| !d.is_empty()) else {
        return Err(err(
            line_no,
            "expected dimensions separated by `:` followed by a class label".to_string(),
        ));
    };
    let label = label.trim();
    if label.is_empty() {
        return Err(err(line_no, "empty class label".to_string()));
    }
    let expected_dims = header
        .dimensions
        .or(header.univariate.and_then(|u| u.then_some(1)));
    if let Some(expected) = expected_dims
        && dimensions.len() != expected
    {
        return Err(err(
            line_no,
            format!(
                "{} dimensions where the header declares {expected}",
                dimensions.len()
            ),
        ));
    }
    let mut series = Vec::with_capacity(dimensions.len());
    for (d, dimension) in dimensions.iter().enumerate() {
        let mut values = Vec::new();
        for (j, token) in dimension.split(',').enumerate() {
            let token = token.trim();
            let location = || format!("dimension {}, value {}", d + 1, j + 1);
            if token.is_empty() {
                return Err(err(line_no, format!("{}: empty value", location())));
            }
            if token == "?" || token.eq_ignore_ascii_case("nan") {
                return Err(BlError::MissingValue {
                    path: path.to_owned(),
                    line: line_no,
                    location: location(),
                    token: token.to_owned(),
                });
            }
            let value: f64 = token.parse().map_err(|_| {
                err(
                    line_no,
                    format!("{}: {} is not a number", location(), quote(token)),
                )
            })?;
            if !value.is_finite() {
                return Err(err(
                    line_no,
                    format!("{}: {} is not finite", location(), quote(token)),
                ));
            }
            values.push(value);
        }
        series.push(values);
    }
    Ok(Case {
        line: line_no,
        series,
        label,
    })
}

/// The common series length under the policy; checks that all cases have the same number
/// of dimensions and, under [`LengthPolicy::Error`], the same length.
fn target_length(
    cases: &[Case<'_>],
    header: &Header,
    policy: LengthPolicy,
    err: &impl Fn(usize, String) -> BlError,
) -> Result<usize> {
    let dims = cases[0].series.len();
    if let Some(case) = cases.iter().find(|c| c.series.len() != dims) {
        return Err(err(
            case.line,
            format!(
                "{} dimensions where the first case (line {}) has {dims}",
                case.series.len(),
                cases[0].line
            ),
        ));
    }
    match policy {
        LengthPolicy::Truncate(len) => {
            for case in cases {
                if let Some((d, s)) = case.series.iter().enumerate().find(|(_, s)| s.len() < len) {
                    return Err(err(
                        case.line,
                        format!(
                            "dimension {} has {} values, fewer than the truncation length {len}",
                            d + 1,
                            s.len()
                        ),
                    ));
                }
            }
            Ok(len)
        }
        LengthPolicy::Resample(len) => Ok(len),
        LengthPolicy::Error => {
            let declared = header
                .series_length
                .filter(|_| header.equal_length != Some(false));
            let (length, source) = match declared {
                Some(len) => (len, "the @seriesLength header".to_string()),
                None => (
                    cases[0].series[0].len(),
                    format!("the first case (line {})", cases[0].line),
                ),
            };
            for case in cases {
                if let Some((d, s)) = case
                    .series
                    .iter()
                    .enumerate()
                    .find(|(_, s)| s.len() != length)
                {
                    return Err(err(
                        case.line,
                        format!(
                            "dimension {} has {} values but {source} gives length {length}; \
                             use LengthPolicy::Truncate or LengthPolicy::Resample for \
                             variable-length series",
                            d + 1,
                            s.len()
                        ),
                    ));
                }
            }
            Ok(length)
        }
    }
}

/// An empty buffer for `n` samples of `dims x length` values.
///
/// # Errors
/// [`BlError::InvalidParameter`] when the size overflows or the memory is refused.
fn allocate(dims: usize, length: usize, n: usize) -> Result<Vec<f64>> {
    let too_large = || BlError::InvalidParameter {
        name: "data set size",
        value: format!("{n} cases x {dims} dimensions x {length} values"),
        expected: "a data set that fits in memory".into(),
    };
    let len = dims
        .checked_mul(length)
        .and_then(|v| v.checked_mul(n))
        .filter(|&v| v <= isize::MAX as usize / 8)
        .ok_or_else(too_large)?;
    let mut data = Vec::new();
    data.try_reserve_exact(len).map_err(|_| too_large())?;
    Ok(data)
}

/// Point `k` of `length` of the linear interpolation of `values` (at positions `0..L`)
/// onto `length` evenly spaced points spanning `[0, L - 1]` (the middle point when
/// `length == 1`). `values` must not be empty.
fn resample_at(values: &[f64], length: usize, k: usize) -> f64 {
    let last = values.len() - 1;
    if last == 0 {
        return values[0];
    }
    let x = if length == 1 {
        last as f64 / 2.0
    } else {
        // k * last as f64 products: no integer overflow for any length
        k as f64 * last as f64 / (length - 1) as f64
    };
    let lo = (x.floor() as usize).min(last - 1);
    let frac = x - lo as f64;
    values[lo] * (1.0 - frac) + values[lo + 1] * frac
}
