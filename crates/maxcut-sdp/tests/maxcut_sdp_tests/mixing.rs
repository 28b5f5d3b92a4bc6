//! Invariants of the mixing method: unit columns, monotone objective, agreement of the
//! three forms of `C`, closed-form SDP values, determinism.

use crate::common;

use common::*;
use faer::{Mat, MatRef};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use maxcut_sdp::conformance::sweep_order;
use maxcut_sdp::{
    Colored, Cyclic, Fit, Fitted, LowRankMode, Mixing, MixingParams, Problem, RandomPermutation,
    SweepForm, SweepOrder, TerminationReason, auto_rank,
};

fn column_norm_errors(v: MatRef<'_, f64>) -> f64 {
    (0..v.ncols())
        .map(|i| {
            let s: f64 = (0..v.nrows()).map(|r| v[(r, i)] * v[(r, i)]).sum();
            (s.sqrt() - 1.0).abs()
        })
        .fold(0.0, f64::max)
}

#[test]
fn columns_stay_unit_norm_and_objective_never_decreases() {
    for (name, problem, params) in problems(&MixingParams::default().seed(11)) {
        let mut mixing = Mixing::new(&problem, &params).unwrap();
        let n = problem.n() as f64;
        assert!(column_norm_errors(mixing.v()) < 1e-14, "{name}: initial V");
        let mut previous = mixing.exact_objective();
        for sweep in 0..30 {
            let increase = mixing.sweep().unwrap();
            let exact = mixing.exact_objective();
            let scale = 1e-12 * n * (1.0 + exact.abs());
            assert!(
                exact >= previous - scale,
                "{name}: sweep {sweep} lowered the objective from {previous} to {exact}"
            );
            assert!(increase >= -scale, "{name}: reported increase {increase}");
            // The tracked objective follows the exact one.
            assert!(
                (mixing.objective() - exact).abs() <= 1e-9 * (1.0 + exact.abs()),
                "{name}: tracked {} vs exact {exact}",
                mixing.objective()
            );
            assert!(
                column_norm_errors(mixing.v()) < 1e-12,
                "{name}: sweep {sweep}"
            );
            previous = exact;
        }
    }
}

#[test]
fn dense_sparse_and_low_rank_forms_give_the_same_iterates() {
    let (c, [dense, sparse, low_rank]) = gram_in_three_forms(25, 8, 21);
    let params = MixingParams::default().seed(3).tol(0.0).max_iter(15);

    let mut results = Vec::new();
    for (problem, mode, form) in [
        (&dense, LowRankMode::Auto, SweepForm::Dense),
        (&sparse, LowRankMode::Implicit, SweepForm::Sparse),
        // A fully dense C given in sparse form: `Auto` forms it densely.
        (&sparse, LowRankMode::Auto, SweepForm::SparseFormed),
        (&low_rank, LowRankMode::Implicit, SweepForm::LowRankImplicit),
        (&low_rank, LowRankMode::Formed, SweepForm::LowRankFormed),
    ] {
        let solution = params.clone().low_rank(mode).fit(problem).unwrap();
        assert_eq!(solution.info().form, form);
        assert_eq!(solution.report().iterations, 15);
        assert_eq!(
            solution.report().termination,
            TerminationReason::MaxIterations
        );
        assert_eq!(solution.upper_bound(), None, "not converged: no bound");
        results.push(solution);
    }
    let reference = &results[0];
    let scale = 1e-9 * abs_sum(&c);
    for other in &results[1..] {
        assert!((other.sdp_value() - reference.sdp_value()).abs() <= scale);
        let dv = (0..25)
            .flat_map(|i| (0..other.v().nrows()).map(move |r| (r, i)))
            .map(|(r, i)| (other.v()[(r, i)] - reference.v()[(r, i)]).abs())
            .fold(0.0, f64::max);
        assert!(dv < 1e-8, "iterates differ by {dv}");
        assert_eq!(other.y(), reference.y());
        assert!((other.value() - reference.value()).abs() <= scale);
    }

    // value() and apply() agree across the forms and with the definition.
    let y: Vec<f64> = (0..25)
        .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let expected = naive_quad(&c, &y);
    let mut out = [vec![0.0; 25], vec![0.0; 25], vec![0.0; 25]];
    for (p, o) in [&dense, &sparse, &low_rank].into_iter().zip(out.iter_mut()) {
        assert!((p.value(&y).unwrap() - expected).abs() <= scale);
        p.apply(&y, o).unwrap();
    }
    for i in 0..25 {
        let direct: f64 = (0..25).map(|j| c[(i, j)] * y[j]).sum();
        for o in &out {
            assert!((o[i] - direct).abs() <= scale);
        }
    }
    let back = low_rank.to_dense().unwrap();
    for j in 0..25 {
        for i in 0..25 {
            assert!((back[(i, j)] - c[(i, j)]).abs() <= scale);
            assert_eq!(
                sparse.to_dense().unwrap()[(i, j)],
                dense.to_dense().unwrap()[(i, j)]
            );
        }
    }
}

#[test]
fn blocked_dense_sweeps_match_the_sequential_sparse_ones_in_both_orders() {
    // n = 150 spans several blocks of the dense sweep; the sparse and implicit sweeps are
    // plain coordinate loops, so this checks the block corrections.
    let (c, [dense, sparse, low_rank]) = gram_in_three_forms(150, 20, 31);
    let orders: [Arc<dyn SweepOrder>; 2] = [Arc::new(Cyclic), Arc::new(RandomPermutation)];
    for order in orders {
        let params = MixingParams::default()
            .seed(5)
            .order(Arc::clone(&order))
            .low_rank(LowRankMode::Implicit);
        let mut runs: Vec<Mixing<'_>> = [&dense, &sparse, &low_rank]
            .into_iter()
            .map(|p| Mixing::new(p, &params).unwrap())
            .collect();
        for _ in 0..8 {
            let increases: Vec<f64> = runs.iter_mut().map(|m| m.sweep().unwrap()).collect();
            for inc in &increases[1..] {
                assert!(
                    (inc - increases[0]).abs() <= 1e-9 * abs_sum(&c),
                    "{}",
                    order.name()
                );
            }
        }
        for other in &runs[1..] {
            for i in 0..150 {
                for r in 0..other.rank() {
                    let d = (other.v()[(r, i)] - runs[0].v()[(r, i)]).abs();
                    assert!(d < 1e-8, "{}: V differs by {d}", order.name());
                }
            }
        }
    }
}

#[test]
fn edge_list_and_csr_and_maxcut_builders_agree() {
    let edges = gnp_weighted(20, 0.3, 8);
    let from_edges = Problem::sparse_from_edges(20, &edges)
        .unwrap()
        .to_dense()
        .unwrap();
    let mut w = Mat::<f64>::zeros(20, 20);
    for &(i, j, x) in &edges {
        w[(i, j)] += x;
        w[(j, i)] += x;
    }
    let laplacian_quarter = Mat::from_fn(20, 20, |i, j| {
        let degree: f64 = (0..20).map(|l| w[(i, l)]).sum();
        0.25 * (if i == j { degree } else { 0.0 } - w[(i, j)])
    });
    let maxcut = Problem::maxcut(20, &edges).unwrap().to_dense().unwrap();
    for j in 0..20 {
        for i in 0..20 {
            assert_eq!(from_edges[(i, j)], w[(i, j)]);
            assert!((maxcut[(i, j)] - laplacian_quarter[(i, j)]).abs() < 1e-14);
        }
    }
    // y^T (L / 4) y is the cut weight.
    let problem = Problem::maxcut(20, &edges).unwrap();
    let y: Vec<f64> = (0..20)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    assert!((problem.value(&y).unwrap() - cut_weight(&edges, &y)).abs() < 1e-12);
}

#[test]
fn sdp_values_match_closed_forms_for_cycles_and_complete_graphs() {
    // For vertex-transitive graphs the max-cut SDP value is n * lambda_max(L) / 4
    // (Delorme & Poljak 1993): odd cycle C_n: n (1 + cos(pi / n)) / 2;
    // complete graph K_n: n^2 / 4.
    let params = MixingParams::default().tol(1e-12).max_iter(100_000);
    for n in [5usize, 7, 9, 15] {
        let edges: Vec<_> = (0..n).map(|i| (i, (i + 1) % n, 1.0)).collect();
        let solution = params.fit(&Problem::maxcut(n, &edges).unwrap()).unwrap();
        let expected = n as f64 * (1.0 + (std::f64::consts::PI / n as f64).cos()) / 2.0;
        let bound = solution.upper_bound().expect("converged");
        assert!(
            (bound - expected).abs() < 1e-6,
            "C_{n}: {bound} vs {expected}"
        );
        assert_eq!(solution.value(), (n - 1) as f64, "odd cycle cut");
    }
    for n in [4usize, 7] {
        let edges: Vec<_> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j, 1.0)))
            .collect();
        let solution = params.fit(&Problem::maxcut(n, &edges).unwrap()).unwrap();
        let expected = (n * n) as f64 / 4.0;
        assert!((solution.sdp_value() - expected).abs() < 1e-6);
        assert_eq!(solution.value(), ((n / 2) * (n - n / 2)) as f64);
    }
}

#[test]
fn same_seed_same_result_whatever_the_thread_count() {
    let g = random_gaussian(40, 100, 17).unwrap();
    let problem = Problem::low_rank(g.as_ref()).unwrap();
    let graph = Problem::maxcut(80, &gnp_weighted(80, 0.2, 4)).unwrap();
    let params = MixingParams::default()
        .seed(99)
        .order(Arc::new(RandomPermutation))
        .tol(1e-4);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| (params.fit(&problem).unwrap(), params.fit(&graph).unwrap()))
    };
    let (a1, b1) = run(1);
    let (a3, b3) = run(3);
    for (x, y) in [(&a1, &a3), (&b1, &b3)] {
        assert_eq!(x.y(), y.y());
        assert_eq!(x.value(), y.value());
        assert_eq!(x.sdp_value(), y.sdp_value());
        assert_eq!(x.info().rounded_value, y.info().rounded_value);
        assert_eq!(x.info().best_trial, y.info().best_trial);
        assert_eq!(x.info().local_search_flips, y.info().local_search_flips);
        assert_eq!(x.report().iterations, y.report().iterations);
        assert_eq!(x.report().trace.objectives(), y.report().trace.objectives());
    }
    // A different seed starts elsewhere.
    let other = params.clone().seed(100).fit(&graph).unwrap();
    assert_ne!(
        other.report().trace.objectives(),
        b1.report().trace.objectives()
    );
}

#[test]
fn warm_start_continues_from_the_given_factor() {
    let problem = Problem::dense(random_symmetric(30, 9).unwrap().as_ref()).unwrap();
    let params = MixingParams::default().seed(1);
    let mut first = Mixing::new(&problem, &params).unwrap();
    for _ in 0..5 {
        first.sweep().unwrap();
    }
    // Scale the columns: with_start normalizes them again.
    let scaled = Mat::from_fn(first.rank(), 30, |r, i| 3.0 * first.v()[(r, i)]);
    let mut second = Mixing::with_start(&problem, &params, scaled.as_ref()).unwrap();
    assert!((second.objective() - first.objective()).abs() < 1e-9);
    first.sweep().unwrap();
    second.sweep().unwrap();
    assert!((second.objective() - first.objective()).abs() < 1e-9);
}

#[test]
fn auto_rank_is_ceil_sqrt_2n_capped_at_n() {
    for (n, k) in [
        (1, 1),
        (2, 2),
        (3, 3),
        (8, 4),
        (150, 18),
        (151, 18),
        (1000, 45),
        (10_000, 142),
    ] {
        assert_eq!(auto_rank(n), k, "n = {n}");
    }
    for n in 1..2000usize {
        let k = auto_rank(n);
        assert!(k <= n);
        if k < n {
            assert!(k * k >= 2 * n && (k - 1) * (k - 1) < 2 * n, "n = {n}");
        }
    }
}

#[test]
fn convergence_is_reported_and_max_iter_respected() {
    let problem = Problem::maxcut(50, &gnp_weighted(50, 0.5, 12)).unwrap();
    let loose = MixingParams::default()
        .tol(1e-3)
        .seed(2)
        .fit(&problem)
        .unwrap();
    let report = loose.report();
    assert_eq!(report.termination, TerminationReason::Converged);
    assert_eq!(loose.upper_bound(), Some(loose.sdp_value()));
    let trace = report.trace.objectives();
    assert_eq!(trace.len(), report.iterations);
    let last = trace[report.iterations - 1];
    let before = if report.iterations > 1 {
        trace[report.iterations - 2]
    } else {
        f64::NAN
    };
    assert!(last - before <= 1e-3 * last.abs() || report.iterations == 1);
    let capped = MixingParams::default()
        .tol(0.0)
        .max_iter(3)
        .seed(2)
        .fit(&problem)
        .unwrap();
    assert_eq!(capped.report().iterations, 3);
    assert_eq!(
        capped.report().termination,
        TerminationReason::MaxIterations
    );
    assert_eq!(capped.upper_bound(), None);
}

#[test]
fn sparse_kernel_matches_the_reference_sweep_and_the_definition() {
    // Rows of every length modulo 4 (the kernel takes four entries at a time), ranks with
    // and without a remainder modulo the SIMD width, both built-in orders.
    let graphs = [
        (60, gnp_weighted(60, 0.1, 2)),
        (40, gnp_weighted(40, 0.6, 3)),
        (9, gnp_weighted(9, 1.0, 4)),
    ];
    for (n, edges) in graphs {
        let problem = Problem::maxcut(n, &edges).unwrap();
        let c = problem.to_dense().unwrap();
        let orders: [Arc<dyn SweepOrder>; 2] = [Arc::new(Cyclic), Arc::new(RandomPermutation)];
        for (order, rank) in orders.into_iter().zip([5, 8]) {
            let params = MixingParams::default()
                .seed(n as u64)
                .rank(rank)
                .order(Arc::clone(&order));
            let mut fast = Mixing::new(&problem, &params).unwrap();
            let mut reference = Mixing::new(&problem, &params).unwrap();
            for sweep in 1..=6 {
                // The cyclic sweep by the definition, from the same V.
                let mut by_definition = fast.v().to_owned();
                brute_force_sweep(&c, &mut by_definition, &(0..n).collect::<Vec<_>>());
                let gain = fast.sweep().unwrap();
                let reference_gain = reference.sweep_reference().unwrap();
                assert_eq!(gain.to_bits(), reference_gain.to_bits(), "sweep {sweep}");
                assert_eq!(fast.v(), reference.v(), "{n}: sweep {sweep}");
                assert_eq!(fast.objective(), reference.objective());
                if order.is_identity() {
                    let diff = (0..n)
                        .flat_map(|i| (0..rank).map(move |r| (r, i)))
                        .map(|(r, i)| (by_definition[(r, i)] - fast.v()[(r, i)]).abs())
                        .fold(0.0, f64::max);
                    assert!(diff <= 1e-12, "{n}: sweep {sweep} differs by {diff}");
                }
            }
        }
    }
}

#[test]
fn maxcut_on_a_dense_graph_picks_the_dense_kernel_without_changing_the_result() {
    let n = 120;
    let base = MixingParams::default().seed(9).tol(1e-12).max_iter(5000);
    for (p, auto_form) in [(0.5, SweepForm::SparseFormed), (0.02, SweepForm::Sparse)] {
        let problem = Problem::maxcut(n, &gnp_weighted(n, p, 11)).unwrap();
        let auto = base.clone().fit(&problem).unwrap();
        let sparse = base
            .clone()
            .low_rank(LowRankMode::Implicit)
            .fit(&problem)
            .unwrap();
        assert_eq!(auto.info().form, auto_form, "p = {p}");
        assert_eq!(sparse.info().form, SweepForm::Sparse);
        assert!(auto.report().converged() && sparse.report().converged());
        let (a, b) = (auto.sdp_value(), sparse.sdp_value());
        assert!((a - b).abs() <= 1e-9 * b.abs(), "p = {p}: {a} vs {b}");
        assert_eq!(auto.y(), sparse.y(), "p = {p}");
    }
}

/// The greedy coloring by the definition on a dense `C`: vertex `i` takes the smallest
/// color none of its neighbors `j < i` (`C_ij != 0`) has; returns the vertices class by
/// class.
fn greedy_color_order(c: &Mat<f64>) -> Vec<usize> {
    let n = c.nrows();
    let mut color = vec![0usize; n];
    for i in 0..n {
        let taken: Vec<usize> = (0..i)
            .filter(|&j| c[(i, j)] != 0.0)
            .map(|j| color[j])
            .collect();
        color[i] = (0..).find(|x| !taken.contains(x)).unwrap();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (color[i], i));
    order
}

#[test]
fn colored_sweeps_are_gauss_seidel_in_color_order_for_any_thread_count() {
    let report = sweep_order::conformance(&Colored);
    assert!(report.passed(), "{report}");
    let n = 90;
    let problem = Problem::maxcut(n, &gnp_weighted(n, 0.08, 5)).unwrap();
    let c = problem.to_dense().unwrap();
    let order = greedy_color_order(&c);
    let params = MixingParams::default()
        .seed(4)
        .rank(6)
        .low_rank(LowRankMode::Implicit)
        .order(Arc::new(Colored));
    let mut runs: Vec<(Mat<f64>, f64)> = Vec::new();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut mixing = Mixing::new(&problem, &params).unwrap();
        pool.install(|| {
            for sweep in 1..=5 {
                let mut by_definition = mixing.v().to_owned();
                brute_force_sweep(&c, &mut by_definition, &order);
                let before = mixing.objective();
                let gain = mixing.sweep().unwrap();
                assert!(gain >= 0.0 && mixing.objective() >= before);
                let diff = (0..n)
                    .flat_map(|i| (0..6).map(move |r| (r, i)))
                    .map(|(r, i)| (by_definition[(r, i)] - mixing.v()[(r, i)]).abs())
                    .fold(0.0, f64::max);
                assert!(diff <= 1e-12, "{threads} threads, sweep {sweep}: {diff}");
            }
        });
        runs.push((mixing.v().to_owned(), mixing.objective()));
    }
    for (v, objective) in &runs[1..] {
        assert_eq!(v, &runs[0].0, "V depends on the thread count");
        assert_eq!(objective.to_bits(), runs[0].1.to_bits());
    }
}

#[test]
fn colored_order_converges_to_the_cyclic_sdp_value() {
    let n = 200;
    let problem = Problem::maxcut(n, &gnp_weighted(n, 0.05, 6)).unwrap();
    let base = MixingParams::default().seed(2).tol(1e-10).max_iter(20_000);
    let colored = base.clone().order(Arc::new(Colored)).fit(&problem).unwrap();
    let cyclic = base.fit(&problem).unwrap();
    assert!(colored.report().converged() && cyclic.report().converged());
    let (a, b) = (colored.sdp_value(), cyclic.sdp_value());
    assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
}

/// The rayon pool size the last sweep of a [`RECORDS_THREADS`] fit ran in.
static SEEN_THREADS: AtomicUsize = AtomicUsize::new(0);

/// The cyclic order, recording `rayon::current_num_threads()` at every sweep.
const RECORDS_THREADS: FnOrder = FnOrder {
    name: "records the pool size",
    arrange: |_, _| SEEN_THREADS.store(rayon::current_num_threads(), Ordering::Relaxed),
    identity: false,
};

#[test]
fn the_threads_knob_runs_the_fit_on_its_own_pool_with_the_same_result() {
    // A sparse graph (level schedule and colour classes run in parallel) and a dense one.
    let sparse = Problem::maxcut(300, &gnp_weighted(300, 0.02, 7)).unwrap();
    let dense = Problem::dense(random_symmetric(60, 8).unwrap().as_ref()).unwrap();
    // Low rank, formed by faer's blocked product (n^2 m above the plain loop's size) and
    // kept implicit (W formed by a parallel product).
    let wide = Problem::low_rank(random_gaussian(300, 400, 9).unwrap().as_ref()).unwrap();
    let tall = Problem::low_rank(random_gaussian(300, 40, 10).unwrap().as_ref()).unwrap();
    let orders: [Arc<dyn SweepOrder>; 2] = [Arc::new(Cyclic), Arc::new(Colored)];
    for problem in [&sparse, &dense, &wide, &tall] {
        for order in &orders {
            let base = MixingParams::default()
                .seed(6)
                .tol(1e-8)
                .order(Arc::clone(order));
            let global = base.clone().fit(problem).unwrap();
            for threads in [1, 2, 3] {
                let own = base.clone().threads(Some(threads)).fit(problem).unwrap();
                assert_eq!(own.y(), global.y(), "{threads} threads");
                assert_eq!(own.sdp_value(), global.sdp_value(), "{threads} threads");
                assert_eq!(own.report().iterations, global.report().iterations);
            }
        }
    }
    // The fit runs on a pool of that many threads, whatever pool the caller is in: a
    // sweep order reads the pool size at every sweep.
    let caller = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for (threads, want) in [(Some(3), 3), (Some(2), 2), (None, 1)] {
        SEEN_THREADS.store(0, Ordering::Relaxed);
        let params = MixingParams::default()
            .max_iter(2)
            .order(Arc::new(RECORDS_THREADS))
            .threads(threads);
        caller.install(|| params.fit(&sparse)).unwrap();
        assert_eq!(SEEN_THREADS.load(Ordering::Relaxed), want, "{threads:?}");
    }
    for bad in [Some(0), Some(1025)] {
        let err = maxcut_sdp::ParamGuard::check(&MixingParams::default().threads(bad)).unwrap_err();
        assert!(err.to_string().contains("threads"), "{err}");
    }
}

#[test]
fn the_time_limit_and_the_trace_knobs_reach_the_report() {
    let problem = Problem::maxcut(200, &gnp_weighted(200, 0.05, 9)).unwrap();
    let params = MixingParams::default()
        .tol(0.0)
        .max_iter(50)
        .time_limit(Some(std::time::Duration::ZERO));
    let fitted = params.fit(&problem).unwrap();
    assert_eq!(fitted.report().termination, TerminationReason::TimeLimit);
    assert_eq!(fitted.report().iterations, 1);
    let untraced = MixingParams::default()
        .tol(0.0)
        .max_iter(7)
        .trace(false)
        .fit(&problem)
        .unwrap();
    assert_eq!(untraced.report().iterations, 7);
    assert!(untraced.report().trace.is_empty());
    let traced = MixingParams::default()
        .tol(0.0)
        .max_iter(7)
        .fit(&problem)
        .unwrap();
    assert_eq!(traced.report().trace.len(), 7);
    // The same sweeps either way.
    assert_eq!(untraced.sdp_value(), traced.sdp_value());
}

#[test]
fn the_max_cut_preset_is_the_defaults_with_the_certificate() {
    let edges = maxcut_sdp::synthetic::gnp_weighted(20, 0.3, 1).unwrap();
    let problem = Problem::maxcut(20, &edges).unwrap();
    let preset = MixingParams::max_cut().fit(&problem).unwrap();
    let default = MixingParams::default().fit(&problem).unwrap();
    let by_hand = MixingParams::default().certify(true).fit(&problem).unwrap();
    assert_eq!(default.certified_bound(), None);
    let bound = preset.certified_bound().unwrap();
    // Weak duality: the certified bound is above the cut found.
    assert!(
        bound >= preset.value() - 1e-9,
        "{bound} < {}",
        preset.value()
    );
    // Everything else is the defaults': the same iterates and cut.
    assert_eq!(preset.y(), default.y());
    assert_eq!(preset.value().to_bits(), default.value().to_bits());
    assert_eq!(preset.certified_bound(), by_hand.certified_bound());
}

#[test]
fn the_dual_bound_is_the_same_on_every_pool() {
    // n = 400: above the size where faer's eigensolver splits its sums by thread (the
    // bound runs it on the calling thread, so the pool's size cannot reach it).
    let graph = Problem::maxcut(400, &gnp_weighted(400, 0.05, 6)).unwrap();
    let solution = MixingParams::default()
        .seed(2)
        .max_iter(5)
        .fit(&graph)
        .unwrap();
    let v = solution.v();
    let bound = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| graph.dual_bound(v).unwrap())
    };
    let one = bound(1);
    assert!(
        one >= solution.sdp_value(),
        "{one} < {}",
        solution.sdp_value()
    );
    for threads in [2, 3] {
        assert_eq!(bound(threads).to_bits(), one.to_bits(), "{threads} threads");
    }
}
