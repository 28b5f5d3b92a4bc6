//! Forward-backward on a linear chain: `log Z`, marginals per position and per edge.
//!
//! For `n` positions with state scores `s_t(y)` and transition weights `T[y', y]`, the
//! score of a path is `sum_t s_t(y_t) + sum_{t >= 1} T[y_{t-1}, y_t]` (CRFsuite's `crf1d`:
//! no start or end transitions) and `Z = sum_y exp score(y)`. The recursions run on
//! `exp(s_t(y) - m_t)` (shifted by the row maximum `m_t`) and `exp(T - max T)`, with one
//! normalizer `c_t` per position, so nothing overflows; `log Z` is the sum of the `log c_t`,
//! the shifts and `(n - 1) max T`.

use bl_core::error::build::{invalid, shape_mismatch};

use crate::viterbi::check_chain;

/// `exp(T[b, a] - max T)` and `max T` of transition weights (`L x L`).
pub fn exp_transitions(trans: &[f64]) -> (Vec<f64>, f64) {
    let mut out = vec![0.0; trans.len()];
    let mt = exp_transitions_into(trans, &mut out);
    (out, mt)
}

/// [`exp_transitions`] into `out` (of the length of `trans`, reused by the trainers from
/// one evaluation to the next); returns `max T` (0 when it is not finite).
pub fn exp_transitions_into(trans: &[f64], out: &mut [f64]) -> f64 {
    let mt = trans.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
    let mt = if mt.is_finite() { mt } else { 0.0 };
    for (e, &v) in out.iter_mut().zip(trans) {
        *e = (v - mt).exp();
    }
    mt
}

/// Reusable buffers of forward-backward over one sequence.
#[derive(Debug, Clone, Default)]
pub struct Lattice {
    /// `exp(s_t(y) - m_t)`: `n x L`.
    psi: Vec<f64>,
    /// Scaled forward variables: `n x L`.
    alpha: Vec<f64>,
    /// Scaled backward variables: `n x L`.
    beta: Vec<f64>,
    /// Normalizers `c_t`.
    scale: Vec<f64>,
    /// Scratch of length `L` (reused, so a run allocates nothing once the buffers fit).
    tmp: Vec<f64>,
    l: usize,
}

impl Lattice {
    /// Runs forward-backward on the state scores `state` (`n x L`, taken over as the
    /// lattice's buffer and returned by [`take_buffer`](Self::take_buffer)) with the
    /// transitions `(exp_trans, mt)` of [`exp_transitions`] (`L x L`); returns `log Z`
    /// (0 when `n = 0`).
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `exp_trans`
    /// does not have `L * L` entries or the length of `state` is not a multiple of `L`
    /// (with `L = 0`, when `state` is not empty); checked first, the lattice is then left
    /// as it was.
    #[inline]
    pub fn forward_backward(
        &mut self,
        state: Vec<f64>,
        l: usize,
        exp_trans: &[f64],
        mt: f64,
    ) -> crate::Result<f64> {
        check_chain(
            (
                "Lattice::forward_backward: state (n x L)",
                "Lattice::forward_backward: exp_trans (L x L)",
            ),
            state.len(),
            l,
            exp_trans.len(),
        )?;
        Ok(self.forward_backward_unchecked(state, l, exp_trans, mt))
    }

    /// [`forward_backward`](Self::forward_backward) on tables known to have their shapes
    /// (the trainers' and the model's).
    #[inline(always)]
    pub(crate) fn forward_backward_unchecked(
        &mut self,
        mut state: Vec<f64>,
        l: usize,
        exp_trans: &[f64],
        mt: f64,
    ) -> f64 {
        self.l = l;
        let n = state.len().checked_div(l).unwrap_or(0);
        self.scale.clear();
        self.scale.resize(n, 0.0);
        if n == 0 {
            self.psi = state;
            return 0.0;
        }
        let mut shifts = 0.0;
        for row in state.chunks_exact_mut(l) {
            let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
            for v in row.iter_mut() {
                *v = (*v - m).exp();
            }
            shifts += m;
        }
        self.psi = state;
        self.alpha.clear();
        self.alpha.resize(n * l, 0.0);
        self.beta.clear();
        self.beta.resize(n * l, 0.0);
        // Forward.
        let c: f64 = self.psi[..l].iter().sum();
        self.scale[0] = c;
        for a in 0..l {
            self.alpha[a] = self.psi[a] / c;
        }
        for t in 1..n {
            let (prev, cur) = self.alpha.split_at_mut(t * l);
            let prev = &prev[(t - 1) * l..];
            let cur = &mut cur[..l];
            cur.fill(0.0);
            for b in 0..l {
                let p = prev[b];
                let row = &exp_trans[b * l..(b + 1) * l];
                for a in 0..l {
                    cur[a] += p * row[a];
                }
            }
            let mut c = 0.0;
            for a in 0..l {
                cur[a] *= self.psi[t * l + a];
                c += cur[a];
            }
            self.scale[t] = c;
            let inv = 1.0 / c;
            for v in cur.iter_mut() {
                *v *= inv;
            }
        }
        // Backward.
        self.beta[(n - 1) * l..].fill(1.0);
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        tmp.resize(l, 0.0);
        for t in (0..n - 1).rev() {
            let (cur, next) = self.beta.split_at_mut((t + 1) * l);
            let cur = &mut cur[t * l..];
            let inv = 1.0 / self.scale[t + 1];
            for a in 0..l {
                tmp[a] = self.psi[(t + 1) * l + a] * next[a] * inv;
            }
            for b in 0..l {
                cur[b] = dot(&exp_trans[b * l..(b + 1) * l], &tmp);
            }
        }
        self.tmp = tmp;
        let log_scales: f64 = self.scale.iter().map(|c| c.ln()).sum();
        log_scales + shifts + (n - 1) as f64 * mt
    }

    /// Number of positions of the last run.
    pub fn len(&self) -> usize {
        self.scale.len()
    }

    /// Whether the last run had no position.
    pub fn is_empty(&self) -> bool {
        self.scale.is_empty()
    }

    /// `Ok` when position `t` is below `len` and the labels `labels` are below `L`.
    fn check_position(&self, t: usize, first: usize, labels: &[usize]) -> crate::Result<()> {
        if t < first || t >= self.len() {
            return Err(invalid(
                "t (position)",
                t,
                format!("in {first}..{} (the positions of the last run)", self.len()),
            ));
        }
        if let Some(&y) = labels.iter().find(|&&y| y >= self.l) {
            return Err(invalid(
                "label",
                y,
                format!("< L = {} (the labels of the last run)", self.l),
            ));
        }
        Ok(())
    }

    /// `Ok` when `table` has `L x L` entries.
    fn check_square(&self, context: &'static str, table: &[f64]) -> crate::Result<()> {
        let l = self.l;
        if l.checked_mul(l) == Some(table.len()) {
            Ok(())
        } else {
            Err(shape_mismatch(context, format!("{l} x {l}"), table.len()))
        }
    }

    /// `p(y_t = a | x)`.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::CrfError::Core`]) when `t` is
    /// not a position of the last run (`t >= len()`) or `a >= L`.
    #[inline]
    pub fn state_marginal(&self, t: usize, a: usize) -> crate::Result<f64> {
        self.check_position(t, 0, &[a])?;
        Ok(self.state_marginal_unchecked(t, a))
    }

    /// [`state_marginal`](Self::state_marginal) for `t`, `a` known to be in range.
    #[inline]
    pub(crate) fn state_marginal_unchecked(&self, t: usize, a: usize) -> f64 {
        self.alpha[t * self.l + a] * self.beta[t * self.l + a]
    }

    /// `p(y_{t-1} = b, y_t = a | x)` for `t >= 1` (`exp_trans` as given to the run).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::CrfError::Core`]) when `t` is
    /// not in `1..len()` or `b` or `a` is `>= L`; [`bl_core::BlError::ShapeMismatch`] when
    /// `exp_trans` does not have `L * L` entries.
    #[inline]
    pub fn edge_marginal(
        &self,
        t: usize,
        b: usize,
        a: usize,
        exp_trans: &[f64],
    ) -> crate::Result<f64> {
        self.check_position(t, 1, &[b, a])?;
        self.check_square("Lattice::edge_marginal: exp_trans (L x L)", exp_trans)?;
        Ok(self.edge_marginal_unchecked(t, b, a, exp_trans))
    }

    /// [`edge_marginal`](Self::edge_marginal) for `t`, `b`, `a` in range and an `L x L`
    /// `exp_trans`.
    #[inline(always)]
    fn edge_marginal_unchecked(&self, t: usize, b: usize, a: usize, exp_trans: &[f64]) -> f64 {
        let l = self.l;
        self.alpha[(t - 1) * l + b]
            * exp_trans[b * l + a]
            * self.psi[t * l + a]
            * self.beta[t * l + a]
            / self.scale[t]
    }

    /// The edge marginals of position `t >= 1`, `p(y_{t-1} = b, y_t = a | x)` for every
    /// `(b, a)`, into `out[b * L + a]` (`exp_trans` as given to the run): the values of
    /// [`edge_marginal`](Self::edge_marginal), checked once for the whole table.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::CrfError::Core`]) when `t` is
    /// not in `1..len()`; [`bl_core::BlError::ShapeMismatch`] when `exp_trans` or `out`
    /// does not have `L * L` entries. Checked before `out` is written.
    pub fn edge_marginals(
        &self,
        t: usize,
        exp_trans: &[f64],
        out: &mut [f64],
    ) -> crate::Result<()> {
        self.check_position(t, 1, &[])?;
        self.check_square("Lattice::edge_marginals: exp_trans (L x L)", exp_trans)?;
        self.check_square("Lattice::edge_marginals: out (L x L)", out)?;
        let l = self.l;
        for (b, row) in out.chunks_exact_mut(l.max(1)).enumerate() {
            for (a, o) in row.iter_mut().enumerate() {
                *o = self.edge_marginal_unchecked(t, b, a, exp_trans);
            }
        }
        Ok(())
    }

    /// Adds `scale * p(y_{t-1} = b, y_t = a | x)` summed over `t >= 1` to `out[b * L + a]`.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `exp_trans`
    /// or `out` does not have `L * L` entries; checked before `out` is written.
    pub fn add_edge_marginals(
        &mut self,
        exp_trans: &[f64],
        scale: f64,
        out: &mut [f64],
    ) -> crate::Result<()> {
        self.check_square("Lattice::add_edge_marginals: exp_trans (L x L)", exp_trans)?;
        self.check_square("Lattice::add_edge_marginals: out (L x L)", out)?;
        let l = self.l;
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        tmp.resize(l, 0.0);
        for t in 1..self.len() {
            let c = scale / self.scale[t];
            for a in 0..l {
                tmp[a] = self.psi[t * l + a] * self.beta[t * l + a] * c;
            }
            for b in 0..l {
                let p = self.alpha[(t - 1) * l + b];
                let row = &exp_trans[b * l..(b + 1) * l];
                let o = &mut out[b * l..(b + 1) * l];
                for a in 0..l {
                    o[a] += p * row[a] * tmp[a];
                }
            }
        }
        self.tmp = tmp;
        Ok(())
    }

    /// Adds `p(y_{t-1} = b, y_t = a | x) / exp_trans[b, a]`, summed over `t >= 1`, to
    /// `out[b * L + a]`: the edge marginals without their transition factor, which is the
    /// same for every sequence of one weight vector, so a caller summing over many
    /// sequences multiplies by `exp_trans` once at the end.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `out` does
    /// not have `L * L` entries; checked before it is written.
    #[inline]
    pub fn add_edge_outer(&mut self, out: &mut [f64]) -> crate::Result<()> {
        self.check_square("Lattice::add_edge_outer: out (L x L)", out)?;
        self.add_edge_outer_unchecked(out);
        Ok(())
    }

    /// [`add_edge_outer`](Self::add_edge_outer) for an `out` known to have `L x L` entries
    /// (the trainers').
    #[inline(always)]
    pub(crate) fn add_edge_outer_unchecked(&mut self, out: &mut [f64]) {
        let l = self.l;
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        tmp.resize(l, 0.0);
        for t in 1..self.len() {
            let c = 1.0 / self.scale[t];
            for a in 0..l {
                tmp[a] = self.psi[t * l + a] * self.beta[t * l + a] * c;
            }
            for b in 0..l {
                let p = self.alpha[(t - 1) * l + b];
                let o = &mut out[b * l..(b + 1) * l];
                for (o, &q) in o.iter_mut().zip(tmp.iter()) {
                    *o += p * q;
                }
            }
        }
        self.tmp = tmp;
    }

    /// The state marginals of position `t`, `p(y_t = a | x)` for every `a`, into `out`.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::CrfError::Core`]) when `t` is
    /// not a position of the last run (`t >= len()`); [`bl_core::BlError::ShapeMismatch`]
    /// when `out` does not have `L` entries. Checked before `out` is written.
    #[inline]
    pub fn state_marginals(&self, t: usize, out: &mut [f64]) -> crate::Result<()> {
        self.check_position(t, 0, &[])?;
        if out.len() != self.l {
            return Err(shape_mismatch(
                "Lattice::state_marginals: out (L)",
                self.l,
                out.len(),
            ));
        }
        self.state_marginals_unchecked(t, out);
        Ok(())
    }

    /// [`state_marginals`](Self::state_marginals) for a position `t` of the last run and
    /// an `out` of `L` entries (the trainers').
    #[inline(always)]
    pub(crate) fn state_marginals_unchecked(&self, t: usize, out: &mut [f64]) {
        let l = self.l;
        let (a, b) = (
            &self.alpha[t * l..(t + 1) * l],
            &self.beta[t * l..(t + 1) * l],
        );
        for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
            *o = x * y;
        }
    }

    /// Gives back the state-score buffer (for reuse).
    pub fn take_buffer(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.psi)
    }
}

/// `sum_a x_a y_a` with eight partial sums in a fixed order (vectorizable; the same result
/// on every thread).
#[inline(always)]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let y = &y[..x.len()];
    let mut acc = [0.0f64; 8];
    let (xs, ys) = (x.chunks_exact(8), y.chunks_exact(8));
    let (xr, yr) = (xs.remainder(), ys.remainder());
    for (xc, yc) in xs.zip(ys) {
        for k in 0..8 {
            acc[k] += xc[k] * yc[k];
        }
    }
    let mut tail = 0.0;
    for (a, b) in xr.iter().zip(yr) {
        tail += a * b;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}
