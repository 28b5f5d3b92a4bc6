//! `gop-fig3`: GOP on an `M = 1`, `K = 2`, `N = 10` synthetic instance (the GOP paper's
//! Fig. 3): the optimality gap against time and the `x` and `theta` iterates.
//!
//! Data: `x* = [1, -1]`, `theta*_{1n}` evenly spaced on `[0, 1]`, `theta*_{2n} = 1 -
//! theta*_{1n}`, `y = x* theta* + 0.3 e` with standard normal `e` (seeded; the noise makes
//! the optimum positive so the lower bound has to rise), `P = ||x*||_1 = 2`.

use faer::Mat;
use gop_mmf::GopParams;

use super::{Ctx, Experiment, Series, VsRow};

/// The experiment.
pub struct GopFig3;

impl Experiment for GopFig3 {
    fn id(&self) -> &'static str {
        "gop-fig3"
    }

    fn title(&self) -> &'static str {
        "[GOP Fig. 3] M = 1, K = 2, N = 10: gap vs time, x and theta iterates"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let n = 10;
        let (eps, max_iter) = ctx.scale().pick((0.05, 300), (0.01, 3000), (0.001, 30_000));
        let mut rng = bl_core::random::seeded_rng(ctx.seed());
        let xs = [1.0, -1.0];
        let y = Mat::from_fn(1, n, |_, s| {
            let t = s as f64 / (n - 1) as f64;
            xs[0] * t + xs[1] * (1.0 - t) + 0.3 * bl_core::random::standard_normal(&mut rng)
        });
        let fit = GopParams::new(2, 2.0)
            .eps(eps)
            .seed(ctx.seed())
            .max_iter(max_iter)
            .fit(y.as_ref())?;
        let h = fit.history();
        let mut elapsed = 0.0;
        let mut rows = Vec::with_capacity(h.len());
        let mut gap = Vec::with_capacity(h.len());
        for r in h {
            elapsed += r.timing.total;
            gap.push((elapsed, r.upper_bound - r.lower_bound));
            let mut row = vec![
                r.iteration as f64,
                elapsed,
                r.upper_bound,
                r.lower_bound,
                r.upper_bound - r.lower_bound,
                r.x[0],
                r.x[1],
                r.primal_objective,
            ];
            row.extend(r.theta.iter().step_by(2));
            rows.push(row);
        }
        let mut header: Vec<String> = [
            "iteration",
            "time_s",
            "upper_bound",
            "lower_bound",
            "gap",
            "x1",
            "x2",
            "primal",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        header.extend((1..=n).map(|s| format!("theta1_{s}")));
        let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
        ctx.write_csv("iterations", &header_refs, &rows)?;
        ctx.line_plot(
            "gap_vs_time",
            "Fig. 3a: optimality gap PUBD - RLBD",
            "seconds",
            "gap",
            &[Series::new("gap", gap)],
            true,
        )?;
        ctx.line_plot(
            "x_iterates",
            "Fig. 3b: x iterates",
            "iteration",
            "x",
            &[
                Series::new(
                    "x1",
                    h.iter().map(|r| (r.iteration as f64, r.x[0])).collect(),
                ),
                Series::new(
                    "x2",
                    h.iter().map(|r| (r.iteration as f64, r.x[1])).collect(),
                ),
            ],
            false,
        )?;
        ctx.line_plot(
            "theta_iterates",
            "Fig. 3c: theta_1n iterates (n = 1, 5, 10)",
            "iteration",
            "theta_1n",
            &[0, 4, 9]
                .iter()
                .map(|&s| {
                    Series::new(
                        format!("n = {}", s + 1),
                        h.iter()
                            .map(|r| (r.iteration as f64, r.theta[2 * s]))
                            .collect(),
                    )
                })
                .collect::<Vec<_>>(),
            false,
        )?;
        let c = fit.certificate();
        ctx.figure("iterations", fit.n_iter() as f64);
        ctx.figure("seconds", fit.elapsed_s());
        ctx.figure("final_gap", c.gap);
        ctx.figure("lower_bound", c.lower_bound);
        ctx.figure("upper_bound", c.upper_bound);
        ctx.md(&format!(
            "## Fig. 3: M = 1, K = 2, N = 10, P = 2, eps = {eps}\n\n\
             {} iterations in {:.2} s, {} tree nodes; bounds [{:.5}, {:.5}], final x = ({:.4}, {:.4}) \
             (x* = (1, -1) up to the order of the components). The paper's figure is a curve; \
             we do not have its numbers, so the paper column is empty (—).\n",
            fit.n_iter(),
            fit.elapsed_s(),
            fit.tree().len(),
            c.lower_bound,
            c.upper_bound,
            fit.x()[(0, 0)],
            fit.x()[(0, 1)],
        ));
        ctx.table_vs_paper(
            "quantity",
            &["value"],
            &[
                VsRow {
                    label: "iterations to eps".into(),
                    ours: vec![Some(fit.n_iter() as f64)],
                    paper: vec![None],
                },
                VsRow {
                    label: "final gap".into(),
                    ours: vec![Some(c.gap)],
                    paper: vec![None],
                },
            ],
        )?;
        ctx.claim(
            "GOP closes the gap to eps (an eps-global optimum with a certificate)",
            c.certified,
            format!(
                "gap {:.3e} after {} iterations (eps {eps})",
                c.gap,
                fit.n_iter()
            ),
        );
        let never_cross = h.iter().all(|r| r.lower_bound <= r.upper_bound);
        let monotone = h
            .windows(2)
            .all(|w| w[1].lower_bound >= w[0].lower_bound && w[1].upper_bound <= w[0].upper_bound);
        ctx.claim(
            "the lower bound rises and the upper bound falls without crossing",
            never_cross && monotone,
            format!("{} iterations checked", h.len()),
        );
        Ok(())
    }
}
