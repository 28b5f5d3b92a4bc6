//! What a GOP fit returns: the best point, the certificate, the per-iteration records, the
//! branch-and-bound tree and the engine's report.

use bl_core::engine::FitReport;
use bl_core::fit::Fitted;
use faer::{Mat, MatRef};

/// Wall-clock time of the components of one iteration (the columns of Table 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timing {
    /// Primal problem (Sec. 3.2), seconds.
    pub primal: f64,
    /// Lagrangian, qualifying constraints and filtering ("Pre"), seconds.
    pub pre: f64,
    /// Cell enumeration ("URI", unique region identification), seconds.
    pub uri: f64,
    /// Relaxed dual LPs, seconds.
    pub dual: f64,
    /// The whole iteration, seconds.
    pub total: f64,
    /// Relaxed duals solved ("Num").
    pub num_duals: usize,
    /// Interior-point LPs of the cell enumeration.
    pub uri_lps: usize,
    /// Whether the cell enumeration used the rank shortcut.
    pub shortcut: bool,
}

/// What happened in one iteration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IterationRecord {
    /// 1-based iteration number.
    pub iteration: usize,
    /// The node expanded.
    pub node: usize,
    /// Its depth (root = 0).
    pub depth: usize,
    /// Its lower bound when selected.
    pub node_lower_bound: f64,
    /// The iterate `x^t` (`M x K`, column-major).
    pub x: Vec<f64>,
    /// The primal solution `theta^t` (`K x N`, column-major).
    pub theta: Vec<f64>,
    /// `lambda^t` (length `N`).
    pub lambda: Vec<f64>,
    /// `mu^t` (`K x N`, column-major).
    pub mu: Vec<f64>,
    /// Primal value at `x^t`.
    pub primal_objective: f64,
    /// `PUBD` after the iteration.
    pub upper_bound: f64,
    /// `RLBD` after the iteration.
    pub lower_bound: f64,
    /// Qualifying constraints before filtering (`K N`).
    pub hyperplanes: usize,
    /// Distinct hyperplanes kept.
    pub kept_hyperplanes: usize,
    /// Cells found: relaxed duals solved; each gives a child (open or pruned) unless its
    /// closed LP is infeasible.
    pub cells: usize,
    /// Open nodes after the iteration.
    pub open_nodes: usize,
    /// Component times.
    pub timing: Timing,
}

/// State of a tree node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NodeState {
    /// Waiting to be expanded.
    Open,
    /// Expanded at some iteration.
    Expanded,
    /// Its bound cannot beat the upper bound by more than `tol`.
    Pruned,
}

/// A node of the branch-and-bound tree (for figures such as the paper's Fig. 2).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TreeNode {
    /// Node id (index in [`FittedGop::tree`]).
    pub id: usize,
    /// Parent id (`None` for the root).
    pub parent: Option<usize>,
    /// Depth (root = 0).
    pub depth: usize,
    /// The node's point: the starting `x` for the root, the relaxed dual's `x` otherwise.
    pub x: Vec<f64>,
    /// Lower bound of the node's region.
    pub lower_bound: f64,
    /// Final state.
    pub state: NodeState,
    /// Iteration at which it was expanded.
    pub expanded_at: Option<usize>,
    /// `theta^B` of the parent's cell that defines this node (`K x N`, column-major).
    pub theta_b: Option<Vec<f64>>,
}

/// The bounds proven by a fit. With [`Linearization::Paper`](crate::Linearization::Paper)
/// the lower bound is not a valid bound in general, and neither is the certificate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Certificate {
    /// `RLBD`: no feasible point of (2) has a smaller objective.
    pub lower_bound: f64,
    /// `PUBD`: the objective of the returned `(x, theta)`.
    pub upper_bound: f64,
    /// `PUBD - RLBD`.
    pub gap: f64,
    /// The requested gap tolerance (`tol`, the paper's `eps`).
    pub tol: f64,
    /// Whether `gap <= tol` (the returned point is a `tol`-global optimum).
    pub certified: bool,
}

/// A fitted GOP model: the best point found, the certificate, the history, the tree and
/// the engine's [`FitReport`] ([`Fitted::report`]). It predicts the memberships `theta` of
/// new samples at its `x` ([`bl_core::PredictInplace`]).
///
/// The report's trace has one record per iteration: objective = `PUBD`, change = the gap
/// `PUBD - RLBD` (compared with `tol`), extras `lower_bound`, `num_duals`, `primal_s`,
/// `pre_s`, `uri_s`, `dual_s`, `total_s` (with `trace(false)` the trace is empty). Its
/// termination is `Converged` when the gap closed (also when that left no open node: the
/// fit stops on the closing iteration, so it never ends on an empty tree),
/// `BudgetExhausted` when the tree reached `max_nodes` first (not converged), or
/// `MaxIterations` / `TimeLimit`; never `Solved`. The time limit is read inside an
/// expansion too: an expansion it interrupts is abandoned (its node stays open, or is
/// pruned when its bound can no longer beat `PUBD - tol`; it adds no children and no
/// [`IterationRecord`], `num_duals` is 0 in its trace record) and the fit ends on the
/// bounds found so far: with `TimeLimit`, or `Converged` when that node's primal closed
/// the gap (the engine tests convergence first). When the root was interrupted, `RLBD` is
/// the trivial bound (`-inf`, or 0 with `nonnegative_bound`: no leaf below the root yet). A tree that empties with the gap open is an error
/// ([`GopError::EmptyTree`](crate::GopError::EmptyTree)), not a fitted model.
#[derive(Debug, Clone)]
pub struct FittedGop {
    pub(crate) x: Mat<f64>,
    pub(crate) theta: Mat<f64>,
    pub(crate) certificate: Certificate,
    pub(crate) report: FitReport,
    pub(crate) history: Vec<IterationRecord>,
    pub(crate) tree: Vec<TreeNode>,
}

impl Fitted for FittedGop {
    fn report(&self) -> &FitReport {
        &self.report
    }
}

impl FittedGop {
    /// The best `x` found (`M x K`).
    #[must_use]
    pub fn x(&self) -> MatRef<'_, f64> {
        self.x.as_ref()
    }

    /// Its primal `theta` (`K x N`).
    #[must_use]
    pub fn theta(&self) -> MatRef<'_, f64> {
        self.theta.as_ref()
    }

    /// The proven bounds.
    #[must_use]
    pub fn certificate(&self) -> Certificate {
        self.certificate
    }

    /// `PUBD`.
    #[must_use]
    pub fn upper_bound(&self) -> f64 {
        self.certificate.upper_bound
    }

    /// `RLBD`.
    #[must_use]
    pub fn lower_bound(&self) -> f64 {
        self.certificate.lower_bound
    }

    /// `PUBD - RLBD`.
    #[must_use]
    pub fn gap(&self) -> f64 {
        self.certificate.gap
    }

    /// Per-iteration records, one per completed expansion: an expansion abandoned at the
    /// time limit leaves none (the report's trace has its iteration).
    #[must_use]
    pub fn history(&self) -> &[IterationRecord] {
        &self.history
    }

    /// The component times of Table 1 averaged over the iterations, with `Num` and the
    /// cell-enumeration LPs as rounded means (`shortcut`: whether any iteration used the
    /// rank shortcut). All zero for a fit without iterations.
    #[must_use]
    pub fn mean_timing(&self) -> Timing {
        let k = self.history.len().max(1) as f64;
        let mut t = Timing::default();
        let (mut num, mut lps) = (0, 0);
        for r in &self.history {
            t.primal += r.timing.primal / k;
            t.pre += r.timing.pre / k;
            t.uri += r.timing.uri / k;
            t.dual += r.timing.dual / k;
            t.total += r.timing.total / k;
            t.shortcut |= r.timing.shortcut;
            num += r.timing.num_duals;
            lps += r.timing.uri_lps;
        }
        t.num_duals = (num as f64 / k).round() as usize;
        t.uri_lps = (lps as f64 / k).round() as usize;
        t
    }

    /// The branch-and-bound tree.
    #[must_use]
    pub fn tree(&self) -> &[TreeNode] {
        &self.tree
    }
}
