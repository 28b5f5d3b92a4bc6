//! `sblr-fig3` — [SBLR Fig. 3] convergence of Alg. 2: the objective and `||W^k - W*||_F`
//! per iteration, `W = (U, V, b)` as in eq. (8), for the unregularized model (600
//! iterations) and the regularized one (`mu1 = nu1 = 0.01`, `mu2 = nu2 = 0.5`, 1e4
//! iterations), `r = 1` (Sec. 7.3; settings in [`crate::paper::sblr`]).
//!
//! Data: the paper uses its binary EEG set (Sec. 8.1.1); we use the substitute of
//! `sblr-table2`, BasicMotions Badminton vs Walking, training split, standardized as in
//! `sblr_common`, started at the label-weighted SVD (see `docs/papers/sblr.md`).
//!
//! `W*` is, as in the paper, the last plotted iterate. Measured against it, the distance is
//! pinned to zero at the end, so its last steps look superlinear whatever the true rate;
//! the rate claim is therefore checked against an independent `W**`, the iterate after 1.5
//! times the plotted number of iterations, and both curves are drawn.

use faer::ColRef;
use sblr::ParamGuard as _;
use sblr::{BinarySolver, Init, Sblr};

use super::sblr_common::{Split, basicmotions, standardize};
use super::{Ctx, Experiment, Series, least_squares_slope};
use crate::paper::sblr as paper;

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
) -> anyhow::Result<Trajectory> {
    let params = Sblr::params()
        .rank(paper::FIG3_RANK)
        .penalties(pens.0, pens.1, pens.2, pens.3)
        .init(Init::LabelWeightedSvd)
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
    let mut rows = Vec::new();
    let mut evidence_mono = Vec::new();
    let mut all_fast = true;
    let mut evidence_fast = Vec::new();
    let mut all_rate = true;
    let mut evidence_rate = Vec::new();
    let mut evidence_pinned = Vec::new();
    for (name, pens, iters) in runs {
        let tr = trajectory(&data, pens, iters)?;
        for k in 0..=iters {
            rows.push(vec![
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
        obj_series.push(Series::new(name, series(&tr.objective)));
        dist_series.push(Series::new(
            format!("{name}, W* = last iterate (paper)"),
            series(&tr.to_last[..iters]),
        ));
        dist_series.push(Series::new(
            format!("{name}, W** = iterate {}", iters + iters / 2),
            series(&tr.to_later),
        ));

        let worst = worst_increase(&tr.objective);
        evidence_mono.push(format!("{name}: largest relative increase {worst:.2e}"));

        let final_obj = tr.objective[iters];
        let stop = tr.q.iter().position(|&q| q <= paper::TOL);
        let fast = stop.is_some_and(|k| k <= 100);
        all_fast &= fast;
        evidence_fast.push(match stop {
            Some(k) => format!(
                "{name}: eq. (8) q^k <= {} at iteration {k}, objective {} there vs {} \
                 after {iters}",
                paper::TOL,
                super::format_number(tr.objective[k]),
                super::format_number(final_obj)
            ),
            None => format!("{name}: eq. (8) q^k never fell to {}", paper::TOL),
        });
        if let Some(k) = stop {
            ctx.figure(&format!("eq8_stop_iteration_{name}"), k as f64);
        }

        let (early, late, end) = early_late_rates(&tr.to_later);
        all_rate &= linear_then_superlinear(early, late);
        evidence_rate.push(format!(
            "{name}: to W**, rate {early:.4} per iteration over iterations 0..{} and \
             {late:.4} over {}..{end}; final distance {:.3e}",
            end / 2,
            3 * end / 4,
            tr.to_later[iters]
        ));
        let (pe, pl, pend) = early_late_rates(&tr.to_last[..iters]);
        evidence_pinned.push(format!(
            "{name}: to the last iterate (paper's W*), rate {pe:.4} over 0..{} and {pl:.4} \
             over {}..{pend}",
            pend / 2,
            3 * pend / 4
        ));
        ctx.figure(&format!("final_objective_{name}"), final_obj);
        ctx.figure(&format!("early_rate_{name}"), early);
        ctx.figure(&format!("late_rate_{name}"), late);
        ctx.figure(
            &format!("final_distance_to_w_later_{name}"),
            tr.to_later[iters],
        );
    }
    ctx.write_csv(
        "trajectories",
        &[
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
        "Objective per iteration",
        "iteration",
        "objective",
        &obj_series,
        true,
    )?;
    ctx.line_plot(
        "distance",
        "||W^k - W*||_F per iteration, W = (U, V, b)",
        "iteration",
        "distance",
        &dist_series,
        true,
    )?;
    ctx.md("## Fig. 3\n\nThe paper's setting:\n");
    ctx.quote(&paper::FIG3_SETUP);
    ctx.md(&format!(
        "Ours: Alg. 2 on the substitute of Table 2's EEG data, BasicMotions Badminton vs \
         Walking (training split, {} samples of {} x {}), `r = {}`, label-weighted SVD \
         start, the paper's iteration counts at paper scale (this run: see the CSV). \
         `W = (U, V, b)` as defined with eq. (8). The distance is drawn twice: to the last \
         plotted iterate, as in the paper, and to the iterate after 1.5x as many \
         iterations (`W**`), which is not pinned to zero at the end of the plot.\n\n\
         ![objective](objective.svg)\n\n![distance](distance.svg)\n",
        data.n_samples(),
        data.shape().0,
        data.shape().1,
        paper::FIG3_RANK
    ));
    ctx.md(&format!(
        "\nThe same rates measured to the paper's `W*` (the last iterate): {}.\n",
        evidence_pinned.join("; ")
    ));
    // Alg. 2 never raises the objective (sufficient decrease (17)): an invariant of a
    // correct implementation, tested in crates/sblr/tests (`observed_fit.rs`), not a claim;
    // the largest increase is shown for the reader.
    ctx.md(&format!(
        "\nLargest relative increase of the objective between iterations (Alg. 2 is a \
         descent method; tested in `crates/sblr/tests`): {}.\n",
        evidence_mono.join("; ")
    ));
    ctx.paper_claim(
        &paper::FIG3_FAST,
        all_fast,
        format!(
            "held if the paper's stopping rule (eq. (8), q^k <= {}) is met within 100 \
             iterations for both models; {}",
            paper::TOL,
            evidence_fast.join("; ")
        ),
    );
    ctx.paper_claim(
        &paper::FIG3_RATE,
        all_rate,
        format!(
            "held if, measured to W**, the distance shrinks geometrically over the first \
             half (rate < 1) and the log-rate over the last quarter is at least twice that \
             of the first half, for both models; {}",
            evidence_rate.join("; ")
        ),
    );
    Ok(())
}
