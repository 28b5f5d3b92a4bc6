//! Probe: the Sec. 5.1 instance and the Fig. 3 instance under the four variants
//! (linearization x floor `Q >= 0`): iterations, bounds, time.
//!
//! `cargo run --release -p gop-mmf --example variants -- [FIG3_MAX_ITER]`
use gop_mmf::{Fit, Fitted, GopParams, Linearization};

fn main() -> Result<(), gop_mmf::GopError> {
    let fig3_iters: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let (y, example) = gop_mmf::synthetic::illustrative();
    for lin in [Linearization::Product, Linearization::Paper] {
        for floor in [true, false] {
            let mut its = Vec::new();
            let mut worst_ub: f64 = 0.0;
            let mut max_lb = f64::NEG_INFINITY;
            let mut certified = 0;
            let mut first_lb = Vec::new();
            for seed in 1..=20 {
                let fit = example
                    .clone()
                    .seed(seed)
                    .max_iter(5000)
                    .linearization(lin)
                    .nonnegative_bound(floor)
                    .fit(&y.as_ref())?;
                its.push(fit.report().iterations);
                worst_ub = worst_ub.max(fit.upper_bound());
                max_lb = max_lb.max(fit.lower_bound());
                certified += usize::from(fit.certificate().certified);
                first_lb.push(fit.history()[0].lower_bound);
            }
            its.sort_unstable();
            println!(
                "5.1 {lin:?} floor {floor}: iterations min {} median {} max {}; certified {certified}/20; worst UB {worst_ub:.4}; largest LB {max_lb:.4}; first LB {:?}",
                its[0],
                its[10],
                its[19],
                &first_lb[..4]
            );
        }
    }
    for seed in 0..3 {
        let inst = gop_mmf::fig3_instance(10, seed)?;
        for lin in [Linearization::Product, Linearization::Paper] {
            for floor in [true, false] {
                let fit = GopParams::default()
                    .k(2)
                    .budget(inst.budget)
                    .tol(0.01)
                    .seed(seed)
                    .threads(Some(1))
                    .max_iter(fig3_iters)
                    .linearization(lin)
                    .nonnegative_bound(floor)
                    .fit(&inst.y.as_ref())?;
                let h = fit.history();
                let to_017 = h
                    .iter()
                    .position(|r| r.upper_bound - r.lower_bound <= 0.17)
                    .map(|i| i + 1);
                println!(
                    "fig3 seed {seed} {lin:?} floor {floor}: {} iterations {:.2}s, first LB {:.3}, final [{:.4}, {:.4}], gap <= 0.17 at iteration {to_017:?}, x = ({:.3}, {:.3}), cells/iter {:.1}",
                    fit.report().iterations,
                    fit.report().seconds(),
                    h[0].lower_bound,
                    fit.lower_bound(),
                    fit.upper_bound(),
                    fit.x()[(0, 0)],
                    fit.x()[(0, 1)],
                    h.iter().map(|r| r.cells as f64).sum::<f64>() / h.len() as f64
                );
            }
        }
    }
    Ok(())
}
