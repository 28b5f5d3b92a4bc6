//! Relaxed dual problems (Sec. 3.3): one LP per cell of a node.
//!
//! Every node `u` of the branch-and-bound tree is reached from the root by a path of cell
//! choices: at each ancestor `a` (an expanded iterate with its filtered qualifying
//! constraints [`Level`]) the path picks a cell with sign vector `s^a`. On the region
//! `R_u = {||x||_1 <= P} ∩ {s^a_h g^a_h(x) >= 0 for every ancestor a and h}` every
//! ancestor's lower-bounding function `phi_a` is affine (see [`crate::lagrangian`]), so
//!
//! ```text
//! LB(u) = min_{Q, x, x+, x-}  Q                                            (relaxed dual)
//!         s.t.  Q >= phi_a(x; s^a)          for every ancestor a           (Lagrangian rows)
//!               s^a_h g^a_h(x) >= 0         for every ancestor a, h        (qualifying rows)
//!               x = x+ - x-,  x+, x- >= 0,  sum (x+ + x-) <= P
//!               [Q >= 0, only with `GopParams::nonnegative_bound(true)`]
//! ```
//!
//! is a lower bound of `min_{x in R_u} v(x)`, where `v(x)` is the primal value: on `R_u`,
//! `v(x) >= phi_a(x)` for every `a` and `phi_a(x) = phi_a(x; s^a)` there. (`Q >= 0` is
//! valid because the objective is a sum of squares, but the paper's relaxed dual has no
//! such row and it hurts node selection: every bound below 0 becomes a tie at 0; it is
//! off by default.) The l1 budget uses the split
//! `x = x+ - x-`, equivalent to the paper's `-z <= x <= z, sum z <= P` with fewer rows
//! (one budget row instead of `2 M K + 1`).
//!
//! The relaxed duals of the children of `u` share all rows of `u`: the LP of `u` (whose
//! optimum is `u`'s own point) is prepared once and each child adds its qualifying rows and
//! one Lagrangian row ([`lp_backend::WarmLp`]); the backend decides between a warm start
//! from `u`'s optimal basis and a cold solve (the default `Microlp` warm-starts only when
//! `u`'s LP has at least four times as many rows as the child adds).

use std::time::Instant;

use lp_backend::{Cmp, LinearProgram, LpError, LpOutcome, LpSolver, LpStatus, Row, Sense};
use rayon::prelude::*;

use bl_core::error::build::shape_mismatch;
use bl_core::params::invalid;

use crate::Result;
use crate::arrangement::{Filtered, SignedHyperplane, Term};
use crate::lagrangian::{Affine, Lagrangian};

/// The lower-bounding data of one expanded iterate: its filtered qualifying constraints
/// and Lagrangian constant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Level {
    /// The filtered hyperplanes.
    pub filtered: Filtered,
    /// `c_t` plus the constants of zero hyperplanes minus the duplicate remainders.
    pub constant: f64,
    /// The `x`-dependent part of the constant ([`Lagrangian::slope`]; empty for the
    /// product linearization).
    pub slope: Vec<(usize, f64)>,
    /// `(component, sample)` of every original qualifying constraint.
    pub origin: Vec<(usize, usize)>,
}

impl Level {
    /// Builds the level from the Lagrangian at an iterate (`budget = P`, relative `tol`).
    #[must_use]
    pub fn new(lagrangian: &Lagrangian, budget: f64, tol: f64) -> Self {
        let affines: Vec<Affine> = lagrangian.qualifying.iter().map(|q| q.g.clone()).collect();
        let filtered = crate::arrangement::filter(&affines, budget, tol);
        let mut constant = lagrangian.constant;
        for t in &filtered.terms {
            match *t {
                Term::Zero { bound } => constant += bound,
                Term::Rep { error, .. } => constant -= error,
            }
        }
        Self {
            filtered,
            constant,
            slope: lagrangian.slope.clone(),
            origin: lagrangian
                .qualifying
                .iter()
                .map(|q| (q.component, q.sample))
                .collect(),
        }
    }

    /// Number of representative hyperplanes.
    #[must_use]
    pub fn num_hyperplanes(&self) -> usize {
        self.filtered.reps.len()
    }

    /// Checks a cell's `signs` against the level (its fields are public): one sign per
    /// representative hyperplane, and every term's representative index in range.
    fn check_signs(&self, signs: &[i8]) -> Result<()> {
        let reps = self.filtered.reps.len();
        if signs.len() != reps {
            return Err(shape_mismatch(
                "signs",
                format!("{reps} signs (one per representative hyperplane)"),
                format!("{} signs", signs.len()),
            ));
        }
        let out_of_range = self.filtered.terms.iter().find_map(|t| match *t {
            Term::Rep { rep, .. } if rep >= reps => Some(rep),
            _ => None,
        });
        match out_of_range {
            Some(rep) => Err(invalid(
                "Level: representative index of a term",
                rep,
                format!("below the {reps} representatives"),
            )
            .into()),
            None => Ok(()),
        }
    }

    /// `theta^B` of the cell `signs`: `1` for an original `g_i` that is `<= 0` on the cell,
    /// else `0` (zero hyperplanes get `0`). Indexed like [`Level::origin`].
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] (in [`crate::GopError::Core`]) unless there is
    /// one sign per representative hyperplane; [`bl_core::BlError::InvalidParameter`] for
    /// a term whose representative index is out of range.
    pub fn theta_b(&self, signs: &[i8]) -> Result<Vec<f64>> {
        self.check_signs(signs)?;
        Ok(self
            .filtered
            .terms
            .iter()
            .map(|t| match *t {
                Term::Rep { rep, factor, .. } if factor * f64::from(signs[rep]) < 0.0 => 1.0,
                _ => 0.0,
            })
            .collect())
    }

    /// The affine function `phi(x; s) = q0 + q^T x` that equals `phi_t(x)` (up to the
    /// filtering bounds) on the cell `signs`; its terms are in increasing index order.
    ///
    /// # Errors
    /// As [`Level::theta_b`]; [`bl_core::BlError::InvalidParameter`] when the largest
    /// variable index of the representatives or the slope, plus one, exceeds
    /// [`bl_core::limits::MAX_ELEMENTS`] (the row is accumulated densely over them).
    pub fn lagrangian_row(&self, signs: &[i8]) -> Result<Affine> {
        self.check_signs(signs)?;
        let mut weight = vec![0.0; self.filtered.reps.len()];
        for t in &self.filtered.terms {
            if let Term::Rep { rep, factor, .. } = *t
                && factor * f64::from(signs[rep]) < 0.0
            {
                weight[rep] += factor;
            }
        }
        // Dense accumulation over the indices the representatives use (no sort).
        let largest = self
            .filtered
            .reps
            .iter()
            .flat_map(|r| r.coeffs.iter().map(|&(i, _)| i))
            .chain(self.slope.iter().map(|&(i, _)| i))
            .max();
        let dim = match largest {
            None => 0,
            Some(i) => i
                .checked_add(1)
                .ok_or_else(|| invalid("Level: variable index", i, "an index below usize::MAX"))?,
        };
        let what = "Level: variables of the Lagrangian row (largest index + 1)";
        let mut dense = bl_core::limits::try_zeroed::<f64>(what, &[dim])?;
        let mut used = bl_core::limits::try_zeroed::<bool>(what, &[dim])?;
        for &(i, a) in &self.slope {
            dense[i] += a;
            used[i] = true;
        }
        let mut offset = self.constant;
        for (rep, &w) in self.filtered.reps.iter().zip(&weight) {
            if w != 0.0 {
                offset += w * rep.offset;
                for &(i, a) in &rep.coeffs {
                    dense[i] += w * a;
                    used[i] = true;
                }
            }
        }
        Ok(Affine {
            coeffs: (0..dim)
                .filter(|&i| used[i])
                .map(|i| (i, dense[i]))
                .collect(),
            offset,
        })
    }

    /// The qualifying rows `s_h g_h(x) >= 0` of the cell `signs`.
    #[must_use]
    pub fn signed(&self, signs: &[i8]) -> Vec<SignedHyperplane> {
        self.filtered
            .reps
            .iter()
            .zip(signs)
            .map(|(g, &sign)| SignedHyperplane { g: g.clone(), sign })
            .collect()
    }
}

/// Variable layout of the relaxed dual LP: `Q` at 0, `x+` at `1..=mk`, `x-` after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DualLayout {
    /// `M K`.
    pub mk: usize,
}

impl DualLayout {
    /// The number of LP variables `1 + 2 mk`, checked (`mk` is a public field).
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] (in [`crate::GopError::Core`]) when
    /// `1 + 2 mk` overflows or exceeds [`bl_core::limits::MAX_ELEMENTS`].
    pub fn n_vars(&self) -> Result<usize> {
        let n = self
            .mk
            .checked_mul(2)
            .and_then(|v| v.checked_add(1))
            .unwrap_or(usize::MAX);
        Ok(bl_core::limits::buffer_len(
            "DualLayout: 1 + 2 mk LP variables",
            &[n],
        )?)
    }

    /// Checks that every variable index of `coeffs` is below `mk`.
    fn check_indices(&self, what: &'static str, coeffs: &[(usize, f64)]) -> Result<()> {
        self.n_vars()?;
        match coeffs.iter().find(|&&(i, _)| i >= self.mk) {
            Some(&(i, _)) => Err(invalid(
                what,
                format!("variable index {i}"),
                format!("indices below mk = {}", self.mk),
            )
            .into()),
            None => Ok(()),
        }
    }

    /// `x = x+ - x-` from an LP solution.
    ///
    /// # Errors
    /// As [`DualLayout::n_vars`]; [`bl_core::BlError::ShapeMismatch`] (in
    /// [`crate::GopError::Core`]) when `values` has fewer than `1 + 2 mk` entries.
    pub fn x(&self, values: &[f64]) -> Result<Vec<f64>> {
        let n = self.n_vars()?;
        if values.len() < n {
            return Err(shape_mismatch(
                "values (LP solution)",
                format!("at least 1 + 2 mk = {n} values"),
                format!("{} values", values.len()),
            ));
        }
        Ok((0..self.mk)
            .map(|i| values[1 + i] - values[1 + self.mk + i])
            .collect())
    }

    /// The row `sign * g(x) >= 0`. The `x+` terms come before the `x-` terms, so the
    /// indices increase when `g`'s do (the LP backend then needs no sort).
    ///
    /// # Errors
    /// As [`DualLayout::n_vars`]; [`bl_core::BlError::InvalidParameter`] (in
    /// [`crate::GopError::Core`]) for a variable index of `g` of `mk` or more.
    pub fn qualifying_row(&self, g: &Affine, sign: i8) -> Result<Row> {
        self.check_indices("qualifying hyperplane g", &g.coeffs)?;
        let s = f64::from(sign);
        let mut coeffs = Vec::with_capacity(2 * g.coeffs.len());
        coeffs.extend(g.coeffs.iter().map(|&(i, a)| (1 + i, s * a)));
        coeffs.extend(g.coeffs.iter().map(|&(i, a)| (1 + self.mk + i, -s * a)));
        Ok(Row::new(coeffs, Cmp::Ge, -s * g.offset))
    }

    /// The row `Q >= phi(x)` for an affine `phi` (indices increasing when `phi`'s do).
    ///
    /// # Errors
    /// As [`DualLayout::qualifying_row`], for the indices of `phi`.
    pub fn lagrangian_row(&self, phi: &Affine) -> Result<Row> {
        self.check_indices("Lagrangian row phi", &phi.coeffs)?;
        let mut coeffs = Vec::with_capacity(1 + 2 * phi.coeffs.len());
        coeffs.push((0, 1.0));
        coeffs.extend(phi.coeffs.iter().map(|&(i, a)| (1 + i, -a)));
        coeffs.extend(phi.coeffs.iter().map(|&(i, a)| (1 + self.mk + i, a)));
        Ok(Row::new(coeffs, Cmp::Ge, phi.offset))
    }

    /// The base LP of a node: `min Q` over the l1 ball with the qualifying rows and
    /// Lagrangian rows of its path, with the row `Q >= 0` only when `floor` is set (without
    /// it `Q` is free, as in the paper's relaxed dual and the fit's default; see
    /// [`GopParams::nonnegative_bound`](crate::GopParams::nonnegative_bound)).
    ///
    /// # Errors
    /// As [`DualLayout::n_vars`] (checked before any variable is added) and
    /// [`DualLayout::qualifying_row`] / [`DualLayout::lagrangian_row`] for the rows.
    pub fn base_program(
        &self,
        budget: f64,
        region: &[SignedHyperplane],
        lagrangians: &[Affine],
        floor: bool,
    ) -> Result<LinearProgram> {
        self.n_vars()?;
        let mut lp = LinearProgram::new(Sense::Minimize);
        let q_min = if floor { 0.0 } else { f64::NEG_INFINITY };
        lp.add_var(q_min, f64::INFINITY, 1.0);
        for _ in 0..2 * self.mk {
            lp.add_var(0.0, budget, 0.0);
        }
        lp.push_row(Row::new(
            (1..=2 * self.mk).map(|i| (i, 1.0)).collect(),
            Cmp::Le,
            budget,
        ));
        for r in region {
            lp.push_row(self.qualifying_row(&r.g, r.sign)?);
        }
        for phi in lagrangians {
            lp.push_row(self.lagrangian_row(phi)?);
        }
        Ok(lp)
    }

    /// The rows a child cell adds to its parent's base LP.
    ///
    /// # Errors
    /// As [`Level::lagrangian_row`] for `signs`, and [`DualLayout::qualifying_row`] /
    /// [`DualLayout::lagrangian_row`] for the rows.
    pub fn cell_rows(&self, level: &Level, signs: &[i8]) -> Result<Vec<Row>> {
        let phi = level.lagrangian_row(signs)?;
        let mut rows = level
            .filtered
            .reps
            .iter()
            .zip(signs)
            .map(|(g, &s)| self.qualifying_row(g, s))
            .collect::<Result<Vec<Row>>>()?;
        rows.push(self.lagrangian_row(&phi)?);
        Ok(rows)
    }
}

/// A relaxed dual's `(bound, x)`, `None` for a cell whose closed LP is infeasible (a
/// numerical sliver: it holds no feasible point worth a bound).
pub type CellBound = Option<(f64, Vec<f64>)>;

/// Solves the relaxed duals of the cells `signs` of one node, in parallel on the current
/// rayon pool: the node's `base` program ([`DualLayout::base_program`]), prepared once, plus
/// each cell's rows ([`DualLayout::cell_rows`] of `level`). The backend decides between a
/// warm start from the base and a cold solve ([`lp_backend::WarmLp`]). Results are in the
/// order of `signs`.
///
/// # Errors
/// [`crate::GopError::Lp`] for a backend failure, or an unbounded relaxed dual
/// (impossible for a valid model), named by `context` and the cell's index;
/// [`crate::GopError::Core`] for a cell's `signs` or rows that do not fit `level` and
/// `layout` ([`DualLayout::cell_rows`], [`DualLayout::x`]).
pub fn solve_relaxed_duals(
    solver: &dyn LpSolver,
    layout: &DualLayout,
    base: &LinearProgram,
    level: &Level,
    signs: &[Vec<i8>],
    context: &str,
) -> Result<Vec<CellBound>> {
    solve_relaxed_duals_until(solver, layout, base, level, signs, context, None)
}

/// [`solve_relaxed_duals`] with a deadline: once `deadline` has passed, no further relaxed
/// dual is started and the call returns [`GopError::DeadlinePassed`](crate::GopError::DeadlinePassed)
/// (the fit passes the deadline of its `time_limit`). With `None` it is
/// [`solve_relaxed_duals`].
///
/// # Errors
/// As [`solve_relaxed_duals`]; [`crate::GopError::DeadlinePassed`] once the deadline has
/// passed.
pub fn solve_relaxed_duals_until(
    solver: &dyn LpSolver,
    layout: &DualLayout,
    base: &LinearProgram,
    level: &Level,
    signs: &[Vec<i8>],
    context: &str,
    deadline: Option<Instant>,
) -> Result<Vec<CellBound>> {
    crate::arrangement::check_deadline(deadline, RELAXED_DUALS)?;
    let prepared = solver.prepare(base)?;
    signs
        .par_iter()
        .enumerate()
        .map(|(c, s)| {
            crate::arrangement::check_deadline(deadline, RELAXED_DUALS)?;
            match prepared.solve_with_rows(&layout.cell_rows(level, s)?)? {
                LpOutcome::Optimal(sol) => Ok(Some((sol.objective, layout.x(&sol.values)?))),
                LpOutcome::Infeasible => Ok(None),
                LpOutcome::Unbounded => Err(LpError::NotOptimal {
                    context: format!("relaxed dual of {context}, cell {c}"),
                    status: LpStatus::Unbounded,
                }
                .into()),
            }
        })
        .collect::<Vec<Result<_>>>()
        // The first error in cell order (rayon's own collect into a `Result` returns
        // whichever failing task it meets first, which can change from run to run).
        .into_iter()
        .collect()
}

/// The stage named by the deadline errors of the relaxed duals.
const RELAXED_DUALS: &str = "the relaxed duals";
