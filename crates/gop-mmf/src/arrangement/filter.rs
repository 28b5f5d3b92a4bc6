//! Filtering of zero and duplicate hyperplanes (see the module docs of
//! [`crate::arrangement`], "Filtering").

use crate::lagrangian::Affine;

/// How an original qualifying constraint enters the Lagrangian rows after filtering.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Term {
    /// A zero hyperplane: its term is replaced by the constant `bound <= min(0, g_i(x))`.
    Zero {
        /// The constant lower bound on the l1 ball.
        bound: f64,
    },
    /// `g_i = factor * g_rep + e_i` with `|e_i| <= error` on the l1 ball.
    Rep {
        /// Index of the representative.
        rep: usize,
        /// The factor `c_i` (its sign says whether the orientation is flipped).
        factor: f64,
        /// The bound `eps_i` on the remainder.
        error: f64,
    },
}

/// The filtered hyperplanes of one iterate.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Filtered {
    /// Distinct hyperplanes with unit normals.
    pub reps: Vec<Affine>,
    /// One entry per original hyperplane, in the original order.
    pub terms: Vec<Term>,
}

impl Filtered {
    /// Number of originals dropped as zero.
    #[must_use]
    pub fn zeros(&self) -> usize {
        self.terms
            .iter()
            .filter(|t| matches!(t, Term::Zero { .. }))
            .count()
    }
}

/// Sparse `||u - sigma v||_2` and `||u - sigma v||_inf` of two index-sorted sparse vectors.
fn sparse_diff(u: &[(usize, f64)], v: &[(usize, f64)], sigma: f64) -> (f64, f64) {
    let (mut i, mut j) = (0, 0);
    let (mut two, mut inf) = (0.0_f64, 0.0_f64);
    let mut push = |d: f64| {
        two += d * d;
        inf = inf.max(d.abs());
    };
    while i < u.len() || j < v.len() {
        match (u.get(i), v.get(j)) {
            (Some(&(a, x)), Some(&(b, y))) if a == b => {
                push(x - sigma * y);
                i += 1;
                j += 1;
            }
            (Some(&(a, x)), Some(&(b, _))) if a < b => {
                push(x);
                i += 1;
            }
            (Some(_), Some(&(_, y))) => {
                push(sigma * y);
                j += 1;
            }
            (Some(&(_, x)), None) => {
                push(x);
                i += 1;
            }
            (None, Some(&(_, y))) => {
                push(sigma * y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (two.sqrt(), inf)
}

/// Drops zero hyperplanes and merges duplicates (see the module docs). `budget` is the l1
/// radius `P`; `tol` is relative: a normal counts as zero when its norm is below
/// `tol * max(1, largest norm)`, and two unit normals as the same hyperplane when they (or
/// one and the other's negative) differ by at most `sqrt(tol)` (Euclidean) with offsets
/// within `sqrt(tol) (1 + |offset of the representative|)`.
#[must_use]
pub fn filter(hyperplanes: &[Affine], budget: f64, tol: f64) -> Filtered {
    let largest = hyperplanes.iter().map(Affine::norm).fold(1.0_f64, f64::max);
    let dup_tol = tol.sqrt();
    let mut reps: Vec<Affine> = Vec::new();
    let mut terms = Vec::with_capacity(hyperplanes.len());
    for g in hyperplanes {
        let norm = g.norm();
        if norm <= tol * largest {
            terms.push(Term::Zero {
                bound: (g.offset - g.max_abs() * budget).min(0.0),
            });
            continue;
        }
        let mut coeffs: Vec<(usize, f64)> = g.coeffs.iter().map(|&(i, a)| (i, a / norm)).collect();
        coeffs.sort_unstable_by_key(|&(i, _)| i);
        let unit = Affine {
            coeffs,
            offset: g.offset / norm,
        };
        let found = reps.iter().enumerate().find_map(|(h, rep)| {
            [1.0, -1.0].into_iter().find_map(|sigma| {
                let (two, _) = sparse_diff(&unit.coeffs, &rep.coeffs, sigma);
                let off = (unit.offset - sigma * rep.offset).abs();
                (two <= dup_tol && off <= dup_tol * (1.0 + rep.offset.abs())).then_some((h, sigma))
            })
        });
        let (rep, sigma) = match found {
            Some(hit) => hit,
            None => {
                reps.push(unit);
                (reps.len() - 1, 1.0)
            }
        };
        let factor = sigma * norm;
        // Exact remainder bound of g - factor * rep on the ball.
        let mut sorted = g.coeffs.clone();
        sorted.sort_unstable_by_key(|&(i, _)| i);
        let (_, inf) = sparse_diff(&sorted, &reps[rep].coeffs, factor);
        let error = inf * budget + (g.offset - factor * reps[rep].offset).abs();
        terms.push(Term::Rep { rep, factor, error });
    }
    Filtered { reps, terms }
}
