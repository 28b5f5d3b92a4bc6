//! The order of the coordinates within one sweep of the mixing method: the plug-in point
//! of the sweeps.
//!
//! Alg. 1 of Wang, Chang, Kolter (2017) updates `v_1, ..., v_n` cyclically; every order
//! that visits each coordinate once per sweep keeps the monotone ascent (each update is
//! an exact maximization over one column). The built-in orders are [`Cyclic`] (the
//! paper's), [`RandomPermutation`] (a fresh seeded permutation per sweep) and [`Colored`]
//! (the color classes of a sparse `C`, each class in parallel). A user type
//! implementing [`SweepOrder`] (and [`Extension`], its name and a check of its own
//! settings) is passed to [`crate::MixingParams::order`] as an `Arc<dyn SweepOrder>` and
//! runs through the normal fit; [`crate::conformance::sweep_order::conformance`] is the
//! suite every implementation must pass.

use bl_core::Extension;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

/// Chooses the order of the coordinates of each sweep.
///
/// [`SweepOrder::arrange`] runs at the start of every sweep on the order of the previous
/// sweep (`0, 1, ..., n - 1` before the first) and must leave a permutation of `0..n`;
/// the mixing method checks this and stops with
/// [`crate::MaxcutError::InvalidSweepOrder`] otherwise. It runs inside the sweep, so it
/// should not allocate. Randomness comes only from `rng`, a stream seeded by
/// [`crate::MixingParams::seed`], so a fit stays deterministic for a given seed.
///
/// The order is held as `Arc<dyn SweepOrder>` in [`crate::MixingParams`] (not as a
/// generic parameter): the parameters stay one cheap-to-clone, non-generic type, which
/// `boolean-tensor` stores and passes across threads, and the per-sweep cost of one
/// dynamic call is nothing next to the `O(nnz k)` sweep. Its [`Extension::name`] names it
/// in errors; its [`Extension::check`] runs in the check of the params that hold it.
pub trait SweepOrder: Extension {
    /// Rearranges `order` (a permutation of `0..n`) for sweep `sweep` (1-based).
    fn arrange(&self, sweep: usize, rng: &mut StdRng, order: &mut [usize]);

    /// `true` if [`SweepOrder::arrange`] always leaves `0, 1, ..., n - 1`; the dense sweep
    /// then reads the columns of `C` in place instead of gathering them. Claiming it
    /// falsely is caught by the conformance suite.
    fn is_identity(&self) -> bool {
        false
    }

    /// `true` for [`Colored`]: on a sparse `C` the mixing method then ignores
    /// [`SweepOrder::arrange`] and sweeps the color classes of a greedy coloring of the
    /// graph of `C`, each class in parallel.
    fn by_color(&self) -> bool {
        false
    }
}

/// `0, 1, ..., n - 1` in every sweep (the paper's Alg. 1).
///
/// On a sparse `C` this order runs level by level on the current rayon pool
/// ([`crate::params::SparseSweep::Levels`], the default): a schedule with exactly the
/// iterates of the sequential sweep, bit for bit, for any number of threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cyclic;

impl Extension for Cyclic {
    fn name(&self) -> &str {
        "cyclic"
    }
}

impl SweepOrder for Cyclic {
    fn arrange(&self, _sweep: usize, _rng: &mut StdRng, _order: &mut [usize]) {}

    fn is_identity(&self) -> bool {
        true
    }
}

/// A fresh uniformly random permutation in every sweep (a Fisher–Yates shuffle of the
/// previous order, drawn from the seeded stream).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RandomPermutation;

impl Extension for RandomPermutation {
    fn name(&self) -> &str {
        "random permutation"
    }
}

impl SweepOrder for RandomPermutation {
    fn arrange(&self, _sweep: usize, rng: &mut StdRng, order: &mut [usize]) {
        order.shuffle(rng);
    }
}

/// Color classes of a greedy coloring, swept one class after the other, the columns of a
/// class updated in parallel (on the current rayon pool).
///
/// On a sparse `C` the graph of its off-diagonal nonzeros is colored greedily
/// (vertices in index order, each gets the smallest color none of its earlier neighbors
/// has); the sweep visits color 0, then color 1, ..., each class in increasing index.
/// The vertices of one class share no entry of `C`, so updating them at once is the
/// same as updating them one after the other: the sweep is an ordinary Gauss–Seidel
/// sweep in this order (the objective still rises monotonically), and its result is the
/// same, to the last bit, for any number of threads. It is a *different order* from
/// [`Cyclic`]: the iterates differ, and at a given tolerance the two stop at different
/// points short of the same optimum (each about `tol / (1 - rate)` below it, see the
/// README's "Upper bounds"). [`Cyclic`] itself also uses every core on a sparse `C`,
/// with its own iterates unchanged ([`crate::params::SparseSweep::Levels`]).
/// On dense and low-rank `C` every pair of coordinates interacts and this order is
/// [`Cyclic`]; so it is on a sparse `C` that the fit forms densely
/// ([`crate::SweepForm::SparseFormed`], see [`crate::LowRankMode`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Colored;

impl Extension for Colored {
    fn name(&self) -> &str {
        "colored"
    }
}

impl SweepOrder for Colored {
    fn arrange(&self, _sweep: usize, _rng: &mut StdRng, _order: &mut [usize]) {}

    fn by_color(&self) -> bool {
        true
    }
}

/// Checks that `order` is a permutation of `0..order.len()`, using `seen` (same length)
/// as scratch; returns the first offending position and value.
pub(crate) fn first_non_permutation(order: &[usize], seen: &mut [bool]) -> Option<(usize, usize)> {
    seen.fill(false);
    for (position, &i) in order.iter().enumerate() {
        match seen.get_mut(i) {
            Some(flag) if !*flag => *flag = true,
            _ => return Some((position, i)),
        }
    }
    None
}
