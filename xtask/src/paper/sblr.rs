//! J. V. Shi, Y. Xu, R. G. Baraniuk, *Sparse bilinear logistic regression*, arXiv:1404.4104
//! (2014): the numbers it prints and the statements our experiments check.
//!
//! Section numbers are those of the arXiv version with the full mathematics (Sec. 7
//! "Numerical Results", Sec. 8 "Applications"); the shorter journal-style version numbers
//! the same sections 5 and 6. Formulas inside quotes are transcribed in plain text
//! (`μ1` for `\mu_1`, `||.||_F` for the Frobenius norm). See `docs/papers/sblr.md` for the
//! settings taken from the text and the data substitutions.

use super::Quote;

/// Penalties `(mu1, mu2, nu1, nu2)` of eq. (5).
pub type Penalties = (f64, f64, f64, f64);

// ---------------------------------------------------------------------------------------
// Settings stated in the text.
// ---------------------------------------------------------------------------------------

/// Sec. 7.1: "the algorithms were terminated if they ran over 500 iterations".
pub const MAX_ITER: usize = 500;
/// Sec. 7.1: "... or the relative error q^k <= 10^-3" (`q^k` of eq. (8)).
pub const TOL: f64 = 1e-3;

/// Sec. 7.2: "The sample size was fixed to n = 100".
pub const TABLE1_N: usize = 100;
/// Sec. 7.2: "s = t with s varying among {50, 100, 250, 500, 750, 1000}".
pub const TABLE1_SIZES: [usize; 6] = [50, 100, 250, 500, 750, 1000];
/// Sec. 7.2: "We ran each algorithm with one set of parameters for 5 times with different
/// random data."
pub const TABLE1_RUNS: usize = 5;
/// Sec. 7.2 and Table 1: the two parameter sets, in the table's order: set 1
/// "μ1 = ν1 = 0.1, μ2 = ν2 = 1" (l2 dominates), set 2 "μ1 = ν1 = 0.1, μ2 = ν2 = 0"
/// (l1 dominates).
pub const TABLE1_SETS: [Penalties; 2] = [(0.1, 1.0, 0.1, 1.0), (0.1, 0.0, 0.1, 0.0)];

/// Sec. 7.3 (Fig. 3): "600 iterations for the unregularized model".
pub const FIG3_ITERS_UNREGULARIZED: usize = 600;
/// Sec. 7.3 (Fig. 3): "10^4 iterations for the regularized model".
pub const FIG3_ITERS_REGULARIZED: usize = 10_000;
/// Sec. 7.3 (Fig. 3): "μ1 = ν1 = 0.01 and μ2 = ν2 = 0.5".
pub const FIG3_PENALTIES: Penalties = (0.01, 0.5, 0.01, 0.5);
/// Sec. 7.3 (Fig. 3): "For both models, r = 1 was used."
pub const FIG3_RANK: usize = 1;

/// Sec. 8.1.1: the penalty grid has "6 × 5 × 6 × 5" points: 6 values of `mu1` and `nu1`,
/// 5 of `mu2` and `nu2` (the values themselves are not printed).
pub const GRID_SHAPE: [usize; 4] = [6, 5, 6, 5];

// ---------------------------------------------------------------------------------------
// Table 1 (Sec. 7.2).
// ---------------------------------------------------------------------------------------

/// One row of Table 1: average running time (seconds) and median number of iterations of
/// Algorithm 1 and Algorithm 2 at `s = t = size`, as printed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table1Row {
    /// `s = t`.
    pub size: usize,
    /// Algorithm 1, average time (sec.).
    pub alg1_time_s: f64,
    /// Algorithm 1, median iterations.
    pub alg1_iter: f64,
    /// Algorithm 2, average time (sec.).
    pub alg2_time_s: f64,
    /// Algorithm 2, median iterations.
    pub alg2_iter: f64,
}

/// Table 1, "Scalability and comparison of Algorithm 1 and Algorithm 2. Shown are the
/// average running time and median number of iterations.", one line per `s = t` in the
/// printed order: the size, then for each of its two blocks (the parameter sets of
/// [`TABLE1_SETS`]) Algorithm 1's average time (sec.) and median iterations, then
/// Algorithm 2's.
const TABLE1: [(usize, [[f64; 4]; 2]); 6] = [
    (50, [[0.79, 5.0, 0.03, 9.0], [6.87, 17.0, 0.37, 282.0]]),
    (100, [[1.13, 6.0, 0.06, 11.0], [14.39, 29.0, 0.38, 47.0]]),
    (250, [[3.89, 6.0, 0.56, 31.0], [21.73, 8.0, 3.49, 28.0]]),
    (500, [[9.96, 5.0, 1.80, 4.0], [78.32, 7.0, 4.07, 11.0]]),
    (750, [[18.60, 7.0, 4.04, 4.0], [129.23, 8.0, 4.31, 4.0]]),
    (1000, [[16.25, 3.0, 7.92, 4.0], [218.49, 9.0, 8.19, 4.0]]),
];

/// The printed row of parameter set `set` (0 or 1) at `s = t = size`, if the paper has one.
#[must_use]
pub fn table1_row(set: usize, size: usize) -> Option<Table1Row> {
    let (_, blocks) = TABLE1.iter().find(|(s, _)| *s == size)?;
    let [alg1_time_s, alg1_iter, alg2_time_s, alg2_iter] = *blocks.get(set)?;
    Some(Table1Row {
        size,
        alg1_time_s,
        alg1_iter,
        alg2_time_s,
        alg2_iter,
    })
}

/// The rows of parameter set `set` (0 or 1) in the printed order (none for another set).
pub fn table1_block(set: usize) -> impl Iterator<Item = Table1Row> {
    TABLE1
        .iter()
        .filter_map(move |&(size, _)| table1_row(set, size))
}

/// Total Algorithm 1 time over total Algorithm 2 time of a Table 1 block: the speed-up
/// over all six sizes (3.51 in set 1, 22.5 in set 2).
#[must_use]
pub fn table1_total_speedup(set: usize) -> f64 {
    table1_block(set).map(|r| r.alg1_time_s).sum::<f64>()
        / table1_block(set).map(|r| r.alg2_time_s).sum::<f64>()
}

// ---------------------------------------------------------------------------------------
// Tables 2-5 (Sec. 8): prediction accuracy of the four models.
// ---------------------------------------------------------------------------------------

/// The four accuracies each of Tables 2-5 prints ("Prediction Accuracy").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accuracies {
    /// Logistic Regression.
    pub lr: f64,
    /// Sparse Logistic Regression.
    pub sparse_lr: f64,
    /// Bilinear Logistic Regression.
    pub blr: f64,
    /// Sparse Bilinear Logistic Regression.
    pub sblr: f64,
}

impl Accuracies {
    const fn new(lr: f64, sparse_lr: f64, blr: f64, sblr: f64) -> Self {
        Self {
            lr,
            sparse_lr,
            blr,
            sblr,
        }
    }

    /// In the tables' row order: LR, sparse LR, BLR, SBLR.
    #[must_use]
    pub fn in_order(&self) -> [f64; 4] {
        [self.lr, self.sparse_lr, self.blr, self.sblr]
    }
}

/// Table 2, "Classification performance for BCI EEG dataset." (Sec. 8.1.1; BCI
/// competition III data set IVb, 118 channels x 100 time slices, binary).
pub const TABLE2: Accuracies = Accuracies::new(0.75, 0.76, 0.84, 0.89);

/// Table 3, "Classification performance for multi-class EEG dataset." (Sec. 8.1.2; 64
/// channels downsampled to 100 Hz, three image categories, one-vs-all).
pub const TABLE3: Accuracies = Accuracies::new(0.54, 0.54, 0.55, 0.65);

/// Table 4, "Classification performance for images with various camera viewpoints."
/// (Sec. 8.2; Amsterdam Library of Object Images, 72 viewpoints).
pub const TABLE4: Accuracies = Accuracies::new(0.86, 0.86, 0.94, 1.00);

/// Table 5, "Classification performance for UCF sports action video dataset." (Sec. 8.3;
/// SIFT histograms, s = 400, t = 55, five classes, 6 videos each, 6-fold CV).
pub const TABLE5: Accuracies = Accuracies::new(0.70, 0.70, 0.73, 0.77);

// ---------------------------------------------------------------------------------------
// Statements.
// ---------------------------------------------------------------------------------------

/// The stopping rule used throughout Sec. 7.
pub const STOPPING: Quote = Quote {
    place: "Sec. 7.1",
    text: "Unless specified, the algorithms were terminated if they ran over 500 iterations \
           or the relative error q^k ≤ 10^-3.",
};

/// The starting point used throughout.
pub const INIT: Quote = Quote {
    place: "Sec. 7.1",
    text: "Throughout our tests, we simply set b^0 = 0 and chose (U^0, V^0) as follows. Let \
           X^av = (1/n) Σ_i X_i. Then set U^0 to the negative of the first r left singular \
           vectors and V^0 to the first r right singular vectors of X^av corresponding to its \
           first r largest singular values.",
};

/// The data and protocol of Table 1.
pub const TABLE1_SETUP: Quote = Quote {
    place: "Sec. 7.2",
    text: "Each data point in class “+1” was generated by MATLAB command randn(s,t)+1 and \
           each one in class “-1” by randn(s,t)-1. The sample size was fixed to n = 100, and \
           the dimensions were kept by s = t with s varying among {50, 100, 250, 500, 750, \
           1000}. We tested two sets of parameters for the scalability test. We ran each \
           algorithm with one set of parameters for 5 times with different random data.",
};

/// Table 1: both algorithms converge within the tolerance.
pub const TABLE1_CONVERGE: Quote = Quote {
    place: "Sec. 7.2, Table 1",
    text: "both Algorithm 1 and Algorithm 2 are scalable to large-scale dataset and converge \
           within the given tolerance after quite a few iterations.",
};

/// Table 1: per-iteration time against data size.
pub const TABLE1_LINEAR: Quote = Quote {
    place: "Sec. 7.2, Table 1",
    text: "The per-iteration running time increases almost linearly with respect to the data \
           size.",
};

/// Table 1: Algorithm 2 is faster.
pub const TABLE1_FASTER: Quote = Quote {
    place: "Sec. 7.2, Table 1",
    text: "In addition, Algorithm 2 is much faster than Algorithm 1 in terms of running time.",
};

/// Table 1: the speed-up depends on the parameters (larger when l1 dominates, by the two
/// sentences that follow it).
pub const TABLE1_DEPENDS: Quote = Quote {
    place: "Sec. 7.2, Table 1",
    text: "Note the degree of speedup depends on the parameters.",
};

/// Table 1, set 1.
pub const TABLE1_SET1: Quote = Quote {
    place: "Sec. 7.2, Table 1",
    text: "In the first testing, where ℓ2 regularization dominates (μ1 = ν1 = 0.1, μ2 = ν2 = \
           1), Algorithm 2 is twice as fast as Algorithm 1.",
};

/// Table 1, set 2.
pub const TABLE1_SET2: Quote = Quote {
    place: "Sec. 7.2, Table 1",
    text: "In the second testing, where ℓ1 regularization dominates (μ1 = ν1 = 0.1, μ2 = ν2 = \
           0), Algorithm 2 is about 20 times faster than Algorithm 1.",
};

/// Fig. 3's setting.
pub const FIG3_SETUP: Quote = Quote {
    place: "Sec. 7.3, Fig. 3",
    text: "We ran Algorithm 2 up to 600 iterations for the unregularized model (μ1 = ν1 = μ2 = \
           ν2 = 0), and 10^4 iterations for the regularized model where we set μ1 = ν1 = 0.01 \
           and μ2 = ν2 = 0.5. For both models, r = 1 was used. The last iterate was used as \
           W*. The dataset is described in Section 6.1.1.",
};

/// Fig. 3: fast convergence.
pub const FIG3_FAST: Quote = Quote {
    place: "Sec. 7.3, Fig. 3",
    text: "From the figure, we see that our algorithm converges pretty fast",
};

/// Fig. 3: the rate of `||W^k - W*||_F`.
pub const FIG3_RATE: Quote = Quote {
    place: "Sec. 7.3, Fig. 3",
    text: "the difference ||W^k − W*||_F appears to decrease linearly at first and \
           superlinearly eventually.",
};

/// Remark 4.3 on the asymptotic rate seen in Sec. 7.
pub const REMARK_4_3: Quote = Quote {
    place: "Remark 4.3",
    text: "our numerical results in Section 7 indicate that our algorithm converges \
           asymptotically superlinearly",
};

/// The model-selection protocol of Table 2.
pub const PROTOCOL: Quote = Quote {
    place: "Sec. 8.1.1",
    text: "Leave-one-out cross validation was performed on the training dataset to tune these \
           data. First, we fixed μ1 = μ2 = ν1 = ν2 = 0 (i.e., unregularized) and tuned r. \
           Then, we fixed r to the previously tuned one (r = 1 in this test) and selected the \
           best (μ1, μ2, ν1, ν2) from a 6 × 5 × 6 × 5 grid.",
};

/// Sparse logistic regression is solved by FISTA.
pub const SPARSE_LR_SOLVER: Quote = Quote {
    place: "Sec. 8.1.1",
    text: "We solve the ℓ1-regularized logistic regression using FISTA [16].",
};

/// Table 2: BLR against LR.
pub const TABLE2_BLR_LR: Quote = Quote {
    place: "Sec. 8.1.1, Table 2",
    text: "We observe that bilinear logistic regression gives much better predictions than \
           logistic regression.",
};

/// Table 2: SBLR against BLR.
pub const TABLE2_SBLR_BLR: Quote = Quote {
    place: "Sec. 8.1.1, Table 2",
    text: "In addition, sparse bilinear logistic regression performs better than the \
           unregularized bilinear logistic regression.",
};

/// Multi-class by one-vs-all (Table 3).
pub const ONE_VS_ALL: Quote = Quote {
    place: "Sec. 8.1.2",
    text: "We further extended our sparse bilinear logistic regression to the multi-class case \
           using one-vs-all method.",
};

/// Table 3's statement, first half (BLR against LR).
pub const TABLE3_BLR_LR: Quote = Quote {
    place: "Sec. 8.1.2, Table 3",
    text: "Consistently for all the three stimuli, bilinear logistic regression outperforms \
           logistic regression, [...]",
};

/// Table 3's statement, second half (SBLR against BLR).
pub const TABLE3_SBLR_BLR: Quote = Quote {
    place: "Sec. 8.1.2, Table 3",
    text: "[...] and sparse bilinear logistic regression further improves the \
           generalization performance by introducing sparsity.",
};

/// Table 4's statement, first half (the bilinear model against LR).
pub const TABLE4_BILINEAR: Quote = Quote {
    place: "Sec. 8.2, Table 4",
    text: "We observe a significant improvement using the bilinear model, [...]",
};

/// Table 4's statement, second half (SBLR the best of the four).
pub const TABLE4_BEST: Quote = Quote {
    place: "Sec. 8.2, Table 4",
    text: "[...] and sparse bilinear logistic regression achieves the best generalization \
           performance.",
};

/// Table 5's protocol.
pub const TABLE5_PROTOCOL: Quote = Quote {
    place: "Sec. 8.3",
    text: "We picked 6 videos out of each class, and used 6-fold cross validation to test \
           discrimination accuracy in the context of transfer learning.",
};

/// Table 5's statement.
pub const TABLE5_CLAIM: Quote = Quote {
    place: "Sec. 8.3, Table 5",
    text: "In overall, sparse bilinear logistic regression achieves the best classification \
           performance.",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_is_complete_and_ordered() {
        for set in 0..TABLE1_SETS.len() {
            let block: Vec<Table1Row> = table1_block(set).collect();
            let sizes: Vec<usize> = block.iter().map(|r| r.size).collect();
            assert_eq!(sizes, TABLE1_SIZES);
            assert!(
                block
                    .iter()
                    .all(|r| r.alg1_time_s > 0.0 && r.alg2_time_s > 0.0)
            );
        }
        assert_eq!(table1_block(2).count(), 0);
        assert_eq!(table1_row(0, 1000).map(|r| r.alg2_time_s), Some(7.92));
        assert_eq!(table1_row(1, 50).map(|r| r.alg2_iter), Some(282.0));
        assert_eq!(table1_row(0, 20), None);
        // The totals behind "twice as fast" and "about 20 times faster".
        assert!((table1_total_speedup(0) - 50.62 / 14.41).abs() < 1e-12);
        assert!((table1_total_speedup(1) - 469.03 / 20.81).abs() < 1e-12);
    }

    #[test]
    fn accuracy_tables_as_printed() {
        assert_eq!(TABLE2.in_order(), [0.75, 0.76, 0.84, 0.89]);
        assert_eq!(TABLE3.in_order(), [0.54, 0.54, 0.55, 0.65]);
        assert_eq!(TABLE4.in_order(), [0.86, 0.86, 0.94, 1.00]);
        assert_eq!(TABLE5.in_order(), [0.70, 0.70, 0.73, 0.77]);
        assert_eq!(GRID_SHAPE.iter().product::<usize>(), 900);
    }
}
