//! Loading a saved model reserves no more than the values it parses, whatever sizes the
//! file declares: a model with 400 000 factor entries edited to wrong shapes (one entry
//! too many, sizes that overflow, huge weights) fails within 100 ms, and the peak heap of
//! the failed load stays below twice the parsed values (a `Vec` doubles as it grows)
//! plus 1 MiB.
//!
//! The test binary counts heap bytes with `dhat`; it holds a single test, because the
//! harness would run others concurrently and count them too.

mod common;

use std::time::{Duration, Instant};

use sblr::SavedModel as _;
use sblr::synthetic::two_class;
use sblr::{FittedSblr, SblrError};
use serde_json::{Value, json};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn failed_loads_of_a_large_model_are_fast_and_small() {
    let json = common::saved_sblr(&two_class(12, 3, 3, 1.0, 0).unwrap(), 3);
    let n = 200_000;
    let large = |edit: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(&json).unwrap();
        v["s"] = json!(n);
        v["t"] = json!(n);
        v["rank"] = json!(1);
        v["params"]["rank"] = json!(1);
        v["u"] = json!(vec![0.001; n]);
        v["v"] = json!(vec![-0.002; n]);
        edit(&mut v);
        serde_json::to_string(&v).unwrap()
    };
    let cases: Vec<(&str, &str, String)> = vec![
        (
            "u one too long",
            "u",
            large(&|v| v["u"].as_array_mut().unwrap().push(json!(0.0))),
        ),
        (
            "v one too short",
            "v",
            large(&|v| drop(v["v"].as_array_mut().unwrap().pop())),
        ),
        (
            "s * rank overflows",
            "u",
            large(&|v| {
                v["s"] = json!(u64::MAX);
                v["rank"] = json!(2);
                v["params"]["rank"] = json!(2);
            }),
        ),
        (
            "weights of 1e300",
            "u, v, intercept",
            large(&|v| {
                v["u"][0] = json!(1e300);
                v["v"][0] = json!(1e300);
            }),
        ),
    ];
    // The valid large model loads.
    assert_eq!(
        FittedSblr::from_json(&large(&|_| {})).unwrap().shape(),
        (n, n)
    );
    let parsed_bytes = 2 * n * size_of::<f64>();
    let budget = 2 * parsed_bytes + (1 << 20);
    for (case, field, text) in cases {
        let profiler = dhat::Profiler::builder().testing().build();
        let started = Instant::now();
        let err = FittedSblr::from_json(&text).unwrap_err();
        let elapsed = started.elapsed();
        let peak = dhat::HeapStats::get().max_bytes;
        drop(profiler);
        eprintln!(
            "{case}: {elapsed:?}, peak heap {peak} B for a {} B file ({parsed_bytes} B of \
             values); {err}",
            text.len()
        );
        assert!(
            matches!(&err, SblrError::InvalidModel { field: f, .. } if *f == field),
            "{case}: {err}"
        );
        let limit = Duration::from_millis(100);
        let elapsed = elapsed.min(common::fastest_run(limit, || {
            let _ = FittedSblr::from_json(&text);
        }));
        assert!(elapsed < limit, "{case}: {elapsed:?}");
        assert!(peak <= budget, "{case}: peak {peak} B > budget {budget} B");
    }
    // The peaks above can exceed the budget: an allocation of the budget shows in one.
    let _profiler = dhat::Profiler::builder().testing().build();
    common::assert_counted(budget + 1, || vec![0u8; budget + 1]);
}
