//! Bad input for every public entry point: typed errors, never panics.

use bl_core::BlError;
use faer::{Mat, mat};
use maxcut_sdp::{BooleanQp, Fit, MaxcutError, Mixing, MixingParams, ParamGuard, Problem};

fn is<T: std::fmt::Debug>(result: Result<T, MaxcutError>, check: impl Fn(&MaxcutError) -> bool) {
    match result {
        Err(e) => {
            assert!(check(&e), "unexpected error {e:?}");
            // Every message is non-empty and mentions something concrete.
            assert!(!e.to_string().is_empty());
        }
        Ok(value) => panic!("expected an error, got {value:?}"),
    }
}

#[test]
fn dense_cost_rejects_bad_matrices() {
    is(Problem::dense(Mat::<f64>::zeros(2, 3).as_ref()), |e| {
        matches!(
            e,
            MaxcutError::NotSquare {
                rows: 2,
                cols: 3,
                ..
            }
        )
    });
    is(Problem::dense(Mat::<f64>::zeros(0, 0).as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(
        Problem::dense(mat![[1.0, f64::NAN], [f64::NAN, 1.0]].as_ref()),
        |e| matches!(e, MaxcutError::Core(BlError::NonFinite { index: 1, .. })),
    );
    is(
        Problem::dense(mat![[1.0, 0.0], [0.0, f64::INFINITY]].as_ref()),
        |e| matches!(e, MaxcutError::Core(BlError::NonFinite { index: 3, .. })),
    );
    is(Problem::dense(mat![[1.0, 2.0], [2.5, 1.0]].as_ref()), |e| {
        matches!(e, MaxcutError::NotSymmetric { row: 0, col: 1, .. })
    });
    // Rounding-level asymmetry is accepted.
    assert!(Problem::dense(mat![[1.0, 2.0], [2.0 + 1e-15, 1.0]].as_ref()).is_ok());
}

#[test]
fn sparse_costs_reject_bad_structure() {
    is(Problem::sparse_from_edges(0, &[]), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(Problem::sparse_from_edges(3, &[(0, 3, 1.0)]), |e| {
        matches!(e, MaxcutError::IndexOutOfBounds { index: 3, n: 3, .. })
    });
    is(Problem::sparse_from_edges(3, &[(0, 1, f64::NAN)]), |e| {
        matches!(e, MaxcutError::Core(BlError::NonFinite { .. }))
    });
    is(Problem::maxcut(0, &[]), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(Problem::maxcut(2, &[(5, 0, 1.0)]), |e| {
        matches!(e, MaxcutError::IndexOutOfBounds { index: 5, .. })
    });
    is(Problem::maxcut(2, &[(0, 1, f64::NEG_INFINITY)]), |e| {
        matches!(e, MaxcutError::Core(BlError::NonFinite { .. }))
    });

    let ok_rows = [0usize, 1, 2];
    is(Problem::sparse_from_csr(0, &[0], &[], &[]), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(Problem::sparse_from_csr(2, &[0, 1], &[1], &[1.0]), |e| {
        matches!(e, MaxcutError::InvalidCsr { .. })
    });
    is(
        Problem::sparse_from_csr(2, &ok_rows, &[1, 0], &[1.0]),
        |e| matches!(e, MaxcutError::InvalidCsr { .. }),
    );
    is(
        Problem::sparse_from_csr(2, &[1, 1, 2], &[1, 0], &[1.0, 1.0]),
        |e| matches!(e, MaxcutError::InvalidCsr { .. }),
    );
    is(Problem::sparse_from_csr(2, &[0, 2, 1], &[1], &[1.0]), |e| {
        matches!(e, MaxcutError::InvalidCsr { .. })
    });
    is(
        Problem::sparse_from_csr(2, &ok_rows, &[1, 2], &[1.0, 1.0]),
        |e| matches!(e, MaxcutError::IndexOutOfBounds { index: 2, .. }),
    );
    is(
        Problem::sparse_from_csr(2, &ok_rows, &[1, 0], &[1.0, f64::NAN]),
        |e| matches!(e, MaxcutError::Core(BlError::NonFinite { .. })),
    );
    is(
        Problem::sparse_from_csr(2, &ok_rows, &[1, 0], &[1.0, 2.0]),
        |e| matches!(e, MaxcutError::NotSymmetric { .. }),
    );
    // Only one triangle given: not symmetric.
    is(Problem::sparse_from_csr(2, &[0, 1, 1], &[1], &[1.0]), |e| {
        matches!(e, MaxcutError::NotSymmetric { .. })
    });
    assert!(Problem::sparse_from_csr(2, &ok_rows, &[1, 0], &[1.5, 1.5]).is_ok());
}

#[test]
fn low_rank_cost_rejects_bad_factors() {
    is(Problem::low_rank(Mat::<f64>::zeros(0, 4).as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(Problem::low_rank(mat![[1.0, f64::NAN]].as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::NonFinite { index: 1, .. }))
    });
    // m = 0 is C = 0: valid, and solvable.
    let zero = Problem::low_rank(Mat::<f64>::zeros(3, 0).as_ref()).unwrap();
    let solution = MixingParams::default().fit(&zero).unwrap();
    assert_eq!(solution.value(), 0.0);
    assert_eq!(solution.sdp_value(), 0.0);
}

#[test]
fn problem_methods_reject_bad_vectors_and_params() {
    let problem = Problem::maxcut(3, &[(0, 1, 1.0), (1, 2, 1.0)]).unwrap();
    is(problem.value(&[1.0, -1.0]), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(problem.value(&[1.0, 0.5, -1.0]), |e| {
        matches!(e, MaxcutError::NotDiscrete { index: 1, .. })
    });
    is(problem.value(&[1.0, f64::NAN, -1.0]), |e| {
        matches!(e, MaxcutError::NotDiscrete { .. })
    });
    let mut out = [0.0; 3];
    is(problem.apply(&[1.0; 2], &mut out), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(problem.apply(&[1.0; 3], &mut [0.0; 4]), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(problem.local_search(&mut [1.0; 4]), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(problem.local_search(&mut [1.0, 2.0, 1.0]), |e| {
        matches!(e, MaxcutError::NotDiscrete { .. })
    });
    is(problem.dual_bound(Mat::<f64>::zeros(2, 4).as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(problem.dual_bound(Mat::<f64>::zeros(0, 3).as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(
        problem.dual_bound(mat![[1.0, f64::NAN, 1.0]].as_ref()),
        |e| matches!(e, MaxcutError::Core(BlError::NonFinite { .. })),
    );

    let invalid = [
        MixingParams::default().rank(0),
        MixingParams::default().tol(-1.0),
        MixingParams::default().tol(f64::NAN),
        MixingParams::default().tol(f64::INFINITY),
        MixingParams::default().max_iter(0),
        MixingParams::default().trials(0),
    ];
    for params in &invalid {
        is(params.check(), |e| {
            matches!(e, MaxcutError::Core(BlError::InvalidParameter { .. }))
        });
        is(params.fit(&problem), |e| {
            matches!(e, MaxcutError::Core(BlError::InvalidParameter { .. }))
        });
        is(Mixing::new(&problem, params), |e| {
            matches!(e, MaxcutError::Core(BlError::InvalidParameter { .. }))
        });
    }

    let big = Problem::maxcut(25, &[(0, 24, 1.0)]).unwrap();
    is(big.solve_exact(), |e| {
        matches!(e, MaxcutError::TooLargeForExact { n: 25, max: 24 })
    });
    let huge = Problem::maxcut(4097, &[(0, 1, 1.0)]).unwrap();
    is(
        MixingParams::default().certify(true).max_iter(1).fit(&huge),
        |e| matches!(e, MaxcutError::TooLargeForExact { n: 4097, .. }),
    );
}

#[test]
fn mixing_low_level_rejects_bad_starts() {
    let problem = Problem::maxcut(3, &[(0, 1, 1.0), (1, 2, 1.0)]).unwrap();
    let params = MixingParams::default();
    is(
        Mixing::with_start(&problem, &params, Mat::<f64>::zeros(2, 4).as_ref()),
        |e| matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. })),
    );
    is(
        Mixing::with_start(&problem, &params, Mat::<f64>::zeros(0, 3).as_ref()),
        |e| matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. })),
    );
    is(
        Mixing::with_start(
            &problem,
            &params.clone().rank(3),
            Mat::<f64>::ones(2, 3).as_ref(),
        ),
        |e| matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. })),
    );
    is(
        Mixing::with_start(&problem, &params, mat![[1.0, 0.0, 1.0]].as_ref()),
        |e| {
            matches!(
                e,
                MaxcutError::Core(BlError::InvalidParameter { name: "v0", .. })
            )
        },
    );
    is(
        Mixing::with_start(&problem, &params, mat![[1.0, f64::NAN, 1.0]].as_ref()),
        |e| matches!(e, MaxcutError::Core(BlError::NonFinite { .. })),
    );
    let mixing = Mixing::new(&problem, &params).unwrap();
    is(mixing.round(0, 1), |e| {
        matches!(e, MaxcutError::Core(BlError::InvalidParameter { .. }))
    });
    assert!(mixing.round(1, 1).is_ok());
}

#[test]
fn overflowing_input_is_a_numerical_error_not_a_panic() {
    let c = mat![[0.0, 1e308], [1e308, 0.0]];
    let problem = Problem::dense(c.as_ref()).unwrap();
    is(MixingParams::default().fit(&problem), |e| {
        matches!(e, MaxcutError::Core(BlError::Numerical { .. }))
    });
}

#[test]
fn boolean_qp_rejects_bad_input() {
    is(BooleanQp::dense(Mat::<f64>::zeros(2, 3).as_ref()), |e| {
        matches!(e, MaxcutError::NotSquare { .. })
    });
    is(BooleanQp::dense(Mat::<f64>::zeros(0, 0).as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(BooleanQp::dense(mat![[f64::NAN]].as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::NonFinite { .. }))
    });
    is(BooleanQp::low_rank(Mat::<f64>::zeros(0, 2).as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::Empty { .. }))
    });
    is(BooleanQp::low_rank(mat![[f64::INFINITY]].as_ref()), |e| {
        matches!(e, MaxcutError::Core(BlError::NonFinite { .. }))
    });
    let qp = BooleanQp::dense(mat![[1.0, -2.0], [0.0, 1.0]].as_ref()).unwrap();
    is(qp.value(&[1.0]), |e| {
        matches!(e, MaxcutError::Core(BlError::ShapeMismatch { .. }))
    });
    is(qp.value(&[1.0, -1.0]), |e| {
        matches!(e, MaxcutError::NotDiscrete { index: 1, .. })
    });
    is(
        crate::common::fit_bqp(&MixingParams::default().trials(0), &qp),
        |e| matches!(e, MaxcutError::Core(BlError::InvalidParameter { .. })),
    );
    let big = BooleanQp::low_rank(Mat::<f64>::ones(25, 2).as_ref()).unwrap();
    is(big.solve_exact(), |e| {
        matches!(e, MaxcutError::TooLargeForExact { n: 25, .. })
    });
}
