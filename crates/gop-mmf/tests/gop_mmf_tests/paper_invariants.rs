//! Facts the GOP paper's experiments (Sec. 5) state that hold by construction in a correct
//! implementation: counting facts about the cells and the monotone, non-crossing bounds.
//! They used to be "claims" of the reproduction reports (`gop-example`, `gop-fig3`,
//! `gop-table1`); a claim there is now a statement about results that can fail, and these
//! are tests here.

use gop_mmf::arrangement::central_cell_bound;
use gop_mmf::{Fit, FittedGop, GopParams, Linearization};

/// Every iteration of `fit` has `RLBD <= PUBD`, `RLBD` never falls and `PUBD` never rises.
fn assert_bounds_monotone_and_ordered(fit: &FittedGop, what: &str) {
    let mut prev: Option<(f64, f64)> = None;
    for r in fit.history() {
        assert!(
            r.lower_bound <= r.upper_bound + 1e-12,
            "{what}, iteration {}: RLBD {} > PUBD {}",
            r.iteration,
            r.lower_bound,
            r.upper_bound
        );
        if let Some((lb, ub)) = prev {
            assert!(
                r.lower_bound >= lb - 1e-12,
                "{what}, iteration {}: RLBD fell",
                r.iteration
            );
            assert!(
                r.upper_bound <= ub,
                "{what}, iteration {}: PUBD rose",
                r.iteration
            );
        }
        prev = Some((r.lower_bound, r.upper_bound));
    }
}

#[test]
fn illustrative_example_solves_at_most_64_relaxed_duals_per_iteration() {
    // Sec. 5.1: "There are KN = 6 connected variables, so we solve at most 2^{KN} = 64
    // relaxed dual problems at each iteration." Six hyperplanes cannot make more cells;
    // with our cuts and M = 1 they collapse to 2 distinct lines (at most 4 cells). The
    // paper's eq. (7)-(8) cuts are counted too (a few starts: they take ~250 iterations).
    let (y, params) = gop_mmf::synthetic::illustrative();
    for seed in 0..20u64 {
        let fit = params.clone().seed(seed).fit(&y.as_ref()).unwrap();
        for r in fit.history() {
            assert!(r.cells <= 64, "seed {seed}: {} cells", r.cells);
            assert!(r.cells <= 4, "seed {seed}: {} cells with 2 lines", r.cells);
            assert!(r.kept_hyperplanes <= 2, "seed {seed}");
        }
        assert_bounds_monotone_and_ordered(&fit, &format!("Sec. 5.1, seed {seed}"));
    }
    for seed in 0..2u64 {
        let fit = params
            .clone()
            .seed(seed)
            .max_iter(60)
            .linearization(Linearization::Paper)
            .fit(&y.as_ref())
            .unwrap();
        assert!(fit.history().iter().all(|r| r.cells <= 64), "seed {seed}");
        assert!(fit.history().iter().all(|r| r.kept_hyperplanes <= 6));
    }
}

#[test]
fn fig3_bounds_are_monotone_and_the_gap_closes_to_eps() {
    // Sec. 5.2 / Fig. 3 (M = 1, K = 2, N = 10, P = 1, eps = 0.01): the lower bound rises,
    // the upper bound falls, they never cross, and the fit ends with a certified
    // eps-global optimum (the optimum is 0: y = x* theta*).
    for seed in 0..3u64 {
        let inst = gop_mmf::fig3_instance(10, seed).unwrap();
        let fit = GopParams::default()
            .k(2)
            .budget(inst.budget)
            .tol(0.01)
            .seed(seed)
            .threads(Some(1))
            .max_iter(500)
            .fit(&inst.y.as_ref())
            .unwrap();
        assert_bounds_monotone_and_ordered(&fit, &format!("Fig. 3, seed {seed}"));
        let c = fit.certificate();
        assert!(c.certified, "seed {seed}: {c:?}");
        assert!(c.upper_bound <= 0.01 && c.lower_bound <= 1e-9, "{c:?}");
    }
}

#[test]
fn table1_cells_stay_below_two_to_the_kn_and_the_noise_free_bound() {
    // Sec. 4: "an upper bound on the number of regions defined by KN cuts is 2^{KN}". On
    // the noise-free Table 1 data every residual lies in a 3-dimensional span, so each
    // component's N hyperplanes make at most `central_cell_bound(N, 3)` cells (196, 484 for
    // N = 4, 5 with K = 2), below 2^{KN} (256, 1024). The paper's eq. (8) cuts give the same
    // cells at the root.
    for (m, n) in [(20, 4), (40, 4), (20, 5)] {
        let inst = gop_mmf::table1_instance(m, n, 7 + (m * 10 + n) as u64).unwrap();
        let params = GopParams::default()
            .k(2)
            .budget(inst.budget)
            .seed(1)
            .threads(Some(1));
        let fit = params.clone().max_iter(2).fit(&inst.y.as_ref()).unwrap();
        let bound = central_cell_bound(n, 3).pow(2);
        assert!(bound < 1 << (2 * n));
        for r in fit.history() {
            assert!(
                r.timing.num_duals <= bound,
                "M = {m}, N = {n}: {} cells > {bound}",
                r.timing.num_duals
            );
            assert!(r.cells <= 1 << (2 * n));
        }
        let paper = params
            .linearization(Linearization::Paper)
            .max_iter(1)
            .fit(&inst.y.as_ref())
            .unwrap();
        assert_eq!(
            paper.history()[0].timing.num_duals,
            fit.history()[0].timing.num_duals,
            "M = {m}, N = {n}"
        );
    }
    // Known values of the bound itself.
    for k in 1..8 {
        assert_eq!(central_cell_bound(k, 2), 2 * k);
        assert_eq!(central_cell_bound(k, 3), k * k - k + 2);
        assert_eq!(central_cell_bound(k, k), 1 << k);
    }
    // The 2^{KN} bound is tight when the normals are in general position: noise in y
    // makes every sign vector a cell at the root.
    let inst = gop_mmf::table1_instance(20, 4, 3).unwrap();
    let noisy = gop_mmf::synthetic::with_noise(inst.y.as_ref(), 0.1, 11).unwrap();
    let fit = GopParams::default()
        .k(2)
        .budget(inst.budget)
        .seed(1)
        .threads(Some(1))
        .max_iter(1)
        .fit(&noisy.as_ref())
        .unwrap();
    assert_eq!(fit.history()[0].timing.num_duals, 1 << 8);
}
