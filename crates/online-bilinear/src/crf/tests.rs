//! Checks of the Rust CRF against independent computations: finite differences, brute-force
//! enumeration of all tag paths, a long run of the optimizer.

use super::objective::{Lattice, Objective, StateIndex, exp_transitions, path_score};
use super::optim::{Outcome, QuasiNewton, Settings};
use crate::data::Corpus;
use crate::features::EncodedSentence;
use crate::{ParamGuard, Sentence, TaggerParams, words_to_bmes};

/// A small segmentation corpus: encoded sentences, gold tag ids, `K`, `L`, prepared as
/// every fit prepares its corpus ([`crate::TaggerValidParams::prepare`], segmentation templates,
/// cutoff 1). The sentences come from a fixed lexicon, so building and preparing them
/// cannot fail; a failure would be a bug of this fixture, hence `expect`.
fn tiny(n: usize, words_per: usize) -> (Vec<EncodedSentence>, Vec<Vec<usize>>, usize, usize) {
    let lexicon = ["ab", "c", "dea", "fb", "g", "hic", "ba"];
    let corpus = (0..n)
        .map(|i| {
            let words: Vec<&str> = (0..words_per)
                .map(|j| lexicon[(i * 5 + j * 3 + j * j) % lexicon.len()])
                .collect();
            let (chars, tags) = words_to_bmes(&words);
            Sentence::from_tokens(&chars, &tags)
        })
        .collect::<crate::Result<Corpus>>()
        .expect("the fixed lexicon gives well-formed sentences");
    let prepared = TaggerParams::crf_l2()
        .check()
        .and_then(|params| params.prepare(&corpus))
        .expect("a non-empty tagged corpus prepares");
    let (k, l) = (prepared.features().len(), prepared.tags().len());
    (prepared.encoded, prepared.gold, k, l)
}

/// Deterministic pseudo-random weights in `[-scale, scale]`.
fn weights(dim: usize, seed: u64, scale: f64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..dim)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            scale * ((x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
        .collect()
}

/// `log sum_y exp s(x, y)` over all `L^n` paths.
fn brute_log_z(enc: &EncodedSentence, l: usize, state: &[f64], trans: &[f64]) -> f64 {
    let n = enc.len();
    let total = l.pow(n as u32);
    let scores: Vec<f64> = (0..total)
        .map(|mut code| {
            let y: Vec<usize> = (0..n)
                .map(|_| {
                    let t = code % l;
                    code /= l;
                    t
                })
                .collect();
            path_score(enc, l, state, trans, &y)
        })
        .collect();
    let m = scores.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
    m + scores.iter().map(|s| (s - m).exp()).sum::<f64>().ln()
}

#[test]
fn log_partition_matches_brute_force_enumeration() {
    let (enc, _, k, l) = tiny(6, 3);
    for seed in 0..3 {
        // Large weights too: the scaling must keep forward-backward finite and exact.
        for scale in [0.5, 30.0] {
            let w = weights((k + l) * l, seed, scale);
            let (state, trans) = w.split_at(k * l);
            let (et, mt) = exp_transitions(trans);
            let mut lat = Lattice::default();
            let index = StateIndex::dense(k, l);
            for e in enc.iter().filter(|e| e.len() <= 7) {
                let y: Vec<usize> = (0..e.len()).map(|i| (i * 3 + 1) % l).collect();
                let (ours, gold_state) = lat
                    .forward_backward(e, l, &index, state, &et, mt, Some(&y))
                    .unwrap();
                let brute = brute_log_z(e, l, state, trans);
                assert!(
                    (ours - brute).abs() <= 1e-9 * brute.abs().max(1.0),
                    "n = {}: {ours} vs {brute}",
                    e.len()
                );
                let zero_trans = vec![0.0; l * l];
                let expected = path_score(e, l, state, &zero_trans, &y);
                assert!((gold_state - expected).abs() <= 1e-9 * expected.abs().max(1.0));
            }
        }
    }
}

#[test]
fn marginals_sum_to_one_and_agree_with_each_other() {
    let (enc, _, k, l) = tiny(5, 4);
    let w = weights((k + l) * l, 7, 2.0);
    let (state, trans) = w.split_at(k * l);
    let (et, mt) = exp_transitions(trans);
    let mut lat = Lattice::default();
    let index = StateIndex::dense(k, l);
    for e in &enc {
        lat.forward_backward(e, l, &index, state, &et, mt, None)
            .unwrap();
        for i in 0..e.len() {
            let total: f64 = (0..l).map(|a| lat.state_marginal(i, a, l).unwrap()).sum();
            assert!((total - 1.0).abs() < 1e-12, "{total}");
            if i > 0 {
                // Summing the edge marginals over the previous tag gives the state marginal.
                for a in 0..l {
                    let edge: f64 = (0..l)
                        .map(|b| lat.edge_marginal(i, b, a, l, &et).unwrap())
                        .sum();
                    assert!((edge - lat.state_marginal(i, a, l).unwrap()).abs() < 1e-12);
                }
            }
        }
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let (enc, gold, k, l) = tiny(8, 3);
    let index = StateIndex::observed(&enc, &gold, k, l);
    assert!(index.len() < k * l, "some pairs are never seen");
    let mut obj = Objective::new(&enc, &gold, index, l, 3);
    let dim = obj.dim();
    let w = weights(dim, 3, 0.7);
    let mut g = vec![0.0; dim];
    let f = obj.eval(&w, &mut g).unwrap();
    assert!(f.is_finite() && f > 0.0);
    let mut scratch = vec![0.0; dim];
    let h = 1e-6;
    // Every transition and a spread of state weights.
    let coords: Vec<usize> = (0..dim).step_by(7).chain(dim - l * l..dim).collect();
    for j in coords {
        let mut wp = w.clone();
        wp[j] += h;
        let fp = obj.eval(&wp, &mut scratch).unwrap();
        wp[j] -= 2.0 * h;
        let fm = obj.eval(&wp, &mut scratch).unwrap();
        let fd = (fp - fm) / (2.0 * h);
        assert!(
            (fd - g[j]).abs() <= 1e-6 * (1.0 + g[j].abs()),
            "coordinate {j}: analytic {} vs finite difference {fd}",
            g[j]
        );
    }
}

#[test]
fn loss_and_gradient_do_not_depend_on_the_chunking_beyond_rounding_and_repeat_exactly() {
    let (enc, gold, k, l) = tiny(30, 4);
    let index = StateIndex::observed(&enc, &gold, k, l);
    let w = weights(index.len() + l * l, 11, 0.3);
    let mut g1 = vec![0.0; w.len()];
    let mut g2 = vec![0.0; w.len()];
    let f1 = Objective::new(&enc, &gold, index.clone(), l, 1)
        .eval(&w, &mut g1)
        .unwrap();
    let f4 = Objective::new(&enc, &gold, index.clone(), l, 4)
        .eval(&w, &mut g2)
        .unwrap();
    assert!((f1 - f4).abs() < 1e-10 * f1.abs());
    for (a, b) in g1.iter().zip(&g2) {
        assert!((a - b).abs() < 1e-10);
    }
    // The same chunk count twice: bit for bit.
    let mut obj = Objective::new(&enc, &gold, index, l, 4);
    let mut g3 = vec![0.0; w.len()];
    let f4b = obj.eval(&w, &mut g3).unwrap();
    assert_eq!(f4.to_bits(), f4b.to_bits());
    assert_eq!(g2, g3);
}

/// Runs the optimizer to its own stop (or `max` iterations); returns the final point,
/// its objective and the outcome.
fn minimize(
    settings: Settings,
    dim: usize,
    max: usize,
    loss: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
) -> (Vec<f64>, f64, Outcome) {
    let mut qn = QuasiNewton::new(settings, vec![0.0; dim], loss).unwrap();
    let mut outcome = Outcome::Continue;
    for _ in 0..max {
        outcome = qn.iterate(loss);
        if outcome != Outcome::Continue {
            break;
        }
    }
    let f = qn.objective();
    (qn.into_x(), f, outcome)
}

/// Minimizes `1/2 sum_j a_j (x_j - b_j)^2 + c1 ||x||_1 + c2 ||x||^2` over `n` variables
/// to the gradient tolerance `epsilon`, with `a_j = 1 + (j % period)` and
/// `b = weights(n, seed, scale)`; returns `a`, `b`, the minimizer found and the outcome.
fn minimize_quadratic(
    n: usize,
    period: usize,
    (seed, scale): (u64, f64),
    (c1, c2, epsilon): (f64, f64, f64),
    max_iterations: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>, Outcome) {
    let settings = Settings {
        c1,
        c2,
        epsilon,
        ..Settings::default()
    };
    let a: Vec<f64> = (0..n).map(|j| 1.0 + (j % period) as f64).collect();
    let b: Vec<f64> = weights(n, seed, scale);
    let mut loss = |x: &[f64], g: &mut [f64]| {
        let mut f = 0.0;
        for j in 0..x.len() {
            f += 0.5 * a[j] * (x[j] - b[j]).powi(2);
            g[j] = a[j] * (x[j] - b[j]);
        }
        f
    };
    let (x, _, outcome) = minimize(settings, n, max_iterations, &mut loss);
    (a, b, x, outcome)
}

#[test]
fn lbfgs_reaches_the_closed_form_minimum_of_a_quadratic() {
    // loss = 1/2 sum_j a_j (x_j - b_j)^2, plus c2 ||x||^2: x*_j = a_j b_j / (a_j + 2 c2).
    let (n, c2) = (40, 0.3);
    let (a, b, x, outcome) = minimize_quadratic(n, 7, (5, 3.0), (0.0, c2, 1e-10), 500);
    assert_eq!(outcome, Outcome::GradientSmall);
    for j in 0..n {
        let exact = a[j] * b[j] / (a[j] + 2.0 * c2);
        assert!((x[j] - exact).abs() < 1e-8, "{j}: {} vs {exact}", x[j]);
    }
}

#[test]
fn owlqn_reaches_the_soft_thresholded_minimum_with_exact_zeros() {
    // loss = 1/2 sum_j a_j (x_j - b_j)^2 plus c1 ||x||_1: x*_j = soft(b_j, c1 / a_j).
    let (n, c1) = (60, 1.5);
    let (a, b, x, _) = minimize_quadratic(n, 5, (9, 2.0), (c1, 0.0, 1e-12), 1000);
    let mut zeros = 0;
    for j in 0..n {
        let t = c1 / a[j];
        let exact = b[j].signum() * (b[j].abs() - t).max(0.0);
        if exact == 0.0 {
            zeros += 1;
            assert_eq!(x[j], 0.0, "{j}: expected an exact zero, found {}", x[j]);
        } else {
            assert!((x[j] - exact).abs() < 1e-7, "{j}: {} vs {exact}", x[j]);
        }
    }
    assert!(zeros > 5, "the test should have zeros: {zeros}");
}

/// The full CRF objective (loss + regularizer) at `x`.
fn crf_objective(obj: &mut Objective<'_>, x: &[f64], c1: f64, c2: f64) -> f64 {
    let mut g = vec![0.0; x.len()];
    obj.eval(x, &mut g).unwrap()
        + c2 * x.iter().map(|v| v * v).sum::<f64>()
        + c1 * x.iter().map(|v| v.abs()).sum::<f64>()
}

#[test]
fn crf_training_reaches_the_optimum_of_a_small_problem() {
    let (enc, gold, k, l) = tiny(20, 3);
    let mut obj = Objective::new(&enc, &gold, StateIndex::observed(&enc, &gold, k, l), l, 2);
    let dim = obj.dim();
    for (c1, c2) in [(0.0, 0.1), (0.2, 0.0)] {
        let mut loss = |w: &[f64], g: &mut [f64]| obj.eval(w, g).unwrap();
        let settings = Settings {
            c1,
            c2,
            epsilon: 1e-9,
            ..Settings::default()
        };
        // A short run (CRFsuite's default gradient test) against a long one.
        let (short, f_short, _) = minimize(
            Settings {
                c1,
                c2,
                ..Settings::default()
            },
            dim,
            300,
            &mut loss,
        );
        let (long, f_long, _) = minimize(settings, dim, 3000, &mut loss);
        assert!(
            (f_short - f_long).abs() <= 1e-6 * f_long,
            "c1 = {c1}, c2 = {c2}: {f_short} vs {f_long}"
        );
        // Optimality of the long run: no coordinate step improves the objective.
        let f = crf_objective(&mut obj, &long, c1, c2);
        assert!((f - f_long).abs() < 1e-9 * f);
        for j in (0..dim).step_by(5) {
            for h in [1e-4, -1e-4] {
                let mut x = long.clone();
                x[j] += h;
                assert!(
                    crf_objective(&mut obj, &x, c1, c2) >= f - 1e-9 * f,
                    "{j} {h}"
                );
            }
        }
        if c1 > 0.0 {
            let zeros = long.iter().filter(|v| **v == 0.0).count();
            assert!(zeros > dim / 4, "OWL-QN: {zeros} zeros of {dim}");
            assert!(short.iter().filter(|v| **v == 0.0).count() > dim / 4);
        }
    }
}

/// Runs the optimizer on `(x - 1)^2` from 0 through [`super::drive`], the gradient given
/// as computed or negated (`lie`), and returns the run's report.
fn drive_parabola(lie: bool) -> bl_core::FitReport {
    let sign = if lie { -1.0 } else { 1.0 };
    let mut loss = |x: &[f64], g: &mut [f64]| {
        g[0] = sign * 2.0 * (x[0] - 1.0);
        (x[0] - 1.0).powi(2)
    };
    let mut qn = QuasiNewton::new(Settings::default(), vec![0.0], &mut loss).unwrap();
    let rule = bl_core::IterationParams::new(100, 1e-5);
    super::drive(&rule, qn.objective(), || {
        let outcome = qn.iterate(&mut loss);
        Ok(super::Step {
            objective: qn.objective(),
            stop: outcome.stop(),
        })
    })
    .unwrap()
}

/// A line search that finds no step ends the run out of its budget, not converged: with
/// the gradient negated every trial goes uphill. The gradient test ends it solved.
#[test]
fn a_line_search_without_a_step_is_budget_exhausted() {
    let failed = drive_parabola(true);
    assert_eq!(
        failed.termination,
        bl_core::TerminationReason::BudgetExhausted
    );
    assert!(!failed.converged());
    assert_eq!(failed.iterations, 1);
    let solved = drive_parabola(false);
    assert_eq!(solved.termination, bl_core::TerminationReason::Solved);
    assert!(solved.converged());
    assert_eq!(
        Outcome::LineSearchFailed.stop(),
        Some(bl_core::engine::Stop::BudgetExhausted)
    );
    assert_eq!(Outcome::Continue.stop(), None);
}
