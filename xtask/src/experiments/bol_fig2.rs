//! `bol-fig2` — [Wu and Sun 2015, Figure 2] test label error rate after each training
//! iteration (epoch) for bol, bcd and the structured perceptron, on the People's Daily 1998
//! segmentation split (every 10th sentence to test; smoke and quick scale read the first
//! 300 and 2000 lines). For bcd one iteration is a pass over `alpha` then one over `beta`.

use online_bilinear::Templates;

use super::bol_common;
use super::{Ctx, Experiment, Series};

/// The experiment.
pub struct BolFig2;

impl Experiment for BolFig2 {
    fn id(&self) -> &'static str {
        "bol-fig2"
    }

    fn title(&self) -> &'static str {
        "[Bilinear online Fig. 2] label error rate vs iteration (bol, bcd, sp)"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let scale = ctx.scale();
        let (train, test) = bol_common::pku(ctx, scale.pick(Some(300), Some(2000), None))?;
        let templates = Templates::segmentation();
        let seed = ctx.seed();
        let epochs = scale.pick(3, 10, 20);
        let learners = bol_common::online_learners(scale, seed, &templates);
        let prepared = learners[0].1.prepare(&train)?;
        let bar = ctx.progress((learners.len() * epochs) as u64, "epochs");
        let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for (name, params) in learners {
            let params = params.epochs(epochs);
            let mut points = Vec::new();
            params.fit_prepared_with_callback(&prepared, |info, model| {
                let e = model.evaluate_lenient(&test)?;
                points.push((info.epoch as f64, 100.0 * e.label_error_rate));
                bar.inc(1);
                Ok(())
            })?;
            curves.push((name.to_string(), points));
        }
        bar.finish_and_clear();
        ctx.md(&format!(
            "## Figure 2 (label error vs iteration)\n\n{} training and {} test sentences of \
             pku; C = 1, R = 4, seed {}; the test label error after each of {} iterations. The \
             paper's curves are not available offline.\n",
            train.len(),
            test.len(),
            seed,
            epochs
        ));
        let header = [
            "iteration",
            "bol_error_percent",
            "bcd_error_percent",
            "sp_error_percent",
        ];
        let rows: Vec<Vec<f64>> = (0..epochs)
            .map(|i| {
                let mut r = vec![(i + 1) as f64];
                r.extend(
                    curves
                        .iter()
                        .map(|(_, p)| p.get(i).map_or(f64::NAN, |x| x.1)),
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
            false,
        )?;
        ctx.table(
            &["iteration", "bol (ours)", "bcd (ours)", "sp (ours)"],
            rows.iter().map(|r| {
                let mut cells = vec![format!("{}", r[0])];
                cells.extend(r[1..].iter().map(|x| format!("{x:.2}")));
                cells
            }),
        );
        let last = |j: usize| curves[j].1.last().map_or(f64::NAN, |x| x.1);
        let first = |j: usize| curves[j].1.first().map_or(f64::NAN, |x| x.1);
        let (bol, bcd, sp) = (last(0), last(1), last(2));
        ctx.figure("bol_final_error", bol);
        ctx.figure("bcd_final_error", bcd);
        ctx.figure("sp_final_error", sp);
        ctx.claim(
            "bol's test label error falls with the iterations (last <= first)",
            bol <= first(0),
            format!(
                "bol: {:.2}% after iteration 1, {bol:.2}% after {epochs}",
                first(0)
            ),
        );
        ctx.claim(
            "bol ends with the lowest test label error of the three (our reading of Fig. 2)",
            bol <= bcd && bol <= sp,
            format!("after {epochs} iterations: bol {bol:.2}%, bcd {bcd:.2}%, sp {sp:.2}%"),
        );
        Ok(())
    }
}
