"""A drop-in for sklearn-crfsuite: ``import bilinear.crfsuite as sklearn_crfsuite``, and
every ``from sklearn_crfsuite import ...`` (``CRF``, ``metrics``, ``scorers``) rewritten as
``from bilinear.crfsuite import ...`` (the alias does not cover ``from`` imports).

``CRF`` has sklearn-crfsuite's parameters, methods and attributes and trains linear-chain
CRFs with the Rust crate ``chain-crf`` (CRFsuite's model and trainers; ``n_jobs`` threads
for lbfgs's gradient, see ``CRF``); ``metrics`` and ``scorers`` offer sklearn-crfsuite's
functions. sklearn-crfsuite's ``estimator``, ``trainer``, ``utils`` and ``compat`` modules
are not offered (``metrics.flatten`` is). The differences from sklearn-crfsuite are
listed in ``docs/crfsuite.md``.

How items are read (as python-crfsuite reads them):

- ``{"w": "the"}``: a str (or UTF-8 bytes) value gives the attribute ``"w:the"`` with
  value 1 (joined with ``:``, as python-crfsuite does);
- ``{"n": 2.5}``: a number (int, float, NumPy scalar) gives ``"n"`` with that value;
  ``True`` / ``False`` are 1 / 0;
- ``{"p": {...}}``: a nested dict's attributes, prefixed ``"p:"``, recursively (at most
  64 dicts deep: a deeper item, or a dict that contains itself, is a ``ValueError``; so
  are an item of more than 2**20 entries counted at every level, e.g. nested dicts that
  share their children, and an attribute name of more than 2**20 bytes);
- ``{"p": ["x", "y"]}`` (a list or set of str): ``"p:x"`` and ``"p:y"``, value 1;
- ``["x", "y"]``: an item that is a list (tuple, set) of str gives ``"x"``, ``"y"``,
  value 1; a name given twice in one item counts twice.

``ValueError`` (naming ``X``/``y``/``X_dev``/``y_dev``, the sequence and the position)
for a value of another type, NaN or infinite values, non-str or empty labels, a sequence
and its labels of different lengths, an empty training sequence, and ``X`` and ``y`` of
different lengths.
"""

from . import metrics, scorers
from ._estimator import CRF
from ._tagger import LabelScore, ModelInfo, Tagger, TrainingLog, UnknownLabelError

__all__ = ["CRF", "LabelScore", "ModelInfo", "Tagger", "TrainingLog", "UnknownLabelError",
           "metrics", "scorers"]
