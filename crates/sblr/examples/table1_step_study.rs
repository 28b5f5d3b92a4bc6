//! SBLR Table 1's iteration counts against the step constants the paper leaves open.
//!
//! Algorithm 2's step rule (13)-(16) sets `L^k = max(L_min, L^{k-1} eta^n)` with the
//! smallest `n >= -1` that passes the decrease test, from a starting `L^0` the paper does
//! not give (nor `L_min` or `eta`). This probe runs Alg. 2 on Table 1's synthetic data
//! (`n = 100`, `s = t`, the two parameter sets, rank 1, the paper's mean-sample start,
//! eq. (8) with `tol = 1e-3`, at most 500 iterations) over a grid of `(L^0, L_min, eta)`,
//! and prints per setting the iterations and the objective it stops at, beside the
//! objective of a long reference run (default step, `tol = 1e-9`, 5000 iterations).
//! `L^0` is either absolute (`1e-3`, 1, 100 or `1e4`; a start below `L_min` is skipped) or
//! a multiple `c` of the block's Lipschitz bound (11a)/(11b) at its first update,
//! `sqrt(2)/n sum_i (||z_i|| + 1)^2` over the block's features `z_i` (`X_i V` for the `U`
//! block, `X_i^T U` for the `V` block); the CSV's `l0` column is then `c x bound`, written
//! as `c*L11`.
//!
//! ```text
//! cargo run --release -p sblr --example table1_step_study -- [max_size] [seeds] [multiples]
//! ```
//!
//! `max_size` (default 250) caps `s = t`, `seeds` (default 2) is the number of data sets
//! per size, `multiples` (default `0.01,0.1,1`) the values of `c` for `L^0 = c x bound`;
//! `-` runs the absolute starts only.
//!
//! Output: one CSV line per (set, size, seed, setting) on stdout.

use std::sync::Arc;

use sblr::block::{BlockState, BlockStepInfo, BlockWork, LinearBlock};
use sblr::synthetic::two_class;
use sblr::{BlockUpdate, Extension, Fit, Fitted, Init, ProxLinearStep, Sblr, StopCriterion};

/// The starting `L^0` of a block.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// This value.
    At(f64),
    /// This multiple of the block's bound (11a)/(11b) at its first update.
    Bound(f64),
}

/// Stands for "no update of this block yet" in `state.lipschitz` (a value no step rule
/// reaches: every `L` is at least `l_min >= 1e-12`).
const UNSET: f64 = f64::MIN_POSITIVE;

/// Alg. 2's step with its own starting `L^0` (the built-in starts at `l_min`).
#[derive(Debug)]
struct StartAt {
    step: ProxLinearStep,
    start: Start,
}

impl Extension for StartAt {
    fn name(&self) -> &str {
        "ProxLinearStep with its own L^0"
    }

    fn check(&self) -> bl_core::Result<()> {
        self.step.check()?;
        match self.start {
            Start::At(l0) | Start::Bound(l0) => bl_core::params::positive("l0", l0),
        }
    }
}

impl BlockUpdate for StartAt {
    fn update(
        &self,
        block: &LinearBlock<'_>,
        state: &mut BlockState<'_>,
        work: &mut BlockWork,
    ) -> sblr::Result<BlockStepInfo> {
        if *state.lipschitz == UNSET {
            *state.lipschitz = match self.start {
                Start::At(l0) => l0,
                Start::Bound(c) => c * lipschitz_bound(block),
            };
        }
        self.step.update(block, state, work)
    }

    fn initial_lipschitz(&self) -> f64 {
        UNSET
    }
}

/// `sqrt(2)/n sum_i (||z_i|| + 1)^2`: eq. (11a)/(11b) for the block's features.
fn lipschitz_bound(block: &LinearBlock<'_>) -> f64 {
    // The solver's features are in memory (`Features::Matrix`) on one machine.
    let Some(z) = block.z.as_matrix() else {
        return f64::NAN;
    };
    let n = z.ncols();
    let sum: f64 = (0..n)
        .map(|i| {
            let norm = (0..z.nrows())
                .map(|j| z[(j, i)].powi(2))
                .sum::<f64>()
                .sqrt();
            (norm + 1.0).powi(2)
        })
        .sum();
    std::f64::consts::SQRT_2 * sum / n as f64
}

const SETS: [(f64, f64, f64, f64); 2] = [(0.1, 1.0, 0.1, 1.0), (0.1, 0.0, 0.1, 0.0)];
const SIZES: [usize; 6] = [50, 100, 250, 500, 750, 1000];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let max_size: usize = args.get(1).map_or(Ok(250), |a| a.parse())?;
    let seeds: u64 = args.get(2).map_or(Ok(2), |a| a.parse())?;
    let multiples = args.get(3).map_or("0.01,0.1,1", String::as_str);
    let mut starts = vec![
        Start::At(1e-3),
        Start::At(1.0),
        Start::At(1e2),
        Start::At(1e4),
    ];
    for c in multiples.split(',').filter(|c| *c != "-") {
        starts.push(Start::Bound(c.parse()?));
    }
    let l_mins = [1e-3, 1e-1];
    let etas = [1.5, 2.0, 10.0];
    println!(
        "set,size,seed,l0,l_min,eta,iterations,objective,reference_objective,reference_iterations"
    );
    for &size in SIZES.iter().filter(|&&s| s <= max_size) {
        for seed in 0..seeds {
            let data = two_class(100, size, size, 1.0, seed)?;
            for (set, &(mu1, mu2, nu1, nu2)) in SETS.iter().enumerate() {
                let base = Sblr::params()
                    .rank(1)
                    .penalties(mu1, mu2, nu1, nu2)
                    .init(Init::MeanSvd)
                    .stop(StopCriterion::Eq8)
                    .trace(false);
                let reference = base.clone().tol(1e-9).max_iter(5000).fit(&data)?;
                for &start in &starts {
                    for &l_min in &l_mins {
                        for &eta in &etas {
                            if matches!(start, Start::At(l0) if l0 < l_min) {
                                continue;
                            }
                            let update = StartAt {
                                step: ProxLinearStep { l_min, eta },
                                start,
                            };
                            let l0 = match start {
                                Start::At(l0) => l0.to_string(),
                                Start::Bound(c) => format!("{c}*L11"),
                            };
                            let fit = base
                                .clone()
                                .tol(1e-3)
                                .max_iter(500)
                                .block_update(Arc::new(update))
                                .fit(&data)?;
                            println!(
                                "{},{size},{seed},{l0},{l_min},{eta},{},{:.6},{:.6},{}",
                                set + 1,
                                fit.report().iterations,
                                fit.objective(),
                                reference.objective(),
                                reference.report().iterations,
                            );
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
