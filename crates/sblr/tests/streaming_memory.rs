//! Memory bound of a streamed fit: on a `.npy` file 4 times larger than the memory
//! budget, the peak heap of opening the source and fitting is at most the budget plus the
//! reduced features `O((s + t) r n)` (and the solver's small vectors).
//!
//! The test binary counts heap bytes with `dhat` in testing mode (see `tests/memory.rs`
//! for why faer runs single-threaded and a fit runs before counting). The file is written
//! before the profiler starts; the samples are never in memory while it runs. A single
//! test: the harness would run others concurrently and count them too.

mod common;

use common::{TempDir, write_samples_npy};
use sblr::stream::NpySource;
use sblr::synthetic::two_class;
use sblr::{Fit as _, Fitted as _, Init, Sblr};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn a_file_four_times_the_budget_fits_within_the_budget_plus_the_reduced_features() {
    let (n, s, t, r) = (400, 60, 50, 2);
    let dir = TempDir::new("stream-memory");
    let path = dir.join("x.npy");
    let data = two_class(n, s, t, 0.5, 3).unwrap();
    write_samples_npy(&path, &data, false, false);
    let labels = data.labels().to_vec();
    let classes = data.class_names().to_vec();
    drop(data);
    let data_bytes = n * s * t * size_of::<f64>();
    let budget = data_bytes / 4;
    faer::set_global_parallelism(faer::Par::Seq);
    let params = Sblr::params()
        .rank(r)
        .max_iter(8)
        .init(Init::LabelWeightedSvd)
        .threads(Some(1));
    {
        let warm = NpySource::with_classes(&path, labels.clone(), classes.clone(), budget).unwrap();
        params.fit(&warm).unwrap();
    }
    let _profiler = dhat::Profiler::builder().testing().build();
    let source = NpySource::with_classes(&path, labels, classes, budget).unwrap();
    assert!(source.buffer_bytes() <= budget);
    assert!(
        source.block_samples() < n / 3,
        "the file takes several blocks"
    );
    let fitted = params.fit(&source).unwrap();
    assert_eq!(fitted.report().iterations, 8);
    let features = (s + t) * r * n * size_of::<f64>();
    // The solver's vectors: a dozen of length n or (s, t) r, the start's s x t mean and
    // SVD, the trace.
    let small = 16 * (n + (s + t) * r) * size_of::<f64>() + 8 * s * t * size_of::<f64>();
    let bound = budget + features + small;
    let peak =
        common::assert_peak_within("streamed fit", bound, ("the file's samples", data_bytes));
    assert!(
        peak < data_bytes / 2,
        "peak {peak} B is not well below the data"
    );
    // The count is sensitive: a copy of one block's worth shows up.
    common::assert_counted(budget, || vec![0u8; budget]);
}
