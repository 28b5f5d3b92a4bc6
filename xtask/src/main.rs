//! `cargo xtask`: reproduction runs and real-data fetching (see the `xtask` library).

fn main() -> std::process::ExitCode {
    xtask::cli::main()
}
