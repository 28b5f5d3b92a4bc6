"""python-crfsuite's ``Tagger``, its ``info()`` structure and the parsed training log,
over a :class:`bilinear._native.CrfModel`."""

import contextlib
import fractions
from collections import namedtuple

from .. import _native
from .._keywords import _int, _path

#: One label's held-out scores, as python-crfsuite's log parser gives them.
LabelScore = namedtuple("LabelScore", "match model ref precision recall f1")


class UnknownLabelError(ValueError, RuntimeError):
    """A label the model does not know, given to ``Tagger.marginal`` or
    ``Tagger.probability`` (and ``CrfModel.probability``). python-crfsuite raises
    ``RuntimeError`` there; this class is both a ``RuntimeError`` (code written for
    python-crfsuite catches it) and a ``ValueError`` (as the other bad input of the
    tagger). Its message names the label."""


def _unknown_label(label, n_labels):
    return UnknownLabelError(
        f"unknown label {label!r}: not one of the model's {n_labels} labels")


def _load(data):
    return _native.CrfModel.from_bytes(bytes(data))


def _read(path, name="name"):
    """The model saved at ``path`` (a str, bytes or os.PathLike: ``TypeError`` naming
    ``name`` otherwise, so that an int is not read as a file descriptor)."""
    path = _path(name, path)
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"lCRF":
        raise ValueError(
            f"{path!r} is a model file of CRFsuite itself (python-crfsuite, sklearn-crfsuite): "
            "bilinear.crfsuite reads only the models it saves; train it again here")
    return _load(data)


class ModelInfo:
    """What python-crfsuite's ``Tagger.info()`` returns (its ``ParsedDump``): the model's
    nonzero weights by name, as CRFsuite stores a model (features of weight 0 and the
    attributes left without a feature are dropped).

    Attributes
    ----------
    header : dict
        ``size`` (bytes of the saved model), ``num_labels``, ``num_attrs`` (attributes
        with a nonzero feature), ``num_features`` (nonzero features), ``type``; values are
        strings, as CRFsuite's dump parser gives them.
    labels : dict
        ``{label: id}`` (ids as strings).
    attributes : dict
        ``{attribute: id}`` (ids as strings) of the attributes with a nonzero feature.
    transitions : dict
        ``{(label_from, label_to): weight}``, nonzero weights.
    state_features : dict
        ``{(attribute, label): weight}``, nonzero weights.

    For a model of ``bol``, ``bcd`` or ``sp`` (no CRFsuite features): ``transitions`` and
    ``state_features`` are None, ``attributes`` holds every attribute of the training
    data and ``num_features`` counts the tagger's features.
    """

    def __init__(self, model):
        if model.bilinear_learner is not None:
            # A bilinear tagger (bol, bcd, sp): no CRFsuite state or transition features;
            # every attribute of the training data is one of its features.
            self.state_features = self.transitions = None
            names = list(model.attributes())
            n_features = model.n_features
        else:
            self.state_features = {
                (a, y): w for a, y, w in model.state_features() if w != 0.0}
            self.transitions = {
                (a, b): w for a, b, w in model.transition_features() if w != 0.0}
            used = {a for a, _ in self.state_features}
            names = [a for a in model.attributes() if a in used]
            n_features = len(self.state_features) + len(self.transitions)
        self.attributes = {a: str(i) for i, a in enumerate(names)}
        self.labels = {y: str(i) for i, y in enumerate(model.labels())}
        self.header = {
            "type": "FOMC",
            "size": str(len(model.to_bytes())),
            "num_features": str(n_features),
            "num_labels": str(len(self.labels)),
            "num_attrs": str(len(self.attributes)),
        }


class Tagger:
    """python-crfsuite's ``Tagger`` on a model of :mod:`bilinear.crfsuite`: ``set`` an
    item sequence, then ``tag``, ``marginal`` and ``probability`` refer to it.

    ``open`` and ``open_inmemory`` read the models this package saves (not CRFsuite's
    binary files). As in python-crfsuite, a position outside the sequence and a label
    sequence of the wrong length raise ``ValueError``, a label the model does not know
    raises :class:`UnknownLabelError` (a ``RuntimeError``, as python-crfsuite's, and a
    ``ValueError``), and ``tag()`` before any sequence was set returns ``[]``. Unlike
    python-crfsuite: ``marginal`` and ``probability`` before any sequence was set raise
    ``ValueError`` (python-crfsuite returns 0.0); after ``set([])``, ``probability([])``
    is 1.0 (the empty label sequence is the only one; python-crfsuite: 0.0) and
    ``marginal`` raises ``ValueError`` (there is no position; python-crfsuite: 0.0).
    """

    def __init__(self, model=None):
        self._model = model
        self._seq = None
        self._marginals = None

    def open(self, name):
        """Loads a model file saved by :class:`bilinear.crfsuite.CRF`."""
        self._model = _read(name)
        self._seq = self._marginals = None
        return contextlib.closing(self)

    def open_inmemory(self, value):
        """Loads a model from the bytes of a saved model (bytes, bytearray or
        memoryview; ``TypeError`` otherwise)."""
        if not isinstance(value, (bytes, bytearray, memoryview)):
            # (bytes(n) of an int n would be n zero bytes)
            raise TypeError(
                "open_inmemory needs the bytes of a saved model (bytes, bytearray or "
                f"memoryview), not {type(value).__name__}")
        self._model = _load(value)
        self._seq = self._marginals = None
        return contextlib.closing(self)

    def close(self):
        """Forgets the model."""
        self._model = self._seq = self._marginals = None

    def _require(self):
        if self._model is None:
            raise ValueError("the tagger has no model: open one first")
        return self._model

    def labels(self):
        """The model's labels."""
        return self._require().labels()

    def set(self, xseq):
        """Sets the item sequence that ``tag()``, ``marginal`` and ``probability`` use."""
        self._seq = self._require().encode(xseq)
        self._marginals = None

    def _current(self):
        if self._seq is None:
            raise ValueError("no item sequence: call set(xseq) or tag(xseq) first")
        return self._seq

    def tag(self, xseq=None):
        """The most probable labels (Viterbi) of ``xseq``, or of the current sequence
        (``[]`` when no sequence was set, as in python-crfsuite)."""
        if xseq is not None:
            self.set(xseq)
        model = self._require()
        if self._seq is None:
            return []
        return model.tag(self._seq)

    def probability(self, yseq):
        """``P(yseq | xseq)`` for the current sequence: ``ValueError`` when ``yseq`` and
        the sequence differ in length, :class:`UnknownLabelError` for a label the model
        does not know; ``TypeError`` naming ``yseq`` when it is not a sequence of str."""
        model = self._require()
        seq = self._current()
        if not hasattr(yseq, "__iter__"):
            raise TypeError(
                f"yseq must be a sequence of labels (str), not {type(yseq).__name__}")
        labels = list(yseq)
        for i, label in enumerate(labels):
            if not isinstance(label, str):
                raise TypeError(
                    f"yseq must be a sequence of labels (str): yseq[{i}] is "
                    f"{type(label).__name__} ({label!r:.48})")
        return model.probability(seq, labels)

    def marginal(self, y, pos):
        """The marginal probability of label ``y`` at position ``pos`` of the current
        sequence: ``ValueError`` for a ``pos`` that is not an int position in it,
        :class:`UnknownLabelError` for a label the model does not know."""
        model = self._require()
        seq = self._current()
        pos = _int("pos", pos)
        if pos >= len(seq):
            raise ValueError(f"position {pos} is outside the sequence of {len(seq)} items")
        if self._marginals is None:
            self._marginals = model.marginals(seq)
            self._index = {label: i for i, label in enumerate(model.labels())}
        i = self._index.get(y) if isinstance(y, str) else None
        if i is None:
            raise _unknown_label(y, len(self._index))
        return self._marginals[pos][i]

    def info(self):
        """The model's weights by name (:class:`ModelInfo`)."""
        return ModelInfo(self._require())

    def dump(self, filename=None):
        """Writes the model's nonzero weights as text in the layout of CRFsuite's dump (to
        ``filename``, or standard output): each feature line starts with CRFsuite's
        feature type, ``(1)`` for a transition and ``(0)`` for a state feature; the
        header has only the fields of :class:`ModelInfo` (no ``magic``, ``version`` or
        ``off_*``). ``ValueError`` for a model of ``bol``, ``bcd`` or ``sp``, which has
        no CRFsuite features."""
        if filename is not None:
            filename = _path("filename", filename)
        info = self.info()
        if info.state_features is None:
            self._require().state_features()  # raises, saying why
        lines = ["FILEHEADER = {"]
        lines += [f"  {k}: {v}" for k, v in info.header.items()]
        lines += ["}", "", "LABELS = {"]
        lines += [f"  {int(i):5d}: {y}" for y, i in info.labels.items()]
        lines += ["}", "", "ATTRIBUTES = {"]
        lines += [f"  {int(i):5d}: {a}" for a, i in info.attributes.items()]
        # CRFsuite's feature types: 0 for a state feature, 1 for a transition.
        lines += ["}", "", "TRANSITIONS = {"]
        lines += [f"  (1) {a} --> {b}: {w:.6f}" for (a, b), w in info.transitions.items()]
        lines += ["}", "", "STATE_FEATURES = {"]
        lines += [f"  (0) {a} --> {y}: {w:.6f}"
                  for (a, y), w in info.state_features.items()]
        lines += ["}", ""]
        text = "\n".join(lines) + "\n"
        if filename is None:
            print(text, end="")
        else:
            with open(filename, "w", encoding="utf8") as f:
                f.write(text)


class TrainingLog:
    """The training log, shaped as python-crfsuite's ``TrainLogParser`` (what
    sklearn-crfsuite's ``training_log_`` is).

    Attributes
    ----------
    iterations : list of dict
        One dict per iteration with the keys of python-crfsuite's parser that the trainer
        has: ``num``, ``loss``, ``feature_norm``, ``active_features``, ``time`` (seconds of
        this iteration; in a one-machine fit of CRFsuite's trainers the first one's includes
        the feature generation), ``scores``; ``error_norm`` and ``linesearch_trials`` (lbfgs);
        ``learning_rate`` (l2sgd) and ``errors`` (online trainers: items labelled wrongly
        in the epoch), which CRFsuite prints but the parser does not keep. With held-out
        data: ``item_accuracy`` and ``instance_accuracy`` (fractions) and their ``_float``
        forms (bol, bcd, sp: on the last iteration only, for the returned model), and on
        the last iteration, for the returned model, ``scores`` and ``avg_precision``,
        ``avg_recall``, ``avg_f1`` as CRFsuite computes them and python-crfsuite's parser
        reads them: ``scores`` is ``{label: LabelScore}`` for every label of the model
        that occurs in ``y_dev``, and ``LabelScore(0, 0, 0, None, None, None)`` for a
        label that is neither in ``y_dev`` nor predicted (a label predicted but absent
        from ``y_dev`` has no entry); each average is the sum over the labels that occur
        in ``y_dev`` divided by the number of the model's labels. Scores are at full
        precision (the parser reads CRFsuite's 4 and 6 printed decimals).
    last_iteration : dict or None
        The last of ``iterations``.
    featgen_num_features : int
        Number of features (state and transition) of the model.
    featgen_seconds : float or None
        Seconds the feature generation took (CRFsuite's trainers on one machine); None
        for bol, bcd and sp, and for a fit on a Dask cluster (see ``distributed``).
    training_seconds : float
        Seconds of the training iterations (feature generation not included).
    termination : str
        Why training stopped: ``Solved`` (lbfgs: the ``epsilon`` gradient test),
        ``Converged`` (the ``delta`` test, or an online trainer's ``epsilon``),
        ``BudgetExhausted`` (lbfgs: a line search found no step within
        ``max_linesearch`` trials; not converged), ``MaxIterations``, ...
    log : list of str
        The log as text lines in CRFsuite's layout (what ``verbose`` prints).
    distributed : dict or None
        For a fit on a Dask cluster: ``shards``, ``workers``, ``sequences``, ``rounds``
        (evaluations of ``lbfgs``, epochs of the online trainers), ``setup_seconds``
        (reading, merging and freezing the shards), ``bytes_sent`` and
        ``bytes_received`` (the vectors of all rounds, client to workers and back) and
        ``bytes_per_round``; None for a one-machine fit.
    """

    featgen_percent = 100
    featgen_seconds = None
    storing_seconds = None
    state = None

    def __init__(self, entries, info):
        self.featgen_num_features = info["n_features"]
        self.training_seconds = info["seconds"]
        self.featgen_seconds = info.get("featgen_seconds")
        self.termination = info["termination"]
        self.distributed = info.get("distributed")
        self.iterations = []
        dev_items = info.get("dev_items")
        dev_seqs = info.get("dev_sequences")
        before = 0.0
        for e in entries:
            it = {"num": e["num"], "scores": {}}
            for key in ("loss", "feature_norm", "error_norm", "active_features",
                        "linesearch_trials", "learning_rate", "errors"):
                if key in e:
                    it[key] = e[key]
            it["time"] = max(e["time"] - before, 0.0)
            before = e["time"]
            if "item_accuracy_float" in e:
                for key, n in (("item_accuracy", dev_items), ("instance_accuracy", dev_seqs)):
                    acc = e[key + "_float"]
                    it[key] = fractions.Fraction(round(acc * n), n) if n else fractions.Fraction(0)
                    it[key + "_float"] = acc
            self.iterations.append(it)
        self.last_iteration = self.iterations[-1] if self.iterations else None
        counts = info.get("dev_label_counts")
        if counts is not None and self.last_iteration is not None:
            self.last_iteration["scores"], averages = _holdout_scores(counts)
            (self.last_iteration["avg_precision"], self.last_iteration["avg_recall"],
             self.last_iteration["avg_f1"]) = averages
        self.log = [line for it in self.iterations for line in _iteration_lines(it)]

    def __repr__(self):
        return (f"<TrainingLog of {len(self.iterations)} iterations, "
                f"{self.featgen_num_features} features>")


def _holdout_scores(counts):
    """``({label: LabelScore}, (avg_precision, avg_recall, avg_f1))`` from ``{label:
    (match, model, ref)}`` over the model's labels, as CRFsuite's evaluation computes
    them and python-crfsuite's log parser reads them (``TrainingLog``): a label absent
    from the reference (``ref == 0``) is left out of the averages, and is listed (with
    None scores) only when it was not predicted either; the sums over the other labels
    are divided by the number of the model's labels."""
    scores, sums = {}, [0.0, 0.0, 0.0]
    for label, (match, model, ref) in counts.items():
        if ref == 0:
            if model == 0:
                scores[label] = LabelScore(0, 0, 0, None, None, None)
            continue
        p = match / model if model else 0.0
        r = match / ref
        f = 2 * p * r / (p + r) if p + r > 0 else 0.0
        scores[label] = LabelScore(match, model, ref, p, r, f)
        sums = [sums[0] + p, sums[1] + r, sums[2] + f]
    n = max(len(counts), 1)
    return scores, tuple(s / n for s in sums)


# The lines of an iteration that only some trainers log: (log key, CRFsuite's line).
_OPTIONAL_LINES = (
    ("feature_norm", "Feature norm: {:.6f}\n"),
    ("error_norm", "Error norm: {:.6f}\n"),
    ("active_features", "Active features: {}\n"),
    ("linesearch_trials", "Line search trials: {}\n"),
    ("learning_rate", "Learning rate (eta): {:.6f}\n"),
    ("errors", "Number of errors: {}\n"),
)


def _iteration_lines(it):
    """One iteration of the log as CRFsuite prints it."""
    lines = [f"***** Iteration #{it['num']} *****\n", f"Loss: {it['loss']:.6f}\n"]
    # The bilinear learners (bol, bcd, sp) log no weight norm nor active features.
    for key, line in _OPTIONAL_LINES:
        if key in it:
            lines.append(line.format(it[key]))
    for key, name in (("item_accuracy", "Item"), ("instance_accuracy", "Instance")):
        if key in it:
            frac = it[key]
            lines.append(f"{name} accuracy: {frac.numerator} / {frac.denominator} "
                         f"({float(frac):.4f})\n")
    lines.append(f"Seconds required for this iteration: {it['time']:.3f}\n")
    lines.append("\n")
    return lines
