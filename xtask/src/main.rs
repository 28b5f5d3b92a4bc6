//! `cargo xtask`: reproduction runs and real-data fetching.

fn main() {
    println!("xtask: not yet implemented");
}
