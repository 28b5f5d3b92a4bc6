//! Timing and quality probe of CP-ALS (not a test). Run in release:
//!
//! `cargo run --release -p boolean-tensor --example cp_probe -- sweep 45,70,100,150 15 10 /tmp/cp_probe`
//! times, per size `d^3` (Syn2-like data: K = 15 atoms, noise N(0, 1), seed 2018), with
//! 1 and 2 rayon threads: the CP-ALS sweep of `CpAls` (from its report's trace), its
//! start [`hosvd_start`], and in the same run the kernel CP-ALS had before (explicit
//! Khatri–Rao product, unfolding copy of mode 1, one product per mode) and the exact
//! HOSVD start (Gram matrix of every unfolding); writes each tensor as
//! `<dir>/cp_<d>.npy` (C order, axes (k, j, i)) for `benches/probes/tensor_tensorly_cp.py`.
//! SWEEPS sweeps at the largest size, `SWEEPS (largest / d)^3` (integer ratio) below.
//! Prints one tab-separated line per (size, threads), times in ms (minimum over 3 runs).
//!
//! `cargo run --release -p boolean-tensor --example cp_probe -- quality <d>` compares the
//! final loss of CP-ALS (the same sweeps, up to 300, tol 1e-9) from the randomized start
//! and from the exact HOSVD start on the data of `bmp-fig1` (Syn0/1/2, denoising and
//! completion) at `d^3`, and on Indian Pines (`bmp-fig2`, quick stride) when
//! `$BILINEAR_DATA_DIR/indian-pines` exists.

use std::time::Instant;

use boolean_tensor::{CpAls, Fit, Fitted, SyntheticParams, Tensor, cp::hosvd_start, khatri_rao};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par, Side};

mod common;
use common::{strided_unit_rms, syn2};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("sweep") => {
            let sizes_arg = args.get(1).map_or("45,70,100,150", String::as_str);
            let sizes: Vec<usize> = sizes_arg
                .split(',')
                .map(str::parse)
                .collect::<Result<_, _>>()?;
            let rank: usize = args.get(2).map_or(Ok(15), |s| s.parse())?;
            let sweeps: usize = args.get(3).map_or(Ok(10), |s| s.parse())?;
            let dir = args.get(4).map_or("/tmp/cp_probe", String::as_str);
            std::fs::create_dir_all(dir)?;
            println!(
                "d\tthreads\tsweeps\tnew_sweep_ms\tnew_start_ms\told_sweep_ms\told_start_ms\tsweep_speedup\tstart_speedup"
            );
            let largest = sizes.iter().copied().max().unwrap_or(1);
            for d in sizes {
                // The same work at every size: SWEEPS at the largest, more below.
                let sweeps = sweeps.max(sweeps * (largest / d).pow(3));
                let x = syn2(d, 0.0)?;
                bl_core::io::write_npy(format!("{dir}/cp_{d}.npy"), &[d, d, d], x.data())?;
                for threads in [1, 2] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()?;
                    let row = pool.install(|| {
                        time_size(&x, rank, sweeps, threads).map_err(|e| e.to_string())
                    })?;
                    println!(
                        "{d}\t{threads}\t{sweeps}\t{:.3}\t{:.3}\t{:.3}\t{:.3}\t{:.2}\t{:.2}",
                        row[0],
                        row[1],
                        row[2],
                        row[3],
                        row[2] / row[0],
                        row[3] / row[1]
                    );
                }
            }
        }
        Some("quality") => {
            let d: usize = args.get(1).map_or(Ok(50), |s| s.parse())?;
            println!(
                "data\tk\tloss_randomized_start\tsweeps\tloss_exact_start\tsweeps\trelative_difference"
            );
            for (name, k) in [("Syn0", 3), ("Syn1", 9), ("Syn2", 15)] {
                let base = SyntheticParams::default()
                    .shape([d, d, d])
                    .n_atoms(k)
                    .seed(7);
                let noisy = base.clone().noise_std(1.0).generate()?;
                quality(&format!("{name}-denoise"), noisy.observed(), k)?;
                let masked = base.missing_fraction(0.1).generate()?;
                quality(&format!("{name}-complete"), masked.observed(), k)?;
            }
            if let Ok(dir) = std::env::var("BILINEAR_DATA_DIR") {
                let path = format!("{dir}/indian-pines/Indian_pines_corrected.npy");
                if let Ok(arr) = bl_core::io::read_npy(&path) {
                    let x = strided_unit_rms(&arr, 3, 4)?;
                    for k in [5, 10, 20] {
                        quality("IndianPines", &x, k)?;
                    }
                }
            }
        }
        _ => eprintln!("usage: cp_probe sweep SIZES RANK SWEEPS DIR | cp_probe quality D"),
    }
    Ok(())
}

/// `[new sweep, new start, old sweep, old start]` in ms, minimum over 3 runs.
fn time_size(x: &Tensor, rank: usize, sweeps: usize, threads: usize) -> Res<[f64; 4]> {
    let par = Par::rayon(threads);
    let mut best = [f64::INFINITY; 4];
    for _ in 0..3 {
        let fit = CpAls::params()
            .rank(rank)
            .n_starts(1)
            .max_iter(sweeps)
            .tol(0.0)
            .fit(x)?;
        let report = fit.report();
        let last = report
            .trace
            .records()
            .last()
            .map_or(f64::NAN, |r| r.elapsed_s);
        best[0] = best[0].min(last * 1e3 / report.iterations as f64);

        let t = Instant::now();
        let start = hosvd_start(x, rank, 0)?;
        best[1] = best[1].min(t.elapsed().as_secs_f64() * 1e3);

        let mut f = start.clone();
        let t = Instant::now();
        for _ in 0..sweeps {
            old_sweep(x, &mut f, par)?;
        }
        best[2] = best[2].min(t.elapsed().as_secs_f64() * 1e3 / sweeps as f64);

        let t = Instant::now();
        std::hint::black_box(exact_start(x, rank, par)?);
        best[3] = best[3].min(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(best)
}

/// The CP-ALS sweep as it was before the in-place kernels: per mode, the explicit
/// Khatri–Rao product, the unfolding (a view for modes 0 and 2, a copy for mode 1), one
/// product, then the normal equations; then the column norms of `F0`, `F1` into `F2`.
fn old_sweep(x: &Tensor, f: &mut [Mat<f64>; 3], par: Par) -> Res<()> {
    let [d0, d1, d2] = x.shape();
    for n in 0..3 {
        let (a, b) = [(1, 2), (0, 2), (0, 1)][n];
        let kr = khatri_rao(f[b].as_ref(), f[a].as_ref())?;
        let copy;
        let unf: MatRef<'_, f64> = match n {
            0 => MatRef::from_column_major_slice(x.data(), d0, d1 * d2),
            1 => {
                copy = x.unfold(1)?;
                copy.as_ref()
            }
            _ => MatRef::from_column_major_slice(x.data(), d0 * d1, d2).transpose(),
        };
        let mut m = Mat::zeros(x.shape()[n], kr.ncols());
        matmul(m.as_mut(), Accum::Replace, unf, kr.as_ref(), 1.0, par);
        let ga = f[a].transpose() * &f[a];
        let gb = f[b].transpose() * &f[b];
        let g = Mat::from_fn(ga.nrows(), ga.ncols(), |i, j| ga[(i, j)] * gb[(i, j)]);
        f[n] = solve_right(g.as_ref(), m.as_ref())?;
    }
    // Rebalance: unit columns in F0 and F1, their norms moved into F2.
    for r in 0..f[0].ncols() {
        let norms = [f[0].col(r).norm_l2(), f[1].col(r).norm_l2()];
        if norms.iter().all(|&n| n > 0.0) {
            f[0].col_mut(r).iter_mut().for_each(|v| *v /= norms[0]);
            f[1].col_mut(r).iter_mut().for_each(|v| *v /= norms[1]);
            f[2].col_mut(r)
                .iter_mut()
                .for_each(|v| *v *= norms[0] * norms[1]);
        }
    }
    Ok(())
}

/// `X G = B` for symmetric positive definite `G`.
fn solve_right(g: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Res<Mat<f64>> {
    use faer::linalg::solvers::Solve;
    let llt = g.llt(Side::Lower).map_err(|e| format!("{e:?}"))?;
    Ok(llt.solve(b.transpose().to_owned()).transpose().to_owned())
}

/// The exact HOSVD start as it was: per mode, the unfolding copied, its Gram matrix and
/// the eigenvectors of the largest eigenvalues; Gaussian columns beyond a mode's length.
fn exact_start(x: &Tensor, rank: usize, par: Par) -> Res<[Mat<f64>; 3]> {
    let mut out = hosvd_start(x, rank, 0)?;
    for (n, f) in out.iter_mut().enumerate() {
        let unf = x.unfold(n)?;
        let m = unf.nrows();
        let mut gram = Mat::<f64>::zeros(m, m);
        matmul(
            gram.as_mut(),
            Accum::Replace,
            unf.as_ref(),
            unf.transpose(),
            1.0,
            par,
        );
        let evd = gram
            .self_adjoint_eigen(Side::Lower)
            .map_err(|e| format!("{e:?}"))?;
        let u = evd.U();
        for j in 0..rank.min(m) {
            for i in 0..m {
                f[(i, j)] = u[(i, m - 1 - j)];
            }
        }
    }
    Ok(out)
}

/// Final loss `1/2 ||P_Omega(X - W)||^2` of CP-ALS (sweeps as in `CpAls`, EM for the
/// missing entries, up to 300 sweeps, tol 1e-9) from a start.
fn als_from(x: &Tensor, mut f: [Mat<f64>; 3]) -> Res<(f64, usize)> {
    // Fully observed (the missing entries are filled in below), so every entry can be set.
    let mut filled = Tensor::from_vec(x.shape(), x.data().to_vec())?;
    let mut prev = f64::INFINITY;
    let mut loss = f64::INFINITY;
    for sweep in 1..=300 {
        old_sweep(&filled, &mut f, Par::Seq)?;
        let model = boolean_tensor::cp_to_tensor(f.each_ref().map(Mat::as_ref))?;
        loss = 0.5
            * (0..x.len())
                .filter(|&i| x.is_observed(i))
                .map(|i| (x.data()[i] - model.data()[i]).powi(2))
                .sum::<f64>();
        filled.map_observed(|i, v| if x.is_observed(i) { v } else { model.data()[i] })?;
        if prev.is_finite() && (prev - loss).abs() <= 1e-9 * prev {
            return Ok((loss, sweep));
        }
        prev = loss;
    }
    Ok((loss, 300))
}

fn quality(name: &str, x: &Tensor, k: usize) -> Res<()> {
    let (randomized, n_r) = als_from(x, hosvd_start(x, k, 0)?)?;
    let (exact, n_e) = als_from(x, exact_start(x, k, Par::Seq)?)?;
    println!(
        "{name}\t{k}\t{randomized:.6e}\t{n_r}\t{exact:.6e}\t{n_e}\t{:+.2e}",
        (randomized - exact) / exact.max(f64::MIN_POSITIVE)
    );
    Ok(())
}
