//! Diagnostic probe (not a test): why BMP trails the baselines on the Indian Pines tensor
//! (`bmp-fig2`). Loads the `.npy` file, subsamples by strides, scales to unit RMS, adds
//! N(0, 0.1^2) noise, and for each number of atoms `k` reports the training RMSE (against
//! the noisy input) and denoising RMSE (against the clean tensor) of BMP and CP-ALS, and
//! how Boolean CP's factors are: for each CP component, the smallest over the modes of
//! `||f - c 1_S|| / ||f||` (best scaled Boolean fit of the factor column), averaged.
//! The same Boolean-ness on Syn data of model (1) of the same shape for contrast.
//!
//! `cargo run --release -p boolean-tensor --example real_tensor_probe -- \
//!   data/indian-pines/Indian_pines_corrected.npy 3 4 5,10,15`

use boolean_tensor::{Bmp, CpAls, Decomposition, Fit, SyntheticParams, Tensor, metrics};

mod common;
use common::strided_unit_rms;

fn booleanness(fit: &boolean_tensor::FittedCp) -> f64 {
    let f = fit.factors();
    let rank = f[0].ncols();
    let mut total = 0.0;
    for r in 0..rank {
        let mut best = f64::INFINITY;
        for fm in &f {
            let col: Vec<f64> = (0..fm.nrows()).map(|i| fm[(i, r)]).collect();
            let (z, c) = metrics::best_boolean_fit(&col);
            let nrm: f64 = col.iter().map(|v| v * v).sum::<f64>().sqrt();
            let res: f64 = col
                .iter()
                .zip(&z)
                .map(|(v, zi)| (v - c * zi).powi(2))
                .sum::<f64>()
                .sqrt();
            best = best.min(res / nrm.max(f64::MIN_POSITIVE));
        }
        total += best;
    }
    total / rank as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = &args[1];
    let spatial: usize = args[2].parse()?;
    let band: usize = args[3].parse()?;
    let ks: Vec<usize> = args[4]
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let sweeps: Vec<usize> = args
        .get(5)
        .map_or("2,30", String::as_str)
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let clean = strided_unit_rms(&bl_core::io::read_npy(path)?, spatial, band)?;
    let shape = clean.shape();
    let mut rng = bl_core::random::seeded_rng(0);
    let noisy_data: Vec<f64> = clean
        .data()
        .iter()
        .map(|v| v + 0.1 * bl_core::random::standard_normal(&mut rng))
        .collect();
    let noisy = Tensor::from_vec(shape, noisy_data)?;
    println!("shape {shape:?}");
    if args.get(6).is_some_and(|a| a == "centre") {
        // Remove the mean spectrum (mean over pixels per band) from the input and add it
        // back to every model: the fits then model the deviations only.
        return centred(&clean, &noisy, &ks);
    }
    for &k in &ks {
        for &s in &sweeps {
            let t = std::time::Instant::now();
            let bmp = Bmp::params()
                .max_iter(k)
                .tol(0.0)
                .refit_sweeps(s)
                .refit_tol(1e-6)
                .fit(&noisy)?;
            let wb = bmp.reconstruct()?;
            let modes: Vec<usize> = bmp.atoms().iter().map(|a| a.mode()).collect();
            println!(
                "k {k:2} BMP refit {s:2}: train {:.4} denoise {:.4} ({:.1} s) sweeps {:?} modes {modes:?}",
                metrics::rmse(&wb, &noisy)?,
                metrics::rmse(&wb, &clean)?,
                t.elapsed().as_secs_f64(),
                bmp.steps()
                    .iter()
                    .map(|st| st.refit_sweeps)
                    .collect::<Vec<_>>(),
            );
        }
        let t = std::time::Instant::now();
        let cp = CpAls::params()
            .rank(k)
            .n_starts(2)
            .max_iter(150)
            .fit(&noisy)?;
        let wc = cp.reconstruct()?;
        println!(
            "k {k:2} CP-ALS:      train {:.4} denoise {:.4} ({:.1} s) boolean-ness {:.3}",
            metrics::rmse(&wc, &noisy)?,
            metrics::rmse(&wc, &clean)?,
            t.elapsed().as_secs_f64(),
            booleanness(&cp)
        );
        let syn = SyntheticParams::default()
            .shape(shape)
            .n_atoms(k)
            .noise_std(0.1)
            .seed(1)
            .generate()?;
        let cps = CpAls::params()
            .rank(k)
            .n_starts(2)
            .max_iter(150)
            .fit(syn.observed())?;
        println!(
            "k {k:2} CP-ALS on Syn (same shape, K = {k}): boolean-ness {:.3}",
            booleanness(&cps)
        );
    }
    Ok(())
}

fn centred(clean: &Tensor, noisy: &Tensor, ks: &[usize]) -> Result<(), Box<dyn std::error::Error>> {
    let [d0, d1, d2] = noisy.shape();
    let mut mean = vec![0.0; d2];
    for (k, m) in mean.iter_mut().enumerate() {
        *m = noisy.data()[k * d0 * d1..(k + 1) * d0 * d1]
            .iter()
            .sum::<f64>()
            / (d0 * d1) as f64;
    }
    let centre = |t: &Tensor, sign: f64| {
        Tensor::from_fn(t.shape(), |i, j, k| t.get(i, j, k) + sign * mean[k])
    };
    let x = centre(noisy, -1.0)?;
    let meanonly = Tensor::from_fn(noisy.shape(), |_, _, k| mean[k])?;
    println!(
        "mean spectrum alone: train {:.4} denoise {:.4}",
        metrics::rmse(&meanonly, noisy)?,
        metrics::rmse(&meanonly, clean)?
    );
    for &k in ks {
        let bmp = Bmp::params()
            .max_iter(k)
            .tol(0.0)
            .refit_sweeps(30)
            .refit_tol(1e-6)
            .fit(&x)?;
        let wb = centre(&bmp.reconstruct()?, 1.0)?;
        let cp = CpAls::params().rank(k).n_starts(2).max_iter(150).fit(&x)?;
        let wc = centre(&cp.reconstruct()?, 1.0)?;
        println!(
            "centred k {k:2}: BMP train {:.4} denoise {:.4}; CP-ALS train {:.4} denoise {:.4} boolean-ness {:.3}",
            metrics::rmse(&wb, noisy)?,
            metrics::rmse(&wb, clean)?,
            metrics::rmse(&wc, noisy)?,
            metrics::rmse(&wc, clean)?,
            booleanness(&cp)
        );
    }
    Ok(())
}
