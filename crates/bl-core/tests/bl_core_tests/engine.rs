//! The iteration engine: each termination reason, observers, error propagation.

use std::time::Duration;

use bl_core::BlError;
use bl_core::engine::{
    IterationView, Observer, Progress, Solver, Stop, StoppingRule, TerminationReason, Trace,
    relative_change, relative_change_blocks, relative_change_slices, run, run_solver,
};

fn rule(max_iter: usize, tol: f64) -> StoppingRule {
    StoppingRule {
        max_iter,
        tol,
        time_limit: None,
    }
}

#[test]
fn stops_on_max_iterations() {
    let mut trace = Trace::default();
    let info = run(&rule(7, 0.0), &mut [&mut trace], |k| {
        Ok::<_, BlError>(Progress::new(1.0 / k as f64, 1.0).with("step", 2.0 * k as f64))
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::MaxIterations);
    assert_eq!(info.iterations, 7);
    assert_eq!(trace.records().len(), 7);
    assert_eq!(
        info.trace, trace,
        "the report keeps the same trace as an observer"
    );
    assert_eq!(trace.objectives()[6], 1.0 / 7.0);
    assert_eq!(trace.extra("step")[2], (3, 6.0));
    assert!(trace.extra("missing").is_empty());
}

#[test]
fn stops_on_tolerance() {
    let info = run(&rule(100, 1e-3), &mut [], |k| {
        Ok::<_, BlError>(Progress::new(0.0, 10f64.powi(-(k as i32))))
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::Converged);
    assert_eq!(info.iterations, 3);
    assert!(info.termination.is_converged());
}

#[test]
fn stops_on_time_limit() {
    let r = StoppingRule {
        max_iter: 1_000_000,
        tol: 0.0,
        time_limit: Some(Duration::from_millis(20)),
    };
    let info = run(&r, &mut [], |_| {
        std::thread::sleep(Duration::from_millis(2));
        Ok::<_, BlError>(Progress::new(0.0, 1.0))
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::TimeLimit);
    assert!(info.iterations < 1_000_000);
}

#[test]
fn stops_on_numerical_failure_and_on_request() {
    let info = run(&rule(100, 0.0), &mut [], |k| {
        let obj = if k == 4 { f64::NAN } else { 1.0 };
        Ok::<_, BlError>(Progress::new(obj, 1.0))
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::NumericalFailure);
    assert_eq!(info.iterations, 4);

    let info = run(&rule(100, 0.0), &mut [], |k| {
        Ok::<_, BlError>(Progress::new(1.0, 1.0).stop_if((k == 2).then_some(Stop::Solved)))
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::Solved);
    assert_eq!(info.iterations, 2);
    assert!(info.converged());
}

#[test]
fn an_exhausted_budget_is_not_convergence() {
    let info = run(&rule(100, 0.0), &mut [], |k| {
        Ok::<_, BlError>(Progress::new(1.0, 1.0).stop_if((k == 3).then_some(Stop::BudgetExhausted)))
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::BudgetExhausted);
    assert_eq!(info.iterations, 3);
    assert!(!info.converged());
    // A step that meets the tolerance as its budget runs out has converged.
    let info = run(&rule(100, 0.5), &mut [], |k| {
        let change = if k == 3 { 0.1 } else { 1.0 };
        Ok::<_, BlError>(
            Progress::new(1.0, change).stop_if((k == 3).then_some(Stop::BudgetExhausted)),
        )
    })
    .unwrap();
    assert_eq!(info.termination, TerminationReason::Converged);
    assert_eq!(info.iterations, 3);
    // A saved report of the previous engine said `Stopped` for a solved run.
    let old: TerminationReason = serde_json::from_str("\"Stopped\"").unwrap();
    assert_eq!(old, TerminationReason::Solved);
}

/// Halves the distance to the problem's target each step.
struct Halving;

impl Solver for Halving {
    type Problem = f64;
    type State = f64;
    type Error = BlError;

    fn step(&mut self, target: &f64, x: &mut f64, _: usize) -> Result<Progress, BlError> {
        let previous = *x;
        *x = 0.5 * (*x + target);
        Ok(Progress::new((*x - target).abs(), (*x - previous).abs()))
    }
}

#[test]
fn a_solver_runs_from_the_callers_state_and_warm_starts() {
    let mut x = 0.0;
    let cold = run_solver(&mut Halving, &8.0, &mut x, &rule(200, 1e-6), &mut []).unwrap();
    assert_eq!(cold.termination, TerminationReason::Converged);
    // |x_k - x_{k-1}| = 8 / 2^k <= 1e-6 first at k = 23.
    assert_eq!(cold.iterations, 23);
    assert!((x - 8.0).abs() <= 1e-6);
    let warm = run_solver(&mut Halving, &8.0, &mut x, &rule(200, 1e-6), &mut []).unwrap();
    assert_eq!(
        warm.iterations, 1,
        "a converged state needs one step to confirm"
    );
}

#[test]
fn step_errors_propagate_and_rules_are_validated() {
    let err = run(&rule(10, 0.0), &mut [], |k| {
        if k == 3 {
            Err(BlError::Empty { what: "test" })
        } else {
            Ok(Progress::new(1.0, 1.0))
        }
    });
    assert!(matches!(err, Err(BlError::Empty { what: "test" })));
    let err = run(&rule(0, 0.0), &mut [], |_| {
        Ok::<_, BlError>(Progress::new(1.0, 1.0))
    });
    assert!(matches!(
        err,
        Err(BlError::InvalidParameter {
            name: "max_iter",
            ..
        })
    ));
    let err = run(&rule(5, -1.0), &mut [], |_| {
        Ok::<_, BlError>(Progress::new(1.0, 1.0))
    });
    assert!(matches!(
        err,
        Err(BlError::InvalidParameter { name: "tol", .. })
    ));
}

#[derive(Default)]
struct Counter {
    seen: Vec<usize>,
}

impl Observer for Counter {
    fn observe(&mut self, view: &IterationView<'_>) {
        self.seen.push(view.iteration);
    }
}

#[test]
fn every_observer_sees_every_iteration() {
    let mut a = Counter::default();
    let mut b = Trace::default();
    run(&rule(4, 0.0), &mut [&mut a, &mut b], |_| {
        Ok::<_, BlError>(Progress::new(0.5, 1.0))
    })
    .unwrap();
    assert_eq!(a.seen, vec![1, 2, 3, 4]);
    let mut changes = Vec::new();
    let mut closure = |v: &IterationView<'_>| changes.push(v.change);
    run(&rule(2, 0.0), &mut [&mut closure], |k| {
        Ok::<_, BlError>(Progress::new(0.5, k as f64))
    })
    .unwrap();
    assert_eq!(changes, vec![1.0, 2.0]);
    assert_eq!(b.records().len(), 4);
    let elapsed: Vec<f64> = b.records().iter().map(|r| r.elapsed_s).collect();
    assert!(elapsed.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn relative_change_measures() {
    assert_eq!(relative_change(10.0, 9.0), 0.1);
    assert_eq!(relative_change(0.5, 0.25), 0.25);
    let old = [3.0, 4.0];
    let new = [3.0, 4.5];
    assert!((relative_change_slices(&old, &new) - 0.1).abs() < 1e-15);
    let blocks: [(&[f64], &[f64]); 2] = [(&[3.0], &[3.0]), (&[4.0], &[4.5])];
    assert!((relative_change_blocks(&blocks) - 0.1).abs() < 1e-15);
}
