//! Memory bound of the crate: fitting never copies the data set; the peak heap use of a
//! fit is at most `0.2 x` the data size plus `O((s + t) r n)`.
//!
//! The test binary counts heap bytes with `dhat` in testing mode. Only allocations made
//! while the profiler runs are counted, so the data set is built before it starts and
//! `max_bytes` is the peak of what the fits hold on top of it. This file holds a single
//! test, because the harness would run others concurrently and count them too.
//!
//! One allocation is not the fit's: on first use in a thread, faer's x86 matrix-product
//! backend (`private-gemm-x86`) reserves a thread-local page cache of 64 MiB (`dhat` saw
//! 134 MB over two threads). It does not depend on the data, lives as long as the thread,
//! and is address space rather than touched memory. The test therefore runs faer
//! single-threaded and fits once before counting, so that the cache already exists.

mod common;

use bl_core::data::MatrixDataset;
use sblr::ExactBlockSolve;
use sblr::ProxLinearStep;
use sblr::synthetic::two_class;
use sblr::{Fit as _, Fitted as _};
use sblr::{Init, MultinomialSblr, Sblr};
use std::sync::Arc;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn fitting_never_copies_the_data() {
    // n = 100 samples of 160 x 120: 15.4 MB of data.
    let (n, s, t, r) = (100, 160, 120, 2);
    let data: MatrixDataset = two_class(n, s, t, 1.0, 11).unwrap();
    faer::set_global_parallelism(faer::Par::Seq);
    Sblr::params().rank(r).max_iter(2).fit(&data).unwrap();
    let _profiler = dhat::Profiler::builder().testing().build();
    let data_bytes = n * s * t * size_of::<f64>();
    // O((s + t) r n) with a generous constant: per-sample blocks X_i V (s x r) and
    // U^T X_i (r x t), plus gradients, trials and the trace, all far below the data size.
    let budget = data_bytes / 5 + 16 * (s + t) * r * n * size_of::<f64>();
    let base = Sblr::params()
        .rank(r)
        .penalties(0.01, 0.5, 0.01, 0.5)
        .max_iter(10);
    let cases = [
        (
            "Alg. 2, mean-SVD start",
            base.clone()
                .block_update(Arc::new(ProxLinearStep::default())),
        ),
        (
            "Alg. 1, mean-SVD start",
            base.clone()
                .block_update(Arc::new(ExactBlockSolve::default())),
        ),
        (
            "Alg. 2, label-weighted start",
            base.clone().init(Init::LabelWeightedSvd),
        ),
    ];
    for (name, params) in cases {
        let fitted = params.fit(&data).unwrap();
        assert!(fitted.report().iterations >= 1, "{name}");
        eprintln!("{name}: peak so far {} B", dhat::HeapStats::get().max_bytes);
    }
    // The multinomial model (two classes here: m = 1) has the same bound.
    let params = MultinomialSblr::params()
        .rank(r)
        .penalties(0.01, 0.5, 0.01, 0.5)
        .max_iter(10);
    params.clone().fit(&data).unwrap();
    common::assert_peak_within("the fits", budget, ("the data", data_bytes));
    // The check is sensitive: a copy of the data shows up in the peak.
    common::assert_counted(data_bytes, || data.stacked().to_owned());
}
