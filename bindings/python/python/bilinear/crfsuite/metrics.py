"""Metrics over label sequences, as ``sklearn_crfsuite.metrics``: the ``flat_*``
functions flatten the sequences and call scikit-learn's metric of the same name (extra
keywords go to it, but for ``flat_accuracy_score``, which takes none);
``sequence_accuracy_score`` counts whole sequences (where sklearn-crfsuite 0.5.0 gives
other numbers: its docstring)."""

from functools import wraps
from itertools import chain


def flatten(y):
    """All items of all sequences, in order: ``[[1, 2], [3]] -> [1, 2, 3]``."""
    return list(chain.from_iterable(y))


def _flattens_y(func):
    @wraps(func)
    def wrapper(y_true, y_pred, *args, **kwargs):
        return func(flatten(y_true), flatten(y_pred), *args, **kwargs)

    return wrapper


@_flattens_y
def flat_accuracy_score(y_true, y_pred):
    """Accuracy over all items."""
    from sklearn import metrics

    return metrics.accuracy_score(y_true, y_pred)


@_flattens_y
def flat_precision_score(y_true, y_pred, **kwargs):
    """Precision over all items (``sklearn.metrics.precision_score``)."""
    from sklearn import metrics

    return metrics.precision_score(y_true, y_pred, **kwargs)


@_flattens_y
def flat_recall_score(y_true, y_pred, **kwargs):
    """Recall over all items (``sklearn.metrics.recall_score``)."""
    from sklearn import metrics

    return metrics.recall_score(y_true, y_pred, **kwargs)


@_flattens_y
def flat_f1_score(y_true, y_pred, **kwargs):
    """F1 over all items (``sklearn.metrics.f1_score``)."""
    from sklearn import metrics

    return metrics.f1_score(y_true, y_pred, **kwargs)


@_flattens_y
def flat_fbeta_score(y_true, y_pred, beta, **kwargs):
    """F-beta over all items (``sklearn.metrics.fbeta_score``)."""
    from sklearn import metrics

    return metrics.fbeta_score(y_true, y_pred, beta=beta, **kwargs)


@_flattens_y
def flat_classification_report(y_true, y_pred, labels=None, **kwargs):
    """``sklearn.metrics.classification_report`` over all items."""
    from sklearn import metrics

    return metrics.classification_report(y_true, y_pred, labels=labels, **kwargs)


def sequence_accuracy_score(y_true, y_pred):
    """Share of sequences whose labels are all right (0 for no sequence; ``ValueError``
    when ``y_true`` and ``y_pred`` have different numbers of sequences).

    Not sklearn-crfsuite 0.5.0's numbers in two cases: when all sequences have the same
    length, its ``np.array(..., dtype=object)`` is 2-D and it counts matching items
    instead of sequences (``[["A", "B"], ["A", "C"]]`` against ``[["A", "B"], ["A",
    "B"]]``: 1.5 there, 0.5 here), and sequence counts that differ give it a number where
    this raises ``ValueError``."""
    y_true, y_pred = list(y_true), list(y_pred)
    if len(y_true) != len(y_pred):
        raise ValueError(
            f"y_true has {len(y_true)} sequences but y_pred has {len(y_pred)}")
    if not y_true:
        return 0
    matches = sum(1 for a, b in zip(y_true, y_pred) if list(a) == list(b))
    return matches / len(y_true)
