//! `sblr-fig3` — [SBLR Fig. 3] convergence of Alg. 2: the objective and `||W^k - W*||_F`
//! per iteration, `W = (U, V, b)` as in eq. (8), for the unregularized model (600
//! iterations) and the regularized one (`mu1 = nu1 = 0.01`, `mu2 = nu2 = 0.5`, 1e4
//! iterations), `r = 1` (Sec. 7.3; settings in [`crate::paper::sblr`]).
//!
//! Data: the paper uses its binary EEG set (Sec. 8.1.1); we use the substitute of
//! `sblr-table2`, BasicMotions Badminton vs Walking, training split, standardized as in
//! `sblr_common`. Each model runs from two starts: ours, the label-weighted SVD, which the
//! claims judge, and beside it the paper's mean-sample SVD (Sec. 7.1), which on centred
//! data is the SVD of rounding noise (see `docs/papers/sblr.md`). The report gives both
//! starts' eq. (8) stop iteration and rates.
//!
//! `W*` is, as in the paper, the last plotted iterate. Measured against it, the distance is
//! pinned to zero at the end, so its last steps look superlinear whatever the true rate;
//! the rate claim is therefore checked against an independent `W**`, the iterate after 1.5
//! times the plotted number of iterations, and both curves are drawn.

use faer::ColRef;
use sblr::ParamGuard as _;
use sblr::{BinarySolver, Init, Sblr};

use super::sblr_common::{OURS_JUDGED, Split, basicmotions, standardize};
use super::{Ctx, Experiment, Series, least_squares_slope};
use crate::paper::sblr as paper;
use crate::report::{Claim, Verdict};

/// The experiment.
pub const EXPERIMENT: Experiment = Experiment {
    id: "sblr-fig3",
    title: "[SBLR Fig. 3] Alg. 2 convergence: objective and ||W^k - W*||_F per iteration",
    run,
};

/// `W = (U, V, b)` flattened.
fn flat_w(solver: &BinarySolver<'_>) -> Vec<f64> {
    let (u, v) = solver.factors();
    let mut w = u;
    w.extend(v);
    w.push(solver.intercept());
    w
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    (ColRef::from_slice(a) - ColRef::from_slice(b)).norm_l2()
}

/// One model's run: objective and `q^k` per iteration (index 0 = start, `q^0` = NaN), and
/// the distances to the paper's `W*` (last plotted iterate) and to the independent `W**`.
struct Trajectory {
    objective: Vec<f64>,
    q: Vec<f64>,
    to_last: Vec<f64>,
    to_later: Vec<f64>,
}

fn trajectory(
    data: &bl_core::data::MatrixDataset,
    pens: paper::Penalties,
    iters: usize,
    init: Init,
) -> anyhow::Result<Trajectory> {
    let params = Sblr::params()
        .rank(paper::FIG3_RANK)
        .penalties(pens.0, pens.1, pens.2, pens.3)
        .init(init)
        .check()?;
    let mut solver = BinarySolver::new(data, &params)?;
    let mut ws = vec![flat_w(&solver)];
    let mut objective = vec![solver.objective()];
    let mut q = vec![f64::NAN];
    for _ in 0..iters {
        let report = solver.step()?;
        ws.push(flat_w(&solver));
        objective.push(report.objective);
        q.push(report.change);
    }
    let w_last = ws[iters].clone();
    for _ in 0..iters / 2 {
        solver.step()?;
    }
    let w_later = flat_w(&solver);
    Ok(Trajectory {
        objective,
        q,
        to_last: ws.iter().map(|w| distance(w, &w_last)).collect(),
        to_later: ws.iter().map(|w| distance(w, &w_later)).collect(),
    })
}

/// Largest relative increase of the objective between consecutive iterations.
fn worst_increase(objective: &[f64]) -> f64 {
    objective
        .windows(2)
        .map(|w| (w[1] - w[0]) / w[0].abs().max(1e-300))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Geometric rate `exp(slope)` of the least-squares fit of `ln d_k` on `k` over `range`
/// (NaN with fewer than two positive points).
fn rate(distance: &[f64], range: std::ops::Range<usize>) -> f64 {
    let pts: Vec<(f64, f64)> = range
        .filter(|&k| distance.get(k).is_some_and(|&d| d > 0.0))
        .map(|k| (k as f64, distance[k].ln()))
        .collect();
    if pts.len() < 2 {
        return f64::NAN;
    }
    least_squares_slope(&pts).exp()
}

/// Rates of the distance curve: over the first half and over the last quarter of the
/// iterations before it reaches the rounding floor (`1e-10` times its start).
fn early_late_rates(distance: &[f64]) -> (f64, f64, usize) {
    let floor = 1e-10 * distance.first().copied().unwrap_or(0.0);
    let end = distance
        .iter()
        .position(|&d| d <= floor)
        .unwrap_or(distance.len());
    (
        rate(distance, 0..end / 2),
        rate(distance, 3 * end / 4..end),
        end,
    )
}

/// "Linear at first and superlinear eventually": the early rate is below 1 and the late
/// log-rate is at least twice the early one (`ln late <= 2 ln early`).
fn linear_then_superlinear(early: f64, late: f64) -> bool {
    early < 1.0 && late.ln() <= 2.0 * early.ln()
}

/// What the report and the claims need from one trajectory of `iters` iterations.
struct Summary {
    /// Largest relative increase of the objective between iterations.
    worst_increase: f64,
    /// The first iteration with eq. (8)'s `q^k <= tol`, if any.
    stop: Option<usize>,
    /// Objective at `stop`.
    stop_objective: Option<f64>,
    /// Objective after `iters` iterations.
    final_objective: f64,
    /// Rates to `W**` over the first half and the last quarter, and the end of the range.
    to_later: (f64, f64, usize),
    /// The same to the paper's `W*` (the last plotted iterate).
    to_last: (f64, f64, usize),
    /// Distance of iterate `iters` to `W**`.
    final_distance: f64,
}

impl Summary {
    fn of(tr: &Trajectory, iters: usize) -> Self {
        let stop = tr.q.iter().position(|&q| q <= paper::TOL);
        Self {
            worst_increase: worst_increase(&tr.objective),
            stop,
            stop_objective: stop.map(|k| tr.objective[k]),
            final_objective: tr.objective[iters],
            to_later: early_late_rates(&tr.to_later),
            to_last: early_late_rates(&tr.to_last[..iters]),
            final_distance: tr.to_later[iters],
        }
    }

    /// "Pretty fast": eq. (8) is met within 100 iterations.
    fn fast(&self) -> bool {
        self.stop.is_some_and(|k| k <= 100)
    }

    /// "Linearly at first and superlinearly eventually", measured to `W**`.
    fn superlinear(&self) -> bool {
        linear_then_superlinear(self.to_later.0, self.to_later.1)
    }
}

/// The start the claims judge: ours, the label-weighted SVD (the mean sample of the centred
/// data is zero up to rounding, so the paper's start is noise here).
const OURS: (&str, Init) = ("ours", Init::LabelWeightedSvd);
/// The paper's start (Sec. 7.1), run beside ours and not judged.
const PAPER_START: (&str, Init) = ("paper's start", Init::MeanSvd);

#[allow(clippy::too_many_lines)]
fn run(ctx: &mut Ctx) -> anyhow::Result<()> {
    let raw = basicmotions(ctx)?;
    let split = standardize(&Split {
        train: raw.train.restrict_to_classes(&["Walking", "Badminton"])?,
        test: raw.test.restrict_to_classes(&["Walking", "Badminton"])?,
    })?;
    let data = split.train;
    let runs = [
        (
            "unregularized",
            (0.0, 0.0, 0.0, 0.0),
            ctx.scale().pick(60, 600, paper::FIG3_ITERS_UNREGULARIZED),
        ),
        (
            "regularized",
            paper::FIG3_PENALTIES,
            ctx.scale().pick(300, 2000, paper::FIG3_ITERS_REGULARIZED),
        ),
    ];
    let mut obj_series = Vec::new();
    let mut dist_series = Vec::new();
    let mut paper_obj_series = Vec::new();
    let mut paper_dist_series = Vec::new();
    let mut rows = Vec::new();
    let mut table = Vec::new();
    // Per start (ours, then the paper's): one summary per model.
    let mut summaries: [Vec<(&str, usize, Summary)>; 2] = [Vec::new(), Vec::new()];
    for (si, (start, init)) in [OURS, PAPER_START].into_iter().enumerate() {
        for &(name, pens, iters) in &runs {
            let tr = trajectory(&data, pens, iters, init.clone())?;
            for k in 0..=iters {
                rows.push(vec![
                    start.to_string(),
                    name.to_string(),
                    k.to_string(),
                    tr.objective[k].to_string(),
                    tr.q[k].to_string(),
                    tr.to_last[k].to_string(),
                    tr.to_later[k].to_string(),
                ]);
            }
            let series = |v: &[f64]| -> Vec<(f64, f64)> {
                v.iter().enumerate().map(|(k, &d)| (k as f64, d)).collect()
            };
            let (objs, dists) = if si == 0 {
                (&mut obj_series, &mut dist_series)
            } else {
                (&mut paper_obj_series, &mut paper_dist_series)
            };
            objs.push(Series::new(name, series(&tr.objective)));
            dists.push(Series::new(
                format!("{name}, W* = last iterate (paper)"),
                series(&tr.to_last[..iters]),
            ));
            dists.push(Series::new(
                format!("{name}, W** = iterate {}", iters + iters / 2),
                series(&tr.to_later),
            ));

            let sm = Summary::of(&tr, iters);
            // The figures of our start keep their names; the paper's start's end in
            // `_paper_start`.
            let suffix = if si == 0 { "" } else { "_paper_start" };
            if let Some(k) = sm.stop {
                ctx.figure(&format!("eq8_stop_iteration_{name}{suffix}"), k as f64);
            }
            ctx.figure(
                &format!("final_objective_{name}{suffix}"),
                sm.final_objective,
            );
            ctx.figure(&format!("early_rate_{name}{suffix}"), sm.to_later.0);
            ctx.figure(&format!("late_rate_{name}{suffix}"), sm.to_later.1);
            ctx.figure(
                &format!("final_distance_to_w_later_{name}{suffix}"),
                sm.final_distance,
            );
            let fmt = super::format_number;
            table.push(vec![
                start.to_string(),
                name.to_string(),
                sm.stop
                    .map_or_else(|| "not met".to_string(), |k| k.to_string()),
                sm.stop_objective.map_or_else(String::new, fmt),
                format!("{} after {iters}", fmt(sm.final_objective)),
                rates_cell(sm.to_later),
                format!("{:.3e}", sm.final_distance),
                rates_cell(sm.to_last),
                format!("{:.2e}", sm.worst_increase),
            ]);
            summaries[si].push((name, iters, sm));
        }
    }
    ctx.write_csv(
        "trajectories",
        &[
            "start",
            "model",
            "iteration",
            "objective",
            "q_eq8",
            "distance_to_last_iterate",
            "distance_to_w_later",
        ],
        &rows,
    )?;
    ctx.line_plot(
        "objective",
        "Objective per iteration (our start)",
        "iteration",
        "objective",
        &obj_series,
        true,
    )?;
    ctx.line_plot(
        "distance",
        "||W^k - W*||_F per iteration, W = (U, V, b) (our start)",
        "iteration",
        "distance",
        &dist_series,
        true,
    )?;
    ctx.line_plot(
        "objective_paper_start",
        "Objective per iteration (the paper's start)",
        "iteration",
        "objective",
        &paper_obj_series,
        true,
    )?;
    ctx.line_plot(
        "distance_paper_start",
        "||W^k - W*||_F per iteration, W = (U, V, b) (the paper's start)",
        "iteration",
        "distance",
        &paper_dist_series,
        true,
    )?;
    ctx.md("## Fig. 3\n\nThe paper's setting:\n");
    ctx.quote(&paper::FIG3_SETUP);
    ctx.md("The paper's start:\n");
    ctx.quote(&paper::INIT);
    ctx.md(&format!(
        "Ours: Alg. 2 on the substitute of Table 2's EEG data, BasicMotions Badminton vs \
         Walking (training split, {} samples of {} x {}, entries centred and rows scaled), \
         `r = {}`, the paper's iteration counts at paper scale (this run: see the CSV). \
         `W = (U, V, b)` as defined with eq. (8). Each model is run from two starts: \
         **ours**, the SVD of the label-weighted mean `(1/n) sum_i y_i X_i` \
         (`Init::LabelWeightedSvd`), and **the paper's start**, the SVD of the mean sample \
         (`Init::MeanSvd`), which after centring is the SVD of rounding noise. The claims \
         below judge ours; the paper's start runs beside it and is not judged. The distance \
         is drawn twice: to the last plotted iterate, as in the paper, and to the iterate \
         after 1.5x as many iterations (`W**`), which is not pinned to zero at the end of \
         the plot.\n\n\
         ![objective](objective.svg)\n\n![distance](distance.svg)\n\n\
         ![objective, the paper's start](objective_paper_start.svg)\n\n\
         ![distance, the paper's start](distance_paper_start.svg)\n",
        data.n_samples(),
        data.shape().0,
        data.shape().1,
        paper::FIG3_RANK
    ));
    // Alg. 2 never raises the objective (sufficient decrease (17)): an invariant of a
    // correct implementation, tested in crates/sblr/tests (`observed_fit.rs`), not a claim;
    // the largest increase is shown for the reader.
    ctx.md(&format!(
        "\nBoth starts, per model: the first iteration where eq. (8)'s `q^k <= {}`, the \
         objective there and at the end, the geometric rate of the distance over the first \
         half and the last quarter of the iterations before it reaches `1e-10` times its \
         start (measured to `W**`, and to the paper's `W*`), and the largest relative \
         increase of the objective between iterations (Alg. 2 is a descent method; tested \
         in `crates/sblr/tests`).\n",
        paper::TOL
    ));
    ctx.table(
        &[
            "start",
            "model",
            "eq. (8) met at",
            "objective there",
            "final objective",
            "rates to W** (iterations)",
            "final distance to W**",
            "rates to W* = last iterate",
            "largest increase",
        ],
        table,
    );
    let verdict = |b: bool| if b { "holds" } else { "fails" };
    let paper_fast = summaries[1].iter().all(|(_, _, s)| s.fast());
    let paper_superlinear = summaries[1].iter().all(|(_, _, s)| s.superlinear());
    ctx.md(&format!(
        "\nBy the rules of the two claims below, the paper's start (not judged) gives: \
         \"converges pretty fast\" {}, \"linearly at first and superlinearly eventually\" \
         {}.\n",
        verdict(paper_fast),
        verdict(paper_superlinear)
    ));

    ctx.md(
        "\nRemark 4.3 rests its statement on these results; it is judged here only through \
         the second claim below (the rate):\n",
    );
    ctx.quote(&paper::REMARK_4_3);

    let ours = &summaries[0];
    let all_fast = ours.iter().all(|(_, _, s)| s.fast());
    let evidence_fast: Vec<String> = ours
        .iter()
        .map(|(name, iters, s)| match (s.stop, s.stop_objective) {
            (Some(k), Some(at)) => format!(
                "{name}: eq. (8) q^k <= {} at iteration {k}, objective {} there vs {} \
                 after {iters}",
                paper::TOL,
                super::format_number(at),
                super::format_number(s.final_objective)
            ),
            _ => format!("{name}: eq. (8) q^k never fell to {}", paper::TOL),
        })
        .collect();
    let all_rate = ours.iter().all(|(_, _, s)| s.superlinear());
    let evidence_rate: Vec<String> = ours
        .iter()
        .map(|(name, _, s)| {
            let (early, late, end) = s.to_later;
            format!(
                "{name}: to W**, rate {early:.4} per iteration over iterations 0..{} and \
                 {late:.4} over {}..{end}; final distance {:.3e}",
                end / 2,
                3 * end / 4,
                s.final_distance
            )
        })
        .collect();
    ctx.record(
        Claim::new(paper::FIG3_FAST.claim_text(), Verdict::of(all_fast))
            .judges(OURS_JUDGED)
            .evidence(format!(
                "held if the paper's stopping rule (eq. (8), q^k <= {}) is met within 100 \
                 iterations for both models; {}",
                paper::TOL,
                evidence_fast.join("; ")
            )),
    );
    ctx.record(
        Claim::new(paper::FIG3_RATE.claim_text(), Verdict::of(all_rate))
            .judges(OURS_JUDGED)
            .evidence(format!(
                "held if, measured to W**, the distance shrinks geometrically over the first \
                 half (rate < 1) and the log-rate over the last quarter is at least twice \
                 that of the first half, for both models; {}",
                evidence_rate.join("; ")
            )),
    );
    Ok(())
}

/// A table cell of `(early rate, late rate, iterations)`: each rate with the iterations
/// it was fitted over (the first half; the last quarter).
fn rates_cell((early, late, n): (f64, f64, usize)) -> String {
    format!("{early:.4} (0..{}), {late:.4} ({}..{n})", n / 2, 3 * n / 4)
}
