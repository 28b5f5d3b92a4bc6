//! Helpers shared by the integration tests.

// Each test binary compiles this module and uses only some of the helpers.
#![allow(dead_code)]

use sblr::SblrError;

/// `err` is `SblrError::Core(BlError::InvalidParameter)` naming the parameter `name`.
#[track_caller]
pub fn assert_invalid(err: &SblrError, name: &str) {
    assert!(
        matches!(
            err,
            SblrError::Core(bl_core::BlError::InvalidParameter { name: n, .. }) if *n == name
        ),
        "expected an invalid `{name}`, got: {err}"
    );
}

/// The objectives `a` and `b` agree to the relative tolerance `tol` (relative to `a`); the
/// message names the two fits.
#[track_caller]
pub fn assert_same_objective((a_name, a): (&str, f64), (b_name, b): (&str, f64), tol: f64) {
    let rel = (a - b).abs() / a;
    assert!(rel < tol, "{a_name} {a} vs {b_name} {b}");
}

/// The fastest of up to three runs of `f`, stopping at the first that takes less than
/// `limit`. A single run on a busy machine can be held up by the scheduler; a slow loader
/// is slow every time, so a time bound checked this way still catches it.
pub fn fastest_run(limit: std::time::Duration, mut f: impl FnMut()) -> std::time::Duration {
    let mut best = std::time::Duration::MAX;
    for _ in 0..3 {
        let started = std::time::Instant::now();
        f();
        best = best.min(started.elapsed());
        if best < limit {
            break;
        }
    }
    best
}

/// The JSON of an SBLR model fitted on `data` with the default parameters and at most
/// `max_iter` iterations.
pub fn saved_sblr(data: &bl_core::data::MatrixDataset, max_iter: usize) -> String {
    use sblr::{Fit as _, SavedModel as _};
    let model = sblr::Sblr::params().max_iter(max_iter).fit(data).unwrap();
    model.to_json().unwrap()
}

/// Alg. 1's built-in block update with its default settings.
pub fn alg1() -> std::sync::Arc<dyn sblr::BlockUpdate> {
    std::sync::Arc::new(sblr::ExactBlockSolve::default())
}

/// Alg. 2's built-in block update with its default settings.
pub fn alg2() -> std::sync::Arc<dyn sblr::BlockUpdate> {
    std::sync::Arc::new(sblr::ProxLinearStep::default())
}

/// The peak heap `dhat` has counted so far is at most `budget` bytes; prints it beside
/// `reference` (`(what, bytes)`, e.g. the data set's size) and returns it. Only in a test
/// binary whose global allocator is `dhat::Alloc`, while a testing profiler runs.
#[track_caller]
pub fn assert_peak_within(label: &str, budget: usize, (what, bytes): (&str, usize)) -> usize {
    let peak = dhat::HeapStats::get().max_bytes;
    eprintln!(
        "{label}: peak heap {peak} B = {:.3} x {what} ({bytes} B); budget {budget} B",
        peak as f64 / bytes as f64
    );
    assert!(
        peak <= budget,
        "{label}: peak heap {peak} B > budget {budget} B ({what} is {bytes} B)"
    );
    peak
}

/// The peak bound is sensitive: a value of `bytes` bytes or more that `make` allocates
/// now shows in `dhat`'s peak (as for [`assert_peak_within`]).
#[track_caller]
pub fn assert_counted<T>(bytes: usize, make: impl FnOnce() -> T) {
    let value = make();
    let peak = dhat::HeapStats::get().max_bytes;
    assert!(
        peak >= bytes,
        "peak heap {peak} B < {bytes} B just allocated"
    );
    drop(value);
}

/// Writes the samples of `data` to a `.npy` file as an `(n, s, t)` array of `<f4` (`f4`)
/// or `<f8`, in C or Fortran (`fortran`) order (NumPy's layout, written by hand).
pub fn write_samples_npy(
    path: &std::path::Path,
    data: &bl_core::data::MatrixDataset,
    f4: bool,
    fortran: bool,
) {
    let (s, t) = data.shape();
    let n = data.n_samples();
    let dict = format!(
        "{{'descr': '<f{}', 'fortran_order': {}, 'shape': ({n}, {s}, {t}), }}",
        if f4 { 4 } else { 8 },
        if fortran { "True" } else { "False" }
    );
    let unpadded = 10 + dict.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(
        &u16::try_from(dict.len() + padding + 1)
            .unwrap()
            .to_le_bytes(),
    );
    bytes.extend_from_slice(dict.as_bytes());
    bytes.resize(bytes.len() + padding, b' ');
    bytes.push(b'\n');
    let mut push = |v: f64| {
        if f4 {
            bytes.extend_from_slice(&(v as f32).to_le_bytes());
        } else {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    };
    if fortran {
        for j in 0..t {
            for a in 0..s {
                for i in 0..n {
                    push(data.sample(i)[(a, j)]);
                }
            }
        }
    } else {
        for i in 0..n {
            let x = data.sample(i);
            for a in 0..s {
                for j in 0..t {
                    push(x[(a, j)]);
                }
            }
        }
    }
    std::fs::write(path, bytes).unwrap();
}

/// A directory under the system's temporary directory, removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// A new empty directory named after `tag` and the process.
    pub fn new(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!("sblr-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// `name` inside the directory.
    pub fn join(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
