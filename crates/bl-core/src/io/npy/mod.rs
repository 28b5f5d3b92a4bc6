//! NumPy `.npy` arrays, read into `f64` in C (row-major) order; written from `f64`.
//! [`read_npy_native`] keeps `f4` files in `f32` (half the memory, no conversion) and
//! reads every other type as [`read_npy`] does.
//!
//! Supported element types: `f4`, `f8`, every signed and unsigned integer width
//! (`i1`..`i8`, `u1`..`u8`) and `b1` (bool, read as 0/1), in either byte order, with C or
//! Fortran axis order, in format versions 1.0, 2.0 and 3.0. Integers wider than 53 bits
//! are rounded to the nearest `f64`. Structured, string, object (pickled), complex,
//! half-precision and date/time arrays are rejected with [`BlError::Npy`].
//!
//! # Hostile files
//!
//! The reader is written for untrusted input (see `docs/reliability.md`):
//!
//! - The header (a Python dict literal with the keys `descr`, `fortran_order` and
//!   `shape`) is parsed by a small tokenizer of this module in one pass, with nesting
//!   limited to [`MAX_NESTING`] levels, so its time is linear in the header length.
//! - A header longer than [`MAX_HEADER_LEN`] bytes is refused before it is read (numpy's
//!   own reader refuses headers over 10000 bytes by default, its `max_header_size`).
//! - A shape may have at most [`MAX_NDIM`] axes, and the product of its non-zero axes
//!   times the item size (and times 8, the size of the `f64` result) must fit in `isize`
//!   (numpy's own "array is too big" rule), so no size computation can overflow.
//! - Exactly the bytes the header announces are read: [`read_npy`] compares them with the
//!   file size (of a regular file; other files are read as streams) before reading any;
//!   [`read_npy_from`] reads them in chunks, growing its buffer only as data arrive, then
//!   reads one byte more to reject trailing data.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

mod literal;
mod slab;

pub use slab::{ItemOrder, NpyFile, STAGING_BYTES, SlabElement};

use crate::error::{BlError, Result, io_error};
use crate::limits::quote;

/// Longest header (the dict text after the length field) the reader accepts, in bytes.
pub const MAX_HEADER_LEN: usize = 10_000;
/// Most axes a shape may have (numpy 2's limit).
pub const MAX_NDIM: usize = 64;
/// Deepest nesting of brackets accepted in a header.
pub const MAX_NESTING: usize = 8;

/// Longest axis of an empty array that [`NpyArray::to_mat`] turns into a matrix.
pub const MAX_EMPTY_AXIS: usize = 1 << 20;

/// Bytes decoded per read of the data section.
const CHUNK: usize = 64 * 1024;

/// An n-dimensional array of `f64` (or `f32`, from [`read_npy_native`]) in C
/// (row-major) order.
///
/// Entry `(i_0, ..., i_{d-1})` is at `data[sum_k i_k * prod_{j > k} shape[j]]`, whatever
/// the order and element type of the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray<T = f64> {
    /// Length of each axis; empty for a 0-dimensional (scalar) array.
    pub shape: Vec<usize>,
    /// The entries in C order; `data.len()` is the product of `shape`.
    pub data: Vec<T>,
}

/// A `.npy` array in the precision of its file: `f4` files stay `f32`, every other
/// supported type is read as `f64` (see [`read_npy_native`]).
#[derive(Debug, Clone, PartialEq)]
pub enum NativeNpyArray {
    /// An `f4` file, entries unchanged.
    F32(NpyArray<f32>),
    /// Any other supported type, converted as by [`read_npy`].
    F64(NpyArray<f64>),
}

impl NativeNpyArray {
    /// The shape of the array.
    pub fn shape(&self) -> &[usize] {
        match self {
            Self::F32(a) => &a.shape,
            Self::F64(a) => &a.shape,
        }
    }
}

impl<T> NpyArray<T> {
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
}

impl NpyArray {
    /// A 2-dimensional array as a faer matrix (`shape[0] x shape[1]`).
    ///
    /// # Errors
    /// [`BlError::ShapeMismatch`] when the array is not 2-dimensional, `data` does not
    /// hold `shape[0] * shape[1]` values, or the array is empty with an axis longer than
    /// [`MAX_EMPTY_AXIS`].
    pub fn to_mat(&self) -> Result<faer::Mat<f64>> {
        match *self.shape.as_slice() {
            // faer walks every column even of a matrix with no rows, so an empty array
            // with a huge axis (numpy allows `(0, 2**59)`) would take forever.
            [rows, cols] if self.data.is_empty() && rows.max(cols) > MAX_EMPTY_AXIS => {
                Err(BlError::ShapeMismatch {
                    context: "NpyArray::to_mat",
                    expected: format!(
                        "an empty array with axes of at most {MAX_EMPTY_AXIS} entries"
                    ),
                    found: format!("shape {:?}", self.shape),
                })
            }
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
/// The file size is checked against the header before any data are read (when the path
/// is a regular file; anything else is read as [`read_npy_from`] reads a stream).
///
/// # Errors
/// [`BlError::Io`] when the file cannot be opened; [`BlError::Npy`] (naming the path) when
/// it is malformed, truncated, longer than its header announces or of an unsupported
/// element type, or when a read fails after it was opened.
pub fn read_npy(path: impl AsRef<Path>) -> Result<NpyArray> {
    let path = path.as_ref();
    let (file, file_len) = open_npy(path)?;
    read_npy_impl(BufReader::new(file), path, file_len)
}

/// The file and its size when it is a regular file.
fn open_npy(path: &Path) -> Result<(File, Option<u64>)> {
    let file = File::open(path).map_err(io_error(path))?;
    let file_len = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    Ok((file, file_len))
}

/// Reads a `.npy` file keeping its precision: an `f4` file gives
/// [`NativeNpyArray::F32`] with the stored values (no conversion, half the memory of
/// [`read_npy`]); any other type gives [`NativeNpyArray::F64`] as [`read_npy`] reads it.
/// The same checks on hostile files apply.
///
/// # Errors
/// As [`read_npy`].
pub fn read_npy_native(path: impl AsRef<Path>) -> Result<NativeNpyArray> {
    let path = path.as_ref();
    let (file, file_len) = open_npy(path)?;
    read_native_impl(BufReader::new(file), path, file_len)
}

/// [`read_npy_native`] from any reader; errors name the path `<input>`.
///
/// # Errors
/// As [`read_npy_from`].
pub fn read_npy_native_from<R: Read>(reader: R) -> Result<NativeNpyArray> {
    read_native_impl(reader, Path::new("<input>"), None)
}

/// Reads a `.npy` array from any reader (e.g. a decompressor or an in-memory buffer).
///
/// Reads the header, exactly the data bytes it announces, and one byte more (to reject
/// trailing data); never reads to the end of an arbitrary stream. Errors name the path
/// `<input>`.
///
/// # Errors
/// [`BlError::Npy`] when the stream is malformed, truncated, has bytes after the data or
/// is of an unsupported type, or when reading from it fails.
pub fn read_npy_from<R: Read>(reader: R) -> Result<NpyArray> {
    read_npy_impl(reader, Path::new("<input>"), None)
}

/// Writes `data` (C order, `f64`) with the given shape to a `.npy` file (`<f8`, C order).
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the product of `shape` is not `data.len()`;
/// [`BlError::InvalidParameter`] when `shape` has more than [`MAX_NDIM`] axes;
/// [`BlError::Io`] when the file cannot be written.
pub fn write_npy(path: impl AsRef<Path>, shape: &[usize], data: &[f64]) -> Result<()> {
    let path = path.as_ref();
    let io_err = io_error(path);
    let header = npy_header_bytes(shape, data)?;
    let file = File::create(path).map_err(io_err)?;
    let mut writer = BufWriter::new(file);
    write_payload(&mut writer, &header, data).map_err(io_err)?;
    writer.flush().map_err(io_err)
}

/// Writes `data` (C order, `f64`) with the given shape as `.npy` bytes to `writer`.
///
/// Errors name the path `<output>`.
///
/// # Errors
/// [`BlError::ShapeMismatch`] when the product of `shape` is not `data.len()`;
/// [`BlError::InvalidParameter`] when `shape` has more than [`MAX_NDIM`] axes;
/// [`BlError::Io`] when writing fails.
pub fn write_npy_to<W: Write>(mut writer: W, shape: &[usize], data: &[f64]) -> Result<()> {
    let header = npy_header_bytes(shape, data)?;
    write_payload(&mut writer, &header, data).map_err(io_error(Path::new("<output>")))
}

/// The magic string, version, header length and header of a `<f8` C-order array, after
/// checking that `shape` describes `data`.
fn npy_header_bytes(shape: &[usize], data: &[f64]) -> Result<Vec<u8>> {
    if shape.len() > MAX_NDIM {
        return Err(BlError::InvalidParameter {
            name: "shape",
            value: format!("{} axes", shape.len()),
            expected: "at most 64 axes (numpy's limit)".into(),
        });
    }
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
    // Python's repr of a tuple: `()`, `(3,)`, `(2, 3)`.
    let shape_text = match shape {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Pad with spaces and end with a newline so the data start at a multiple of 64 bytes.
    // With at most 64 axes of at most 20 digits the dict is far below the 65535 bytes of
    // a version 1.0 header.
    let unpadded = 6 + 2 + 2 + dict.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let header_len = dict.len() + padding + 1;
    let mut bytes = Vec::with_capacity(unpadded + padding);
    bytes.extend_from_slice(b"\x93NUMPY\x01\x00");
    bytes.extend_from_slice(&(header_len as u16).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.resize(bytes.len() + padding, b' ');
    bytes.push(b'\n');
    Ok(bytes)
}

fn write_payload<W: Write>(writer: &mut W, header: &[u8], data: &[f64]) -> std::io::Result<()> {
    writer.write_all(header)?;
    let mut buf = Vec::with_capacity(CHUNK);
    for chunk in data.chunks(CHUNK / 8) {
        buf.clear();
        for v in chunk {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        writer.write_all(&buf)?;
    }
    Ok(())
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

/// The element types the reader decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Float,
    Int,
    Uint,
    Bool,
}

/// A parsed `descr`: kind, item size and byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dtype {
    kind: Kind,
    size: usize,
    big_endian: bool,
}

/// What the header says.
#[derive(Debug)]
struct Header {
    dtype: Dtype,
    fortran: bool,
    shape: Vec<usize>,
    /// Product of the shape.
    len: usize,
    /// `len * dtype.size`.
    n_bytes: usize,
    /// Bytes before the data (magic string, version, length field and header).
    offset: u64,
}

fn read_npy_impl<R: Read>(mut reader: R, path: &Path, file_len: Option<u64>) -> Result<NpyArray> {
    let header = read_checked_header(&mut reader, path, file_len)?;
    read_array(&mut reader, header, path, decode)
}

fn read_native_impl<R: Read>(
    mut reader: R,
    path: &Path,
    file_len: Option<u64>,
) -> Result<NativeNpyArray> {
    let header = read_checked_header(&mut reader, path, file_len)?;
    if header.dtype.kind == Kind::Float && header.dtype.size == 4 {
        let big_endian = header.dtype.big_endian;
        read_array(
            &mut reader,
            header,
            path,
            |bytes, _, _, _, out: &mut Vec<f32>| {
                out.extend(bytes.chunks_exact(4).map(|c| {
                    let a = [c[0], c[1], c[2], c[3]];
                    if big_endian {
                        f32::from_be_bytes(a)
                    } else {
                        f32::from_le_bytes(a)
                    }
                }));
            },
        )
        .map(NativeNpyArray::F32)
    } else {
        read_array(&mut reader, header, path, decode).map(NativeNpyArray::F64)
    }
}

/// The header, checked against the file size when it is known.
fn read_checked_header<R: Read>(
    reader: &mut R,
    path: &Path,
    file_len: Option<u64>,
) -> Result<Header> {
    let header = read_header(reader).map_err(|m| npy_error(path, m))?;
    if let Some(file_len) = file_len {
        let data_len = file_len.saturating_sub(header.offset);
        if data_len != header.n_bytes as u64 {
            return Err(npy_error(
                path,
                format!(
                    "shape {:?} of {} needs {} data bytes, the file has {data_len} after \
                     its header",
                    header.shape,
                    describe(header.dtype),
                    header.n_bytes
                ),
            ));
        }
    }
    Ok(header)
}

/// The data section decoded by `decode`, in C order.
fn read_array<R: Read, T: Copy>(
    reader: &mut R,
    header: Header,
    path: &Path,
    decode: impl Fn(&[u8], Kind, usize, bool, &mut Vec<T>),
) -> Result<NpyArray<T>> {
    let stored = read_data(reader, &header, decode).map_err(|m| npy_error(path, m))?;
    let data = if header.fortran {
        fortran_to_c(&header.shape, &stored)
    } else {
        stored
    };
    Ok(NpyArray {
        shape: header.shape,
        data,
    })
}

/// `'<f8'`-style text of a dtype, for messages.
fn describe(dtype: Dtype) -> String {
    let kind = match dtype.kind {
        Kind::Float => 'f',
        Kind::Int => 'i',
        Kind::Uint => 'u',
        Kind::Bool => 'b',
    };
    let order = if dtype.size == 1 {
        '|'
    } else if dtype.big_endian {
        '>'
    } else {
        '<'
    };
    format!("'{order}{kind}{}'", dtype.size)
}

/// Reads exactly `buf.len()` bytes; `what` names them in the error.
fn read_exact(reader: &mut impl Read, buf: &mut [u8], what: &str) -> Result<(), String> {
    reader.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => format!("truncated file: it ends inside the {what}"),
        _ => format!("cannot read the {what}: {e}"),
    })
}

fn read_header(reader: &mut impl Read) -> Result<Header, String> {
    let mut magic = [0u8; 8];
    read_exact(reader, &mut magic, "magic string")?;
    if &magic[..6] != b"\x93NUMPY" {
        return Err("not a .npy file: the magic string \\x93NUMPY is missing".into());
    }
    let (major, minor) = (magic[6], magic[7]);
    let header_len = match major {
        1 => {
            let mut len = [0u8; 2];
            read_exact(reader, &mut len, "header length")?;
            usize::from(u16::from_le_bytes(len))
        }
        2 | 3 => {
            let mut len = [0u8; 4];
            read_exact(reader, &mut len, "header length")?;
            usize::try_from(u32::from_le_bytes(len)).unwrap_or(usize::MAX)
        }
        _ => {
            return Err(format!(
                "unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are read)"
            ));
        }
    };
    if header_len > MAX_HEADER_LEN {
        return Err(format!(
            "header of {header_len} bytes is longer than the {MAX_HEADER_LEN} bytes accepted"
        ));
    }
    let mut text = vec![0u8; header_len];
    read_exact(reader, &mut text, "header")?;
    // Versions 1 and 2 are latin-1 (every byte is a character); version 3 is UTF-8. The
    // literal itself is ASCII in both, so a UTF-8 check is only needed for version 3.
    if major == 3 && std::str::from_utf8(&text).is_err() {
        return Err("the header of a version 3.0 file is not valid UTF-8".into());
    }
    let offset = (if major == 1 { 10 } else { 12 }) + header_len as u64;
    let dict = literal::parse(&text).map_err(|e| format!("invalid .npy header: {e}"))?;
    let mut header = interpret(dict)?;
    header.offset = offset;
    Ok(header)
}

/// Checks the three keys of the header dict and the size of the array.
fn interpret(dict: literal::Value) -> Result<Header, String> {
    use literal::Value;
    let Value::Dict(entries) = dict else {
        return Err("invalid .npy header: it is not a dict".into());
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (key, value) in entries {
        let Value::Str(key) = key else {
            return Err("invalid .npy header: a key is not a string".into());
        };
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            other => {
                return Err(format!(
                    "invalid .npy header: unexpected key {} (expected descr, fortran_order \
                     and shape)",
                    quote(other)
                ));
            }
        };
        if slot.replace(value).is_some() {
            return Err(format!("invalid .npy header: key '{key}' appears twice"));
        }
    }
    let missing = |key: &str| format!("invalid .npy header: key '{key}' is missing");
    let descr = descr.ok_or_else(|| missing("descr"))?;
    let fortran = match fortran.ok_or_else(|| missing("fortran_order"))? {
        Value::Bool(b) => b,
        _ => return Err("invalid .npy header: fortran_order is not True or False".into()),
    };
    let Value::Tuple(axes) = shape.ok_or_else(|| missing("shape"))? else {
        return Err("invalid .npy header: shape is not a tuple".into());
    };
    let dtype = match descr {
        Value::Str(s) => parse_descr(&s)?,
        Value::List(_) | Value::Tuple(_) => {
            return Err(
                "unsupported dtype: structured arrays are not supported, only plain numeric \
                 arrays"
                    .into(),
            );
        }
        _ => return Err("invalid .npy header: descr is not a string".into()),
    };
    if axes.len() > MAX_NDIM {
        return Err(format!(
            "shape has {} axes; at most {MAX_NDIM} are accepted",
            axes.len()
        ));
    }
    let mut dims = Vec::with_capacity(axes.len());
    for axis in axes {
        match axis {
            Value::Int(d) => dims
                .push(usize::try_from(d).map_err(|_| {
                    format!("shape entry {d} is not a length (0 <= length < 2^64)")
                })?),
            Value::BigInt => {
                return Err("shape entry too large: it does not fit in 64 bits".into());
            }
            _ => return Err("invalid .npy header: a shape entry is not an integer".into()),
        }
    }
    // numpy's rule: the product of the non-zero axes times the item size must fit in a
    // signed size, even when some axis is 0. Times 8 too: the result is f64.
    let limit = isize::MAX as u128;
    let mut nonzero: u128 = 1;
    for &d in &dims {
        if d > 0 {
            nonzero = nonzero.saturating_mul(d as u128);
        }
    }
    let stored = nonzero.saturating_mul(dtype.size as u128);
    let decoded = nonzero.saturating_mul(8);
    if stored > limit || decoded > limit {
        return Err(format!(
            "shape {dims:?} of {} is too large for this platform",
            describe(dtype)
        ));
    }
    let len = if dims.contains(&0) {
        0
    } else {
        nonzero as usize
    };
    Ok(Header {
        dtype,
        fortran,
        shape: dims,
        len,
        n_bytes: len * dtype.size,
        offset: 0,
    })
}

/// Parses a type string such as `'<f8'`, `'|u1'`, `'>i2'`, `'b1'`.
fn parse_descr(descr: &str) -> Result<Dtype, String> {
    let unsupported = || {
        format!(
            "unsupported dtype {}: expected a float, integer or bool type",
            quote(descr)
        )
    };
    let (order, rest) = match descr.as_bytes().first() {
        Some(b'<' | b'>' | b'|' | b'=') => (descr.as_bytes()[0], &descr[1..]),
        _ => (b'=', descr),
    };
    let mut chars = rest.chars();
    let kind = match chars.next() {
        Some('f') => Kind::Float,
        Some('i') => Kind::Int,
        Some('u') => Kind::Uint,
        Some('b') => Kind::Bool,
        _ => return Err(unsupported()),
    };
    let size = match chars.as_str() {
        "1" => 1,
        "2" => 2,
        "4" => 4,
        "8" => 8,
        _ => return Err(unsupported()),
    };
    match (kind, size) {
        (Kind::Float, 4 | 8) | (Kind::Int | Kind::Uint, _) | (Kind::Bool, 1) => {}
        _ => return Err(unsupported()),
    }
    let big_endian = match order {
        b'>' => true,
        b'<' => false,
        _ => cfg!(target_endian = "big"),
    };
    Ok(Dtype {
        kind,
        size,
        big_endian,
    })
}

/// Reads and decodes exactly `header.n_bytes` bytes, then checks that no byte follows.
///
/// The buffer grows with the data that actually arrive (never by more than the bytes
/// read so far, nor past the announced size), so a header announcing gigabytes of a
/// short stream costs only what the stream holds.
fn read_data<T>(
    reader: &mut impl Read,
    header: &Header,
    decode: impl Fn(&[u8], Kind, usize, bool, &mut Vec<T>),
) -> Result<Vec<T>, String> {
    let Dtype {
        kind,
        size,
        big_endian,
    } = header.dtype;
    let mut out: Vec<T> = Vec::with_capacity(header.len.min(CHUNK));
    let mut buf = vec![0u8; CHUNK.min(header.n_bytes.max(1))];
    let mut left = header.n_bytes;
    while left > 0 {
        let want = left.min(buf.len());
        let chunk = &mut buf[..want];
        if let Err(e) = reader.read_exact(chunk) {
            let got = header.n_bytes - left;
            return Err(match e.kind() {
                std::io::ErrorKind::UnexpectedEof => format!(
                    "shape {:?} of {} needs {} data bytes, found fewer (truncated after at \
                     least {got})",
                    header.shape,
                    describe(header.dtype),
                    header.n_bytes
                ),
                _ => format!("cannot read the data: {e}"),
            });
        }
        if out.capacity() - out.len() < want / size {
            // Double what we have, but never past the announced length.
            let grow = (want / size).max(out.len()).min(header.len - out.len());
            out.reserve_exact(grow);
        }
        decode(chunk, kind, size, big_endian, &mut out);
        left -= want;
    }
    let mut extra = [0u8; 1];
    loop {
        match reader.read(&mut extra) {
            Ok(0) => break,
            Ok(_) => {
                return Err(format!(
                    "unexpected bytes after the {} data bytes of shape {:?}",
                    header.n_bytes, header.shape
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read the data: {e}")),
        }
    }
    Ok(out)
}

/// Appends the values of `bytes` (whole items) to `out`.
fn decode(bytes: &[u8], kind: Kind, size: usize, big_endian: bool, out: &mut Vec<f64>) {
    macro_rules! items {
        ($t:ty, $n:literal, $conv:expr) => {
            out.extend(bytes.chunks_exact($n).map(|c| {
                let mut a = [0u8; $n];
                a.copy_from_slice(c);
                let v = if big_endian {
                    <$t>::from_be_bytes(a)
                } else {
                    <$t>::from_le_bytes(a)
                };
                $conv(v)
            }))
        };
    }
    match (kind, size) {
        (Kind::Float, 4) => items!(f32, 4, f64::from),
        (Kind::Float, _) => items!(f64, 8, |v: f64| v),
        (Kind::Int, 1) => items!(i8, 1, f64::from),
        (Kind::Int, 2) => items!(i16, 2, f64::from),
        (Kind::Int, 4) => items!(i32, 4, f64::from),
        (Kind::Int, _) => items!(i64, 8, |v: i64| v as f64),
        (Kind::Uint, 1) => items!(u8, 1, f64::from),
        (Kind::Uint, 2) => items!(u16, 2, f64::from),
        (Kind::Uint, 4) => items!(u32, 4, f64::from),
        (Kind::Uint, _) => items!(u64, 8, |v: u64| v as f64),
        (Kind::Bool, _) => out.extend(bytes.iter().map(|&b| if b != 0 { 1.0 } else { 0.0 })),
    }
}

/// Reorders column-major (first axis fastest) data of `shape` into row-major order.
///
/// `stored.len()` is the product of `shape` (checked by the header parser), so no
/// stride below overflows.
fn fortran_to_c<T: Copy>(shape: &[usize], stored: &[T]) -> Vec<T> {
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

#[cfg(test)]
mod native_tests {
    use super::*;

    /// A version 1.0 `.npy` image with the given header fields and data bytes.
    fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let order = if fortran { "True" } else { "False" };
        let dict =
            format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}\n");
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&u16::try_from(dict.len()).unwrap().to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn f32_bytes(values: &[f32], big_endian: bool) -> Vec<u8> {
        values
            .iter()
            .flat_map(|v| {
                if big_endian {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            })
            .collect()
    }

    /// Values no `f64` round trip would keep bit for bit if they were narrowed again.
    const VALUES: [f32; 6] = [1.5, -0.1, 3.4e38, 1e-40, 0.0, 7.25];

    #[test]
    fn f4_files_stay_f32_in_either_byte_order_and_axis_order() {
        for (descr, big) in [("<f4", false), (">f4", true)] {
            let bytes = npy_bytes(descr, false, "(2, 3)", &f32_bytes(&VALUES, big));
            let NativeNpyArray::F32(a) = read_npy_native_from(bytes.as_slice()).unwrap() else {
                panic!("{descr} is not read as f32");
            };
            assert_eq!(a.shape, [2, 3]);
            assert_eq!(a.data, VALUES);
            // The f64 reader gives the same values, widened.
            let wide = read_npy_from(bytes.as_slice()).unwrap();
            let widened: Vec<f64> = VALUES.iter().map(|&v| f64::from(v)).collect();
            assert_eq!(wide.data, widened);
        }
        // Fortran order: stored column by column, returned in C order.
        let stored = [
            VALUES[0], VALUES[3], VALUES[1], VALUES[4], VALUES[2], VALUES[5],
        ];
        let bytes = npy_bytes("<f4", true, "(2, 3)", &f32_bytes(&stored, false));
        let NativeNpyArray::F32(a) = read_npy_native_from(bytes.as_slice()).unwrap() else {
            panic!("not f32");
        };
        assert_eq!(a.data, VALUES);
    }

    #[test]
    fn other_types_are_read_as_f64_like_read_npy() {
        let data: Vec<u8> = [1.25f64, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let bytes = npy_bytes("<f8", false, "(2,)", &data);
        let native = read_npy_native_from(bytes.as_slice()).unwrap();
        assert_eq!(
            native,
            NativeNpyArray::F64(read_npy_from(bytes.as_slice()).unwrap())
        );
        assert_eq!(native.shape(), [2]);
        let bytes = npy_bytes("|u1", false, "(3,)", &[0, 7, 255]);
        let NativeNpyArray::F64(a) = read_npy_native_from(bytes.as_slice()).unwrap() else {
            panic!("u1 is not read as f64");
        };
        assert_eq!(a.data, [0.0, 7.0, 255.0]);
    }

    #[test]
    fn hostile_f4_inputs_fail_with_typed_errors() {
        let good = f32_bytes(&VALUES, false);
        // Truncated, trailing byte, a huge announced shape on a short stream, a bad descr.
        let cases = [
            npy_bytes("<f4", false, "(2, 3)", &good[..good.len() - 1]),
            npy_bytes("<f4", false, "(2, 3)", &[good.as_slice(), &[0]].concat()),
            npy_bytes("<f4", false, "(1000000000, 1000)", &good),
            npy_bytes("<f3", false, "(2, 3)", &good),
            npy_bytes("<f4", false, "(-1, 3)", &good),
        ];
        for bytes in cases {
            let err = read_npy_native_from(bytes.as_slice()).unwrap_err();
            assert!(matches!(err, BlError::Npy { .. }), "{err}");
        }
        // A file whose size disagrees with its header is refused before reading data.
        let dir = std::env::temp_dir().join(format!("npy-native-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("short.npy");
        std::fs::write(&path, npy_bytes("<f4", false, "(4, 3)", &good)).unwrap();
        let err = read_npy_native(&path).unwrap_err();
        assert!(
            matches!(err, BlError::Npy { ref message, .. } if message.contains("needs 48 data bytes")),
            "{err}"
        );
        std::fs::write(&path, npy_bytes("<f4", false, "(2, 3)", &good)).unwrap();
        assert!(matches!(
            read_npy_native(&path).unwrap(),
            NativeNpyArray::F32(_)
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
