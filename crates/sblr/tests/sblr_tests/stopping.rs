//! The stopping quantity `q^k` of eq. (8) (Shi, Xu, Baraniuk 2014, Sec. 3.2), recomputed
//! here from recorded iterates and objectives with code independent of the crate's, and
//! the two optional criteria.

use crate::common;
use bl_core::data::MatrixDataset;
use bl_core::engine::TerminationReason;
use faer::{ColRef, MatRef};
use sblr::{BinarySolver, Init, MultinomialSblr, Sblr, StopCriterion};
use sblr::{Fit as _, Fitted as _, ParamGuard as _};

/// One recorded iterate: `(U, V, b)` flattened (each once) and the objective `F`.
#[derive(Clone)]
struct Iterate {
    w: Vec<f64>,
    f: f64,
}

fn flat(u: MatRef<'_, f64>, v: MatRef<'_, f64>, b: &[f64]) -> Vec<f64> {
    let mut w = Vec::new();
    for m in [u, v] {
        for k in 0..m.ncols() {
            for a in 0..m.nrows() {
                w.push(m[(a, k)]);
            }
        }
    }
    w.extend_from_slice(b);
    w
}

fn norm(x: &[f64]) -> f64 {
    ColRef::from_slice(x).norm_l2()
}

fn diff_norm(a: &[f64], b: &[f64]) -> f64 {
    (ColRef::from_slice(a) - ColRef::from_slice(b)).norm_l2()
}

/// Eq. (8) as printed: `max(||W^k - W^{k-1}|| / (1 + ||W^{k-1}||), |F^k - F^{k-1}| / (1 + F^{k-1}))`.
fn eq8(prev: &Iterate, next: &Iterate) -> f64 {
    let iterate = diff_norm(&next.w, &prev.w) / (1.0 + norm(&prev.w));
    let objective = (next.f - prev.f).abs() / (1.0 + prev.f);
    iterate.max(objective)
}

fn reference(stop: StopCriterion, prev: &Iterate, next: &Iterate) -> f64 {
    match stop {
        StopCriterion::Eq8 => eq8(prev, next),
        StopCriterion::ObjectiveChange => (next.f - prev.f).abs() / prev.f.abs().max(1.0),
        StopCriterion::IterateChange => diff_norm(&next.w, &prev.w) / norm(&prev.w).max(1.0),
    }
}

/// The objective (4)-(5) by explicit sums: `(1/n) sum log(1 + exp(-y (sum_k u_k^T X v_k + b)))`
/// plus the elastic-net penalties.
fn objective_by_hand(
    data: &MatrixDataset,
    u: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    b: f64,
    (mu1, mu2, nu1, nu2): (f64, f64, f64, f64),
) -> f64 {
    let (s, t) = data.shape();
    let n = data.n_samples();
    let mut loss = 0.0;
    for i in 0..n {
        let x = &data.as_slice()[i * s * t..(i + 1) * s * t];
        let mut score = b;
        for k in 0..u.ncols() {
            for j in 0..t {
                for a in 0..s {
                    score += u[(a, k)] * x[j * s + a] * v[(j, k)];
                }
            }
        }
        let y = if data.labels()[i] == 1 { 1.0 } else { -1.0 };
        loss += (1.0 + (-y * score).exp()).ln();
    }
    let pen = |m: MatRef<'_, f64>, l1: f64, l2: f64| {
        let mut p = 0.0;
        for k in 0..m.ncols() {
            for a in 0..m.nrows() {
                p += l1 * m[(a, k)].abs() + 0.5 * l2 * m[(a, k)] * m[(a, k)];
            }
        }
        p
    };
    loss / n as f64 + pen(u, mu1, mu2) + pen(v, nu1, nu2)
}

#[test]
fn eq8_is_the_default() {
    assert_eq!(StopCriterion::default(), StopCriterion::Eq8);
    let params = Sblr::params().check().unwrap();
    let iteration = params.iteration();
    assert_eq!(
        (iteration.max_iter, iteration.tol, params.stop()),
        (500, 1e-3, StopCriterion::Eq8)
    );
}

/// Closed-form values that tell the `1 +` denominators of eq. (8) from `max(1, .)`.
#[test]
fn quantity_closed_form() {
    let old = [3.0, 4.0];
    let new = [3.0, 5.0];
    let blocks: [(&[f64], &[f64]); 1] = [(&old, &new)];
    // Iterate term: 1 / (1 + 5) = 1/6; objective term: 0.3 / (1 + 1) = 0.15.
    let q = StopCriterion::Eq8.quantity(&blocks, 1.0, 0.7);
    assert!((q - 1.0 / 6.0).abs() < 1e-15, "{q}");
    // The objective term wins when it is the larger one: 1.5 / (1 + 1) = 0.75.
    let q = StopCriterion::Eq8.quantity(&blocks, 1.0, 2.5);
    assert!((q - 0.75).abs() < 1e-15, "{q}");
    // The options: iterate change 1/5, objective change 0.3 / max(1, 1) = 0.3.
    let q = StopCriterion::IterateChange.quantity(&blocks, 1.0, 0.7);
    assert!((q - 0.2).abs() < 1e-15, "{q}");
    let q = StopCriterion::ObjectiveChange.quantity(&blocks, 1.0, 0.7);
    assert!((q - 0.3).abs() < 1e-15, "{q}");
    // Blocks are pooled: two blocks of one entry each equal one block of two entries.
    let blocks2: [(&[f64], &[f64]); 2] = [(&old[..1], &new[..1]), (&old[1..], &new[1..])];
    assert_eq!(
        StopCriterion::Eq8.quantity(&blocks2, 1.0, 0.7),
        StopCriterion::Eq8.quantity(&blocks, 1.0, 0.7)
    );
    // NaN is never hidden by the max.
    assert!(StopCriterion::Eq8.quantity(&blocks, f64::NAN, 0.7).is_nan());
    assert!(
        StopCriterion::Eq8
            .quantity(&[(&[f64::NAN], &[1.0])], 1.0, 0.7)
            .is_nan()
    );
}

/// Every step's reported `q^k` equals eq. (8) recomputed from the iterates before and after
/// the step, with the objectives recomputed by hand, for both algorithms and all criteria.
#[test]
fn binary_step_change_matches_recomputation() {
    let data = sblr::synthetic::planted(40, 6, 5, &[0, 3], &[1, 2], 5).unwrap();
    let pens = (0.02, 0.3, 0.01, 0.2);
    for solver in [common::alg2(), common::alg1()] {
        for stop in [
            StopCriterion::Eq8,
            StopCriterion::ObjectiveChange,
            StopCriterion::IterateChange,
        ] {
            let params = Sblr::params()
                .rank(2)
                .penalties(pens.0, pens.1, pens.2, pens.3)
                .block_update(solver.clone())
                .stop(stop)
                .init(Init::Random)
                .seed(3)
                .check()
                .unwrap();
            let mut s = BinarySolver::new(&data, &params).unwrap();
            let record = |s: &BinarySolver<'_>| {
                let f = objective_by_hand(&data, s.u(), s.v(), s.intercept(), pens);
                assert!(
                    (f - s.objective()).abs() <= 1e-12 * (1.0 + f),
                    "objective {f} vs {}",
                    s.objective()
                );
                Iterate {
                    w: flat(s.u(), s.v(), &[s.intercept()]),
                    f,
                }
            };
            let mut prev = record(&s);
            for k in 0..8 {
                let report = s.step().unwrap();
                let next = record(&s);
                let q = reference(stop, &prev, &next);
                // Relative agreement, up to the rounding of F^k - F^{k-1} (F is O(1)).
                assert!(
                    (report.change - q).abs() <= 1e-10 * q + 1e-14,
                    "{solver:?} {stop:?} step {k}: reported {} vs recomputed {q}",
                    report.change
                );
                prev = next;
            }
        }
    }
}

/// `fit` stops at the first iteration with `q^k <= tol`: the recorded changes before it are
/// all above the tolerance; and the fit with one iteration less ends at the previous iterate,
/// so eq. (8) between the two fitted models is the last recorded change.
#[test]
fn fit_stops_at_first_small_eq8() {
    let data = sblr::synthetic::planted(50, 5, 4, &[0, 2], &[1, 3], 9).unwrap();
    let base = Sblr::params()
        .rank(1)
        .penalties(0.01, 0.1, 0.01, 0.1)
        .tol(1e-4);
    let model = base.clone().fit(&data).unwrap();
    assert_eq!(model.report().termination, TerminationReason::Converged);
    let changes: Vec<f64> = model
        .report()
        .trace
        .records()
        .iter()
        .map(|r| r.change)
        .collect();
    assert_eq!(changes.len(), model.report().iterations);
    let (last, before) = changes.split_last().unwrap();
    assert!(*last <= 1e-4);
    assert!(before.iter().all(|&c| c > 1e-4), "{changes:?}");
    assert!(model.report().iterations >= 2);

    let shorter = base
        .max_iter(model.report().iterations - 1)
        .fit(&data)
        .unwrap();
    assert_eq!(
        shorter.report().termination,
        TerminationReason::MaxIterations
    );
    let pens = (0.01, 0.1, 0.01, 0.1);
    let at = |m: &sblr::FittedSblr| Iterate {
        w: flat(m.u(), m.v(), &[m.intercept()]),
        f: objective_by_hand(&data, m.u(), m.v(), m.intercept(), pens),
    };
    let q = eq8(&at(&shorter), &at(&model));
    assert!((q - last).abs() <= 1e-10 * q + 1e-14, "{q} vs {last}");
}

/// The multinomial model (Alg. 3): eq. (8) over `(U_1..U_m, V_1..V_m, b)` between the fits
/// with `k - 1` and `k` iterations is the `k`-th recorded change.
#[test]
fn multinomial_change_matches_recomputation() {
    let (s, t, n) = (4, 3, 30);
    let base = sblr::synthetic::random_dataset(n, s, t, 21).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
    let data = MatrixDataset::new(
        s,
        t,
        base.as_slice().to_vec(),
        labels,
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap();
    let params = |iters: usize| {
        MultinomialSblr::params()
            .rank(1)
            .penalties(0.01, 0.1, 0.02, 0.1)
            .init(Init::Random)
            .seed(4)
            .tol(0.0)
            .max_iter(iters)
    };
    let at = |m: &sblr::FittedMultinomialSblr| {
        let mut w = Vec::new();
        for c in 0..m.n_classes() - 1 {
            w.extend(flat(
                m.u(c).expect("class index below m"),
                MatRef::from_column_major_slice(&[], 0, 0),
                &[],
            ));
        }
        for c in 0..m.n_classes() - 1 {
            w.extend(flat(
                MatRef::from_column_major_slice(&[], 0, 0),
                m.v(c).expect("class index below m"),
                &[],
            ));
        }
        w.extend_from_slice(m.intercepts());
        Iterate {
            w,
            f: m.objective(),
        }
    };
    let mut prev = at(&params(1).fit(&data).unwrap());
    for k in 2..=6 {
        let model = params(k).fit(&data).unwrap();
        let next = at(&model);
        let recorded = model.report().trace.records()[k - 1].change;
        let q = eq8(&prev, &next);
        assert!(
            (recorded - q).abs() <= 1e-10 * q + 1e-14,
            "iteration {k}: recorded {recorded} vs recomputed {q}"
        );
        prev = next;
    }
}
