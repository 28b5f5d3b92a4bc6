//! The illustrative instance of Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1, eps = 0.01.
use faer::Mat;
use gop_mmf::{Fit, Fitted, GopParams};

fn main() -> Result<(), gop_mmf::GopError> {
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    for seed in 0..5 {
        let fit = GopParams::default()
            .k(2)
            .budget(1.0)
            .eps(0.01)
            .seed(seed)
            .threads(1)
            .fit(&y.as_ref())?;
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
