"""Sequence taggers with rank-1 bilinear models (Wu and Sun, "An Online Learning Algorithm
for Bilinear Models", ICML 2015) of the `online-bilinear` crate."""

from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._keywords import _bool, _float, _int, _opt, _seed, _str, _threads


def _columns(X):
    """Sentences (lists of tokens; a token is a string or a tuple of column strings) as
    the crate's columns ``[sentence][column][token]``."""
    if isinstance(X, str) or not hasattr(X, "__iter__"):
        raise ValueError("X must be a list of sentences, each a list of tokens")
    out = []
    for s, sentence in enumerate(X):
        if isinstance(sentence, str):
            raise ValueError(f"sentence {s} is a string: give a list of tokens")
        rows = [(tok,) if isinstance(tok, str) else tok for tok in sentence]
        if any(not isinstance(row, (tuple, list)) or not all(isinstance(c, str) for c in row)
               for row in rows):
            raise ValueError(f"sentence {s}: tokens must be strings or tuples of strings")
        rows = [tuple(row) for row in rows]
        widths = {len(row) for row in rows}
        if len(widths) > 1:
            raise ValueError(f"sentence {s}: tokens have different numbers of columns")
        width = widths.pop() if widths else 1
        out.append([[row[c] for row in rows] for c in range(width)])
    return out


def _tags(y):
    """The tag sequences ``y`` as lists of str (``ValueError`` naming ``y`` and the
    sequence otherwise)."""
    if isinstance(y, str) or not hasattr(y, "__iter__"):
        raise ValueError("y must be a list of tag sequences")
    tags = []
    for s, seq in enumerate(y):
        if isinstance(seq, str) or not hasattr(seq, "__iter__"):
            raise ValueError(
                f"y: sequence {s} is {type(seq).__name__}, not a list of tags (str)")
        tags.append(list(seq))
    if any(not all(isinstance(t, str) for t in seq) for seq in tags):
        raise ValueError("tags must be strings")
    return tags


def _not_unicode(what, sentences):
    """Where in ``sentences`` (``[sentence][column][token]`` or ``[sentence][tag]``) the
    first str is that UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"``), as
    ``"X: sentence s, token i"``; None if there is none. Run only after the native call
    refused such a str, so that valid input is not scanned twice."""
    for s, sentence in enumerate(sentences):
        rows = sentence if what == "X" else [sentence]
        for column in rows:
            for i, value in enumerate(column):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return f"{what}: sentence {s}, token {i}"
    return None


def _unicode_checked(call, *data):
    """``call()``; a ``UnicodeEncodeError`` of the native conversion (a str that UTF-8
    cannot encode) becomes a ``ValueError`` naming the argument, the sentence and the
    token. ``data`` are ``("X", columns)`` / ``("y", tags)`` pairs."""
    try:
        return call()
    except UnicodeEncodeError as err:
        where = next((w for w in (_not_unicode(*d) for d in data) if w), None)
        if where is None:
            raise
        raise ValueError(
            f"{where} is not valid Unicode (UTF-8 cannot encode it: {err.reason})") from None


def _is_dask_bag(X):
    """Whether ``X`` is a ``dask.bag.Bag`` (without importing dask when it is not loaded)."""
    import sys
    bag = sys.modules.get("dask.bag")
    return bag is not None and isinstance(X, bag.Bag)


def tagger_defaults(learner="bol"):
    """The crate's defaults of ``learner``'s parameters (what ``None`` means in
    :class:`BilinearTagger`): ``max_iter``, ``tol``, ``c``, ``power_steps``,
    ``averaging``, ``zero_order``, ``transitions_only``, ``shuffle``, ``seed``."""
    return dict(_native.tagger_defaults(_str("learner", learner)))


class BilinearTagger(BaseEstimator):
    """A first-order sequence tagger scored by a rank-1 bilinear model
    ``alpha^T Phi(x, y) beta`` (Sec. 3), decoded by Viterbi.

    Every parameter left ``None`` takes the Rust crate's default
    (:func:`tagger_defaults`); Python keeps no copy of its own.

    Parameters
    ----------
    learner : {"bol", "bcd", "sp", "crf-l2", "crf-l1"}, default="bol"
        Algorithm 2 (online bilinear), Algorithm 1 (block coordinate descent), the
        structured perceptron, or linear-chain CRFs (L2 / L1) on the same features.
    templates : {"segmentation", "chunking", "word"} or None, default=None
        Feature templates: character n-grams (one column), word/POS chunking (two), or
        the word-tagging preset (words and their forms). ``None``: the data decides
        (single characters: segmentation; words: the word preset; several columns must
        be named).
    max_iter : int or None
        The budget: epochs ``T`` of an online learner (default 20), L-BFGS / OWL-QN
        iterations of a CRF (default 100).
    tol : float or None
        Online: stop after an epoch in which at most this fraction of the sentences
        caused an update (default 0); CRF: the relative decrease of the objective over
        10 iterations (default 1e-5).
    threads : int or None
        Threads of the feature extraction and of the CRF's gradient (``None``: all
        cores); the online learners' epochs are sequential.
    c : float or None
        ``C``: bol's step, bcd's SVM constant, the CRFs' regularization weight (default 1).
    power_steps : int or None
        Power steps ``R`` per rank-1 projection (bol; default 4; 1 to 10 000).
    averaging, zero_order, shuffle : bool or None
        Parameter averaging, 0-order features (Sec. 4.3), shuffled epochs.
    transitions_only : bool or None
        Keep first-order (tag-pair) weights only for a bias feature (added to the
        templates if they have none), i.e. label transitions. With ``zero_order=True``
        this is a linear-chain CRF's feature set rather than the paper's first-order
        features. Learner ``"sp"`` only; needs ``zero_order=True``.
    cutoff : int or None
        Feature frequency cutoff (default 1).
    random_state : int or None
        Seed of the shuffling (``None`` means the crate's default, 0).
    """

    def __init__(self, learner="bol", templates=None, max_iter=None, tol=None, threads=None,
                 c=None, power_steps=None, averaging=None, zero_order=None,
                 transitions_only=None, cutoff=None, shuffle=None, random_state=None):
        self.learner = learner
        self.templates = templates
        self.max_iter = max_iter
        self.tol = tol
        self.threads = threads
        self.c = c
        self.power_steps = power_steps
        self.averaging = averaging
        self.zero_order = zero_order
        self.transitions_only = transitions_only
        self.cutoff = cutoff
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y=None):
        """Trains on sentences ``X`` with tag sequences ``y``.

        ``X`` may also be a ``dask.bag.Bag`` of ``(tokens, tags)`` sentences (``y`` left
        ``None``): the fit then runs on the current ``dask.distributed`` client, as
        :meth:`fit_distributed` with its defaults."""
        if _is_dask_bag(X):
            if y is not None:
                raise ValueError("a dask bag holds (tokens, tags) pairs: leave y None")
            return self.fit_distributed(X)
        if y is None:
            raise ValueError("y (the tag sequences) is required unless X is a dask bag")
        knobs = self._knobs()
        columns, tags = _columns(X), _tags(y)
        self.model_ = _unicode_checked(
            lambda: _native.tagger_fit(columns, tags, learner_name=self.learner,
                                       templates_name=self.templates, knobs=knobs),
            ("X", columns), ("y", tags))
        self.tags_ = self.model_.tags
        self.n_iter_ = self.model_.n_iter
        # (a distributed fit's record would describe another model)
        self.__dict__.pop("distributed_", None)
        return self

    def _knobs(self):
        """The optional settings of the native fits (``tagger_fit``, ``tagger_plan``):
        every key, ``None`` for the crate's default."""
        _str("learner", self.learner)
        _opt(_str, "templates", self.templates)
        return dict(
            max_iter=_opt(_int, "max_iter", self.max_iter),
            tol=_opt(_float, "tol", self.tol),
            threads=_threads(self.threads), c=_opt(_float, "c", self.c),
            power_steps=_opt(_int, "power_steps", self.power_steps),
            averaging=_opt(_bool, "averaging", self.averaging),
            zero_order=_opt(_bool, "zero_order", self.zero_order),
            transitions_only=_opt(_bool, "transitions_only", self.transitions_only),
            cutoff=_opt(_int, "cutoff", self.cutoff),
            shuffle=_opt(_bool, "shuffle", self.shuffle),
            seed=_seed(self.random_state, None))

    def fit_distributed(self, data, client=None, on_epoch=None):
        """Trains on a ``dask.distributed`` cluster by iterative parameter mixing (learners
        ``"sp"``, ``"bol"``, ``"bcd"``).

        ``data`` is a ``dask.bag.Bag`` of ``(tokens, tags)`` pairs or a list of
        partitions, each a list of ``(tokens, tags)`` pairs; each partition with a
        non-empty sentence is one shard, kept on one worker (partitions without one are
        left out). Give partitions of near-equal sizes: the weights are mixed uniformly,
        so a small shard counts as much as a large one (a ``UserWarning`` says when the
        largest has at least twice the non-empty sentences of the smallest). ``client``
        defaults to the current client. Each epoch, every shard runs one epoch of the
        learner from the mixed weights (shard ``i`` shuffles with the fit's seed plus
        ``i``); the client averages the shards' weights and stops as
        :meth:`fit` does. ``on_epoch``, if given, is called after every epoch with a dict
        of the epoch's totals (``epoch``, ``mistakes``, ``token_errors``, ``tokens``,
        ``seconds``).

        Sets ``model_``, ``tags_``, ``n_iter_`` and ``distributed_`` (shards, workers,
        setup and per-epoch seconds, weight bytes sent to and from the workers per
        epoch). With one non-empty partition the model equals :meth:`fit`'s on the same
        sentences. The settings, ``client`` and ``on_epoch`` are checked before any data
        is read (``ValueError``). Bad input raises ``ValueError`` naming the partition and
        the sentence (e.g. ``"partition 2, sentence 5: 3 tokens but 4 tags"``); a worker
        holding a partition that leaves the cluster, or that Dask keeps paused at its
        memory limit, makes the fit raise ``RuntimeError``, and the client stays usable."""
        from ._tagger_dask import fit_distributed
        return fit_distributed(self, data, client=client, on_epoch=on_epoch)

    def predict(self, X):
        """The tag sequence of every sentence."""
        check_is_fitted(self)
        columns = _columns(X)
        return _unicode_checked(lambda: self.model_.predict(columns), ("X", columns))

    def evaluate(self, X, y):
        """``{"label_error_rate", "f1"}`` (word F1 for BMES tags, chunk F1 for chunk tags,
        NaN for other tags)."""
        check_is_fitted(self)
        columns, tags = _columns(X), _tags(y)
        return _unicode_checked(lambda: self.model_.evaluate(columns, tags),
                                ("X", columns), ("y", tags))

    def score(self, X, y):
        """Token accuracy, ``1 - label_error_rate``."""
        return 1.0 - self.evaluate(X, y)["label_error_rate"]
