"""Scorers for scikit-learn's ``cross_val_score``, ``GridSearchCV``,
``RandomizedSearchCV`` and the like, as ``sklearn_crfsuite.scorers``."""

from sklearn.metrics import make_scorer

from . import metrics

flat_accuracy = make_scorer(metrics.flat_accuracy_score)
sequence_accuracy = make_scorer(metrics.sequence_accuracy_score)
