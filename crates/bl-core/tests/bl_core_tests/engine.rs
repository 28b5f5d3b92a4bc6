//! The iteration engine: each termination reason, observers, error propagation.

use std::time::Duration;

use bl_core::engine::{
    IterationView, Observer, Progress, Stop, TerminationReason, Trace, relative_change,
    relative_change_blocks, relative_change_slices, run,
};
use bl_core::{BlError, IterationParams};

fn rule(max_iter: usize, tol: f64) -> IterationParams {
    IterationParams::new(max_iter, tol)
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
    let r = IterationParams {
        time_limit: Some(Duration::from_millis(20)),
        ..rule(1_000_000, 0.0)
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
    // A non-finite objective, or a NaN change, is an error naming the iteration.
    for (objective, change) in [(f64::NAN, 1.0), (f64::INFINITY, 1.0), (1.0, f64::NAN)] {
        let mut seen = 0;
        let mut count = |_: &IterationView<'_>| seen += 1;
        let err = run(&rule(100, 0.0), &mut [&mut count], |k| {
            let bad = k == 4;
            Ok::<_, BlError>(Progress::new(
                if bad { objective } else { 1.0 },
                if bad { change } else { 1.0 },
            ))
        })
        .unwrap_err();
        assert!(
            matches!(&err, BlError::Numerical { context: "iteration", message } if message.starts_with("iteration 4 ")),
            "{err}"
        );
        assert_eq!(seen, 4, "observers saw the failed iteration");
    }

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

#[test]
fn tracing_off_records_nothing_and_observers_still_see_everything() {
    let mut seen = Vec::new();
    let mut watch = |v: &IterationView<'_>| seen.push(v.extras.to_vec());
    let report = run(&rule(5, 0.0).untraced(), &mut [&mut watch], |k| {
        Ok::<_, BlError>(
            Progress::new(1.0, 1.0)
                .with("k", k as f64)
                .with("twice", 2.0 * k as f64),
        )
    })
    .unwrap();
    assert_eq!(report.iterations, 5);
    assert!(report.trace.is_empty());
    assert_eq!(seen.len(), 5);
    assert_eq!(seen[2], vec![("k", 3.0), ("twice", 6.0)]);
}

#[test]
fn a_single_shot_report_is_one_solved_iteration() {
    let report = bl_core::FitReport::single_shot(2.5, Duration::from_millis(3));
    assert_eq!(report.iterations, 1);
    assert_eq!(report.termination, TerminationReason::Solved);
    assert!(report.converged());
    assert_eq!(report.objective, 2.5);
    assert!(report.trace.is_empty());
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
