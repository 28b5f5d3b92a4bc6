//! Hostile parameters and sizes: every one is a typed error before anything is allocated
//! or a thread pool is built.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use faer::Mat;
use gop_mmf::{Fit, GopParams, ParamGuard};

/// The Sec. 5.1 data (`y = [0, -1, -0.5]`).
fn example_y() -> Mat<f64> {
    Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n])
}

#[test]
fn thread_counts_outside_the_workspace_bound_are_refused_at_check() {
    let max = bl_core::limits::MAX_THREADS;
    for threads in [0, max + 1, 4096, 1 << 40, usize::MAX] {
        let params = GopParams::default().threads(Some(threads));
        let err = params.check().unwrap_err();
        assert_eq!(err.invalid_parameter(), Some("threads"), "{threads}: {err}");
        // The fit checks first, so it never builds the pool (usize::MAX used to hang).
        let err = params.fit(&example_y().as_ref()).unwrap_err();
        assert_eq!(err.invalid_parameter(), Some("threads"), "{threads}: {err}");
    }
}

#[test]
fn unset_threads_means_the_global_pool_and_the_bound_itself_is_accepted() {
    for threads in [None, Some(1), Some(2), Some(bl_core::limits::MAX_THREADS)] {
        assert!(
            GopParams::default().threads(threads).check().is_ok(),
            "{threads:?}"
        );
    }
    // Unset, the fit runs on rayon's global pool; set, on a pool of that many threads. An
    // LP backend reads the pool size at every solve.
    let global = rayon::current_num_threads();
    for (threads, want) in [(None, global), (Some(1), 1), (Some(3), 3)] {
        SEEN_THREADS.store(0, Ordering::Relaxed);
        let fit = GopParams::default()
            .seed(1)
            .threads(threads)
            .lp_solver(Arc::new(RecordsThreads))
            .fit(&example_y().as_ref())
            .unwrap();
        assert!(fit.certificate().certified, "{threads:?}");
        assert_eq!(SEEN_THREADS.load(Ordering::Relaxed), want, "{threads:?}");
    }
}

/// The pool size the last LP solve of a [`RecordsThreads`] fit ran in.
static SEEN_THREADS: AtomicUsize = AtomicUsize::new(0);

/// The default LP backend, recording `rayon::current_num_threads()` at every solve.
#[derive(Debug)]
struct RecordsThreads;

impl lp_backend::Extension for RecordsThreads {
    fn name(&self) -> &str {
        "records the pool size"
    }
}

impl lp_backend::LpSolver for RecordsThreads {
    fn solve(
        &self,
        lp: &lp_backend::LinearProgram,
    ) -> Result<lp_backend::LpOutcome, lp_backend::LpError> {
        SEEN_THREADS.store(rayon::current_num_threads(), Ordering::Relaxed);
        lp_backend::Microlp.solve(lp)
    }
}

/// The name of the invalid parameter, or the shape context, of a refused call.
fn refused<T: std::fmt::Debug>(result: gop_mmf::Result<T>) -> String {
    match result {
        Err(gop_mmf::GopError::Core(bl_core::BlError::InvalidParameter { name, .. })) => {
            name.to_string()
        }
        Err(gop_mmf::GopError::Core(bl_core::BlError::ShapeMismatch { context, .. })) => {
            format!("shape of {context}")
        }
        other => panic!("expected a typed size error, got {other:?}"),
    }
}

#[test]
fn primal_sizes_are_checked_before_allocating() {
    use gop_mmf::primal::{objective, solve_primal};
    // With M = 0 the data are empty whatever N is: N = 2^40 used to abort on the
    // allocation of theta; M * K overflowing used to panic.
    let cases: Vec<(&str, gop_mmf::Result<()>, &str)> = vec![
        (
            "solve_primal N = 2^40",
            solve_primal(&[], &[], 0, 2, 1 << 40).map(drop),
            "theta (K x N)",
        ),
        (
            "solve_primal N = usize::MAX",
            solve_primal(&[], &[], 0, 2, usize::MAX).map(drop),
            "theta (K x N)",
        ),
        (
            "solve_primal M * K overflows",
            solve_primal(&[], &[], usize::MAX, 2, 1).map(drop),
            "M x K",
        ),
        (
            "solve_primal M = 2^40",
            solve_primal(&[0.0, 0.0], &[], 1 << 40, 2, 1 << 40).map(drop),
            "M x K",
        ),
        (
            "objective with a short theta",
            objective(&[1.0, 0.0], &[1.0], &[0.5, 0.5], 1, 2, 2).map(drop),
            "shape of theta",
        ),
        (
            "objective with a short y",
            objective(&[1.0, 0.0], &[1.0, 0.0], &[], 1, 2, 1).map(drop),
            "shape of y",
        ),
        (
            "objective with a short x",
            objective(&[1.0], &[1.0, 0.0], &[0.5], 1, 2, 1).map(drop),
            "shape of x",
        ),
    ];
    for (case, result, want) in cases {
        assert_eq!(refused(result), want, "{case}");
    }
    assert_eq!(
        objective(&[1.0, 0.0], &[1.0, 0.0], &[0.5], 1, 2, 1).unwrap(),
        0.25
    );
}

#[test]
fn synthetic_sizes_are_checked_before_allocating() {
    let cases: Vec<(&str, gop_mmf::Result<gop_mmf::Planted>, &str)> = vec![
        ("fig3 N = 2^40", gop_mmf::fig3_instance(1 << 40, 0), "N"),
        (
            "fig3 N = usize::MAX",
            gop_mmf::fig3_instance(usize::MAX, 0),
            "N",
        ),
        (
            "table1 M = 2^40",
            gop_mmf::table1_instance(1 << 40, 2, 0),
            "M",
        ),
        (
            "table1 N = 2^40",
            gop_mmf::table1_instance(4, 1 << 40, 0),
            "N",
        ),
        (
            "table1 M x N",
            gop_mmf::table1_instance(1 << 20, 1 << 20, 0),
            "M x N",
        ),
    ];
    for (case, result, want) in cases {
        assert_eq!(refused(result), want, "{case}");
    }
}

#[test]
fn arrangement_sizes_and_indices_are_checked_before_building_lps() {
    use gop_mmf::arrangement::{CellOptions, SignedHyperplane, brute_force_cells, enumerate_cells};
    use gop_mmf::lagrangian::Affine;
    let solver = lp_backend::Microlp;
    let options = CellOptions::default();
    let line = |i: usize| Affine {
        coeffs: vec![(i, 1.0)],
        offset: 0.0,
    };
    let hyperplanes = [line(0)];
    let off_range = [line(5)];
    let region = [SignedHyperplane {
        g: line(7),
        sign: 1,
    }];
    let cases: Vec<(&str, gop_mmf::Result<gop_mmf::arrangement::Cells>, &str)> = vec![
        // mk = 2^40: 2^41 LP variables (used to abort on their bounds); usize::MAX
        // overflowed `2 * mk`.
        (
            "enumerate mk = 2^40",
            enumerate_cells(&solver, 1 << 40, 1.0, &[], &[], &hyperplanes, &options),
            "mk",
        ),
        (
            "enumerate mk = usize::MAX",
            enumerate_cells(&solver, usize::MAX, 1.0, &[], &[], &hyperplanes, &options),
            "mk",
        ),
        (
            "brute force mk = 2^40",
            brute_force_cells(&solver, 1 << 40, 1.0, &[], &hyperplanes, 1e-9),
            "mk",
        ),
        // A coefficient on variable 5 of a 1-dimensional arrangement used to panic in the
        // rank shortcut.
        (
            "enumerate index 5 with mk = 1",
            enumerate_cells(&solver, 1, 1.0, &[], &[0.0], &off_range, &options),
            "hyperplanes",
        ),
        (
            "brute force index 5 with mk = 1",
            brute_force_cells(&solver, 1, 1.0, &[], &off_range, 1e-9),
            "hyperplanes",
        ),
        (
            "enumerate region index 7 with mk = 1",
            enumerate_cells(&solver, 1, 1.0, &region, &[0.0], &hyperplanes, &options),
            "region",
        ),
    ];
    for (case, result, want) in cases {
        assert_eq!(refused(result), want, "{case}");
    }
    // The valid query still works: one line through the origin of [-1, 1] gives 2 cells.
    let cells = enumerate_cells(&solver, 1, 1.0, &[], &[0.0], &hyperplanes, &options).unwrap();
    assert_eq!(cells.signs.len(), 2);
}

/// `Level` and `DualLayout` have public fields: signs of the wrong length, a term naming a
/// missing representative, variable indices at `mk` or beyond, and an `mk` whose
/// `1 + 2 mk` LP variables cannot exist used to panic on an index, overflow, or add
/// variables until memory ran out. Each is now a typed error before any work.
#[test]
fn relaxed_dual_pieces_check_signs_indices_and_mk() {
    use gop_mmf::arrangement::{Filtered, SignedHyperplane, Term};
    use gop_mmf::dual::{DualLayout, Level};
    use gop_mmf::lagrangian::Affine;

    let g = |coeffs: Vec<(usize, f64)>| Affine {
        coeffs,
        offset: 0.0,
    };
    let level = |reps: Vec<Affine>, rep_of_second: usize, slope: Vec<(usize, f64)>| Level {
        filtered: Filtered {
            reps,
            terms: vec![
                Term::Rep {
                    rep: 0,
                    factor: 1.0,
                    error: 0.0,
                },
                Term::Rep {
                    rep: rep_of_second,
                    factor: -1.0,
                    error: 0.0,
                },
                Term::Zero { bound: -0.5 },
            ],
        },
        constant: 1.0,
        slope,
        origin: vec![(0, 0), (1, 0), (0, 1)],
    };
    let good = level(vec![g(vec![(0, 1.0)]), g(vec![(1, -1.0)])], 1, vec![]);
    let missing_rep = level(vec![g(vec![(0, 1.0)]), g(vec![(1, -1.0)])], 5, vec![]);
    let max_slope = level(
        vec![g(vec![(0, 1.0)]), g(vec![(1, -1.0)])],
        1,
        vec![(usize::MAX, 1.0)],
    );
    let far_index = level(vec![g(vec![(0, 1.0)]), g(vec![(1 << 40, 1.0)])], 1, vec![]);
    let small = DualLayout { mk: 2 };
    let out_of_layout = [SignedHyperplane {
        g: g(vec![(2, 1.0)]),
        sign: 1,
    }];
    let cases: Vec<(&str, gop_mmf::Result<()>, &str)> = vec![
        (
            "theta_b short",
            good.theta_b(&[1]).map(drop),
            "shape of signs",
        ),
        (
            "theta_b long",
            good.theta_b(&[1, 1, 1]).map(drop),
            "shape of signs",
        ),
        (
            "lagrangian_row short",
            good.lagrangian_row(&[]).map(drop),
            "shape of signs",
        ),
        (
            "theta_b missing representative",
            missing_rep.theta_b(&[1, 1]).map(drop),
            "Level: representative index of a term",
        ),
        (
            "lagrangian_row missing representative",
            missing_rep.lagrangian_row(&[1, 1]).map(drop),
            "Level: representative index of a term",
        ),
        (
            "lagrangian_row slope index usize::MAX",
            max_slope.lagrangian_row(&[1, 1]).map(drop),
            "Level: variable index",
        ),
        (
            "lagrangian_row index 2^40",
            far_index.lagrangian_row(&[1, 1]).map(drop),
            "Level: variables of the Lagrangian row (largest index + 1)",
        ),
        (
            "base_program mk = usize::MAX",
            DualLayout { mk: usize::MAX }
                .base_program(1.0, &[], &[], false)
                .map(drop),
            "DualLayout: 1 + 2 mk LP variables",
        ),
        (
            "base_program mk = 2^40",
            DualLayout { mk: 1 << 40 }
                .base_program(1.0, &[], &[], true)
                .map(drop),
            "DualLayout: 1 + 2 mk LP variables",
        ),
        (
            "x mk = usize::MAX",
            DualLayout { mk: usize::MAX }.x(&[]).map(drop),
            "DualLayout: 1 + 2 mk LP variables",
        ),
        (
            "qualifying_row mk = usize::MAX",
            DualLayout { mk: usize::MAX }
                .qualifying_row(&g(vec![(0, 1.0)]), 1)
                .map(drop),
            "DualLayout: 1 + 2 mk LP variables",
        ),
        (
            "x short values",
            small.x(&[0.0; 4]).map(drop),
            "shape of values (LP solution)",
        ),
        (
            "cell_rows short signs",
            small.cell_rows(&good, &[1]).map(drop),
            "shape of signs",
        ),
        (
            "qualifying_row index mk",
            small.qualifying_row(&g(vec![(2, 1.0)]), -1).map(drop),
            "qualifying hyperplane g",
        ),
        (
            "lagrangian_row index past mk",
            small.lagrangian_row(&g(vec![(0, 1.0), (5, 1.0)])).map(drop),
            "Lagrangian row phi",
        ),
        (
            "base_program region past mk",
            small
                .base_program(1.0, &out_of_layout, &[], false)
                .map(drop),
            "qualifying hyperplane g",
        ),
        (
            "cell_rows representative past mk",
            DualLayout { mk: 1 }.cell_rows(&good, &[1, 1]).map(drop),
            "qualifying hyperplane g",
        ),
    ];
    for (case, result, expected) in cases {
        assert_eq!(refused(result), expected, "{case}");
    }

    // Within the limits, as before.
    assert_eq!(good.theta_b(&[1, 1]).unwrap(), vec![0.0, 1.0, 0.0]);
    let phi = good.lagrangian_row(&[1, 1]).unwrap();
    assert_eq!(phi.coeffs, vec![(1, 1.0)]);
    let base = small.base_program(1.0, &[], &[phi], false).unwrap();
    assert_eq!(base.num_vars(), 5);
    assert_eq!(small.cell_rows(&good, &[1, -1]).unwrap().len(), 3);
    assert_eq!(
        small.x(&[0.0, 1.0, 2.0, 3.0, 4.0]).unwrap(),
        vec![-2.0, -2.0]
    );
}
