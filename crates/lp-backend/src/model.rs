//! The LP model: variables with bounds and costs, sparse `<=`/`>=`/`=` rows, a direction.

use crate::error::LpError;

/// Whether the objective is minimized or maximized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sense {
    /// Minimize `c^T x`.
    Minimize,
    /// Maximize `c^T x`.
    Maximize,
}

/// The comparison of a row: `a^T x <= b`, `a^T x >= b` or `a^T x = b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `a^T x <= b`.
    Le,
    /// `a^T x >= b`.
    Ge,
    /// `a^T x = b`.
    Eq,
}

/// Handle of a variable of one [`LinearProgram`] (its 0-based creation index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub usize);

impl VarId {
    /// The 0-based index of the variable (its position in solution vectors).
    #[must_use]
    pub fn index(self) -> usize {
        self.0
    }
}

/// One variable: bounds (possibly infinite) and objective coefficient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variable {
    /// Lower bound, `f64::NEG_INFINITY` for none.
    pub lower: f64,
    /// Upper bound, `f64::INFINITY` for none.
    pub upper: f64,
    /// Objective coefficient.
    pub cost: f64,
}

/// A sparse row `sum_j coeffs[j].1 * x[coeffs[j].0]  cmp  rhs`.
///
/// A variable may appear at most once in `coeffs` (checked by [`LinearProgram::validate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `(variable index, coefficient)` pairs.
    pub coeffs: Vec<(usize, f64)>,
    /// The comparison.
    pub cmp: Cmp,
    /// Right-hand side.
    pub rhs: f64,
}

impl Row {
    /// A row from its parts.
    #[must_use]
    pub fn new(coeffs: Vec<(usize, f64)>, cmp: Cmp, rhs: f64) -> Self {
        Self { coeffs, cmp, rhs }
    }

    /// `a^T x` for a full point `x`.
    #[must_use]
    pub fn activity(&self, x: &[f64]) -> f64 {
        self.coeffs
            .iter()
            .map(|&(j, a)| a * x.get(j).copied().unwrap_or(0.0))
            .sum()
    }

    /// How much `x` violates the row (`0` when satisfied).
    #[must_use]
    pub fn violation(&self, x: &[f64]) -> f64 {
        let lhs = self.activity(x);
        match self.cmp {
            Cmp::Le => (lhs - self.rhs).max(0.0),
            Cmp::Ge => (self.rhs - lhs).max(0.0),
            Cmp::Eq => (lhs - self.rhs).abs(),
        }
    }

    /// Euclidean norm of the coefficient vector.
    #[must_use]
    pub fn norm(&self) -> f64 {
        self.coeffs.iter().map(|&(_, a)| a * a).sum::<f64>().sqrt()
    }
}

/// A linear program `min / max c^T x  s.t.  rows, lower <= x <= upper`.
///
/// ```
/// use lp_backend::{Cmp, LinearProgram, Sense};
/// let mut lp = LinearProgram::new(Sense::Maximize);
/// let x = lp.add_var(0.0, f64::INFINITY, 1.0);
/// let y = lp.add_var(0.0, 3.0, 1.0);
/// lp.add_row(&[(x, 2.0), (y, 1.0)], Cmp::Le, 4.0);
/// assert_eq!(lp.num_vars(), 2);
/// assert_eq!(lp.num_rows(), 1);
/// assert!(lp.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinearProgram {
    sense: Sense,
    vars: Vec<Variable>,
    rows: Vec<Row>,
}

impl LinearProgram {
    /// An empty program with the given direction.
    #[must_use]
    pub fn new(sense: Sense) -> Self {
        Self {
            sense,
            vars: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Adds a variable with bounds `[lower, upper]` (infinite allowed) and objective
    /// coefficient `cost`; returns its handle.
    pub fn add_var(&mut self, lower: f64, upper: f64, cost: f64) -> VarId {
        self.vars.push(Variable { lower, upper, cost });
        VarId(self.vars.len() - 1)
    }

    /// Adds the row `sum coeff * var  cmp  rhs`.
    pub fn add_row(&mut self, terms: &[(VarId, f64)], cmp: Cmp, rhs: f64) {
        self.rows.push(Row::new(
            terms.iter().map(|&(v, a)| (v.0, a)).collect(),
            cmp,
            rhs,
        ));
    }

    /// Adds a prepared [`Row`] (variable indices as `usize`).
    pub fn push_row(&mut self, row: Row) {
        self.rows.push(row);
    }

    /// Sets the objective coefficient of `var` (no-op for an unknown handle; validation
    /// reports nothing because the model is unchanged).
    pub fn set_cost(&mut self, var: VarId, cost: f64) {
        if let Some(v) = self.vars.get_mut(var.0) {
            v.cost = cost;
        }
    }

    /// The direction of the objective.
    #[must_use]
    pub fn sense(&self) -> Sense {
        self.sense
    }

    /// The variables, in creation order.
    #[must_use]
    pub fn vars(&self) -> &[Variable] {
        &self.vars
    }

    /// The rows, in insertion order.
    #[must_use]
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Number of variables.
    #[must_use]
    pub fn num_vars(&self) -> usize {
        self.vars.len()
    }

    /// Number of rows.
    #[must_use]
    pub fn num_rows(&self) -> usize {
        self.rows.len()
    }

    /// `c^T x`.
    #[must_use]
    pub fn objective_value(&self, x: &[f64]) -> f64 {
        self.vars
            .iter()
            .zip(x)
            .map(|(v, &xi)| v.cost * xi)
            .sum::<f64>()
    }

    /// The largest violation of any row or bound by `x` (`0` for a feasible point).
    #[must_use]
    pub fn max_violation(&self, x: &[f64]) -> f64 {
        let bounds = self
            .vars
            .iter()
            .zip(x)
            .map(|(v, &xi)| (v.lower - xi).max(xi - v.upper).max(0.0));
        let rows = self.rows.iter().map(|r| r.violation(x));
        bounds.chain(rows).fold(0.0, f64::max)
    }

    /// Checks the model: finite costs, coefficients and right-hand sides, bounds that are
    /// not NaN with `lower <= upper`, `lower < +inf`, `upper > -inf`, known variable indices
    /// that appear at most once per row.
    ///
    /// # Errors
    /// [`LpError::InvalidModel`] naming the first offending variable or row.
    pub fn validate(&self) -> Result<(), LpError> {
        validate_vars(&self.vars)?;
        for (i, row) in self.rows.iter().enumerate() {
            validate_row(row, self.vars.len(), &format!("row {i}"))?;
        }
        Ok(())
    }
}

pub(crate) fn validate_vars(vars: &[Variable]) -> Result<(), LpError> {
    for (j, v) in vars.iter().enumerate() {
        if v.lower.is_nan() || v.upper.is_nan() || v.lower > v.upper {
            return Err(LpError::InvalidModel {
                message: format!(
                    "variable {j} has bounds [{}, {}]: need lower <= upper, no NaN",
                    v.lower, v.upper
                ),
            });
        }
        if v.lower == f64::INFINITY || v.upper == f64::NEG_INFINITY {
            return Err(LpError::InvalidModel {
                message: format!(
                    "variable {j} has bounds [{}, {}]: an infinite bound must point outwards",
                    v.lower, v.upper
                ),
            });
        }
        if !v.cost.is_finite() {
            return Err(LpError::InvalidModel {
                message: format!("variable {j} has a non-finite cost {}", v.cost),
            });
        }
    }
    Ok(())
}

pub(crate) fn validate_row(row: &Row, num_vars: usize, name: &str) -> Result<(), LpError> {
    if !row.rhs.is_finite() {
        return Err(LpError::InvalidModel {
            message: format!("{name} has a non-finite right-hand side {}", row.rhs),
        });
    }
    let mut increasing = true;
    for (t, &(j, a)) in row.coeffs.iter().enumerate() {
        if j >= num_vars {
            return Err(LpError::InvalidModel {
                message: format!("{name} uses variable {j}, but the model has {num_vars}"),
            });
        }
        if !a.is_finite() {
            return Err(LpError::InvalidModel {
                message: format!("{name} has a non-finite coefficient {a} on variable {j}"),
            });
        }
        increasing &= t == 0 || row.coeffs[t - 1].0 < j;
    }
    // Strictly increasing indices cannot repeat; otherwise sort a copy to find repeats.
    if increasing {
        return Ok(());
    }
    let mut seen: Vec<usize> = row.coeffs.iter().map(|&(j, _)| j).collect();
    seen.sort_unstable();
    if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
        return Err(LpError::InvalidModel {
            message: format!("{name} lists variable {} twice: merge the terms", w[0]),
        });
    }
    Ok(())
}
