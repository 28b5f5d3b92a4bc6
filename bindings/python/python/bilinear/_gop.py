"""Certified global optimization for sparse mixed-membership matrix factorization (Zhang,
Wang, Trapp, Flaherty, "A Global Optimization Algorithm for Sparse Mixed Membership
Matrix Factorization") of the `gop-mmf` crate.

Every keyword left ``None`` keeps the Rust default (``gop_mmf::GopParams::default()``);
:func:`gop_mmf_defaults` returns them. Python keeps no copy of its own.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse

from . import _native
from ._keywords import _float, _int, _opt, _real, _seed, _threads


@dataclass(frozen=True)
class GopResult:
    """The best ``x`` (``M x K``) and ``theta`` (``K x N``), the bounds ``lower_bound``
    (RLBD) and ``upper_bound`` (PUBD) on the optimum, their ``gap``, whether the gap is
    within ``tol`` (``certified``), the GOP iterations ``n_iter`` and how the run ended
    (``termination``: ``"Converged"`` (the gap closed), ``"MaxIterations"``,
    ``"TimeLimit"`` or ``"BudgetExhausted"``; a GOP fit never ends ``"Solved"``)."""

    x: np.ndarray
    theta: np.ndarray
    lower_bound: float
    upper_bound: float
    gap: float
    certified: bool
    n_iter: int
    termination: str


def gop_mmf_defaults():
    """The defaults of :func:`gop_mmf`'s keywords, read from Rust: a dict with ``k``,
    ``budget``, ``tol``, ``max_iter``, ``max_nodes``, ``time_limit`` (seconds or None),
    ``seed`` and ``threads`` (None: all cores)."""
    return dict(_native.gop_defaults())


def gop_mmf(y, k=None, budget=None, *, tol=None, max_iter=None, max_nodes=None,
            time_limit=None, random_state=None, threads=None):
    """Solves ``min ||y - x theta||_F^2`` subject to every column of ``theta`` in the
    simplex and ``sum |x_jk| <= budget`` to a certified gap ``tol`` (the paper's ``eps``;
    problem (2)).

    ``y``: ``(M, N)`` data; ``k``: the number of components ``K``; ``budget``: the l1
    budget ``P``; ``max_iter``: node expansions; ``max_nodes``: nodes the tree may hold;
    ``time_limit`` in seconds; ``random_state``: seeds the random start; ``threads``:
    threads of the LPs (None: all cores). Every keyword left None keeps the Rust default
    (see :func:`gop_mmf_defaults`). Returns a :class:`GopResult`.
    """
    tol = _opt(_float, "tol", tol)
    if tol is not None and not 0.0 < tol < float("inf"):
        # (the crate's check, GopParams' `tol`: a float gap may never reach 0)
        raise ValueError(f"tol must be finite and > 0, got {tol}")
    if scipy.sparse.issparse(y):
        raise TypeError(
            "gop_mmf needs a dense array y: a SciPy sparse matrix is not supported "
            "(pass y.toarray())")
    given = y
    y = _real("y", y)
    # (ndim is read before np.ascontiguousarray, which makes a 0-d array 1-d)
    if y.ndim != 2:
        raise ValueError(
            f"y must be a 2-D array (M, N), got {y.ndim} dimensions "
            f"({type(given).__name__})")
    y = np.ascontiguousarray(y, dtype=np.float64)
    out = _native.gop_fit(
        y, k=_opt(_int, "k", k), budget=_opt(_float, "budget", budget),
        tol=tol, max_iter=_opt(_int, "max_iter", max_iter),
        max_nodes=_opt(_int, "max_nodes", max_nodes),
        time_limit=_opt(_float, "time_limit", time_limit),
        seed=_seed(random_state, None),
        threads=_threads(threads))
    return GopResult(**out)
