"""``CRF``: sklearn-crfsuite's estimator over the ``chain-crf`` crate."""

import math
import numbers
import os

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .. import _native
from .._keywords import _U64_MAX, _bool, _is_bool, _opt, _path
from . import _dask
from ._tagger import ModelInfo, Tagger, TrainingLog, _read

#: sklearn-crfsuite's training parameters (keyword names), passed on when not None.
_TRAINING_PARAMS = (
    "min_freq", "all_possible_states", "all_possible_transitions", "c1", "c2",
    "max_iterations", "num_memories", "epsilon", "period", "delta", "linesearch",
    "max_linesearch", "calibration_eta", "calibration_rate", "calibration_samples",
    "calibration_candidates", "calibration_max_trials", "pa_type", "c", "error_sensitive",
    "averaging", "variance", "gamma", "zero_order", "transitions_only",
)

#: The training parameters that are flags: a bool, or 0 / 1 (CRFsuite's own reading).
_FLAGS = (
    "all_possible_states", "all_possible_transitions", "error_sensitive", "averaging",
    "zero_order", "transitions_only",
)

#: CRFsuite's trainers, with the long names python-crfsuite also accepts.
_ALGORITHMS = {
    "lbfgs": "lbfgs", "l2sgd": "l2sgd", "ap": "ap", "averaged-perceptron": "ap",
    "pa": "pa", "passive-aggressive": "pa", "arow": "arow",
}

#: The online bilinear learners of the `online-bilinear` crate.
#: The workspace's bilinear learners (online-bilinear), trained on the same items.
_BILINEAR = ("bol", "bcd", "sp")


def _threads(n_jobs):
    """Worker threads of a fit, as scikit-learn reads ``n_jobs``: None is 1 (or the
    active ``joblib.parallel_backend``'s count), -1 all cores, -2 all but one, ..."""
    from joblib import effective_n_jobs

    if n_jobs is not None:
        if _is_bool(n_jobs) or not isinstance(n_jobs, numbers.Integral):
            raise ValueError(f"n_jobs must be an int or None, not {n_jobs!r}")
        n_jobs = int(n_jobs)
        if n_jobs > _U64_MAX:
            raise ValueError(f"n_jobs must be at most 2**64 - 1, got {n_jobs}")
    return max(1, int(effective_n_jobs(n_jobs)))


def _whole(value):
    """Whether the real number ``value`` is a whole number (finite)."""
    if isinstance(value, numbers.Integral):
        return True
    try:
        return math.isfinite(value) and value == math.floor(value)
    except (OverflowError, ValueError):
        return False


def _in_range(name, value):
    """``ValueError`` naming the keyword ``name`` when the number ``value`` is outside the
    range the trainers' checks give it: ``max_iterations`` ``>= 1``, ``delta`` and
    ``epsilon`` finite and ``>= 0``, ``pa_type`` 0, 1 or 2 (the crates call them
    ``max_iter``, ``tol`` and ``type``, so their own messages would not name the
    keyword). Non-numbers, negative or fractional counts are the Rust reader's to refuse
    (it names the keyword)."""
    if not isinstance(value, numbers.Real):
        return
    if name == "max_iterations" and 0 <= value < 1:
        raise ValueError(f"parameter max_iterations must be >= 1, got {value!r}")
    if name in ("delta", "epsilon") and not 0 <= value < float("inf"):
        raise ValueError(f"parameter {name} must be finite and >= 0, got {value!r}")
    if name == "pa_type" and value >= 0 and _whole(value) and value not in (0, 1, 2):
        raise ValueError(
            f"parameter pa_type must be 0 (PA), 1 (PA-I) or 2 (PA-II), got {value!r}")


def _checked(params):
    """The given training parameters, checked where the Rust reader would coerce: a bool
    is not a number (``max_iterations=True`` would be 1 iteration), and a flag is a bool
    or 0 / 1 (``2`` would be True); and the ranges of the keywords that the crates name
    otherwise (:func:`_in_range`). Numbers, whole counts, finiteness and names are the
    Rust reader's checks."""
    out = {}
    for name, value in params.items():
        if name in _FLAGS:
            value = _bool(f"parameter {name}", value, zero_one=True)
        elif name != "linesearch" and _is_bool(value):
            raise ValueError(f"parameter {name} must be a number, not {value!r}")
        else:
            _in_range(name, value)
        out[name] = value
    return out


def _object_array(seqs):
    """A 1-D object array of per-sequence lists (sklearn-crfsuite 0.5 returns
    ``np.array(..., dtype=object)``, which becomes 2-D when all sequences have the same
    length; this one is always 1-D)."""
    out = np.empty(len(seqs), dtype=object)
    for i, s in enumerate(seqs):
        out[i] = s
    return out


class CRF(BaseEstimator):
    """A linear-chain CRF with sklearn-crfsuite's interface, trained by the Rust crate
    ``chain-crf`` (``n_jobs``: the threads of the fit, see below). Code written for
    sklearn-crfsuite uses it through ``import bilinear.crfsuite as sklearn_crfsuite``,
    with every ``from sklearn_crfsuite import ...`` rewritten as ``from
    bilinear.crfsuite import ...`` (the alias does not cover ``from`` imports); the
    differences are listed in ``docs/crfsuite.md``.

    Every training parameter but ``zero_order`` and ``transitions_only`` (the bilinear
    learners' own) is sklearn-crfsuite's, with its name and meaning; ``None`` means
    CRFsuite's default for the chosen algorithm (bol, bcd, sp: the learners' own
    defaults), and a parameter the algorithm does not take is a ``ValueError`` naming the
    algorithms that take it when it is not None (CRFsuite refuses a parameter of its other
    trainers too).

    Parameters
    ----------
    algorithm : {"lbfgs", "l2sgd", "ap", "pa", "arow", "bol", "bcd", "sp"} or None
        ``lbfgs`` (default; L-BFGS, OWL-QN when ``c1 > 0``), ``l2sgd`` (SGD with L2),
        ``ap`` (averaged perceptron), ``pa`` (passive-aggressive), ``arow`` (AROW);
        ``bol``, ``bcd``, ``sp``: the workspace's online bilinear learners (Wu and Sun,
        ICML 2015) and the structured perceptron, trained on the same items with a bias
        feature carrying the label transitions. They take ``max_iterations`` (epochs,
        default 20), ``c`` (``bol``, ``bcd``), ``averaging`` (default False), ``epsilon``
        (stop after an epoch in which at most this fraction of the sequences caused an
        update; default 0), ``zero_order`` and, for ``sp``, ``transitions_only`` (see
        below); attribute values must be 0 or 1;
        they give labels, not probabilities (no marginals, no ``state_features_``).
    min_freq : float or None
        Drop features whose frequency in the training data is below this (default 0).
    all_possible_states, all_possible_transitions : bool or None
        Generate every (attribute, label) / (label, label) feature, seen or not.
    c1 : float or None
        L1 coefficient (lbfgs; default 0).
    c2 : float or None
        L2 coefficient (lbfgs, l2sgd; default 1).
    max_iterations : int or None
        Iteration (epoch) budget (default: lbfgs 2**31 - 1, l2sgd 1000, ap, pa, arow
        100; bol, bcd, sp 20).
    num_memories : int or None
        L-BFGS memory (lbfgs; default 6).
    epsilon : float or None
        lbfgs: the gradient test ``||g|| / max(1, ||w||) <= epsilon`` (default 1e-5);
        ap, pa: stop after the first epoch whose loss per sequence is below it (default
        0: every epoch of the budget runs); arow: stop after the first epoch whose loss
        per sequence is at most it (default 0: stop after the first epoch without a
        mistake). These are the tests of the CRFsuite bundled in python-crfsuite 0.9.12,
        which sklearn-crfsuite 0.5.0 runs.
    period, delta : int, float or None
        Stop when the objective decreased by at most ``delta`` (relative) over the last
        ``period`` iterations (lbfgs, l2sgd; defaults 10 and 1e-5 / 1e-6).
    linesearch : {"MoreThuente", "Backtracking", "StrongBacktracking"} or None
        lbfgs's line search when ``c1`` is 0 (L-BFGS): Moré and Thuente's (default),
        backtracking to the Wolfe conditions, or to the strong Wolfe conditions, as in
        CRFsuite; with ``c1 > 0`` (OWL-QN) every value runs the same backtracking (Armijo)
        search, as CRFsuite does.
    max_linesearch : int or None
        Line-search trials per iteration (lbfgs; default 20).
    calibration_eta, calibration_rate, calibration_samples, calibration_candidates, calibration_max_trials
        l2sgd's learning-rate calibration (defaults 0.1, 2.0, 1000, 10, 20).
    pa_type : {0, 1, 2} or None
        PA without slack, PA-I, PA-II (pa; default 1).
    c : float or None
        pa's aggressiveness (default 1); bol's step, bcd's SVM constant (default 1).
    error_sensitive, averaging : bool or None
        pa's options (default True); ``averaging`` also for bol, bcd, sp (default False).
    variance, gamma : float or None
        arow's initial variance and tradeoff (default 1).
    verbose : bool
        Print one line per iteration while training (``Iter k time=... loss=...``; lbfgs,
        l2sgd, ap, pa, arow; bol, bcd and sp print none), and the held-out scores of the
        returned model (not sklearn-crfsuite's output: no progress bars, no CRFsuite log).
    model_filename : str, bytes, os.PathLike or None
        ``fit`` writes the model here (the crate's saved form, not CRFsuite's file
        format); a new ``CRF(model_filename=path)`` loads it on first use. When no file
        exists there the estimator is unfitted: the attributes are None and ``predict``
        raises ``NotFittedError`` naming the path (sklearn-crfsuite: ``FileNotFoundError``).
    keep_tempfiles : bool
        Accepted and ignored: no temporary files are written.
    trainer_cls : None
        python-crfsuite trainer classes cannot be used; anything but None is a
        ``ValueError`` at ``fit``.
    n_jobs : int or None
        Threads of the fit, as scikit-learn reads ``n_jobs``: None is 1 (or the count of
        an active ``joblib.parallel_backend``), -1 every core. lbfgs computes its gradient
        over sequences on these threads; l2sgd runs its steps on one of them and scores
        the objective on the others; ap, pa, arow, bol, bcd and sp train on one thread
        whatever ``n_jobs`` says (each update needs the one before).
    zero_order : bool or None
        ``bol``, ``bcd``, ``sp`` only (not in sklearn-crfsuite): add 0-order features,
        one linear weight per (attribute, label), as CRFsuite's state features (default
        False, the learners' own default).
    transitions_only : bool or None
        ``sp`` only (not in sklearn-crfsuite): keep label-pair weights for the bias
        feature alone, i.e. CRFsuite's transition features; needs ``zero_order=True``.
        With both, ``sp`` trains CRFsuite's feature set plus per-tag and start-state weights
        of the bias, which CRFsuite's ``crf1d`` lacks (``docs/crfsuite.md``, many tags).

    Attributes
    ----------
    tagger_ : Tagger or None
        python-crfsuite's ``Tagger`` interface on the model (None before fit).
    classes_ : list of str
        The labels.
    size_ : int
        Bytes of the saved model (the crate's form).
    num_attributes_, attributes_ : int, list of str
        The attributes with at least one nonzero feature, as in a CRFsuite model (bol,
        bcd, sp: every attribute of the training data).
    state_features_, transition_features_ : dict
        Nonzero weights ``{(attribute, label): w}`` and ``{(label_from, label_to): w}``.
    training_log_ : TrainingLog or None
        Per-iteration log (python-crfsuite's parsed form).
    """

    def __init__(self, algorithm=None, min_freq=None, all_possible_states=None,
                 all_possible_transitions=None, c1=None, c2=None, max_iterations=None,
                 num_memories=None, epsilon=None, period=None, delta=None, linesearch=None,
                 max_linesearch=None, calibration_eta=None, calibration_rate=None,
                 calibration_samples=None, calibration_candidates=None,
                 calibration_max_trials=None, pa_type=None, c=None, error_sensitive=None,
                 averaging=None, variance=None, gamma=None, verbose=False,
                 model_filename=None, keep_tempfiles=False, trainer_cls=None, n_jobs=None,
                 zero_order=None, transitions_only=None):
        self.algorithm = algorithm
        self.min_freq = min_freq
        self.all_possible_states = all_possible_states
        self.all_possible_transitions = all_possible_transitions
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.num_memories = num_memories
        self.epsilon = epsilon
        self.period = period
        self.delta = delta
        self.linesearch = linesearch
        self.max_linesearch = max_linesearch
        self.calibration_eta = calibration_eta
        self.calibration_rate = calibration_rate
        self.calibration_samples = calibration_samples
        self.calibration_candidates = calibration_candidates
        self.calibration_max_trials = calibration_max_trials
        self.pa_type = pa_type
        self.c = c
        self.error_sensitive = error_sensitive
        self.averaging = averaging
        self.variance = variance
        self.gamma = gamma
        self.verbose = verbose
        self.model_filename = model_filename
        self.keep_tempfiles = keep_tempfiles
        self.trainer_cls = trainer_cls
        self.n_jobs = n_jobs
        self.zero_order = zero_order
        self.transitions_only = transitions_only

    # ------------------------------------------------------------------ fitting

    def _forget(self):
        for key in ("_model", "_tagger", "_info_cached", "_training_log"):
            self.__dict__.pop(key, None)

    def fit(self, X, y=None, X_dev=None, y_dev=None, *, client=None):
        """Trains on sequences ``X`` (each a sequence of feature dicts, read as
        python-crfsuite reads them) with label sequences ``y``; ``X_dev``, ``y_dev``
        (held-out data, optional) are scored after every iteration into
        ``training_log_`` (bol, bcd, sp: once, the returned model, into the last one). Any
        iterables work, generators included; the data is encoded in Rust as it is read.

        On a Dask cluster (``lbfgs``, ``ap``, ``pa``, ``arow``): ``X`` is a
        ``dask.bag.Bag`` of ``(xseq, yseq)`` pairs (trained on through the default
        ``distributed`` client, or ``client``), or, with ``client``, a list of partitions,
        each a list of ``(xseq, yseq)`` pairs (or a Dask ``Delayed`` / ``Future`` of one);
        ``y`` stays None. Each partition is read on a worker and stays there; per
        iteration only weight, gradient or trainer-state vectors travel. ``X_dev`` and
        ``y_dev`` are ordinary sequences, scored on the client. See ``docs/crfsuite.md``,
        "Training on a Dask cluster"."""
        if (X_dev is None) != (y_dev is None):
            raise ValueError("Pass both X_dev and y_dev to use the holdout data")
        if self.trainer_cls is not None:
            raise ValueError(
                "trainer_cls is not supported: bilinear.crfsuite does not run "
                "python-crfsuite trainers (use verbose=True for the per-iteration log)")
        model_filename = _opt(_path, "model_filename", self.model_filename)
        name = "lbfgs" if self.algorithm is None else self.algorithm
        if not isinstance(name, str):
            raise ValueError(f"algorithm must be a str, not {name!r}")
        name = name.lower()
        self._forget()
        if name not in _ALGORITHMS and name not in _BILINEAR:
            raise ValueError(
                f"invalid algorithm {self.algorithm!r}: must be 'lbfgs', 'l2sgd', 'ap', "
                "'pa', 'arow', 'bol', 'bcd' or 'sp'")
        params = _checked(
            {k: getattr(self, k) for k in _TRAINING_PARAMS if getattr(self, k) is not None})
        algorithm = _ALGORITHMS.get(name, name)
        on_iteration = _Printer() if self.verbose else None
        if client is not None or _dask.is_bag(X):
            if y is not None:
                raise ValueError(
                    "with Dask training data, X holds (xseq, yseq) pairs: leave y None")
            if algorithm in _BILINEAR:
                raise ValueError(
                    f"algorithm {name!r} has no Dask fit in bilinear.crfsuite.CRF: train it "
                    "with the distributed fit of the bilinear tagger estimator, "
                    "bilinear.BilinearTagger (CRF's Dask fit takes 'lbfgs', 'ap', 'pa' "
                    "and 'arow')")
            if algorithm == "l2sgd":
                raise ValueError(
                    "algorithm 'l2sgd' has no Dask fit: use 'lbfgs' (the same objective, "
                    "with a distributed gradient) or 'ap', 'pa', 'arow'")
            model, log, info = _dask.fit(
                client, X, algorithm, params, _threads(self.n_jobs), X_dev, y_dev,
                on_iteration)
        else:
            if y is None:
                raise ValueError(
                    "y is required (the label sequences of X), unless X is Dask training "
                    "data")
            model, log, info = _native.crfsuite_fit(
                X, y, X_dev, y_dev, algorithm=algorithm, params=params,
                threads=_threads(self.n_jobs), on_iteration=on_iteration)
        self._model = model
        self._training_log = TrainingLog(log, info)
        if self.verbose:
            _print_holdout(self._training_log)
        if model_filename is not None:
            with open(model_filename, "wb") as f:
                f.write(model.to_bytes())
        return self

    # ------------------------------------------------------------------ the model

    def _get_model(self):
        model = self.__dict__.get("_model")
        if model is None and self.model_filename is not None:
            # (a str, bytes or os.PathLike: os.path.exists(True) is about file descriptor 1)
            path = _path("model_filename", self.model_filename)
            if os.path.exists(path):
                model = self._model = _read(path, "model_filename")
        return model

    def _require_model(self):
        model = self._get_model()
        if model is None:
            if self.model_filename is not None:
                # (sklearn-crfsuite raises FileNotFoundError here; this stays a
                # NotFittedError, but names the path so that a typo shows)
                path = _path("model_filename", self.model_filename)
                raise NotFittedError(
                    f"This CRF instance is not fitted yet and no model file exists at "
                    f"model_filename={path!r}: call fit (which writes it there), or give "
                    "the path of a model saved by bilinear.crfsuite")
            raise NotFittedError(
                "This CRF instance is not fitted yet: call fit, or give model_filename "
                "of a saved model")
        return model

    def __sklearn_is_fitted__(self):
        return self._get_model() is not None

    def _of_model(self, key, build):
        """``build(model)``, kept under ``key`` (dropped by the next fit); None before
        fit."""
        value = self.__dict__.get(key)
        if value is None:
            model = self._get_model()
            if model is None:
                return None
            value = self.__dict__[key] = build(model)
        return value

    @property
    def tagger_(self):
        """python-crfsuite's ``Tagger`` interface on the model (None before fit)."""
        return self._of_model("_tagger", Tagger)

    @property
    def _info(self):
        return self._of_model("_info_cached", ModelInfo)

    @property
    def training_log_(self):
        """The training log (:class:`TrainingLog`; None before fit or for a loaded model)."""
        return self.__dict__.get("_training_log")

    @property
    def classes_(self):
        """The labels."""
        model = self._get_model()
        return None if model is None else model.labels()

    @property
    def size_(self):
        """Size of the saved model in bytes (the crate's form, not CRFsuite's)."""
        info = self._info
        return None if info is None else int(info.header["size"])

    @property
    def num_attributes_(self):
        """Number of attributes with a nonzero feature."""
        info = self._info
        return None if info is None else int(info.header["num_attrs"])

    @property
    def attributes_(self):
        """The attributes with a nonzero feature, in the model's order."""
        info = self._info
        return None if info is None else list(info.attributes)

    @property
    def state_features_(self):
        """``{(attribute, label): weight}``, nonzero weights (a ValueError for the bilinear
        learners, whose weights are not CRFsuite's features)."""
        info = self._info
        if info is not None and info.state_features is None:
            self._require_model().state_features()  # raises, saying why
        return None if info is None else info.state_features

    @property
    def transition_features_(self):
        """``{(label_from, label_to): weight}``, nonzero weights (a ValueError for the
        bilinear learners)."""
        info = self._info
        if info is not None and info.transitions is None:
            self._require_model().transition_features()  # raises, saying why
        return None if info is None else info.transitions

    # ------------------------------------------------------------------ prediction

    def predict(self, X):
        """The labels of every sequence: a 1-D object array of lists of str."""
        return _object_array(self._require_model().predict(X))

    def predict_single(self, xseq):
        """The labels of one sequence (a list of str)."""
        model = self._require_model()
        return model.tag(model.encode(xseq))

    def predict_marginals(self, X):
        """``{label: probability}`` per position of every sequence: a 1-D object array of
        lists of dicts."""
        return _object_array(self._require_model().predict_marginals(X))

    def predict_marginals_single(self, xseq):
        """``{label: probability}`` for every position of one sequence."""
        return list(self._require_model().predict_marginals([xseq])[0])

    def score(self, X, y):
        """Accuracy over all items (``metrics.flat_accuracy_score``)."""
        from .metrics import flat_accuracy_score

        return flat_accuracy_score(y, self.predict(X))

    # ------------------------------------------------------------------ pickling

    def __getstate__(self):
        state = super().__getstate__()
        state = dict(state)
        state.pop("_tagger", None)
        state.pop("_info_cached", None)
        return state


class _Printer:
    """``verbose``: one line per iteration, printed while the fit runs."""

    def __init__(self):
        self.before = 0.0

    def __call__(self, num, loss, seconds):
        took, self.before = seconds - self.before, seconds
        print(f"Iter {num:<3} time={took:<5.2f} loss={loss:<8.2f}", flush=True)


def _print_holdout(log):
    """``verbose``: the held-out scores of the returned model, per label."""
    last = log.last_iteration
    if not last or not last.get("scores"):
        return
    print(f"Held-out accuracy (item/sequence): {last['item_accuracy_float']:.3f} "
          f"{last['instance_accuracy_float']:.3f}")
    rows = [(label, s.precision, s.recall, s.f1, s.ref)
            for label, s in sorted(last["scores"].items())]
    width = max([len("Label")] + [len(r[0]) for r in rows])
    head = f"{'Label':<{width}}  Precision  Recall     F1  Support"
    print("=" * len(head))
    print(head)
    print("-" * len(head))
    for label, p, r, f, ref in rows:
        cells = ["     -" if v is None else f"{v:6.3f}" for v in (p, r, f)]
        print(f"{label:<{width}}     {cells[0]}  {cells[1]} {cells[2]}  {ref:7d}")
    print("-" * len(head))
