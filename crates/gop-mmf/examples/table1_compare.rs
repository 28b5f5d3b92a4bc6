//! Probe: the components of Table 1 (mean over the first iterations, 1 thread) with the
//! cells found by the walk on each node's region (the reference path) and in the tangent
//! cone, on the instances of `cargo xtask reproduce gop-table1` (seed 0). The two variants
//! run interleaved, `REPEATS` times each, and the fastest time of every component is kept,
//! so both see the same machine load.
//!
//! `cargo run --release -p gop-mmf --example table1_compare -- [ITERATIONS] [REPEATS]`
use faer::Mat;
use gop_mmf::{Fit, GopParams, Timing};

/// Mean component times over the iterations of one fit.
fn mean(params: &GopParams, y: &Mat<f64>) -> Result<Timing, gop_mmf::GopError> {
    Ok(params.fit(&y.as_ref())?.mean_timing())
}

fn fastest(a: Timing, b: Timing) -> Timing {
    Timing {
        primal: a.primal.min(b.primal),
        pre: a.pre.min(b.pre),
        uri: a.uri.min(b.uri),
        dual: a.dual.min(b.dual),
        total: a.total.min(b.total),
        ..a
    }
}

fn main() -> Result<(), gop_mmf::GopError> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (iters, repeats) = (
        args.first().copied().unwrap_or(2),
        args.get(1).copied().unwrap_or(3),
    );
    println!("M,N,variant,primal_s,pre_s,uri_s,num,dual_s,total_s");
    for n in [4, 5, 6] {
        for m in [20, 40, 60, 80] {
            let gop_mmf::Table1Instance { y, budget, .. } =
                gop_mmf::table1_instance(m, n, (m * 10 + n) as u64)?;
            let params = GopParams::default()
                .k(2)
                .budget(budget)
                .seed(0)
                .threads(Some(1))
                .max_iter(iters);
            let variants = [
                ("walk", params.clone().tangent_cone_cells(false)),
                ("cone", params),
            ];
            let mut best: [Option<Timing>; 2] = [None, None];
            for _ in 0..repeats {
                for (v, (_, p)) in variants.iter().enumerate() {
                    let t = mean(p, &y)?;
                    best[v] = Some(best[v].map_or(t, |b| fastest(b, t)));
                }
            }
            for ((name, _), t) in variants.iter().zip(best) {
                let t = t.unwrap_or_default();
                println!(
                    "{m},{n},{name},{:.3e},{:.3e},{:.3e},{},{:.3e},{:.3e}",
                    t.primal, t.pre, t.uri, t.num_duals, t.dual, t.total
                );
            }
        }
    }
    Ok(())
}
