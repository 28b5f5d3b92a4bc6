//! Timing probe: component times of the first iterations at Table 1 sizes.
use gop_mmf::GopParams;

fn main() -> Result<(), gop_mmf::GopError> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (m, n, threads, iters) = (args[0], args[1], args[2], args.get(3).copied().unwrap_or(2));
    let gop_mmf::Table1Instance { y, budget: p, .. } = gop_mmf::table1_instance(m, n, 1)?;
    let fit = GopParams::new(2, p)
        .seed(3)
        .threads(threads)
        .max_iter(iters)
        .fit(y.as_ref())?;
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
