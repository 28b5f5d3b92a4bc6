//! `cargo xtask test`: the workspace's one test command.
//!
//! Every step builds in the release profile, the profile of the `cargo xtask` alias, with
//! the same feature set (see `docs/development.md`): the tests, the Python reference, the
//! wheel and `cargo xtask reproduce` afterwards share one build of every crate.
//!
//! 1. `cargo test --workspace --release --tests`, then `cargo test --workspace --release
//!    --doc` for the libraries with doctests (both skipped with `--python-only`): the tests
//!    and doctests `cargo test --workspace --release` runs, without linking the examples,
//!    which run no test (`cargo clippy --all-targets` compiles them); the property tests
//!    without a seed of their own draw from the fixed `PROPTEST_RNG_SEED` 20261129 unless
//!    the variable is set;
//! 2. meanwhile, on a second thread, a virtual environment `python-venv` in the target
//!    directory (`$CARGO_TARGET_DIR`, else `target/`), created once with `-m venv` by the
//!    interpreter of `--python`, `$BILINEAR_PYTHON` or `python3`; the pinned packages of
//!    `bindings/python/requirements-test.txt` are installed again only when that file
//!    changes (pip's downloads overlap cargo's compiling);
//! 3. the Rust crates' reference results (`cargo run --release -p bilinear-python --example
//!    rust_reference`) for the Python suite's equality tests;
//! 4. the wheel of `bindings/python` (`maturin build --release`), installed into the
//!    environment;
//! 5. `pytest` on `bindings/python/tests` (scikit-learn's estimator checks included).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// Arguments of `cargo xtask test`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// Skip `cargo test --workspace`; build the wheel and run the Python suite only.
    #[arg(long)]
    pub python_only: bool,
    /// Pass `--locked` to every cargo command (CI: the lock file must be up to date).
    #[arg(long)]
    pub locked: bool,
    /// The Python interpreter that creates the environment (default: `$BILINEAR_PYTHON`,
    /// else `python3`).
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// Extra arguments passed to pytest (after `--`).
    #[arg(last = true, value_name = "PYTEST_ARGS")]
    pub pytest_args: Vec<String>,
}

/// Runs `program args...` in `dir`, failing unless it exits successfully.
fn run<I, S>(
    dir: &Path,
    program: impl AsRef<OsStr>,
    args: I,
    envs: &[(&str, &OsStr)],
) -> anyhow::Result<()>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = program.as_ref();
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    println!("$ {cmd:?}");
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    if !status.success() {
        bail!("{} failed ({status})", program.to_string_lossy());
    }
    Ok(())
}

/// The whitespace-separated `words`, then `tail`, as the arguments of a command.
fn argv<'a>(words: &'a str, tail: &[&'a OsStr]) -> Vec<&'a OsStr> {
    words
        .split_whitespace()
        .map(OsStr::new)
        .chain(tail.iter().copied())
        .collect()
}

/// The target directory cargo uses (`$CARGO_TARGET_DIR` or `target/`).
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Creates the environment when missing and installs the pinned requirements when they
/// changed since the last install. Returns the environment's directory.
fn ensure_venv(root: &Path, target: &Path, python: &OsStr) -> anyhow::Result<PathBuf> {
    let venv = target.join("python-venv");
    let requirements = root.join("bindings/python/requirements-test.txt");
    let wanted = fs::read_to_string(&requirements)
        .with_context(|| format!("cannot read {}", requirements.display()))?;
    let stamp = venv.join("requirements-installed.txt");
    if !venv.join("bin/python").exists() {
        run(root, python, argv("-m venv", &[venv.as_os_str()]), &[])?;
    }
    if fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let pip = venv.join("bin/pip");
        run(
            root,
            &pip,
            argv("install -q -r", &[requirements.as_os_str()]),
            &[],
        )?;
        fs::write(&stamp, wanted)?;
    }
    Ok(venv)
}

/// The newest `bilinear-*.whl` in `dir`.
fn newest_wheel(dir: &Path) -> anyhow::Result<PathBuf> {
    let mut wheels: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension() == Some(OsStr::new("whl"))
                && p.file_name()
                    .and_then(OsStr::to_str)
                    .is_some_and(|n| n.starts_with("bilinear-"))
        })
        .filter_map(|p| Some((fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    wheels.sort();
    wheels
        .pop()
        .map(|(_, p)| p)
        .with_context(|| format!("maturin wrote no wheel into {}", dir.display()))
}

/// The seed of the property tests whose `proptest!` block does not fix one of its own,
/// unless `PROPTEST_RNG_SEED` is set: every run of the test command draws the same cases,
/// so a property that fails for some draw fails on every run, not on a later one by chance.
const PROPTEST_SEED: &str = "20261129";

/// The Rust tests and doctests of the workspace, as `cargo test --workspace` runs them,
/// without linking the examples (they run no test; `cargo clippy --all-targets` compiles
/// them): `--tests` (every target with `test = true`), then `--doc` for the libraries
/// that keep `doctest = true` (`--doc` alone would also build the doctests of those that
/// turn them off).
fn rust_tests(root: &Path, cargo: &OsStr, locked: &str) -> anyhow::Result<()> {
    let seed = std::env::var_os("PROPTEST_RNG_SEED").unwrap_or_else(|| PROPTEST_SEED.into());
    let tests = format!("test --workspace --release{locked} --tests");
    run(
        root,
        cargo,
        argv(&tests, &[]),
        &[("PROPTEST_RNG_SEED", &seed)],
    )?;
    let mut doctests = format!("test --workspace --release{locked} --doc");
    for package in without_doctests(root, cargo)? {
        doctests.push_str(" --exclude ");
        doctests.push_str(&package);
    }
    run(root, cargo, argv(&doctests, &[]), &[])
}

/// The workspace's packages whose library sets `doctest = false`, from `cargo metadata`.
fn without_doctests(root: &Path, cargo: &OsStr) -> anyhow::Result<Vec<String>> {
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .context("cannot start cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata: not JSON")?;
    let packages = metadata["packages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    Ok(packages
        .iter()
        .filter(|p| {
            p["targets"].as_array().is_some_and(|targets| {
                targets.iter().any(|t| {
                    t["kind"].as_array().is_some_and(|k| {
                        k.iter().any(|k| k == "lib" || k == "cdylib" || k == "rlib")
                    }) && t["doctest"] == false
                })
            })
        })
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect())
}

/// Runs the whole test command.
///
/// # Errors
/// The first step that fails (a failing test included).
pub fn test(args: &TestArgs) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let target = target_dir(&root);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let locked = if args.locked { " --locked" } else { "" };
    let python = args
        .python
        .clone()
        .map(PathBuf::into_os_string)
        .or_else(|| std::env::var_os("BILINEAR_PYTHON"))
        .unwrap_or_else(|| "python3".into());
    let (rust, venv) = std::thread::scope(|s| {
        let venv = s.spawn(|| ensure_venv(&root, &target, &python));
        let rust = if args.python_only {
            Ok(())
        } else {
            rust_tests(&root, &cargo, locked)
        };
        let venv = venv
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the environment's thread panicked")));
        (rust, venv)
    });
    rust?;
    let bin = venv?.join("bin");

    let reference = target.join("python-reference.json");
    let example =
        format!("run -q --release{locked} -p bilinear-python --example rust_reference --");
    run(&root, &cargo, argv(&example, &[reference.as_os_str()]), &[])?;

    let wheels = target.join("python-wheels");
    let _ = fs::remove_dir_all(&wheels);
    let manifest = root.join("bindings/python/Cargo.toml");
    let build = format!("build{locked} --release --manifest-path");
    let out = [
        manifest.as_os_str(),
        OsStr::new("--out"),
        wheels.as_os_str(),
    ];
    run(&root, bin.join("maturin"), argv(&build, &out), &[])?;
    let wheel = newest_wheel(&wheels)?;
    let install = argv(
        "install -q --force-reinstall --no-deps",
        &[wheel.as_os_str()],
    );
    run(&root, bin.join("pip"), install, &[])?;

    let mut pytest: Vec<String> = vec!["-m".into(), "pytest".into(), "-q".into(), "tests".into()];
    pytest.extend(args.pytest_args.iter().cloned());
    run(
        &root.join("bindings/python"),
        bin.join("python"),
        &pytest,
        &[("BILINEAR_RUST_REFERENCE", reference.as_os_str())],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The doctest step leaves out exactly the libraries whose manifests turn doctests off
    /// (read here from the manifests' text, independently of `cargo metadata`).
    #[test]
    fn the_doctest_step_leaves_out_the_libraries_without_doctests() -> anyhow::Result<()> {
        let root = crate::workspace_root();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut found = without_doctests(&root, &cargo)?;
        found.sort();
        let mut expected = Vec::new();
        for manifest in ["benches/Cargo.toml", "bindings/python/Cargo.toml"] {
            let text = fs::read_to_string(root.join(manifest))?;
            assert!(text.contains("doctest = false"), "{manifest}");
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|l| l.strip_suffix('"'))
                .context("no package name")?;
            expected.push(name.to_string());
        }
        expected.sort();
        assert_eq!(found, expected);
        for crate_dir in fs::read_dir(root.join("crates"))? {
            let text = fs::read_to_string(crate_dir?.path().join("Cargo.toml"))?;
            assert!(!text.contains("doctest = false"));
        }
        Ok(())
    }
}
