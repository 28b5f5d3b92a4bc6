//! Probe: the paper's linearization (eqs. (6)-(8)) beside this crate's (tangent in
//! `x theta`). For random iterates `x^t` and random points `x` of the l1 ball it counts how
//! often each lower-bounding function `phi_t(x) = min_{theta in box} L_t(x, theta)` exceeds
//! the primal value `v(x)` (an invalid bound); then it counts the cells of both
//! arrangements at a random root point of the Table 1 instances.
//!
//! `cargo run --release -p gop-mmf --example paper_linearization -- [SIGMA]`
use gop_mmf::Linearization;
use gop_mmf::arrangement::{CellOptions, enumerate_cells, filter};
use gop_mmf::lagrangian::Lagrangian;
use gop_mmf::primal::solve_primal;
use lp_backend::Microlp;
use rand::RngExt;

fn ball_point(rng: &mut bl_core::random::Rng, mk: usize, budget: f64) -> Vec<f64> {
    let mut x = vec![0.0; mk];
    bl_core::random::fill_standard_normal(rng, &mut x);
    let l1: f64 = x.iter().map(|v| v.abs()).sum();
    let r = budget * rng.random_range(0.05..0.95) / l1;
    x.iter_mut().for_each(|v| *v *= r);
    x
}

fn colmajor(y: &faer::Mat<f64>) -> Vec<f64> {
    (0..y.ncols())
        .flat_map(|s| (0..y.nrows()).map(move |j| y[(j, s)]))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Validity on the 5.1 instance and on a Table 1 instance.
    let example = (vec![0.0, -1.0, -0.5], 1usize, 3usize, 1.0);
    let t1 = gop_mmf::table1_instance(20, 4, 1)?;
    let table = (colmajor(&t1.y), 20, 4, t1.budget);
    for (name, (y, m, n, budget)) in [("Sec. 5.1", example), ("Table 1 M=20 N=4", table)] {
        let mk = m * 2;
        let mut rng = bl_core::random::seeded_rng(11);
        for lin in [Linearization::Product, Linearization::Paper] {
            let (mut bad, mut total, mut worst) = (0, 0, 0.0_f64);
            for _ in 0..200 {
                let xt = ball_point(&mut rng, mk, budget);
                let pt = solve_primal(&xt, &y, m, 2, n)?;
                let lag = Lagrangian::build(lin, &xt, &pt)?;
                for _ in 0..50 {
                    let x = ball_point(&mut rng, mk, budget);
                    let v = solve_primal(&x, &y, m, 2, n)?.objective;
                    let phi = lag.lower_bound(&x);
                    total += 1;
                    if phi > v + 1e-9 * (1.0 + v.abs()) {
                        bad += 1;
                        worst = worst.max(phi - v);
                    }
                }
            }
            println!("{name}: {lin:?}: phi > v at {bad} of {total} pairs, worst excess {worst:.4}");
        }
    }
    // 2. Cells at a random root point of the Table 1 instances, without and with noise
    //    `sigma e` (standard normal `e`) added to `y`.
    let sigma: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(0.0);
    for n in [4, 5, 6] {
        for m in [20, 40, 60, 80] {
            let inst = gop_mmf::table1_instance(m, n, 7)?;
            let mut y = colmajor(&inst.y);
            let mut noise = bl_core::random::seeded_rng(99);
            y.iter_mut()
                .for_each(|v| *v += sigma * bl_core::random::standard_normal(&mut noise));
            let mut rng = bl_core::random::seeded_rng(3);
            let x0 = ball_point(&mut rng, 2 * m, inst.budget);
            let p0 = solve_primal(&x0, &y, m, 2, n)?;
            let mut line = format!("M {m} N {n}:");
            for lin in [Linearization::Product, Linearization::Paper] {
                let lag = Lagrangian::build(lin, &x0, &p0)?;
                let g: Vec<_> = lag.qualifying.iter().map(|q| q.g.clone()).collect();
                let f = filter(&g, inst.budget, 1e-9);
                let cells = enumerate_cells(
                    &Microlp,
                    2 * m,
                    inst.budget,
                    &[],
                    &x0,
                    &f.reps,
                    &CellOptions::default(),
                )?;
                line += &format!(
                    " {lin:?}: {} hyperplanes kept, {} cells ({} LPs);",
                    f.reps.len(),
                    cells.signs.len(),
                    cells.lp_solves
                );
            }
            println!("{line}");
        }
    }
    Ok(())
}
