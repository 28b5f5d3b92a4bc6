//! Timing probe: component times of the first iterations at Table 1 sizes.
use faer::Mat;
use gop_mmf::GopParams;

fn main() -> Result<(), gop_mmf::GopError> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (m, n, threads, iters) = (args[0], args[1], args[2], args.get(3).copied().unwrap_or(2));
    let mut rng = bl_core::random::seeded_rng(1);
    let xs = Mat::from_fn(m, 2, |j, k| {
        if j < m / 4 {
            if k == 0 { 1.0 } else { 0.0 }
        } else if j < m / 2 {
            if k == 1 { -1.0 } else { 0.0 }
        } else {
            0.5 * bl_core::random::standard_normal(&mut rng)
        }
    });
    let th = Mat::from_fn(2, n, |k, s| {
        let t = s as f64 / (n - 1) as f64;
        if k == 0 { t } else { 1.0 - t }
    });
    let y = &xs * &th;
    let p: f64 = (0..m).map(|j| xs[(j, 0)].abs() + xs[(j, 1)].abs()).sum();
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
