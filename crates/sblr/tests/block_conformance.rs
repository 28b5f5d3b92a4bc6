//! Conformance tests every `BlockUpdate` implementation must pass (see CONTRIBUTING in the
//! workspace): the block objective never increases, the decision values stay those of
//! the variable, and repeated updates reach the block minimizer (checked by the
//! stationarity residual of the block problem).

use bl_core::random::{fill_standard_normal, seeded_rng};
use faer::MatRef;
use proptest::prelude::*;
use sblr::block::{BlockState, BlockUpdate, BlockWork, LinearBlock};
use sblr::{ExactBlockSolve, ProxLinearStep};

fn solvers() -> Vec<(&'static str, Box<dyn BlockUpdate>)> {
    vec![
        (
            "prox-linear (Alg. 2)",
            Box::new(ProxLinearStep {
                l_min: 1e-3,
                eta: 2.0,
            }),
        ),
        (
            "exact FISTA (Alg. 1)",
            Box::new(ExactBlockSolve {
                l_min: 1e-3,
                eta: 2.0,
                tol: 1e-9,
                max_iter: 10_000,
            }),
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn block_updates_conform(seed in 0u64..500, d in 1usize..8, l1 in 0.0f64..0.1, l2 in 0.0f64..0.5) {
        let n = 40;
        let mut rng = seeded_rng(seed);
        let mut z = vec![0.0; d * n];
        fill_standard_normal(&mut rng, &mut z);
        let y: Vec<f64> = (0..n).map(|i| if z[i * d] + 0.5 * z[(i * d + 1) % (d * n)] > 0.2 { 1.0 } else { -1.0 }).collect();
        let block = LinearBlock { z: MatRef::from_column_major_slice(&z, d, n), y: &y, l1, l2 };
        for (name, solver) in solvers() {
            let mut x = vec![0.3; d + 1];
            let mut scores = vec![0.0; n];
            block.scores(&x, &mut scores);
            let mut l = 1.0;
            let mut work = BlockWork::new(d, n);
            let mut last = block.loss(&scores) + block.penalty(&x);
            for _ in 0..400 {
                let info = solver.update(&block, &mut BlockState { x: &mut x, scores: &mut scores, lipschitz: &mut l }, &mut work).unwrap();
                let obj = block.loss(&scores) + block.penalty(&x);
                prop_assert!(obj <= last + 1e-13, "{name}: objective rose {last} -> {obj}");
                prop_assert!((info.loss_after - block.loss(&scores)).abs() < 1e-12);
                last = obj;
            }
            let mut fresh = vec![0.0; n];
            block.scores(&x, &mut fresh);
            for (a, b) in fresh.iter().zip(&scores) {
                prop_assert!((a - b).abs() <= 1e-10 * (1.0 + a.abs()), "{name}: stale scores");
            }
            let mut c = vec![0.0; n];
            let mut g = vec![0.0; d + 1];
            block.loss_and_dscores(&fresh, &mut c);
            block.gradient(&c, &mut g);
            let res = block.stationarity_residual(&x, &g);
            prop_assert!(res < 1e-5, "{name}: residual {res}");
        }
    }
}
