//! `bol-fig2` — [Wu and Sun 2015, Figure 2] test label error rate against the number of
//! training iterations on pku: bol, bcd and the structured perceptron after each epoch
//! (for bcd one iteration is a pass over `alpha` then one over `beta`), and the CRFs
//! (CRF-L2 by L-BFGS, CRF-L1 by OWL-QN, online-bilinear's Rust CRF) after a budget of
//! iterations each. The caption's two statements ([`crate::paper::bol`]) are checked.
//! People's Daily 1998 in place of the SIGHAN 2005 pku data, every 10th sentence to test
//! (`docs/papers/bol.md`); smoke and quick scale read the first 300 and 2000 lines.

use online_bilinear::{BuiltIn, Fit, Templates};

use super::bol_common;
use super::{Ctx, Experiment, Series};
use crate::paper::bol as paper;

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "bol-fig2",
    title: "[Bilinear online Fig. 2] label error rate vs iteration (bol, bcd, sp, CRF-L2, CRF-L1)",
    run,
};

/// Iteration budgets at which the CRFs are trained (each budget is a separate run from
/// scratch; L-BFGS and OWL-QN are deterministic, so a run of `n` iterations is the `n`-th
/// iterate of a longer run).
fn crf_budgets(scale: super::Scale) -> Vec<usize> {
    scale.pick(vec![1, 2], vec![1, 2, 4, 8], vec![1, 2, 3, 5, 8, 12, 20])
}

fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let scale = ctx.scale();
    let (train, test) = bol_common::pku(ctx, scale.pick(Some(300), Some(2000), None))?;
    let templates = Templates::segmentation();
    let seed = ctx.seed();
    let epochs = scale.pick(3, 10, paper::T);
    let learners = bol_common::online_learners(scale, seed, &templates);
    let budgets = crf_budgets(scale);
    let crfs = [("CRF-L2", BuiltIn::CrfL2), ("CRF-L1", BuiltIn::CrfL1)];
    let prepared = bol_common::prepare(&learners[0].1, &train)?;
    let bar = ctx.progress(
        (learners.len() * epochs + crfs.len() * budgets.len()) as u64,
        "iterations",
    );
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (name, params) in learners {
        let params = params.max_iter(epochs);
        let mut points = Vec::new();
        params.fit(&prepared.with_snapshots(|info, model| {
            let e = model.evaluate_lenient(&test)?;
            points.push((info.epoch as f64, 100.0 * e.label_error_rate));
            bar.inc(1);
            Ok(())
        }))?;
        curves.push((name.to_string(), points));
    }
    for (name, learner) in crfs {
        let mut points = Vec::new();
        for &budget in &budgets {
            let params = bol_common::params(learner, scale, seed, &templates).max_iter(budget);
            let run = bol_common::fit_and_score(name, &params, &prepared, &test)?;
            points.push((budget as f64, run.label_error));
            bar.inc(1);
        }
        curves.push((name.to_string(), points));
    }
    bar.finish_and_clear();
    ctx.md(&format!(
        "## Figure 2 (label error vs iteration, pku)\n\n{} training and {} test sentences \
         (People's Daily 1998 in place of the SIGHAN 2005 pku data: docs/papers/bol.md); \
         C = {}, R = {}, seed {}. Online learners: the test label error after each of {} \
         epochs. CRFs (our linear-chain CRF with CRFsuite's objective, c = 1): the test label error after {} L-BFGS / OWL-QN \
         iterations, each budget a separate run. The paper prints no numbers for this \
         figure; its caption:\n",
        train.len(),
        test.len(),
        paper::C,
        paper::R,
        seed,
        epochs,
        budgets
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    ctx.quote(&paper::FIG2_CAPTION);
    ctx.quote(&paper::TABLE1_TIME);

    let names: Vec<String> = curves.iter().map(|(n, _)| n.clone()).collect();
    let at = |j: usize, iteration: usize| -> Option<f64> {
        curves[j]
            .1
            .iter()
            .find(|(x, _)| *x as usize == iteration)
            .map(|p| p.1)
    };
    let max_iteration = epochs.max(budgets.iter().copied().max().unwrap_or(0));
    let mut header = vec!["iteration".to_string()];
    header.extend(names.iter().map(|n| format!("{n}_error_percent")));
    let rows: Vec<Vec<String>> = (1..=max_iteration)
        .map(|i| {
            let mut r = vec![i.to_string()];
            r.extend(
                (0..curves.len()).map(|j| at(j, i).map_or(String::new(), |x| format!("{x:.4}"))),
            );
            r
        })
        .collect();
    ctx.write_csv("label_error_vs_iteration", &header, &rows)?;
    let series: Vec<Series> = curves
        .iter()
        .map(|(n, p)| Series::new(n.clone(), p.clone()))
        .collect();
    ctx.line_plot(
        "label_error_vs_iteration",
        "Test label error rate per iteration (pku)",
        "iteration",
        "label error (%)",
        &series,
        true,
    )?;
    let mut table_header = vec!["iteration".to_string()];
    table_header.extend(names.iter().map(|n| format!("{n} (%)")));
    ctx.table(
        &table_header,
        (1..=max_iteration)
            .filter(|&i| (0..curves.len()).any(|j| at(j, i).is_some()))
            .map(|i| {
                let mut cells = vec![i.to_string()];
                cells.extend(
                    (0..curves.len()).map(|j| at(j, i).map_or("—".into(), |x| format!("{x:.2}"))),
                );
                cells
            }),
    );

    let (bol, bcd, sp, crf2, crf1) = (0, 1, 2, 3, 4);
    let last = |j: usize| curves[j].1.last().map_or(f64::NAN, |x| x.1);
    for (j, key) in [
        (bol, "bol_final_error"),
        (bcd, "bcd_final_error"),
        (sp, "sp_final_error"),
        (crf2, "crf2_final_error"),
        (crf1, "crf1_final_error"),
    ] {
        ctx.figure(key, last(j));
    }

    // "bol converges much faster than CRFs": at every CRF budget n <= T, bol's error
    // after n epochs is below both CRFs' errors after n iterations.
    let comparable: Vec<usize> = budgets.iter().copied().filter(|&n| n <= epochs).collect();
    let faster = comparable
        .iter()
        .all(|&n| match (at(bol, n), at(crf2, n), at(crf1, n)) {
            (Some(b), Some(c2), Some(c1)) => b < c2 && b < c1,
            _ => false,
        });
    let evidence = comparable
        .iter()
        .map(|&n| {
            format!(
                "{n}: bol {:.2}%, CRF-L2 {:.2}%, CRF-L1 {:.2}%",
                at(bol, n).unwrap_or(f64::NAN),
                at(crf2, n).unwrap_or(f64::NAN),
                at(crf1, n).unwrap_or(f64::NAN)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    ctx.paper_claim(
        &paper::FIG2_VS_CRF,
        !comparable.is_empty() && faster,
        format!("test label error after n iterations, n = {evidence}"),
    );

    // "it is slightly slower than sp": sp's error is at most bol's after most epochs,
    // and bol's mean excess over sp is positive but below 1 point (our reading of
    // "slightly").
    let gaps: Vec<f64> = (1..=epochs)
        .filter_map(|n| Some(at(bol, n)? - at(sp, n)?))
        .collect();
    let sp_ahead = gaps.iter().filter(|&&g| g >= 0.0).count();
    let mean_gap = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    ctx.figure("bol_minus_sp_error_mean", mean_gap);
    ctx.paper_claim(
        &paper::FIG2_VS_SP,
        2 * sp_ahead > gaps.len() && mean_gap > 0.0 && mean_gap < 1.0,
        format!(
            "sp's error is at most bol's after {sp_ahead} of {} epochs; bol minus sp \
             averages {mean_gap:+.2} points (our reading of \"slightly slower\": sp ahead \
             after most epochs, by less than 1 point on average); after {epochs} epochs: \
             bol {:.2}%, sp {:.2}%, bcd {:.2}%",
            gaps.len(),
            last(bol),
            last(sp),
            last(bcd)
        ),
    );
    Ok(())
}
