//! Every built-in implementation of each plug-in point passes its conformance suite, and
//! each suite rejects an implementation that breaks its contract (so the suites can fail).

use std::sync::Arc;

use maxcut_sdp::conformance::{bqp_solver, sweep_order};
use maxcut_sdp::{
    BooleanQp, BooleanQpSolver, BqpOutcome, Colored, ConformanceReport, Cyclic, ExactBqp,
    Extension, Fit, MaxcutError, MixingParams, MixingValidParams, ParamGuard, Problem,
    RandomPermutation, Result, SweepForm,
};

use crate::common;
use common::FnOrder;

fn passes(report: &ConformanceReport) {
    assert!(report.passed(), "{report}");
}

#[test]
fn mixing_method_conforms() {
    let mixing = MixingParams::default().seed(3).check().unwrap();
    passes(&bqp_solver::conformance(&mixing));
    passes(&bqp_solver::conformance(&MixingValidParams::default()));
}

#[test]
fn certified_mixing_method_conforms() {
    let mixing = MixingParams::default()
        .seed(4)
        .certify(true)
        .check()
        .unwrap();
    passes(&bqp_solver::conformance(&mixing));
}

#[test]
fn exact_enumeration_conforms() {
    passes(&bqp_solver::conformance(&ExactBqp));
}

/// A [`BooleanQpSolver`] from a plain function (the broken solvers below).
#[derive(Debug)]
struct FnSolver {
    name: &'static str,
    solve: fn(&BooleanQp) -> Result<BqpOutcome>,
}

impl Extension for FnSolver {
    fn name(&self) -> &str {
        self.name
    }
}

impl BooleanQpSolver for FnSolver {
    fn solve_bqp(&self, qp: &BooleanQp) -> Result<BqpOutcome> {
        (self.solve)(qp)
    }
}

/// Always answers the all-zero vector: wrong on every instance with a positive optimum.
const ALL_ZEROS: FnSolver = FnSolver {
    name: "all-zeros",
    solve: |qp| {
        Ok(BqpOutcome {
            z: vec![0.0; qp.n()],
            value: 0.0,
            upper_bound: None,
        })
    },
};

/// Reports a value that its z does not have.
const LIAR: FnSolver = FnSolver {
    name: "liar",
    solve: |qp| {
        let mut outcome = ExactBqp.solve_bqp(qp)?;
        outcome.value += 1.0;
        Ok(outcome)
    },
};

#[test]
fn built_in_sweep_orders_conform() {
    passes(&sweep_order::conformance(&Cyclic));
    passes(&sweep_order::conformance(&RandomPermutation));
    passes(&sweep_order::conformance(&Colored));
}

/// The sweep-order suite fits problems of every sweep form a fit with the default
/// `LowRankMode::Auto` uses: a sparse `C` formed densely, one kept sparse, a dense `C`.
#[test]
fn the_sweep_order_suite_runs_the_dense_and_the_sparse_sweeps() {
    let forms: Vec<SweepForm> = sweep_order::problems()
        .iter()
        .map(|(case, problem)| {
            let fitted = MixingParams::default().max_iter(2).fit(problem);
            fitted.unwrap_or_else(|e| panic!("{case}: {e}")).info().form
        })
        .collect();
    assert_eq!(
        forms,
        [SweepForm::SparseFormed, SweepForm::Sparse, SweepForm::Dense]
    );
}

/// Visits coordinate 0 twice and never visits the last one.
const REPEATS: FnOrder = FnOrder {
    name: "repeats",
    arrange: |_, order| {
        if let Some(last) = order.last_mut() {
            *last = 0;
        }
    },
    identity: false,
};

/// Reverses the order every sweep but claims to be the identity.
const FALSE_IDENTITY: FnOrder = FnOrder {
    name: "false identity",
    arrange: |_, order| order.reverse(),
    identity: true,
};

/// The names of the failed checks of `report`.
fn failed(report: &ConformanceReport) -> Vec<&'static str> {
    report.failures().map(|c| c.name).collect()
}

#[test]
fn suites_reject_broken_implementations() {
    let all_zeros = bqp_solver::conformance(&ALL_ZEROS);
    assert!(!all_zeros.passed());
    assert!(
        failed(&all_zeros).contains(&"at least MIN_RATIO of the exact optimum"),
        "{all_zeros}"
    );
    let liar = bqp_solver::conformance(&LIAR);
    assert!(!liar.passed());
    assert!(
        failed(&liar).contains(&"the reported value is z^T A z"),
        "{liar}"
    );
    let repeats = sweep_order::conformance(&REPEATS);
    assert!(!repeats.passed());
    assert!(
        failed(&repeats).contains(&"every sweep is a permutation"),
        "{repeats}"
    );
    assert!(
        repeats.to_string().contains("not a permutation"),
        "{repeats}"
    );
    let false_identity = sweep_order::conformance(&FALSE_IDENTITY);
    assert!(!false_identity.passed());
    assert!(
        false_identity
            .to_string()
            .contains("claims to be the identity"),
        "{false_identity}"
    );
}

#[test]
fn a_faulty_order_is_a_typed_error_not_a_panic() {
    let edges = maxcut_sdp::synthetic::gnp_weighted(5, 0.9, 2).unwrap();
    let problem = Problem::maxcut(5, &edges).unwrap();
    let err = MixingParams::default()
        .order(Arc::new(REPEATS))
        .fit(&problem)
        .unwrap_err();
    assert!(
        matches!(
            err,
            MaxcutError::InvalidSweepOrder {
                sweep: 1,
                index: 4,
                value: 0,
                ..
            }
        ),
        "{err}"
    );
}
