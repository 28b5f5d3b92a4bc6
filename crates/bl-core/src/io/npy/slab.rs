//! Reading a floating-point `.npy` file in slabs along its first axis, without loading
//! it: [`NpyFile`].
//!
//! The header is read and checked as [`super::read_npy`] checks it (bounded parser, shape
//! limits, and the file size equal to the header's offset plus the announced data bytes),
//! so a slab read never sizes anything from an unchecked header value: the caller gives
//! the output buffer, and every read is checked against the shape first.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::{Header, Kind, describe, npy_error, open_npy, read_checked_header};
use crate::error::{BlError, Result};

/// Bytes read from the file per system call at most (the staging buffer of a slab read
/// holds at most this much, or one row of the last axis when that is longer).
pub const STAGING_BYTES: usize = 64 * 1024;

/// How the entries of each item (each index of axis 0) are laid out in a slab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemOrder {
    /// The trailing axes in C (row-major) order, as NumPy's `x[i]`.
    RowMajor,
    /// The trailing axes in Fortran (column-major) order: for an `(n, s, t)` array, item
    /// `i` is the `s x t` matrix stored column after column.
    ColumnMajor,
}

/// A floating-point value a slab can be decoded into (`f32` or `f64`).
pub trait SlabElement: Copy + Default + Send + Sync + 'static {
    /// From a stored `f4` value (exact for both types).
    fn from_f32(v: f32) -> Self;
    /// From a stored `f8` value (`f32` rounds to nearest).
    fn from_f64(v: f64) -> Self;
}

impl SlabElement for f32 {
    fn from_f32(v: f32) -> Self {
        v
    }
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl SlabElement for f64 {
    fn from_f32(v: f32) -> Self {
        f64::from(v)
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// An open `.npy` file of `f4` or `f8` values (either byte order, C or Fortran order)
/// whose slabs along axis 0 are read on demand ([`NpyFile::read_slab`]).
#[derive(Debug)]
pub struct NpyFile {
    file: File,
    path: PathBuf,
    header: Header,
    staging: Vec<u8>,
}

impl NpyFile {
    /// Opens `path` and checks its header: format, element type (`f4` or `f8`), shape
    /// limits, and that the file holds exactly the data bytes the header announces. Reads
    /// no data.
    ///
    /// # Errors
    /// [`BlError::Io`] when the file cannot be opened; [`BlError::Npy`] (naming the path)
    /// for a malformed header, a file shorter or longer than its header announces
    /// (truncated), an element type other than `f4`/`f8`, or a 0-dimensional array.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let (mut file, file_len) = open_npy(path)?;
        let header = read_checked_header(&mut file, path, file_len)?;
        if header.dtype.kind != Kind::Float {
            return Err(npy_error(
                path,
                format!(
                    "dtype {} cannot be read in slabs: expected '<f4', '>f4', '<f8' or '>f8'",
                    describe(header.dtype)
                ),
            ));
        }
        if header.shape.is_empty() {
            return Err(npy_error(
                path,
                "a 0-dimensional array has no axis 0 to read in slabs",
            ));
        }
        Ok(Self {
            file,
            path: path.to_owned(),
            header,
            staging: Vec::new(),
        })
    }

    /// The shape of the array.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.header.shape
    }

    /// Bytes per stored value: 4 (`f4`) or 8 (`f8`).
    #[must_use]
    pub fn item_size(&self) -> usize {
        self.header.dtype.size
    }

    /// Whether the file is in Fortran (column-major) order.
    #[must_use]
    pub fn fortran_order(&self) -> bool {
        self.header.fortran
    }

    /// The path the file was opened from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entries per item (the product of the shape after axis 0).
    #[must_use]
    pub fn item_len(&self) -> usize {
        self.header.shape[1..].iter().product()
    }

    /// The staging buffer's size for this file: for a C-order file, the whole rows of the
    /// last axis that fit in [`STAGING_BYTES`], or one row when that is longer; for a
    /// Fortran-order file (which reads runs along axis 0), [`STAGING_BYTES`].
    /// [`NpyFile::read_slab`] allocates this buffer once (kept for later reads) and, per
    /// call, two vectors of the trailing axes' lengths, besides the caller's output.
    #[must_use]
    pub fn staging_bytes(&self) -> usize {
        let size = self.item_size();
        if self.header.fortran {
            return STAGING_BYTES.max(size);
        }
        let row = self.header.shape.last().copied().unwrap_or(1).max(1) * size;
        if row >= STAGING_BYTES {
            row
        } else {
            STAGING_BYTES / row * row
        }
    }

    /// Reads items `first..first + count` of axis 0 into `out` (`count * item_len()`
    /// values, item after item, each in `order`), converting each stored value to `T`.
    ///
    /// # Errors
    /// [`BlError::ShapeMismatch`] when the items are out of range or `out` has the wrong
    /// length; [`BlError::Npy`] when the file ends early (it was truncated after it was
    /// opened) or cannot be read; [`BlError::InvalidParameter`] when the staging buffer
    /// cannot be allocated.
    pub fn read_slab<T: SlabElement>(
        &mut self,
        first: usize,
        count: usize,
        order: ItemOrder,
        out: &mut [T],
    ) -> Result<()> {
        let n = self.header.shape[0];
        let m = self.item_len();
        let in_range = first.checked_add(count).is_some_and(|end| end <= n);
        if !in_range || count.checked_mul(m) != Some(out.len()) {
            return Err(BlError::ShapeMismatch {
                context: "NpyFile::read_slab",
                expected: format!("items within 0..{n} and an output of count x {m} values"),
                found: format!(
                    "items {first}..{} and {} values",
                    first.saturating_add(count),
                    out.len()
                ),
            });
        }
        if count == 0 || m == 0 {
            return Ok(());
        }
        let staging_len = self.staging_bytes();
        if self.staging.len() != staging_len {
            self.staging = crate::limits::try_zeroed("NpyFile: staging bytes", &[staging_len])?;
        }
        let layout = Layout::new(&self.header.shape[1..], order);
        if self.header.fortran {
            self.read_fortran(first, count, &layout, out)
        } else {
            self.read_c(first, count, &layout, out)
        }
    }

    /// Decodes `bytes` (whole stored values) and calls `put(k, value)` for the `k`-th.
    fn decode<T: SlabElement>(&self, bytes: &[u8], mut put: impl FnMut(usize, T)) {
        let big = self.header.dtype.big_endian;
        if self.header.dtype.size == 4 {
            for (k, c) in bytes.chunks_exact(4).enumerate() {
                put(k, decode_f4(c, big));
            }
        } else {
            for (k, c) in bytes.chunks_exact(8).enumerate() {
                put(k, decode_f8(c, big));
            }
        }
    }

    /// Fills the staging buffer's first `len` bytes from file offset `at`.
    fn fill(&mut self, at: u64, len: usize) -> Result<()> {
        let path = self.path.clone();
        let io = |e: std::io::Error| {
            npy_error(
                &path,
                match e.kind() {
                    std::io::ErrorKind::UnexpectedEof => format!(
                        "truncated file: the data end before byte {} (the file changed after \
                         it was opened)",
                        at + len as u64
                    ),
                    _ => format!("cannot read the data: {e}"),
                },
            )
        };
        self.file.seek(SeekFrom::Start(at)).map_err(io)?;
        self.file.read_exact(&mut self.staging[..len]).map_err(io)
    }

    /// A C-order file: the slab is one contiguous run, read in whole rows of the last
    /// axis; each row goes to its place in the output with one stride.
    fn read_c<T: SlabElement>(
        &mut self,
        first: usize,
        count: usize,
        layout: &Layout,
        out: &mut [T],
    ) -> Result<()> {
        let size = self.item_size();
        let m = layout.item_len;
        let row_len = layout.row_len();
        let rows_per_item = m / row_len;
        let stride = layout.row_stride();
        let total_rows = count * rows_per_item;
        let rows_per_read = (self.staging.len() / (row_len * size)).max(1);
        let big = self.header.dtype.big_endian;
        let mut done = 0;
        while done < total_rows {
            let take = rows_per_read.min(total_rows - done);
            let at = self.header.offset + ((first * m + done * row_len) * size) as u64;
            self.fill(at, take * row_len * size)?;
            let staging = &self.staging[..take * row_len * size];
            let value = |r: usize, j: usize| -> T {
                let at = (r * row_len + j) * size;
                if size == 4 {
                    decode_f4(&staging[at..at + 4], big)
                } else {
                    decode_f8(&staging[at..at + 8], big)
                }
            };
            let mut r = 0;
            while r < take {
                let row = done + r;
                let (k, q) = (row / rows_per_item, row % rows_per_item);
                let base = k * m + layout.position(q * row_len);
                if layout.tiles_rows() {
                    // Consecutive rows of an item go to consecutive output positions:
                    // write them in tiles of up to TILE rows, a run of TILE values per
                    // column (whole cache lines, instead of one value per line a stride
                    // apart, which a power-of-two stride maps to a few cache sets).
                    let tile = TILE.min(take - r).min(rows_per_item - q);
                    for j in 0..row_len {
                        let dest = &mut out[base + j * stride..][..tile];
                        for (i, o) in dest.iter_mut().enumerate() {
                            *o = value(r + i, j);
                        }
                    }
                    r += tile;
                } else {
                    for j in 0..row_len {
                        out[base + j * stride] = value(r, j);
                    }
                    r += 1;
                }
            }
            done += take;
        }
        Ok(())
    }

    /// A Fortran-order file: entry `q` (column-major over the trailing axes) of items
    /// `first..first + count` is one run of `count` values at `q n + first`.
    fn read_fortran<T: SlabElement>(
        &mut self,
        first: usize,
        count: usize,
        layout: &Layout,
        out: &mut [T],
    ) -> Result<()> {
        let size = self.item_size();
        let n = self.header.shape[0];
        let m = layout.item_len;
        let step = self.staging.len() / size;
        for q in 0..m {
            let dest = layout.position_of_column_major(q);
            let mut done = 0;
            while done < count {
                let take = step.min(count - done);
                let at = self.header.offset + ((q * n + first + done) * size) as u64;
                self.fill(at, take * size)?;
                let staging = std::mem::take(&mut self.staging);
                self.decode::<T>(&staging[..take * size], |k, v| {
                    out[(done + k) * m + dest] = v;
                });
                self.staging = staging;
                done += take;
            }
        }
        Ok(())
    }
}

/// The stored `f4` value in the first 4 bytes of `c` (big-endian when `big`) as `T`.
#[inline]
fn decode_f4<T: SlabElement>(c: &[u8], big: bool) -> T {
    let a = [c[0], c[1], c[2], c[3]];
    T::from_f32(if big {
        f32::from_be_bytes(a)
    } else {
        f32::from_le_bytes(a)
    })
}

/// The stored `f8` value in the first 8 bytes of `c` (big-endian when `big`) as `T`.
#[inline]
fn decode_f8<T: SlabElement>(c: &[u8], big: bool) -> T {
    let a = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]];
    T::from_f64(if big {
        f64::from_be_bytes(a)
    } else {
        f64::from_le_bytes(a)
    })
}

/// Rows transposed together by [`NpyFile::read_slab`] (C-order file, column-major items).
const TILE: usize = 8;

/// Where the entries of one item go in the output.
#[derive(Debug)]
struct Layout {
    item_len: usize,
    /// The trailing axes.
    dims: Vec<usize>,
    /// Column-major strides of the trailing axes.
    cm_strides: Vec<usize>,
    order: ItemOrder,
}

impl Layout {
    fn new(dims: &[usize], order: ItemOrder) -> Self {
        let mut cm_strides = Vec::with_capacity(dims.len());
        let mut stride = 1;
        for &d in dims {
            cm_strides.push(stride);
            stride *= d;
        }
        Self {
            item_len: dims.iter().product(),
            dims: dims.to_vec(),
            cm_strides,
            order,
        }
    }

    /// Whether consecutive rows of the last axis go to consecutive output positions
    /// (column-major items of two axes).
    fn tiles_rows(&self) -> bool {
        self.order == ItemOrder::ColumnMajor && self.dims.len() == 2
    }

    /// Length of the last axis (1 for items without axes).
    fn row_len(&self) -> usize {
        self.dims.last().copied().unwrap_or(1)
    }

    /// Output distance between consecutive entries of a row of the last axis.
    fn row_stride(&self) -> usize {
        match self.order {
            ItemOrder::RowMajor => 1,
            ItemOrder::ColumnMajor => self.cm_strides.last().copied().unwrap_or(1),
        }
    }

    /// Output position of the entry at C-order offset `c` within an item.
    fn position(&self, mut c: usize) -> usize {
        match self.order {
            ItemOrder::RowMajor => c,
            ItemOrder::ColumnMajor => {
                let mut pos = 0;
                for (&d, &stride) in self.dims.iter().zip(&self.cm_strides).rev() {
                    pos += (c % d) * stride;
                    c /= d;
                }
                pos
            }
        }
    }

    /// Output position of the entry at column-major offset `q` within an item.
    fn position_of_column_major(&self, mut q: usize) -> usize {
        match self.order {
            ItemOrder::ColumnMajor => q,
            ItemOrder::RowMajor => {
                let mut pos = 0;
                let mut stride = self.item_len;
                for &d in &self.dims {
                    stride /= d;
                    pos += (q % d) * stride;
                    q /= d;
                }
                pos
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::npy::write_npy;

    /// A `.npy` file of the given header dict and raw data bytes.
    fn raw_npy(path: &Path, dict: &str, data: &[u8]) {
        let unpadded = 10 + dict.len() + 1;
        let padding = (64 - unpadded % 64) % 64;
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&((dict.len() + padding + 1) as u16).to_le_bytes());
        bytes.extend_from_slice(dict.as_bytes());
        bytes.resize(bytes.len() + padding, b' ');
        bytes.push(b'\n');
        bytes.extend_from_slice(data);
        std::fs::write(path, bytes).unwrap();
    }

    /// Writes the `(n, s, t)` array of the values `value(i, a, j)` to `path` as `descr`
    /// (`<f8`, `>f8`, `<f4` or `>f4`), in Fortran order when `fortran`, else in C order.
    fn write_3d(
        path: &Path,
        descr: &str,
        [n, s, t]: [usize; 3],
        fortran: bool,
        value: impl Fn(usize, usize, usize) -> f64,
    ) {
        let mut data = Vec::new();
        for k in 0..n * s * t {
            // Entry `k` of the file: axis 0 fastest in Fortran order, the last axis in C.
            let (i, a, j) = if fortran {
                (k % n, k / n % s, k / (n * s))
            } else {
                (k / (s * t), k / t % s, k % t)
            };
            let v = value(i, a, j);
            match descr {
                "<f8" => data.extend_from_slice(&v.to_le_bytes()),
                ">f8" => data.extend_from_slice(&v.to_be_bytes()),
                "<f4" => data.extend_from_slice(&(v as f32).to_le_bytes()),
                ">f4" => data.extend_from_slice(&(v as f32).to_be_bytes()),
                _ => panic!("write_3d: unsupported descr {descr}"),
            }
        }
        let order = if fortran { "True" } else { "False" };
        raw_npy(
            path,
            &format!(
                "{{'descr': '{descr}', 'fortran_order': {order}, 'shape': ({n}, {s}, {t}), }}"
            ),
            &data,
        );
    }

    /// Items `first..first + count` of `f`, each in `order`.
    fn slab<T: SlabElement>(
        f: &mut NpyFile,
        first: usize,
        count: usize,
        order: ItemOrder,
    ) -> Vec<T> {
        let mut out = vec![T::default(); count * f.item_len()];
        f.read_slab(first, count, order, &mut out).unwrap();
        out
    }

    fn dir() -> tempfile_dir::Dir {
        tempfile_dir::Dir::new()
    }

    /// A throw-away directory under the system's temporary directory.
    mod tempfile_dir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Self {
                use std::sync::atomic::{AtomicUsize, Ordering};
                static NEXT: AtomicUsize = AtomicUsize::new(0);
                let p = std::env::temp_dir().join(format!(
                    "bl-core-slab-{}-{}",
                    std::process::id(),
                    NEXT.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&p).unwrap();
                Self(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    /// Every slab of C- and Fortran-order files, `f4` and `f8`, both byte orders, equals
    /// the brute-force rearrangement of the whole array, in both item orders.
    #[test]
    fn slabs_match_brute_force_in_every_layout() {
        let d = dir();
        let (n, s, t) = (7, 3, 5);
        let value = |i: usize, a: usize, j: usize| (i * 100 + a * 10 + j) as f64 + 0.25;
        for (case, descr) in ["<f8", ">f8", "<f4", ">f4"].into_iter().enumerate() {
            for fortran in [false, true] {
                let path = d.0.join(format!("a{case}{fortran}.npy"));
                write_3d(&path, descr, [n, s, t], fortran, value);
                let mut f = NpyFile::open(&path).unwrap();
                assert_eq!(f.shape(), &[n, s, t]);
                for (first, count) in [(0, n), (2, 3), (6, 1), (3, 0)] {
                    let col: Vec<f64> = slab(&mut f, first, count, ItemOrder::ColumnMajor);
                    let row: Vec<f32> = slab(&mut f, first, count, ItemOrder::RowMajor);
                    for k in 0..count {
                        for a in 0..s {
                            for j in 0..t {
                                let want = value(first + k, a, j);
                                assert_eq!(col[k * s * t + j * s + a], want);
                                assert_eq!(row[k * s * t + a * t + j], want as f32);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Slabs longer than the staging buffer (several reads per slab, and per run of a
    /// Fortran-order file) equal the whole array read by `read_npy`.
    #[test]
    fn slabs_larger_than_the_staging_buffer_match_read_npy() {
        let d = dir();
        for (shape, fortran) in [
            ([50usize, 20, 13], false),
            ([9000, 1, 2], true),
            ([7, 3, 5000], false),
        ] {
            let [n, s, t] = shape;
            let values: Vec<f64> = (0..n * s * t).map(|k| (k as f64).sin()).collect();
            let path = d.0.join(format!("big{n}.npy"));
            write_3d(&path, "<f8", shape, fortran, |i, a, j| {
                values[i * s * t + a * t + j]
            });
            assert_eq!(crate::io::npy::read_npy(&path).unwrap().data, values);
            let mut f = NpyFile::open(&path).unwrap();
            let (first, count) = (1, n - 2);
            let row: Vec<f64> = slab(&mut f, first, count, ItemOrder::RowMajor);
            assert_eq!(row, values[s * t..(n - 1) * s * t]);
            let col: Vec<f64> = slab(&mut f, first, count, ItemOrder::ColumnMajor);
            for k in 0..count {
                for a in 0..s {
                    for j in 0..t {
                        assert_eq!(
                            col[k * s * t + j * s + a],
                            values[(first + k) * s * t + a * t + j]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_files_and_requests_are_typed_errors() {
        let d = dir();
        let path = d.0.join("ok.npy");
        write_npy(&path, &[4, 2, 3], &[1.0; 24]).unwrap();
        let mut f = NpyFile::open(&path).unwrap();
        let mut out = vec![0.0; 6];
        assert!(matches!(
            f.read_slab(3, 2, ItemOrder::RowMajor, &mut out),
            Err(BlError::ShapeMismatch { .. })
        ));
        assert!(matches!(
            f.read_slab(0, 2, ItemOrder::RowMajor, &mut out[..5]),
            Err(BlError::ShapeMismatch { .. })
        ));
        assert!(matches!(
            f.read_slab(usize::MAX, 2, ItemOrder::RowMajor, &mut out),
            Err(BlError::ShapeMismatch { .. })
        ));
        // Truncated after opening.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        let mut out = vec![0.0; 24];
        assert!(matches!(
            f.read_slab(0, 4, ItemOrder::RowMajor, &mut out),
            Err(BlError::Npy { .. })
        ));
        // Truncated before opening.
        assert!(matches!(NpyFile::open(&path), Err(BlError::Npy { .. })));
        // Opens a file of the header `dict` and 8 data bytes.
        let open_raw = |name: &str, dict: &str| {
            let path = d.0.join(name);
            raw_npy(&path, dict, &[0; 8]);
            NpyFile::open(&path)
        };
        // Integer dtype.
        let e = open_raw(
            "int.npy",
            "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1, 1), }",
        )
        .unwrap_err();
        assert!(e.to_string().contains("'<i4'"), "{e}");
        // A header announcing far more data than the file holds allocates nothing.
        let huge = open_raw(
            "huge.npy",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000, 1000), }",
        );
        assert!(matches!(huge, Err(BlError::Npy { .. })));
        let scalar = open_raw(
            "scalar.npy",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
        );
        assert!(matches!(scalar, Err(BlError::Npy { .. })));
        assert!(matches!(
            NpyFile::open(d.0.join("missing.npy")),
            Err(BlError::Io { .. })
        ));
    }

    #[test]
    fn item_positions_are_inverse_permutations() {
        let dims = [2, 3, 4];
        let to_cm = Layout::new(&dims, ItemOrder::ColumnMajor);
        let to_c = Layout::new(&dims, ItemOrder::RowMajor);
        let mut seen = [false; 24];
        for c in 0..24 {
            let q = to_cm.position(c);
            assert!(!seen[q]);
            seen[q] = true;
            assert_eq!(to_c.position_of_column_major(q), c);
        }
        // (1, 2, 3) is C offset 1*12 + 2*4 + 3 = 23 and column-major 1 + 2*2 + 3*6 = 23;
        // (1, 0, 0): 12 and 1.
        assert_eq!(to_cm.position(23), 23);
        assert_eq!(to_cm.position(12), 1);
    }
}
