//! Data generators of this crate's tests, examples, benches and experiments.

pub use bl_core::random::synthetic_two_class as two_class;
