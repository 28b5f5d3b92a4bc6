//! Numeric delimited text (CSV, TSV, ...) read into a dense row-major table.
//!
//! Tokenizing is left to the `csv` crate; this module adds the numeric checks:
//! every row has the same number of fields, every field is a number, and (unless allowed)
//! every number is finite. Errors name the 1-based line and the field. Empty lines are
//! skipped (a line of only spaces or tabs is a record of one empty field, an error);
//! fields are trimmed of surrounding whitespace. To read a compressed file, wrap
//! a decompressor and call [`read_csv_from`].

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::error::{BlError, Result, io_error};
use crate::limits::quote;

/// How to read a numeric delimited file.
///
/// | field | default | meaning |
/// |---|---|---|
/// | `delimiter` | `b','` | field separator byte (`b'\t'` for TSV, `b';'`, ...) |
/// | `has_header` | `false` | the first record holds column names |
/// | `comment` | `None` | lines starting with this byte are skipped (e.g. `Some(b'#')`) |
/// | `allow_non_finite` | `false` | accept `nan`, `inf`, `-inf` fields |
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// Field separator.
    pub delimiter: u8,
    /// Whether the first record is a header of column names.
    pub has_header: bool,
    /// Lines starting with this byte are comments and are skipped.
    pub comment: Option<u8>,
    /// Whether `nan`/`inf` fields are accepted; by default they are an error.
    pub allow_non_finite: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            delimiter: b',',
            has_header: false,
            comment: None,
            allow_non_finite: false,
        }
    }
}

/// A dense table of numbers read from a delimited file, stored row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct NumericTable {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
    header: Option<Vec<String>>,
}

impl NumericTable {
    /// Number of data rows (the header does not count).
    pub fn n_rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.cols
    }

    /// All values row after row: entry `(i, j)` is `data()[i * n_cols() + j]`.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// Column names, when the file was read with a header.
    pub fn header(&self) -> Option<&[String]> {
        self.header.as_deref()
    }

    /// Row `i`, or `None` when out of range.
    pub fn row(&self, i: usize) -> Option<&[f64]> {
        let start = i.checked_mul(self.cols)?;
        self.data.get(start..start.checked_add(self.cols)?)
    }

    /// A copy of column `j`, or `None` when out of range.
    pub fn column(&self, j: usize) -> Option<Vec<f64>> {
        (j < self.cols).then(|| {
            self.data
                .iter()
                .skip(j)
                .step_by(self.cols)
                .copied()
                .collect()
        })
    }

    /// The table as an `n_rows x n_cols` faer matrix.
    pub fn to_mat(&self) -> faer::Mat<f64> {
        faer::Mat::from_fn(self.rows, self.cols, |i, j| self.data[i * self.cols + j])
    }

    /// Takes the table apart into `(rows, cols, row-major data, header)`.
    pub fn into_parts(self) -> (usize, usize, Vec<f64>, Option<Vec<String>>) {
        (self.rows, self.cols, self.data, self.header)
    }
}

/// Reads a numeric delimited file.
///
/// # Errors
/// [`BlError::Io`] when the file cannot be opened; otherwise as [`read_csv_from`], with
/// the path in the message.
pub fn read_csv(path: impl AsRef<Path>, options: &CsvOptions) -> Result<NumericTable> {
    let path = path.as_ref();
    let file = File::open(path).map_err(io_error(path))?;
    read_csv_impl(BufReader::new(file), options, path)
}

/// Reads numeric delimited text from any reader (a file, a gzip decoder, a byte slice).
///
/// Errors name the path `<input>`.
///
/// # Errors
/// - [`BlError::Parse`] with the 1-based line number (blank and comment lines counted;
///   lines end at `\n`, `\r\n` or a lone `\r`)
///   when a row has a different number of fields than the first, a field is empty or not
///   a number, a field is `nan`/`inf` (unless [`CsvOptions::allow_non_finite`]), or the
///   text is not UTF-8; the message names the field's number (its column) and quotes at
///   most [`QUOTE_CHARS`](crate::limits::QUOTE_CHARS) characters of it;
/// - [`BlError::Io`] when reading from `reader` fails;
/// - [`BlError::Empty`] when there is no data row.
pub fn read_csv_from<R: Read>(reader: R, options: &CsvOptions) -> Result<NumericTable> {
    read_csv_impl(reader, options, Path::new("<input>"))
}

fn read_csv_impl<R: Read>(
    mut reader: R,
    options: &CsvOptions,
    path: &Path,
) -> Result<NumericTable> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(io_error(path))?;
    let parse_error = |line: usize, message: String| BlError::Parse {
        path: PathBuf::from(path),
        line,
        message,
    };
    let mut csv_reader = ::csv::ReaderBuilder::new()
        .delimiter(options.delimiter)
        .has_headers(false)
        .flexible(true)
        .trim(::csv::Trim::All)
        .comment(options.comment)
        .from_reader(bytes.as_slice());
    // The csv crate's record positions do not count the blank and comment lines skipped
    // before a record, so the physical line is recomputed from the byte offset.
    let mut lines = LineCounter::new(&bytes);

    let mut record = ::csv::StringRecord::new();
    let mut header = None;
    let mut cols = None;
    let mut rows = 0;
    let mut data = Vec::new();
    let mut first = true;
    loop {
        let read = csv_reader.read_record(&mut record);
        let line = lines.line_of_record_ending_at(csv_reader.position().byte());
        match read {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(parse_error(line, format!("cannot read the record: {e}"))),
        }
        let n_fields = record.len();
        match cols {
            None => cols = Some(n_fields),
            Some(c) if c != n_fields => {
                return Err(parse_error(
                    line,
                    format!("{n_fields} fields where earlier rows have {c}"),
                ));
            }
            Some(_) => {}
        }
        if first && options.has_header {
            header = Some(record.iter().map(str::to_owned).collect());
            first = false;
            continue;
        }
        first = false;
        for (j, field) in record.iter().enumerate() {
            // The message gives the position (the line, and the column as the field's
            // number) and quotes a bounded prefix of the field, which may be megabytes long.
            let value = parse_field(field).map_err(|why| {
                parse_error(line, format!("field {} ({}) {why}", j + 1, quote(field)))
            })?;
            if !value.is_finite() && !options.allow_non_finite {
                return Err(parse_error(
                    line,
                    format!(
                        "field {} ({}) is not finite (set allow_non_finite to accept it)",
                        j + 1,
                        quote(field)
                    ),
                ));
            }
            data.push(value);
        }
        rows += 1;
    }
    if rows == 0 {
        return Err(BlError::Empty {
            what: "numeric table (no data rows)",
        });
    }
    Ok(NumericTable {
        rows,
        cols: cols.unwrap_or_default(),
        data,
        header,
    })
}

/// Physical 1-based line numbers from byte offsets, scanning the input once. Lines end
/// at `\n`, `\r\n` or a lone `\r`.
struct LineCounter<'a> {
    bytes: &'a [u8],
    scanned: usize,
    newlines: usize,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            scanned: 0,
            newlines: 0,
        }
    }

    /// Line of the last byte of a record whose terminator (if any) ends just before byte
    /// offset `end`. Offsets must not decrease between calls.
    fn line_of_record_ending_at(&mut self, end: u64) -> usize {
        let end = usize::try_from(end).unwrap_or(usize::MAX);
        let stop = end
            .saturating_sub(1)
            .min(self.bytes.len())
            .max(self.scanned);
        // A line ends at `\n`, at `\r\n` (counted at its `\n`) or at a lone `\r`, as
        // in the csv crate's default terminator.
        let bytes = self.bytes;
        self.newlines += (self.scanned..stop)
            .filter(|&i| match bytes[i] {
                b'\n' => true,
                b'\r' => bytes.get(i + 1) != Some(&b'\n'),
                _ => false,
            })
            .count();
        self.scanned = stop;
        self.newlines + 1
    }
}

/// Parses one trimmed field as a number; the error says why it is not one.
fn parse_field(field: &str) -> std::result::Result<f64, &'static str> {
    if field.is_empty() {
        return Err("is empty");
    }
    field.parse::<f64>().map_err(|_| "is not a number")
}
