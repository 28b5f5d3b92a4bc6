//! F. Zhang, C. Wang, A. C. Trapp, P. Flaherty, *A global optimization algorithm for sparse
//! mixed membership matrix factorization* (arXiv 1610.06145): the numbers it prints and
//! the statements it makes about its experiments (Sec. 5: the illustrative example of
//! Sec. 5.1 with Figs. 1-2, Fig. 3 of Sec. 5.2, Table 1 of Sec. 5.3.2).
//!
//! The paper has no page numbers in the text we cite from; places are sections, figures
//! and the table. Data substitutions, settings and traps are in `docs/papers/gop.md`.

use super::Quote;

// ---------------------------------------------------------------------------------------
// Table 1 (Sec. 5.3.2): "Timing profile of each component of the GOP algorithm for one
// iteration."
// ---------------------------------------------------------------------------------------

/// One row of Table 1 as printed. Times are in seconds (the header reads "Time (s)");
/// `num` is a count; `dual_pct` is the percentage printed beside `Dual`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table1Row {
    /// Features `M` ("Scale" column).
    pub m: usize,
    /// Samples `N` ("Scale" column).
    pub n: usize,
    /// "Primal: primal problem", seconds.
    pub primal: f64,
    /// "Pre: preprocessing", seconds.
    pub pre: f64,
    /// "URI: unique region identification", seconds.
    pub uri: f64,
    /// "Num: number of relaxed dual problems".
    pub num: usize,
    /// "Dual: relaxed dual problems", seconds.
    pub dual: f64,
    /// Dual as a percentage of Total, as printed in parentheses.
    pub dual_pct: f64,
    /// "Total: total time of one iteration", seconds.
    pub total: f64,
}

impl Table1Row {
    /// The paper's time per relaxed dual of this row, `Dual / Num`, in seconds.
    pub fn dual_per_lp(&self) -> f64 {
        self.dual / self.num as f64
    }
}

const fn row(
    m: usize,
    n: usize,
    primal: f64,
    pre: f64,
    uri: f64,
    num: usize,
    dual: f64,
    dual_pct: f64,
    total: f64,
) -> Table1Row {
    Table1Row {
        m,
        n,
        primal,
        pre,
        uri,
        num,
        dual,
        dual_pct,
        total,
    }
}

/// Table 1, all 12 rows in the paper's order (`N` = 4, 5, 6; `M` = 20..80 within each).
/// `K = 2` ("Here we have two subtypes"); "A single processor is used".
pub const TABLE1: [Table1Row; 12] = [
    row(20, 4, 0.10, 1.69, 1.29, 200, 1.54, 33.0, 4.62),
    row(40, 4, 0.12, 1.91, 1.72, 202, 1.69, 31.0, 5.44),
    row(60, 4, 0.12, 2.03, 1.11, 202, 1.77, 35.0, 5.03),
    row(80, 4, 0.13, 2.39, 2.05, 232, 3.70, 45.0, 8.27),
    row(20, 5, 0.11, 1.99, 1.31, 456, 11.26, 77.0, 14.67),
    row(40, 5, 0.11, 2.07, 1.37, 485, 11.45, 76.0, 15.00),
    row(60, 5, 0.11, 1.86, 1.41, 558, 12.33, 78.0, 15.71),
    row(80, 5, 0.12, 2.23, 1.26, 650, 17.96, 83.0, 21.57),
    row(20, 6, 0.14, 2.21, 2.50, 1152, 65.71, 93.0, 70.56),
    row(40, 6, 0.13, 2.83, 2.49, 1250, 67.08, 92.0, 72.53),
    row(60, 6, 0.12, 3.45, 2.80, 1255, 69.00, 92.0, 75.37),
    row(80, 6, 0.12, 3.15, 2.80, 1309, 77.62, 93.0, 83.69),
];

/// The Table 1 row for `(M, N)`, if the paper prints one.
pub fn table1_row(m: usize, n: usize) -> Option<&'static Table1Row> {
    TABLE1.iter().find(|r| r.m == m && r.n == n)
}

/// Number of subtypes in Table 1 (Sec. 5.3.2: `K in {2}`).
pub const TABLE1_K: usize = 2;

/// What the Table 1 timings measure and in which unit.
pub const TABLE1_SETUP: Quote = Quote {
    place: "Sec. 5.3.2",
    text: "We constructed 12 synthetic data sets in a full-factorial arrangement with M in {20, 40, 60, 80}, K in {2}, and N in {4, 5, 6} and measured CPU time for each component of one iteration.",
};

/// The caption's legend of Table 1.
pub const TABLE1_LEGEND: Quote = Quote {
    place: "Table 1, caption",
    text: "Primal: primal problem. Pre: preprocessing. URI: unique region identification. Num: number of relaxed dual problems. Dual: relaxed dual problems. Total: total time of one iteration. Here we have two subtypes. A single processor is used. Time for solving relaxed dual problems is highlighted in percentage.",
};

/// Claim: time per iteration is linear in `M`.
pub const TABLE1_LINEAR_IN_M: Quote = Quote {
    place: "Sec. 5.3.2, on Table 1",
    text: "Table 1 shows that the time per iteration increases linearly with M when K and N are fixed.",
};

/// Claim: the relaxed-dual time grows with `N`.
pub const TABLE1_DUAL_GROWS_WITH_N: Quote = Quote {
    place: "Sec. 5.3.2, on Table 1",
    text: "The time for solving all the relaxed dual problems increases as the number of samples increases.",
};

/// Claim: the relaxed duals take over 90% at `N = 6`, and parallelize.
pub const TABLE1_DUAL_SHARE_AND_PARALLEL: Quote = Quote {
    place: "Sec. 5.3.2, on Table 1",
    text: "Even though the step of solving all the relaxed dual problems takes more than 90% of the total time per iteration when the number of samples is 6, our algorithm is easily parallelized to solve the relaxed dual problems, allowing the algorithm to scale nearly linearly with the size of the data set.",
};

/// The bound on the number of cells (relaxed duals) per iteration: a counting fact, quoted
/// in the `gop-table1` report and tested in `gop-mmf`'s tests, not a claim.
pub const REGIONS_AT_MOST_2_POW_KN: Quote = Quote {
    place: "Sec. 4",
    text: "So, an upper bound on the number of regions defined by KN cuts is 2^{KN} because each region may be found by selecting a side of each cut.",
};

// ---------------------------------------------------------------------------------------
// Sec. 5.1: the illustrative example (Figs. 1-2).
// ---------------------------------------------------------------------------------------

/// The numbers Sec. 5.1 prints about the illustrative example (Figs. 1-2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Example {
    /// The data `y` (`M = 1`, `N = 3`).
    pub y: [f64; 3],
    /// The true `x*`.
    pub x_star: [f64; 2],
    /// The number of subtypes `K` (`x*` has two entries).
    pub k: usize,
    /// "sparsity constraint variable P = 1".
    pub p: f64,
    /// "convergence tolerance eps = 0.01".
    pub eps: f64,
    /// "we solve at most 2^{KN} = 64 relaxed dual problems at each iteration".
    pub max_duals_per_iteration: usize,
    /// "The optimal decision variables after 72 iterations".
    pub iterations: usize,
    /// `x-hat = x^(72)`.
    pub x_hat: [f64; 2],
    /// `theta-hat = theta^(72)`, rows `k = 1, 2`, columns `n = 1..3`.
    pub theta_hat: [[f64; 3]; 2],
    /// `lambda-hat`, with the paper's sign: its Lagrangian (3) has
    /// `- lambda_i (theta_i^T 1_K - 1)`.
    pub lambda_hat: [f64; 3],
    /// `mu-hat`, rows `k = 1, 2`, columns `n = 1..3`.
    pub mu_hat: [[f64; 3]; 2],
    /// "We run it using 20 random initial values".
    pub starts: usize,
    /// "the optimal objective functions for all random initializations are all 0".
    pub optimum: f64,
    /// "Figure 1 (b) shows the first ten x values considered by the algorithm".
    pub fig1b_first_x: usize,
    /// "the sequence of cut sets for the first three iterations of the algorithm" (Fig. 2).
    pub fig2_iterations: usize,
}

/// The example's numbers as printed (Sec. 5.1).
pub const EXAMPLE: Example = Example {
    y: [0.0, -1.0, -0.5],
    x_star: [0.0, -1.0],
    k: 2,
    p: 1.0,
    eps: 0.01,
    max_duals_per_iteration: 64,
    iterations: 72,
    x_hat: [0.080, -0.920],
    theta_hat: [[1.00, 0.080, 0.580], [0.00, 0.920, 0.420]],
    lambda_hat: [-0.147, 0.0, 0.0],
    mu_hat: [[0.0, 0.0, 0.0], [0.160, 0.0, 0.0]],
    starts: 20,
    optimum: 0.0,
    fig1b_first_x: 10,
    fig2_iterations: 3,
};

/// The setting of the example (its "at most 64 relaxed dual problems" is a counting fact,
/// tested in `gop-mmf`'s tests, not a claim).
pub const EXAMPLE_SETUP: Quote = Quote {
    place: "Sec. 5.1",
    text: "We ran the GOP algorithm with sparsity constraint variable P = 1 and convergence tolerance ϵ = 0.01. There are KN = 6 connected variables, so we solve at most 2^{KN} = 64 relaxed dual problems at each iteration.",
};

/// What the paper reports as the solution: `x` from a node's relaxed dual, `theta` from
/// its primal.
pub const EXAMPLE_REPORTED_POINT: Quote = Quote {
    place: "Sec. 3.3, Check convergence",
    text: "we exit the algorithm and report the optimal θ from the node’s primal problem and the optimal x from the node’s relaxed dual problem.",
};

/// Claim (Fig. 1a).
pub const FIG1A_UPPER_BOUND_FIRST: Quote = Quote {
    place: "Sec. 5.1, Fig. 1 (a)",
    text: "The upper bound converges quickly and the majority of the time in the algorithm is spent proving optimality.",
};

/// Claim (Fig. 1b).
pub const FIG1B_NOT_HILL_CLIMBING: Quote = Quote {
    place: "Sec. 5.1, Fig. 1 (b)",
    text: "It is evident that the algorithm is not performing hill-climbing or any other gradient ascent algorithm during its search for the global optimum.",
};

/// Claim (20 starts).
pub const EXAMPLE_ALL_STARTS_GLOBAL: Quote = Quote {
    place: "Sec. 5.1",
    text: "We run it using 20 random initial values and the optimal objective functions for all random initializations are all 0, which shows that the GOP algorithm found the globally optimal solutions of this small instance.",
};

/// Statement about the cut sets (Fig. 1b).
pub const FIG1B_PREVIOUS_CUTS: Quote = Quote {
    place: "Sec. 5.1, Fig. 1 (b)",
    text: "Furthermore, the algorithm does not search nested regions, but considers previously explored cut sets (Figure 1 (b)).",
};

/// Claim (Fig. 2): one cut per qualifying constraint.
pub const FIG2_ONE_CUT_PER_CONSTRAINT: Quote = Quote {
    place: "Sec. 5.1, Fig. 2",
    text: "One cut in Figure 2 (b, d, f) is obtained for each of the KN qualifying constraints.",
};

// ---------------------------------------------------------------------------------------
// Sec. 5.2: Fig. 3.
// ---------------------------------------------------------------------------------------

/// The numbers Sec. 5.2 prints about Fig. 3 and its data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fig3 {
    /// Features `M` ("one feature").
    pub m: usize,
    /// Subtypes `K` ("two subtypes").
    pub k: usize,
    /// Samples `N` ("ten samples").
    pub n: usize,
    /// "We ran our GOP algorithm using 64 processors".
    pub processors: usize,
    /// "in the first 89 iterations".
    pub iterations: usize,
    /// "in 120 seconds".
    pub seconds: f64,
    /// "The RLBD of the initial x, x^(0), is -59.87".
    pub rlbd_initial: f64,
    /// "The RLBD of iteration 89, x^(89), is -0.17" (the text also calls -0.17 the "duality
    /// gap (PUBD - RLBD)"; with an optimum of 0 the two readings differ only in sign).
    pub rlbd_at_89: f64,
    /// "The true x is (0, -1)" (Fig. 3 (b) caption).
    pub true_x: [f64; 2],
    /// "The true θ is (0.22, 0.78)" (Fig. 3 (c) caption; one sample's `theta`).
    pub true_theta: [f64; 2],
}

/// Fig. 3's numbers as printed.
pub const FIG3: Fig3 = Fig3 {
    m: 1,
    k: 2,
    n: 10,
    processors: 64,
    iterations: 89,
    seconds: 120.0,
    rlbd_initial: -59.87,
    rlbd_at_89: -0.17,
    true_x: [0.0, -1.0],
    true_theta: [0.22, 0.78],
};

/// Claim (Fig. 3a): the gap within 89 iterations and 120 seconds.
pub const FIG3_CONVERGENCE: Quote = Quote {
    place: "Sec. 5.2, Fig. 3 (a)",
    text: "Figure 3 (a) shows that our GOP algorithm converges very quickly to -0.17 duality gap (PUBD – RLBD) in the first 89 iterations in 120 seconds.",
};

/// The bounds at the start and at iteration 89 (numbers shown beside ours; RLBD >= -0.17 at
/// iteration 89 follows from the gap of [`FIG3_CONVERGENCE`], as `PUBD >= 0`).
pub const FIG3_RLBD: Quote = Quote {
    place: "Sec. 5.2, Fig. 3",
    text: "The RLBD of the initial x, x^(0), is -59.87; The RLBD of iteration 89, x^(89), is -0.17.",
};

/// Claim: mode changes.
pub const FIG3_CHANGES_MODES: Quote = Quote {
    place: "Sec. 5.2, Fig. 3 (b, c)",
    text: "It demonstrates that the GOP algorithm can change modes very easily without getting stuck in local optima.",
};

/// The data of Fig. 3.
pub const FIG3_DATA: Quote = Quote {
    place: "Sec. 5.2",
    text: "We ran our GOP algorithm using 64 processors on a synthetic data set which is randomly generated on the scale of one feature (M = 1), two subtypes (K = 2) and ten samples (N = 10).",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_rows_are_consistent_as_printed() {
        // The printed components add up to the printed total (to the last printed digit),
        // and the printed percentage is Dual / Total rounded.
        for r in &TABLE1 {
            let sum = r.primal + r.pre + r.uri + r.dual;
            assert!((sum - r.total).abs() <= 0.011, "{r:?}: components {sum}");
            let pct = 100.0 * r.dual / r.total;
            assert!((pct - r.dual_pct).abs() <= 1.0, "{r:?}: {pct}");
            // Never more relaxed duals than the 2^{KN} cells of KN cuts (Sec. 4).
            assert!(r.num <= 1 << (TABLE1_K * r.n));
        }
        assert_eq!(table1_row(80, 6).map(|r| r.total), Some(83.69));
        assert!(table1_row(10, 6).is_none());
    }
}
