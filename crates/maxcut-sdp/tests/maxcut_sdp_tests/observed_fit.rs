//! Every public fit of the crate run through `fit_observed` with an observer attached:
//! the observer sees exactly the report's trace, one record per sweep, the objective
//! never falls (each coordinate update is an exact maximization, Wang et al. 2017, eq. (4))
//! and stays below the certified dual bound (weak duality), which brackets it from above.

use crate::common;

use bl_core::engine::IterationView;
use common::problems;
use maxcut_sdp::synthetic::gaussian;
use std::sync::Arc;

use maxcut_sdp::{BooleanQp, BqpParams, Fit, FitReport, Fitted, MixingParams, ParamGuard};

#[derive(Default)]
struct Seen {
    iterations: Vec<usize>,
    objectives: Vec<f64>,
    changes: Vec<f64>,
    increases: Vec<f64>,
}

impl Seen {
    fn record(&mut self, view: &IterationView<'_>) {
        self.iterations.push(view.iteration);
        self.objectives.push(view.objective);
        self.changes.push(view.change);
        if let Some(&(_, inc)) = view.extras.iter().find(|(name, _)| *name == "increase") {
            self.increases.push(inc);
        }
    }

    /// The observer's records equal the report's trace; the objective never falls and
    /// the tracked gains add up to the objective's rise.
    fn check(&self, report: &FitReport, case: &str) {
        let trace = report.trace.records();
        assert_eq!(self.objectives.len(), report.iterations, "{case}");
        assert_eq!(trace.len(), report.iterations, "{case}");
        assert_eq!(
            self.iterations,
            (1..=report.iterations).collect::<Vec<_>>(),
            "{case}"
        );
        assert_eq!(self.objectives, report.trace.objectives(), "{case}");
        assert_eq!(self.changes, report.trace.changes(), "{case}");
        assert_eq!(self.increases.len(), report.iterations, "{case}");
        for (t, pair) in self.objectives.windows(2).enumerate() {
            let slack = 1e-12 * (1.0 + pair[0].abs());
            assert!(pair[1] >= pair[0] - slack, "{case}: sweep {} fell", t + 2);
        }
        for (t, &inc) in self.increases.iter().enumerate().skip(1) {
            let rise = self.objectives[t] - self.objectives[t - 1];
            assert!(
                (rise - inc).abs() <= 1e-9 * (1.0 + self.objectives[t].abs()),
                "{case}: sweep {} gained {inc} but the objective rose by {rise}",
                t + 1
            );
        }
    }
}

#[test]
fn observed_problem_fits_match_their_reports_and_ascend_below_the_dual_bound() {
    for (case, problem, params) in problems(&MixingParams::default().seed(5).certify(true)) {
        let mut seen = Seen::default();
        let mut observer = |v: &IterationView<'_>| seen.record(v);
        let solution = params.fit_observed(&problem, &mut [&mut observer]).unwrap();
        seen.check(solution.report(), case);
        assert!(solution.report().converged(), "{case}");
        let bound = solution.certified_bound().expect("certify on");
        let last = *seen.objectives.last().unwrap();
        assert!(
            last <= bound + 1e-9 * (1.0 + bound.abs()),
            "{case}: {last} > {bound}"
        );
        assert!(
            solution.value() <= bound + 1e-9 * (1.0 + bound.abs()),
            "{case}"
        );
    }
}

#[test]
fn observed_boolean_qp_fit_matches_its_report_and_brackets_the_optimum() {
    let g = gaussian(14, 28, 8).unwrap();
    let qp = BooleanQp::low_rank(g.as_ref()).unwrap();
    let mut seen = Seen::default();
    let mut observer = |v: &IterationView<'_>| seen.record(v);
    let mixing = MixingParams::default()
        .seed(2)
        .certify(true)
        .check()
        .unwrap();
    let params = BqpParams::default().solver(Arc::new(mixing));
    let solution = params.fit_observed(&qp, &mut [&mut observer]).unwrap();
    seen.check(solution.report(), "BQP");
    // The sweeps run on the homogenized ±1 problem: objective 4 times z^T A z.
    let exact = qp.solve_exact().unwrap().value();
    let bound = solution.certified_bound().expect("certify on");
    assert!(solution.value() <= exact + 1e-9 * exact.abs());
    assert!(exact <= bound + 1e-9 * bound.abs());
    let last = *seen.objectives.last().unwrap();
    assert!(0.25 * last <= bound + 1e-9 * bound.abs());
}
