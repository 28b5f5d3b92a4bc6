//! Check: SBLR fitted on the Table 1 data (Shi, Xu, Baraniuk 2014, Sec. 7.2: `n = 100`,
//! `X_i = randn(s, t) ± 1`, seed 0) stored as f64 and as f32, with the stopping rule of
//! Sec. 7.1 (`q^k <= 1e-3` or 500 iterations), rank 1, for both parameter sets of Table 1
//! (`(mu1, mu2, nu1, nu2)` = `(0.1, 1, 0.1, 1)` and `(0.1, 0, 0.1, 0)`), Alg. 2 and the
//! multinomial model (Alg. 3); prints both objectives, their relative difference, the
//! iterations and the training accuracies. The f32 fit reads f32 samples and accumulates
//! in f64; its objective is compared with the fit on the original f64 samples (not on the
//! f32 values widened back), i.e. what a user who stores the data in single precision
//! gets.
//!
//! Three stopping rules per setting: the paper's (`tol = 1e-3`, where the two fits may stop
//! at different iterations), the f64 fit's iteration count for both (`tol = 0`), and a tight
//! `tol = 1e-7` (both near the minimizer).
//!
//! `cargo run --release -p sblr --example sblr_precision_check [-- SIZE ...]` (default 500)

mod common;

use bl_core::data::{Element, MatrixDataset};
use sblr::{Fit as _, Fitted as _, Predict as _, Sblr};

fn accuracy(predicted: &[usize], labels: &[usize]) -> f64 {
    let right = predicted.iter().zip(labels).filter(|(p, l)| p == l).count();
    right as f64 / labels.len() as f64
}

/// `(objective, iterations, training accuracy)` of the binary model and of the multinomial
/// model fitted on `data` with penalties `set`, tolerance `tol` and at most `max_iter`
/// iterations (`[binary, multinomial]`).
fn fits<T: Element>(
    data: &MatrixDataset<T>,
    set: (f64, f64, f64, f64),
    tol: f64,
    max_iter: [usize; 2],
) -> Result<[(f64, usize, f64); 2], sblr::SblrError> {
    let (mu1, mu2, nu1, nu2) = set;
    let params = Sblr::params()
        .rank(1)
        .penalties(mu1, mu2, nu1, nu2)
        .tol(tol);
    let binary = params.clone().max_iter(max_iter[0]).fit(data)?;
    // The same settings (and Alg. 2's step rule) for Alg. 3.
    let multinomial = params.multinomial().max_iter(max_iter[1]).fit(data)?;
    Ok([
        (
            binary.objective(),
            binary.report().iterations,
            accuracy(&binary.predict(data)?, data.labels()),
        ),
        (
            multinomial.objective(),
            multinomial.report().iterations,
            accuracy(&multinomial.predict(data)?, data.labels()),
        ),
    ])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    common::table_header(&[
        "s = t",
        "set",
        "stop",
        "model",
        "objective f64",
        "objective f32",
        "relative difference",
        "iterations f64 / f32",
        "train accuracy f64 / f32",
    ]);
    for size in common::sizes(&[500])? {
        let (wide, narrow) = common::table1(size, 0)?;
        for (name, set) in [("1", (0.1, 1.0, 0.1, 1.0)), ("2", (0.1, 0.0, 0.1, 0.0))] {
            let paper = fits(&wide, set, 1e-3, [500, 500])?;
            let same = [paper[0].1, paper[1].1];
            for (stop, tol, max_iter) in [
                ("q <= 1e-3", 1e-3, [500, 500]),
                ("f64's iterations", 0.0, same),
                ("q <= 1e-7", 1e-7, [5000, 5000]),
            ] {
                let a = if tol == 1e-3 {
                    paper
                } else {
                    fits(&wide, set, tol, max_iter)?
                };
                let b = fits(&narrow, set, tol, max_iter)?;
                for (model, (x, y)) in ["binary", "multinomial"].iter().zip(a.iter().zip(&b)) {
                    let rel = (x.0 - y.0).abs() / x.0.abs().max(y.0.abs()).max(f64::MIN_POSITIVE);
                    println!(
                        "| {size} | {name} | {stop} | {model} | {:.12e} | {:.12e} | {rel:.2e} | {} / {} | {:.4} / {:.4} |",
                        x.0, y.0, x.1, y.1, x.2, y.2
                    );
                }
            }
        }
    }
    Ok(())
}
