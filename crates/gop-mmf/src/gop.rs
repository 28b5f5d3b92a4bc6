//! The GOP branch and bound (Sec. 3.3 and 4).
//!
//! One iteration expands the open node with the smallest lower bound (best first; the
//! root at iteration 1):
//!
//! 1. **Primal**: solve the primal problem (Sec. 3.2) at the node's point `x^t`; its value
//!    updates the upper bound `PUBD` (the best primal value seen).
//! 2. **Pre**: build the Lagrangian (7) and qualifying constraints (8) at `x^t` and filter
//!    zero and duplicate hyperplanes ([`crate::arrangement::filter`]).
//! 3. **URI**: enumerate the cells of the arrangement inside the node's region
//!    ([`crate::arrangement::enumerate_cells`]).
//! 4. **Dual**: solve one relaxed dual LP per cell ([`crate::dual`]), in parallel, as
//!    extensions of the node's own LP (prepared once; the backend picks a warm start or a
//!    cold solve); each cell becomes a child with that lower bound
//!    (at least the parent's) and the LP's `x` as its point. A child whose bound is
//!    `>= PUBD - tol` is pruned (`tol` is the paper's `eps`).
//!
//! The lower bound `RLBD` is the smallest bound over all leaves (open, pruned, or expanded
//! without children), which is a valid lower bound of (2) because the leaves' regions cover
//! the feasible set (with the default [`Linearization::Product`](crate::Linearization);
//! `Linearization::Paper` gives no valid bound in general). The loop stops when `PUBD - RLBD <= tol` or a limit is hit; the
//! shared iteration engine of `bl-core` owns the iteration and time limits.
//!
//! The time limit is also read inside an expansion, before every LP of the cell
//! enumeration (and every 4096 sign vectors of the tangent cone's product) and before every
//! relaxed dual (one node can have hundreds of thousands of cells): once it has passed
//! (measured from the first iteration's start, which is never before the engine's), the
//! expansion is abandoned, its node stays open with its bound (or is pruned, when that
//! can no longer beat `PUBD - tol`), and the engine ends the fit on the bounds found so
//! far, with `TimeLimit` (or `Converged` when the node's primal, solved before the
//! interruption, closed the gap: the engine tests convergence first).
//!
//! A node whose cells would need more than [`bl_core::limits::MAX_ELEMENTS`] values
//! (`H + 2 M K + K N` per cell) is refused: [`BlError::InvalidParameter`] naming `k`, with
//! the number of cells. The rank shortcut and the tangent cone refuse before they build a
//! sign vector of the node; the walk on the whole region refuses after the first breadth
//! level that passes the bound (see [`crate::arrangement`]). Sign vectors of an accepted
//! count that cannot be reserved are refused naming `k` too.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Instant;

use bl_core::BlError;
use bl_core::engine::{Observer, Progress, Stop, run};
use bl_core::error::build::shape_mismatch;
use bl_core::fit::Fit;
use bl_core::limits::MAX_ELEMENTS;
use bl_core::params::invalid;
use faer::{Mat, MatRef};
use lp_backend::LpSolver;
use rand::RngExt;

use crate::arrangement::{CellOptions, SIGN_VECTORS, SignedHyperplane, enumerate_cells};
use crate::dual::{DualLayout, Level, solve_relaxed_duals_until};
use crate::error::{GopError, Result};
use crate::fitted::{Certificate, FittedGop, IterationRecord, NodeState, Timing, TreeNode};
use crate::lagrangian::{Affine, Lagrangian};
use crate::params::GopValidParams;
use crate::primal::solve_primal;

#[derive(Debug)]
struct Node {
    parent: Option<usize>,
    depth: usize,
    x: Vec<f64>,
    lb: f64,
    edge: Option<(Arc<Level>, Vec<i8>)>,
    state: NodeState,
    expanded_at: Option<usize>,
}

/// Min-heap entry by lower bound (ties by id, older first).
#[derive(Debug, PartialEq)]
struct Entry {
    lb: f64,
    id: usize,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .lb
            .total_cmp(&self.lb)
            .then_with(|| other.id.cmp(&self.id))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

struct Search<'a> {
    y: Vec<f64>,
    m: usize,
    k: usize,
    n: usize,
    params: &'a GopValidParams,
    solver: &'a dyn LpSolver,
    nodes: Vec<Node>,
    heap: BinaryHeap<Entry>,
    pruned_min: f64,
    childless_min: f64,
    best: Option<(Vec<f64>, Vec<f64>, f64)>,
    history: Vec<IterationRecord>,
}

impl Search<'_> {
    fn upper(&self) -> f64 {
        self.best.as_ref().map_or(f64::INFINITY, |b| b.2)
    }

    /// Pops open nodes that can no longer beat `PUBD - tol` (marking them pruned).
    fn prune_top(&mut self) {
        let cutoff = self.upper() - self.params.iteration().tol;
        while let Some(top) = self.heap.peek() {
            if top.lb >= cutoff {
                let id = top.id;
                self.heap.pop();
                self.nodes[id].state = NodeState::Pruned;
                self.pruned_min = self.pruned_min.min(self.nodes[id].lb);
            } else {
                break;
            }
        }
    }

    /// `RLBD`: the smallest bound over all leaves.
    fn lower(&mut self) -> f64 {
        self.prune_top();
        let open = self.heap.peek().map_or(f64::INFINITY, |e| e.lb);
        let lb = open.min(self.pruned_min).min(self.childless_min);
        // Before any expansion only the trivial bound holds (the objective is >= 0; without
        // the floor `Q >= 0` none is claimed).
        if lb.is_finite() {
            lb
        } else if self.params.nonnegative_bound() {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Qualifying rows and Lagrangian rows along the path from the root to `id`.
    fn path(&self, id: usize) -> Result<(Vec<SignedHyperplane>, Vec<Affine>)> {
        let mut region = Vec::new();
        let mut lagrangians = Vec::new();
        let mut cur = Some(id);
        while let Some(c) = cur {
            if let Some((level, signs)) = &self.nodes[c].edge {
                region.extend(level.signed(signs));
                lagrangians.push(level.lagrangian_row(signs)?);
            }
            cur = self.nodes[c].parent;
        }
        Ok((region, lagrangians))
    }

    fn theta_b_full(&self, level: &Level, signs: &[i8]) -> Result<Vec<f64>> {
        let mut out = vec![0.0; self.k * self.n];
        for (&(k, n), v) in level.origin.iter().zip(level.theta_b(signs)?) {
            if let Some(slot) = out.get_mut(n * self.k + k) {
                *slot = v;
            }
        }
        Ok(out)
    }

    /// Expands the open node `id` (already taken off the heap) at `iteration`: steps 1-4
    /// of the module docs, its children added to the tree and its record to the history.
    /// When `deadline` passes during the cell enumeration or the relaxed duals, the
    /// expansion is abandoned: the node goes back on the heap, open, with no children and
    /// no record (the primal's point, already solved, may still have improved `PUBD`).
    fn expand(
        &mut self,
        id: usize,
        iteration: usize,
        deadline: Option<Instant>,
    ) -> Result<Expansion> {
        let (m, k, n) = (self.m, self.k, self.n);
        let mk = m * k;
        let budget = self.params.budget();
        let start = Instant::now();
        let x = self.nodes[id].x.clone();

        let primal = solve_primal(&x, &self.y, m, k, n)?;
        if primal.objective < self.upper() {
            self.best = Some((x.clone(), primal.theta.clone(), primal.objective));
        }
        let t_primal = start.elapsed().as_secs_f64();

        let t = Instant::now();
        let lagrangian = Lagrangian::build(self.params.linearization(), &x, &primal)?;
        let level = Arc::new(Level::new(&lagrangian, budget, self.params.filter_tol()));
        let t_pre = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let (region, lagrangians) = self.path(id)?;
        let h = level.num_hyperplanes();
        let per_cell = cell_values(h, mk, k * n);
        let options = CellOptions {
            min_slack: self.params.cell_slack() * budget,
            rank_shortcut: self.params.rank_shortcut(),
            local: self.params.tangent_cone_cells(),
            parallel: true,
            max_cells: MAX_ELEMENTS / per_cell,
            deadline,
        };
        let cells = enumerate_cells(
            self.solver,
            mk,
            budget,
            &region,
            &x,
            &level.filtered.reps,
            &options,
        );
        let cells = match cells {
            Err(GopError::DeadlinePassed { .. }) => {
                return Ok(self.abandon(
                    id,
                    t_primal,
                    t_pre,
                    t.elapsed().as_secs_f64(),
                    0.0,
                    start,
                ));
            }
            Err(err) => {
                let node = NodeCells {
                    k,
                    id,
                    iteration,
                    h,
                    per_cell,
                    max_cells: options.max_cells,
                };
                return Err(node.refusal(err));
            }
            Ok(cells) => cells,
        };
        let t_uri = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let layout = DualLayout { mk };
        let base = layout.base_program(
            budget,
            &region,
            &lagrangians,
            self.params.nonnegative_bound(),
        )?;
        let results = solve_relaxed_duals_until(
            self.solver,
            &layout,
            &base,
            &level,
            &cells.signs,
            &format!("node {id} (iteration {iteration})"),
            deadline,
        );
        let results = match results {
            Err(GopError::DeadlinePassed { .. }) => {
                return Ok(self.abandon(
                    id,
                    t_primal,
                    t_pre,
                    t_uri,
                    t.elapsed().as_secs_f64(),
                    start,
                ));
            }
            other => other?,
        };
        let t_dual = t.elapsed().as_secs_f64();

        let parent_lb = self.nodes[id].lb;
        let depth = self.nodes[id].depth + 1;
        let cutoff = self.upper() - self.params.iteration().tol;
        let mut children = 0;
        for (signs, result) in cells.signs.iter().zip(results) {
            let Some((q, cx)) = result else { continue };
            let lb = q.max(parent_lb);
            let child = self.nodes.len();
            let state = if lb >= cutoff {
                self.pruned_min = self.pruned_min.min(lb);
                NodeState::Pruned
            } else {
                self.heap.push(Entry { lb, id: child });
                NodeState::Open
            };
            self.nodes.push(Node {
                parent: Some(id),
                depth,
                x: cx,
                lb,
                edge: Some((Arc::clone(&level), signs.clone())),
                state,
                expanded_at: None,
            });
            children += 1;
        }
        if children == 0 {
            self.childless_min = self.childless_min.min(parent_lb);
        }
        self.nodes[id].state = NodeState::Expanded;
        self.nodes[id].expanded_at = Some(iteration);

        let upper_bound = self.upper();
        let lower_bound = self.lower();
        self.history.push(IterationRecord {
            iteration,
            node: id,
            depth: depth - 1,
            node_lower_bound: parent_lb,
            x,
            theta: primal.theta,
            lambda: primal.lambda,
            mu: primal.mu,
            primal_objective: primal.objective,
            upper_bound,
            lower_bound,
            hyperplanes: lagrangian.qualifying.len(),
            kept_hyperplanes: level.num_hyperplanes(),
            cells: cells.signs.len(),
            open_nodes: self.heap.len(),
            timing: Timing {
                primal: t_primal,
                pre: t_pre,
                uri: t_uri,
                dual: t_dual,
                total: start.elapsed().as_secs_f64(),
                num_duals: cells.signs.len(),
                uri_lps: cells.lp_solves,
                shortcut: cells.shortcut,
            },
        });
        Ok(Expansion::Complete)
    }

    /// Gives up the expansion of `id` (its deadline passed): the node goes back on the heap,
    /// open. Returns the times spent, with no relaxed dual solved.
    fn abandon(
        &mut self,
        id: usize,
        primal: f64,
        pre: f64,
        uri: f64,
        dual: f64,
        start: Instant,
    ) -> Expansion {
        self.heap.push(Entry {
            lb: self.nodes[id].lb,
            id,
        });
        Expansion::Interrupted(Timing {
            primal,
            pre,
            uri,
            dual,
            total: start.elapsed().as_secs_f64(),
            ..Timing::default()
        })
    }
}

/// How an expansion ended.
enum Expansion {
    /// Children added and the record pushed to the history.
    Complete,
    /// Abandoned at the deadline, with the times spent: the node is open again.
    Interrupted(Timing),
}

/// The sizes of one node's cells, for the refusal of a `K` whose cells cannot be held.
struct NodeCells {
    k: usize,
    id: usize,
    iteration: usize,
    /// Hyperplanes (signs per cell).
    h: usize,
    /// [`cell_values`] of the node.
    per_cell: usize,
    /// The [`CellOptions::max_cells`] of the enumeration.
    max_cells: usize,
}

impl NodeCells {
    /// The error of the node's cell enumeration as the fit reports it: the refusals of
    /// too many cells (naming `max_cells`, the value a count of cells) and of sign vectors
    /// whose memory cannot be reserved (naming [`SIGN_VECTORS`], the value a number of
    /// values) become [`BlError::InvalidParameter`] naming `k`, each saying which; any
    /// other error is returned as it is.
    fn refusal(&self, err: GopError) -> GopError {
        let Self {
            k,
            id,
            iteration,
            h,
            per_cell,
            max_cells,
        } = *self;
        let value = match err {
            GopError::Core(BlError::InvalidParameter {
                name: "max_cells",
                value,
                ..
            }) => format!("{k}: node {id} (iteration {iteration}) has {value}"),
            GopError::Core(BlError::InvalidParameter {
                name: SIGN_VECTORS,
                value,
                ..
            }) => format!(
                "{k}: node {id} (iteration {iteration}) needs {value} for the sign vectors \
                 of its cells, which could not be reserved"
            ),
            other => return other,
        };
        invalid(
            "k",
            value,
            format!(
                "a K whose cells of one node fit in memory: each cell keeps \
                 H + 2 M K + K N = {per_cell} values (its {h} signs, the relaxed \
                 dual's and the child's x, the child's theta^B), at most \
                 {MAX_ELEMENTS} values in all ({max_cells} cells); lower k or use fewer \
                 samples (the cells of a node multiply over its K components)"
            ),
        )
        .into()
    }
}

/// Values one cell of a node keeps (the bound of [`CellOptions::max_cells`] in a fit is
/// [`MAX_ELEMENTS`] over this): its `h` signs, the relaxed dual's `x` and the child's `x`
/// (`mk` each) and, in the returned tree, the child's `theta^B` (`kn`). Saturating; at
/// least 1.
fn cell_values(h: usize, mk: usize, kn: usize) -> usize {
    h.saturating_add(mk.saturating_mul(2))
        .saturating_add(kn)
        .max(1)
}

fn starting_point(params: &GopValidParams, m: usize) -> Result<Vec<f64>> {
    let k = params.k();
    let budget = params.budget();
    let mk = m * k;
    match params.initial_x() {
        Some(x) => {
            if x.len() != mk {
                return Err(shape_mismatch(
                    "initial_x",
                    format!("{m} x {k} ({mk} values)"),
                    format!("{} values", x.len()),
                ));
            }
            bl_core::error::ensure_finite("initial_x", x)?;
            let l1: f64 = x.iter().map(|v| v.abs()).sum();
            if l1 > budget * (1.0 + 1e-12) {
                return Err(invalid(
                    "initial_x",
                    format!("l1 norm {l1}"),
                    "inside the l1 ball (sum |x| <= budget)",
                )
                .into());
            }
            Ok(x.to_vec())
        }
        None => {
            let mut rng = bl_core::random::seeded_rng(params.seed());
            let mut x = vec![0.0; mk];
            bl_core::random::fill_standard_normal(&mut rng, &mut x);
            let l1: f64 = x.iter().map(|v| v.abs()).sum();
            let radius = budget * rng.random_range(0.05..0.95);
            if l1 > 0.0 {
                for v in &mut x {
                    *v *= radius / l1;
                }
            }
            Ok(x)
        }
    }
}

/// GOP on `y` (`M x N`): checks the data, runs the branch and bound with the LP backend of
/// [`GopValidParams::lp_solver`], and shows every iteration to `observers`. The builder
/// [`GopParams`](crate::GopParams) fits through bl-core's blanket implementation, which
/// checks it first.
///
/// Errors: empty or non-finite `y`, a bad `initial_x`, a thread pool that cannot be built,
/// a primal without a KKT point ([`GopError::Primal`]), an LP failure, or a tree that
/// empties with the gap open ([`GopError::EmptyTree`]).
impl<'a> Fit<MatRef<'a, f64>> for GopValidParams {
    type Fitted = FittedGop;
    type Error = GopError;

    fn fit_observed(
        &self,
        y: &MatRef<'a, f64>,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedGop> {
        let y = *y;
        let (m, n) = (y.nrows(), y.ncols());
        bl_core::error::ensure_nonempty("y", m * n)?;
        bl_core::linalg::ensure_finite_mat("y", y)?;
        let x0 = starting_point(self, m)?;
        let pool = self.iteration().pool()?;
        self.run(y, x0, &pool, observers)
    }
}

impl GopValidParams {
    fn run(
        &self,
        y: MatRef<'_, f64>,
        x0: Vec<f64>,
        pool: &bl_core::iteration::Pool,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedGop> {
        let params = self;
        let tol = params.iteration().tol;
        let (m, n, k) = (y.nrows(), y.ncols(), params.k());
        let mut ycol = Vec::with_capacity(m * n);
        for s in 0..n {
            for j in 0..m {
                ycol.push(y[(j, s)]);
            }
        }
        let mut search = Search {
            y: ycol,
            m,
            k,
            n,
            params,
            solver: params.lp_solver().as_ref(),
            nodes: vec![Node {
                parent: None,
                depth: 0,
                x: x0,
                lb: if params.nonnegative_bound() {
                    0.0
                } else {
                    f64::NEG_INFINITY
                },
                edge: None,
                state: NodeState::Open,
                expanded_at: None,
            }],
            heap: BinaryHeap::new(),
            pruned_min: f64::INFINITY,
            childless_min: f64::INFINITY,
            best: None,
            history: Vec::new(),
        };
        let mut deadline = None;
        let report = run(params.iteration(), observers, |iteration| {
            if iteration == 1 {
                // The engine started its clock just before this first step, so this
                // deadline is never before the engine's: once it has passed, the engine
                // also sees the time limit passed and reports `TimeLimit` (unless the gap
                // closed: it tests convergence first).
                deadline = params
                    .iteration()
                    .time_limit
                    .and_then(|limit| Instant::now().checked_add(limit));
            }
            let id = if iteration == 1 {
                0
            } else {
                search.prune_top();
                match search.heap.pop() {
                    Some(e) => e.id,
                    None => {
                        let (ub, lb) = (search.upper(), search.lower());
                        // No open node. The gap cannot have closed here: nothing has
                        // changed the bounds since the previous iteration reported this
                        // same gap `ub - lb` (`PUBD` moves only in an expansion, and that
                        // iteration's `lower()` already pruned the heap and read the same
                        // minima), and the engine would have ended the run `Converged` had
                        // it been `<= tol` (an interrupted expansion ends the run on the
                        // time limit). Were it reached, the closed gap would end the run
                        // `Converged` as anywhere else, without `Stop::Solved`.
                        if ub - lb <= tol {
                            return Ok::<_, GopError>(
                                Progress::new(ub, ub - lb).with("lower_bound", lb),
                            );
                        }
                        // With the gap open the relaxed duals were inconsistent (the cells
                        // of a node cover its region, so some child exists): an error,
                        // never convergence.
                        return Err(GopError::EmptyTree {
                            iteration,
                            upper_bound: ub,
                            lower_bound: lb,
                            tol,
                            backend: search.solver.name().to_string(),
                        });
                    }
                }
            };
            let expansion = pool.install(|| search.expand(id, iteration, deadline))?;
            let (ub, lb, tm) = match expansion {
                Expansion::Complete => search
                    .history
                    .last()
                    .map(|r| (r.upper_bound, r.lower_bound, r.timing))
                    .unwrap_or((f64::INFINITY, 0.0, Timing::default())),
                // The time limit has passed: the engine ends the run with `TimeLimit`
                // (unless the gap closed), on the bounds as they stand.
                Expansion::Interrupted(tm) => (search.upper(), search.lower(), tm),
            };
            let p = Progress::new(ub, ub - lb)
                .with("lower_bound", lb)
                .with("num_duals", tm.num_duals as f64)
                .with("primal_s", tm.primal)
                .with("pre_s", tm.pre)
                .with("uri_s", tm.uri)
                .with("dual_s", tm.dual)
                .with("total_s", tm.total);
            // Out of nodes: the engine reports `BudgetExhausted` (not converged) unless
            // the gap closed on this very node.
            // An interrupted expansion added no node: the time limit ended it.
            let exhausted = matches!(expansion, Expansion::Complete)
                && search.nodes.len() >= params.max_nodes();
            Ok(p.stop_if(exhausted.then_some(Stop::BudgetExhausted)))
        })?;
        let upper_bound = search.upper();
        let lower_bound = search.lower().min(upper_bound);
        let gap = upper_bound - lower_bound;
        let (bx, bt, _) = search
            .best
            .clone()
            .unwrap_or_else(|| (vec![0.0; m * k], vec![0.0; k * n], f64::INFINITY));
        let tree: Vec<TreeNode> = search
            .nodes
            .iter()
            .enumerate()
            .map(|(id, node)| {
                Ok(TreeNode {
                    id,
                    parent: node.parent,
                    depth: node.depth,
                    x: node.x.clone(),
                    lower_bound: node.lb,
                    state: node.state,
                    expanded_at: node.expanded_at,
                    theta_b: node
                        .edge
                        .as_ref()
                        .map(|(level, signs)| search.theta_b_full(level, signs))
                        .transpose()?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(FittedGop {
            x: Mat::from_fn(m, k, |j, a| bx[a * m + j]),
            theta: Mat::from_fn(k, n, |a, s| bt[s * k + a]),
            certificate: Certificate {
                lower_bound,
                upper_bound,
                gap,
                tol,
                certified: gap <= tol,
            },
            report,
            history: search.history,
            tree,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The node of the README's example: `y` `6 x 6`, `K = 6`, 36 hyperplanes.
    fn node() -> NodeCells {
        let per_cell = cell_values(36, 36, 36);
        NodeCells {
            k: 6,
            id: 3,
            iteration: 4,
            h: 36,
            per_cell,
            max_cells: MAX_ELEMENTS / per_cell,
        }
    }

    /// The value and expected text of an `InvalidParameter` naming `k` (a refusal of the
    /// cells); panics on any other error.
    #[track_caller]
    fn k_refusal(err: &GopError) -> (&str, &str) {
        let GopError::Core(BlError::InvalidParameter {
            name,
            value,
            expected,
        }) = err
        else {
            panic!("{err}");
        };
        assert_eq!(*name, "k");
        (value.as_str(), expected.as_ref())
    }

    /// Too many cells (`max_cells`, a count of cells) and sign vectors that cannot be
    /// reserved (`sign vectors`, a number of values) both become `k`, each saying which;
    /// other errors pass unchanged.
    #[test]
    fn a_refusal_of_the_cells_names_k_and_says_which() {
        let node = node();
        assert_eq!(node.per_cell, 144);
        let expected_tail = "at most 4294967296 values in all (29826161 cells); lower k";

        let count = invalid(
            "max_cells",
            "68719476736 cells (64 x 64 over 2 blocks)",
            "x",
        );
        let err = node.refusal(count.into());
        let (value, expected) = k_refusal(&err);
        assert_eq!(
            value,
            "6: node 3 (iteration 4) has 68719476736 cells (64 x 64 over 2 blocks)"
        );
        assert!(expected.contains("H + 2 M K + K N = 144 values"), "{err}");
        assert!(expected.contains(expected_tail), "{err}");

        // The reservation's own error, as `try_with_capacity` returns it.
        let Err(reserve) =
            bl_core::limits::try_with_capacity::<Vec<i8>>(SIGN_VECTORS, &[65_537, 65_536])
        else {
            panic!("reserved 2^32 + 2^16 sign vectors");
        };
        assert!(
            matches!(&reserve, BlError::InvalidParameter { name, .. } if *name == SIGN_VECTORS),
            "{reserve}"
        );
        let err = node.refusal(reserve.into());
        let (value, expected) = k_refusal(&err);
        assert_eq!(
            value,
            "6: node 3 (iteration 4) needs 65537 x 65536 = 4295032832 values for the sign \
             vectors of its cells, which could not be reserved"
        );
        assert!(!value.contains(" has "), "{err}");
        assert!(expected.contains(expected_tail), "{err}");

        // Anything else is the enumeration's own error.
        let other = node.refusal(invalid("mk", 7, "y").into());
        assert_eq!(other.invalid_parameter(), Some("mk"));
        let deadline = node.refusal(GopError::DeadlinePassed {
            stage: "the cell enumeration",
        });
        assert!(matches!(deadline, GopError::DeadlinePassed { .. }));
    }
}
