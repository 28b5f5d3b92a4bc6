//! Inputs whose cells multiply out of proportion: a node whose cells cannot be held is a
//! typed error (before its sign vectors are built where the count is known first: the
//! rank shortcut and the tangent cone), and the time limit ends a fit inside one long node
//! expansion.
//!
//! The data are the first values of `np.random.default_rng(0).random(...)` (row-major),
//! so the fits here are those of the Python calls
//! `bilinear.gop_mmf(np.random.default_rng(0).random((M, N)), k=..., max_iter=1, ...)`.

use std::time::{Duration, Instant};

use bl_core::BlError;
use bl_core::engine::TerminationReason;
use faer::Mat;
use gop_mmf::arrangement::{CellOptions, enumerate_cells};
use gop_mmf::dual::{DualLayout, Level, solve_relaxed_duals, solve_relaxed_duals_until};
use gop_mmf::lagrangian::{Affine, Lagrangian};
use gop_mmf::primal::solve_primal;
use gop_mmf::{Fit, Fitted, FittedGop, GopError, GopParams, NodeState};

/// `np.random.default_rng(0).random(36).tolist()` (PCG64, seed 0), printed by numpy 2.4.6.
const RNG0: [f64; 36] = [
    0.6369616873214543,
    0.2697867137638703,
    0.04097352393619469,
    0.016527635528529094,
    0.8132702392002724,
    0.9127555772777217,
    0.6066357757671799,
    0.7294965609839984,
    0.5436249914654229,
    0.9350724237877682,
    0.8158535541215322,
    0.002738500170148095,
    0.8574042765875693,
    0.033585575305464355,
    0.7296554464299441,
    0.17565562060255901,
    0.8631789223498866,
    0.5414612202490917,
    0.2997118905373848,
    0.42268722119765845,
    0.028319671145462966,
    0.12428327649956394,
    0.6706244146936303,
    0.6471895115742501,
    0.6153851114812539,
    0.38367755426188344,
    0.997209935789211,
    0.9808353387762301,
    0.6855419844806947,
    0.6504592762678163,
    0.6884467305709401,
    0.3889214239791038,
    0.13509650502241122,
    0.7214883401940817,
    0.5253543224757259,
    0.31024187555895566,
];

/// `np.random.default_rng(0).random((m, n))` as an `M x N` matrix (numpy fills rows first).
fn rng0(m: usize, n: usize) -> Mat<f64> {
    Mat::from_fn(m, n, |i, j| RNG0[i * n + j])
}

/// `gop_mmf(np.random.default_rng(0).random((6, 6)), k=6, max_iter=1, time_limit=5)`: the
/// root's 36 hyperplanes form 6 blocks (one per component) of 64 cells each, so the root
/// has `64^6 = 2^36` cells. The fit used to build their sign vectors block by block and
/// abort the process (`memory allocation of 25769803776 bytes failed`, 2^30 sign vectors,
/// after a first gigabyte for 2^24 of them). It is now refused, naming `k`, with the
/// number of cells, before any sign vector is built.
#[test]
fn a_node_with_more_cells_than_memory_can_hold_is_refused_naming_k() {
    let y = rng0(6, 6);
    let params = GopParams::default()
        .k(6)
        .max_iter(1)
        .time_limit(Some(Duration::from_secs(5)));
    let started = Instant::now();
    let err = params.fit(&y.as_ref()).unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(err.invalid_parameter(), Some("k"), "{err}");
    let GopError::Core(BlError::InvalidParameter {
        value, expected, ..
    }) = &err
    else {
        panic!("{err}");
    };
    assert!(value.contains("68719476736 cells"), "{err}");
    assert!(value.contains("6 blocks"), "{err}");
    assert!(expected.contains("4294967296 values"), "{err}");
    // The refusal comes after the six small block walks, long before the time limit.
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

/// The fastest of up to three fits of `y` (stopping at the first one under `bound`), so
/// that a busy machine does not fail the bound.
fn fastest_under(y: &Mat<f64>, params: &GopParams, bound: Duration) -> (Duration, FittedGop) {
    let mut best: Option<(Duration, FittedGop)> = None;
    for _ in 0..3 {
        let started = Instant::now();
        let fit = params.fit(&y.as_ref()).unwrap();
        let elapsed = started.elapsed();
        if best.as_ref().is_none_or(|(b, _)| elapsed < *b) {
            best = Some((elapsed, fit));
        }
        if elapsed < bound {
            break;
        }
    }
    best.unwrap()
}

/// `gop_mmf(np.random.default_rng(0).random((3, 3)), k=6, max_iter=1, time_limit=1.0,
/// threads=1)`: the root has `8^6 = 262,144` cells, one relaxed dual each. The deadline was
/// only read between node expansions, so the fit ran 33.6 s and ended `BudgetExhausted`;
/// with `(5, 5)` and `k=4` (`32^4 = 2^20` cells) 181 s and 948 MB. The time limit now ends
/// the fit inside the expansion: `TimeLimit`, with the root left open and the bounds found
/// so far (its primal value as `PUBD`; no leaf below the root, so no finite `RLBD`).
#[test]
fn the_time_limit_ends_a_fit_inside_one_long_node_expansion() {
    for (m, n, k) in [(3, 3, 6), (5, 5, 4)] {
        let y = rng0(m, n);
        let params = GopParams::default()
            .k(k)
            .max_iter(1)
            .time_limit(Some(Duration::from_secs(1)))
            .threads(Some(1));
        let (elapsed, fit) = fastest_under(&y, &params, Duration::from_secs(10));
        let case = format!("({m}, {n}), k = {k}");
        assert!(elapsed < Duration::from_secs(10), "{case}: {elapsed:?}");
        let report = fit.report();
        assert_eq!(report.termination, TerminationReason::TimeLimit, "{case}");
        assert_eq!(report.iterations, 1, "{case}");
        assert!(report.elapsed >= Duration::from_secs(1), "{case}");
        // The interrupted root stays open; it added no children and no history record.
        assert_eq!(fit.tree().len(), 1, "{case}");
        assert_eq!(fit.tree()[0].state, NodeState::Open, "{case}");
        assert!(fit.history().is_empty(), "{case}");
        // The best point so far: the root's primal, a finite upper bound; no lower bound
        // beyond the trivial one, so no certificate.
        let c = fit.certificate();
        assert!(c.upper_bound.is_finite(), "{case}: {c:?}");
        assert!(c.lower_bound <= c.upper_bound, "{case}: {c:?}");
        assert!(!c.certified, "{case}: {c:?}");
        assert_eq!(report.objective, c.upper_bound, "{case}");
        assert_eq!((fit.x().shape(), fit.theta().shape()), ((m, k), (k, n)));
        let residual = &y - fit.x() * fit.theta();
        let objective = residual.squared_norm_l2();
        assert!(
            (objective - c.upper_bound).abs() <= 1e-9 * (1.0 + objective),
            "{case}: {objective} vs {}",
            c.upper_bound
        );
    }
}

/// The axis hyperplanes `x_i = 0` of `R^d`: independent, central at the origin, one block
/// each, `2^d` cells in the l1 ball.
fn axes(d: usize) -> Vec<Affine> {
    (0..d)
        .map(|i| Affine {
            coeffs: vec![(i, 1.0)],
            offset: 0.0,
        })
        .collect()
}

/// The three paths of the enumeration: the rank shortcut, the tangent cone (blocks), the
/// walk on the region.
fn paths() -> [(&'static str, CellOptions); 3] {
    let base = CellOptions {
        parallel: false,
        ..CellOptions::default()
    };
    [
        ("rank shortcut", base),
        (
            "tangent cone",
            CellOptions {
                rank_shortcut: false,
                ..base
            },
        ),
        (
            "region walk",
            CellOptions {
                rank_shortcut: false,
                local: false,
                ..base
            },
        ),
    ]
}

/// `CellOptions::max_cells` bounds the cells of every path: a query with more is refused
/// naming `max_cells` (the rank shortcut and the tangent cone with the exact count, before
/// any sign vector of the query is built; the walk after the breadth level that takes it
/// past the bound), never truncated.
#[test]
fn every_enumeration_path_refuses_more_cells_than_max_cells() {
    let solver = lp_backend::Microlp;
    let d = 3;
    let hyperplanes = axes(d);
    let center = vec![0.0; d];
    for (path, options) in paths() {
        let exact = CellOptions {
            max_cells: 8,
            ..options
        };
        let cells = enumerate_cells(&solver, d, 1.0, &[], &center, &hyperplanes, &exact).unwrap();
        assert_eq!(cells.signs.len(), 8, "{path}");
        let fewer = CellOptions {
            max_cells: 7,
            ..options
        };
        let err = enumerate_cells(&solver, d, 1.0, &[], &center, &hyperplanes, &fewer).unwrap_err();
        assert_eq!(err.invalid_parameter(), Some("max_cells"), "{path}: {err}");
        let text = err.to_string();
        let want = match path {
            "rank shortcut" => "2^3 cells",
            "tangent cone" => "8 cells (2 x 2 x 2 over 3 blocks)",
            _ => "more than 7 cells",
        };
        assert!(text.contains(want), "{path}: {text}");
        assert!(text.contains("at most 7 cells"), "{path}: {text}");
    }
}

/// Independent hyperplanes through an interior point, too many for their cells' sign
/// vectors: refused with the default options (at most `MAX_ELEMENTS` signs in all), at
/// once. With 30 the rank shortcut used to list all `2^30` sign vectors of 30 signs
/// (about 58 GB); with 62 or 70 (one block each) the tangent cone used to build the
/// product of the blocks' cells until the allocation aborted.
#[test]
fn the_sign_vectors_of_one_query_are_bounded_by_max_elements() {
    let solver = lp_backend::Microlp;
    let cases = [
        (30, "rank shortcut", "2^30 cells"),
        (62, "tangent cone", "4611686018427387904 cells (2 x 2 x "),
        (70, "tangent cone", "1180591620717411303424 cells (2 x 2 x "),
    ];
    for (d, path, want) in cases {
        let options = CellOptions {
            local: path == "tangent cone",
            ..CellOptions::default()
        };
        let started = Instant::now();
        let err =
            enumerate_cells(&solver, d, 1.0, &[], &vec![0.0; d], &axes(d), &options).unwrap_err();
        assert_eq!(err.invalid_parameter(), Some("max_cells"), "{d}: {err}");
        assert!(err.to_string().contains(want), "{d}: {err}");
        assert!(
            err.to_string().contains(&format!("over {d} blocks")) || d == 30,
            "{d}: {err}"
        );
        // Only the blocks' small walks ran (three tiny LPs per block).
        assert!(started.elapsed() < Duration::from_secs(30), "{d}");
    }
}

/// A deadline that has passed ends every path of the enumeration, and the relaxed duals,
/// with `DeadlinePassed`; without a deadline (`None`) the relaxed duals are those of
/// `solve_relaxed_duals`, bit for bit.
#[test]
fn a_passed_deadline_ends_the_enumeration_and_the_relaxed_duals() {
    let solver = lp_backend::Microlp;
    let d = 3;
    let hyperplanes = axes(d);
    let center = vec![0.0; d];
    let past = Some(Instant::now());
    for (path, options) in paths() {
        let late = CellOptions {
            deadline: past,
            ..options
        };
        let err = enumerate_cells(&solver, d, 1.0, &[], &center, &hyperplanes, &late).unwrap_err();
        assert!(
            matches!(
                err,
                GopError::DeadlinePassed {
                    stage: "the cell enumeration"
                }
            ),
            "{path}: {err}"
        );
        // A deadline far ahead changes nothing.
        let ahead = CellOptions {
            deadline: Instant::now().checked_add(Duration::from_secs(3600)),
            ..options
        };
        let a = enumerate_cells(&solver, d, 1.0, &[], &center, &hyperplanes, &ahead).unwrap();
        let b = enumerate_cells(&solver, d, 1.0, &[], &center, &hyperplanes, &options).unwrap();
        assert_eq!(a, b, "{path}");
    }

    // The root of the (3, 3) instance with K = 2 and its 64 relaxed duals.
    let (m, n, k) = (3, 3, 2);
    let y: Vec<f64> = (0..n)
        .flat_map(|s| (0..m).map(move |j| RNG0[j * n + s]))
        .collect();
    let x0 = vec![0.1, -0.2, 0.05, 0.15, 0.1, -0.1];
    let primal = solve_primal(&x0, &y, m, k, n).unwrap();
    let level = Level::new(&Lagrangian::at(&x0, &primal).unwrap(), 1.0, 1e-9);
    let cells = enumerate_cells(
        &solver,
        m * k,
        1.0,
        &[],
        &x0,
        &level.filtered.reps,
        &CellOptions::default(),
    )
    .unwrap();
    assert!(cells.signs.len() > 1);
    let layout = DualLayout { mk: m * k };
    let base = layout.base_program(1.0, &[], &[], false).unwrap();
    let solve = |deadline| {
        solve_relaxed_duals_until(&solver, &layout, &base, &level, &cells.signs, "t", deadline)
    };
    let err = solve(past).unwrap_err();
    assert!(
        matches!(
            err,
            GopError::DeadlinePassed {
                stage: "the relaxed duals"
            }
        ),
        "{err}"
    );
    let plain = solve_relaxed_duals(&solver, &layout, &base, &level, &cells.signs, "t").unwrap();
    assert_eq!(solve(None).unwrap(), plain);
    assert_eq!(
        solve(Instant::now().checked_add(Duration::from_secs(3600))).unwrap(),
        plain
    );
}

/// A zero time limit ends the fit inside its first expansion: the root stays open, the
/// report says `TimeLimit` after one iteration, and `PUBD` is the root's primal value.
/// Without a time limit the same fit expands the root. `RLBD` is the trivial bound: -inf,
/// or 0 with `nonnegative_bound`; and when the root's primal closes the gap the fit is
/// `Converged`, not `TimeLimit`.
#[test]
fn a_zero_time_limit_leaves_the_root_open() {
    let y = rng0(3, 3);
    let params = GopParams::default().k(2).max_iter(1).threads(Some(1));
    let full = params.clone().fit(&y.as_ref()).unwrap();
    assert_eq!(full.report().termination, TerminationReason::MaxIterations);
    assert!(full.tree().len() > 1);
    let fit_at_zero_time =
        |p: GopParams| p.time_limit(Some(Duration::ZERO)).fit(&y.as_ref()).unwrap();
    let cut = fit_at_zero_time(params.clone());
    assert_eq!(cut.report().termination, TerminationReason::TimeLimit);
    assert_eq!(cut.report().iterations, 1);
    assert_eq!(cut.tree().len(), 1);
    assert_eq!(cut.tree()[0].state, NodeState::Open);
    assert_eq!(cut.upper_bound(), full.history()[0].primal_objective);
    assert_eq!(cut.lower_bound(), f64::NEG_INFINITY);
    // The engine's trace has the iteration, with the trivial bound.
    assert_eq!(cut.report().trace.len(), 1);

    // With `nonnegative_bound` the trivial bound is 0, not -inf.
    let floored = params.nonnegative_bound(true);
    let cut = fit_at_zero_time(floored.clone());
    assert_eq!(cut.report().termination, TerminationReason::TimeLimit);
    assert_eq!(cut.tree().len(), 1);
    assert_eq!(cut.lower_bound(), 0.0);
    assert!(cut.upper_bound() > cut.certificate().tol);
    // The engine tests convergence before the time limit: when the interrupted root's
    // primal closes the gap (here a tolerance above it), the fit is `Converged` with the
    // root unexpanded (pruned: its bound cannot beat `PUBD - tol`).
    let closed = fit_at_zero_time(floored.tol(2.0 * cut.upper_bound()));
    assert_eq!(closed.report().termination, TerminationReason::Converged);
    assert_eq!(closed.report().iterations, 1);
    assert_eq!(closed.tree().len(), 1);
    assert_eq!(closed.tree()[0].state, NodeState::Pruned);
    assert!(closed.history().is_empty());
    assert_eq!(closed.lower_bound(), 0.0);
    assert!(closed.certificate().certified);
}
