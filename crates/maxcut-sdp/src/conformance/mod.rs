//! Conformance suites of the plug-in points: a battery of checks that every
//! implementation, built-in or user-written, must pass. Each suite has the workspace's one
//! signature, `conformance(candidate: &dyn Trait) -> bl_core::ConformanceReport`, and
//! records every check; assert `report.passed()` from a test.
//!
//! | plug-in point | trait | set on | suite |
//! |---|---|---|---|
//! | solver of the Boolean QP fit | [`crate::BooleanQpSolver`] | [`crate::BqpParams::solver`] | [`bqp_solver::conformance`] |
//! | order of the coordinates within a sweep | [`crate::SweepOrder`] | [`crate::MixingParams::order`] | [`sweep_order::conformance`] |

pub mod bqp_solver;
pub mod sweep_order;
