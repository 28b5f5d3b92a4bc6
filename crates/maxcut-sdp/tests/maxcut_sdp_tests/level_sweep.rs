//! The level-by-level cyclic sweep on a sparse `C` ([`SparseSweep::Levels`], the default)
//! against the first sparse kernel (`Mixing::sweep_reference` with `V` in natural order,
//! one `axpy` per stored entry), the sequential kernel and the definition of the sweep:
//! the same iterates bit for bit, for any number of threads.

use crate::common;
use std::sync::Arc;

use faer::{Mat, MatRef};
use maxcut_sdp::params::SparseSweep;
use maxcut_sdp::synthetic::random_edges;
use maxcut_sdp::{
    Colored, Fit, Fitted, LowRankMode, Mixing, MixingParams, Problem, RandomPermutation,
};

type Edge = (usize, usize, f64);

fn params(seed: u64, rank: usize, sweep: SparseSweep) -> MixingParams {
    MixingParams::default()
        .seed(seed)
        .rank(rank)
        .low_rank(LowRankMode::Implicit)
        .sparse_sweep(sweep)
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn max_diff(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
    let mut d: f64 = 0.0;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            d = d.max((a[(i, j)] - b[(i, j)]).abs());
        }
    }
    d
}

/// Graphs with rows of every length modulo 4, isolated vertices, negative and repeated
/// edges, and (the last) levels large enough to be split between threads.
fn graphs() -> Vec<(&'static str, usize, Vec<Edge>, Vec<usize>)> {
    let path: Vec<Edge> = (0..39).map(|i| (i, i + 1, 1.0 + i as f64 / 7.0)).collect();
    let star: Vec<Edge> = (1..30).map(|i| (0, i, 1.0)).collect();
    let mut signed = common::gnp_weighted(70, 0.12, 5);
    for (e, edge) in signed.iter_mut().enumerate() {
        if e % 3 == 0 {
            edge.2 = -edge.2;
        }
    }
    // Vertices 50..60 are isolated: their field is 0 and they keep their column.
    let sparse = random_edges(50, 120, 6).unwrap();
    vec![
        ("path", 40, path, vec![1, 3]),
        ("star", 30, star, vec![2, 5]),
        ("signed G(70, 0.12)", 70, signed, vec![4, 7, 13]),
        ("with isolated vertices", 60, sparse, vec![6]),
        (
            "5n random edges, n = 3000",
            3000,
            random_edges(3000, 15_000, 7).unwrap(),
            // Large enough for two splits of a level (four threads).
            vec![160],
        ),
    ]
}

#[test]
fn level_sweep_is_bit_identical_to_the_first_kernel_for_any_thread_count() {
    for (name, n, edges, ranks) in graphs() {
        let problem = Problem::maxcut(n, &edges).unwrap();
        for rank in ranks {
            let seed = 3 + rank as u64;
            let mut first =
                Mixing::new(&problem, &params(seed, rank, SparseSweep::Sequential)).unwrap();
            let mut sequential =
                Mixing::new(&problem, &params(seed, rank, SparseSweep::Sequential)).unwrap();
            let mut by_threads: Vec<(usize, Mixing<'_>)> = [1, 2, 3, 4]
                .into_iter()
                .map(|t| {
                    let m = in_pool(t, || {
                        Mixing::new(&problem, &params(seed, rank, SparseSweep::Levels))
                    });
                    (t, m.unwrap())
                })
                .collect();
            assert_eq!(first.levels(), None);
            for (_, m) in &by_threads {
                assert!(m.levels().is_some(), "{name}");
                assert_eq!(m.v(), first.v(), "{name}: the start");
            }
            let sweeps = if n > 1000 { 3 } else { 6 };
            for sweep in 1..=sweeps {
                let gain = first.sweep_reference().unwrap();
                assert_eq!(sequential.sweep().unwrap().to_bits(), gain.to_bits());
                for (threads, m) in &mut by_threads {
                    let level_gain = in_pool(*threads, || m.sweep()).unwrap();
                    assert_eq!(
                        level_gain.to_bits(),
                        gain.to_bits(),
                        "{name}, k = {rank}, {threads} threads, sweep {sweep}: gain"
                    );
                    assert_eq!(
                        m.v(),
                        first.v(),
                        "{name}, k = {rank}, {threads} threads, sweep {sweep}: V"
                    );
                    assert_eq!(m.objective().to_bits(), first.objective().to_bits());
                }
                assert_eq!(sequential.v(), first.v(), "{name}: sequential kernel");
            }
            let exact = first.exact_objective();
            for (_, m) in &by_threads {
                assert_eq!(m.exact_objective().to_bits(), exact.to_bits(), "{name}");
            }
        }
    }
}

#[test]
fn level_sweep_follows_the_definition_of_the_cyclic_sweep() {
    for (name, n, edges, ranks) in graphs().into_iter().filter(|g| g.1 <= 100) {
        let problem = Problem::maxcut(n, &edges).unwrap();
        let c = problem.to_dense().unwrap();
        let mut mixing = Mixing::new(&problem, &params(1, ranks[0], SparseSweep::Levels)).unwrap();
        for sweep in 1..=5 {
            let mut expected = mixing.v().to_owned();
            common::brute_force_sweep(&c, &mut expected, &(0..c.nrows()).collect::<Vec<_>>());
            let before = mixing.exact_objective();
            let gain = mixing.sweep().unwrap();
            let diff = max_diff(mixing.v(), expected.as_ref());
            assert!(diff <= 1e-12, "{name}, sweep {sweep}: V differs by {diff}");
            // The reported gain is the change of the objective.
            let change = mixing.exact_objective() - before;
            assert!(
                (gain - change).abs() <= 1e-10 * (1.0 + before.abs()),
                "{name}: gain {gain} vs change {change}"
            );
        }
    }
}

#[test]
fn levels_of_known_graphs() {
    let count = |n: usize, edges: &[Edge]| {
        let problem = Problem::maxcut(n, edges).unwrap();
        Mixing::new(&problem, &params(0, 2, SparseSweep::Levels))
            .unwrap()
            .levels()
    };
    // A path 0 - 1 - ... - 9: each vertex waits for the one before it.
    let path: Vec<Edge> = (0..9).map(|i| (i, i + 1, 1.0)).collect();
    assert_eq!(count(10, &path), Some(10));
    // A star around 0: the leaves form one level after the center.
    let star: Vec<Edge> = (1..10).map(|i| (0, i, 1.0)).collect();
    assert_eq!(count(10, &star), Some(2));
    // A star around the last vertex: the leaves first, then the center.
    let star: Vec<Edge> = (0..9).map(|i| (i, 9, 1.0)).collect();
    assert_eq!(count(10, &star), Some(2));
    // No edges: one level.
    assert_eq!(count(5, &[]), Some(1));
    // Even vertices 0, 2, 4 joined to odd 1, 3, 5 (complete bipartite): vertex 1 needs
    // 0, vertex 2 needs 1, ...: a chain of 6.
    let bipartite: Vec<Edge> = [0, 2, 4]
        .iter()
        .flat_map(|&a| [1, 3, 5].map(|b| (a, b, 1.0)))
        .collect();
    assert_eq!(count(6, &bipartite), Some(6));
}

#[test]
fn other_orders_and_forms_do_not_use_levels() {
    let edges = random_edges(40, 100, 1).unwrap();
    let problem = Problem::maxcut(40, &edges).unwrap();
    let base = MixingParams::default().low_rank(LowRankMode::Implicit);
    for params in [
        base.clone().order(Arc::new(RandomPermutation)),
        base.clone().order(Arc::new(Colored)),
        base.clone().sparse_sweep(SparseSweep::Sequential),
        MixingParams::default().low_rank(LowRankMode::Formed),
    ] {
        assert_eq!(Mixing::new(&problem, &params).unwrap().levels(), None);
    }
    assert!(Mixing::new(&problem, &base).unwrap().levels().is_some());
}

#[test]
fn fits_with_levels_and_sequentially_agree_bit_for_bit() {
    let n = 400;
    let problem = Problem::maxcut(n, &random_edges(n, 5 * n, 9).unwrap()).unwrap();
    let base = MixingParams::default()
        .seed(4)
        .tol(1e-6)
        .trials(20)
        .low_rank(LowRankMode::Implicit);
    let sequential = base
        .clone()
        .sparse_sweep(SparseSweep::Sequential)
        .fit(&problem)
        .unwrap();
    assert!(sequential.report().converged());
    for threads in [1, 2] {
        let levels = in_pool(threads, || base.fit(&problem)).unwrap();
        assert_eq!(
            levels.report().iterations,
            sequential.report().iterations,
            "the same stop"
        );
        // The same SDP value (so within any tolerance of the reference), cut and V.
        assert_eq!(
            levels.sdp_value().to_bits(),
            sequential.sdp_value().to_bits()
        );
        assert_eq!(levels.v(), sequential.v());
        assert_eq!(levels.y(), sequential.y());
        assert_eq!(levels.value(), sequential.value());
    }
}

#[test]
fn warm_start_and_rounding_see_the_natural_order() {
    let n = 30;
    let edges = random_edges(n, 80, 2).unwrap();
    let problem = Problem::maxcut(n, &edges).unwrap();
    let v0 = Mat::from_fn(3, n, |r, i| 1.0 + ((r * 7 + i * 3) % 5) as f64);
    let p = params(0, 3, SparseSweep::Levels);
    let mut levels = Mixing::with_start(&problem, &p, v0.as_ref()).unwrap();
    let mut natural = Mixing::with_start(
        &problem,
        &params(0, 3, SparseSweep::Sequential),
        v0.as_ref(),
    )
    .unwrap();
    assert!(levels.levels().is_some());
    assert_eq!(levels.v(), natural.v());
    for _ in 0..4 {
        levels.sweep().unwrap();
        natural.sweep().unwrap();
        assert_eq!(levels.v(), natural.v());
        let (a, b) = (levels.round(7, 5).unwrap(), natural.round(7, 5).unwrap());
        assert_eq!((a.y, a.value, a.trial), (b.y, b.value, b.trial));
    }
    levels.refresh();
    natural.refresh();
    assert_eq!(levels.objective().to_bits(), natural.objective().to_bits());
}

#[test]
fn tiny_graphs_fit_with_levels() {
    for (n, edges) in [
        (1, vec![]),
        (2, vec![(0, 1, 1.0)]),
        (3, vec![(0, 1, 0.0), (1, 2, -2.0)]),
    ] {
        let problem = Problem::maxcut(n, &edges).unwrap();
        let params = MixingParams::default().low_rank(LowRankMode::Implicit);
        assert!(Mixing::new(&problem, &params).unwrap().levels().is_some());
        let levels = params.fit(&problem).unwrap();
        let sequential = params
            .clone()
            .sparse_sweep(SparseSweep::Sequential)
            .fit(&problem)
            .unwrap();
        assert_eq!(
            levels.sdp_value().to_bits(),
            sequential.sdp_value().to_bits()
        );
        assert_eq!(levels.y(), sequential.y());
    }
}

#[test]
fn f32_gathers_reach_the_same_sdp_value_and_stay_deterministic() {
    let n = 3000;
    let problem = Problem::maxcut(n, &random_edges(n, 5 * n, 11).unwrap()).unwrap();
    let base = MixingParams::default()
        .seed(8)
        .rank(160)
        .tol(2.5e-4)
        .trials(10)
        .low_rank(LowRankMode::Implicit);
    let exact = base.fit(&problem).unwrap();
    let f32_params = base.clone().sparse_sweep(SparseSweep::LevelsF32Gather);
    let runs: Vec<_> = [1, 2, 4]
        .into_iter()
        .map(|t| in_pool(t, || f32_params.fit(&problem)).unwrap())
        .collect();
    let (a, b) = (runs[0].sdp_value(), exact.sdp_value());
    assert!(
        (a - b).abs() <= 1e-6 * b.abs(),
        "f32 gathers: {a} vs {b}, relative {:e}",
        (a - b).abs() / b.abs()
    );
    assert_eq!(runs[0].report().iterations, exact.report().iterations);
    // The iterates differ by the f32 rounding of the gathered columns only.
    let diff = max_diff(runs[0].v(), exact.v());
    assert!(diff > 0.0 && diff < 1e-5, "V differs by {diff}");
    // The same result, bit for bit, for any number of threads.
    for other in &runs[1..] {
        assert_eq!(other.sdp_value().to_bits(), a.to_bits());
        assert_eq!(other.v(), runs[0].v());
        assert_eq!(other.y(), runs[0].y());
    }
}

#[test]
fn f32_gathers_follow_the_definition_to_f32_rounding() {
    for (name, n, edges, ranks) in graphs().into_iter().filter(|g| g.1 <= 100) {
        let problem = Problem::maxcut(n, &edges).unwrap();
        let c = problem.to_dense().unwrap();
        let params = params(2, ranks[0], SparseSweep::LevelsF32Gather);
        let mut mixing = Mixing::new(&problem, &params).unwrap();
        for sweep in 1..=5 {
            let mut expected = mixing.v().to_owned();
            common::brute_force_sweep(&c, &mut expected, &(0..c.nrows()).collect::<Vec<_>>());
            mixing.sweep().unwrap();
            let diff = max_diff(mixing.v(), expected.as_ref());
            assert!(diff <= 1e-5, "{name}, sweep {sweep}: V differs by {diff}");
        }
        // The reference sweep on this layout keeps the f32 copy current.
        let mut plain = Mixing::new(&problem, &params).unwrap();
        let mut exact =
            Mixing::new(&problem, &params.clone().sparse_sweep(SparseSweep::Levels)).unwrap();
        plain.sweep_reference().unwrap();
        exact.sweep().unwrap();
        assert_eq!(
            plain.v(),
            exact.v(),
            "{name}: sweep_reference is the f64 sweep"
        );
        plain.sweep().unwrap();
        exact.sweep().unwrap();
        let diff = max_diff(plain.v(), exact.v());
        assert!(diff <= 1e-5, "{name}: after a reference sweep, {diff}");
    }
}
