//! Fitting the linear baselines on `f32` samples makes no widened `f64` copy of the data:
//! the peak heap of a `LogisticRegression` fit on `f32` samples stays below a sixth of the
//! size of such a copy (what FISTA holds is `O(s t + n)`), and a one-vs-all fit of three
//! classes (fitted concurrently by rayon) below three times that.
//!
//! The test binary counts heap bytes with `dhat` in testing mode. Only allocations made
//! while the profiler runs are counted, so the data sets are built before it starts. This
//! file holds a single test, because the harness would run others concurrently and count
//! them too.

mod common;

use sblr::synthetic::{three_classes, two_class};
use sblr::{Fit as _, Fitted as _, LogisticRegression, OneVsAll};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn f32_fits_never_widen_the_data() {
    // n = 100 samples of 150 x 120: 7.2 MB as f32, 14.4 MB widened to f64.
    let (n, s, t) = (100, 150, 120);
    let binary = two_class(n, s, t, 1.0, 3).unwrap().to_f32().unwrap();
    let multi = three_classes(n, s, t, 4).unwrap().to_f32().unwrap();
    let widened_bytes = n * s * t * size_of::<f64>();
    // FISTA's vectors: about a dozen of length s t + 1 or n, plus the fitted weights.
    let budget = 16 * (s * t + n) * size_of::<f64>();
    assert!(budget * 6 < widened_bytes && 3 * budget < widened_bytes / 2);
    let _profiler = dhat::Profiler::builder().testing().build();
    let params = LogisticRegression::params().l1(0.01).max_iter(20);
    let model = params.fit(&binary).unwrap();
    assert!(model.report().iterations >= 1);
    let widened = ("a widened copy", widened_bytes);
    common::assert_peak_within("LogisticRegression", budget, widened);
    let ova = OneVsAll::new(params).fit(&multi).unwrap();
    assert_eq!(ova.models().len(), 3);
    common::assert_peak_within("with one-vs-all", 3 * budget, widened);
    // The check is sensitive: a widened copy shows up in the peak.
    common::assert_counted(widened_bytes, || binary.to_f64().unwrap());
}
