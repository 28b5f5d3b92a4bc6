//! Empty: this crate exists for its dependencies' features (see Cargo.toml); a build
//! script is what lets it name host (proc-macro) dependencies.
fn main() {}
