"""Sparse bilinear logistic regression, bilinear online sequence taggers, Boolean tensor
factorization, the mixing method for diagonal-constrained SDPs and global optimization
for mixed-membership matrix factorization, computed by the Rust crates of the `bilinear`
workspace; `bilinear.crfsuite` is a drop-in for sklearn-crfsuite (see the package
README)."""

from . import _native
from ._gop import GopResult, gop_mmf, gop_mmf_defaults
from ._sblr import SparseBilinearLogisticRegression
from ._sdp import MaxCutResult, MixingResult, maxcut, mixing_sdp
from ._tagger import BilinearTagger, tagger_defaults
from ._tensor import BooleanTensorDecomposition, CPDecomposition, TuckerDecomposition

__version__ = _native.__version__

__all__ = [
    "BilinearTagger",
    "BooleanTensorDecomposition",
    "CPDecomposition",
    "TuckerDecomposition",
    "MaxCutResult",
    "MixingResult",
    "GopResult",
    "gop_mmf",
    "gop_mmf_defaults",
    "maxcut",
    "mixing_sdp",
    "SparseBilinearLogisticRegression",
    "tagger_defaults",
    "__version__",
]
