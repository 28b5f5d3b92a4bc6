"""Sequence taggers with rank-1 bilinear models (Wu and Sun, "An Online Learning Algorithm
for Bilinear Models", ICML 2015) of the `online-bilinear` crate."""

from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._sblr import _seed


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
    if isinstance(y, str) or not hasattr(y, "__iter__"):
        raise ValueError("y must be a list of tag sequences")
    tags = [list(seq) for seq in y]
    if any(not all(isinstance(t, str) for t in seq) for seq in tags):
        raise ValueError("tags must be strings")
    return tags


class BilinearTagger(BaseEstimator):
    """A first-order sequence tagger scored by a rank-1 bilinear model
    ``alpha^T Phi(x, y) beta`` (Sec. 3), decoded by Viterbi.

    Parameters
    ----------
    learner : {"bol", "bcd", "sp", "crf-l2", "crf-l1"}, default="bol"
        Algorithm 2 (online bilinear), Algorithm 1 (block coordinate descent), the
        structured perceptron, or linear-chain CRFs (L2 / L1) on the same features.
    templates : {"segmentation", "chunking"}, default="segmentation"
        Feature templates: character n-grams (one column) or word/POS chunking (two).
    epochs : int, default=20
    c : float, default=1.0
        Aggressiveness ``C``.
    power_steps : int, default=4
        Power steps ``R`` per rank-1 projection (bol).
    averaging, zero_order, shuffle : bool
        Parameter averaging, 0-order features (Sec. 4.3), shuffled epochs.
    transitions_only : bool, default=False
        Keep first-order (tag-pair) weights only for a bias feature that this option adds
        to the templates, i.e. label transitions. With ``zero_order=True`` this is a
        linear-chain CRF's feature set rather than the paper's first-order features.
        Learner ``"sp"`` only; needs ``zero_order=True``.
    cutoff : int, default=1
        Feature frequency cutoff.
    random_state : int or None
        Seed of the shuffling (``None`` means 0).
    """

    def __init__(self, learner="bol", templates="segmentation", epochs=20, c=1.0,
                 power_steps=4, averaging=False, zero_order=False, transitions_only=False,
                 cutoff=1, shuffle=True, random_state=None):
        self.learner = learner
        self.templates = templates
        self.epochs = epochs
        self.c = c
        self.power_steps = power_steps
        self.averaging = averaging
        self.zero_order = zero_order
        self.transitions_only = transitions_only
        self.cutoff = cutoff
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """Trains on sentences ``X`` with tag sequences ``y``."""
        self.model_ = _native.tagger_fit(
            _columns(X), _tags(y), learner_name=self.learner, templates_name=self.templates,
            epochs=int(self.epochs), c=float(self.c), power_steps=int(self.power_steps),
            averaging=bool(self.averaging), zero_order=bool(self.zero_order),
            transitions_only=bool(self.transitions_only),
            cutoff=int(self.cutoff), shuffle=bool(self.shuffle),
            seed=_seed(self.random_state))
        self.tags_ = self.model_.tags
        self.n_iter_ = self.model_.n_iter
        return self

    def predict(self, X):
        """The tag sequence of every sentence."""
        check_is_fitted(self)
        return self.model_.predict(_columns(X))

    def evaluate(self, X, y):
        """``{"label_error_rate", "f1"}`` (word F1 for BMES tags, chunk F1 for chunk tags)."""
        check_is_fitted(self)
        return self.model_.evaluate(_columns(X), _tags(y))

    def score(self, X, y):
        """Token accuracy, ``1 - label_error_rate``."""
        return 1.0 - self.evaluate(X, y)["label_error_rate"]
