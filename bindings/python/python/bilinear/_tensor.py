"""Tensor decompositions of the `boolean-tensor` crate: Boolean Matching Pursuit (Chang,
Zheng, Yen, Ravikumar, Yu, "Efficient Tensor Decomposition with Boolean Factors") and the
CP-ALS and Tucker baselines of its Sec. 6, in scikit-learn's estimator style.

The keyword defaults are the Rust defaults (``BmpParams``, ``CpAlsParams``,
``TuckerParams``), read once from ``_native.tensor_defaults()``: Python keeps no copy of
its own."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array, check_is_fitted

from . import _native
from ._keywords import _at_most, _float, _int, _seed, _size, _threads, _ThreadsPickle

_DEFAULTS = _native.tensor_defaults()
_BMP, _CP, _TUCKER = _DEFAULTS["bmp"], _DEFAULTS["cp"], _DEFAULTS["tucker"]
# How many items of a `modes` iterable are read at most (repeats are allowed).
_MODES_READ = 64


def _tensor(X):
    """``X`` as a float64 3-way array; NaN entries are missing (infinite ones are a
    ``ValueError`` of scikit-learn's ``check_array``); a ``ValueError`` naming ``X`` for
    more than ``2**32`` entries (the crate's limit, ``bl_core::limits::MAX_ELEMENTS``),
    checked from the shape before the values are scanned or copied."""
    _size("X", X)
    X = check_array(X, allow_nd=True, ensure_2d=False, dtype=np.float64,
                    ensure_all_finite="allow-nan")
    if X.ndim != 3:
        raise ValueError(f"expected a 3-way array (d0, d1, d2), got {X.ndim} dimensions")
    return X


class BooleanTensorDecomposition(_ThreadsPickle, BaseEstimator):
    """Boolean Matching Pursuit: ``X ~ sum_k c_k z_k (x) u_k (x) w_k`` with Boolean ``z_k``
    along one mode per atom (model (1)), fitted greedily on the observed entries.

    Parameters
    ----------
    n_atoms : int, default=10
        Maximum number of atoms ``K`` (the Rust ``BmpParams::max_iter``: one iteration
        per atom).
    tol : float, default=1e-6
        Stop when an atom decreases the loss by a relative amount below ``tol``.
    alternations : int, default=10
        Alternations between ``z`` and the rank-1 pair ``(u, w)`` per atom search.
    refit_sweeps : int, default=10
        Refit sweeps over all atoms after each fully corrective step.
    refit_tol : float, default=1e-6
        Relative tolerance of the refit sweeps.
    modes : tuple of int, default=(0, 1, 2)
        Modes the Boolean factors may lie along (a subset of ``{0, 1, 2}``; repeats are
        dropped, more than 3 distinct modes or more than 64 items are a ``ValueError``,
        and an iterable is read no further than that).
    qp_solver : {"mixing", "exact"}, default="mixing"
        The Boolean QP of the atom search: the mixing method (SDP relaxation, rounding,
        local search) or exact enumeration (mode lengths up to 24).
    random_state : int, RandomState or None, default=None
        Seed of the randomized steps (``None`` means 0).
    threads : int or None, default=None
        Worker threads (``None``: all cores).

    Attributes
    ----------
    factors_ : list of (mode, z, u, w)
        The atoms: Boolean ``z`` (0/1 entries) along ``mode``, real ``u``, ``w`` along the
        other two modes in increasing order.
    weights_ : ndarray of shape (len(factors_),)
        The coefficients ``c_k``, one per atom added.
    rmse_path_ : ndarray of shape (n_iter_,)
        RMSE on the observed entries after each iteration.
    n_iter_ : int
        Iterations: one per atom added, and one more that adds none when no atom scores
        above 0 (e.g. a zero residual), so ``len(factors_)`` or ``len(factors_) + 1``.
    """

    def __init__(self, n_atoms=_BMP["n_atoms"], tol=_BMP["tol"],
                 alternations=_BMP["alternations"], refit_sweeps=_BMP["refit_sweeps"],
                 refit_tol=_BMP["refit_tol"], modes=tuple(_BMP["modes"]), qp_solver="mixing",
                 random_state=None, threads=_BMP["threads"]):
        self.n_atoms = n_atoms
        self.tol = tol
        self.alternations = alternations
        self.refit_sweeps = refit_sweeps
        self.refit_tol = refit_tol
        self.modes = modes
        self.qp_solver = qp_solver
        self.random_state = random_state
        self.threads = threads

    def fit(self, X, y=None):
        """Fits on the 3-way array ``X`` (NaN marks missing entries)."""
        X = _tensor(X)
        if not isinstance(self.qp_solver, str) or self.qp_solver not in ("mixing", "exact"):
            raise ValueError(f"qp_solver must be 'mixing' or 'exact', got {self.qp_solver!r}")
        try:
            out = _native.bmp_fit(
                X, max_iter=_int("n_atoms", self.n_atoms), tol=_float("tol", self.tol),
                alternations=_int("alternations", self.alternations),
                refit_sweeps=_int("refit_sweeps", self.refit_sweeps),
                refit_tol=_float("refit_tol", self.refit_tol), modes=self._modes(),
                exact_qp=self.qp_solver == "exact",
                seed=_seed(self.random_state, _BMP["seed"]), threads=_threads(self.threads))
        except ValueError as err:
            # The crate's `max_iter` is this keyword (one iteration per atom): its checks
            # (>= 1, the model's buffers at that many atoms) name it so.
            message = str(err)
            prefix = "invalid parameter `max_iter`"
            if type(err) is not ValueError or not message.startswith(prefix):
                raise
            raise ValueError(
                "invalid parameter `n_atoms`" + message[len(prefix):]) from None
        self.factors_ = list(zip(out["modes"], out["z"], out["u"], out["w"]))
        self.weights_ = out["coefficients"]
        self.rmse_path_ = out["rmse_path"]
        self.n_iter_ = out["n_iter"]
        self.shape_ = X.shape
        return self

    def _modes(self):
        """``modes`` as a list of ints (``ValueError`` naming ``modes`` otherwise). Repeats
        are allowed (the crate drops them); an iterable is read to at most
        ``_MODES_READ`` items, and more than 3 distinct modes are refused (a subset of
        ``{0, 1, 2}`` has at most 3; which modes exist is the Rust check's)."""
        modes = [_int("modes", m) for m in _at_most(
            "modes", self.modes, _MODES_READ,
            f"a sequence of at most {_MODES_READ} ints (a subset of {{0, 1, 2}}, repeats allowed)")]
        if len(set(modes)) > 3:
            raise ValueError(
                f"modes must name at most 3 distinct modes (a subset of {{0, 1, 2}}), "
                f"got {sorted(set(modes))[:8]}")
        return modes

    @property
    def boolean_factors_(self):
        """``[(mode, z)]``: the Boolean factor of each atom."""
        check_is_fitted(self)
        return [(mode, z) for mode, z, _, _ in self.factors_]

    def reconstruct(self):
        """The fitted tensor (missing entries predicted)."""
        check_is_fitted(self)
        modes, z, u, w = (list(c) for c in zip(*self.factors_)) if self.factors_ else ([],) * 4
        if not modes:
            return np.zeros(self.shape_)
        # (a negative or non-int mode would be a conversion error of the native call)
        modes = [_int(f"the mode of factors_[{k}]", m) for k, m in enumerate(modes)]
        return _native.bmp_reconstruct(modes, z, u, w, self.weights_)


class CPDecomposition(_ThreadsPickle, BaseEstimator):
    """CP decomposition by alternating least squares (the BMP paper's CP-ALS baseline),
    EM over missing entries, the best of ``n_starts`` starts (the first is the HOSVD).

    ``max_iter`` counts ALS sweeps per start; ``threads`` (``None``: all cores) does
    not change the result. Attributes: ``factors_`` (three ``(d_n, rank)`` arrays),
    ``weights_`` (ones: the weights are folded into the factors), ``loss_``, ``n_iter_``
    (ALS sweeps of all starts).
    """

    def __init__(self, rank=_CP["rank"], max_iter=_CP["max_iter"], tol=_CP["tol"],
                 n_starts=_CP["n_starts"], random_state=None, threads=_CP["threads"]):
        self.rank = rank
        self.max_iter = max_iter
        self.tol = tol
        self.n_starts = n_starts
        self.random_state = random_state
        self.threads = threads

    def fit(self, X, y=None):
        """Fits on the 3-way array ``X`` (NaN marks missing entries)."""
        X = _tensor(X)
        out = _native.cp_fit(X, rank=_int("rank", self.rank),
                             max_iter=_int("max_iter", self.max_iter),
                             tol=_float("tol", self.tol),
                             n_starts=_int("n_starts", self.n_starts),
                             seed=_seed(self.random_state, _CP["seed"]),
                             threads=_threads(self.threads))
        self.factors_ = list(out["factors"])
        self.weights_ = np.ones(self.factors_[0].shape[1])
        self.loss_ = out["loss"]
        self.n_iter_ = out["n_iter"]
        return self

    def reconstruct(self):
        """The fitted tensor ``sum_r F0[:, r] (x) F1[:, r] (x) F2[:, r]``."""
        check_is_fitted(self)
        return _native.cp_reconstruct(self.factors_)


class TuckerDecomposition(_ThreadsPickle, BaseEstimator):
    """Tucker decomposition by truncated HOSVD (EM rounds over missing entries), the BMP
    paper's Tucker baseline. Without missing entries the fit is one HOSVD
    (``n_iter_ == 1``; ``max_iter`` and ``tol`` are checked, e.g. ``max_iter=0`` is a
    ``ValueError``, but do not change the result).

    Attributes: ``factors_`` (three orthonormal ``(d_n, r_n)`` arrays), ``core_``
    (``(r0, r1, r2)``), ``loss_``, ``n_iter_``.
    """

    def __init__(self, ranks=tuple(_TUCKER["ranks"]), max_iter=_TUCKER["max_iter"],
                 tol=_TUCKER["tol"], threads=_TUCKER["threads"]):
        self.ranks = ranks
        self.max_iter = max_iter
        self.tol = tol
        self.threads = threads

    def fit(self, X, y=None):
        """Fits on the 3-way array ``X`` (NaN marks missing entries)."""
        X = _tensor(X)
        bad = ValueError(f"ranks must be three positive ints, got {self.ranks!r:.80}")
        try:
            # (at most 4 items are read: a generator without end is not run to its end)
            ranks = _at_most("ranks", self.ranks, 3, "three positive ints")
        except ValueError:
            raise bad from None
        if len(ranks) != 3:
            raise bad
        try:
            ranks = [_int("ranks", r) for r in ranks]
        except ValueError:
            raise bad from None
        out = _native.tucker_fit(X, ranks=ranks, max_iter=_int("max_iter", self.max_iter),
                                 tol=_float("tol", self.tol), threads=_threads(self.threads))
        self.factors_ = list(out["factors"])
        self.core_ = out["core"]
        self.loss_ = out["loss"]
        self.n_iter_ = out["n_iter"]
        return self

    def reconstruct(self):
        """The fitted tensor ``G x_0 U_0 x_1 U_1 x_2 U_2``."""
        check_is_fitted(self)
        return _native.tucker_reconstruct(self.core_, self.factors_)
