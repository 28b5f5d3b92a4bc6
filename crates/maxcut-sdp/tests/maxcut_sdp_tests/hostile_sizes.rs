//! Sizes, counts and ranks given by callers are checked before anything of that size is
//! allocated: each case gets a typed error, none allocates more than a
//! few tens of MiB. Before the checks these aborted on multi-terabyte requests, overflowed
//! or ran for hours.

use bl_core::BlError;
use maxcut_sdp::synthetic::{
    dense_maxcut_cost, gaussian, gnp_weighted, random_edges, random_symmetric, sparse_graph,
};
use maxcut_sdp::{
    BooleanQp, Fit, LowRankMode, MaxcutError, Mixing, MixingParams, ParamGuard, Problem, auto_rank,
};

/// `2^40`: far beyond any buffer (8 TiB of `f64`).
const HUGE: usize = 1 << 40;

fn is_invalid_parameter<T: std::fmt::Debug>(case: &str, result: Result<T, MaxcutError>) {
    match result {
        Err(MaxcutError::Core(BlError::InvalidParameter { .. })) => {}
        other => panic!("{case}: expected InvalidParameter, got {other:?}"),
    }
}

/// A valid small graph (4-cycle).
fn square() -> Problem {
    Problem::maxcut(4, &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 0, 1.0)]).unwrap()
}

#[test]
fn problem_constructors_refuse_huge_n_before_allocating() {
    type Case = (&'static str, fn() -> Result<Problem, MaxcutError>);
    let cases: [Case; 4] = [
        ("maxcut(2^40, [])", || Problem::maxcut(HUGE, &[])),
        ("maxcut(2^40, one edge)", || {
            Problem::maxcut(HUGE, &[(0, 1, 1.0)])
        }),
        ("sparse_from_edges(2^40, [])", || {
            Problem::sparse_from_edges(HUGE, &[])
        }),
        ("sparse_from_edges(usize::MAX, [])", || {
            Problem::sparse_from_edges(usize::MAX, &[])
        }),
    ];
    for (case, build) in cases {
        is_invalid_parameter(case, build());
    }
}

#[test]
fn csr_with_n_usize_max_is_a_malformed_csr_not_an_overflow() {
    for n in [usize::MAX, usize::MAX - 1, HUGE] {
        match Problem::sparse_from_csr(n, &[0], &[], &[]) {
            Err(MaxcutError::InvalidCsr { message }) => {
                assert!(message.contains("row_ptr has length 1"), "{message}");
            }
            other => panic!("n = {n}: {other:?}"),
        }
    }
}

#[test]
fn fits_refuse_a_factor_v_beyond_the_limit() {
    // n = 2^22 (64 MiB of problem), default rank ceil(sqrt(2 n)) = 2897: V would hold
    // 1.2e10 values (97 GB).
    let n = 1 << 22;
    let problem = Problem::maxcut(n, &[(0, 1, 1.0)]).unwrap();
    assert_eq!(auto_rank(n), 2897);
    is_invalid_parameter(
        "Mixing::new",
        Mixing::new(&problem, &MixingParams::default()),
    );
    is_invalid_parameter("fit", MixingParams::default().fit(&problem));
    // A rank that fits is accepted on the same problem.
    let mixing = Mixing::new(&problem, &MixingParams::default().rank(2)).unwrap();
    assert_eq!(mixing.rank(), 2);
}

#[test]
fn forming_c_densely_is_refused_beyond_the_limit() {
    // n = 2^17: n x n = 2^34 values (128 GiB).
    let n = 1 << 17;
    let problem = Problem::maxcut(n, &[(0, 1, 1.0)]).unwrap();
    let params = MixingParams::default()
        .rank(1)
        .low_rank(LowRankMode::Formed);
    is_invalid_parameter("Formed", Mixing::new(&problem, &params));
    is_invalid_parameter("to_dense", problem.to_dense());
    // The sparse form of the same problem fits.
    let sparse = params.low_rank(LowRankMode::Implicit);
    assert!(Mixing::new(&problem, &sparse).is_ok());
}

#[test]
fn rounding_refuses_too_many_trials_before_drawing_them() {
    let problem = square();
    let mixing = Mixing::new(&problem, &MixingParams::default().seed(1)).unwrap();
    // rank 3 here: 3 x 2^31 and 3 x 2^40 directions exceed 2^32 values.
    assert_eq!(mixing.rank(), 3);
    for trials in [HUGE, 1 << 31, usize::MAX] {
        is_invalid_parameter("round", mixing.round(trials, 0));
    }
    assert!(mixing.round(1000, 0).is_ok());
    // The parameter check refuses more than 2^32 trials before any sweep.
    for trials in [HUGE, usize::MAX] {
        let params = MixingParams::default().trials(trials);
        is_invalid_parameter("check", params.check().map(|_| ()));
        is_invalid_parameter("fit", params.fit(&problem));
    }
}

#[test]
fn synthetic_generators_refuse_huge_sizes() {
    is_invalid_parameter("gnp_weighted", gnp_weighted(1 << 20, 0.5, 0));
    is_invalid_parameter("gnp_weighted p = 0", gnp_weighted(1 << 20, 0.0, 0));
    is_invalid_parameter("dense_maxcut_cost", dense_maxcut_cost(1 << 20, 0.1, 0));
    is_invalid_parameter("random_edges", random_edges(10, HUGE, 0));
    is_invalid_parameter("sparse_graph", sparse_graph(1 << 33, 2, 0));
    is_invalid_parameter("sparse_graph usize::MAX", sparse_graph(usize::MAX, 3, 0));
    is_invalid_parameter("gaussian", gaussian(HUGE, HUGE, 0));
    is_invalid_parameter("random_symmetric", random_symmetric(1 << 20, 0));
    // Within the limits they work as before.
    assert_eq!(random_edges(10, 5, 0).unwrap().len(), 5);
    assert_eq!(gaussian(3, 2, 0).unwrap().nrows(), 3);
    assert_eq!(random_symmetric(3, 0).unwrap().ncols(), 3);
}

#[test]
fn auto_rank_is_defined_for_every_n() {
    // 2 n overflowed usize before.
    let k = auto_rank(usize::MAX);
    assert!(k >= 1 << 32, "{k}");
    let k = auto_rank(usize::MAX / 2 + 1);
    assert!(k >= 1 << 32, "{k}");
    assert_eq!(auto_rank(8), 4);
}

#[test]
fn matrix_views_of_huge_shape_are_refused_before_they_are_read() {
    // A safe faer view may repeat one value over any shape: 2^17 x 2^17 (2^34 values,
    // 128 GiB as a copy) from one f64. These used to scan 2^34 entries and then abort on
    // the copy; they are refused before the scan.
    let one = 1.0;
    let n = 1 << 17;
    let square = faer::MatRef::from_repeated_ref(&one, n, n);
    let cases: [(&str, Result<(), MaxcutError>); 4] = [
        ("Problem::dense", Problem::dense(square).map(|_| ())),
        ("Problem::low_rank", Problem::low_rank(square).map(|_| ())),
        ("BooleanQp::dense", BooleanQp::dense(square).map(|_| ())),
        (
            "BooleanQp::low_rank",
            BooleanQp::low_rank(square).map(|_| ()),
        ),
    ];
    for (case, result) in cases {
        is_invalid_parameter(case, result);
    }
    // A small repeated view is read as before.
    let small = faer::MatRef::from_repeated_ref(&one, 3, 3);
    assert_eq!(Problem::dense(small).unwrap().n(), 3);
    assert_eq!(BooleanQp::low_rank(small).unwrap().n(), 3);
}
