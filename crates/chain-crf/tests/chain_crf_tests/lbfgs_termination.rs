//! The termination `lbfgs` reports for each of its stops (module docs of `train::lbfgs`).

use bl_core::{Fit, Fitted, TerminationReason};
use chain_crf::{Algorithm, CrfParams, Dataset, DatasetBuilder, Lbfgs, LineSearch};

/// 300 sequences of 8 items: tags mostly a function of the word, one in ten random.
fn data() -> Dataset {
    let mut b = DatasetBuilder::new();
    let mut s: u64 = 12345;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as usize
    };
    for _ in 0..300 {
        for i in 0..8 {
            let w = next() % 60;
            let tag = if next() % 10 == 0 { next() % 5 } else { w % 5 };
            b.attribute(&format!("word={w}"), 1.0).unwrap();
            b.attribute(&format!("suf={}", w % 7), 1.0).unwrap();
            b.attribute(&format!("pos={i}"), 2.0).unwrap();
            b.end_item(&format!("T{tag}")).unwrap();
        }
        b.end_sequence().unwrap();
    }
    b.finish()
}

/// With one trial per line search, the search soon finds no step, far from the gradient
/// test: the fit reports its budget exhausted, not convergence.
#[test]
fn a_line_search_that_finds_no_step_is_budget_exhausted() {
    let data = data();
    for linesearch in [
        LineSearch::MoreThuente,
        LineSearch::Backtracking,
        LineSearch::StrongBacktracking,
    ] {
        for c1 in [0.0, 0.5] {
            let s = Lbfgs {
                max_linesearch: 1,
                linesearch,
                c1,
                ..Lbfgs::default()
            };
            let fitted = CrfParams::new(Algorithm::Lbfgs(s))
                .max_iter(1000)
                .fit(&data)
                .unwrap();
            let r = fitted.report();
            let last = fitted.log().last().unwrap();
            let relative = last.error_norm.unwrap() / last.feature_norm.max(1.0);
            assert!(relative > 1e-5, "{linesearch:?} c1 {c1}: {relative}");
            assert!(r.iterations < 1000, "{linesearch:?} c1 {c1}");
            assert_eq!(
                r.termination,
                TerminationReason::BudgetExhausted,
                "{linesearch:?} c1 {c1}"
            );
            assert!(!r.converged(), "{linesearch:?} c1 {c1}");
        }
    }
}

/// The default settings converge (by the delta test) on the same data.
#[test]
fn a_default_fit_converges() {
    let fitted = CrfParams::new(Algorithm::Lbfgs(Lbfgs::default()))
        .fit(&data())
        .unwrap();
    let r = fitted.report();
    assert!(r.converged(), "{:?}", r.termination);
}
