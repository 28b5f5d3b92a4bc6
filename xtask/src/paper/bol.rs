//! Y. Wu and S. Sun, *An Online Learning Algorithm for Bilinear Models*, ICML 2015: the
//! numbers the paper prints and the statements the experiments `bol-table1` and
//! `bol-fig1..3` check. Places are the paper's sections, tables, figures and footnotes (the
//! text has no page numbers to cite). What each item means for our runs (data sets, units,
//! readings) is in `docs/papers/bol.md`.

use super::Quote;

/// The four SIGHAN 2005 bakeoff data sets of Table 1's F1 columns, in the paper's order.
pub const TABLE1_DATA_SETS: [&str; 4] = ["pku", "msr", "cityu", "as"];

/// One row of Table 1 as printed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table1Row {
    /// The model's name in the paper (`bol`, `bcd`, `sp`, `crf2`, `crf1`).
    pub model: &'static str,
    /// Word F1 in percent on pku, msr, cityu and as ([`TABLE1_DATA_SETS`]).
    pub f1: [f64; 4],
    /// The "Training Time ×10^3 s" column: thousands of seconds, measured on the `as` data
    /// set ([`TABLE1_TIME_DATA_SET`]), not on pku.
    pub train_time_ks: f64,
}

impl Table1Row {
    const fn new(model: &'static str, f1: [f64; 4], train_time_ks: f64) -> Self {
        Self {
            model,
            f1,
            train_time_ks,
        }
    }
}

/// Table 1 ("Comparison with batch learners"), rows in the paper's order.
pub const TABLE1: [Table1Row; 5] = [
    Table1Row::new("bol", [94.6, 96.5, 94.0, 94.3], 2.4),
    Table1Row::new("bcd", [94.4, 96.3, 93.9, 94.2], 2.4),
    Table1Row::new("sp", [94.3, 96.7, 94.1, 94.2], 1.5),
    Table1Row::new("crf2", [93.3, 96.5, 94.2, 94.6], 9.8),
    Table1Row::new("crf1", [92.5, 96.1, 93.5, 95.0], 8.3),
];

/// The unit of Table 1's time column, as its header prints it ("Training Time ×10^3 s"):
/// thousands of seconds.
pub const TABLE1_TIME_UNIT: &str = "10^3 s";

/// The data set Table 1's training times were measured on (see [`TABLE1_TIME_WHERE`]).
pub const TABLE1_TIME_DATA_SET: &str = "as";

/// Table 1's row for `model`, if the paper prints one.
pub fn table1_row(model: &str) -> Option<&'static Table1Row> {
    TABLE1.iter().find(|r| r.model == model)
}

/// Table 1's caption: which CRF is which.
pub const TABLE1_CAPTION: Quote = Quote {
    place: "Table 1, caption",
    text: "\u{201c}crf2\u{201d} is the CRF with L2 regularization, and \u{201c}crf1\u{201d} is \
           the CRF with L1 regularization.",
};

/// Where Table 1's time column comes from.
pub const TABLE1_TIME_WHERE: Quote = Quote {
    place: "Sec. 6.1",
    text: "We also lists the training time on data set as (other data sets are similar).",
};

/// The accuracy statement about Table 1.
pub const TABLE1_ACCURACY: Quote = Quote {
    place: "Sec. 6.1",
    text: "It shows that \u{201c}bol\u{201d} is competitive to \u{201c}crf2\u{201d} on pku and \
           msr, and outperforms \u{201c}crf1\u{201d} on pku, msr and cityu.",
};

/// The first half of [`TABLE1_ACCURACY`].
pub const TABLE1_VS_CRF2: Quote = Quote {
    place: "Sec. 6.1",
    text: "\u{201c}bol\u{201d} is competitive to \u{201c}crf2\u{201d} on pku and msr",
};

/// The second half of [`TABLE1_ACCURACY`].
pub const TABLE1_VS_CRF1: Quote = Quote {
    place: "Sec. 6.1",
    text: "\u{201c}bol\u{201d} ... outperforms \u{201c}crf1\u{201d} on pku, msr and cityu",
};

/// The training-time statement about Table 1.
pub const TABLE1_TIME: Quote = Quote {
    place: "Sec. 6.1",
    text: "But the CRFs need more time for training (Figure 2).",
};

/// The CWS data.
pub const CWS_DATA: Quote = Quote {
    place: "Sec. 6.1",
    text: "The data set is from the second SIGHAN Backoff (Emerson, 2005).",
};

/// The CWS feature templates.
pub const CWS_TEMPLATES: Quote = Quote {
    place: "Sec. 6.1",
    text: "Given the current position i, the templates are words at i-2, i-1, i, i+1, i+2 and \
           bigrams of them. All of them are 1st order features, and we don\u{2019}t average the \
           model parameters.",
};

/// The parameter count of the bilinear model against the linear one.
pub const CWS_FEATURE_COUNT: Quote = Quote {
    place: "Sec. 6.1",
    text: "Thus, feature numbers of the bilinear model (10^7) are only 50% of the linear model.",
};

/// The paper's ratio of bilinear to linear parameters for the BIES tag set (`2|S|K` against
/// `|S|^2 K` with `|S| = 4`, Sec. 3.3 and 6.1).
pub const CWS_BILINEAR_OVER_LINEAR: f64 = 0.5;

/// The order of magnitude of the bilinear model's parameter count on the CWS data (Sec. 6.1).
pub const CWS_BILINEAR_PARAMETERS: f64 = 1e7;

/// The learners' settings.
pub const SETTINGS: Quote = Quote {
    place: "Sec. 6.1",
    text: "\u{201c}bol\u{201d} which is the proposed method with T = 20, C = 1, R = 4, \
           \u{201c}bcd\u{201d} which is the blockwise coordinate descent with SVM solver in \
           Shalev-Shwartz & Singer (2006) (C = 1). We also compare state-of-the-art online \
           linear model \u{201c}sp\u{201d} which is the structured perceptron with T = 20, \
           learning rate C = 1",
};

/// Where the settings come from.
pub const SETTINGS_SOURCE: Quote = Quote {
    place: "Sec. 6.1, footnote 5",
    text: "T and C are from Sun (2010), and the value R is selected on a dev set (10% of the \
           pku training set).",
};

/// `T`, the epochs of bol and sp (Sec. 6.1).
pub const T: usize = 20;
/// `C`, the step of bol and sp and the SVM constant of bcd (Sec. 6.1).
pub const C: f64 = 1.0;
/// `R`, bol's power iterations per update (Sec. 6.1).
pub const R: usize = 4;

/// The convergence of the power iteration.
pub const POWER_ITERATION: Quote = Quote {
    place: "Sec. 6.1",
    text: "For the power iteration, we examined its convergence by sampling at different \
           rounds on the dev set. The conclusion is that a small R (\u{2264} 4) is sufficient \
           to converge.",
};

/// Figure 1's caption: the layout of the plot.
pub const FIG1_CAPTION: Quote = Quote {
    place: "Figure 1, caption",
    text: "Performances on word segmentation. x-axis is the proportion of training set. The \
           horizontal line y = 0 is the average F1 value among algorithms, and y-axis is the \
           offset against average.",
};

/// The main statement about Figure 1.
pub const FIG1_BEST: Quote = Quote {
    place: "Sec. 6.1",
    text: "In general, our method is the best on pku, cityu, and as.",
};

/// The statement about small training sets in Figure 1.
pub const FIG1_SMALL: Quote = Quote {
    place: "Sec. 6.1",
    text: "Especially, when the training set is small, the advantage of \u{201c}bol\u{201d} is \
           more obvious.",
};

/// What "better" means in the statements about Figures 1 and 3.
pub const FIG1_BETTER: Quote = Quote {
    place: "Sec. 6.1, footnote 6",
    text: "We define that one method is better than another if it is better on 8 points (out \
           of 10) at least.",
};

/// The number of training proportions of Figures 1 and 3 (footnote 6).
pub const FIG_POINTS: usize = 10;

/// A method is better than another if it is better on at least this many of the
/// [`FIG_POINTS`] points (footnote 6).
pub const BETTER_ON_AT_LEAST: usize = 8;

/// Figure 2's caption and its claims.
pub const FIG2_CAPTION: Quote = Quote {
    place: "Figure 2, caption",
    text: "Convergence speeds on the pku data set. x-axis is the number of iterations, y-axis \
           is the label error rate. \u{201c}bol\u{201d} converges much faster than CRFs, and it \
           is slightly slower than \u{201c}sp\u{201d}.",
};

/// The first claim of Figure 2's caption.
pub const FIG2_VS_CRF: Quote = Quote {
    place: "Figure 2, caption",
    text: "\u{201c}bol\u{201d} converges much faster than CRFs",
};

/// The second claim of Figure 2's caption.
pub const FIG2_VS_SP: Quote = Quote {
    place: "Figure 2, caption",
    text: "it is slightly slower than \u{201c}sp\u{201d}",
};

/// The chunking setting of Figure 3.
pub const FIG3_SETTING: Quote = Quote {
    place: "Sec. 6.2",
    text: "We conduct experiments on the CoNLL Shared-task 2000 (Sang & Buchholz, 2000). \
           Different from the word segmentation task, in order to show the extendability of \
           our model and algorithm, we include both the 1 order and the 0 order features, and \
           average the parameters.",
};

/// The chunking tag set.
pub const FIG3_TAGS: Quote = Quote {
    place: "Sec. 6.2",
    text: "The tag set size is 23 (e.g., B-NP, I-NP, B-VP, I-VP).",
};

/// The size of the CoNLL-2000 chunk tag set (Sec. 6.2).
pub const FIG3_TAG_SET_SIZE: usize = 23;

/// The statement about Figure 3, whole.
pub const FIG3_STATEMENT: Quote = Quote {
    place: "Sec. 6.2",
    text: "The results (Figure 3) are similar to the task of word segmentation in general, \
           which means that the two extensions to the basic bilinear model are effective.",
};

/// The first half of [`FIG3_STATEMENT`]: chunking behaves like segmentation (Figure 1).
pub const FIG3_SIMILAR: Quote = Quote {
    place: "Sec. 6.2",
    text: "The results (Figure 3) are similar to the task of word segmentation in general",
};

/// The conclusion the paper draws from Figure 3 about the Sec. 4.3 extensions.
pub const FIG3_EXTENSIONS: Quote = Quote {
    place: "Sec. 6.2",
    text: "which means that the two extensions to the basic bilinear model are effective",
};

/// Figure 3's caption.
pub const FIG3_CAPTION: Quote = Quote {
    place: "Figure 3, caption",
    text: "Performances on chunking. x-axis represents the proportion of training set. y-axis \
           is the F1-value.",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_is_complete_and_in_the_paper_order() {
        let names: Vec<&str> = TABLE1.iter().map(|r| r.model).collect();
        assert_eq!(names, ["bol", "bcd", "sp", "crf2", "crf1"]);
        for r in &TABLE1 {
            assert!(r.f1.iter().all(|f| (90.0..100.0).contains(f)), "{r:?}");
            assert!(r.train_time_ks > 0.0);
        }
        assert_eq!(table1_row("bol").map(|r| r.f1[0]), Some(94.6));
        assert_eq!(table1_row("crf2").map(|r| r.train_time_ks), Some(9.8));
        assert!(table1_row("CRF-L2").is_none());
    }
}
