//! Fits a sparse bilinear logistic regression model on `.npy` files.
//!
//! ```text
//! cargo run -p sblr --example fit_npy -- X.npy y.npy [rank] [mu1 mu2 nu1 nu2]
//! ```
//!
//! `X.npy` holds an `n x s x t` array of samples (any numeric dtype), `y.npy` one label
//! per sample (two distinct values). Prints the training accuracy, the fit's iterations
//! and the nonzero pattern of `U` and `V`, then writes the fitted model as JSON to
//! `model.json`.
//!
//! Without arguments it writes a small demo pair `demo_X.npy`, `demo_y.npy` into the
//! system temp folder and fits that.

use std::error::Error;
use std::path::PathBuf;

use bl_core::io::{read_npy, write_npy};
use sblr::{Fit as _, Fitted as _, Predict as _};
use sblr::{Init, Sblr};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (x_path, y_path) = match args.as_slice() {
        [x, y, ..] => (PathBuf::from(x), PathBuf::from(y)),
        _ => write_demo()?,
    };
    let rank: usize = args.get(2).map(|r| r.parse()).transpose()?.unwrap_or(1);
    let pens: Vec<f64> = args
        .iter()
        .skip(3)
        .map(|p| p.parse())
        .collect::<Result<_, _>>()?;
    let (mu1, mu2, nu1, nu2) = match pens.as_slice() {
        [a, b, c, d] => (*a, *b, *c, *d),
        [] => (0.01, 0.5, 0.01, 0.5),
        _ => return Err("give all four penalties mu1 mu2 nu1 nu2, or none".into()),
    };

    let x = read_npy(&x_path)?;
    let y = read_npy(&y_path)?;
    let [n, s, t] = x.shape[..] else {
        return Err(format!(
            "{}: expected an n x s x t array, found shape {:?}",
            x_path.display(),
            x.shape
        )
        .into());
    };
    if y.len() != n {
        return Err(format!(
            "{}: expected {n} labels, found {}",
            y_path.display(),
            y.len()
        )
        .into());
    }
    let labels: Vec<String> = y.data.iter().map(|v| v.to_string()).collect();
    let data = sblr::data::dataset_from_c_order(s, t, &x.data, &labels)?;

    let model = Sblr::params()
        .rank(rank)
        .penalties(mu1, mu2, nu1, nu2)
        .init(Init::LabelWeightedSvd)
        .fit(&data)?;
    let accuracy = bl_core::metrics::accuracy(data.labels(), &model.predict(&data)?)?;
    println!(
        "{n} samples of {s} x {t}, classes {:?}; rank {rank}; {} iterations ({:?}); objective {:.6}",
        data.class_names(),
        model.report().iterations,
        model.report().termination,
        model.objective()
    );
    println!("training accuracy {accuracy:.4}");
    let nz = |m: faer::MatRef<'_, f64>| {
        (0..m.nrows())
            .filter(|&i| (0..m.ncols()).any(|k| m[(i, k)] != 0.0))
            .collect::<Vec<_>>()
    };
    println!("nonzero rows of U: {:?}", nz(model.u()));
    println!("nonzero rows of V: {:?}", nz(model.v()));
    std::fs::write("model.json", serde_json::to_string_pretty(&model)?)?;
    println!("model written to model.json");
    Ok(())
}

/// Writes Table 1-style demo data (`randn(6, 5) ± 1`, 40 samples) as `.npy` files.
fn write_demo() -> Result<(PathBuf, PathBuf), Box<dyn Error>> {
    let data = sblr::synthetic::two_class(40, 6, 5, 1.0, 0)?;
    let (s, t) = data.shape();
    let n = data.n_samples();
    let mut c_order = vec![0.0; n * s * t];
    for i in 0..n {
        let x = data.sample(i);
        for a in 0..s {
            for j in 0..t {
                c_order[i * s * t + a * t + j] = x[(a, j)];
            }
        }
    }
    let dir = std::env::temp_dir();
    let (xp, yp) = (dir.join("demo_X.npy"), dir.join("demo_y.npy"));
    write_npy(&xp, &[n, s, t], &c_order)?;
    let y: Vec<f64> = data.labels().iter().map(|&l| l as f64).collect();
    write_npy(&yp, &[n], &y)?;
    println!(
        "no files given: wrote {} and {}",
        xp.display(),
        yp.display()
    );
    Ok((xp, yp))
}
