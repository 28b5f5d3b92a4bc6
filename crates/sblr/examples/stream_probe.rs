//! Time per iteration and peak memory of a fit streamed from a `.npy` file
//! ([`sblr::stream::NpySource`]) against the fit on the same samples in memory.
//!
//! ```text
//! cargo run --release -p sblr --example stream_probe -- write  X.npy n s t [f4|f8]
//! cargo run --release -p sblr --example stream_probe -- stream X.npy BUDGET_BYTES ITERS
//! cargo run --release -p sblr --example stream_probe -- memory X.npy ITERS
//! ```
//!
//! `write` writes `n` samples `randn(s, t) +- 0.05` (two classes, seeded) one sample at a
//! time (never all in memory) in C order, and their labels to `X.npy.labels`. `stream`
//! fits rank 2, Alg. 2, for `ITERS` iterations (`tol = 0`) on the file in blocks of at
//! most `BUDGET_BYTES`; `memory` reads the file into a data set first and fits the same.
//! Both print the fit's time per iteration (initialization excluded), the objective (equal
//! bit for bit between the two) and the process's peak resident memory (`VmHWM` of
//! `/proc/self/status`, Linux), so run each in its own process.

use std::error::Error;
use std::io::Write;
use std::path::Path;

use bl_core::random::{fill_standard_normal, seeded_rng};
use sblr::stream::NpySource;
use sblr::{Fit as _, Fitted as _, Init, Sblr, SblrValidParams};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize| -> Result<&str, Box<dyn Error>> {
        args.get(k).map(String::as_str).ok_or_else(|| {
            format!("missing argument {k}; see the header of stream_probe.rs").into()
        })
    };
    match arg(0)? {
        "write" => {
            let (n, s, t) = (arg(2)?.parse()?, arg(3)?.parse()?, arg(4)?.parse()?);
            let f4 = args.get(5).is_some_and(|a| a == "f4");
            write(Path::new(arg(1)?), n, s, t, f4)
        }
        "stream" => {
            let path = Path::new(arg(1)?);
            let source = NpySource::open(path, &labels(path)?, arg(2)?.parse()?)?;
            eprintln!(
                "blocks of {} samples, {} B of buffers",
                source.block_samples(),
                source.buffer_bytes()
            );
            report("stream", &params(arg(3)?.parse()?)?.fit(&source)?);
            Ok(())
        }
        "memory" => {
            let path = Path::new(arg(1)?);
            let labels = labels(path)?;
            let data = match bl_core::io::npy::read_npy_native(path)? {
                bl_core::io::npy::NativeNpyArray::F32(a) => {
                    let (s, t) = (a.shape[1], a.shape[2]);
                    let data = sblr::data::dataset_from_c_order(s, t, &a.data, &labels)?;
                    drop(a);
                    report("memory", &params(arg(2)?.parse()?)?.fit(&data)?);
                    return Ok(());
                }
                bl_core::io::npy::NativeNpyArray::F64(a) => {
                    let (s, t) = (a.shape[1], a.shape[2]);
                    sblr::data::dataset_from_c_order(s, t, &a.data, &labels)?
                }
            };
            report("memory", &params(arg(2)?.parse()?)?.fit(&data)?);
            Ok(())
        }
        other => Err(format!("unknown mode {other:?}: write, stream or memory").into()),
    }
}

fn params(iters: usize) -> Result<SblrValidParams, Box<dyn Error>> {
    use sblr::ParamGuard as _;
    Ok(Sblr::params()
        .rank(2)
        .max_iter(iters)
        .tol(0.0)
        .init(Init::LabelWeightedSvd)
        .check()?)
}

fn report(mode: &str, model: &sblr::FittedSblr) {
    let r = model.report();
    let per_iter = r.elapsed.as_secs_f64() / r.iterations as f64;
    println!(
        "{mode}: {} iterations, {:.4} s per iteration, objective {:.17e}, peak RSS {} kB",
        r.iterations,
        per_iter,
        model.objective(),
        peak_rss_kb().map_or_else(|| "?".into(), |k| k.to_string())
    );
}

/// `VmHWM` of `/proc/self/status`, in kB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn labels(path: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let text = std::fs::read_to_string(path.with_extension("npy.labels"))?;
    Ok(text.lines().map(str::to_owned).collect())
}

fn write(path: &Path, n: usize, s: usize, t: usize, f4: bool) -> Result<(), Box<dyn Error>> {
    let dict = format!(
        "{{'descr': '<f{}', 'fortran_order': False, 'shape': ({n}, {s}, {t}), }}",
        if f4 { 4 } else { 8 }
    );
    let unpadded = 10 + dict.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&u16::try_from(dict.len() + padding + 1)?.to_le_bytes())?;
    out.write_all(dict.as_bytes())?;
    out.write_all(&vec![b' '; padding])?;
    out.write_all(b"\n")?;
    let mut rng = seeded_rng(1);
    let mut sample = vec![0.0; s * t];
    let mut labels = String::new();
    for i in 0..n {
        fill_standard_normal(&mut rng, &mut sample);
        let positive = i % 2 == 1;
        let shift = if positive { 0.05 } else { -0.05 };
        for v in &sample {
            if f4 {
                out.write_all(&((v + shift) as f32).to_le_bytes())?;
            } else {
                out.write_all(&(v + shift).to_le_bytes())?;
            }
        }
        labels.push_str(if positive { "+1\n" } else { "-1\n" });
    }
    out.flush()?;
    std::fs::write(path.with_extension("npy.labels"), labels)?;
    Ok(())
}
