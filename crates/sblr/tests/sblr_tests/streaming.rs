//! Fits on a `.npy` file streamed in blocks ([`NpySource`]) equal the fits on the same
//! samples in memory, bit for bit; bad files and budgets are typed errors.

use super::common::{TempDir, write_samples_npy};
use bl_core::BlError;
use bl_core::data::MatrixDataset;
use sblr::stream::NpySource;
use sblr::synthetic::{three_classes, two_class};
use sblr::{ExactBlockSolve, Fit, Fitted, Init, OneVsAll, Sblr, SblrError};
use std::sync::Arc;

/// The class name of every sample.
fn names<T: bl_core::data::Element>(data: &MatrixDataset<T>) -> Vec<String> {
    data.labels()
        .iter()
        .map(|&l| data.class_names()[l].clone())
        .collect()
}

/// A budget holding `k` samples of `s x t` values of `item` bytes, plus the read buffer
/// of a C-order file (whole rows of `t` values in at most `STAGING_BYTES`).
fn budget_for(k: usize, s: usize, t: usize, item: usize) -> usize {
    let row = t * item;
    let staging = bl_core::io::npy::STAGING_BYTES / row * row;
    k * s * t * item + staging.max(row)
}

/// The source of `path` with the classes of `data` (same class indices).
fn source_like(path: &std::path::Path, data: &MatrixDataset, budget: usize) -> NpySource {
    NpySource::with_classes(
        path,
        data.labels().to_vec(),
        data.class_names().to_vec(),
        budget,
    )
    .unwrap()
}

#[test]
fn streamed_binary_fits_equal_the_in_memory_fits_bit_for_bit() {
    let dir = TempDir::new("stream-binary");
    let (n, s, t) = (41, 9, 7);
    let data = two_class(n, s, t, 0.6, 5).unwrap();
    let data32 = data.to_f32().unwrap();
    for (f4, fortran) in [(false, false), (true, false), (false, true), (true, true)] {
        let path = dir.join(&format!("x-{f4}-{fortran}.npy"));
        write_samples_npy(&path, &data, f4, fortran);
        let item = if f4 { 4 } else { 8 };
        // Blocks of 6 samples: 7 blocks, the last partial.
        // A Fortran-order file's read buffer is STAGING_BYTES.
        let budget = if fortran {
            6 * s * t * item + bl_core::io::npy::STAGING_BYTES
        } else {
            budget_for(6, s, t, item)
        };
        let source = source_like(&path, &data, budget);
        // Blocks of at most 6 samples (fewer when the budget pays for several readers).
        assert!((1..=6).contains(&source.block_samples()));
        assert!(source.buffer_bytes() <= source.memory_budget());
        assert!((1..=sblr::stream::MAX_READERS).contains(&source.readers()));
        assert_eq!(source.is_f32(), f4);
        for (init, update) in [
            (Init::MeanSvd, None),
            (Init::LabelWeightedSvd, Some(ExactBlockSolve::default())),
        ] {
            let mut params = Sblr::params()
                .rank(2)
                .max_iter(15)
                .tol(0.0)
                .init(init)
                .threads(Some(2));
            if let Some(u) = update {
                params = params.block_update(Arc::new(u));
            }
            let streamed = params.fit(&source).unwrap();
            let memory = if f4 {
                params.fit(&data32).unwrap()
            } else {
                params.fit(&data).unwrap()
            };
            assert_eq!(streamed.u(), memory.u(), "f4 {f4} fortran {fortran}");
            assert_eq!(streamed.v(), memory.v());
            assert_eq!(streamed.intercept(), memory.intercept());
            assert_eq!(streamed.objective(), memory.objective());
            assert_eq!(streamed.report().iterations, 15);
            assert_eq!(streamed.class_names(), memory.class_names());
        }
    }
}

#[test]
fn streamed_one_vs_all_equals_the_in_memory_fit_bit_for_bit() {
    let dir = TempDir::new("stream-ova");
    let (n, s, t) = (30, 5, 4);
    let data = three_classes(n, s, t, 3).unwrap();
    let path = dir.join("x.npy");
    write_samples_npy(&path, &data, false, false);
    let source = source_like(&path, &data, budget_for(4, s, t, 8));
    let params = OneVsAll::new(Sblr::params().rank(1).max_iter(20));
    let streamed = params.fit(&source).unwrap();
    let memory = params.fit(&data).unwrap();
    assert_eq!(streamed.models().len(), 3);
    for (a, b) in streamed.models().iter().zip(memory.models()) {
        assert_eq!(a.u(), b.u());
        assert_eq!(a.v(), b.v());
        assert_eq!(a.intercept(), b.intercept());
    }
    assert_eq!(streamed.class_names(), memory.class_names());
    assert_eq!(streamed.report().iterations, memory.report().iterations);
}

#[test]
fn bad_files_budgets_and_labels_are_typed_errors() {
    let dir = TempDir::new("stream-bad");
    let (n, s, t) = (12, 4, 3);
    let data = two_class(n, s, t, 1.0, 2).unwrap();
    let labels = names(&data);
    let path = dir.join("x.npy");
    write_samples_npy(&path, &data, false, false);
    // A budget below one sample plus the read buffer.
    let small = budget_for(1, s, t, 8) - 1;
    match NpySource::open(&path, &labels, small) {
        Err(SblrError::BudgetTooSmall { budget, needed, .. }) => {
            assert_eq!(budget, small);
            assert_eq!(needed, small + 1);
        }
        other => panic!("expected BudgetTooSmall, got {other:?}"),
    }
    assert!(NpySource::open(&path, &labels, budget_for(1, s, t, 8)).is_ok());
    // Labels of another length.
    let e = NpySource::open(&path, &labels[..n - 1], 1 << 20).unwrap_err();
    assert!(
        matches!(e, SblrError::Core(BlError::ShapeMismatch { .. })),
        "{e}"
    );
    // One class only.
    let one = vec!["a"; n];
    let e = NpySource::open(&path, &one, 1 << 20).unwrap_err();
    assert!(
        matches!(e, SblrError::Core(BlError::TooFewClasses { .. })),
        "{e}"
    );
    // A truncated file.
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.join("cut.npy");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    let e = NpySource::open(&cut, &labels, 1 << 20).unwrap_err();
    assert!(matches!(e, SblrError::Core(BlError::Npy { .. })), "{e}");
    // Truncated after it was opened: the fit fails with the read error.
    let later = dir.join("later.npy");
    std::fs::write(&later, &bytes).unwrap();
    let source = NpySource::open(&later, &labels, budget_for(2, s, t, 8)).unwrap();
    std::fs::write(&later, &bytes[..bytes.len() / 2]).unwrap();
    let e = Sblr::params().fit(&source).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    // A wrong dtype.
    let mut ints = bytes.clone();
    let at = ints.windows(3).position(|w| w == b"<f8").unwrap();
    ints[at..at + 3].copy_from_slice(b"<i8");
    let int_path = dir.join("ints.npy");
    std::fs::write(&int_path, &ints).unwrap();
    let e = NpySource::open(&int_path, &labels, 1 << 20).unwrap_err();
    assert!(e.to_string().contains("'<i8'"), "{e}");
    // A 2-D array.
    let flat = dir.join("flat.npy");
    bl_core::io::npy::write_npy(&flat, &[n, s * t], data.as_slice()).unwrap();
    let e = NpySource::open(&flat, &labels, 1 << 20).unwrap_err();
    assert!(
        matches!(e, SblrError::Core(BlError::ShapeMismatch { .. })),
        "{e}"
    );
    // A NaN in sample 7, entry (2, 1): the fit names the sample.
    let mut values = data.as_slice().to_vec();
    values[7 * s * t + s + 2] = f64::NAN;
    let nan_data = MatrixDataset::new(
        s,
        t,
        values.clone(),
        data.labels().to_vec(),
        data.class_names().to_vec(),
    );
    assert!(nan_data.is_err(), "the in-memory data set refuses it too");
    let nan_path = dir.join("nan.npy");
    let clean = MatrixDataset::new(
        s,
        t,
        data.as_slice().to_vec(),
        data.labels().to_vec(),
        data.class_names().to_vec(),
    )
    .unwrap();
    write_samples_npy(&nan_path, &clean, false, true);
    let mut nan_bytes = std::fs::read(&nan_path).unwrap();
    // Fortran order: entry (i, a, j) is value i + n (a + s j).
    let header = nan_bytes.len() - n * s * t * 8;
    let k = header + 8 * (7 + n * (2 + s));
    nan_bytes[k..k + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    std::fs::write(&nan_path, &nan_bytes).unwrap();
    let source = NpySource::open(&nan_path, &labels, 3 * s * t * 8 + (1 << 16)).unwrap();
    match Sblr::params().fit(&source) {
        Err(SblrError::NonFiniteSample {
            sample,
            row,
            col,
            value,
            ..
        }) => {
            assert_eq!((sample, row, col), (7, 2, 1));
            assert!(value.is_nan());
        }
        other => panic!("expected NonFiniteSample, got {other:?}"),
    }
    // Three classes for a binary fit; a rank above min(s, t).
    let source = NpySource::open(&path, &labels, 1 << 20).unwrap();
    let e = Sblr::params().rank(4).fit(&source).unwrap_err();
    assert!(matches!(e, SblrError::InvalidRank { .. }), "{e}");
    let three: Vec<String> = (0..n).map(|i| format!("c{}", i % 3)).collect();
    let source = NpySource::open(&path, &three, 1 << 20).unwrap();
    let e = Sblr::params().fit(&source).unwrap_err();
    assert!(matches!(e, SblrError::NotBinary { found: 3 }), "{e}");
    let e = NpySource::with_classes(&path, vec![0; n], vec!["a".into(), "b".into()], 1 << 20)
        .and_then(|source| OneVsAll::new(Sblr::params()).fit(&source))
        .unwrap_err();
    assert!(matches!(e, SblrError::MissingClass { .. }), "{e}");
}

/// The streamed one-vs-all shows its observers every iteration of every class fit with the
/// trace off too, numbered on across the classes; its `elapsed` is the wall-clock time of
/// the fit.
#[test]
fn streamed_one_vs_all_observers_see_every_iteration_with_the_trace_off() {
    let dir = TempDir::new("stream-ova-observed");
    let (n, s, t) = (30, 5, 4);
    let data = three_classes(n, s, t, 3).unwrap();
    let path = dir.join("x.npy");
    write_samples_npy(&path, &data, false, false);
    let source = source_like(&path, &data, budget_for(4, s, t, 8));
    let params = OneVsAll::new(Sblr::params().rank(1).trace(false).max_iter(20));
    let mut numbers = Vec::new();
    let mut count = |v: &bl_core::engine::IterationView<'_>| numbers.push(v.iteration);
    let started = std::time::Instant::now();
    let fitted = params.fit_observed(&source, &mut [&mut count]).unwrap();
    let wall = started.elapsed();
    let report = fitted.report();
    assert!(report.iterations > 3);
    assert!(report.trace.is_empty());
    assert_eq!(numbers, (1..=report.iterations).collect::<Vec<_>>());
    assert!(report.elapsed <= wall, "{:?} > {wall:?}", report.elapsed);
}
