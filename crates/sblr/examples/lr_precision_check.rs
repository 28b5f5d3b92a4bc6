//! Check: the logistic-regression baseline (L2, the defaults of
//! `LogisticRegression::params()`) fitted on the Table 1 data (Shi, Xu, Baraniuk 2014,
//! Sec. 7.2: `n = 100`, `X_i = randn(s, t) ± 1`, `s = t = SIZE`, seed 0) stored as f64 and
//! as f32, and the speed of reading the f32 samples in place.
//!
//! Prints three tables:
//!
//! 1. the two products of a FISTA iteration (`z^T w`, `z c`) on `f64` samples (faer's
//!    products, one thread, for comparison; and [`Samples`], the fit's path) and on `f32`
//!    samples ([`Samples`]), on 1 and 2 threads, as ratios to one single-thread streaming
//!    read of the `f64` samples ([`sblr::yardstick::streaming_read`]) measured in the same
//!    rounds (median of `ROUNDS` interleaved rounds);
//! 2. the time per FISTA iteration on the `f64` and the `f32` data set on 1 and 2 threads
//!    (median over iterations 31-130 of a fit, median of interleaved fits), over the same
//!    yardstick;
//! 3. the default fits on both: objectives, their relative difference, the training
//!    accuracies, the accuracies on a second draw of the same distribution (seed 1), the
//!    FISTA iterations and the seconds.
//!
//! `cargo run --release -p sblr --features probes --example lr_precision_check [-- SIZE [ROUNDS]]`

use std::hint::black_box;
use std::time::Instant;

mod common;

use bl_core::data::{Element, MatrixDataset};
use bl_core::linalg::LinearOperator;
use sblr::passes::Samples;
use sblr::yardstick::streaming_read;
use sblr::{Fit as _, Fitted as _, LogisticRegression, Predict as _};

fn accuracy<T: Element>(
    model: &sblr::FittedLogisticRegression,
    data: &MatrixDataset<T>,
) -> Result<f64, sblr::SblrError> {
    let predicted: Vec<usize> = model.predict(data)?;
    let right = predicted
        .iter()
        .zip(data.labels())
        .filter(|(p, l)| p == l)
        .count();
    Ok(right as f64 / data.n_samples() as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds of one call of `f`.
fn seconds(mut f: impl FnMut()) -> f64 {
    let started = Instant::now();
    f();
    started.elapsed().as_secs_f64()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let size: usize = args.next().map_or(Ok(500), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(7), |a| a.parse())?;
    let (train, train32) = common::table1(size, 0)?;
    let (test, test32) = common::table1(size, 1)?;
    let (d, n) = (size * size, train.n_samples());
    println!("s = t = {size}, n = {n}, d = {d}; median of {rounds} interleaved rounds");

    // 1. The two products, against one streaming read of the f64 samples.
    let faer64 = train.vectorized();
    let own64 = Samples::of(&train)?.with_threads(Some(1))?;
    let own32 = Samples::of(&train32)?.with_threads(Some(1))?;
    let own64_2 = Samples::of(&train)?.with_threads(Some(2))?;
    let own32_2 = Samples::of(&train32)?.with_threads(Some(2))?;
    let w: Vec<f64> = (0..d).map(|j| ((j % 7) as f64 - 3.0) * 1e-3).collect();
    let c: Vec<f64> = (0..n).map(|i| ((i % 5) as f64 - 2.0) * 1e-2).collect();
    let (mut scores, mut grad) = (vec![0.0; n], vec![0.0; d]);
    let names = [
        "read f64 (yardstick)",
        "read f32",
        "z^T w, f64, faer",
        "z^T w, f64, Samples",
        "z^T w, f32, Samples",
        "z c, f64, faer",
        "z c, f64, Samples",
        "z c, f32, Samples",
        "z^T w, f64, Samples, 2 threads",
        "z^T w, f32, Samples, 2 threads",
        "z c, f64, Samples, 2 threads",
        "z c, f32, Samples, 2 threads",
    ];
    let mut times = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        times[0].push(seconds(|| {
            black_box(streaming_read(train.as_slice()));
        }));
        times[1].push(seconds(|| {
            black_box(streaming_read(train32.as_slice()));
        }));
        times[2].push(seconds(|| faer64.apply_transpose(&w, &mut scores)));
        times[3].push(seconds(|| own64.apply_transpose(&w, &mut scores)));
        times[4].push(seconds(|| own32.apply_transpose(&w, &mut scores)));
        times[5].push(seconds(|| faer64.apply(&c, &mut grad)));
        times[6].push(seconds(|| own64.apply(&c, &mut grad)));
        times[7].push(seconds(|| own32.apply(&c, &mut grad)));
        times[8].push(seconds(|| own64_2.apply_transpose(&w, &mut scores)));
        times[9].push(seconds(|| own32_2.apply_transpose(&w, &mut scores)));
        times[10].push(seconds(|| own64_2.apply(&c, &mut grad)));
        times[11].push(seconds(|| own32_2.apply(&c, &mut grad)));
        black_box((&scores, &grad));
    }
    let medians: Vec<f64> = times.into_iter().map(median).collect();
    println!();
    common::table_header(&["operation", "ms", "/ read f64"]);
    for (name, t) in names.iter().zip(&medians) {
        println!("| {name} | {:.2} | {:.2} |", t * 1e3, t / medians[0]);
    }

    // 2. Time per FISTA iteration past the first 30 (whose backtracking searches for the
    // step parameter from `l_min`), fixed budget (the tolerance is never reached).
    let fixed = LogisticRegression::params().tol(1e-300).max_iter(130);
    // [f64 1 thread, f32 1 thread, f64 2 threads, f32 2 threads]
    let mut per = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..rounds.div_ceil(2) {
        for (k, out) in per.iter_mut().enumerate() {
            let data_is_f32 = k % 2 == 1;
            let fixed = fixed.threads(Some(1 + k / 2));
            let mut stamps = Vec::with_capacity(130);
            let mut clock = |_: &bl_core::engine::IterationView<'_>| stamps.push(Instant::now());
            if data_is_f32 {
                fixed.fit_observed(&train32, &mut [&mut clock])?;
            } else {
                fixed.fit_observed(&train, &mut [&mut clock])?;
            }
            // `stamps[k]` ends iteration `k + 1`: the windows from `stamps[29]` are
            // iterations 31-130.
            let steps: Vec<f64> = stamps[29..]
                .windows(2)
                .map(|w| (w[1] - w[0]).as_secs_f64())
                .collect();
            out.push(median(steps));
        }
    }
    let per = per.map(median);
    println!();
    common::table_header(&[
        "FISTA iteration (median of iterations 31-130)",
        "ms",
        "/ read f64",
    ]);
    for (name, t) in [
        "f64 samples, 1 thread",
        "f32 samples, 1 thread",
        "f64 samples, 2 threads",
        "f32 samples, 2 threads",
    ]
    .iter()
    .zip(per)
    {
        println!("| {name} | {:.2} | {:.2} |", t * 1e3, t / medians[0]);
    }
    println!(
        "time per iteration f32 / f64: {:.3} (1 thread), {:.3} (2 threads)",
        per[1] / per[0],
        per[3] / per[2]
    );

    // 3. The default fits.
    let params = LogisticRegression::params();
    let started = Instant::now();
    let wide = params.fit(&train)?;
    let wide_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let narrow = params.fit(&train32)?;
    let narrow_seconds = started.elapsed().as_secs_f64();
    let rel = |a: f64, b: f64| (a - b).abs() / a.abs().max(b.abs()).max(f64::MIN_POSITIVE);
    println!("\nL2 logistic regression (l2 = 1e-2, tol = 1e-6)");
    common::table_header(&[
        "storage",
        "objective",
        "train accuracy",
        "test accuracy",
        "FISTA iterations",
        "seconds",
    ]);
    let (wide_train, narrow_train) = (accuracy(&wide, &train)?, accuracy(&narrow, &train32)?);
    let (wide_test, narrow_test) = (accuracy(&wide, &test)?, accuracy(&narrow, &test32)?);
    for (name, model, train_acc, test_acc, seconds) in [
        ("f64", &wide, wide_train, wide_test, wide_seconds),
        ("f32", &narrow, narrow_train, narrow_test, narrow_seconds),
    ] {
        println!(
            "| {name} | {:.12e} | {train_acc:.4} | {test_acc:.4} | {} | {seconds:.2} |",
            model.objective(),
            model.report().iterations,
        );
    }
    println!(
        "relative difference: objective {:.3e}, train accuracy {:.3e}, test accuracy {:.3e}",
        rel(wide.objective(), narrow.objective()),
        rel(wide_train, narrow_train),
        rel(wide_test, narrow_test),
    );
    println!(
        "seconds per FISTA iteration f32 / f64 (default fits): {:.3}",
        (narrow_seconds / narrow.report().iterations as f64)
            / (wide_seconds / wide.report().iterations as f64)
    );
    Ok(())
}
