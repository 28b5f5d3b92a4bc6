//! Hot paths of `gop-mmf` on Table 1 shapes (`K = 2`, synthetic `x*`, `theta*`):
//!
//! - one relaxed dual LP of the root's children (`M = 80`, `N = 6`: 321 variables), solved
//!   cold by `microlp`, cold through good_lp, and as an extension of the parent's prepared
//!   LP (what the fit does: the backend picks a warm start or a cold solve from the stored
//!   translation); the primal solve at the same point is the yardstick (one iteration's
//!   upper-bound work);
//! - one cell enumeration of the root arrangement: the interior-point walk on the whole
//!   region (LPs in `2 M K + 1` variables), the tangent-cone enumeration block by block (LPs
//!   in the span of each block's normals), and the default (rank shortcut, then the cone);
//! - one whole GOP iteration at the root with 1 and 2 threads (the relaxed duals dominate
//!   it: their parallel speed-up).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gop_mmf::arrangement::{CellOptions, enumerate_cells};
use gop_mmf::dual::{DualLayout, Level};
use gop_mmf::lagrangian::Lagrangian;
use gop_mmf::primal::solve_primal;
use gop_mmf::{Fit, ParamGuard};
use lp_backend::{GoodLpMicrolp, LpSolver, Microlp};

const SEED: u64 = 20_161_019;

/// `y = x* theta*` of Table 1 (column-major), a random start inside the ball, and `P`.
fn instance(m: usize, n: usize) -> (Vec<f64>, Vec<f64>, f64) {
    let inst = gop_mmf::table1_instance(m, n, SEED).expect("Table 1 sizes are valid");
    let y = (0..n)
        .flat_map(|s| (0..m).map(move |j| (s, j)))
        .map(|(s, j)| inst.y[(j, s)])
        .collect();
    let mut rng = bl_core::random::seeded_rng(SEED + 1);
    let mut x0 = vec![0.0; 2 * m];
    bl_core::random::fill_standard_normal(&mut rng, &mut x0);
    let l1: f64 = x0.iter().map(|v| v.abs()).sum();
    x0.iter_mut().for_each(|v| *v *= 0.5 * inst.budget / l1);
    (y, x0, inst.budget)
}

/// The root's level at `x0` (the Lagrangian at the primal solution for `x0`, its
/// hyperplanes filtered with tolerance `1e-9`) for the data `y` of `instance(m, n)`.
fn root_level(y: &[f64], x0: &[f64], m: usize, n: usize, budget: f64) -> Level {
    let primal = solve_primal(x0, y, m, 2, n).expect("valid instance");
    let lagrangian = Lagrangian::at(x0, &primal).expect("valid instance");
    Level::new(&lagrangian, budget, 1e-9)
}

fn relaxed_dual(c: &mut Criterion) {
    let (m, n) = (80, 6);
    let (y, x0, budget) = instance(m, n);
    let level = root_level(&y, &x0, m, n, budget);
    let layout = DualLayout { mk: 2 * m };
    // `Q` free, as the fit builds it by default (`GopParams::nonnegative_bound(false)`).
    let base = layout
        .base_program(budget, &[], &[], false)
        .expect("small layout");
    let signs: Vec<i8> = (0..level.num_hyperplanes())
        .map(|h| if h % 3 == 0 { -1 } else { 1 })
        .collect();
    let rows = layout
        .cell_rows(&level, &signs)
        .expect("one sign per hyperplane");
    let mut full = base.clone();
    for r in &rows {
        full.push_row(r.clone());
    }
    let warm = Microlp.prepare(&base).expect("base LP");
    let id = format!("M{m}_N{n}_vars{}_rows{}", full.num_vars(), full.num_rows());

    let mut group = c.benchmark_group("gop_relaxed_dual");
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("microlp_cold", &id), |b| {
        b.iter(|| black_box(Microlp.solve(black_box(&full)).expect("solves")))
    });
    group.bench_function(BenchmarkId::new("good_lp_cold", &id), |b| {
        b.iter(|| black_box(GoodLpMicrolp.solve(black_box(&full)).expect("solves")))
    });
    group.bench_function(BenchmarkId::new("microlp_prepared_parent", &id), |b| {
        b.iter(|| black_box(warm.solve_with_rows(black_box(&rows)).expect("solves")))
    });
    group.bench_function(
        BenchmarkId::new("yardstick_primal", format!("M{m}_N{n}")),
        |b| b.iter(|| black_box(solve_primal(black_box(&x0), &y, m, 2, n).expect("solves"))),
    );
    group.finish();
}

fn cell_enumeration(c: &mut Criterion) {
    let mut group = c.benchmark_group("gop_cell_enumeration");
    group.sample_size(10);
    for (m, n) in [(20, 4), (80, 6)] {
        let (y, x0, budget) = instance(m, n);
        let level = root_level(&y, &x0, m, n, budget);
        let reps = &level.filtered.reps;
        let walk = CellOptions {
            rank_shortcut: false,
            local: false,
            parallel: false,
            ..CellOptions::default()
        };
        let cone = CellOptions {
            rank_shortcut: false,
            parallel: false,
            ..CellOptions::default()
        };
        let cells = enumerate_cells(&Microlp, 2 * m, budget, &[], &x0, reps, &walk).expect("cells");
        let id = format!("M{m}_N{n}_H{}_cells{}", reps.len(), cells.signs.len());
        for (name, options) in [
            ("interior_point_walk", walk),
            ("tangent_cone_blocks", cone),
            ("default", CellOptions::default()),
        ] {
            group.bench_function(BenchmarkId::new(name, &id), |b| {
                b.iter(|| {
                    black_box(
                        enumerate_cells(&Microlp, 2 * m, budget, &[], &x0, reps, &options)
                            .expect("cells"),
                    )
                })
            });
        }
    }
    group.finish();
}

/// One GOP iteration at the root (primal, Lagrangian, cells, one relaxed dual per cell) with
/// 1 and 2 worker threads: the cell enumeration is small beside the relaxed duals, so the
/// ratio of the two times is the parallel speed-up of the relaxed-dual stage (a slight
/// underestimate).
fn one_iteration(c: &mut Criterion) {
    let mut group = c.benchmark_group("gop_one_iteration");
    group.sample_size(10);
    let (m, n) = (80, 6);
    let (y, x0, budget) = instance(m, n);
    let y = faer::Mat::from_fn(m, n, |j, s| y[s * m + j]);
    for threads in [1, 2] {
        let params = gop_mmf::GopParams::default()
            .k(2)
            .budget(budget)
            .initial_x(Some(x0.clone()))
            .threads(Some(threads))
            .max_iter(1)
            .check()
            .expect("valid params");
        let cells = params.fit(&y.as_ref()).expect("fit").history()[0].cells;
        group.bench_function(
            BenchmarkId::new(
                format!("threads{threads}"),
                format!("M{m}_N{n}_cells{cells}"),
            ),
            |b| b.iter(|| black_box(params.fit(&black_box(y.as_ref())).expect("fit"))),
        );
    }
    group.finish();
}

criterion_group!(benches, relaxed_dual, cell_enumeration, one_iteration);
criterion_main!(benches);
