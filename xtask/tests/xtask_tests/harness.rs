//! The reproduction harness driven with test-only experiments: one that succeeds and
//! writes every kind of output, one that returns an error, one that panics.

use std::path::Path;
use std::process::Command;

use anyhow::Context as _;
use serde_json::Value;
use xtask::experiments::{Ctx, Experiment, Heatmap, Scale, Series, VsRow, registry};
use xtask::reproduce::{RunConfig, Status, run_experiments, select};

const GOOD: Experiment = Experiment {
    id: "test-good",
    title: "[Test] writes every kind of output",
    run: run_good,
};

fn run_good(ctx: &mut Ctx) -> anyhow::Result<()> {
    let n = ctx.scale().pick(5, 50, 500);
    let rows: Vec<Vec<f64>> = (1..=n).map(|i| vec![i as f64, 1.0 / i as f64]).collect();
    ctx.write_csv("decay", &["i", "value"], &rows)?;
    ctx.write_csv(
        "methods.csv",
        &["method", "note"],
        vec![vec!["bmp", "a, b"], vec!["cp-als", "say \"x\""]],
    )?;
    let series = vec![
        Series::new("1/i", rows.iter().map(|r| (r[0], r[1])).collect()),
        Series::new("1/i^2", rows.iter().map(|r| (r[0], r[1] * r[1])).collect()),
        Series::new("with zero", vec![(1.0, 0.0), (2.0, 1.0)]),
    ];
    ctx.line_plot("decay_log", "Decay", "i", "value", &series, true)?;
    ctx.line_plot("decay_lin", "Decay", "i", "value", &series, false)?;
    let m = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0];
    let factor = Heatmap {
        title: "Boolean factor",
        x_label: "atom",
        y_label: "row",
        values: &m,
        n_rows: 3,
        n_cols: 2,
    };
    ctx.heatmap("factor", &factor)?;
    ctx.figure("final_value", 1.0 / n as f64);
    ctx.figure("seed_seen", ctx.seed() as f64);
    ctx.claim("the value decreases", true, "monotone over all i");
    ctx.claim(
        "the value reaches zero",
        false,
        format!("min = {}", 1.0 / n as f64),
    );
    ctx.md("## Table 1\n");
    ctx.table_vs_paper(
        "size",
        &["time (s)", "iterations"],
        &[
            VsRow::new("s = 50", &[0.0123, 14.0], &[0.02, 15.0]),
            VsRow {
                label: "s = 100".into(),
                ours: vec![Some(0.5), None],
                paper: vec![None, Some(20.0)],
            },
        ],
    )?;
    Ok(())
}

const ERRS: Experiment = Experiment {
    id: "test-error",
    title: "[Test] returns an error",
    run: run_errs,
};

fn run_errs(ctx: &mut Ctx) -> anyhow::Result<()> {
    ctx.figure("before_failure", 1.0);
    ctx.md("partial result");
    Err(anyhow::anyhow!("solver diverged")).context("running the test solver")
}

const PANICS: Experiment = Experiment {
    id: "test-panic",
    title: "[Test] panics",
    run: run_panics,
};

fn run_panics(_ctx: &mut Ctx) -> anyhow::Result<()> {
    panic!("index out of bounds in the test experiment");
}

fn config(out: &Path) -> RunConfig {
    RunConfig {
        scale: Scale::Smoke,
        seed: 7,
        out_dir: out.to_path_buf(),
        data_dir: out.join("data-cache"),
        progress: false,
        verbose: false,
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn failing_experiments_are_reported_and_the_others_still_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    let exps: Vec<Experiment> = vec![ERRS, GOOD, PANICS];
    let report = run_experiments(&exps, &config(&out)).unwrap();

    assert_eq!(report.outcomes.len(), 3);
    assert_eq!(report.failures(), 2);
    assert!(matches!(&report.outcomes[0].status, Status::Failed(m)
        if m.contains("running the test solver") && m.contains("solver diverged")));
    assert_eq!(report.outcomes[1].status, Status::Ok);
    assert_eq!(report.outcomes[1].verdicts.holds, 1);
    assert_eq!(report.outcomes[1].verdicts.fails, 1);
    assert_eq!(report.outcomes[1].verdicts.inconclusive, 0);
    assert!(matches!(&report.outcomes[2].status, Status::Panicked(m)
        if m.contains("index out of bounds in the test experiment")));

    // summary.json: exactly the contract's keys.
    let summary: Value = serde_json::from_str(&read(&out.join("test-good/summary.json"))).unwrap();
    let obj = summary.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["claims", "elapsed_s", "figures", "id", "scale", "seed"]
    );
    assert_eq!(summary["id"], "test-good");
    assert_eq!(summary["scale"], "smoke");
    assert_eq!(summary["seed"], 7);
    assert!(summary["elapsed_s"].as_f64().unwrap() >= 0.0);
    assert_eq!(summary["figures"]["final_value"], 0.2);
    assert_eq!(summary["figures"]["seed_seen"], 7.0);
    let claims = summary["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0]["claim"], "the value decreases");
    assert_eq!(claims[0]["holds"], true);
    assert_eq!(claims[0]["verdict"], "holds");
    assert_eq!(claims[1]["holds"], false);
    assert_eq!(claims[1]["verdict"], "fails");
    assert_eq!(claims[1]["evidence"], "min = 0.2");
    for c in claims {
        // claim, holds, verdict, evidence (no interval or reading recorded here).
        assert_eq!(c.as_object().unwrap().len(), 4);
    }

    // CSV files: header, rows, quoting.
    assert_eq!(
        read(&out.join("test-good/decay.csv")),
        "i,value\n1,1\n2,0.5\n3,0.3333333333333333\n4,0.25\n5,0.2\n"
    );
    assert_eq!(
        read(&out.join("test-good/methods.csv")),
        "method,note\nbmp,\"a, b\"\ncp-als,\"say \"\"x\"\"\"\n"
    );

    // SVG plots.
    for name in ["decay_log.svg", "decay_lin.svg", "factor.svg"] {
        let svg = read(&out.join("test-good").join(name));
        assert!(svg.contains("<svg"), "{name} is not an SVG");
        assert!(svg.trim_end().ends_with("</svg>"), "{name} is incomplete");
    }
    let log_svg = read(&out.join("test-good/decay_log.svg"));
    assert!(log_svg.contains("1/i^2") && log_svg.contains("Decay"));
    let heat = read(&out.join("test-good/factor.svg"));
    assert!(heat.contains("Boolean factor"));

    // report.md of the good experiment.
    let md = read(&out.join("test-good/report.md"));
    assert!(md.starts_with("# test-good — [Test] writes every kind of output"));
    assert!(md.contains(
        "| size | time (s) (ours) | time (s) (paper) | iterations (ours) | iterations (paper) |"
    ));
    assert!(md.contains("| s = 50 | 0.0123 | 0.02 | 14 | 15 |"));
    assert!(md.contains("| s = 100 | 0.5 | — | — | 20 |"));
    assert!(md.contains("## Claims (1 hold, 1 fail, 0 inconclusive)"));
    assert!(md.contains("| the value reaches zero |  | **fails** |  | min = 0.2 |"));
    assert!(md.contains("[decay.csv](decay.csv)"));

    // Failed experiments: a report with the error and the partial results, no summary.
    let md = read(&out.join("test-error/report.md"));
    assert!(md.contains("FAILED (error)") && md.contains("solver diverged"));
    assert!(md.contains("partial result") && md.contains("before_failure"));
    assert!(!out.join("test-error/summary.json").exists());
    let md = read(&out.join("test-panic/report.md"));
    assert!(md.contains("FAILED (panic)") && md.contains("index out of bounds"));
    assert!(!out.join("test-panic/summary.json").exists());

    // index.md links all three with status and claims.
    let index = read(&out.join("index.md"));
    assert!(index.contains("Scale `smoke`, seed 7"));
    assert!(index.contains("3 experiments, 2 failed; 2 claims: 1 hold, 1 fail, 0 inconclusive."));
    assert!(index.contains(
        "| [test-good](test-good/report.md) | [Test] writes every kind of output | ok | 1 | 1 | 0 |"
    ));
    assert!(index.contains(
        "| [test-error](test-error/report.md) | [Test] returns an error | FAILED (error) | 0 | 0 | 0 |"
    ));
    assert!(index.contains(
        "| [test-panic](test-panic/report.md) | [Test] panics | FAILED (panic) | 0 | 0 | 0 |"
    ));
}

#[test]
fn an_empty_run_still_writes_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("nested/results");
    let report = run_experiments(&[], &config(&out)).unwrap();
    assert_eq!(report.failures(), 0);
    assert!(read(&out.join("index.md")).contains("No experiment ran"));
}

#[test]
fn a_previous_run_of_an_experiment_is_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let dir = out.join("test-good");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("report.md"), "old").unwrap();
    std::fs::write(dir.join("stale.csv"), "old").unwrap();
    let exps: Vec<Experiment> = vec![GOOD];
    run_experiments(&exps, &config(&out)).unwrap();
    assert!(!dir.join("stale.csv").exists());
    assert!(dir.join("summary.json").exists());
}

#[test]
fn selection_by_id_keeps_order_drops_duplicates_and_rejects_unknown_ids() {
    let all: Vec<Experiment> = vec![GOOD, ERRS, PANICS];
    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let chosen = select(&all, &[]).unwrap();
    assert_eq!(chosen.len(), 3);
    let chosen = select(&all, &ids(&["test-panic", "test-good", "test-panic"])).unwrap();
    let got: Vec<&str> = chosen.iter().map(|e| e.id()).collect();
    assert_eq!(got, ["test-panic", "test-good"]);
    let err = select(&all, &ids(&["nope"])).err().unwrap().to_string();
    assert!(err.contains("unknown experiment ID `nope`"), "{err}");
    assert!(err.contains("test-good, test-error, test-panic"), "{err}");
}

const BAD_CSV: Experiment = Experiment {
    id: "test-bad-csv",
    title: "[Test] ragged CSV and bad names",
    run: run_badcsv,
};

fn run_badcsv(ctx: &mut Ctx) -> anyhow::Result<()> {
    assert!(ctx.write_csv("../escape", &["a"], vec![vec![1.0]]).is_err());
    assert!(ctx.line_plot("empty", "t", "x", "y", &[], false).is_err());
    assert!(
        ctx.line_plot(
            "neg",
            "t",
            "x",
            "y",
            &[Series::new("s", vec![(1.0, -1.0)])],
            true
        )
        .is_err()
    );
    let short = Heatmap {
        title: "t",
        x_label: "x",
        y_label: "y",
        values: &[1.0, 2.0],
        n_rows: 2,
        n_cols: 2,
    };
    assert!(ctx.heatmap("h", &short).is_err());
    ctx.write_csv("ragged", &["a", "b"], vec![vec![1.0, 2.0], vec![3.0]])?;
    Ok(())
}

#[test]
fn helper_misuse_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let exps: Vec<Experiment> = vec![BAD_CSV];
    let report = run_experiments(&exps, &config(tmp.path())).unwrap();
    match &report.outcomes[0].status {
        Status::Failed(m) => assert!(m.contains("row 1 has 1 fields, the header has 2"), "{m}"),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn registered_ids_are_unique_and_well_formed() {
    let all = registry();
    let mut ids: Vec<&str> = all.iter().map(|e| e.id()).collect();
    for id in &ids {
        assert!(
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "ID `{id}` must be lowercase letters, digits and dashes"
        );
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "duplicate experiment IDs");
}

#[test]
fn the_binary_lists_experiments_and_rejects_unknown_ids() {
    let bin = env!("CARGO_BIN_EXE_xtask");
    let out = Command::new(bin)
        .args(["reproduce", "--list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let listed = String::from_utf8(out.stdout).unwrap();
    let expected: String = registry()
        .iter()
        .map(|e| format!("{}\t{}\n", e.id(), e.title()))
        .collect();
    assert_eq!(listed, expected);

    let out = Command::new(bin)
        .args(["reproduce", "no-such-experiment", "--scale", "smoke"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("unknown experiment ID `no-such-experiment`"),
        "{err}"
    );

    let out = Command::new(bin)
        .args(["reproduce", "--scale", "huge"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}
