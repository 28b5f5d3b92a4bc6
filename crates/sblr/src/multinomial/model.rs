//! The fitted multinomial model: prediction and its saved form.

use bl_core::data::{Element, MatrixDataset};
use bl_core::logistic::softmax_with_zero;
use faer::MatRef;

use super::MultinomialValidParams;
use crate::error::{Result, ensure_shape};
use crate::ova::argmax_rows;
use crate::params::Init;
use crate::passes::{Stacked, pool};
use crate::saved::{self, SavedModel};

saved::saved_model! {
    /// A fitted multinomial SBLR model; the last class is the zero-score reference.
    ///
    /// Serializes with serde ([`SavedModel::to_json`], [`SavedModel::save`]); deserializing,
    /// by any serde format, validates the model: `s, t, m >= 1`; `rank` in `1..=min(s, t)`
    /// and equal to `params.rank`; `m + 1` distinct class names; `u` of length `m s rank`,
    /// `v` of length `m t rank`, `intercepts` of length `m`, all finite; weights whose
    /// decision values on a sample with entries in `[-1, 1]` cannot overflow; a finite
    /// objective; valid parameters. So a loaded model never panics in `predict`.
    #[serde(try_from = "raw::RawFittedMultinomialSblr")]
    pub struct FittedMultinomialSblr from raw RawFittedMultinomialSblr {
        pub(super) s: usize,
        pub(super) t: usize,
        pub(super) rank: usize,
        pub(super) m: usize,
        pub(super) u: Vec<f64>,
        pub(super) v: Vec<f64>,
        pub(super) intercepts: Vec<f64>,
    }
    with pub(super) objective, report, class_names, params: MultinomialValidParams;
    /// The outer iterations: objective (31), `q^k`, and extras `loss`, `l_u`, `l_v`.
    fn report;
}

impl FittedMultinomialSblr {
    /// The load-time checks listed on [`FittedMultinomialSblr`].
    fn validate(&self) -> Result<()> {
        let name = <Self as SavedModel>::MODEL;
        let (s, t, r, m) = (self.s, self.t, self.rank, self.m);
        saved::positive(name, "m", m)?;
        saved::class_names(name, &self.class_names, m.checked_add(1))?;
        saved::bilinear_factors(name, (s, t, r), self.params.rank(), m, (&self.u, &self.v))?;
        saved::length(
            name,
            "intercepts",
            m,
            &format!("m = {m}, one per class but the reference"),
            self.intercepts.len(),
        )?;
        saved::finite(name, "intercepts", &self.intercepts)?;
        for c in 0..m {
            let (du, dv) = (s * r, t * r);
            saved::scores_bounded(
                name,
                "u, v, intercepts",
                saved::bilinear_bound(
                    &self.u[c * du..(c + 1) * du],
                    &self.v[c * dv..(c + 1) * dv],
                    s,
                    t,
                    self.intercepts[c],
                ),
            )?;
        }
        saved::finite_scalar(name, "objective", self.objective)?;
        Ok(())
    }

    /// `U_c` (`s x r`) of explicit class `c < n_classes() - 1`; `None` for the reference
    /// class or an index out of range.
    #[must_use]
    pub fn u(&self, c: usize) -> Option<MatRef<'_, f64>> {
        class_block(&self.u, c, self.s, self.rank)
    }
    /// `V_c` (`t x r`) of explicit class `c`; `None` for the reference class or an index
    /// out of range.
    #[must_use]
    pub fn v(&self, c: usize) -> Option<MatRef<'_, f64>> {
        class_block(&self.v, c, self.t, self.rank)
    }
    /// The shape `(s, t)` of the samples the model was fitted on.
    #[must_use]
    pub fn shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }
    /// The rank `r` of every class's factors.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// Intercepts `b_c` of the explicit classes.
    #[must_use]
    pub fn intercepts(&self) -> &[f64] {
        &self.intercepts
    }

    /// An [`Init::WarmMultinomial`] start at this model (e.g. along a regularization path).
    #[must_use]
    pub fn warm_start(&self) -> Init {
        Init::WarmMultinomial {
            u: self.u.clone(),
            v: self.v.clone(),
            intercepts: self.intercepts.clone(),
        }
    }
    /// Number of classes `m + 1`.
    #[must_use]
    pub fn n_classes(&self) -> usize {
        self.m + 1
    }
    /// Class names; the last is the reference class.
    #[must_use]
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// Objective at the returned point.
    #[must_use]
    pub fn objective(&self) -> f64 {
        self.objective
    }
    /// The hyperparameters.
    #[must_use]
    pub fn params(&self) -> &MultinomialValidParams {
        &self.params
    }

    /// Scores `f_ic` (0 for the reference class), `scores[i][c]`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (as `SblrError::Core`) for samples of another shape; [`bl_core::BlError::Numerical`] (as `SblrError::Core`)
    /// when a score overflows; [`bl_core::BlError::InvalidParameter`] (as
    /// `SblrError::Core`) when the products (`(classes - 1) rank t n` values) or the scores
    /// (`n classes`) exceed [`bl_core::limits::MAX_ELEMENTS`] or cannot be allocated.
    pub fn decision_function<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<Vec<f64>>> {
        let (s, t) = (self.s, self.t);
        ensure_shape("FittedMultinomialSblr: samples", (s, t), data.shape())?;
        let (r, m, n) = (self.rank, self.m, data.n_samples());
        let tr = t * r;
        // A loaded model with many classes can ask for far more than the data: checked
        // before anything is allocated.
        bl_core::limits::buffer_len(
            "FittedMultinomialSblr: n x classes",
            &[n, m.saturating_add(1)],
        )?;
        let mut p = bl_core::limits::try_zeroed(
            "FittedMultinomialSblr: (classes - 1) x rank x t x n",
            &[m, r, t, n],
        )?;
        Stacked::new(data.stacked(), s, t, n)?.u_times(&self.u, m * r, &mut p, &pool(None)?);
        let p = MatRef::from_column_major_slice(&p, m * r, t * n);
        let scores: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let mut row: Vec<f64> = (0..m)
                    .map(|c| {
                        let v =
                            MatRef::from_column_major_slice(&self.v[c * tr..(c + 1) * tr], t, r);
                        let mut f = self.intercepts[c];
                        for j in 0..t {
                            for k in 0..r {
                                f += p[(c * r + k, i * t + j)] * v[(j, k)];
                            }
                        }
                        f
                    })
                    .collect();
                row.push(0.0);
                row
            })
            .collect();
        for (i, row) in scores.iter().enumerate() {
            if let Some(&f) = row.iter().find(|f| !f.is_finite()) {
                return Err(saved::overflow(
                    "FittedMultinomialSblr::decision_function",
                    i,
                    f,
                ));
            }
        }
        Ok(scores)
    }

    /// Class probabilities `p[i][c]` (eq. (29)).
    ///
    /// # Errors
    /// As [`FittedMultinomialSblr::decision_function`].
    pub fn predict_proba<T: Element>(&self, data: &MatrixDataset<T>) -> Result<Vec<Vec<f64>>> {
        let m = self.m;
        self.decision_function(data)?
            .into_iter()
            .map(|row| {
                let mut p = vec![0.0; m + 1];
                let reference = softmax_with_zero(&row[..m], &mut p[..m])?;
                p[m] = reference;
                Ok(p)
            })
            .collect()
    }
}

predict_labels! {
    /// The most probable class of every sample.
    ///
    /// # Errors
    /// As [`FittedMultinomialSblr::decision_function`]; `targets` of another length than
    /// the data's samples.
    [] FittedMultinomialSblr;
    fn(&self, data, targets) {
        argmax_rows(&self.decision_function(data)?, targets)
    }
}

/// Block `c` of `rows x rank` column-major factors stored one class after the other.
fn class_block(values: &[f64], c: usize, rows: usize, rank: usize) -> Option<MatRef<'_, f64>> {
    let len = rows * rank;
    let block = values.get(c.checked_mul(len)?..c.checked_add(1)?.checked_mul(len)?)?;
    Some(MatRef::from_column_major_slice(block, rows, rank))
}

#[cfg(test)]
mod tests {
    use super::FittedMultinomialSblr;
    use crate::MultinomialSblr;

    /// Formats other than JSON can carry NaN and infinities: the checks catch them.
    #[test]
    fn non_finite_entries_are_rejected_by_name() {
        crate::saved::rejected_edits(
            &MultinomialSblr::params().max_iter(5),
            FittedMultinomialSblr::validate,
            &[
                ("u", &|m: &mut FittedMultinomialSblr| m.u[0] = f64::NAN),
                ("v", &|m: &mut FittedMultinomialSblr| {
                    m.v[2] = f64::NEG_INFINITY
                }),
                ("intercepts", &|m: &mut FittedMultinomialSblr| {
                    m.intercepts[0] = f64::NAN;
                }),
            ],
        );
    }
}
