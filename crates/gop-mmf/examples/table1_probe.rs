//! Timing probe: component times of the first iterations at Table 1 sizes.
//!
//! Usage: `cargo run --release -p gop-mmf --example table1_probe -- M N THREADS [ITERS]`
use std::process::ExitCode;

use gop_mmf::{Fit, GopParams};

const USAGE: &str = "usage: table1_probe M N THREADS [ITERS]\n  \
    M >= 4 features, N >= 2 samples, THREADS (0 = one per core), ITERS (default 2)";

/// The numbers `M N THREADS [ITERS]`, or `None` when the arguments do not fit.
fn parse(args: &[String]) -> Option<(usize, usize, usize, usize)> {
    let numbers: Vec<usize> = args.iter().map(|a| a.parse().ok()).collect::<Option<_>>()?;
    match numbers[..] {
        [m, n, threads] => Some((m, n, threads, 2)),
        [m, n, threads, iters] => Some((m, n, threads, iters)),
        _ => None,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((m, n, threads, iters)) = parse(&args) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match probe(m, n, threads, iters) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("table1_probe: {e}");
            ExitCode::FAILURE
        }
    }
}

fn probe(m: usize, n: usize, threads: usize, iters: usize) -> Result<(), gop_mmf::GopError> {
    let gop_mmf::Table1Instance { y, budget: p, .. } = gop_mmf::table1_instance(m, n, 1)?;
    let fit = GopParams::default()
        .k(2)
        .budget(p)
        .seed(3)
        // 0: rayon's global pool, one thread per core.
        .threads((threads > 0).then_some(threads))
        .max_iter(iters)
        .fit(&y.as_ref())?;
    for r in fit.history() {
        let t = r.timing;
        println!(
            "M {m} N {n} thr {threads} it {} primal {:.4} pre {:.4} uri {:.4} ({} lps, shortcut {}) dual {:.4} num {} total {:.4} LB {:.4} UB {:.4}",
            r.iteration,
            t.primal,
            t.pre,
            t.uri,
            t.uri_lps,
            t.shortcut,
            t.dual,
            t.num_duals,
            t.total,
            r.lower_bound,
            r.upper_bound
        );
    }
    Ok(())
}
