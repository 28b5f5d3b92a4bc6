//! NumPy `.npy` arrays, read into `f64` in C (row-major) order; written from `f64`.
//!
//! Parsing of the format is left to the [`npyz`] crate. Supported element types: `f4`,
//! `f8`, every signed and unsigned integer width (`i1`..`i8`, `u1`..`u8`) and `b1`
//! (bool, read as 0/1), in either byte order, with C or Fortran axis order. Integers wider
//! than 53 bits are rounded to the nearest `f64`. Structured, string, object (pickled),
//! complex, half-precision and date/time arrays are rejected with [`BlError::Npy`].

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use npyz::{DType, Deserialize, NpyFile, NpyHeader, Order, TypeChar, WriteOptions, WriterBuilder};

use crate::error::{BlError, Result};

/// An n-dimensional array of `f64` in C (row-major) order.
///
/// Entry `(i_0, ..., i_{d-1})` is at `data[sum_k i_k * prod_{j > k} shape[j]]`, whatever
/// the order and element type of the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// Length of each axis; empty for a 0-dimensional (scalar) array.
    pub shape: Vec<usize>,
    /// The entries in C order; `data.len()` is the product of `shape`.
    pub data: Vec<f64>,
}

impl NpyArray {
    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of entries (the product of the shape).
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// `true` when the array has no entries (some axis has length 0).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// A 2-dimensional array as a faer matrix (`shape[0] x shape[1]`).
    ///
    /// # Errors
    /// [`BlError::ShapeMismatch`] when the array is not 2-dimensional or `data` does not
    /// hold `shape[0] * shape[1]` values.
    pub fn to_mat(&self) -> Result<faer::Mat<f64>> {
        match *self.shape.as_slice() {
            [rows, cols] if rows.checked_mul(cols) == Some(self.data.len()) => {
                Ok(faer::Mat::from_fn(rows, cols, |i, j| {
                    self.data[i * cols + j]
                }))
            }
            _ => Err(BlError::ShapeMismatch {
                context: "NpyArray::to_mat",
                expected: "a 2-dimensional array with shape[0] * shape[1] values".into(),
                found: format!("shape {:?} with {} values", self.shape, self.data.len()),
            }),
        }
    }
}

/// Reads a `.npy` file.
///
/// # Errors
/// [`BlError::Io`] when the file cannot be opened; [`BlError::Npy`] (naming the path) when
/// it is malformed, truncated or of an unsupported element type.
pub fn read_npy(path: impl AsRef<Path>) -> Result<NpyArray> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|source| BlError::Io {
        path: path.to_owned(),
        source,
    })?;
    read_npy_impl(BufReader::new(file), path)
}

/// Reads a `.npy` array from any reader (e.g. a decompressor or an in-memory buffer).
///
/// Errors name the path `<input>`.
///
/// # Errors
/// [`BlError::Npy`] when the stream is malformed, truncated or of an unsupported type.
pub fn read_npy_from<R: Read>(reader: R) -> Result<NpyArray> {
    read_npy_impl(reader, Path::new("<input>"))
}

/// Writes `data` (C order, `f64`) with the given shape to a `.npy` file (`<f8`, C order).
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the product of `shape` is not `data.len()`;
/// [`BlError::Io`] when the file cannot be written.
pub fn write_npy(path: impl AsRef<Path>, shape: &[usize], data: &[f64]) -> Result<()> {
    let path = path.as_ref();
    let io_err = |source| BlError::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::create(path).map_err(io_err)?;
    let mut writer = BufWriter::new(file);
    write_npy_to(&mut writer, shape, data).map_err(|e| match e {
        BlError::Io { source, .. } => io_err(source),
        other => other,
    })?;
    writer.flush().map_err(io_err)
}

/// Writes `data` (C order, `f64`) with the given shape as `.npy` bytes to `writer`.
///
/// Errors name the path `<output>`.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the product of `shape` is not `data.len()`;
/// [`BlError::Io`] when writing fails.
pub fn write_npy_to<W: Write>(writer: W, shape: &[usize], data: &[f64]) -> Result<()> {
    let expected = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&len| len == data.len());
    if expected.is_none() {
        return Err(BlError::ShapeMismatch {
            context: "write_npy",
            expected: format!("{} values for shape {shape:?}", product_text(shape)),
            found: format!("{} values", data.len()),
        });
    }
    let io_err = |source| BlError::Io {
        path: PathBuf::from("<output>"),
        source,
    };
    let shape_u64: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut npy = WriteOptions::<f64>::new()
        .default_dtype()
        .shape(&shape_u64)
        .writer(writer)
        .begin_nd()
        .map_err(io_err)?;
    npy.extend(data.iter().copied()).map_err(io_err)?;
    npy.finish().map_err(io_err)
}

/// The product of a shape as text, saturating instead of overflowing.
fn product_text(shape: &[usize]) -> String {
    match shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)) {
        Some(p) => p.to_string(),
        None => "too many".into(),
    }
}

fn npy_error(path: &Path, message: impl Into<String>) -> BlError {
    BlError::Npy {
        path: path.to_owned(),
        message: message.into(),
    }
}

fn read_npy_impl<R: Read>(mut reader: R, path: &Path) -> Result<NpyArray> {
    let header = NpyHeader::from_reader(&mut reader)
        .map_err(|e| npy_error(path, format!("invalid .npy header: {e}")))?;
    let shape: Vec<usize> = header
        .shape()
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| npy_error(path, "shape does not fit in memory"))?;
    let DType::Plain(type_str) = header.dtype() else {
        return Err(npy_error(
            path,
            format!(
                "unsupported dtype {}: only plain numeric arrays are supported",
                header.dtype().descr()
            ),
        ));
    };
    let unsupported = || {
        npy_error(
            path,
            format!("unsupported dtype '{type_str}': expected a float, integer or bool type"),
        )
    };
    let item_size = match (type_str.type_char(), type_str.size_field()) {
        (TypeChar::Float, 4 | 8)
        | (TypeChar::Int | TypeChar::Uint, 1 | 2 | 4 | 8)
        | (TypeChar::Bool, 1) => type_str.size_field() as usize,
        _ => return Err(unsupported()),
    };

    // Read the payload first and check its length, so a corrupt header cannot make us
    // allocate for data that is not there.
    let n_items = usize::try_from(header.len())
        .map_err(|_| npy_error(path, "array too large for this platform"))?;
    let n_bytes = n_items
        .checked_mul(item_size)
        .ok_or_else(|| npy_error(path, "array too large for this platform"))?;
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| npy_error(path, format!("cannot read the data: {e}")))?;
    if bytes.len() != n_bytes {
        return Err(npy_error(
            path,
            format!(
                "shape {:?} of '{type_str}' needs {n_bytes} data bytes, found {}",
                shape,
                bytes.len()
            ),
        ));
    }

    let order = header.order();
    let file = NpyFile::with_header(header, bytes.as_slice());
    let stored = match (type_str.type_char(), item_size) {
        (TypeChar::Float, 4) => convert::<f32>(file, f64::from),
        (TypeChar::Float, _) => convert::<f64>(file, |v| v),
        (TypeChar::Int, 1) => convert::<i8>(file, f64::from),
        (TypeChar::Int, 2) => convert::<i16>(file, f64::from),
        (TypeChar::Int, 4) => convert::<i32>(file, f64::from),
        (TypeChar::Int, _) => convert::<i64>(file, |v| v as f64),
        (TypeChar::Uint, 1) => convert::<u8>(file, f64::from),
        (TypeChar::Uint, 2) => convert::<u16>(file, f64::from),
        (TypeChar::Uint, 4) => convert::<u32>(file, f64::from),
        (TypeChar::Uint, _) => convert::<u64>(file, |v| v as f64),
        _ => convert::<bool>(file, |v| if v { 1.0 } else { 0.0 }),
    }
    .map_err(|e| npy_error(path, format!("cannot decode the data: {e}")))?;

    let data = match order {
        Order::C => stored,
        Order::Fortran => fortran_to_c(&shape, &stored),
    };
    Ok(NpyArray { shape, data })
}

fn convert<T: Deserialize>(
    file: NpyFile<&[u8]>,
    to_f64: impl Fn(T) -> f64,
) -> std::io::Result<Vec<f64>> {
    let reader = file
        .data::<T>()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    reader.map(|v| v.map(&to_f64)).collect()
}

/// Reorders column-major (first axis fastest) data of `shape` into row-major order.
fn fortran_to_c(shape: &[usize], stored: &[f64]) -> Vec<f64> {
    let d = shape.len();
    if d < 2 || stored.is_empty() {
        return stored.to_vec();
    }
    // Fortran strides: axis k moves by prod_{j < k} shape[j].
    let mut strides = vec![1usize; d];
    for k in 1..d {
        strides[k] = strides[k - 1] * shape[k - 1];
    }
    let mut out = Vec::with_capacity(stored.len());
    let mut index = vec![0usize; d];
    let mut offset = 0usize;
    for _ in 0..stored.len() {
        out.push(stored[offset]);
        // Advance the C-order multi-index (last axis fastest), keeping `offset` in step.
        for k in (0..d).rev() {
            index[k] += 1;
            offset += strides[k];
            if index[k] < shape[k] {
                break;
            }
            offset -= strides[k] * shape[k];
            index[k] = 0;
        }
    }
    out
}
