//! The state of the cache: hashes, missing and corrupted files, diagnoses.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::*;

/// Lowercase hex sha256 of everything `reader` yields.
pub fn sha256_reader(mut reader: impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// Lowercase hex sha256 of a file.
///
/// # Errors
/// [`DataError::Io`] if the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, DataError> {
    let file = File::open(path).map_err(io_err(path))?;
    sha256_reader(BufReader::new(file)).map_err(io_err(path))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// State of one cached file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    /// Present with the pinned size and sha256.
    Valid,
    /// Not present.
    Missing,
    /// Present but with another size or sha256 (it will be replaced by a fetch).
    Invalid,
}

/// State of a cached file at `path` against its pin.
///
/// # Errors
/// [`DataError::Io`] if the file exists but cannot be read.
pub fn file_state(path: &Path, file: &DataFile) -> Result<FileState, DataError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FileState::Missing),
        Err(e) => return Err(io_err(path)(e)),
    };
    if !meta.is_file() || meta.len() != file.bytes {
        return Ok(FileState::Invalid);
    }
    Ok(if sha256_file(path)? == file.sha256 {
        FileState::Valid
    } else {
        FileState::Invalid
    })
}

/// How much of a data set is in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStatus {
    /// Files present and verified.
    pub valid: usize,
    /// Files present with a wrong size or hash.
    pub invalid: usize,
    /// Files the data set has.
    pub total: usize,
}

impl CacheStatus {
    /// True when every file is present and verified.
    pub fn is_complete(&self) -> bool {
        self.valid == self.total
    }
}

impl fmt::Display for CacheStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_complete() {
            write!(f, "yes")
        } else if self.valid == 0 {
            write!(f, "no")?;
            if self.invalid > 0 {
                write!(f, " ({} with a wrong hash)", self.invalid)?;
            }
            Ok(())
        } else {
            write!(f, "partial ({}/{} verified", self.valid, self.total)?;
            if self.invalid > 0 {
                write!(f, ", {} with a wrong hash", self.invalid)?;
            }
            write!(f, ")")
        }
    }
}

/// Checks every file of `dataset` in the cache `data_dir`.
///
/// # Errors
/// [`DataError::Io`] if a present file cannot be read.
pub fn cache_status(dataset: &Dataset, data_dir: &Path) -> Result<CacheStatus, DataError> {
    let mut status = CacheStatus {
        valid: 0,
        invalid: 0,
        total: dataset.files.len(),
    };
    for (file, path) in dataset.files.iter().zip(dataset.paths(data_dir)) {
        match file_state(&path, file)? {
            FileState::Valid => status.valid += 1,
            FileState::Invalid => status.invalid += 1,
            FileState::Missing => {}
        }
    }
    Ok(status)
}

/// Why a cached file cannot be used (see [`cache_problems`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheProblem {
    /// The file is not in the cache.
    Missing {
        /// Where it should be.
        path: PathBuf,
    },
    /// Something other than a regular file is at the file's path.
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file is there but is not the pinned file (another size or sha256).
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The pinned sha256.
        expected_sha256: &'static str,
        /// The pinned size in bytes.
        expected_bytes: u64,
        /// The sha256 of the file found.
        found_sha256: String,
        /// The size of the file found.
        found_bytes: u64,
    },
}

impl fmt::Display for CacheProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheProblem::Missing { path } => write!(f, "{} is missing", path.display()),
            CacheProblem::NotAFile { path } => {
                write!(f, "{} is not a regular file", path.display())
            }
            CacheProblem::Mismatch {
                path,
                expected_sha256,
                expected_bytes,
                found_sha256,
                found_bytes,
            } => write!(
                f,
                "{} fails verification: expected sha256 {expected_sha256} ({expected_bytes} \
                 bytes), found sha256 {found_sha256} ({found_bytes} bytes)",
                path.display()
            ),
        }
    }
}

/// Every file of `dataset` in the cache `data_dir` that is missing or is not the pinned
/// file, with the expected and found sha256 (empty when the cache is complete). Unlike
/// [`file_state`], a file of the wrong size is hashed too, for the report.
///
/// # Errors
/// [`DataError::Io`] if a present file cannot be read.
pub fn cache_problems(dataset: &Dataset, data_dir: &Path) -> Result<Vec<CacheProblem>, DataError> {
    let mut problems = Vec::new();
    for (file, path) in dataset.files.iter().zip(dataset.paths(data_dir)) {
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                problems.push(CacheProblem::Missing { path });
                continue;
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        if !meta.is_file() {
            problems.push(CacheProblem::NotAFile { path });
            continue;
        }
        let found = sha256_file(&path)?;
        if meta.len() != file.bytes || found != file.sha256 {
            problems.push(CacheProblem::Mismatch {
                path,
                expected_sha256: file.sha256,
                expected_bytes: file.bytes,
                found_sha256: found,
                found_bytes: meta.len(),
            });
        }
    }
    Ok(problems)
}

/// One sentence on what is wrong with the cached copy of `dataset`: "not in the cache"
/// only when every file is missing; otherwise each file that fails verification, with
/// its expected and found sha256.
pub fn cache_diagnosis(dataset: &Dataset, data_dir: &Path, problems: &[CacheProblem]) -> String {
    let name = dataset.name;
    if problems.len() == dataset.files.len()
        && problems
            .iter()
            .all(|p| matches!(p, CacheProblem::Missing { .. }))
    {
        return format!(
            "data set `{name}` is not in the cache {}",
            dataset.dir(data_dir).display()
        );
    }
    let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
    format!(
        "data set `{name}`: {} of its {} cached files cannot be used: {}",
        problems.len(),
        dataset.files.len(),
        list.join("; ")
    )
}
