//! The papers' own numbers and statements, each written once, with the place in the
//! paper where it is printed.
//!
//! One module per paper. A module holds small `const` tables of the numbers the paper
//! prints (tables, and numbers stated in the text about its figures) and the
//! qualitative statements it makes, as [`Quote`]s. Experiments read them from here and
//! show them beside our numbers; no experiment writes a paper number of its own.
//!
//! The papers (full references in `docs/reproduction.md`):
//!
//! - [`sblr`]: J. V. Shi, Y. Xu, R. G. Baraniuk, *Sparse bilinear logistic regression*
//!   (2014).
//! - [`bol`]: Y. Wu, S. Sun, *An online learning algorithm for bilinear models*, ICML 2015.
//! - [`bmp`]: S.-E. Chang, X. Zheng, I. E. H. Yen, P. Ravikumar, R. Yu, *Efficient tensor
//!   decomposition with Boolean factors*.
//! - [`gop`]: F. Zhang, C. Wang, A. C. Trapp, P. Flaherty, *A global optimization algorithm
//!   for sparse mixed membership matrix factorization*.

pub mod bmp;
pub mod bol;
pub mod gop;
pub mod sblr;

/// A statement from a paper's text, quoted word for word for a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quote {
    /// Where the paper prints it: section, table, figure, caption or footnote (no page
    /// numbers), e.g. `"Sec. 7.2, Table 1"`.
    pub place: &'static str,
    /// The paper's words (an ellipsis, `...` or `[...]`, marks an omission).
    pub text: &'static str,
}

impl Quote {
    /// The quote as a markdown block quote line: `> "text" (place)`.
    pub fn markdown(&self) -> String {
        format!("> \"{}\" ({})", self.text, self.place)
    }

    /// The quote as a claim's statement: `"text" (place)`.
    pub fn claim_text(&self) -> String {
        format!("\"{}\" ({})", self.text, self.place)
    }
}
