"""Certified global optimization for sparse mixed-membership matrix factorization (Zhang,
Wang, Trapp, Flaherty, "A Global Optimization Algorithm for Sparse Mixed Membership
Matrix Factorization") of the `gop-mmf` crate."""

from dataclasses import dataclass

import numpy as np

from . import _native
from ._sblr import _seed


@dataclass(frozen=True)
class GopResult:
    """The best ``x`` (``M x K``) and ``theta`` (``K x N``), the bounds ``lower_bound``
    (RLBD) and ``upper_bound`` (PUBD) on the optimum, their ``gap``, whether the gap is
    within ``eps`` (``certified``) and the GOP iterations ``n_iter``."""

    x: np.ndarray
    theta: np.ndarray
    lower_bound: float
    upper_bound: float
    gap: float
    certified: bool
    n_iter: int


def gop_mmf(y, k=2, budget=1.0, *, eps=0.01, max_iter=1000, max_nodes=200_000,
            time_limit=None, random_state=None, n_threads=0):
    """Solves ``min ||y - x theta||_F^2`` subject to every column of ``theta`` in the
    simplex and ``sum |x_jk| <= budget`` to a certified gap ``eps`` (problem (2)).

    ``y``: ``(M, N)`` data; ``k``: the number of components ``K``; ``time_limit`` in
    seconds (None: no limit); ``n_threads``: threads of the relaxed duals (0: all).
    Returns a :class:`GopResult`.
    """
    y = np.ascontiguousarray(np.asarray(y, dtype=np.float64))
    if y.ndim != 2:
        raise ValueError(f"y must be a 2-D array (M, N), got {y.ndim} dimensions")
    out = _native.gop_fit(y, k=int(k), budget=float(budget), eps=float(eps),
                          max_iter=int(max_iter), max_nodes=int(max_nodes),
                          time_limit=None if time_limit is None else float(time_limit),
                          seed=_seed(random_state), threads=int(n_threads))
    return GopResult(**out)
