"""scikit-learn classifier over the `sblr` crate (Shi, Xu, Baraniuk 2014)."""

import uuid

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from . import _native, _sblr_dask
from ._keywords import _float, _int, _path, _seed, _size, _str, _threads, _ThreadsPickle

_DTYPES = {"float64": np.float64, "float32": np.float32}

# The keyword defaults come from the Rust crate's preset for standardized data,
# `sblr::SblrParams::standardized()` (mu2 = nu2 = 0.01, label-weighted start; its
# documentation says why): they are written once, in Rust.
_DEFAULTS = _native.sblr_standardized_defaults()


def _labels(y):
    """The labels ``y`` as a 1-D array (a column vector warns, as scikit-learn does)."""
    return column_or_1d(check_array(y, ensure_2d=False, dtype=None), warn=True)


class SparseBilinearLogisticRegression(ClassifierMixin, _ThreadsPickle, BaseEstimator):
    """Sparse bilinear logistic regression on matrix-valued samples.

    ``p(y = 1 | X) = sigmoid(tr(U^T X V) + b)`` with elastic-net penalties
    ``mu1 |U|_1 + mu2/2 ||U||_F^2 + nu1 |V|_1 + nu2/2 ||V||_F^2`` (eqs. (3)-(5) of
    Shi, Xu, Baraniuk, "Sparse Bilinear Logistic Regression", 2014).

    The defaults are those of the Rust crate's preset for standardized data,
    ``sblr::SblrParams::standardized()``: the crate's defaults with ``mu2 = nu2 = 0.01``
    and the label-weighted start. (The crate's plain defaults, Fig. 3's ridge
    ``mu2 = nu2 = 0.5``, end fits on standardized data with a moderate signal at
    ``U V^T = 0``; the preset's documentation and test show it.)

    Parameters
    ----------
    rank : int, default=1
        Rank ``r`` of the factors ``U`` (``s x r``) and ``V`` (``t x r``).
    mu1, mu2, nu1, nu2 : float, default=0.01
        The l1 and squared-l2 penalties on ``U`` (mu) and ``V`` (nu).
    solver : {"alg2", "alg1"}, default="alg2"
        Alg. 2 (proximal-linear block steps) or Alg. 1 (exact block solves).
    tol : float, default=1e-3
        Stopping tolerance on the quantity of eq. (8).
    max_iter : int, default=500
        Iteration cap.
    init : {"mean_svd", "label_weighted_svd", "random"}, default="label_weighted_svd"
        Starting point: the paper's mean-sample SVD (Sec. 7.1), which is noise once the
        data are centred (as after ``StandardScaler``), the SVD of the label-weighted mean
        sample, or seeded random factors.
    multi_class : {"ovr", "multinomial"}, default="ovr"
        One-vs-all binary models (the paper's protocol) or the multinomial model (Alg. 3,
        the last class is the zero-score reference).
    matrix_shape : (int, int) or None, default=None
        ``(s, t)`` when ``X`` is given as ``(n, s*t)`` (row-major, ``X.reshape(n, s, t)``);
        ``None`` reads 2-D ``X`` as ``1 x d`` matrices (a sparse linear classifier).
        3-D ``X`` of shape ``(n, s, t)`` is always accepted: by ``fit`` (whatever
        ``matrix_shape`` is), and by the predictions of a model fitted on ``(n, s*t)``
        rows, which read it as ``X.reshape(n, s*t)``.
    random_state : int, RandomState or None, default=None
        Seed of the random initialization (``None``: the crate's default seed, 0).
    dtype : {"float64", "float32"}, default="float64"
        Precision the samples are stored in during the fit (``"float32"`` halves the
        memory the two data passes of every iteration read; they accumulate in f64),
        and the dtype of the fitted arrays and the returned scores. With ``"float32"``, a
        value of ``X`` beyond float32's range is a ``ValueError`` naming ``X``.
    threads : int or None, default=None
        Worker threads of the data passes and of the one-vs-all class fits (``None``:
        rayon's global pool, one thread per core; the crate's ``threads``). The fitted
        model does not depend on it.

    Attributes
    ----------
    classes_, U_, V_, intercept_, n_iter_, n_features_in_, matrix_shape_
        ``U_`` is ``(s, r)`` for two classes and ``(k, s, r)`` for ``k`` one-vs-all models
        (multinomial: ``(k - 1, s, r)``, one per non-reference class); likewise ``V_``.
    """

    def __init__(
        self,
        rank=_DEFAULTS["rank"],
        mu1=_DEFAULTS["mu1"],
        mu2=_DEFAULTS["mu2"],
        nu1=_DEFAULTS["nu1"],
        nu2=_DEFAULTS["nu2"],
        solver=_DEFAULTS["solver"],
        tol=_DEFAULTS["tol"],
        max_iter=_DEFAULTS["max_iter"],
        init=_DEFAULTS["init"],
        multi_class="ovr",
        matrix_shape=None,
        random_state=None,
        dtype="float64",
        threads=_DEFAULTS["threads"],
    ):
        self.rank = rank
        self.mu1 = mu1
        self.mu2 = mu2
        self.nu1 = nu1
        self.nu2 = nu2
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.init = init
        self.multi_class = multi_class
        self.matrix_shape = matrix_shape
        self.random_state = random_state
        self.dtype = dtype
        self.threads = threads

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags

    def _samples(self, X, reset):
        """``X`` as a C-contiguous float64 ``(n, s, t)`` array (validated, no copy when
        it is one already); ``ValueError`` naming ``X`` for samples with no rows or no
        columns."""
        three_d = getattr(X, "ndim", None) == 3
        if three_d:
            X = validate_data(self, X, reset=reset, allow_nd=True, dtype=np.float64)
            n, s, t = X.shape
            if s < 1 or t < 1:
                # (the crate's check of a sample's rows and columns: >= 1)
                raise ValueError(
                    f"X has samples of shape ({s}, {t}): a sample needs at least one row "
                    "and one column")
            return X, (s, t)
        X = validate_data(self, X, reset=reset, dtype=np.float64)
        n, d = X.shape
        if self.matrix_shape is None:
            shape = (1, d)
        else:
            pair = self.matrix_shape
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise ValueError(f"matrix_shape must be a pair (s, t) of ints, got {pair!r}")
            s, t = (_int("matrix_shape", v) for v in pair)
            if s < 1 or t < 1 or s * t != d:
                raise ValueError(
                    f"matrix_shape {self.matrix_shape!r} does not fit X with {d} features: "
                    "need s * t == n_features"
                )
            shape = (s, t)
        return X.reshape(n, *shape), shape

    def fit(self, X, y):
        """Fits on ``X`` (``(n, s, t)``, or ``(n, s*t)`` with ``matrix_shape``) and labels
        ``y``. An ``X`` of more than ``2**32`` values (``bl_core::limits::MAX_ELEMENTS``)
        is a ``ValueError`` naming ``X``, checked from its shape before it is scanned.

        ``X`` may be a dask array of shape ``(n, s, t)`` chunked along the samples, with
        a ``dask.distributed`` Client running: each chunk is then built where its block
        is computed and kept on the worker that built it, where the two data passes of
        every iteration and the products with the reduced features run (through the
        Rust kernels); the client runs the solver
        and receives only vectors of length ``n``, partial sums of ``s rank`` or
        ``rank t`` values and, once per fit for the SVD starts, partial sums of ``s t``
        values. One-vs-all fits its classes in parallel (up to 8 at a time). The model
        equals the fit on ``X.compute()`` up to the order of the sums (objectives within
        ``1e-10``). Only ``multi_class="ovr"``. The predictions on a dask array are dask
        arrays, computed block by block where the blocks are. See ``docs/scaling.md``.
        """
        params = self._check_params()
        if _sblr_dask.is_dask_array(X):
            return self._fit_dask(X, y, params)
        # (from the shape alone: scikit-learn's finiteness scan and the copy come after)
        _size("X", X)
        if getattr(X, "ndim", None) == 3:
            X3, shape = self._samples(X, reset=True)
            y = _labels(y)
            check_consistent_length(X3, y)
        else:
            X2, y = validate_data(self, X, y, dtype=np.float64)
            X3, shape = self._samples(X2, reset=False)
        y_index = self._set_classes(y)
        self._check_float32(X3)
        model = _native.sblr_fit(
            np.ascontiguousarray(X3),
            y_index.astype(np.int64),
            len(self.classes_),
            params,
            multi_class=self.multi_class,
            dtype=self.dtype,
        )
        return self._set_fitted(model, shape)

    def _check_float32(self, X):
        """With ``dtype="float32"``: ``ValueError`` naming ``X`` when one of its (finite)
        values rounds to infinity in single precision, i.e. does not fit ``float32``
        (found by two reductions, without a converted copy)."""
        if self.dtype != "float32" or X.size == 0:
            return
        largest = max(abs(float(X.max())), abs(float(X.min())))
        with np.errstate(over="ignore"):
            fits = np.isfinite(np.float32(largest))
        if not fits:
            raise ValueError(
                f"X has a value of magnitude {largest:g}, which does not fit float32 "
                f"(dtype='float32' stores the samples in single precision, at most "
                f"{float(np.finfo(np.float32).max):g} in magnitude): scale X or use "
                "dtype='float64'")

    def _native_params(self):
        """The parameters every native fit takes (a dict: the native ``FitParams``)."""
        return dict(
            rank=_int("rank", self.rank),
            mu1=_float("mu1", self.mu1),
            mu2=_float("mu2", self.mu2),
            nu1=_float("nu1", self.nu1),
            nu2=_float("nu2", self.nu2),
            solver=_str("solver", self.solver),
            tol=_float("tol", self.tol),
            max_iter=_int("max_iter", self.max_iter),
            init=_str("init", self.init),
            seed=_seed(self.random_state, _DEFAULTS["seed"]),
            threads=_threads(self.threads),
        )

    def _check_params(self):
        """The native parameters (:meth:`_native_params`, built once per fit, so that a
        ``RandomState`` gives one draw); ``ValueError`` unless ``dtype`` is ``"float64"``
        or ``"float32"`` and ``multi_class`` ``"ovr"`` or ``"multinomial"``, and for bad
        values of the other keywords (their types here, their ranges by the Rust crate's
        own check, ``_native.sblr_check_params``), before any data is read."""
        if not isinstance(self.dtype, str) or self.dtype not in _DTYPES:
            raise ValueError(f"dtype must be 'float64' or 'float32', got {self.dtype!r}")
        if not isinstance(self.multi_class, str) or self.multi_class not in (
                "ovr", "multinomial"):
            raise ValueError(
                f"multi_class must be 'ovr' or 'multinomial', got {self.multi_class!r}")
        params = self._native_params()
        _native.sblr_check_params(params)
        return params

    def _set_classes(self, y):
        """Sets ``classes_`` from the labels ``y`` (1-D) and returns each label's index
        in it; ``ValueError`` for fewer than two classes."""
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"SBLR needs samples of at least 2 classes; got {len(self.classes_)} class"
            )
        return y_index

    def _set_fitted_3d(self, model):
        """:meth:`_set_fitted` for a fit on ``(n, s, t)`` samples given as such (a dask
        array or a ``.npy`` file): ``n_features_in_`` is ``s``."""
        s, t = model.shape
        self.n_features_in_ = s
        return self._set_fitted(model, (s, t))

    def _set_fitted(self, model, shape):
        dtype = _DTYPES[self.dtype]
        self._model = model
        self.matrix_shape_ = tuple(shape)
        self.U_ = model.u.astype(dtype)
        self.V_ = model.v.astype(dtype)
        self.intercept_ = model.intercept.astype(dtype)
        self.n_iter_ = model.n_iter
        return self

    def _fit_dask(self, X, y, params):
        """The fit on a dask array: see :meth:`fit`. Everything that can be checked
        without the data (the keywords, the rank against the sample shape, the number
        of labels when both lengths are known, NumPy labels) is checked before any
        chunk is computed."""
        try:
            import distributed
        except ImportError:  # pragma: no cover - dask without distributed
            raise ValueError(
                "fitting on a dask array needs dask.distributed and a Client"
            ) from None
        try:
            client = distributed.get_client()
        except ValueError:
            raise ValueError(
                "fitting on a dask array needs a dask.distributed Client: create one "
                "(distributed.Client(...)) before calling fit"
            ) from None
        if self.multi_class != "ovr":
            raise ValueError(
                "a fit on a dask array fits one-vs-all models only; got multi_class="
                f"{self.multi_class!r}"
            )
        if X.ndim != 3:
            raise ValueError(
                f"a dask array X must have shape (n, s, t); got {X.ndim} dimensions"
            )
        n, s, t = X.shape
        if _sblr_dask._known(s) and _sblr_dask._known(t):
            _native.sblr_check_params(params, (int(s), int(t)))
        y_is_dask = _sblr_dask.is_dask_array(y)
        if not y_is_dask:
            y = _labels(y)
        n_labels = y.shape[0] if getattr(y, "ndim", 1) >= 1 else None
        if (n_labels is not None and _sblr_dask._known(n)
                and _sblr_dask._known(n_labels) and int(n_labels) != int(n)):
            raise ValueError(f"X has {int(n)} samples but y has {int(n_labels)} labels")

        def labels(values):
            y_index = self._set_classes(_labels(values))
            return y_index, len(self.classes_)

        model = _sblr_dask.fit(client, X, y, labels, params, self.dtype)
        return self._set_fitted_3d(model)

    def fit_npy(self, path, y, *, memory_budget):
        """Fits on the samples of a ``.npy`` file without loading it.

        The file holds an ``(n, s, t)`` array of ``float32`` or ``float64`` (C or
        Fortran order), as ``np.save(path, X)`` writes a 3-D ``X``. Each data pass of
        every iteration reads it in blocks of at most ``memory_budget`` bytes (the block
        of samples plus the read buffers); the reduced features, ``O((s + t) rank n)``
        values, stay in memory. The fitted model is the one :meth:`fit` gives on the
        same values, bit for bit (with ``dtype="float32"`` for a ``float32`` file, whose
        samples stay in single precision). ``multi_class="multinomial"`` is not
        available here; one-vs-all fits its classes one after the other.

        Parameters
        ----------
        path : str or os.PathLike
            The ``.npy`` file.
        y : array-like of shape (n,)
            One label per sample.
        memory_budget : int
            Bytes of memory the reading may use; it must hold at least one sample and a
            read buffer (``ValueError`` otherwise, naming the smallest budget).

        Returns
        -------
        self
        """
        params = self._check_params()
        if self.multi_class != "ovr":
            raise ValueError(
                "fit_npy fits one-vs-all models only; got multi_class="
                f"{self.multi_class!r}"
            )
        memory_budget = _int("memory_budget", memory_budget)
        if memory_budget < 1:
            raise ValueError(f"memory_budget must be positive, got {memory_budget}")
        path = _path("path", path)
        y_index = self._set_classes(_labels(y))
        model = _native.sblr_fit_npy(
            path,
            y_index.astype(np.int64),
            len(self.classes_),
            params,
            memory_budget=memory_budget,
        )
        return self._set_fitted_3d(model)

    def _predict_samples(self, X):
        check_is_fitted(self)
        # (from the shape alone, before the finiteness scan and the copy)
        _size("X", X)
        s, t = self.matrix_shape_
        if (getattr(X, "ndim", None) == 3 and tuple(X.shape[1:]) == (s, t)
                and self.n_features_in_ == s * t != s):
            # A model fitted on rows of s * t values (matrix_shape): 3-D samples are read
            # as their row-major rows, as the docstring of matrix_shape says.
            X = validate_data(self, np.reshape(X, (X.shape[0], s * t)), reset=False,
                              dtype=np.float64)
            return np.ascontiguousarray(X.reshape(-1, s, t))
        X3, shape = self._samples(X, reset=False)
        if tuple(shape) != tuple(self.matrix_shape_):
            raise ValueError(
                f"X has samples of shape {tuple(shape)}, but the model was fitted on "
                f"{tuple(self.matrix_shape_)}"
            )
        return np.ascontiguousarray(X3)

    def _on_dask(self, method, X):
        """``method`` (the name of a prediction method) on the dask array ``X``, block by
        block along the samples: a dask array with ``X``'s chunks along the samples,
        computed where the blocks are (nothing is pulled into the client). ``X`` is
        ``(n, s, t)`` or ``(n, d)`` as for NumPy input; its other axes are merged into
        whole samples first. A sample of another shape is refused here, before anything
        is computed."""
        check_is_fitted(self)
        if X.ndim not in (2, 3):
            raise ValueError(
                f"a dask array X must have 2 or 3 dimensions; got shape {X.shape}"
            )
        other = list(range(1, X.ndim))
        X = X.rechunk({axis: -1 for axis in other})
        sample = tuple(X.shape[1:])
        if not all(_sblr_dask._known(v) for v in sample):
            raise ValueError(
                f"a dask array X must have known sample dimensions; got shape {X.shape}"
            )
        # One sample of zeros through the NumPy method: its checks, and the output's
        # trailing shape and dtype.
        probe = getattr(self, method)(np.zeros((1, *(int(v) for v in sample))))
        width = probe.shape[1:]
        name = f"sblr-{method.replace('_', '-')}-{uuid.uuid4().hex}"
        kwargs = dict(
            dtype=probe.dtype,
            drop_axis=other,
            meta=np.empty((0, *width), dtype=probe.dtype),
            name=name,
        )
        if width:
            kwargs.update(new_axis=list(range(1, 1 + len(width))),
                          chunks=(X.chunks[0], *((w,) for w in width)))
        return X.map_blocks(_predict_block, self, method, width, probe.dtype, **kwargs)

    def decision_function(self, X):
        """Decision values: ``(n,)`` for two classes (positive means ``classes_[1]``),
        ``(n, k)`` otherwise. On a dask array, a dask array computed block by block."""
        if _sblr_dask.is_dask_array(X):
            return self._on_dask("decision_function", X)
        X3 = self._predict_samples(X)
        scores = self._model.decision_function(X3)
        if scores.ndim == 2 and scores.shape[1] == 2:
            # multinomial with two classes: class 1 is the zero-score reference
            scores = scores[:, 1] - scores[:, 0]
        return scores.astype(_DTYPES[self.dtype])

    def predict_proba(self, X):
        """Class probabilities ``(n, k)``; one-vs-all: the sigmoids of the class models
        normalized to sum 1 (as scikit-learn's one-vs-rest logistic regression). On a
        dask array, a dask array computed block by block."""
        if _sblr_dask.is_dask_array(X):
            return self._on_dask("predict_proba", X)
        X3 = self._predict_samples(X)
        p = self._model.predict_proba(X3)
        if p is None:
            scores = self._model.decision_function(X3)
            p = expit(scores)
            p /= p.sum(axis=1, keepdims=True)
        elif p.ndim == 1:
            p = np.column_stack([1.0 - p, p])
        return p.astype(_DTYPES[self.dtype])

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (on a dask array, a dask array)."""
        if _sblr_dask.is_dask_array(X):
            return self._on_dask("predict_log_proba", X)
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Predicted class labels. On a dask array, a dask array computed block by
        block."""
        if _sblr_dask.is_dask_array(X):
            return self._on_dask("predict", X)
        X3 = self._predict_samples(X)
        return self.classes_[self._model.predict(X3)]


def _predict_block(block, estimator, method, width, dtype):
    """``estimator.method`` on one block of samples (a task of :meth:`_on_dask`)."""
    if block.shape[0] == 0:
        return np.empty((0, *width), dtype=dtype)
    return getattr(estimator, method)(block)
