//! Conformance suites of the plug-in points: a battery of checks that every
//! implementation, built-in or user-written, must pass. Call `check` from a test.
//!
//! | plug-in point | trait | suite |
//! |---|---|---|
//! | Boolean QP solver (called by `boolean-tensor`'s atom search) | [`crate::BooleanQpSolver`] | [`bqp_solver::check`] |
//! | order of the coordinates within a sweep | [`crate::SweepOrder`] | [`sweep_order::check`] |

pub mod bqp_solver;
pub mod sweep_order;
