//! The illustrative instance of Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1, eps = 0.01.
use gop_mmf::{Fit, Fitted};

fn main() -> Result<(), gop_mmf::GopError> {
    let (y, params) = gop_mmf::synthetic::illustrative();
    for seed in 0..5 {
        let fit = params.clone().seed(seed).fit(&y.as_ref())?;
        println!(
            "seed {seed}: iters {} LB {:.5} UB {:.5} x = [{:.4}, {:.4}] nodes {} time {:.3}s {:?}",
            fit.report().iterations,
            fit.lower_bound(),
            fit.upper_bound(),
            fit.x()[(0, 0)],
            fit.x()[(0, 1)],
            fit.tree().len(),
            fit.report().seconds(),
            fit.report().termination
        );
        if seed == 0 {
            for r in fit.history().iter().take(8) {
                println!(
                    "  it {} node {} x {:?} f {:.4} UB {:.4} LB {:.4} cells {}",
                    r.iteration,
                    r.node,
                    r.x,
                    r.primal_objective,
                    r.upper_bound,
                    r.lower_bound,
                    r.cells
                );
            }
        }
    }
    Ok(())
}
