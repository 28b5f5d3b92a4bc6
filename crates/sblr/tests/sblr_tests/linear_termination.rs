//! The logistic baseline reports the engine's termination: a fit that meets its tolerance
//! on the last allowed iteration has converged.

use sblr::synthetic::two_class;
use sblr::{Fit, Fitted, LogisticRegression};

#[test]
fn converging_on_the_last_allowed_iteration_is_converged() {
    let data = two_class(30, 3, 4, 1.0, 5).unwrap();
    let free = LogisticRegression::params()
        .l1(0.01)
        .tol(1e-6)
        .fit(&data)
        .unwrap();
    assert!(free.report().converged());
    let needed = free.report().iterations;
    assert!(needed > 1, "the check needs more than one iteration");
    let tight = LogisticRegression::params()
        .l1(0.01)
        .tol(1e-6)
        .max_iter(needed)
        .fit(&data)
        .unwrap();
    assert_eq!(tight.report().iterations, needed);
    assert!(
        tight.report().converged(),
        "met the tolerance on iteration {needed} of {needed}, reported {:?}",
        tight.report().termination
    );
    let short = LogisticRegression::params()
        .l1(0.01)
        .tol(1e-6)
        .max_iter(needed - 1)
        .fit(&data)
        .unwrap();
    assert!(!short.report().converged());
}
