//! The GOP fit run through `fit_observed`: the observer sees exactly the report's trace,
//! and the bounds behave as the theory says (Sec. 3.3: `PUBD` is the best primal value so
//! far, never increasing; `RLBD` is the smallest bound over the leaves, never decreasing;
//! `RLBD <= PUBD`, and both bracket the global optimum).

use bl_core::engine::{IterationView, TerminationReason};
use faer::Mat;
use gop_mmf::{Fit, Fitted, GopParams, Linearization};

/// What the observer keeps of one iteration.
#[derive(Debug, PartialEq)]
struct Seen {
    iteration: usize,
    objective: f64,
    change: f64,
    extras: Vec<(String, f64)>,
}

fn observed(params: &GopParams, y: &Mat<f64>) -> (gop_mmf::FittedGop, Vec<Seen>) {
    let mut seen = Vec::new();
    let mut observer = |v: &IterationView<'_>| {
        seen.push(Seen {
            iteration: v.iteration,
            objective: v.objective,
            change: v.change,
            extras: v.extras.iter().map(|&(n, x)| (n.to_string(), x)).collect(),
        });
    };
    let fitted = params
        .fit_observed(&y.as_ref(), &mut [&mut observer])
        .expect("fit");
    (fitted, seen)
}

#[test]
fn the_observer_sees_the_trace_and_the_bounds_bracket_the_optimum() {
    // Sec. 5.1: y = [0, -1, -0.5], K = 2, P = 1; the global optimum is 0.
    let y = Mat::from_fn(1, 3, |_, n| [0.0, -1.0, -0.5][n]);
    let base = GopParams::default()
        .k(2)
        .budget(1.0)
        .tol(0.01)
        .threads(Some(1));
    let variants = [
        base.clone().seed(1),
        base.clone().seed(2).nonnegative_bound(true),
        base.seed(3)
            .linearization(Linearization::Paper)
            .max_iter(40),
    ];
    for params in variants {
        let (fitted, seen) = observed(&params, &y);
        let report = fitted.report();
        let records = report.trace.records();
        assert_eq!(seen.len(), report.iterations, "{params:?}");
        assert_eq!(records.len(), report.iterations);
        for (s, r) in seen.iter().zip(records) {
            assert_eq!(
                (s.iteration, s.objective, s.change),
                (r.iteration, r.objective, r.change)
            );
            assert_eq!(s.extras, r.extras);
        }
        // The trace's objective is PUBD and its change the gap PUBD - RLBD.
        let lower = report.trace.extra("lower_bound");
        assert_eq!(lower.len(), records.len());
        for (w, r) in records.windows(2).zip(lower.windows(2)) {
            assert!(w[1].objective <= w[0].objective, "PUBD increased");
            assert!(r[1].1 >= r[0].1 - 1e-12, "RLBD decreased");
        }
        for (rec, &(_, lb)) in records.iter().zip(&lower) {
            assert!(lb <= rec.objective + 1e-12);
            assert!((rec.objective - lb - rec.change).abs() <= 1e-12 * (1.0 + rec.change.abs()));
        }
        // The product linearization gives valid bounds: [RLBD, PUBD] contains the optimum 0.
        let c = fitted.certificate();
        if params_is_product(&params) {
            assert!(c.lower_bound <= 1e-12 && c.upper_bound >= 0.0, "{c:?}");
            assert!(report.converged() && c.certified, "{c:?}");
        }
        assert_eq!(
            report.objective,
            records.last().map_or(f64::NAN, |r| r.objective)
        );
        assert_eq!(report.converged(), report.termination.is_converged());
        // A fit that returns is one of the engine's terminations (a numerical failure is an
        // error); these small instances close the gap (`Converged`: the search never
        // reports `Solved`) or run out of iterations.
        assert!(
            matches!(
                report.termination,
                TerminationReason::Converged | TerminationReason::MaxIterations
            ),
            "{:?}",
            report.termination
        );
    }
}

fn params_is_product(params: &GopParams) -> bool {
    !format!("{params:?}").contains("Paper")
}
