//! `gop-example`: the illustrative instance of the GOP paper's Sec. 5.1 (Figs. 1-2).
//!
//! `y = [0, -1, -0.5]` (`M = 1`, `N = 3`), `K = 2`, `P = 1`, `eps = 0.01`. The global
//! optimum is 0 (`x = (0, -1)` or `(-1, 0)`: `y_3 = -0.5` is the midpoint). One run from the
//! seeded start records the bounds per iteration (Fig. 1a), the first `x` iterates
//! (Fig. 1b) with the multipliers, and the first three tree levels (Fig. 2, Graphviz DOT);
//! then 20 random starts count how many end within `eps` of the optimum.

use std::fmt::Write as _;

use faer::Mat;
use gop_mmf::{GopFit, GopParams, NodeState};

use super::{Ctx, Experiment, Series, VsRow};

/// The experiment.
pub struct GopExample;

const Y: [f64; 3] = [0.0, -1.0, -0.5];
const EPS: f64 = 0.01;

fn fit(seed: u64) -> anyhow::Result<GopFit> {
    let y = Mat::from_fn(1, 3, |_, n| Y[n]);
    Ok(GopParams::new(2, 1.0)
        .eps(EPS)
        .seed(seed)
        .threads(1)
        .max_iter(5000)
        .fit(y.as_ref())?)
}

/// The first `levels` levels of the tree as Graphviz DOT.
fn tree_dot(fit: &GopFit, levels: usize) -> String {
    let mut dot = String::from("digraph gop_tree {\n  node [shape=box, fontsize=10];\n");
    for node in fit.tree().iter().filter(|n| n.depth < levels) {
        let state = match node.state {
            NodeState::Open => "open",
            NodeState::Expanded => "expanded",
            NodeState::Pruned => "pruned",
        };
        let theta_b = node.theta_b.as_ref().map_or(String::new(), |t| {
            let cols: Vec<String> = t
                .chunks(2)
                .map(|c| format!("({:.0},{:.0})", c[0], c[1]))
                .collect();
            format!("\\ntheta^B = {}", cols.join(" "))
        });
        let it = node
            .expanded_at
            .map_or(String::new(), |i| format!("\\niteration {i}"));
        let _ = writeln!(
            dot,
            "  n{} [label=\"node {}\\nx = ({:.3}, {:.3})\\nLB = {:.4}{theta_b}\\n{state}{it}\"];",
            node.id, node.id, node.x[0], node.x[1], node.lower_bound
        );
        if let Some(p) = node.parent {
            let _ = writeln!(dot, "  n{p} -> n{};", node.id);
        }
    }
    dot.push_str("}\n");
    dot
}

impl Experiment for GopExample {
    fn id(&self) -> &'static str {
        "gop-example"
    }

    fn title(&self) -> &'static str {
        "[GOP 5.1, Figs. 1-2] the 1 x 3 illustrative instance: bounds per iteration, first tree levels, 20 random starts"
    }

    fn run(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let seed = ctx.seed();
        let main = fit(seed)?;

        // Fig. 1a: bounds per iteration; Fig. 1b: x iterates; multipliers.
        let rows: Vec<Vec<String>> = main
            .history()
            .iter()
            .map(|r| {
                let mut row = vec![
                    r.iteration.to_string(),
                    r.node.to_string(),
                    format!("{}", r.x[0]),
                    format!("{}", r.x[1]),
                    format!("{}", r.primal_objective),
                    format!("{}", r.upper_bound),
                    format!("{}", r.lower_bound),
                ];
                row.extend(r.theta.iter().map(|v| format!("{v}")));
                row.extend(r.lambda.iter().map(|v| format!("{v}")));
                row.extend(r.mu.iter().map(|v| format!("{v}")));
                row
            })
            .collect();
        let mut header = vec![
            "iteration",
            "node",
            "x1",
            "x2",
            "primal",
            "upper_bound",
            "lower_bound",
        ];
        header.extend([
            "theta11", "theta21", "theta12", "theta22", "theta13", "theta23",
        ]);
        header.extend(["lambda1", "lambda2", "lambda3"]);
        header.extend(["mu11", "mu21", "mu12", "mu22", "mu13", "mu23"]);
        ctx.write_csv("iterations", &header, &rows)?;
        let ub: Vec<(f64, f64)> = main
            .history()
            .iter()
            .map(|r| (r.iteration as f64, r.upper_bound))
            .collect();
        let lb: Vec<(f64, f64)> = main
            .history()
            .iter()
            .map(|r| (r.iteration as f64, r.lower_bound))
            .collect();
        ctx.line_plot(
            "fig1a_bounds",
            "Fig. 1a: upper (PUBD) and lower (RLBD) bounds",
            "iteration",
            "objective",
            &[Series::new("PUBD", ub), Series::new("RLBD", lb)],
            false,
        )?;
        let first: Vec<(f64, f64)> = main
            .history()
            .iter()
            .take(10)
            .map(|r| (r.x[0], r.x[1]))
            .collect();
        ctx.line_plot(
            "fig1b_x_iterates",
            "Fig. 1b: the first x iterates",
            "x1",
            "x2",
            &[Series::new("x^t, t = 1..10", first)],
            false,
        )?;
        let dot = tree_dot(&main, 3);
        std::fs::write(ctx.out_dir().join("fig2_tree.dot"), &dot)?;

        // 20 random starts.
        let mut reached = 0;
        let mut crossed = 0;
        let mut start_rows = Vec::new();
        let mut max_iter = 0;
        for s in 0..20u64 {
            let f = fit(seed.wrapping_mul(1000).wrapping_add(s + 1))?;
            let c = f.certificate();
            if c.upper_bound <= EPS {
                reached += 1;
            }
            crossed += f
                .history()
                .iter()
                .filter(|r| r.lower_bound > r.upper_bound)
                .count();
            max_iter = max_iter.max(f.n_iter());
            start_rows.push(vec![
                s.to_string(),
                f.history()
                    .first()
                    .map_or(String::new(), |r| format!("{:.4}", r.x[0])),
                f.history()
                    .first()
                    .map_or(String::new(), |r| format!("{:.4}", r.x[1])),
                f.n_iter().to_string(),
                format!("{:.6}", c.lower_bound),
                format!("{:.6}", c.upper_bound),
                format!("{:.4}", f.x()[(0, 0)]),
                format!("{:.4}", f.x()[(0, 1)]),
            ]);
        }
        ctx.write_csv(
            "random_starts",
            &[
                "start",
                "x1_0",
                "x2_0",
                "iterations",
                "lower_bound",
                "upper_bound",
                "x1",
                "x2",
            ],
            &start_rows,
        )?;

        let c = main.certificate();
        ctx.figure("iterations", main.n_iter() as f64);
        ctx.figure("final_upper_bound", c.upper_bound);
        ctx.figure("final_lower_bound", c.lower_bound);
        ctx.figure("starts_reaching_global", f64::from(reached));
        ctx.figure("max_iterations_over_starts", max_iter as f64);

        ctx.md(&format!(
            "## Sec. 5.1: `y = [0, -1, -0.5]`, K = 2, P = 1, eps = {EPS}\n\n\
             Run from seed {seed}: {} iterations, {} tree nodes, final x = ({:.4}, {:.4}), \
             theta = {:?}, bounds [{:.5}, {:.5}] (gap {:.5}).\n\n\
             The paper reports that GOP bounds the optimum from every start; it does not give \
             iteration counts we could read, so the paper column is empty (—).\n",
            main.n_iter(),
            main.tree().len(),
            main.x()[(0, 0)],
            main.x()[(0, 1)],
            (0..3)
                .map(|n| (main.theta()[(0, n)] * 1e4).round() / 1e4)
                .collect::<Vec<_>>(),
            c.lower_bound,
            c.upper_bound,
            c.gap,
        ));
        ctx.table_vs_paper(
            "quantity",
            &["value"],
            &[
                VsRow::new("global optimum (objective)", &[c.upper_bound], &[0.0]),
                VsRow {
                    label: "iterations (seeded start)".into(),
                    ours: vec![Some(main.n_iter() as f64)],
                    paper: vec![None],
                },
                VsRow::new(
                    "starts reaching the global optimum (of 20)",
                    &[f64::from(reached)],
                    &[20.0],
                ),
            ],
        )?;
        ctx.md("\nFirst iterations (Fig. 1a/1b data; all rows in `iterations.csv`):\n");
        ctx.table(
            &["it", "x1", "x2", "primal", "PUBD", "RLBD", "lambda"],
            main.history().iter().take(8).map(|r| {
                vec![
                    r.iteration.to_string(),
                    format!("{:.4}", r.x[0]),
                    format!("{:.4}", r.x[1]),
                    format!("{:.4}", r.primal_objective),
                    format!("{:.4}", r.upper_bound),
                    format!("{:.4}", r.lower_bound),
                    format!("{:.3?}", r.lambda),
                ]
            }),
        );
        ctx.md(
            "\nFig. 2 (first three tree levels) is `fig2_tree.dot` (render with `dot -Tsvg`).\n",
        );

        let all_ok = main
            .history()
            .iter()
            .all(|r| r.lower_bound <= r.upper_bound);
        ctx.claim(
            "the bounds never cross (RLBD <= PUBD at every iteration)",
            all_ok && crossed == 0,
            format!("checked on the seeded run and 20 random starts; {crossed} crossings"),
        );
        ctx.claim(
            "all 20 random starts reach the global optimum (objective within eps of 0)",
            reached == 20,
            format!("{reached} of 20 starts end with PUBD <= {EPS}; at most {max_iter} iterations"),
        );
        Ok(())
    }
}
