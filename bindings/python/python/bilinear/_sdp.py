"""The mixing method (Wang, Chang, Kolter, "The Mixing method: low-rank coordinate descent
for semidefinite programming with diagonal constraints", 2017) of the `maxcut-sdp` crate:
``max <C, Y>`` subject to ``diag(Y) = 1``, ``Y`` psd, with Goemans-Williamson rounding
and a 1-flip local search."""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import _native
from ._keywords import _bool, _float, _int, _opt, _real, _seed, _threads


@dataclass(frozen=True)
class MixingResult:
    """The rounded solution and the bounds.

    ``y``: signs in ``{-1, +1}``; ``value = y^T C y``; ``sdp_value = <C, V^T V>`` at the
    final ``V``; ``upper_bound``: ``sdp_value`` when the sweeps converged (an approximate
    bound), else None; ``certified_bound``: a weak-duality upper bound (with
    ``certify=True``); ``V``: the ``k x n`` factor with unit columns.
    """

    y: np.ndarray
    value: float
    sdp_value: float
    upper_bound: Optional[float]
    certified_bound: Optional[float]
    n_iter: int
    converged: bool
    V: np.ndarray


@dataclass(frozen=True)
class MaxCutResult:
    """A cut and its bounds: ``cut`` (True for the vertices on the ``+1`` side),
    ``cut_value`` (total weight of the cut edges), ``sdp_value``, ``upper_bound``,
    ``certified_bound`` as in :class:`MixingResult`, and the full ``mixing`` result."""

    cut: np.ndarray
    cut_value: float
    sdp_value: float
    upper_bound: Optional[float]
    certified_bound: Optional[float]
    mixing: MixingResult


def _options(rank, tol, max_iter, trials, local_search, certify, threads, random_state):
    """The keyword arguments of ``_native.mixing``, checked (``ValueError`` naming a bad
    one): ``None`` keeps the Rust default of ``maxcut_sdp::MixingParams::default()``."""
    return dict(rank=_opt(_int, "rank", rank), tol=_opt(_float, "tol", tol),
                max_iter=_opt(_int, "max_iter", max_iter),
                trials=_opt(_int, "trials", trials),
                local_search=_opt(_bool, "local_search", local_search),
                certify=_opt(_bool, "certify", certify), threads=_threads(threads),
                seed=_seed(random_state, None))


def _result(out):
    return MixingResult(y=out["y"], value=out["value"], sdp_value=out["sdp_value"],
                        upper_bound=out["upper_bound"],
                        certified_bound=out["certified_bound"], n_iter=out["n_iter"],
                        converged=out["converged"], V=out["v"])


def _edges(edges):
    edges = _real("edges", edges)
    if edges.ndim != 2 or edges.shape[1] not in (2, 3):
        raise ValueError(f"edges must be an (m, 2) or (m, 3) array, got shape {edges.shape}")
    return np.ascontiguousarray(edges, dtype=np.float64)


def mixing_sdp(C, *, rank=None, tol=None, max_iter=None, trials=None, local_search=None,
               certify=None, threads=None, random_state=None):
    """Solves ``max <C, Y>, diag(Y) = 1, Y psd`` by the mixing method and rounds.

    ``C``: a dense symmetric ``(n, n)`` array, or a SciPy sparse symmetric matrix (read
    from its upper triangle). ``certify``: also compute the weak-duality bound (off by
    default, ``n <= 4096``). Returns a :class:`MixingResult`.

    Every knob left ``None`` keeps the Rust default (``maxcut_sdp::MixingParams``):
    ``rank`` rows of ``V`` (``ceil(sqrt(2 n))``), ``tol`` relative gain of one sweep at
    which the sweeps stop (``1e-6``), ``max_iter`` sweeps (``1000``), ``trials`` random
    hyperplanes (``100``), ``local_search`` 1-flip local search (on), ``threads`` worker
    threads (all cores), ``random_state`` seed (``0``).
    """
    opts = _options(rank, tol, max_iter, trials, local_search, certify, threads,
                    random_state)
    if hasattr(C, "tocoo"):
        coo = C.tocoo()
        if len(coo.shape) != 2 or coo.shape[0] != coo.shape[1]:
            raise ValueError(f"C must be square, got shape {coo.shape}")
        data = _real("C", coo.data)
        upper = coo.row <= coo.col
        edges = np.column_stack([coo.row[upper], coo.col[upper], data[upper]])
        out = _native.mixing(edges=_edges(edges.reshape(-1, 3)), n=coo.shape[0], **opts)
    else:
        given = C
        C = _real("C", C)
        # (ndim is read before np.ascontiguousarray, which makes a 0-d array 1-d)
        if C.ndim != 2:
            raise ValueError(
                "C must be a 2-D array (n, n) or a SciPy sparse matrix, got "
                f"{C.ndim} dimensions ({type(given).__name__})")
        out = _native.mixing(dense=np.ascontiguousarray(C, dtype=np.float64), **opts)
    return _result(out)


def maxcut(edges, n_nodes=None, *, rank=None, tol=None, max_iter=None, trials=None,
           local_search=None, certify=None, threads=None, random_state=None):
    """Max-cut of a weighted undirected graph by the mixing method on ``C = L / 4``.

    ``edges``: ``(m, 2)`` node pairs (unit weights) or ``(m, 3)`` ``(i, j, weight)`` rows;
    ``n_nodes`` defaults to the largest index + 1. ``certify`` computes the weak-duality
    bound (on by default, so that the cut comes with a rigorous bound; ``n <= 4096``, turn
    it off beyond). Returns a :class:`MaxCutResult`.

    Every knob left ``None`` keeps the default of the Rust preset for max-cut
    (``maxcut_sdp::MixingParams::max_cut()``, the defaults with ``certify`` on):
    ``rank`` rows of ``V`` (``ceil(sqrt(2 n))``), ``tol`` relative gain of one sweep at
    which the sweeps stop (``1e-6``), ``max_iter`` sweeps (``1000``), ``trials`` random
    hyperplanes (``100``), ``local_search`` 1-flip local search (on), ``threads`` worker
    threads (all cores), ``random_state`` seed (``0``).
    """
    edges = _edges(edges)
    if n_nodes is None:
        # (indices that are no node, e.g. negative or beyond 2**53: the Rust check of the
        # edges names them)
        nodes = edges[:, :2]
        valid = len(edges) and np.all(np.isfinite(nodes)) and 0 <= np.min(nodes) \
            and np.max(nodes) < 2**53
        n_nodes = int(np.max(nodes)) + 1 if valid else 0
    n_nodes = _int("n_nodes", n_nodes)
    opts = _options(rank, tol, max_iter, trials, local_search, certify, threads,
                    random_state)
    res = _result(_native.mixing(edges=edges, n=n_nodes, maxcut=True, **opts))
    return MaxCutResult(cut=res.y > 0, cut_value=res.value, sdp_value=res.sdp_value,
                        upper_bound=res.upper_bound, certified_bound=res.certified_bound,
                        mixing=res)
