//! Check: the logistic-regression baseline (L2, the defaults of
//! `LogisticRegression::params()`) fitted on the Table 1 data (Shi, Xu, Baraniuk 2014,
//! Sec. 7.2: `n = 100`, `X_i = randn(s, t) ± 1`, `s = t = 500`, seed 0) stored as f64 and
//! as f32; prints both objectives, their relative difference, the training accuracies,
//! the accuracies on a second draw of the same distribution (seed 1) and the FISTA
//! iterations.
//!
//! `cargo run --release -p sblr --example lr_precision_check [-- SIZE]`

use bl_core::data::{Element, MatrixDataset};
use sblr::synthetic::two_class;
use sblr::{Fit as _, Fitted as _, LogisticRegression};

fn accuracy<T: Element>(
    model: &sblr::FittedLogisticRegression,
    data: &MatrixDataset<T>,
) -> Result<f64, sblr::SblrError> {
    let predicted = model.predict(data)?;
    let right = predicted
        .iter()
        .zip(data.labels())
        .filter(|(p, l)| p == l)
        .count();
    Ok(right as f64 / data.n_samples() as f64)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let size: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse()?,
        None => 500,
    };
    let train = two_class(100, size, size, 1.0, 0)?;
    let test = two_class(100, size, size, 1.0, 1)?;
    let (train32, test32) = (train.to_f32()?, test.to_f32()?);
    let params = LogisticRegression::params();
    let started = std::time::Instant::now();
    let wide = params.fit(&train)?;
    let wide_seconds = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let narrow = params.fit(&train32)?;
    let narrow_seconds = started.elapsed().as_secs_f64();
    let rel = |a: f64, b: f64| (a - b).abs() / a.abs().max(b.abs()).max(f64::MIN_POSITIVE);
    println!("s = t = {size}, n = 100, L2 logistic regression (l2 = 1e-2, tol = 1e-6)");
    println!(
        "| storage | objective | train accuracy | test accuracy | FISTA iterations | seconds |"
    );
    println!("|---|---|---|---|---|---|");
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
    Ok(())
}
