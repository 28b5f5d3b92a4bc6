//! Feature unification for the workspace's builds; no code. See `Cargo.toml` and
//! `docs/development.md`.
